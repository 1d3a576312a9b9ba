//! Garbage collection of run directories, deterministic as seed 000 §3.4 states:
//! 1. enumerate `<cache>/runs/*` directories (symlinks and files are left alone);
//! 2. `started_at` and `ok` from `result.json`, else the time in the directory's name (else its
//!    mtime) and `ok` unknown, which counts as failed;
//! 3. keep the newest `keep_last`;
//! 4. keep failed runs no older than `keep_failure_days`;
//! 5. while the kept runs hold more than `max_bytes`, delete the oldest kept one;
//!
//! and never a live run (a live session's, the server's, or one holding a recording in
//! progress), whatever the policy says. [`plan`] is pure (facts, policy, now → a plan with a
//! reason for each run); [`scan`] reads the facts; [`execute`] deletes what a plan says, only
//! directories it enumerated under the runs folder.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::dirs;
use crate::api::wire::runs::{GcAction, GcEntry, GcPlan, GcPolicy, GcReason, RunResult};

impl Default for GcPolicy {
    fn default() -> Self {
        GcPolicy {
            keep_last: 20,
            keep_failure_days: 7,
            max_bytes: 2_000_000_000,
        }
    }
}

impl GcPolicy {
    /// The defaults, with `MOBILECTL_GC_KEEP_LAST`, `MOBILECTL_GC_KEEP_FAILURE_DAYS` and
    /// `MOBILECTL_GC_MAX_BYTES` (a number of bytes, or with a K, M or G suffix) over them; a
    /// value that does not parse is reported and the default kept.
    pub fn from_env() -> (GcPolicy, Vec<String>) {
        let mut p = GcPolicy::default();
        let mut problems = Vec::new();
        let mut read = |key: &str, parse: &dyn Fn(&str) -> Option<u64>, into: &mut u64| {
            if let Ok(v) = std::env::var(key) {
                match parse(v.trim()) {
                    Some(n) => *into = n,
                    None => problems.push(format!("{key}={v:?} is not a number; kept {into}")),
                }
            }
        };
        let mut keep_last = p.keep_last as u64;
        read(
            "MOBILECTL_GC_KEEP_LAST",
            &|s| s.parse().ok(),
            &mut keep_last,
        );
        p.keep_last = usize::try_from(keep_last).unwrap_or(usize::MAX);
        read(
            "MOBILECTL_GC_KEEP_FAILURE_DAYS",
            &|s| s.parse().ok(),
            &mut p.keep_failure_days,
        );
        read("MOBILECTL_GC_MAX_BYTES", &parse_bytes, &mut p.max_bytes);
        (p, problems)
    }
}

/// `2000000000`, `512M`, `2G` (binary suffixes).
fn parse_bytes(s: &str) -> Option<u64> {
    let (n, mult) = match s.chars().last()? {
        c if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_uppercase() {
                'K' => 1u64 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => return None,
            };
            (&s[..s.len() - 1], m)
        }
        _ => (s, 1),
    };
    n.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// What GC knows of one run directory.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts {
    /// The directory's name.
    pub id: String,
    /// When the run started.
    pub started_at: DateTime<Utc>,
    /// From `result.json`; none without one (counted as failed).
    pub ok: Option<bool>,
    /// Bytes under the directory ([`size_of`]).
    pub bytes: u64,
    /// A live session's run, the server's, or one held (a recording in progress).
    pub live: bool,
}

/// The plan for `runs` under `policy` at `now`: every run, newest first (ties by id, newest
/// last in name order first), with its action and reason. Pure.
pub fn plan(mut runs: Vec<RunFacts>, policy: &GcPolicy, now: DateTime<Utc>) -> Vec<GcEntry> {
    runs.sort_by(|a, b| b.started_at.cmp(&a.started_at).then(b.id.cmp(&a.id)));
    let max_age = chrono::Duration::days(
        i64::try_from(policy.keep_failure_days)
            .unwrap_or(i64::MAX / 86_400_000)
            .min(1_000_000),
    );
    let mut entries: Vec<GcEntry> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let failed = r.ok != Some(true);
            let (action, reason) = if r.live {
                (GcAction::Keep, GcReason::Live)
            } else if i < policy.keep_last {
                (GcAction::Keep, GcReason::Recent)
            } else if failed && now.signed_duration_since(r.started_at) <= max_age {
                (GcAction::Keep, GcReason::RecentFailure)
            } else {
                (GcAction::Delete, GcReason::Expired)
            };
            GcEntry {
                id: r.id.clone(),
                action,
                reason,
                bytes: r.bytes,
            }
        })
        .collect();
    let mut total: u64 = entries
        .iter()
        .filter(|e| e.action == GcAction::Keep)
        .map(|e| e.bytes)
        .sum();
    for e in entries.iter_mut().rev() {
        if total <= policy.max_bytes {
            break;
        }
        if e.action == GcAction::Keep && e.reason != GcReason::Live {
            e.action = GcAction::Delete;
            e.reason = GcReason::OverBudget;
            total -= e.bytes;
        }
    }
    entries
}

/// The facts of every directory under `<cache>/runs`; `live` says which ids are live.
/// Entries that are not directories (symlinks included) are not runs and are left alone.
pub fn scan(cache: &Path, live: impl Fn(&str) -> bool) -> Vec<RunFacts> {
    let Ok(entries) = std::fs::read_dir(dirs::runs_dir(cache)) else {
        return Vec::new();
    };
    let mut runs = Vec::new();
    for entry in entries.flatten() {
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        let Ok(id) = entry.file_name().into_string() else {
            continue;
        };
        let result: Option<RunResult> = std::fs::read(entry.path().join("result.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let started_at = result
            .as_ref()
            .and_then(|r| DateTime::parse_from_rfc3339(&r.started_at).ok())
            .map(|t| t.with_timezone(&Utc))
            .or_else(|| dirs::time_of_name(&id))
            .or_else(|| meta.modified().ok().map(DateTime::<Utc>::from))
            .unwrap_or_default();
        runs.push(RunFacts {
            live: live(&id),
            bytes: size_of(&entry.path()),
            ok: result.map(|r| r.ok),
            started_at,
            id,
        });
    }
    runs
}

/// Bytes under `dir`, symlinks counted as themselves and never followed.
pub fn size_of(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

/// Carries out `entries` (unless `dry_run`): deletes the runs it says, each a directory this
/// scan enumerated under `<cache>/runs` and still a directory (not a symlink) now; `live` is
/// asked again right before each deletion. The answer sums it up.
pub fn execute(
    cache: &Path,
    entries: Vec<GcEntry>,
    policy: GcPolicy,
    dry_run: bool,
    live: impl Fn(&str) -> bool,
) -> GcPlan {
    let root = dirs::runs_dir(cache);
    let mut problems = Vec::new();
    let mut entries = entries;
    if !dry_run {
        for e in entries.iter_mut().filter(|e| e.action == GcAction::Delete) {
            let dir = root.join(&e.id);
            let is_dir = std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir());
            // A name from the listing is one path component; anything else is not ours.
            let one_component =
                Path::new(&e.id).components().count() == 1 && !e.id.starts_with('.');
            if !is_dir || !one_component || live(&e.id) {
                e.action = GcAction::Keep;
                e.reason = GcReason::Live;
                continue;
            }
            if let Err(err) = std::fs::remove_dir_all(&dir) {
                problems.push(format!("{}: {err}", e.id));
                e.action = GcAction::Keep;
            }
        }
    }
    let (kept, deleted): (Vec<&GcEntry>, Vec<&GcEntry>) =
        entries.iter().partition(|e| e.action == GcAction::Keep);
    GcPlan {
        dry_run,
        policy,
        kept: kept.len(),
        deleted: deleted.len(),
        freed_bytes: deleted.iter().map(|e| e.bytes).sum(),
        kept_bytes: kept.iter().map(|e| e.bytes).sum(),
        runs: entries,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use GcAction::*;
    use GcReason::*;

    const NOW: &str = "2026-11-25T12:00:00Z";

    fn at(days_ago: f64) -> DateTime<Utc> {
        let now = DateTime::parse_from_rfc3339(NOW)
            .unwrap()
            .with_timezone(&Utc);
        now - chrono::Duration::seconds((days_ago * 86_400.0) as i64)
    }

    /// A run `days_ago` old: `ok` (Some(true)), failed (Some(false)) or without result (None).
    fn run(id: &str, days_ago: f64, ok: Option<bool>, bytes: u64) -> RunFacts {
        RunFacts {
            id: id.into(),
            started_at: at(days_ago),
            ok,
            bytes,
            live: false,
        }
    }

    fn live(mut r: RunFacts) -> RunFacts {
        r.live = true;
        r
    }

    fn policy(keep_last: usize, keep_failure_days: u64, max_bytes: u64) -> GcPolicy {
        GcPolicy {
            keep_last,
            keep_failure_days,
            max_bytes,
        }
    }

    #[test]
    fn the_plan_is_what_the_seed_says() {
        struct Case {
            what: &'static str,
            runs: Vec<RunFacts>,
            policy: GcPolicy,
            /// Newest first: (id, action, reason).
            want: Vec<(&'static str, GcAction, GcReason)>,
        }
        let big = u64::MAX;
        let cases = vec![
            Case {
                what: "nothing to do",
                runs: vec![],
                policy: GcPolicy::default(),
                want: vec![],
            },
            Case {
                what: "the newest keep_last stay, older ok runs go",
                runs: vec![
                    run("a", 3.0, Some(true), 10),
                    run("b", 2.0, Some(true), 10),
                    run("c", 1.0, Some(true), 10),
                ],
                policy: policy(2, 7, big),
                want: vec![
                    ("c", Keep, Recent),
                    ("b", Keep, Recent),
                    ("a", Delete, Expired),
                ],
            },
            Case {
                what: "failed runs stay for keep_failure_days, not longer",
                runs: vec![
                    run("new-ok", 0.1, Some(true), 1),
                    run("fail-6d", 6.0, Some(false), 1),
                    run("fail-7d", 7.0, Some(false), 1),
                    run("fail-8d", 8.0, Some(false), 1),
                    run("ok-2d", 2.0, Some(true), 1),
                ],
                policy: policy(1, 7, big),
                want: vec![
                    ("new-ok", Keep, Recent),
                    ("ok-2d", Delete, Expired),
                    ("fail-6d", Keep, RecentFailure),
                    ("fail-7d", Keep, RecentFailure),
                    ("fail-8d", Delete, Expired),
                ],
            },
            Case {
                what: "a run without result.json counts as failed",
                runs: vec![
                    run("unknown-1d", 1.0, None, 1),
                    run("unknown-9d", 9.0, None, 1),
                    run("ok-1d", 1.5, Some(true), 1),
                ],
                policy: policy(0, 7, big),
                want: vec![
                    ("unknown-1d", Keep, RecentFailure),
                    ("ok-1d", Delete, Expired),
                    ("unknown-9d", Delete, Expired),
                ],
            },
            Case {
                what: "over the byte cap the oldest kept go first, failures and recent ones too",
                runs: vec![
                    run("r4", 0.5, Some(true), 400),
                    run("r3", 1.0, Some(false), 300),
                    run("r2", 2.0, Some(true), 200),
                    run("r1", 3.0, None, 100),
                    run("old", 30.0, Some(true), 5000),
                ],
                policy: policy(3, 7, 700),
                want: vec![
                    ("r4", Keep, Recent),
                    ("r3", Keep, Recent),
                    ("r2", Delete, OverBudget),
                    ("r1", Delete, OverBudget),
                    ("old", Delete, Expired),
                ],
            },
            Case {
                what: "exactly at the cap nothing more goes",
                runs: vec![run("b", 1.0, Some(true), 50), run("a", 2.0, Some(true), 50)],
                policy: policy(5, 7, 100),
                want: vec![("b", Keep, Recent), ("a", Keep, Recent)],
            },
            Case {
                what: "a live run stays under any pressure, and others go instead",
                runs: vec![
                    live(run("live-old", 40.0, None, 900)),
                    run("new", 0.1, Some(true), 100),
                    run("mid", 1.0, Some(false), 100),
                ],
                policy: policy(0, 0, 0),
                want: vec![
                    ("new", Delete, Expired),
                    ("mid", Delete, Expired),
                    ("live-old", Keep, Live),
                ],
            },
            Case {
                what: "a live run counts toward the cap; the oldest others go",
                runs: vec![
                    live(run("live", 0.0, None, 500)),
                    run("b", 1.0, Some(true), 300),
                    run("a", 2.0, Some(true), 300),
                ],
                policy: policy(20, 7, 800),
                want: vec![
                    ("live", Keep, Live),
                    ("b", Keep, Recent),
                    ("a", Delete, OverBudget),
                ],
            },
            Case {
                what: "same start time: ordered by id, newest name first",
                runs: vec![
                    run("x-1", 1.0, Some(true), 1),
                    run("x-2", 1.0, Some(true), 1),
                ],
                policy: policy(1, 7, big),
                want: vec![("x-2", Keep, Recent), ("x-1", Delete, Expired)],
            },
        ];
        for c in cases {
            let got: Vec<(String, GcAction, GcReason)> = plan(c.runs.clone(), &c.policy, at(0.0))
                .into_iter()
                .map(|e| (e.id, e.action, e.reason))
                .collect();
            let want: Vec<(String, GcAction, GcReason)> = c
                .want
                .iter()
                .map(|(i, a, r)| (i.to_string(), *a, *r))
                .collect();
            assert_eq!(got, want, "{}", c.what);
            // The same input in another order plans the same.
            let mut reversed = c.runs.clone();
            reversed.reverse();
            assert_eq!(
                plan(reversed, &c.policy, at(0.0)),
                plan(c.runs, &c.policy, at(0.0))
            );
        }
    }

    #[test]
    fn byte_sizes_parse() {
        assert_eq!(parse_bytes("2000"), Some(2000));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("512m"), Some(512 << 20));
        assert_eq!(parse_bytes("x"), None);
        assert_eq!(parse_bytes(""), None);
    }
}
