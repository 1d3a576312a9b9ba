//! Artifact names: the check a name from a request passes before it is looked up (it is then
//! looked up in its run's index, never joined as a path), the unique name made from a hint,
//! and the content type a name and kind are served with.

use crate::api::wire::runs::ArtifactKind;
use crate::error::{Error, Op, Result, Step};

/// Longest artifact name.
pub const MAX_NAME: usize = 120;

/// Whether `c` may appear in an artifact name.
fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Refuses a name that no artifact can have: empty, too long, a character besides letters,
/// digits, `-`, `_` and `.`, or starting with `.` (so `..`, `/x`, `a/b` and `%2e%2e%2f` after
/// decoding never pass).
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with('.')
        && name.chars().all(allowed);
    if ok {
        return Ok(());
    }
    Err(Error::validation(format!(
        "`{}` is not an artifact name",
        name.chars().take(MAX_NAME).collect::<String>()
    ))
    .with_next(
        "an artifact name is letters, digits, `-`, `_` and `.` (not first), as {0} lists them",
        [Step::call(Op::GetRun)],
    ))
}

/// A name made from `hint`: unsafe characters become `_`, leading dots go, at most
/// [`MAX_NAME`] characters; empty: `artifact`.
pub fn from_hint(hint: &str) -> String {
    let mut n: String = hint
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .collect::<String>()
        .trim_start_matches('.')
        .to_string();
    if n.len() > MAX_NAME - 8 {
        // Keep the extension.
        let ext = n
            .rfind('.')
            .filter(|i| n.len() - i <= 8)
            .map(|i| n[i..].to_string())
            .unwrap_or_default();
        n.truncate(MAX_NAME - 8 - ext.len());
        n.push_str(&ext);
    }
    if n.is_empty() {
        n = "artifact".into();
    }
    n
}

/// `hint` as a name no entry of `taken` has: `a.png`, then `a-2.png`, `a-3.png`…
pub fn unique(hint: &str, taken: impl Fn(&str) -> bool) -> String {
    let base = from_hint(hint);
    if !taken(&base) {
        return base;
    }
    let (stem, ext) = match base.rfind('.') {
        Some(i) if i > 0 => (&base[..i], &base[i..]),
        _ => (base.as_str(), ""),
    };
    (2u32..)
        .map(|n| format!("{stem}-{n}{ext}"))
        .find(|c| !taken(c))
        .unwrap_or(base)
}

/// The content type of an artifact: by its name's extension, else by its kind.
pub fn content_type(name: &str, kind: ArtifactKind) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("mp4") => "video/mp4",
        Some("json") => "application/json",
        Some("xml") => "application/xml",
        Some("txt" | "log") => "text/plain; charset=utf-8",
        _ => match kind {
            ArtifactKind::Recording => "video/mp4",
            ArtifactKind::Screenshot => "image/png",
            ArtifactKind::DebugBundle => "application/json",
            ArtifactKind::Tree | ArtifactKind::Log => "text/plain; charset=utf-8",
            _ => "application/octet-stream",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_requests_are_checked() {
        for good in ["failure-tap.png", "a", "tree_1.txt", "report.junit.xml"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            "../x",
            "..%2fx",
            "/etc/passwd",
            "a/b",
            "a\\b",
            ".hidden",
            "a b",
            "é.png",
            "x\0y",
        ] {
            let e = check_name(bad).unwrap_err();
            assert_eq!(e.code, crate::error::ErrorCode::ValidationFailed, "{bad}");
        }
        assert!(check_name(&"a".repeat(MAX_NAME + 1)).is_err());
    }

    #[test]
    fn hints_become_unique_safe_names() {
        assert_eq!(from_hint("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(from_hint(""), "artifact");
        assert_eq!(from_hint("..."), "artifact");
        let long = format!("{}.png", "x".repeat(300));
        let n = from_hint(&long);
        assert!(n.len() <= MAX_NAME && n.ends_with(".png"), "{n}");
        let taken = ["shot.png", "shot-2.png"];
        assert_eq!(unique("shot.png", |n| taken.contains(&n)), "shot-3.png");
        assert_eq!(unique("tree", |n| n == "tree"), "tree-2");
        assert_eq!(unique("new.png", |n| taken.contains(&n)), "new.png");
        for h in ["a/b.png", "../x", "ok.mp4"] {
            assert!(check_name(&unique(h, |_| false)).is_ok(), "{h}");
        }
    }

    #[test]
    fn content_types_follow_the_extension_then_the_kind() {
        assert_eq!(content_type("a.png", ArtifactKind::Other), "image/png");
        assert_eq!(content_type("a.mp4", ArtifactKind::Recording), "video/mp4");
        assert_eq!(content_type("rec", ArtifactKind::Recording), "video/mp4");
        assert_eq!(
            content_type("r.xml", ArtifactKind::FlowReport),
            "application/xml"
        );
        assert_eq!(
            content_type("blob", ArtifactKind::Other),
            "application/octet-stream"
        );
    }
}
