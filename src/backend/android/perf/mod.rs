//! Reading an Android app's performance from the device's own reports, as pure functions over
//! their text: `dumpsys gfxinfo` (frames), `dumpsys meminfo` (memory), `/proc` stat lines (CPU
//! ticks, threads), `am start -W` (start-up times), old tools' CPU figures (`dumpsys cpuinfo`,
//! toolbox `top`), and the one shell script that reads a whole sample in one adb round trip
//! (`sample`). Each reader says what it could not find (`None`) instead of guessing.

pub mod cpuinfo;
pub mod gfxinfo;
pub mod launch;
pub mod meminfo;
pub mod procstat;
pub mod sample;
mod sampler;

pub use crate::backend::{not_running, unrecognised};

/// What dumpsys prints for a package without a running process.
pub const NO_PROCESS: &str = "No process found for:";

/// The package named by a `No process found for: PKG` line, if `text` has one.
pub fn no_process(text: &str) -> Option<&str> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(NO_PROCESS))
        .map(str::trim)
}

/// A number as Android prints it in any locale: `51.03`, or `51,03` (a decimal comma).
pub fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    let v = if s.contains('.') {
        s.parse().ok()
    } else {
        s.replacen(',', ".", 1).parse().ok()
    };
    v.filter(|x: &f64| x.is_finite())
}

/// The leading unsigned integer of `s` (after spaces): `5ms` → 5, `2 (66.67%)` → 2.
pub fn leading_u64(s: &str) -> Option<u64> {
    let s = s.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s[..end].parse().ok()
}

/// A recorded output of `fixtures/` (tests).
#[cfg(test)]
pub(crate) fn fixture(rel: &str) -> String {
    let path = format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"));
    String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_any_locale() {
        assert_eq!(number("51,03"), Some(51.03));
        assert_eq!(number(" 1.36 "), Some(1.36));
        assert_eq!(number("1204,11"), Some(1204.11));
        assert_eq!(number("12"), Some(12.0));
        assert_eq!(number("x"), None);
        assert_eq!(number("inf"), None);
        assert_eq!(leading_u64(" 2 (66.67%)"), Some(2));
        assert_eq!(leading_u64("101ms"), Some(101));
        assert_eq!(leading_u64("ms"), None);
    }

    #[test]
    fn a_no_process_line_names_the_package() {
        assert_eq!(
            no_process("No process found for: com.x.y\n"),
            Some("com.x.y")
        );
        assert_eq!(no_process("Applications Graphics Acceleration Info:"), None);
    }
}
