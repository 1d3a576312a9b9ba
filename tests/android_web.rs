//! Web content on the virtual device through the real adb: a WebView that shows nothing of
//! its page (the demo's `web` screen with the app's WebView debugging off, `web debug off`,
//! so no Chromium stands behind it) is said in the snapshot's notes with the fix when its app
//! has no DevTools socket, and not once the app listens on `webview_devtools_remote_PID` (an
//! abstract socket the device lists in `/proc/net/unix`); a screen without a WebView reads no
//! socket list.

use axum::http::StatusCode;
use serde_json::Value;

use crate::common::android::*;
use crate::common::*;

async fn snapshot(app: &axum::Router) -> Value {
    let (status, v) = call(app, get("/api/v1/device/ui")).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

fn socket_lists_since(h: &virtual_device::testing::VdHarness, mark: u64) -> usize {
    services_since(h, mark)
        .iter()
        .filter(|s| s.contains("/proc/net/unix"))
        .count()
}

#[tokio::test]
async fn a_webview_that_shows_nothing_and_cannot_be_debugged_is_said_with_the_fix() {
    let h = start_device();
    let app = app_for(&h);
    let mark = journal_mark(&h);
    let login = snapshot(&app).await;
    assert!(login.get("notes").is_none(), "{login}");
    assert_eq!(
        socket_lists_since(&h, mark),
        0,
        "no WebView: no socket list read"
    );

    // A release build's WebView: not debuggable, no DevTools socket, no page to read.
    h.control(&["web", "debug", "off"]).unwrap();
    h.control(&["screen", "web"]).unwrap();
    let web = snapshot(&app).await;
    let notes = web["notes"].as_array().expect("a note about the WebView");
    assert_eq!(notes.len(), 1, "{web}");
    let note = notes[0].as_str().unwrap();
    assert!(note.contains("com.mobilectl.demo"), "{note}");
    assert!(
        note.contains("setWebContentsDebuggingEnabled(true)"),
        "{note}"
    );
    let (status, _, text) = get_raw(&app, "/api/v1/device/ui?format=text").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        String::from_utf8(text)
            .unwrap()
            .contains("# note: a WebView of `com.mobilectl.demo`"),
        "the compact text says it too"
    );

    // The app enables debugging: its WebView listens on webview_devtools_remote_PID.
    let pid = h
        .adb(&["shell", "pidof", "com.mobilectl.demo"])
        .stdout_text()
        .trim()
        .to_string();
    assert!(!pid.is_empty());
    let socket = format!("localabstract:webview_devtools_remote_{pid}");
    let forwarded = h.adb(&["reverse", &socket, "tcp:9"]);
    assert!(forwarded.success(), "{}", forwarded.stderr_text());
    let listed = h.adb(&["shell", "cat", "/proc/net/unix"]).stdout_text();
    assert!(
        listed.contains(&format!("@webview_devtools_remote_{pid}")),
        "{listed}"
    );
    let debuggable = snapshot(&app).await;
    assert!(debuggable.get("notes").is_none(), "{debuggable}");
}
