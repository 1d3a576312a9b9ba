//! Physical iPhones (and simulators given to it) through WebDriverAgent over HTTP, with Xcode's
//! devicectl for what WDA cannot do (installing and listing apps). Each `--wda [UDID=]URL`
//! endpoint is a device; WDA's session is created on first use and reused. The UI is WDA's
//! `/source` (XML through the WDA parser, JSON as a fallback), taps and swipes W3C actions in
//! points, typing `/wda/keys`, keys `/wda/pressButton`, alerts WDA's alert routes, screenshots
//! `/screenshot`, apps `/wda/apps/*`. What an iPhone cannot do answers `501` with a hint.
//!
//! Requests per operation (the goal: one per action): a snapshot is one `/source` (plus
//! `/wda/screen` only when the source does not say the screen's size); tap, long press, swipe,
//! press, hide keyboard, open URL, launch, terminate and alert answers one request each (plus
//! `POST /session` once per session); `type` one `/wda/keys` after the tap on its target.

mod alerts;
mod apps;
mod client;
mod devicectl;
mod doctor;
mod endpoint;
mod errors;
mod features;
mod files;
mod gestures;
mod listing;
mod screen;
mod status;

pub use endpoint::EndpointSpec;

use std::time::Duration;

use crate::backend::polled::PolledListing;

use reqwest::Method;
use serde_json::Value;

use self::client::{Transport, COMMAND_TIMEOUT};
use self::devicectl::Devicectl;
use self::endpoint::Endpoint;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::Toolbox;

/// Recorded answers for the unit tests of this folder.
#[cfg(test)]
pub(crate) fn recorded(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A recorded WebDriverAgent answer (`fixtures/ios_wda_source/NAME`) as JSON.
#[cfg(test)]
pub(crate) fn recorded_wda(name: &str) -> Value {
    serde_json::from_slice(&recorded(&format!("ios_wda_source/{name}"))).unwrap()
}

/// Default time limit of `GET /source` (WDA takes about 5 s on a 2,000-node screen).
pub const DEFAULT_SOURCE_TIMEOUT: Duration = Duration::from_secs(20);

/// The WDA endpoints and how long a UI read may take.
#[derive(Debug, Clone)]
pub struct WdaConfig {
    /// The endpoints given (`--wda [UDID=]URL`).
    pub endpoints: Vec<EndpointSpec>,
    /// Time limit of a UI read (`GET /source`; default [`DEFAULT_SOURCE_TIMEOUT`]).
    pub source_timeout: Duration,
}

impl Default for WdaConfig {
    fn default() -> Self {
        WdaConfig {
            endpoints: Vec::new(),
            source_timeout: DEFAULT_SOURCE_TIMEOUT,
        }
    }
}

/// The listing's answer when there is nothing to list.
fn not_configured() -> Error {
    Error::new(
        ErrorCode::ToolMissing,
        "no WebDriverAgent endpoint is configured and devicectl (xcrun) was not found",
    )
    .with_hint(
        "start WebDriverAgent on the iPhone, forward its port (`iproxy 8100 8100`), and run \
         `mobilectl serve --wda UDID=http://127.0.0.1:8100` (or set MOBILECTL_WDA)",
    )
}

/// The answer for a UI operation on a phone without a WDA endpoint.
fn no_wda(device: &Device) -> Error {
    Error::new(
        ErrorCode::ToolMissing,
        format!(
            "`{}` has no WebDriverAgent endpoint: its UI cannot be read or driven",
            device.name
        ),
    )
    .with_hint(format!(
        "start WebDriverAgent on it, forward its port (`iproxy 8100 8100 -u {u}` or \
         `ios forward 8100 8100 --udid {u}`) and restart with `--wda {u}=http://127.0.0.1:8100`; \
         its app routes work through devicectl meanwhile",
        u = device.udid
    ))
}

/// Talks to iOS devices through WebDriverAgent endpoints and devicectl.
pub struct WdaBackend {
    endpoints: Vec<Endpoint>,
    transport: Transport,
    devicectl: Devicectl,
    /// devicectl's device list, kept and refreshed in the background (it takes a while).
    devicectl_listing: PolledListing<devicectl::Listing>,
    source_timeout: Duration,
}

impl WdaBackend {
    /// The registry key of this backend.
    pub const ID: &'static str = "wda";

    /// devicectl's listing, as a future that owns what it needs.
    fn devicectl_lister(
        &self,
    ) -> futures_util::future::BoxFuture<'static, Result<devicectl::Listing>> {
        let devicectl = self.devicectl.clone();
        Box::pin(async move { devicectl.list().await })
    }

    /// A backend over the endpoints of `config`, with devicectl from `tools` for phones' apps
    /// and listing, every command's time limit capped at `max_command_time` when given.
    pub fn new(tools: Toolbox, config: &WdaConfig, max_command_time: Option<Duration>) -> Self {
        WdaBackend {
            endpoints: config
                .endpoints
                .iter()
                .cloned()
                .map(Endpoint::new)
                .collect(),
            transport: Transport::new(max_command_time),
            devicectl: Devicectl::new(tools, max_command_time),
            devicectl_listing: PolledListing::default(),
            source_timeout: config.source_timeout,
        }
    }

    /// The endpoint that drives `device`, or what to do when it has none.
    fn endpoint(&self, device: &Device) -> Result<&Endpoint> {
        self.endpoints
            .iter()
            .find(|e| e.udid == device.udid)
            .ok_or_else(|| no_wda(device))
    }

    async fn session_call(
        &self,
        device: &Device,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value> {
        let ep = self.endpoint(device)?;
        self.transport
            .in_session(ep, method, path, body, timeout)
            .await
    }

    async fn actions(&self, device: &Device, body: Value, gesture_ms: u64) -> Result<()> {
        let timeout = COMMAND_TIMEOUT + Duration::from_millis(gesture_ms);
        self.session_call(device, Method::POST, "/actions", Some(&body), timeout)
            .await
            .map(drop)
    }

    async fn keys(&self, device: &Device, text: &str) -> Result<()> {
        // WDA types about 60 characters a second; allow for a slower phone.
        let timeout = COMMAND_TIMEOUT + Duration::from_millis(100 * text.chars().count() as u64);
        let body = gestures::keys_body(text);
        self.session_call(device, Method::POST, "/wda/keys", Some(&body), timeout)
            .await
            .map(drop)
    }
}
