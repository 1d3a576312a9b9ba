//! MCP (Model Context Protocol) for agents: a tool per API operation, generated from the
//! operation table (`crate::api::operations()`), of which a connection lists by default the
//! agent's loop plus `call` and `describe` that reach the rest ([`offer`]); served two ways:
//! - `mobilectl mcp` on stdio ([`run_stdio`]): a client of the HTTP server like the CLI (same
//!   `MOBILECTL_URL` / `MOBILECTL_TOKEN`, same autostart), so several agents share one server;
//!   each connection is its own session ([`session`]), leasing the device it acts on;
//! - `/mcp` on the HTTP server ([`http`]), over Streamable HTTP, calling the API in-process.
//!
//! Parts: [`schema`] (compact input schemas), [`brief`] (the default list's briefer ones),
//! [`tools`] (a tool per operation, arguments → request, answer → result), [`offer`] (which
//! tools a connection lists: by default the agent's loop), [`catalog`] (`call` and `describe`,
//! which reach every operation), [`progress`] (progress notifications of long calls, a flow's steps as they end), [`dispatch`] (the two ways of sending a request, whole or streamed), [`session`] (the
//! connection's session), [`server`] (the rmcp handler), [`http`] (the `/mcp` service),
//! [`idle`] (the lease of a `/mcp` session that went quiet).

pub mod brief;
pub mod catalog;
pub mod dispatch;
pub mod http;
pub mod idle;
pub mod offer;
pub mod progress;
pub mod resources;
pub mod schema;
pub mod server;
pub mod session;
pub mod tools;

use std::sync::Arc;

use rmcp::ServiceExt;

use crate::client::{exit, ConnectOptions};
use dispatch::HttpDispatch;
pub use offer::Offer;
use server::McpServer;
pub use session::DevicePick;

/// How to work with these tools, sent at `initialize` (kept under 2 KB).
pub const INSTRUCTIONS: &str = "\
mobilectl drives Android devices and iOS Simulators. How to work:
1. Look: `snapshot` gives the screen as a text tree of elements with refs e1..eN (format=json \
for JSON); `screen_summary` is briefer; `screenshot` is an image; `screenshot_annotated` draws \
refs on it.
2. Act on one target, given as exactly one of: ref (e12, from the latest snapshot; add its \
snapshot_id to have it refused if the screen was read again since); x and y (pixels on \
Android, points on iOS; a screenshot's tap_per_image_pixel turns image positions into them); \
selector {text, label, id, role (button, textbox, text, image, checkbox, switch, tab, \
link…), css (web pages: \"#email\"), contains, case_insensitive, index}, matched on a \
fresh read; grid (\"C5\", a cell of `screenshot_annotated` with grid=true). observe: \
true reads the screen after the action and answers what changed (settle_ms: wait before that read); measure: true adds the \
app's frames and CPU.
3. Refs belong to their snapshot. After the screen changes (navigation, typing, scrolling, a \
dialog) take a new snapshot; an old ref answers STALE_REFERENCE.
4. Verify, do not assume: `wait` for an element, `expect` to judge the screen once, \
`wait_for_change` after an action with an unknown effect. A wait that times out answers \
status: timeout (expect: success: false); that is an answer, not an error.
5. This connection is a session: its first device call leases the device (udid, else the \
active one; `list_devices` shows leases). Another agent's device answers DEVICE_LEASED naming \
free ones: pass one as udid. `session_info` shows yours; `release_device` gives it back.
6. Alerts and permission dialogs: `alert_accept` / `alert_dismiss`.
7. A failure is a result with isError and text CODE: message hint: ...; follow the hint \
(ELEMENT_NOT_FOUND: snapshot again; AMBIGUOUS_TARGET: act on one of the candidates listed \
under it by ref, or narrow the selector).
8. More operations (apps, files, logs, network, flows, recordings…): `describe` lists them \
and tells one's arguments; `call` runs any by name.";

/// Runs `mobilectl mcp`: MCP on stdin/stdout until the client closes it, in a session that
/// asks for the device `pick` says and ends with it. Returns the exit code.
pub fn run_stdio(options: ConnectOptions, pick: DevicePick, offer: Offer) -> i32 {
    run_on_runtime(|| async move { serve_stdio(options, pick, offer).await })
}

/// Runs `mobilectl mcp --grid HUB`: a W3C session through the hub made from `capabilities`,
/// every tool call sent under it, deleted when stdin closes. Returns the exit code.
pub fn run_stdio_grid(
    hub: &str,
    capabilities: serde_json::Map<String, serde_json::Value>,
    token: Option<String>,
    offer: Offer,
) -> i32 {
    let hub = hub.to_string();
    run_on_runtime(|| async move {
        let (id, base) = match crate::client::grid::open(&hub, &capabilities).await {
            Ok(opened) => opened,
            Err(e) => {
                eprintln!("mobilectl mcp: {}", e.message);
                return exit::FAILED;
            }
        };
        let options = ConnectOptions {
            url: base,
            token,
            autostart: false,
            session: None,
        };
        let pick = DevicePick {
            external: true,
            ..Default::default()
        };
        let code = serve_stdio(options, pick, offer).await;
        crate::client::grid::close(&hub, &id).await;
        code
    })
}

fn run_on_runtime<F, Fut>(work: F) -> i32
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = i32>,
{
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mobilectl mcp: cannot start the async runtime: {e}");
            return exit::FAILED;
        }
    };
    rt.block_on(work())
}

/// MCP on stdin/stdout over the server `options` name, offering the tools `offer` says,
/// until stdin closes; then the connection's session ends (its device is given back at
/// once).
async fn serve_stdio(options: ConnectOptions, pick: DevicePick, offer: Offer) -> i32 {
    let server = McpServer::new(Arc::new(HttpDispatch::new(options)), pick).offering(offer);
    let session = server.session().clone();
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mobilectl mcp: the MCP session did not start: {e}");
            return exit::FAILED;
        }
    };
    let code = match running.waiting().await {
        Ok(_) => exit::OK,
        Err(e) => {
            eprintln!("mobilectl mcp: {e}");
            exit::FAILED
        }
    };
    session.end().await;
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_fit_in_2_kb_and_say_how_to_work() {
        assert!(
            INSTRUCTIONS.len() < 2048,
            "instructions are {} bytes",
            INSTRUCTIONS.len()
        );
        for must in [
            "snapshot",
            "STALE_REFERENCE",
            "wait",
            "expect",
            "pixels on Android",
            "points on iOS",
            "hint",
        ] {
            assert!(INSTRUCTIONS.contains(must), "{must}");
        }
        // Every tool the instructions name is in the default list.
        for word in INSTRUCTIONS.split('`').skip(1).step_by(2) {
            let name = word.split(' ').next().unwrap_or(word);
            assert!(
                Offer::default().find(name).is_some(),
                "instructions name `{name}`"
            );
        }
    }
}
