//! `GET /session/:id/source`: the app's live screen — the same nodes and bounds the device's
//! `uiautomator dump` gives at that moment — written as the server's AccessibilityNodeInfoDumper
//! writes a page source: indented XML, a `<hierarchy index="0" class="hierarchy" rotation
//! width height>` root, each element named by its class, its attributes in the server's order
//! (empty `content-desc`/`resource-id` left out, as the server leaves out nulls). Like
//! `uiautomator dump` it first waits for the app to be idle, here up to the session's
//! `waitForIdleTimeout`, and then answers anyway. With `web a11y on` the page is inside the
//! WebView (`crate::web::expose`), headings marked `heading="true"`.

use std::time::Duration;

use serde_json::Value;

use super::http::Failure;
use crate::uixml::{Hierarchy, Node};
use crate::Device;

pub fn page_source(dev: &Device, idle_limit: Duration) -> Result<Value, Failure> {
    let _ = crate::applets::idle_within(dev, idle_limit);
    let (mut h, (w, hh)) = {
        let st = dev.state();
        (st.current(), st.screen_size())
    };
    crate::web::expose::fill(dev, &mut h, true);
    Ok(Value::String(to_page_source(&h, w, hh)))
}

/// The page source of a dump, for a display of `width` × `height`.
pub fn to_page_source(h: &Hierarchy, width: u32, height: u32) -> String {
    let mut s = String::from("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n");
    s.push_str(&format!(
        "<hierarchy index=\"0\" class=\"hierarchy\" rotation=\"{}\" width=\"{width}\" height=\"{height}\">",
        escape(&h.rotation)
    ));
    for (i, root) in h.roots.iter().enumerate() {
        // Each top-level node is a window of its own.
        write(root, 1, 1000 + i as u32, &mut s);
    }
    s.push_str("\n</hierarchy>");
    s
}

/// The XML name of a class, as the server derives it (`$`, `@`, `#`, `&` become dots).
fn tag_of(class: &str) -> String {
    let mut name: String = class
        .chars()
        .map(|c| if "$@#&".contains(c) { '.' } else { c })
        .collect();
    while name.contains("..") {
        name = name.replace("..", ".");
    }
    let name = name.trim_matches('.');
    if name.is_empty() {
        "android.view.View".into()
    } else {
        name.to_string()
    }
}

fn write(n: &Node, depth: usize, window: u32, s: &mut String) {
    let tag = tag_of(n.get("class"));
    let pad = "  ".repeat(depth);
    s.push('\n');
    s.push_str(&pad);
    s.push('<');
    s.push_str(&tag);
    let edit = n.get("class").contains("EditText");
    let index: usize = n.get("index").parse().unwrap_or(0);
    let mut attrs: Vec<(&str, String)> = vec![
        ("index", n.get("index").to_string()),
        ("package", n.get("package").to_string()),
        ("class", n.get("class").to_string()),
        ("text", n.get("text").to_string()),
    ];
    for key in ["content-desc", "resource-id"] {
        if !n.get(key).is_empty() {
            attrs.push((key, n.get(key).to_string()));
        }
    }
    for key in [
        "checkable",
        "checked",
        "clickable",
        "enabled",
        "focusable",
        "focused",
        "long-clickable",
        "password",
        "scrollable",
        "selected",
        "bounds",
    ] {
        let v = n.get(key);
        let v = if v.is_empty() && key != "bounds" {
            "false"
        } else {
            v
        };
        attrs.push((key, v.to_string()));
    }
    attrs.push(("displayed", "true".into()));
    if edit {
        attrs.push(("hint", n.get("hint").to_string()));
    }
    attrs.push(("a11y-important", "true".into()));
    attrs.push(("screen-reader-focusable", "false".into()));
    if edit {
        let password = n.flag("password");
        attrs.push(("input-type", if password { "129" } else { "1" }.into()));
    }
    attrs.push(("drawing-order", (index + 1).to_string()));
    attrs.push(("showing-hint", "false".into()));
    attrs.push(("text-entry-key", "false".into()));
    if edit {
        attrs.push(("multiline", "false".into()));
    }
    for (k, v) in [
        ("dismissable", "false"),
        ("a11y-focused", "false"),
        ("heading", if n.flag("heading") { "true" } else { "false" }),
        ("live-region", "0"),
        ("context-clickable", "false"),
        ("content-invalid", "false"),
    ] {
        attrs.push((k, v.into()));
    }
    attrs.push(("window-id", window.to_string()));
    for (k, v) in &attrs {
        s.push_str(&format!(" {k}=\"{}\"", escape(v)));
    }
    if n.children.is_empty() {
        s.push_str(" />");
        return;
    }
    s.push('>');
    for c in &n.children {
        write(c, depth + 1, window, s);
    }
    s.push('\n');
    s.push_str(&pad);
    s.push_str(&format!("</{tag}>"));
}

/// Attribute text as the server's serializer writes it (characters XML cannot hold → `?`).
fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_source_keeps_the_dumps_nodes_and_bounds() {
        let dump = Hierarchy::parse(include_str!("../demo/login.xml")).unwrap();
        let xml = to_page_source(&dump, 1080, 2400);
        assert!(xml.starts_with("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy index=\"0\" class=\"hierarchy\" rotation=\"0\" width=\"1080\" height=\"2400\">"));
        let mut reader = quick_xml::Reader::from_str(&xml);
        let mut seen = Vec::new();
        loop {
            match reader.read_event().unwrap() {
                quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                    let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                    if name == "hierarchy" {
                        continue;
                    }
                    let attrs: Vec<(String, String)> = e
                        .attributes()
                        .map(|a| {
                            let a = a.unwrap();
                            (
                                String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                                a.unescape_value().unwrap().into_owned(),
                            )
                        })
                        .collect();
                    let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
                    assert_eq!(Some(name.clone()), get("class"));
                    seen.push((name, get("bounds").unwrap(), get("text").unwrap()));
                }
                quick_xml::events::Event::Eof => break,
                _ => {}
            }
        }
        let want: Vec<(String, String, String)> = dump
            .walk()
            .iter()
            .map(|(_, n)| {
                (
                    n.get("class").into(),
                    n.get("bounds").into(),
                    n.get("text").into(),
                )
            })
            .collect();
        assert_eq!(seen, want);
        assert_eq!(tag_of("a.b$Inner"), "a.b.Inner");
        assert_eq!(tag_of(""), "android.view.View");
    }
}
