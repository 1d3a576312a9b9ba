//! The MCP resources: `mobilectl://guide` (the recommended agent workflow) and
//! `mobilectl://troubleshooting` (common problems, and what each error code means and what to
//! do). Both are sections of `docs/agents.md` between `<!-- mcp:… -->` markers, compiled in
//! (that page alone, not the README nor the rest of the docs), so the page and the resources
//! cannot say different things; the troubleshooting section's error-code table is
//! [`error_table`], made from the error table (`crate::error`), and `tests/readme.rs` checks the
//! page holds it as made.

use rmcp::model::{ReadResourceResult, Resource, ResourceContents};

/// The documentation page the resources quote (`docs/agents.md`), as built into the binary.
pub const PAGE: &str = include_str!("../../docs/agents.md");
/// Where that page is in the repository.
pub const PAGE_PATH: &str = "docs/agents.md";

/// The agent workflow resource's URI.
pub const GUIDE_URI: &str = "mobilectl://guide";
/// The troubleshooting resource's URI.
pub const TROUBLESHOOTING_URI: &str = "mobilectl://troubleshooting";
/// The MIME type both resources are served with.
pub const MIME: &str = "text/markdown";

/// One served resource: where it is in the page and how it is listed.
struct Page {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    /// The page's marker name: the text between `<!-- mcp:NAME -->` and `<!-- /mcp:NAME -->`.
    marker: &'static str,
}

const PAGES: &[Page] = &[
    Page {
        uri: GUIDE_URI,
        name: "guide",
        title: "mobilectl agent guide",
        description: "The recommended workflow: snapshot, act on refs, verify; logs and network \
                      next to the screen.",
        marker: "guide",
    },
    Page {
        uri: TROUBLESHOOTING_URI,
        name: "troubleshooting",
        title: "mobilectl troubleshooting",
        description: "Empty tree, missing tool, stale refs, device offline, certificate pinning, \
                      and what each error code means and what to do.",
        marker: "troubleshooting",
    },
];

/// A page's text between `<!-- mcp:NAME -->` and `<!-- /mcp:NAME -->` (exclusive), or `None`
/// when the markers are missing.
pub fn section<'a>(page: &'a str, name: &str) -> Option<&'a str> {
    let begin = format!("<!-- mcp:{name} -->");
    let end = format!("<!-- /mcp:{name} -->");
    let start = page.find(&begin)? + begin.len();
    let stop = page[start..].find(&end)? + start;
    Some(&page[start..stop])
}

/// A section as served: its text without the page's marker comments.
pub fn page_text(page: &str, name: &str) -> Option<String> {
    let text = section(page, name)?;
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("<!--"))
        .collect();
    Some(format!("{}\n", lines.join("\n").trim()))
}

/// The error-code table of the troubleshooting page: code, HTTP status, whether a retry may
/// help, what it means, what to do. Made from `crate::error::ErrorCode`.
pub fn error_table() -> String {
    let mut out = String::from(
        "| code | HTTP | retry | meaning | what to do |\n| --- | --- | --- | --- | --- |\n",
    );
    for code in crate::error::ErrorCode::ALL {
        out += &format!(
            "| `{}` | {} | {} | {} | {} |\n",
            code.as_str(),
            code.status(),
            if code.retryable() { "yes" } else { "no" },
            code.meaning().replace('|', "\\|"),
            code.advice().replace('|', "\\|"),
        );
    }
    out
}

/// The resources `resources/list` answers.
pub fn list() -> Vec<Resource> {
    PAGES
        .iter()
        .map(|p| {
            let size = page_text(PAGE, p.marker).map_or(0, |t| t.len() as u64);
            Resource::new(p.uri, p.name)
                .with_title(p.title)
                .with_description(p.description)
                .with_mime_type(MIME)
                .with_size(size)
        })
        .collect()
}

/// The text of the resource at `uri`, or `None` when there is no such resource.
pub fn text(uri: &str) -> Option<String> {
    let page = PAGES.iter().find(|p| p.uri == uri)?;
    page_text(PAGE, page.marker)
}

/// The answer to `resources/read` for `uri`, or `None` when there is no such resource.
pub fn read(uri: &str) -> Option<ReadResourceResult> {
    let text = text(uri)?;
    Some(ReadResourceResult::new(vec![ResourceContents::text(
        text, uri,
    )
    .with_mime_type(MIME)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_pages_are_in_the_docs_page_and_say_what_they_promise() {
        let guide = text(GUIDE_URI).expect("the guide section");
        for word in ["snapshot", "ref", "wait", "tail_logs", "get_flow_summary"] {
            assert!(guide.contains(word), "the guide lacks {word}");
        }
        let trouble = text(TROUBLESHOOTING_URI).expect("the troubleshooting section");
        for word in [
            "Empty tree",
            "TOOL_MISSING",
            "STALE_REFERENCE",
            "DEVICE_OFFLINE",
            "pinning",
        ] {
            assert!(trouble.contains(word), "troubleshooting lacks {word}");
        }
        assert!(!trouble.contains("<!--"));
    }

    #[test]
    fn the_troubleshooting_page_holds_every_error_code() {
        let trouble = text(TROUBLESHOOTING_URI).expect("the troubleshooting section");
        for code in crate::error::ErrorCode::ALL {
            assert!(
                trouble.contains(&format!("`{}`", code.as_str())),
                "{} is missing from the troubleshooting page",
                code.as_str()
            );
        }
    }

    #[test]
    fn unknown_uris_read_nothing() {
        assert!(read("mobilectl://nothing").is_none());
        assert_eq!(list().len(), 2);
    }
}
