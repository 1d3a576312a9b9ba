//! THE operation table: every operation of the API, once. The router, the OpenAPI document,
//! the CLI's requests and the MCP tools are all made from these entries; adding an operation
//! is one entry here plus its handler and controller method.
//!
//! Summaries are one line and double as MCP tool descriptions, so they stay short.

use super::errors::{DEVICE, NAMED, TARGET};
use super::operation::{op, HttpMethod::*, Operation};
use crate::error::ErrorCode::*;
use crate::server::routes::{
    actions, alerts, apps, batch, connect, devices, logs, proxy, screenshot, service, simulator,
    system, ui, verify,
};

/// Every operation, in the order the documentation lists them.
pub fn operations() -> Vec<Operation> {
    vec![
        // service
        op(Get, "health", "/health", "service", "Liveness and versions (no token needed).")
            .plain(service::health),
        op(Get, "doctor", "/api/v1/doctor", "service", "Check the device tools: found, path, version, remediation.")
            .plain(service::doctor),
        // devices
        op(Get, "list_devices", "/api/v1/device/list", "devices", "List Android devices, iOS Simulators and iPhones.")
            .describe("A missing tool is not an error: that platform is absent and `tools` says why.")
            .query(devices::list),
        op(Get, "get_active_device", "/api/v1/device/active", "devices", "The device that requests without `udid` go to.")
            .plain(devices::get_active),
        op(Put, "set_active_device", "/api/v1/device/active", "devices", "Choose the active device (`udid: null` forgets it).")
            .errors(&[NoDevice, AmbiguousDevice, ToolMissing, Timeout, CommandFailed])
            .body(devices::put_active),
        op(Post, "boot", "/api/v1/device/boot", "devices", "Boot an iOS Simulator (`udid`) or an Android emulator (`avd`).")
            .errors(DEVICE)
            .errors(NAMED)
            .body(devices::boot),
        op(Post, "shutdown", "/api/v1/device/shutdown", "devices", "Shut down a simulator or an emulator.")
            .errors(DEVICE)
            .body(devices::shutdown),
        op(Post, "connect_device", "/api/v1/device/connect", "devices", "Connect adb to an Android device over the network (host, port).")
            .describe("The only way the server makes adb reach out: a `udid` never does. Loopback addresses \
                       only, unless the server allows more (`--adb-connect-allow CIDR`): else 403 \
                       FORBIDDEN before anything is sent. Refused or unreachable: 503 DEVICE_UNREACHABLE \
                       (`details.reason`); no answer: 504 TIMEOUT; a name that does not resolve: 404 NOT_FOUND.")
            .errors(&[Forbidden, NotFound, DeviceUnreachable, DeviceOffline, ToolMissing, Timeout, CommandFailed, Busy, UnsupportedOnPlatform])
            .body(connect::connect),
        op(Post, "erase", "/api/v1/device/erase", "devices", "Erase an iOS Simulator's content and settings.")
            .describe("A booted simulator is shut down, erased and booted again. Android: 501.")
            .errors(DEVICE)
            .body(simulator::erase),
        // apps
        op(Post, "install_app", "/api/v1/device/app/install", "apps", "Install an app from a path on the server's machine (.apk, .app).")
            .errors(DEVICE)
            .errors(NAMED)
            .body(apps::install),
        op(Post, "launch_app", "/api/v1/device/app/launch", "apps", "Launch an app; reports its launch time.")
            .errors(DEVICE)
            .errors(NAMED)
            .body(apps::launch),
        op(Post, "terminate_app", "/api/v1/device/app/terminate", "apps", "Stop an app.")
            .errors(DEVICE)
            .errors(NAMED)
            .body(apps::terminate),
        op(Post, "reset_app", "/api/v1/device/app/reset", "apps", "Clear an app's data.")
            .errors(DEVICE)
            .errors(NAMED)
            .body(apps::reset),
        op(Get, "list_apps", "/api/v1/device/app/list", "apps", "List installed apps.")
            .errors(DEVICE)
            .query(apps::list),
        op(Post, "open_url", "/api/v1/device/open-url", "apps", "Open a URL or app link on the device.")
            .errors(DEVICE)
            .body(apps::open_url),
        // inspect
        op(Get, "snapshot", "/api/v1/device/ui", "inspect", "Read the screen: elements with refs e1..eN (JSON, or compact text with format=text).")
            .errors(DEVICE)
            .query(ui::ui),
        op(Get, "screen_summary", "/api/v1/device/screen-summary", "inspect", "What is on screen, in brief.")
            .describe("Title, counts by role, interactive elements, alert, keyboard, focused field, scroll containers.")
            .errors(DEVICE)
            .query(ui::screen_summary),
        op(Get, "find", "/api/v1/device/ui/find", "inspect", "Find elements by free text, best match first.")
            .errors(DEVICE)
            .query(ui::find),
        op(Get, "screenshot", "/api/v1/device/screenshot", "inspect", "The screen as PNG or JPEG, optionally scaled.")
            .describe("Headers: `x-original-size`, `x-image-size`, `x-scale`, `x-coordinate-space` (pixels on \
                       Android, points on iOS) and `x-tap-per-image-pixel` (multiply an image pixel \
                       position by it to get tap coordinates).")
            .errors(DEVICE)
            .query(screenshot::screenshot),
        op(Get, "screenshot_annotated", "/api/v1/device/screenshot/annotated", "inspect", "The screen with each ref's box and tag drawn on it.")
            .describe("The refs are those of the snapshot taken at the same moment, which becomes the \
                       device's latest (`x-snapshot-id`). `grid=true` overlays lettered columns and \
                       numbered rows; tap a cell with `{\"grid\": \"C5\"}`.")
            .errors(DEVICE)
            .query(screenshot::annotated),
        // act
        op(Post, "tap", "/api/v1/device/ui/tap", "act", "Tap a ref, a point (x, y), a selector's element or a grid cell.")
            .errors(DEVICE)
            .errors(TARGET)
            .body(actions::tap),
        op(Post, "tap_element", "/api/v1/device/ui/tap-element", "act", "Tap the element with a label, identifier and/or type.")
            .errors(DEVICE)
            .errors(TARGET)
            .body(actions::tap_element),
        op(Post, "long_press", "/api/v1/device/ui/long-press", "act", "Long-press a ref, a point or a selector's element.")
            .errors(DEVICE)
            .errors(TARGET)
            .body(actions::long_press),
        op(Post, "swipe", "/api/v1/device/ui/swipe", "act", "Swipe from a point to a point, or across a target in a direction.")
            .errors(DEVICE)
            .errors(TARGET)
            .body(actions::swipe),
        op(Post, "scroll", "/api/v1/device/ui/scroll", "act", "Scroll a container once (default: the biggest scrollable one).")
            .errors(DEVICE)
            .errors(TARGET)
            .body(actions::scroll),
        op(Post, "scroll_to", "/api/v1/device/ui/scroll-to", "act", "Scroll until a selector's element is in view.")
            .errors(DEVICE)
            .errors(TARGET)
            .body(actions::scroll_to),
        op(Post, "type_text", "/api/v1/device/ui/type", "act", "Type text into the focused field or a target; reads the field back.")
            .errors(DEVICE)
            .errors(TARGET)
            .errors(&[UnsupportedText])
            .body(actions::type_text),
        op(Post, "press", "/api/v1/device/ui/press", "act", "Press a key: back, home, enter, delete, tab, volume_up… or an Android key code.")
            .errors(DEVICE)
            .errors(&[AlertBlocking, ElementNotInteractable])
            .body(actions::press),
        op(Post, "hide_keyboard", "/api/v1/device/ui/hide-keyboard", "act", "Hide the on-screen keyboard if it is up.")
            .errors(DEVICE)
            .errors(&[AlertBlocking, ElementNotInteractable])
            .body(actions::hide_keyboard),
        op(Post, "batch", "/api/v1/device/batch", "act", "Run act and verify steps in order under one hold of the device; stop at a failure.")
            .describe("Each step is `{op, body}`: an act or verify operation and its body as its own route takes \
                       it (without `udid`). All steps are checked before the first runs; each answers what \
                       its route answers. With `observe`, one read at the end and what changed over the batch.")
            .errors(DEVICE)
            .body(batch::batch),
        // verify
        op(Post, "wait", "/api/v1/device/ui/wait", "verify", "Wait until a selector's element meets a condition (a timeout is an answer).")
            .errors(DEVICE)
            .body(verify::wait),
        op(Post, "expect", "/api/v1/device/ui/expect", "verify", "Judge the screen once: element visible or not, text, app, activity, fingerprint.")
            .errors(DEVICE)
            .body(verify::expect),
        op(Post, "wait_for_change", "/api/v1/device/ui/wait-for-change", "verify", "Wait until the screen differs from a fingerprint, then confirm it settled.")
            .errors(DEVICE)
            .body(verify::wait_for_change),
        op(Post, "alert_accept", "/api/v1/device/alert/accept", "verify", "Accept the alert on screen (Allow, OK…) or tap its `button`.")
            .errors(DEVICE)
            .errors(&[NoAlert, ElementNotFound])
            .body(alerts::accept),
        op(Post, "alert_dismiss", "/api/v1/device/alert/dismiss", "verify", "Dismiss the alert on screen (Don't allow, Cancel…) or tap its `button`.")
            .errors(DEVICE)
            .errors(&[NoAlert, ElementNotFound])
            .body(alerts::dismiss),
        // system
        op(Post, "set_location", "/api/v1/device/location", "system", "Set or clear the simulated GPS location.")
            .errors(DEVICE)
            .body(system::location),
        op(Post, "set_permission", "/api/v1/device/permission", "system", "Grant, revoke or reset an app permission.")
            .errors(DEVICE)
            .errors(NAMED)
            .body(system::permission),
        op(Post, "status_bar", "/api/v1/device/status-bar", "system", "Override (or clear) an iOS Simulator's status bar.")
            .errors(DEVICE)
            .body(simulator::status_bar),
        // network
        op(Post, "proxy_start", "/api/v1/proxy/start", "network", "Start the recording proxy.")
            .describe("Listens on 127.0.0.1 at the server's `--proxy-port` unless `port` is given (0: \
                       any free port). `passthrough`: more hosts tunnelled without decryption. \
                       Running already: its status, unchanged, with a note.")
            .errors(&[PortInUse, Unknown])
            .body(proxy::start),
        op(Post, "proxy_stop", "/api/v1/proxy/stop", "network", "Stop the proxy (detaches devices first).")
            .body(proxy::stop),
        op(Get, "proxy_status", "/api/v1/proxy/status", "network", "Proxy state: address, CA, devices.")
            .plain(proxy::status),
        op(Get, "proxy_ca", "/api/v1/proxy/ca.pem", "network", "The proxy CA certificate (PEM).")
            .describe("Made once and kept in the state directory; its private key is never served.")
            .errors(&[Unknown])
            .plain(proxy::ca_pem),
        op(Post, "proxy_attach", "/api/v1/proxy/attach", "network", "Route a device's traffic through the proxy.")
            .describe("Android: `adb reverse tcp:P tcp:P` and `settings put global http_proxy \
                       127.0.0.1:P` (the previous value is restored on detach). iOS Simulator: the \
                       CA is added to its keychain; it uses the Mac's proxy settings, which `todo` \
                       says how to set. HTTPS needs the device to trust the CA: see `todo`.")
            .errors(DEVICE)
            .errors(&[PortInUse, Unknown])
            .body(proxy::attach),
        op(Post, "proxy_detach", "/api/v1/proxy/detach", "network", "Undo proxy_attach.")
            .errors(DEVICE)
            .body(proxy::detach),
        op(Get, "list_flows", "/api/v1/proxy/flows", "network", "Recorded network requests, filtered.")
            .describe("Oldest first. `host`: that host or a domain with its subdomains; `status`: `404` \
                       or a class `4xx`; `failed`: no answer, 4xx or 5xx; `contains`: text in \
                       the URL; `since`: after a flow id, since an RFC 3339 time or a while ago \
                       (`5m`). Without `since`: the newest `limit` (default 100, at most 1000); \
                       with it: the first `limit` after it, then go on with `since=next_cursor`.")
            .query(proxy::list),
        op(Get, "get_flow", "/api/v1/proxy/flows/{id}", "network", "One request: headers, bodies, timing.")
            .describe("Secret headers (Authorization, Cookie, Set-Cookie, Proxy-Authorization) are \
                       redacted unless `reveal=true` on a loopback server. `body=request|response` \
                       answers that body's bytes (decoded) in its own content type.")
            .errors(&[NotFound, Forbidden])
            .query(proxy::get),
        op(Get, "stream_flows", "/api/v1/proxy/flows/stream", "network", "New requests as Server-Sent Events.")
            .describe("The filters of list_flows; with `since`, the matching flows after it first; \
                       `limit`: end after that many.")
            .query(proxy::stream),
        op(Get, "get_flow_summary", "/api/v1/proxy/summary", "network", "Network summary: hosts, failures, slowest.")
            .describe("`since` and `host` as for list_flows.")
            .query(proxy::summary),
        op(Delete, "clear_flows", "/api/v1/proxy/flows", "network", "Forget recorded requests.")
            .plain(proxy::clear),
        // logs
        op(Get, "tail_logs", "/api/v1/logs", "logs", "The device log's newest entries, or those after `since`.")
            .describe("Filters: `level` (minimum), `tag`, `app`, `contains`, `regex`. The answer's \
                       `cursor`, passed as `since`, reads on from there.")
            .errors(DEVICE)
            .query(logs::tail),
        op(Get, "stream_logs", "/api/v1/logs/stream", "logs", "Follow the device log as Server-Sent Events.")
            .describe("The filters of GET /api/v1/logs. Each entry is an `entry` event whose `id` \
                       resumes the stream (`Last-Event-ID`) without gaps or repeats; a reader that \
                       fell behind gets a `dropped` event; a comment every 15 s keeps the \
                       connection open. `limit` ends the stream after that many entries.")
            .errors(DEVICE)
            .query(logs::stream),
        op(Get, "list_crashes", "/api/v1/logs/crashes", "logs", "Crashes and ANRs, newest first.")
            .errors(DEVICE)
            .query(logs::crashes),
        op(Get, "get_crash", "/api/v1/logs/crashes/{id}", "logs", "One crash or ANR with its full text.")
            .errors(DEVICE)
            .errors(NAMED)
            .query(logs::crash),
        op(Get, "debug_bundle", "/api/v1/debug/bundle", "logs", "Screen, screenshot, app errors and crashes in one answer.")
            .errors(DEVICE)
            .describe("When something went wrong: the device, the foreground app, the compact tree, a \
                       scaled JPEG screenshot (base64), the app's last warnings and errors, and \
                       the crashes since `since`. Parts that cannot be read are listed in `problems`.")
            .query(logs::bundle),
    ]
}
