//! Elements as the API shows them. [`ElementView`] is a listed element: the same for a live
//! snapshot (`GET /api/v1/device/ui`) and a saved dump (`mobilectl snapshot --from-file
//! --json`). An element's `name` is the label its line of the compact text prints, so a JSON
//! client finds `button "Sign in"` by the name the text shows even when the label comes from a
//! child. [`Observed`] is an element as verification (`wait`, `expect`) judges it: its own
//! label, the text it shows (its value when it has no text) and whether it is on screen and
//! enabled; the two are kept apart because their fields mean different things on the wire.

use serde::Serialize;
use utoipa::ToSchema;

use super::model::{Rect, Role, States};
use super::Screen;

/// One listed element of a snapshot.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ElementView {
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    pub role: Role,
    /// The label the compact text prints for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// In the platform's tap coordinates (Android pixels, iOS points).
    pub bounds: Rect,
    pub states: States,
}

/// An element as verification reports it.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Observed {
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub bounds: Rect,
    pub visible: bool,
    pub enabled: bool,
}

impl Observed {
    /// Element `node` of `screen` as verification judges it.
    pub fn of(screen: &Screen, node: usize) -> Observed {
        let e = &screen.elements[node];
        Observed {
            r#ref: e.r#ref.clone(),
            role: e.role,
            name: screen.name_of(node),
            text: e.text.clone().or_else(|| e.value.clone()),
            bounds: e.bounds,
            visible: screen.is_on_screen(node),
            enabled: e.states.enabled,
        }
    }
}

/// The listed elements of a screen, in reading order.
pub fn listed(screen: &Screen) -> Vec<ElementView> {
    screen
        .listed
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let e = &screen.elements[i];
            let printed = screen.listed_names.get(k).cloned().flatten();
            ElementView {
                r#ref: e.r#ref.clone(),
                role: e.role,
                name: printed.or_else(|| e.label().map(str::to_string)),
                value: e.value.clone(),
                text: e.text.clone(),
                id: e.id.clone(),
                class: e.class.clone(),
                bounds: e.bounds,
                states: e.states,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::{analyze, parse_any, ViewOptions};

    const DUMP: &str = r#"<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="p" bounds="[0,0][100,200]"><node class="android.widget.EditText" package="p" text="alice" content-desc="User" clickable="true" enabled="true" bounds="[0,10][100,30]"/><node class="android.widget.Button" package="p" text="Go" clickable="true" enabled="false" bounds="[0,250][100,270]"/></node></hierarchy>"#;

    fn node(screen: &Screen, class: &str) -> usize {
        let found = screen
            .elements
            .iter()
            .position(|e| e.class.as_deref() == Some(class));
        found.unwrap()
    }

    #[test]
    fn observed_reports_label_shown_text_and_whether_on_screen() {
        let screen = analyze(&parse_any(DUMP).unwrap(), None, &ViewOptions::default());
        let field = Observed::of(&screen, node(&screen, "android.widget.EditText"));
        assert_eq!(field.role, Role::Textbox);
        assert_eq!(field.name.as_deref(), Some("User"));
        assert_eq!(field.text.as_deref(), Some("alice"));
        assert!(field.visible && field.enabled);
        let below = Observed::of(&screen, node(&screen, "android.widget.Button"));
        assert!(!below.visible && !below.enabled);
    }
}
