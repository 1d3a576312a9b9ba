//! The listed elements as the API shows them ([`ElementView`]): the same for a live snapshot
//! (`GET /api/v1/device/ui`) and a saved dump (`mobilectl snapshot --from-file --json`). An
//! element's `name` is the label its line of the compact text prints, so a JSON client finds
//! `button "Sign in"` by the name the text shows even when the label comes from a child.

use serde::Serialize;
use utoipa::ToSchema;

use super::model::{Rect, Role, States};
use super::Screen;

/// One listed element of a snapshot.
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
