//! The walls of docs/DESIGN.md "Layers and walls", checked on the source: which folders may not
//! name which other parts of the crate (in code; comments may). Each wall is one the design keeps or
//! issue 23 took down an arrow for: the table is data, the server knows no backend, MCP is no
//! CLI, `ui/` and `image/` stand alone, backends and the controller know no HTTP layer. The
//! parts that are crates of their own (`crates/error`, `crates/proxy`, `crates/flows`) are not
//! scanned here: Cargo keeps their walls, since a crate the product depends on cannot name it.

use std::collections::BTreeSet;
use std::path::Path;

/// A folder of `src/`, and the top-level modules of the crate it may not name.
const WALLS: &[(&str, &[&str])] = &[
    (
        "api",
        &["server", "controller", "backend", "cli", "client", "mcp"],
    ),
    ("server", &["backend", "cli"]),
    (
        "audit",
        &[
            "api",
            "server",
            "controller",
            "backend",
            "cli",
            "client",
            "mcp",
            "image",
        ],
    ),
    ("mcp", &["cli", "backend", "controller"]),
    ("backend", &["server", "cli", "client", "mcp", "controller"]),
    ("controller", &["server", "cli", "client", "mcp"]),
    ("client", &["server", "cli", "mcp", "controller", "backend"]),
];

/// Folders that name nothing of the crate but themselves.
const ALONE: &[&str] = &["ui", "image", "perf"];

/// The top-level modules of the crate that `code` names: `crate::x…`, and each item of
/// `crate::{x, y::z}`.
fn named(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let (mut depth, mut item_start) = (0, true);
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => item_start = true,
                        c if item_start && !c.is_whitespace() => {
                            out.insert(ident(&group[i..]));
                            item_start = false;
                        }
                        _ => {}
                    }
                }
            }
            None => {
                out.insert(ident(rest));
            }
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// Each `.rs` file under `dir`, with its code (comments cut off each line).
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let code: Vec<&str> = text
                    .lines()
                    .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
                    .collect();
                out.push((path.display().to_string(), code.join("\n")));
            }
        }
    }
    out
}

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn each_folder_keeps_to_its_side_of_the_walls() {
    let mut breaches = Vec::new();
    for (folder, forbidden) in WALLS {
        for (file, code) in sources(&src().join(folder)) {
            for module in named(&code) {
                if forbidden.contains(&module.as_str()) {
                    breaches.push(format!("{file} names crate::{module}"));
                }
            }
        }
    }
    for folder in ALONE {
        for (file, code) in sources(&src().join(folder)) {
            for module in named(&code) {
                if module != *folder {
                    breaches.push(format!("{file} names crate::{module}"));
                }
            }
        }
    }
    assert!(breaches.is_empty(), "{breaches:#?}");
}

#[test]
fn named_modules_are_read_from_paths_and_groups() {
    let code = "use crate::backend::BackendConfig;\nuse crate::{api::wire, server::{a, b}, ui};\nlet x = crate::cli::run();";
    let got: Vec<String> = named(code).into_iter().collect();
    assert_eq!(got, ["api", "backend", "cli", "server", "ui"]);
}
