//! The CLI form of every operation of the API table: how a user writes it (`usage`, used to
//! turn the server's route mentions into commands in hints) and one command line that plans
//! to it (`example`, checked by a test against [`crate::api::operations`], so an operation
//! without a CLI form fails the build's tests).

/// One operation's command line.
pub struct Form {
    /// The operation's name in the API table.
    pub op: &'static str,
    /// The command as a user writes it, without the leading `mobilectl`.
    pub usage: &'static str,
    /// A command line that plans to `op` (without the leading `mobilectl`).
    pub example: &'static [&'static str],
}

const fn form(op: &'static str, usage: &'static str, example: &'static [&'static str]) -> Form {
    Form { op, usage, example }
}

/// Every operation's CLI form.
pub const FORMS: &[Form] = &[
    form("health", "health", &["health"]),
    form("doctor", "doctor", &["doctor"]),
    form("list_devices", "devices", &["devices"]),
    form("get_active_device", "active", &["active"]),
    form("set_active_device", "use UDID", &["use", "emulator-5554"]),
    form("boot", "boot UDID", &["boot", "--avd", "Pixel_7"]),
    form("shutdown", "shutdown", &["shutdown"]),
    form(
        "connect_device",
        "connect HOST:PORT",
        &["connect", "192.168.1.20:5555"],
    ),
    form("erase", "erase", &["erase", "iPhone 15"]),
    form(
        "install_app",
        "app install PATH",
        &["app", "install", "/tmp/a.apk"],
    ),
    form(
        "launch_app",
        "app launch BUNDLE_ID",
        &["app", "launch", "com.example"],
    ),
    form(
        "terminate_app",
        "app terminate BUNDLE_ID",
        &["app", "terminate", "com.example"],
    ),
    form(
        "reset_app",
        "app reset BUNDLE_ID",
        &["app", "reset", "com.example"],
    ),
    form("list_apps", "app list", &["app", "list"]),
    form("open_url", "open URL", &["open", "https://example.com"]),
    form("snapshot", "snapshot", &["snapshot", "-i"]),
    form("screen_summary", "summary", &["summary"]),
    form("find", "find QUERY", &["find", "log in"]),
    form("screenshot", "screenshot", &["screenshot", "-o", "s.png"]),
    form(
        "screenshot_annotated",
        "screenshot --annotate",
        &["screenshot", "--annotate"],
    ),
    form("tap", "tap TARGET", &["tap", "@e1"]),
    form(
        "tap_element",
        "tap-element LABEL",
        &["tap-element", "LOG IN"],
    ),
    form("long_press", "long-press TARGET", &["long-press", "10,20"]),
    form("swipe", "swipe FROM TO", &["swipe", "1,2", "3,4"]),
    form("scroll", "scroll", &["scroll"]),
    form(
        "scroll_to",
        "scroll-to SELECTOR",
        &["scroll-to", "text:Order"],
    ),
    form("type_text", "type TARGET TEXT", &["type", "@e1", "hi"]),
    form("press", "press KEY", &["press", "back"]),
    form("hide_keyboard", "hide-keyboard", &["hide-keyboard"]),
    form(
        "batch",
        "batch FILE",
        &["batch", "--step", "tap @e1", "--step", "wait text:OK"],
    ),
    form("wait", "wait SELECTOR", &["wait", "text:OK"]),
    form("expect", "expect", &["expect", "app", "com.example"]),
    form("wait_for_change", "wait-for-change", &["wait-for-change"]),
    form("alert_accept", "alert accept", &["alert", "accept"]),
    form("alert_dismiss", "alert dismiss", &["alert", "dismiss"]),
    form(
        "set_location",
        "location LAT LON",
        &["location", "1.5", "2.5"],
    ),
    form(
        "set_permission",
        "permission grant BUNDLE_ID PERMISSION",
        &["permission", "grant", "com.example", "camera"],
    ),
    form(
        "status_bar",
        "status-bar",
        &["status-bar", "--time", "9:41"],
    ),
    form("proxy_start", "proxy start", &["proxy", "start"]),
    form("proxy_stop", "proxy stop", &["proxy", "stop"]),
    form("proxy_status", "proxy status", &["proxy", "status"]),
    form("proxy_ca", "proxy ca", &["proxy", "ca", "-o", "ca.pem"]),
    form("proxy_attach", "proxy attach", &["proxy", "attach"]),
    form("proxy_detach", "proxy detach", &["proxy", "detach"]),
    form(
        "list_flows",
        "proxy flows",
        &["proxy", "flows", "--status", "4xx"],
    ),
    form("get_flow", "proxy flow ID", &["proxy", "flow", "12"]),
    form(
        "stream_flows",
        "proxy flows --follow",
        &["proxy", "flows", "--follow"],
    ),
    form("get_flow_summary", "proxy summary", &["proxy", "summary"]),
    form("clear_flows", "proxy clear", &["proxy", "clear"]),
    form("tail_logs", "logs", &["logs", "--level", "W"]),
    form(
        "stream_logs",
        "logs -f",
        &["logs", "-f", "--app", "com.example"],
    ),
    form("list_crashes", "crashes", &["crashes", "--since", "1h"]),
    form("get_crash", "crashes ID", &["crashes", "c0123456789ab"]),
    form(
        "debug_bundle",
        "debug-bundle",
        &["debug-bundle", "-o", "/tmp/bundle"],
    ),
];

/// How a user writes operation `op`.
pub fn usage(op: &str) -> Option<&'static str> {
    FORMS.iter().find(|f| f.op == op).map(|f| f.usage)
}
