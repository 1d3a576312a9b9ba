//! The screen through WebDriverAgent: the page source (`GET /source`, XML as the WDA parser
//! reads it; a WDA that cannot print XML is asked for its JSON tree), bounded by the source
//! time limit; the screenshot (`GET /screenshot`, base64 PNG); and the screen's geometry
//! (`GET /wda/screen`, or `/window/size` on an old WDA), read once per endpoint. None of these
//! needs a session.

use async_trait::async_trait;
use base64::Engine;
use reqwest::Method;
use serde_json::{json, Value};

use super::client::COMMAND_TIMEOUT;

/// Time limit of Apple's audit (seconds on a phone).
const AUDIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
use super::endpoint::Endpoint;
use super::errors::{self, Failure};
use super::{status, WdaBackend};
use crate::backend::Screen;
use crate::backend::{ScreenGeometry, UiSource};
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};

/// The `/source` query: XML without the two attributes that cost WDA the most and tell
/// mobilectl nothing.
const SOURCE_XML: &str = "/source?format=xml&excluded_attributes=accessible,index";
const SOURCE_JSON: &str = "/source?format=json";

impl WdaBackend {
    /// Reads `/wda/screen`, or `/window/size` on a WDA without it; kept on the endpoint.
    pub(super) async fn read_geometry(&self, ep: &Endpoint) -> Option<ScreenGeometry> {
        if let Some(g) = ep.screen() {
            return Some(g);
        }
        let g = match self
            .transport
            .send(ep, Method::GET, "/wda/screen", None, COMMAND_TIMEOUT)
            .await
        {
            Ok(answer) => status::parse_screen(&answer["value"]),
            Err(Failure::Wda(e)) if e.is("unknown command") => self
                .transport
                .send(ep, Method::GET, "/window/size", None, COMMAND_TIMEOUT)
                .await
                .ok()
                .and_then(|a| status::parse_window_size(&a["value"])),
            Err(_) => None,
        };
        ep.set_screen(g);
        g
    }
}

#[async_trait]
impl Screen for WdaBackend {
    /// `POST /session/:id/wda/performAccessibilityAudit` (XCUITest's audit, iOS 17+): the
    /// issues of the app in front, every audit type.
    async fn platform_audit(&self, device: &Device) -> Option<Result<Value>> {
        let answer = self
            .session_call(
                device,
                Method::POST,
                "/wda/performAccessibilityAudit",
                Some(&json!({})),
                AUDIT_TIMEOUT,
            )
            .await;
        Some(answer.map(|a| a["value"].clone()))
    }

    /// `GET /screenshot`: a base64 PNG in `value`.
    async fn screenshot_png(&self, device: &Device) -> Result<Vec<u8>> {
        let ep = self.endpoint(device)?;
        let answer = self
            .transport
            .call(ep, Method::GET, "/screenshot", None, COMMAND_TIMEOUT)
            .await?;
        let b64 = answer["value"].as_str().unwrap_or_default();
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .ok()
            .filter(|p| p.starts_with(b"\x89PNG"));
        png.ok_or_else(|| {
            Error::new(
                ErrorCode::CommandFailed,
                "WebDriverAgent's screenshot is not a base64 PNG",
            )
            .with_details(json!({ "head": b64.chars().take(60).collect::<String>() }))
        })
    }

    /// `GET /source`: XML, or an old WDA's JSON tree.
    async fn dump_ui(&self, device: &Device) -> Result<UiSource> {
        let ep = self.endpoint(device)?;
        let timeout = self.source_timeout;
        let answer = match self
            .transport
            .send(ep, Method::GET, SOURCE_XML, None, timeout)
            .await
        {
            Ok(a) => a,
            // A WDA that cannot print XML: its JSON tree.
            Err(Failure::Wda(e)) if e.is("invalid argument") || e.is("unknown command") => {
                self.transport
                    .call(ep, Method::GET, SOURCE_JSON, None, timeout)
                    .await?
            }
            Err(f) => {
                return Err(errors::to_error(
                    f,
                    &format!("GET {SOURCE_XML}"),
                    &ep.spec.url,
                    ep.spec.udid.as_deref(),
                ))
            }
        };
        let text = match &answer["value"] {
            Value::String(xml) => xml.clone(),
            // The JSON tree, envelope and all: the WDA JSON parser unwraps it.
            Value::Object(_) => answer.to_string(),
            other => {
                return Err(Error::new(
                    ErrorCode::CommandFailed,
                    "WebDriverAgent's source is neither XML nor a JSON tree",
                )
                .with_details(json!({ "value": other })))
            }
        };
        Ok(UiSource {
            text,
            tool: "wda",
            foreground: None,
            notes: Vec::new(),
            web: Vec::new(),
        })
    }

    async fn screen_geometry(&self, device: &Device) -> Option<ScreenGeometry> {
        let ep = self.endpoint(device).ok()?;
        self.read_geometry(ep).await
    }
}
