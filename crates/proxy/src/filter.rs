//! Filters of the flow list, the stream and the summary, checked whole before use: `host`
//! (the host or a subdomain of it), `method`, `status` (`404` or a class `4xx`), `failed`,
//! `contains` (in the URL, any case) and `since` (a cursor id, an RFC 3339 time, or a
//! duration ago: `30s`, `5m`, `2h`). A value that cannot be read is a `400` with an example.

use chrono::{DateTime, Utc};

use super::flow::Flow;
use mobilectl_error::{Error, Result};

/// Where a listing starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    /// From the oldest exchange stored.
    Beginning,
    /// After this id.
    Cursor(u64),
    /// Started at or after this time.
    Time(DateTime<Utc>),
}

/// Which answer statuses a filter keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusMatch {
    /// This status only (100..=599).
    Exact(u16),
    /// `4xx` → 4.
    Class(u16),
}

/// A checked filter.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowFilter {
    /// This host or a subdomain of it (lowercase).
    pub host: Option<String>,
    /// This method (uppercase).
    pub method: Option<String>,
    /// This status or status class; an exchange without an answer never matches.
    pub status: Option<StatusMatch>,
    /// Failed (no answer, 4xx, 5xx) or not, as [`Flow::failed`] says.
    pub failed: Option<bool>,
    /// Text the URL contains, lowercase (the match ignores case).
    pub contains: Option<String>,
    /// Where the listing starts.
    pub since: Since,
}

/// The filter as the request gave it.
#[derive(Debug, Clone, Default)]
pub struct FilterArgs<'a> {
    /// A host name (`api.example.com`), unchecked.
    pub host: Option<&'a str>,
    /// A method name (`post`, any case), unchecked.
    pub method: Option<&'a str>,
    /// A status (`404`) or class (`4xx`), unchecked.
    pub status: Option<&'a str>,
    /// Only failed exchanges (`true`) or only the others (`false`).
    pub failed: Option<bool>,
    /// Text the URL must contain (any case).
    pub contains: Option<&'a str>,
    /// A cursor id, an RFC 3339 time or a duration ago (`5m`), unchecked.
    pub since: Option<&'a str>,
}

fn invalid(field: &str, value: &str, example: &str) -> Error {
    Error::validation(format!("`{field}={value}` cannot be read"))
        .with_hint(format!("e.g. {example}"))
        .with_details(serde_json::json!({ "field": field }))
}

/// Reads `since`: an id, an RFC 3339 time, or a duration ago (`90s`, `5m`, `2h`, `1d`).
pub fn parse_since(value: Option<&str>, now: DateTime<Utc>) -> Result<Since> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(Since::Beginning);
    };
    let bad = || {
        invalid(
            "since",
            v,
            "since=42 (after flow 42), since=5m, since=2026-01-31T10:00:00Z",
        )
    };
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return v.parse().map(Since::Cursor).map_err(|_| bad());
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Ok(Since::Time(t.with_timezone(&Utc)));
    }
    // The unit is the last character (split at a character, not a byte: any text may come).
    let unit = v.chars().last().ok_or_else(bad)?;
    let n = &v[..v.len() - unit.len_utf8()];
    let secs = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => return Err(bad()),
    };
    let n: i64 = n.parse().map_err(|_| bad())?;
    let ago =
        chrono::Duration::try_seconds(n.checked_mul(secs).ok_or_else(bad)?).ok_or_else(bad)?;
    Ok(Since::Time(now.checked_sub_signed(ago).ok_or_else(bad)?))
}

fn text(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|v| !v.is_empty())
}

impl FlowFilter {
    /// Checks the request's values whole; the first that cannot be read is a `400` naming
    /// its field, with an example. Empty values count as absent.
    pub fn parse(a: &FilterArgs<'_>) -> Result<FlowFilter> {
        let host = match text(a.host) {
            Some(h) => {
                let h = h.to_ascii_lowercase();
                let ok = h
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-.:[]_".contains(&b));
                if !ok {
                    return Err(invalid("host", &h, "host=api.example.com"));
                }
                Some(h)
            }
            None => None,
        };
        let method = match text(a.method) {
            Some(m) if m.bytes().all(|b| b.is_ascii_alphabetic()) && m.len() <= 16 => {
                Some(m.to_ascii_uppercase())
            }
            Some(m) => return Err(invalid("method", m, "method=POST")),
            None => None,
        };
        let status = match text(a.status) {
            Some(s) => Some(
                parse_status(s).ok_or_else(|| invalid("status", s, "status=4xx or status=404"))?,
            ),
            None => None,
        };
        Ok(FlowFilter {
            host,
            method,
            status,
            failed: a.failed,
            contains: text(a.contains).map(str::to_lowercase),
            since: parse_since(a.since, Utc::now())?,
        })
    }

    /// Whether `f` meets every condition given.
    pub fn matches(&self, f: &Flow) -> bool {
        if let Some(h) = &self.host {
            let host = f.host.to_ascii_lowercase();
            if host != *h && !host.ends_with(&format!(".{h}")) {
                return false;
            }
        }
        if self.method.as_ref().is_some_and(|m| *m != f.method) {
            return false;
        }
        match (self.status, f.status) {
            (Some(StatusMatch::Exact(want)), Some(s)) if want != s => return false,
            (Some(StatusMatch::Class(c)), Some(s)) if s / 100 != c => return false,
            (Some(_), None) => return false,
            _ => {}
        }
        if self.failed.is_some_and(|want| want != f.failed()) {
            return false;
        }
        if let Some(c) = &self.contains {
            if !f.url.to_lowercase().contains(c.as_str()) {
                return false;
            }
        }
        match self.since {
            Since::Beginning => true,
            Since::Cursor(c) => f.id > c,
            Since::Time(t) => f.started_at >= t,
        }
    }

    /// The id to read after (the store skips older ones without looking at them).
    pub fn cursor(&self) -> u64 {
        match self.since {
            Since::Cursor(c) => c,
            _ => 0,
        }
    }
}

fn parse_status(s: &str) -> Option<StatusMatch> {
    let s = s.to_ascii_lowercase();
    if let Some(class) = s.strip_suffix("xx") {
        let c: u16 = class.parse().ok()?;
        return (1..=5).contains(&c).then_some(StatusMatch::Class(c));
    }
    let n: u16 = s.parse().ok()?;
    (100..=599).contains(&n).then_some(StatusMatch::Exact(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::{Failure, FailureKind, Message, Timing};

    fn flow(id: u64, host: &str, method: &str, status: Option<u16>) -> Flow {
        Flow {
            id,
            started_at: Utc::now(),
            method: method.into(),
            url: format!("https://{host}/v1/Items?q=1"),
            host: host.into(),
            request: Message::default(),
            status,
            response: None,
            timing: Timing::default(),
            error: status.is_none().then(|| Failure {
                kind: FailureKind::Refused,
                message: "refused".into(),
            }),
            tunnel: None,
            rule_id: None,
            mocked: false,
        }
    }

    fn filter(a: FilterArgs) -> FlowFilter {
        FlowFilter::parse(&a).unwrap()
    }

    #[test]
    fn each_filter_narrows() {
        let ok = flow(1, "api.example.com", "GET", Some(200));
        let missing = flow(2, "cdn.example.com", "POST", Some(404));
        let refused = flow(3, "other.org", "GET", None);
        let all = [&ok, &missing, &refused];
        let ids = |f: FlowFilter| -> Vec<u64> {
            all.iter().filter(|x| f.matches(x)).map(|x| x.id).collect()
        };
        assert_eq!(
            ids(filter(FilterArgs {
                host: Some("example.com"),
                ..Default::default()
            })),
            [1, 2]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                host: Some("API.example.com"),
                ..Default::default()
            })),
            [1]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                method: Some("post"),
                ..Default::default()
            })),
            [2]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                status: Some("4xx"),
                ..Default::default()
            })),
            [2]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                status: Some("200"),
                ..Default::default()
            })),
            [1]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                failed: Some(true),
                ..Default::default()
            })),
            [2, 3]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                failed: Some(false),
                ..Default::default()
            })),
            [1]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                contains: Some("/v1/items"),
                ..Default::default()
            })),
            [1, 2, 3]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                since: Some("1"),
                ..Default::default()
            })),
            [2, 3]
        );
        assert_eq!(
            ids(filter(FilterArgs {
                since: Some("1m"),
                ..Default::default()
            })),
            [1, 2, 3]
        );
    }

    #[test]
    fn bad_values_are_refused_with_an_example() {
        for (a, field) in [
            (
                FilterArgs {
                    status: Some("4x"),
                    ..Default::default()
                },
                "status",
            ),
            (
                FilterArgs {
                    status: Some("700"),
                    ..Default::default()
                },
                "status",
            ),
            (
                FilterArgs {
                    method: Some("GET /"),
                    ..Default::default()
                },
                "method",
            ),
            (
                FilterArgs {
                    host: Some("a b"),
                    ..Default::default()
                },
                "host",
            ),
            (
                FilterArgs {
                    since: Some("yesterday"),
                    ..Default::default()
                },
                "since",
            ),
            (
                FilterArgs {
                    since: Some("99999999999999999999m"),
                    ..Default::default()
                },
                "since",
            ),
        ] {
            let e = FlowFilter::parse(&a).unwrap_err();
            assert_eq!(e.code, mobilectl_error::ErrorCode::ValidationFailed);
            assert_eq!(e.details.unwrap()["field"], field);
            assert!(e.hint.unwrap().starts_with("e.g."));
        }
    }

    #[test]
    fn since_reads_ids_times_and_durations() {
        let now = Utc::now();
        assert_eq!(parse_since(None, now).unwrap(), Since::Beginning);
        assert_eq!(parse_since(Some("42"), now).unwrap(), Since::Cursor(42));
        // Any text is refused, not a panic (a multi-byte last character, found by Schemathesis).
        for junk in ["5é", "\u{89}\u{dd}ø\u{5c39e}", "m", "é"] {
            assert_eq!(
                parse_since(Some(junk), now).unwrap_err().code,
                mobilectl_error::ErrorCode::ValidationFailed
            );
        }
        assert_eq!(
            parse_since(Some("90s"), now).unwrap(),
            Since::Time(now - chrono::Duration::seconds(90))
        );
        let t = parse_since(Some("2026-01-31T10:00:00+01:00"), now).unwrap();
        assert_eq!(
            t,
            Since::Time("2026-01-31T09:00:00Z".parse::<DateTime<Utc>>().unwrap())
        );
    }
}
