//! Android XML: `uiautomator dump` (`<hierarchy><node class=…>`), including multi-window dumps,
//! `rotation`, `NAF`, entities and character references, pretty or compact; and Appium
//! UiAutomator2 page source, whose element tag names are the classes.

use super::super::model::{DumpKind, Element, Role, Size, Tree};
use super::super::roles::android_role;
use super::xml::{self, Place};
use super::{android_bounds, attrs, non_empty, truthy, unescape, ParseError};
use quick_xml::events::BytesStart;

/// Packages of input methods (soft keyboards) seen in the wild.
pub(crate) fn is_ime_package(pkg: &str) -> bool {
    pkg.contains("inputmethod")
        || pkg.contains("honeyboard")
        || pkg.contains("swiftkey")
        || pkg.contains("keyboard")
        || pkg.ends_with(".input")
        || pkg.contains(".ime")
}

pub(crate) fn is_system_ui_package(pkg: &str) -> bool {
    pkg == "com.android.systemui"
}

pub(super) fn parse(kind: DumpKind, text: &str) -> Result<Tree, ParseError> {
    let mut tree = Tree::new(kind);
    let saw_root = xml::walk(text, |e, at| open(text, &mut tree, e, at))?;
    if !saw_root {
        return Err(ParseError::UnknownFormat);
    }
    tree.foreground = foreground_package(&tree);
    cover_the_display(&mut tree);
    // The window of an input method is the keyboard.
    for i in 0..tree.roots.len() {
        let r = tree.roots[i];
        if tree.nodes[r].package.as_deref().is_some_and(is_ime_package) {
            tree.nodes[r].role = Role::Keyboard;
        }
    }
    Ok(tree)
}

/// Appium on gesture-navigation phones reports the app window's height (`height="2254"`)
/// while the window roots span the whole display (`[0,0][1080,2400]`), and nodes below the
/// window height are on screen for the user. The screen is what the visible roots cover.
fn cover_the_display(tree: &mut Tree) {
    if tree.screen.w <= 0.0 || tree.screen.h <= 0.0 {
        return;
    }
    for &r in &tree.roots {
        let n = &tree.nodes[r];
        if !n.states.visible || n.bounds.x > 0.5 || n.bounds.y > 0.5 {
            continue;
        }
        tree.screen.w = tree.screen.w.max(n.bounds.x + n.bounds.w);
        tree.screen.h = tree.screen.h.max(n.bounds.y + n.bounds.h);
    }
}

/// Maps one tag: `<hierarchy>` (and Appium's `<AppiumAUT>` document element) carries the
/// screen, every other tag is an element.
fn open(doc: &str, tree: &mut Tree, e: &BytesStart<'_>, at: Place) -> Option<usize> {
    let tag = xml::tag_name(e);
    if tag == "hierarchy" || (at.depth == 0 && tag == "AppiumAUT") {
        for (key, v) in attrs(doc, e) {
            match key.as_bytes() {
                b"rotation" => tree.rotation = v.trim().parse().ok(),
                b"width" => tree.screen.w = v.trim().parse().unwrap_or(0.0),
                b"height" => tree.screen.h = v.trim().parse().unwrap_or(0.0),
                _ => {}
            }
        }
        if !(tree.screen.w > 0.0 && tree.screen.h > 0.0) {
            tree.screen = Size::default();
        }
        return None;
    }
    let mut el = Element::default();
    let mut class: Option<String> = None;
    let mut visible = true;
    for (key, raw) in attrs(doc, e) {
        let st = &mut el.states;
        match key.as_bytes() {
            // Whitespace is content in a text field (a typed tab or space); labels skip it.
            b"text" => el.text = Some(unescape(raw).to_string()).filter(|t| !t.is_empty()),
            b"content-desc" => el.desc = non_empty(unescape(raw)),
            b"resource-id" => el.id = non_empty(unescape(raw)),
            b"hint" => el.hint = non_empty(unescape(raw)),
            b"class" => class = non_empty(unescape(raw)),
            b"package" => el.package = non_empty(unescape(raw)),
            b"bounds" => el.bounds = android_bounds(raw).unwrap_or_default(),
            b"checkable" => st.checkable = truthy(raw),
            b"checked" => st.checked = truthy(raw),
            b"clickable" => st.clickable = truthy(raw),
            b"enabled" => st.enabled = truthy(raw),
            b"focused" => st.focused = truthy(raw),
            b"scrollable" => st.scrollable = truthy(raw),
            b"long-clickable" => st.long_clickable = truthy(raw),
            b"password" => st.password = truthy(raw),
            b"selected" => st.selected = truthy(raw),
            b"visible-to-user" | b"displayed" => visible = truthy(raw),
            _ => {}
        }
    }
    let class = class.or_else(|| (tag != "node").then(|| tag.to_string()));
    let cls = class.as_deref().unwrap_or("");
    el.role = android_role(
        cls,
        el.states.clickable,
        el.desc.is_some(),
        el.states.checkable,
    );
    let lc = cls.to_ascii_lowercase();
    el.states.editable =
        lc.contains("edittext") || lc.contains("autocompletetextview") || lc.ends_with("textfield");
    if el.states.editable {
        el.role = Role::Textbox;
        // An input's name is its description; its text is the typed value.
        el.value = el.text.clone();
        el.name = el.desc.clone();
    } else {
        el.name = el.text.clone().or_else(|| el.desc.clone());
    }
    if el.states.clickable
        && matches!(
            el.role,
            Role::Group | Role::Other | Role::Text | Role::Image
        )
    {
        el.role = Role::Button;
    }
    el.states.visible = visible;
    el.class = class;
    let parent = at.parent;
    if el.package.is_none() {
        if let Some(p) = parent {
            el.package = tree.nodes[p].package.clone();
        }
    }
    Some(tree.push(el, parent))
}

/// The app in front: the largest top-level window that is neither system UI nor a keyboard;
/// system UI when nothing else is there.
fn foreground_package(tree: &Tree) -> Option<String> {
    let mut best: Option<(f64, &str)> = None;
    for &r in &tree.roots {
        let n = &tree.nodes[r];
        let Some(pkg) = n.package.as_deref() else {
            continue;
        };
        if is_system_ui_package(pkg) || is_ime_package(pkg) {
            continue;
        }
        let area = n.bounds.area();
        let better = match best {
            Some((a, _)) => area > a,
            None => true,
        };
        if better {
            best = Some((area, pkg));
        }
    }
    best.map(|(_, p)| p.to_string()).or_else(|| {
        tree.roots
            .iter()
            .find_map(|&r| tree.nodes[r].package.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::model::Rect;
    use super::*;

    const DUMP: &str = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="1">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.app" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,1920]">
    <node index="0" text="Tom &amp; Jerry &#129293;" resource-id="com.app:id/title" class="android.widget.TextView" package="com.app" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,100]" NAF="true"/>
    <node index="1" text="" resource-id="com.app:id/go" class="android.widget.ImageButton" package="com.app" content-desc="Go" clickable="true" enabled="false" bounds="[0,100][bad]"/>
  </node>
  <node index="0" text="" class="android.widget.FrameLayout" package="com.android.systemui" bounds="[0,0][1080,60]"/>
</hierarchy>"#;

    #[test]
    fn parses_multi_window_dump() {
        let t = parse(DumpKind::Uiautomator, DUMP).unwrap();
        assert_eq!(t.rotation, Some(1));
        assert_eq!(t.nodes.len(), 4);
        assert_eq!(t.roots, vec![0, 3]);
        assert_eq!(t.nodes[1].text.as_deref(), Some("Tom & Jerry \u{1F90D}"));
        assert_eq!(t.nodes[1].parent, Some(0));
        assert_eq!(t.nodes[2].role, Role::Button);
        assert_eq!(t.nodes[2].name.as_deref(), Some("Go"));
        assert!(!t.nodes[2].states.enabled);
        assert_eq!(t.nodes[2].bounds, Rect::default());
        assert_eq!(t.foreground.as_deref(), Some("com.app"));
    }

    #[test]
    fn appium_tags_are_classes() {
        let src = r#"<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2254"><android.widget.Button index="0" text="OK" clickable="true" bounds="[1,2][3,4]" displayed="true"/></hierarchy>"#;
        let t = parse(DumpKind::AppiumSource, src).unwrap();
        assert_eq!(t.nodes[0].class.as_deref(), Some("android.widget.Button"));
        assert_eq!(t.nodes[0].role, Role::Button);
        assert_eq!(
            t.screen,
            Size {
                w: 1080.0,
                h: 2254.0
            }
        );
    }

    #[test]
    fn content_after_the_document_is_ignored() {
        let doubled = format!("{DUMP}\n'{DUMP}' +");
        let t = parse(DumpKind::Uiautomator, &doubled).unwrap();
        assert_eq!(t.nodes.len(), 4);
    }

    #[test]
    fn truncated_and_mismatched_are_errors() {
        let cut = &DUMP[..DUMP.len() / 2];
        assert!(parse(DumpKind::Uiautomator, cut).is_err());
        assert!(parse(DumpKind::Uiautomator, "<hierarchy></node>").is_err());
    }
}
