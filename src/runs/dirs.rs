//! Where runs live and what they are called: `<cache>/runs/<id>` (the cache folder is
//! [`crate::host_dirs::cache_dir`]), and run ids
//! `YYYYMMDD-HHMMSS-<rand>` (UTC; six hex digits from the OS's random source), which are also
//! the only names ever joined to the runs folder.

use std::path::PathBuf;

use chrono::{DateTime, NaiveDateTime, Utc};

/// The folder of the runs inside a cache directory.
pub fn runs_dir(cache: &std::path::Path) -> PathBuf {
    cache.join("runs")
}

/// A new run id for a run started at `at`.
pub fn new_run_id(at: DateTime<Utc>) -> String {
    let mut bytes = [0u8; 3];
    if getrandom::getrandom(&mut bytes).is_err() {
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ^ at.timestamp_subsec_nanos();
        bytes.copy_from_slice(&n.to_be_bytes()[1..]);
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", at.format("%Y%m%d-%H%M%S"))
}

/// Whether `id` has the shape of a run id (`20260101-120000-ab12cd`): the check made before a
/// run id from a request names a folder.
pub fn is_run_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 22
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'-'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'-'
        && b[16..]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
}

/// The start time a run directory's name says (`YYYYMMDD-HHMMSS…`), if it says one.
pub fn time_of_name(name: &str) -> Option<DateTime<Utc>> {
    let stamp = name.get(..15)?;
    NaiveDateTime::parse_from_str(stamp, "%Y%m%d-%H%M%S")
        .ok()
        .map(|t| t.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_seed_shape_and_say_their_time() {
        let at = DateTime::parse_from_rfc3339("2026-11-25T01:02:03Z")
            .unwrap()
            .with_timezone(&Utc);
        let id = new_run_id(at);
        assert!(id.starts_with("20261125-010203-"), "{id}");
        assert!(is_run_id(&id), "{id}");
        assert_eq!(time_of_name(&id), Some(at));
        assert_ne!(new_run_id(at), id, "two ids of one second differ");
        for bad in [
            "",
            "..",
            "../x",
            "20261125-010203-ab12c",
            "20261125-010203-AB12CD",
            "20261125-010203-ab12cd/",
        ] {
            assert!(!is_run_id(bad), "{bad}");
        }
        assert_eq!(time_of_name("garbage"), None);
    }
}
