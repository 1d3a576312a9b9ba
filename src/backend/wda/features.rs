//! Device features through WebDriverAgent: the pasteboard (`POST /wda/setPasteboard` with
//! the text base64-encoded, `POST /wda/getPasteboard` answering it base64-encoded, both
//! `contentType: plaintext`) and the orientation (`GET`/`POST /orientation`, in WDA's names:
//! `PORTRAIT`, `LANDSCAPE` — landscape-left —, `UIA_DEVICE_ORIENTATION_LANDSCAPERIGHT`,
//! `UIA_DEVICE_ORIENTATION_PORTRAIT_UPSIDEDOWN`). An iPhone has no auto-rotate switch WDA
//! can turn, so `restore` answers 501.

use async_trait::async_trait;
use base64::Engine;
use reqwest::Method;
use serde_json::json;

use super::client::COMMAND_TIMEOUT;
use super::WdaBackend;
use crate::backend::Clipboard;
use crate::backend::Location;
use crate::backend::MultiTouchInput;
use crate::backend::ScreenOrientation;
use crate::device::{Device, Orientation, OrientationRead};
use crate::error::{Error, ErrorCode, Op, Result, Step};

/// WDA's name of an orientation.
pub fn wda_orientation(o: Orientation) -> &'static str {
    match o {
        Orientation::Portrait => "PORTRAIT",
        Orientation::Landscape => "LANDSCAPE",
        Orientation::LandscapeReverse => "UIA_DEVICE_ORIENTATION_LANDSCAPERIGHT",
        Orientation::PortraitReverse => "UIA_DEVICE_ORIENTATION_PORTRAIT_UPSIDEDOWN",
    }
}

/// The orientation of WDA's name.
pub fn from_wda(name: &str) -> Option<Orientation> {
    [
        Orientation::Portrait,
        Orientation::Landscape,
        Orientation::LandscapeReverse,
        Orientation::PortraitReverse,
    ]
    .into_iter()
    .find(|o| wda_orientation(*o).eq_ignore_ascii_case(name))
}

/// The W3C actions of a two-finger gesture: two touch pointers moving at once over
/// `duration_ms`.
pub fn two_fingers(
    center: crate::device::Point,
    g: crate::device::MultiTouch,
    duration_ms: u64,
) -> serde_json::Value {
    let paths = crate::device::finger_paths(center, g);
    let pointer = |id: &str, path: &[crate::device::Point]| {
        let step = duration_ms / (path.len().max(2) as u64 - 1);
        let mut actions = Vec::with_capacity(path.len() + 3);
        if let Some(first) = path.first() {
            actions.push(json!({"type": "pointerMove", "duration": 0, "origin": "viewport", "x": first.x, "y": first.y}));
        }
        actions.push(json!({"type": "pointerDown", "button": 0}));
        for p in path.iter().skip(1) {
            actions.push(json!({"type": "pointerMove", "duration": step, "origin": "viewport", "x": p.x, "y": p.y}));
        }
        actions.push(json!({"type": "pointerUp", "button": 0}));
        json!({"type": "pointer", "id": id, "parameters": {"pointerType": "touch"}, "actions": actions})
    };
    json!({"actions": [pointer("finger1", &paths[0]), pointer("finger2", &paths[1])]})
}

#[async_trait]
impl MultiTouchInput for WdaBackend {
    async fn multi_touch(
        &self,
        device: &Device,
        center: crate::device::Point,
        g: crate::device::MultiTouch,
    ) -> Result<()> {
        const DURATION_MS: u64 = 600;
        self.actions(device, two_fingers(center, g, DURATION_MS), DURATION_MS)
            .await
    }
}

#[async_trait]
impl Location for WdaBackend {
    /// WDA's simulated location (XCTest's, iOS 16.4+ with Xcode 14.3+).
    async fn set_location(&self, device: &Device, latitude: f64, longitude: f64) -> Result<()> {
        let body = json!({ "latitude": latitude, "longitude": longitude });
        self.session_call(
            device,
            Method::POST,
            "/wda/simulatedLocation",
            Some(&body),
            COMMAND_TIMEOUT,
        )
        .await
        .map(drop)
    }

    async fn clear_location(&self, device: &Device) -> Result<()> {
        self.session_call(
            device,
            Method::DELETE,
            "/wda/simulatedLocation",
            None,
            COMMAND_TIMEOUT,
        )
        .await
        .map(drop)
    }
}

#[async_trait]
impl Clipboard for WdaBackend {
    async fn get_clipboard(&self, device: &Device) -> Result<String> {
        let body = json!({ "contentType": "plaintext" });
        let answer = self
            .session_call(
                device,
                Method::POST,
                "/wda/getPasteboard",
                Some(&body),
                COMMAND_TIMEOUT,
            )
            .await?;
        let b64 = answer["value"].as_str().unwrap_or_default();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| {
                Error::new(
                    ErrorCode::CommandFailed,
                    format!("WebDriverAgent's pasteboard is not base64: {e}"),
                )
            })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    async fn set_clipboard(&self, device: &Device, text: &str) -> Result<()> {
        let body = json!({
            "content": base64::engine::general_purpose::STANDARD.encode(text),
            "contentType": "plaintext",
        });
        self.session_call(
            device,
            Method::POST,
            "/wda/setPasteboard",
            Some(&body),
            COMMAND_TIMEOUT,
        )
        .await
        .map(drop)
    }
}

#[async_trait]
impl ScreenOrientation for WdaBackend {
    async fn get_orientation(&self, device: &Device) -> Result<OrientationRead> {
        let answer = self
            .session_call(device, Method::GET, "/orientation", None, COMMAND_TIMEOUT)
            .await?;
        let name = answer["value"].as_str().unwrap_or_default();
        let orientation = from_wda(name).ok_or_else(|| {
            Error::new(
                ErrorCode::CommandFailed,
                format!("WebDriverAgent names an orientation mobilectl does not know: `{name}`"),
            )
            .with_details(json!({ "answer": answer }))
        })?;
        Ok(OrientationRead {
            orientation: Some(orientation),
            auto_rotate: None,
        })
    }

    async fn set_orientation(&self, device: &Device, to: Option<Orientation>) -> Result<()> {
        let Some(o) = to else {
            return Err(Error::new(
                ErrorCode::UnsupportedOnPlatform,
                "WebDriverAgent cannot turn an iPhone's auto-rotate back on",
            )
            .with_next(
                "set {0}; the rotation lock is in Control Centre",
                [Step::example_of(
                    Op::SetOrientation,
                    json!({"orientation": "portrait"}),
                )],
            ));
        };
        let body = json!({ "orientation": wda_orientation(o) });
        self.session_call(
            device,
            Method::POST,
            "/orientation",
            Some(&body),
            COMMAND_TIMEOUT,
        )
        .await
        .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wda_names_round_trip() {
        for o in [
            Orientation::Portrait,
            Orientation::Landscape,
            Orientation::LandscapeReverse,
            Orientation::PortraitReverse,
        ] {
            assert_eq!(from_wda(wda_orientation(o)), Some(o));
        }
        assert_eq!(from_wda("diagonal"), None);
    }
}
