//! AXe `describe-ui` JSON: an array of nested AX nodes (`AXFrame`, `AXLabel`, `AXUniqueId`,
//! `AXValue`, `frame`, `role`, `subrole`, `type`, `children`…), pretty or compact, also when
//! wrapped in an envelope (`{"data": {"raw": …}}`, `raw` an array or a JSON string). The node
//! mapping is shared with idb, whose output has the same keys.

use super::super::model::{DumpKind, Element, Rect, Role, Size, Tree};
use super::super::roles::ax_role;
use super::{frame_string, non_empty, ParseError};
use serde_json::Value;

pub(super) fn parse(text: &str) -> Result<Tree, ParseError> {
    let v: Value = serde_json::from_str(text).map_err(|e| ParseError::Json(e.to_string()))?;
    build(v, DumpKind::Axe)
}

/// Finds the node list inside the general forms: an array, one node, or an envelope.
fn unwrap_nodes(v: Value) -> Result<Vec<Value>, ParseError> {
    let mut cur = v;
    for _ in 0..4 {
        match cur {
            Value::Array(a) => return Ok(a),
            Value::Object(ref o) if o.contains_key("AXFrame") || o.contains_key("frame") => {
                return Ok(vec![cur])
            }
            Value::Object(mut o) => {
                let next = ["data", "raw", "value", "elements", "tree"]
                    .iter()
                    .find_map(|k| o.remove(*k));
                match next {
                    Some(Value::String(s)) => {
                        cur = serde_json::from_str(&s)
                            .map_err(|e| ParseError::Json(e.to_string()))?;
                    }
                    Some(n) => cur = n,
                    None => return Err(ParseError::UnknownFormat),
                }
            }
            _ => return Err(ParseError::UnknownFormat),
        }
    }
    Err(ParseError::UnknownFormat)
}

/// Builds a tree from AX nodes; flat lists (idb) hang under their Application node.
pub(super) fn build(v: Value, kind: DumpKind) -> Result<Tree, ParseError> {
    let nodes = unwrap_nodes(v)?;
    let mut tree = Tree::new(kind);
    let flat = nodes.iter().all(|n| n.get("children").is_none());
    let mut app_root: Option<usize> = None;
    let mut stack: Vec<(&Value, Option<usize>)> = Vec::new();
    for top in &nodes {
        stack.push((top, if flat { app_root } else { None }));
        while let Some((node, parent)) = stack.pop() {
            let Some(el) = ax_element(node) else {
                continue;
            };
            let is_app = el.role == Role::Application;
            let idx = tree.push(el, parent);
            if flat && is_app && app_root.is_none() && parent.is_none() {
                app_root = Some(idx);
            }
            if let Some(Value::Array(children)) = node.get("children") {
                for c in children.iter().rev() {
                    stack.push((c, Some(idx)));
                }
            }
        }
    }
    if let Some(app) = tree
        .roots
        .iter()
        .map(|&r| &tree.nodes[r])
        .find(|n| n.role == Role::Application && n.bounds.is_valid())
    {
        tree.screen = Size {
            w: app.bounds.right(),
            h: app.bounds.bottom(),
        };
        tree.foreground = app.name.clone().filter(|n| !n.trim().is_empty());
    }
    Ok(tree)
}

fn get_str(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).and_then(non_empty)
}

/// One AX node → element; `None` when the value is not an object.
pub(super) fn ax_element(v: &Value) -> Option<Element> {
    let obj = v.as_object()?;
    let role_s = get_str(v, "role");
    let sub = get_str(v, "subrole");
    let ty = get_str(v, "type");
    let mut el = Element {
        role: ax_role(role_s.as_deref(), sub.as_deref(), ty.as_deref()),
        ..Element::default()
    };
    el.class = role_s.clone().or(ty.clone());
    el.name = get_str(v, "AXLabel").or_else(|| get_str(v, "title"));
    el.value = match obj.get("AXValue") {
        Some(Value::String(s)) => non_empty(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    el.id = get_str(v, "AXUniqueId");
    el.bounds = frame(v).unwrap_or(Rect::new(f64::NAN, f64::NAN, 0.0, 0.0));
    let st = &mut el.states;
    st.enabled = obj.get("enabled").and_then(Value::as_bool).unwrap_or(true);
    st.visible = !obj.get("hidden").and_then(Value::as_bool).unwrap_or(false);
    st.focused = obj.get("focused").and_then(Value::as_bool).unwrap_or(false);
    let traits: Vec<&str> = obj
        .get("traits")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    st.selected = traits.iter().any(|t| t.eq_ignore_ascii_case("selected"));
    match el.role {
        Role::Switch | Role::Checkbox | Role::Radio => {
            st.checkable = true;
            st.checked = matches!(el.value.as_deref(), Some("1") | Some("true"))
                || traits.iter().any(|t| t.eq_ignore_ascii_case("selected"));
        }
        Role::Textbox => st.editable = true,
        Role::List => st.scrollable = true,
        _ => {}
    }
    st.clickable = el.role.is_control()
        || traits
            .iter()
            .any(|t| t.eq_ignore_ascii_case("button") || t.eq_ignore_ascii_case("link"));
    if el.role == Role::Textbox {
        el.text = el.value.clone();
    }
    if el.role == Role::Group && el.name.is_some() && obj.get("children").is_none_or_empty() {
        // A labelled leaf generic element reads as text.
        el.role = Role::Text;
    }
    Some(el)
}

trait NoneOrEmpty {
    fn is_none_or_empty(&self) -> bool;
}

impl NoneOrEmpty for Option<&Value> {
    fn is_none_or_empty(&self) -> bool {
        match self {
            None => true,
            Some(Value::Array(a)) => a.is_empty(),
            Some(_) => false,
        }
    }
}

fn frame(v: &Value) -> Option<Rect> {
    if let Some(f) = v.get("frame").filter(|f| f.is_object()) {
        let g = |k: &str| f.get(k).and_then(Value::as_f64);
        if let (Some(x), Some(y), Some(w), Some(h)) = (g("x"), g("y"), g("width"), g("height")) {
            return Some(Rect::new(x, y, w, h));
        }
    }
    v.get("AXFrame")
        .and_then(Value::as_str)
        .and_then(frame_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODE: &str = r#"{"AXFrame":"{{0, 0}, {402, 874}}","AXLabel":"App","role":"AXApplication","type":"Application","enabled":true,"children":[
        {"AXFrame":"{{47, 64.5}, {303, 39}}","AXLabel":null,"AXValue":"Search","role":"AXGenericElement","subrole":"AXSearchField","type":"GenericElement","enabled":true,"children":[]},
        {"frame":{"x":1,"y":2,"width":3,"height":4},"AXLabel":"Go","AXUniqueId":"go","role":"AXButton","type":"Button","enabled":false,"children":[]}]}"#;

    #[test]
    fn nested_array() {
        let t = parse(&format!("[{NODE}]")).unwrap();
        assert_eq!(t.nodes.len(), 3);
        assert_eq!(t.screen, Size { w: 402.0, h: 874.0 });
        assert_eq!(t.nodes[1].role, Role::Textbox);
        assert_eq!(t.nodes[1].bounds.y, 64.5);
        assert_eq!(t.nodes[2].id.as_deref(), Some("go"));
        assert!(!t.nodes[2].states.enabled && t.nodes[2].states.clickable);
        assert_eq!(t.foreground.as_deref(), Some("App"));
    }

    #[test]
    fn envelopes() {
        let env = format!(r#"{{"ok":true,"data":{{"entries":[],"raw":[{NODE}]}}}}"#);
        assert_eq!(parse(&env).unwrap().nodes.len(), 3);
        let as_string = serde_json::to_string(&format!("[{NODE}]")).unwrap();
        let env = format!(r#"{{"data":{{"raw":{as_string}}}}}"#);
        assert_eq!(parse(&env).unwrap().nodes.len(), 3);
        assert!(parse(r#"{"data":{"nothing":1}}"#).is_err());
    }
}
