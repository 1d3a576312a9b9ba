//! Checks on identifiers and paths before they reach any command. A value that fails is refused
//! with `VALIDATION_FAILED` and never passed on.

use std::path::{Component, Path};

use crate::device::Point;
use crate::error::{Error, Result};

/// `device_path` as a path relative to the app's container: plain components only.
pub fn in_container(device_path: &str) -> Result<String> {
    let rel = Path::new(device_path.trim_start_matches('/'));
    let plain =
        rel.components().count() > 0 && rel.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain {
        return Err(Error::validation(format!(
            "`{device_path}` is not a path inside the app's container"
        ))
        .with_hint("e.g. /Documents/a.txt or /Library/Caches/x"));
    }
    Ok(rel.to_string_lossy().into_owned())
}

/// A device path as `push_file` and `pull_file` take it: absolute, at most 1024 bytes, without
/// NUL, line breaks or a `..` segment. A device answers `..` against its own `/`, but a
/// backend that roots device paths somewhere (an app's container, the virtual device's folder)
/// must never be handed a path that climbs, so none is: the path names the file as it is.
pub fn device_path(p: &str) -> Result<&str> {
    if !p.starts_with('/')
        || p.len() > 1024
        || p.chars().any(|c| c == '\0' || c == '\n' || c == '\r')
    {
        return Err(Error::validation(format!(
            "`{p}` is not an absolute device path"
        ))
        .with_hint("e.g. /sdcard/Download/photo.jpg (Android), Documents/x.txt in an app's container (iOS)"));
    }
    if p.split('/').any(|segment| segment == "..") {
        return Err(
            Error::validation(format!("`{p}` has a `..` segment")).with_hint(
                "name the device file by its path without `..`, e.g. /sdcard/Download/photo.jpg",
            ),
        );
    }
    Ok(p)
}

/// A device file about to be pulled (or just pulled): a regular file of at most `max` bytes.
pub fn pullable(meta: &std::fs::Metadata, device_path: &str, max: u64) -> Result<()> {
    if !meta.is_file() {
        return Err(Error::validation(format!(
            "`{device_path}` is not a regular file"
        )));
    }
    if meta.len() > max {
        return Err(Error::validation(format!(
            "`{device_path}` is {} bytes; at most {max} are copied",
            meta.len()
        )));
    }
    Ok(())
}

pub use crate::device::extension;

/// A point on an iOS screen: finite, non-negative points.
pub fn screen_point(p: Point) -> Result<()> {
    if p.x.is_finite() && p.y.is_finite() && p.x >= 0.0 && p.y >= 0.0 {
        Ok(())
    } else {
        Err(
            Error::validation(format!("({}, {}) is not a point on the screen", p.x, p.y))
                .with_hint("iOS coordinates are non-negative screen points, as in the UI tree"),
        )
    }
}

/// Android package names: dot-separated Java identifiers, at least two segments.
pub fn android_package(s: &str) -> Result<&str> {
    let ok = s.len() <= 255
        && s.split('.').count() >= 2
        && s.split('.').all(|seg| {
            seg.starts_with(|c: char| c.is_ascii_alphabetic())
                && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    if ok {
        Ok(s)
    } else {
        Err(
            Error::validation(format!("`{s}` is not a valid Android package name"))
                .with_hint("package names look like com.example.app"),
        )
    }
}

/// An identifier of letters, digits and `extra` characters, beginning with a letter or digit.
fn identifier<'a>(s: &'a str, extra: &[char], what: &str, looks: &str) -> Result<&'a str> {
    let ok = !s.is_empty()
        && s.len() <= 255
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c));
    if ok {
        Ok(s)
    } else {
        Err(Error::validation(format!("`{s}` is not a valid {what}"))
            .with_hint(format!("{what}s look like {looks}")))
    }
}

/// iOS bundle identifiers: letters, digits, '-' and '.'.
pub fn ios_bundle_id(s: &str) -> Result<&str> {
    identifier(s, &['.', '-'], "bundle identifier", "com.example.App")
}

/// App identifiers of a backend without rules of its own: letters, digits, '.', '_' and '-'.
pub fn app_id(s: &str) -> Result<&str> {
    identifier(s, &['.', '_', '-'], "app identifier", "com.example.app")
}

/// Android activity names: `.Main`, `com.example.MainActivity` or `pkg/.Main`-style class parts.
pub fn android_activity(s: &str) -> Result<&str> {
    let ok = !s.is_empty()
        && s.len() <= 255
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$' | '/'))
        && !s.starts_with('/');
    if ok {
        Ok(s)
    } else {
        Err(
            Error::validation(format!("`{s}` is not a valid activity name"))
                .with_hint("activities look like .MainActivity or com.example.MainActivity"),
        )
    }
}

/// URL schemes that open local files or run script; refused unless the server allows any.
pub const DANGEROUS_SCHEMES: [&str; 4] = ["javascript", "file", "content", "data"];

/// Checks a URL for `open-url`: a scheme, no control characters, and no dangerous scheme
/// unless `allow_any` is set.
pub fn open_url(url: &str, allow_any: bool) -> Result<&str> {
    let scheme = url.split_once(':').map(|(s, _)| s).unwrap_or("");
    let scheme_ok = !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok || url.chars().any(char::is_control) || url.len() > 8192 {
        return Err(Error::validation(format!("`{url}` is not a URL"))
            .with_hint("pass an absolute URL such as https://example.com or myapp://path"));
    }
    if !allow_any && DANGEROUS_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) {
        return Err(Error::validation(format!("the `{scheme}:` scheme is refused"))
            .with_hint("javascript:, file:, content: and data: URLs are refused unless the server runs with --allow-any-url-scheme"));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_container_paths_stay_inside() {
        assert_eq!(in_container("/Documents/a.txt").unwrap(), "Documents/a.txt");
        assert_eq!(in_container("Library/x").unwrap(), "Library/x");
        for bad in ["/", "", "/Documents/../../x", "./a"] {
            assert!(in_container(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn device_paths_are_absolute_and_never_climb() {
        for good in [
            "/sdcard/a.txt",
            "/data/local/tmp/x..y",
            "/sdcard/..hidden",
            "/sdcard/./a",
        ] {
            assert_eq!(device_path(good).unwrap(), good);
        }
        for climbing in [
            "/data/../../../../etc/passwd",
            "/../../../../tmp/x",
            "/sdcard/..",
            "/sdcard/../",
            "/..",
        ] {
            let e = device_path(climbing).unwrap_err();
            assert_eq!(
                e.code,
                crate::error::ErrorCode::ValidationFailed,
                "{climbing}"
            );
            assert!(e.message.contains("`..`"), "{climbing}: {}", e.message);
            assert!(e
                .hint
                .as_deref()
                .is_some_and(|h| h.contains("without `..`")));
        }
        for bad in ["relative", "../x", "/sdcard/a\nb", ""] {
            assert!(device_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn packages() {
        for ok in ["com.example.app", "a.b", "com.android.settings", "x_1.y_2"] {
            assert!(android_package(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "app",
            "com..app",
            "1com.app",
            "com.app;reboot",
            "com.app -f",
            "com/app",
        ] {
            assert!(android_package(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bundles() {
        assert!(ios_bundle_id("com.apple.mobilesafari").is_ok());
        assert!(ios_bundle_id("dev.devicehubpro.fixture.apps").is_ok());
        assert!(ios_bundle_id("com.x-y.App").is_ok());
        for bad in ["", "-x", "a b", "a;b", "a$(id)"] {
            assert!(ios_bundle_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn generic_app_ids() {
        for ok in ["com.example.app", "com.x-y.App", "x_1.y_2", "app"] {
            assert!(app_id(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-x", ".a", "a b", "a;b", "a$(id)", "a/b"] {
            assert!(app_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn urls() {
        assert!(open_url("https://example.com/a?b=c&d=e", false).is_ok());
        assert!(open_url("myapp://deep/link", false).is_ok());
        assert!(open_url("tel:123", false).is_ok());
        for bad in [
            "javascript:alert(1)",
            "JavaScript:x",
            "file:///etc/passwd",
            "content://x",
        ] {
            assert!(open_url(bad, false).is_err(), "{bad}");
            assert!(open_url(bad, true).is_ok(), "{bad}");
        }
        for bad in ["", "no scheme", "://x", "https://a\nb"] {
            assert!(open_url(bad, true).is_err(), "{bad:?}");
        }
    }
}
