//! The documentation says what the code does. The route table of `docs/api.md` is the
//! operation table rendered (between the `routes` markers), and the error-code table of
//! `docs/agents.md` is the error table's (between the `error-codes` markers), so neither can
//! drift from the code; `MOBILECTL_BLESS=1 cargo test --test tests readme` rewrites both in
//! place. The MCP resources are `docs/agents.md`'s sections as that page reads now. Every
//! relative link of the README and of `docs/` leads to a file (and heading) that exists, and
//! every `docs/DESIGN.md "Section"` the source cites is a section of that page.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mobilectl::api::{openapi::TAGS, operations};
use mobilectl::mcp::tools::is_tool;

/// The page holding the route table.
const ROUTES_PAGE: &str = "docs/api.md";
const BEGIN: &str = "<!-- routes: generated from the operation table by tests/readme.rs -->";
const END: &str = "<!-- /routes -->";

/// The page holding the error-code table (inside its troubleshooting section).
const CODES_PAGE: &str = "docs/agents.md";
const CODES_BEGIN: &str =
    "<!-- error-codes: generated from crates/error/src/lib.rs by tests/readme.rs -->";
const CODES_END: &str = "<!-- /error-codes -->";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Checks that the text of `page` between `begin` and `end` is `want` (after a line break);
/// with `MOBILECTL_BLESS` set, writes it there instead.
fn generated_section(page: &str, begin: &str, end: &str, want: &str, what: &str) {
    let path = root().join(page);
    let text = read(page);
    let start = text
        .find(begin)
        .unwrap_or_else(|| panic!("{page} lacks the marker {begin}"))
        + begin.len();
    let stop = text[start..]
        .find(end)
        .unwrap_or_else(|| panic!("{page} lacks the marker {end}"))
        + start;
    let want = format!("\n{want}");
    if text[start..stop] == want {
        return;
    }
    if std::env::var_os("MOBILECTL_BLESS").is_some() {
        let updated = format!("{}{}{}", &text[..start], want, &text[stop..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    panic!(
        "{page}'s {what} differs from the code; run \
         `MOBILECTL_BLESS=1 cargo test --test tests readme` to rewrite it. It should read:{want}"
    );
}

/// The table: one row per operation, grouped by tag in the documentation's order.
fn route_table() -> String {
    let ops = operations();
    let mut out = String::from("| area | route | MCP tool | what |\n| --- | --- | --- | --- |\n");
    for (tag, _) in TAGS {
        for op in ops.iter().filter(|o| o.tag == *tag) {
            let tool = match op.mcp {
                mobilectl::api::Mcp::Core => format!("**`{}`**", op.name),
                _ if is_tool(op) => format!("`{}`", op.name),
                mobilectl::api::Mcp::Connection => "— (the connection's own)".to_string(),
                mobilectl::api::Mcp::Document => "— (a document)".to_string(),
                _ => "— (a stream)".to_string(),
            };
            out += &format!(
                "| {} | `{} {}` | {} | {} |\n",
                tag,
                op.method.as_str(),
                op.path,
                tool,
                op.summary.replace('|', "\\|")
            );
        }
    }
    out
}

#[test]
fn the_docs_route_table_is_the_operation_table() {
    generated_section(ROUTES_PAGE, BEGIN, END, &route_table(), "route table");
}

#[test]
fn every_tag_of_an_operation_is_documented() {
    for op in operations() {
        assert!(
            TAGS.iter().any(|(t, _)| *t == op.tag),
            "{} has the undocumented tag {}",
            op.name,
            op.tag
        );
    }
}

/// The troubleshooting section's error-code table is the error table's codes, meanings and
/// advice (`MOBILECTL_BLESS=1` rewrites it).
#[test]
fn the_docs_error_code_table_is_the_error_table() {
    generated_section(
        CODES_PAGE,
        CODES_BEGIN,
        CODES_END,
        &mobilectl::mcp::resources::error_table(),
        "error-code table",
    );
}

/// The MCP resources are `docs/agents.md`'s sections as the page reads now (not a stale copy),
/// and that page is the one the binary quotes.
#[test]
fn the_mcp_resources_are_the_agents_page_sections() {
    use mobilectl::mcp::resources::{self, page_text};
    assert_eq!(resources::PAGE_PATH, CODES_PAGE);
    let page = read(resources::PAGE_PATH);
    let listed: Vec<String> = resources::list().into_iter().map(|r| r.uri).collect();
    assert_eq!(
        listed,
        [resources::GUIDE_URI, resources::TROUBLESHOOTING_URI]
    );
    for (uri, marker) in [
        (resources::GUIDE_URI, "guide"),
        (resources::TROUBLESHOOTING_URI, "troubleshooting"),
    ] {
        let served = resources::text(uri).expect("a served page");
        assert_eq!(Some(served), page_text(&page, marker), "{uri}");
    }
    let trouble = resources::text(resources::TROUBLESHOOTING_URI).unwrap();
    assert!(trouble.contains(resources::error_table().trim()));
    // The README is no longer what the binary quotes: its sections are not resources.
    assert!(!read("README.md").contains("<!-- mcp:"));
}

/// Markdown text without its fenced code blocks (their `#` lines are shell comments, their
/// brackets code); each line of a block is kept as an empty one.
fn unfenced(markdown: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// [`unfenced`] text without its inline code spans, which hold no links. A span ends at the
/// end of its paragraph at the latest, so a stray backtick cannot hide a whole page.
fn prose(markdown: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for line in unfenced(markdown).lines() {
        if line.trim().is_empty() {
            in_code = false;
        }
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces turned to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown page's headings (a repeated one gets `-1`, `-2`… as on GitHub).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in unfenced(markdown).lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let mut anchor = base.clone();
        let mut n = 0;
        while out.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        out.insert(anchor);
    }
    out
}

/// The link targets of a Markdown page: `[text](target)` and `<img src="target">`.
fn links(markdown: &str) -> Vec<String> {
    let text = prose(markdown);
    let mut out = Vec::new();
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].trim().to_string());
        }
    }
    for (at, _) in text.match_indices("src=\"") {
        let rest = &text[at + 5..];
        if let Some(end) = rest.find('"') {
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// The README and every page under `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("a docs/ folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// Where a link from `page` leads, and the anchor it names; `None` for a link off the
/// repository (a URL with a scheme).
fn resolve(page: &Path, link: &str) -> Option<(PathBuf, Option<String>)> {
    if link.contains("://") || link.starts_with("mailto:") {
        return None;
    }
    let (file, anchor) = match link.split_once('#') {
        Some((f, a)) => (f, Some(a.to_string())),
        None => (link, None),
    };
    let target = if file.is_empty() {
        page.to_path_buf()
    } else {
        page.parent().unwrap().join(file)
    };
    Some((target, anchor))
}

#[test]
fn every_relative_link_of_the_docs_leads_somewhere() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in links(&text) {
            let Some((target, anchor)) = resolve(&page, &link) else {
                continue;
            };
            checked += 1;
            let shown = page.strip_prefix(root()).unwrap().display().to_string();
            if !target.exists() {
                broken.push(format!("{shown}: {link} (no such file)"));
                continue;
            }
            if let Some(anchor) = anchor {
                let is_md = target.extension().is_some_and(|e| e == "md");
                let known =
                    is_md && anchors(&std::fs::read_to_string(&target).unwrap()).contains(&anchor);
                if !known {
                    broken.push(format!("{shown}: {link} (no such heading)"));
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} relative links found: is the parser right?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn links_and_anchors_are_read_as_github_does() {
    let page = "# A session, with curl\n## Cross checks (macOS, Windows)\n## Notes\n## Notes\n\
                ### The `serve --demo` device\n\
                ```sh\n# a comment, not a heading\necho [x](nowhere.md)\n```\n\
                See [the API](api.md#routes) and `[code](not-a-link.md)`, \
                <img src=\"../examples/a.png\" width=\"2\">.\n";
    let got = anchors(page);
    let want: BTreeSet<String> = [
        "a-session-with-curl",
        "cross-checks-macos-windows",
        "notes",
        "notes-1",
        "the-serve---demo-device",
    ]
    .map(String::from)
    .into();
    assert_eq!(got, want);
    assert_eq!(links(page), ["api.md#routes", "../examples/a.png"]);
}

/// Each `docs/DESIGN.md "Section"` cited in a comment of `src/` or `tests/`, with the comment
/// markers of wrapped lines removed and spaces squeezed.
fn design_citations(dir: &Path, out: &mut Vec<(String, String)>) {
    const CITE: &str = "docs/DESIGN.md \"";
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            design_citations(&path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let joined: String = text
            .lines()
            .map(|l| {
                let l = l.trim_start();
                let l = l
                    .strip_prefix("//!")
                    .or_else(|| l.strip_prefix("///"))
                    .or_else(|| l.strip_prefix("//"))
                    .unwrap_or(l);
                l.trim()
            })
            .collect::<Vec<_>>()
            .join(" ");
        for (at, _) in joined.match_indices(CITE) {
            let rest = &joined[at + CITE.len()..];
            if let Some(end) = rest.find('"') {
                let shown = path.strip_prefix(root()).unwrap().display().to_string();
                out.push((shown, rest[..end].to_string()));
            }
        }
    }
}

#[test]
fn every_design_citation_names_a_section_of_the_design() {
    let headings = anchors(&read("docs/DESIGN.md"));
    let mut cited = Vec::new();
    design_citations(&root().join("src"), &mut cited);
    design_citations(&root().join("tests"), &mut cited);
    // This file's own words about citations are an example, not a citation.
    cited.retain(|(file, _)| !file.ends_with("readme.rs"));
    assert!(cited.len() >= 12, "only {} citations found", cited.len());
    let missing: Vec<String> = cited
        .iter()
        .filter(|(_, section)| !headings.contains(&slug(section)))
        .map(|(file, section)| format!("{file}: \"{section}\""))
        .collect();
    assert!(
        missing.is_empty(),
        "citations of sections docs/DESIGN.md does not have:\n{}",
        missing.join("\n")
    );
    // And no comment still points at a DESIGN.md the repository never had.
    let mut bare = Vec::new();
    for dir in ["src", "tests"] {
        let mut stack = vec![root().join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap().flatten() {
                let p = entry.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|e| e == "rs") && !p.ends_with("readme.rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let stray = text.match_indices("DESIGN").any(|(at, _)| {
                        !text[..at].ends_with("docs/") || !text[at..].starts_with("DESIGN.md")
                    });
                    if stray {
                        bare.push(p.strip_prefix(root()).unwrap().display().to_string());
                    }
                }
            }
        }
    }
    assert!(bare.is_empty(), "cite docs/DESIGN.md by its path: {bare:?}");
}
