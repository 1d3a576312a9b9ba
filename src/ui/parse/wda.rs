//! WebDriverAgent: `/source` XML (also Appium XCUITest page source with its `<AppiumAUT>`
//! wrapper) and JSON (`/source?format=json` with `rect {x,y,width,height}`, and the legacy
//! `/tree` with `rect {origin,size}`, `UIA*` types and `"1"`/`"0"` flags).

use super::super::model::{DumpKind, Element, Rect, Role, Size, Tree};
use super::super::roles::ios_type_role;
use super::xml::{self, Place};
use super::{attrs, frame_string, non_empty, truthy, unescape, ParseError};
use quick_xml::events::BytesStart;
use serde_json::Value;

pub(super) fn parse_xml(text: &str) -> Result<Tree, ParseError> {
    let mut tree = Tree::new(DumpKind::WdaXml);
    // A document without tags leaves the tree empty, which the caller refuses.
    xml::walk(text, |e, at| open(text, &mut tree, e, at))?;
    finish(&mut tree);
    Ok(tree)
}

/// Maps one tag: Appium's `<AppiumAUT>` is a wrapper, every other tag an element.
fn open(doc: &str, tree: &mut Tree, e: &BytesStart<'_>, at: Place) -> Option<usize> {
    let tag = xml::tag_name(e);
    if tag == "AppiumAUT" {
        return None;
    }
    let mut ty: Option<String> = None;
    let mut name = None;
    let mut label = None;
    let mut value = None;
    let mut placeholder = None;
    let (mut x, mut y, mut w, mut h) = (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
    let mut el = Element::default();
    let mut bundle = None;
    for (key, raw) in attrs(doc, e) {
        match key.as_bytes() {
            b"type" => ty = non_empty(unescape(raw)),
            b"name" => name = non_empty(unescape(raw)),
            b"label" => label = non_empty(unescape(raw)),
            b"value" => value = non_empty(unescape(raw)),
            b"placeholderValue" => placeholder = non_empty(unescape(raw)),
            b"enabled" => el.states.enabled = truthy(raw),
            b"visible" => el.states.visible = truthy(raw),
            b"focused" | b"hasFocus" => el.states.focused = truthy(raw),
            b"selected" => el.states.selected = truthy(raw),
            b"x" => x = num(raw),
            b"y" => y = num(raw),
            b"width" => w = num(raw),
            b"height" => h = num(raw),
            b"bundleId" => bundle = non_empty(unescape(raw)),
            _ => {}
        }
    }
    let ty = ty.unwrap_or_else(|| tag.to_string());
    el.bounds = Rect::new(x, y, w, h);
    fill(&mut el, &ty, name, label, value, placeholder);
    if tree.foreground.is_none() && el.role == Role::Application {
        tree.foreground = bundle.or_else(|| el.name.clone());
    }
    Some(tree.push(el, at.parent))
}

fn num(s: &str) -> f64 {
    s.trim().parse().unwrap_or(f64::NAN)
}

/// Shared XML/JSON mapping of WDA attributes onto the canonical element.
fn fill(
    el: &mut Element,
    ty: &str,
    name: Option<String>,
    label: Option<String>,
    value: Option<String>,
    placeholder: Option<String>,
) {
    el.role = ios_type_role(ty);
    el.class = Some(ty.to_string());
    // WDA `name` is the accessibilityIdentifier when one is set, else the label.
    if name.is_some() && name != label {
        el.id = name.clone();
    }
    el.name = label.or(name);
    let st = &mut el.states;
    match el.role {
        Role::Switch | Role::Checkbox | Role::Radio => {
            st.checkable = true;
            st.checked = value.as_deref().is_some_and(truthy);
        }
        Role::Textbox => st.editable = true,
        Role::List => st.scrollable = true,
        _ => {}
    }
    st.clickable = el.role.is_control() && st.visible;
    st.password = ty.contains("Secure");
    if el.role == Role::Textbox {
        el.text = value.clone().filter(|v| Some(v) != placeholder.as_ref());
    }
    el.value = value.or(placeholder.filter(|_| el.role == Role::Textbox));
    if el.name.is_none() && el.role == Role::Text {
        el.name = el.value.clone();
    }
}

fn finish(tree: &mut Tree) {
    if let Some(app) = tree
        .roots
        .iter()
        .map(|&r| &tree.nodes[r])
        .find(|n| n.bounds.is_valid())
    {
        tree.screen = Size {
            w: app.bounds.w,
            h: app.bounds.h,
        };
    }
}

pub(super) fn parse_json(text: &str) -> Result<Tree, ParseError> {
    let v: Value = serde_json::from_str(text).map_err(|e| ParseError::Json(e.to_string()))?;
    let mut root = &v;
    // Unwrap `{value: …}` and the legacy `{value: {tree: …}}` envelopes.
    for key in ["value", "tree"] {
        if let Some(inner) = root.get(key).filter(|x| x.is_object()) {
            root = inner;
        }
    }
    if !root.is_object() {
        return Err(ParseError::UnknownFormat);
    }
    let mut tree = Tree::new(DumpKind::WdaJson);
    let mut stack: Vec<(&Value, Option<usize>)> = vec![(root, None)];
    while let Some((node, parent)) = stack.pop() {
        let Some(obj) = node.as_object() else {
            continue;
        };
        let s = |k: &str| obj.get(k).and_then(Value::as_str).and_then(non_empty);
        let ty = s("type").unwrap_or_else(|| "Other".into());
        let mut el = Element {
            bounds: json_rect(obj).unwrap_or(Rect::new(f64::NAN, f64::NAN, 0.0, 0.0)),
            ..Element::default()
        };
        el.states.enabled = obj.get("isEnabled").map(json_bool).unwrap_or(true);
        el.states.visible = obj.get("isVisible").map(json_bool).unwrap_or(true);
        el.states.focused = obj
            .get("hasFocus")
            .or_else(|| {
                obj.get("attributes")
                    .and_then(|a| a.get("hasKeyboardFocus"))
            })
            .map(json_bool)
            .unwrap_or(false);
        el.states.selected = obj.get("isSelected").map(json_bool).unwrap_or(false);
        let value = match obj.get("value") {
            Some(Value::String(x)) => non_empty(x.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        fill(
            &mut el,
            &ty,
            s("name"),
            s("label"),
            value,
            s("placeholderValue"),
        );
        if tree.foreground.is_none() && el.role == Role::Application {
            tree.foreground = s("bundleId").or_else(|| el.name.clone());
        }
        let idx = tree.push(el, parent);
        if let Some(Value::Array(children)) = obj.get("children") {
            for c in children.iter().rev() {
                stack.push((c, Some(idx)));
            }
        }
    }
    finish(&mut tree);
    Ok(tree)
}

fn json_bool(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => truthy(s),
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        _ => false,
    }
}

fn json_rect(obj: &serde_json::Map<String, Value>) -> Option<Rect> {
    let f = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64);
    if let Some(r) = obj.get("rect") {
        if let (Some(x), Some(y), Some(w), Some(h)) =
            (f(r, "x"), f(r, "y"), f(r, "width"), f(r, "height"))
        {
            return Some(Rect::new(x, y, w, h));
        }
        if let (Some(o), Some(sz)) = (r.get("origin"), r.get("size")) {
            if let (Some(x), Some(y), Some(w), Some(h)) =
                (f(o, "x"), f(o, "y"), f(sz, "width"), f(sz, "height"))
            {
                return Some(Rect::new(x, y, w, h));
            }
        }
    }
    obj.get("frame")
        .and_then(Value::as_str)
        .and_then(frame_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_with_appium_wrapper_and_inf() {
        let src = r#"<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Settings" label="Settings" enabled="true" visible="true" x="0" y="0" width="402" height="874" bundleId="com.apple.Preferences">
  <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" name="wifi" label="Wi-Fi" value="1" enabled="true" visible="true" x="10" y="20" width="50" height="30"/>
  <XCUIElementTypeAny type="XCUIElementTypeAny" enabled="true" visible="false" x="inf" y="inf" width="0" height="0"/>
</XCUIElementTypeApplication></AppiumAUT>"#;
        let t = parse_xml(src).unwrap();
        assert_eq!(t.nodes.len(), 3);
        assert_eq!(t.screen, Size { w: 402.0, h: 874.0 });
        assert_eq!(t.foreground.as_deref(), Some("com.apple.Preferences"));
        let sw = &t.nodes[1];
        assert_eq!(sw.role, Role::Switch);
        assert_eq!(sw.name.as_deref(), Some("Wi-Fi"));
        assert_eq!(sw.id.as_deref(), Some("wifi"));
        assert!(sw.states.checked && sw.states.clickable);
        assert!(!t.nodes[2].bounds.is_valid());
    }

    #[test]
    fn json_modern_and_legacy_rects() {
        let modern = r#"{"value":{"type":"XCUIElementTypeApplication","label":"A","rect":{"x":0,"y":0,"width":390,"height":844},"isEnabled":true,"children":[{"type":"XCUIElementTypeButton","label":"OK","rect":{"x":1,"y":2,"width":3,"height":4},"isEnabled":"1"}]}}"#;
        let t = parse_json(modern).unwrap();
        assert_eq!(t.nodes.len(), 2);
        assert_eq!(t.nodes[1].bounds, Rect::new(1.0, 2.0, 3.0, 4.0));
        assert_eq!(t.nodes[1].parent, Some(0));
        let legacy = r#"{"value":{"tree":{"type":"UIAApplication","name":"SpringBoard","rect":{"origin":{"x":0,"y":0},"size":{"width":375,"height":667}},"isVisible":"0","children":[]}}}"#;
        let t = parse_json(legacy).unwrap();
        assert_eq!(t.screen, Size { w: 375.0, h: 667.0 });
        assert!(!t.nodes[0].states.visible);
    }
}
