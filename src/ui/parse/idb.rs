//! idb `ui describe-all --json` (a flat array of AX nodes, the Application first) and
//! `ui describe-point` (one node). Elements other than the application hang under it.

use super::super::model::{DumpKind, Tree};
use super::ParseError;
use serde_json::Value;

pub(super) fn parse(text: &str) -> Result<Tree, ParseError> {
    let v: Value = serde_json::from_str(text).map_err(|e| ParseError::Json(e.to_string()))?;
    super::axe::build(v, DumpKind::Idb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::model::Role;

    #[test]
    fn flat_list_hangs_under_application() {
        let src = r#"[{"AXFrame":"{{0, 0}, {430, 932}}","AXLabel":" ","type":"Application","role":"AXApplication"},
          {"AXFrame":"{{31, 82}, {174, 196.6}}","AXUniqueId":"Maps","AXLabel":"Maps","type":"Button","role":"AXButton","AXValue":"Widget"}]"#;
        let t = parse(src).unwrap();
        assert_eq!(t.roots, vec![0]);
        assert_eq!(t.nodes[1].parent, Some(0));
        assert_eq!(t.nodes[1].role, Role::Button);
        assert_eq!(t.screen.w, 430.0);
    }

    #[test]
    fn describe_point_single_object() {
        let src = r#"{"AXFrame":"{{20, 264}, {362, 44}}","AXUniqueId":"com.apple.settings.general","frame":{"y":264,"x":20,"width":362,"height":44},"AXLabel":"General","type":"Button","role":"AXButton","AXValue":""}"#;
        let t = parse(src).unwrap();
        assert_eq!(t.nodes.len(), 1);
        assert_eq!(t.nodes[0].name.as_deref(), Some("General"));
        assert_eq!(t.nodes[0].value, None);
    }
}
