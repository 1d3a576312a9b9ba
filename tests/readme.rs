//! The README says what the code does: its route table is the operation table rendered
//! (between the `routes` markers), so a route cannot be added, renamed or dropped without the
//! README following. `MOBILECTL_BLESS=1 cargo test --test readme` rewrites the table.

use mobilectl::api::{openapi::TAGS, operations};
use mobilectl::mcp::tools::is_tool;

const BEGIN: &str = "<!-- routes: generated from the operation table by tests/readme.rs -->";
const END: &str = "<!-- /routes -->";

/// The table: one row per operation, grouped by tag in the documentation's order.
fn route_table() -> String {
    let ops = operations();
    let mut out = String::from("| area | route | MCP tool | what |\n| --- | --- | --- | --- |\n");
    for (tag, _) in TAGS {
        for op in ops.iter().filter(|o| o.tag == *tag) {
            let tool = match op.mcp {
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
fn the_readme_route_table_is_the_operation_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme
        .find(BEGIN)
        .expect("the README has the routes marker")
        + BEGIN.len();
    let end = readme[start..]
        .find(END)
        .expect("the README has the end marker")
        + start;
    let want = format!("\n{}", route_table());
    if readme[start..end] == want {
        return;
    }
    if std::env::var_os("MOBILECTL_BLESS").is_some() {
        let updated = format!("{}{}{}", &readme[..start], want, &readme[end..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    panic!(
        "README.md's route table differs from the operation table; run \
         `MOBILECTL_BLESS=1 cargo test --test readme` to rewrite it. It should read:\n{want}"
    );
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

const CODES_BEGIN: &str = "<!-- error-codes: generated from src/error.rs by tests/readme.rs -->";
const CODES_END: &str = "<!-- /error-codes -->";

/// The troubleshooting section's error-code table is the error table's codes, meanings and
/// advice (`MOBILECTL_BLESS=1` rewrites it).
#[test]
fn the_readme_error_code_table_is_the_error_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme.find(CODES_BEGIN).expect("the error-codes marker") + CODES_BEGIN.len();
    let end = readme[start..].find(CODES_END).expect("its end marker") + start;
    let want = format!("\n{}", mobilectl::mcp::resources::error_table());
    if readme[start..end] == want {
        return;
    }
    if std::env::var_os("MOBILECTL_BLESS").is_some() {
        let updated = format!("{}{}{}", &readme[..start], want, &readme[end..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    panic!(
        "README.md's error-code table differs from src/error.rs; run \
         `MOBILECTL_BLESS=1 cargo test --test tests readme` to rewrite it. It should read:\n{want}"
    );
}

/// The MCP resources are the README's sections as the README reads now (not a stale copy).
#[test]
fn the_mcp_resources_are_the_readme_sections() {
    use mobilectl::mcp::resources::{self, page_text};
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
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
        assert_eq!(Some(served), page_text(&readme, marker), "{uri}");
    }
    let trouble = resources::text(resources::TROUBLESHOOTING_URI).unwrap();
    assert!(trouble.contains(resources::error_table().trim()));
}
