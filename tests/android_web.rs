//! Web content on the virtual device through the real adb. The demo's `web` screen is a
//! WebView backed by a real headless Chromium whose DevTools the device serves on
//! `webview_devtools_remote_PID`, as a debug build's WebView does: its page is read into the
//! snapshot with refs, acted on by refs and CSS selectors, verified with `expect`; a WebView
//! that cannot be debugged is said in the notes with the fix; Chromium killed, a page that
//! navigates while it is read and a page of 20,000 elements answer bounded snapshots.

use axum::http::StatusCode;
use serde_json::{json, Value};

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
    // Nothing answers behind that socket: the page cannot be attached, said as such.
    let unreachable = snapshot(&app).await;
    let notes = unreachable["notes"].as_array().expect("a note");
    assert_eq!(notes.len(), 1, "{unreachable}");
    let note = notes[0].as_str().unwrap();
    assert!(
        note.contains("could not be attached over DevTools"),
        "{note}"
    );
    assert!(!note.contains("setWebContentsDebuggingEnabled"), "{note}");
}

fn snapshot_text(v: &Value) -> &str {
    v["tree_text"].as_str().unwrap_or_default()
}

/// The element of `snapshot` whose web `id` is `id`.
fn web_element<'a>(snapshot: &'a Value, id: &str) -> &'a Value {
    snapshot["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id && e["class"].as_str().is_some_and(|c| c.starts_with("html:")))
        .unwrap_or_else(|| panic!("no web element #{id} in {}", snapshot_text(snapshot)))
}

/// The web screen with its page read (Chromium started by the device when the screen shows).
async fn web_screen(h: &virtual_device::testing::VdHarness, app: &axum::Router) -> Value {
    h.control(&["screen", "web"]).unwrap();
    let v = snapshot(app).await;
    assert!(v.get("notes").is_none(), "{v}");
    v
}

fn eval(h: &virtual_device::testing::VdHarness, js: &str) -> Value {
    let out = h.control(&["web", "eval", js]).unwrap();
    serde_json::from_str(out.trim()).unwrap_or(Value::String(out.trim().to_string()))
}

async fn act(app: &axum::Router, route: &str, body: Value) -> (StatusCode, Value) {
    call(app, post(&format!("/api/v1/device/ui/{route}"), body)).await
}

#[tokio::test]
async fn the_web_login_is_read_with_refs_signed_in_by_them_and_verified() {
    let h = start_device();
    let app = app_for(&h);
    let page = web_screen(&h, &app).await;
    let text = snapshot_text(&page);
    // One tree: the native toolbar, the WebView with the page's title, the form inside it.
    assert!(text.contains("webview \"Help centre sign-in\""), "{text}");
    let email = web_element(&page, "email");
    assert_eq!(email["role"], "textbox");
    assert_eq!(email["class"], "html:input");
    assert!(email["ref"].is_string(), "{email}");
    let webview = page["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["role"] == "webview")
        .unwrap();
    assert!(
        webview["value"].as_str().unwrap().contains("login"),
        "the page's URL: {webview}"
    );
    // Inside the WebView's bounds, in screen pixels.
    let (wy, ey) = (
        webview["bounds"]["y"].as_f64().unwrap(),
        email["bounds"]["y"].as_f64().unwrap(),
    );
    assert!(ey > wy, "{email} {webview}");
    assert!(web_element(&page, "password")["states"]["password"] == true);
    let submit = web_element(&page, "submit");
    assert_eq!(submit["role"], "button");

    // Typing by refs: the finger taps the field, the keyboard types, the page has the value.
    for (id, value) in [("email", "ana@example.com"), ("password", "secret")] {
        let (status, typed) = act(
            &app,
            "type",
            json!({"ref": web_element(&page, id)["ref"], "text": value}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{typed}");
        if id == "email" {
            assert_eq!(
                typed["details"]["readback"], value,
                "read back from the page: {typed}"
            );
            assert_eq!(typed["details"]["matched"], true, "{typed}");
        }
        let got = eval(&h, &format!("document.getElementById('{id}').value"));
        assert_eq!(got, value, "the page's field has what was typed");
    }
    let (_, filled) = act(&app, "expect", json!({"kind": "element_has_text", "selector": {"css": "#email"}, "text": "ana@example.com"})).await;
    assert_eq!(filled["success"], true, "read back from the page: {filled}");

    // A tap on Sign in is a touch the page sees; the page navigates, the fingerprint follows.
    let before = snapshot(&app).await;
    let (status, tapped) = act(
        &app,
        "tap",
        json!({"ref": web_element(&before, "submit")["ref"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tapped}");
    let (_, welcome) = act(
        &app,
        "wait",
        json!({"selector": {"text": "Welcome, ana@example.com"}, "condition": "exists", "timeout_ms": 10000}),
    )
    .await;
    assert_eq!(welcome["status"], "success", "{welcome}");
    let (_, verdict) = act(
        &app,
        "expect",
        json!({"kind": "element_visible", "selector": {"role": "heading", "text": "Welcome, ana@example.com"}}),
    )
    .await;
    assert_eq!(verdict["success"], true, "{verdict}");
    let after = snapshot(&app).await;
    assert_ne!(after["fingerprint"], before["fingerprint"]);
    // The sign-in button's ref is from the page before: stale now.
    let (status, stale) = act(
        &app,
        "tap",
        json!({"ref": web_element(&before, "submit")["ref"], "snapshot_id": before["snapshot_id"]}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{stale}");
    assert_eq!(error_code(&stale), "STALE_REFERENCE");
}

#[tokio::test]
async fn a_css_selector_finds_the_element_its_ref_names() {
    let h = start_device();
    let app = app_for(&h);
    let page = web_screen(&h, &app).await;
    let (_, found) = act(
        &app,
        "expect",
        json!({"kind": "element_visible", "selector": {"css": "form #submit"}}),
    )
    .await;
    assert_eq!(found["success"], true, "{found}");
    assert_eq!(
        found["observed"]["first"]["ref"],
        web_element(&page, "submit")["ref"],
        "{found}"
    );
    // CSS that matches several elements is ambiguous, as any selector.
    let (status, several) = act(&app, "tap", json!({"selector": {"css": "input"}})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{several}");
    // Tapping by CSS focuses the field in the page.
    let (status, tapped) = act(&app, "tap", json!({"selector": {"css": "#password"}})).await;
    assert_eq!(status, StatusCode::OK, "{tapped}");
    assert_eq!(eval(&h, "document.activeElement.id"), "password");
    // Bad CSS is the caller's mistake, said by the page; on a native screen CSS finds nothing.
    let (status, bad) = act(&app, "tap", json!({"selector": {"css": "###"}})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    assert!(
        bad["error"]["message"].as_str().unwrap().contains("###"),
        "{bad}"
    );
    h.control(&["screen", "login"]).unwrap();
    snapshot(&app).await;
    let (_, none) = act(
        &app,
        "expect",
        json!({"kind": "element_visible", "selector": {"css": "#email"}}),
    )
    .await;
    assert_eq!(none["success"], false, "{none}");
}

#[tokio::test]
async fn chromium_killed_leaves_the_native_part_and_a_note() {
    let h = start_device();
    let app = app_for(&h);
    web_screen(&h, &app).await;
    // Killed while a read may be under way: the read answers either way.
    let reading = {
        let app = app.clone();
        tokio::spawn(async move { call(&app, get("/api/v1/device/ui")).await })
    };
    h.control(&["web", "kill"]).unwrap();
    let (status, during) = reading.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{during}");
    let after = snapshot(&app).await;
    assert!(
        snapshot_text(&after).contains("Navigate up"),
        "the native part: {after}"
    );
    assert!(!snapshot_text(&after).contains("Sign in"), "{after}");
    let notes = after["notes"].as_array().expect("a note");
    assert_eq!(notes.len(), 1, "{after}");
}

#[tokio::test]
async fn a_page_that_navigates_while_it_is_read_still_answers() {
    let h = start_device();
    let app = app_for(&h);
    web_screen(&h, &app).await;
    // The page reloads itself every few milliseconds from now on.
    eval(&h, "setInterval(() => location.reload(), 5); 1");
    for _ in 0..5 {
        let v = snapshot(&app).await;
        assert!(snapshot_text(&v).contains("Navigate up"), "{v}");
    }
}

#[tokio::test]
async fn a_page_of_twenty_thousand_elements_is_cut_and_said() {
    let h = start_device();
    let app = app_for(&h);
    web_screen(&h, &app).await;
    h.control(&["web", "big", "20000"]).unwrap();
    let (_, waited) = act(&app, "wait-for-change", json!({"timeout_ms": 10000})).await;
    assert_eq!(waited["status"], "changed", "{waited}");
    let v = snapshot(&app).await;
    let web = v["elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["class"].as_str().is_some_and(|c| c.starts_with("html:")))
        .count();
    assert!(web > 0 && web <= 2000, "{web} web elements listed");
    let notes = v["notes"].as_array().expect("the cut is said");
    let note = notes[0].as_str().unwrap();
    assert!(note.contains("is large (19"), "{note}");
    assert!(note.contains("within a screen of what it shows"), "{note}");
    // What the screen shows is there: the heading and the first articles.
    let text = snapshot_text(&v);
    assert!(
        text.contains("All articles") && text.contains("link \"Article 1\""),
        "{text}"
    );
    // The compact text stays a screen's worth.
    let (_, _, text) = get_raw(&app, "/api/v1/device/ui?format=text").await;
    assert!(text.len() < 20_000, "{} bytes", text.len());
}

#[tokio::test]
async fn what_the_page_logs_and_throws_is_in_the_logs_and_crashes() {
    let h = start_device();
    let app = app_for(&h);
    web_screen(&h, &app).await;
    // An empty form's submit logs a line; "Report a problem" throws an uncaught TypeError.
    let (status, submitted) = act(&app, "tap", json!({"selector": {"css": "#submit"}})).await;
    assert_eq!(status, StatusCode::OK, "{submitted}");
    let (status, reported) = act(&app, "tap", json!({"selector": {"css": "#report"}})).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a page's error does not fail the tap: {reported}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let entries = loop {
        let (status, page) = call(&app, get("/api/v1/logs?tag=web")).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let entries: Vec<String> = page["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["message"].as_str().unwrap().to_string())
            .collect();
        if entries.iter().any(|m| m.contains("Uncaught TypeError"))
            || std::time::Instant::now() > deadline
        {
            break entries;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let logged = entries
        .iter()
        .find(|m| m.contains("sign-in submitted for (no email)"))
        .unwrap_or_else(|| panic!("the console line: {entries:?}"));
    assert!(
        logged.starts_with("[file://") && logged.contains("login.html]"),
        "{logged}"
    );
    assert!(
        entries.iter().any(|m| m.contains("Uncaught TypeError")),
        "{entries:?}"
    );
    let (status, crashes) = call(&app, get("/api/v1/logs/crashes")).await;
    assert_eq!(status, StatusCode::OK, "{crashes}");
    let page_error = crashes["crashes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "page_error")
        .unwrap_or_else(|| panic!("a page_error among {crashes}"));
    assert_eq!(page_error["app"], "com.mobilectl.demo");
    let (status, one) = call(
        &app,
        get(&format!(
            "/api/v1/logs/crashes/{}",
            page_error["id"].as_str().unwrap()
        )),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{one}");
    let text = one.to_string();
    assert!(
        text.contains("TypeError") && text.contains("requestSubmit"),
        "{one}"
    );
}

#[tokio::test]
async fn scroll_to_brings_web_content_below_the_fold_into_view() {
    let h = start_device();
    let app = app_for(&h);
    let page = web_screen(&h, &app).await;
    let footer = "Terms of service and privacy notice";
    assert!(
        !snapshot_text(&page).contains(footer),
        "below the fold at first: {}",
        snapshot_text(&page)
    );
    let (status, body) = act(
        &app,
        "scroll-to",
        json!({"selector": {"text": footer}, "max_scrolls": 6}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["details"]["scrolls"].as_u64().unwrap() >= 1, "{body}");
    // The page scrolled (a swipe inside the WebView is a finger's drag on the page).
    let scrolled = eval(&h, "window.scrollY");
    assert!(scrolled.as_f64().unwrap() > 0.0, "{scrolled}");
    let now = snapshot(&app).await;
    assert!(
        snapshot_text(&now).contains(footer),
        "{}",
        snapshot_text(&now)
    );
}

#[tokio::test]
async fn a_chrome_custom_tab_is_read_through_chromes_own_socket() {
    let h = start_device();
    let app = app_for(&h);
    h.control(&["screen", "tab"]).unwrap();
    let tab = snapshot(&app).await;
    assert!(tab.get("notes").is_none(), "{tab}");
    assert_eq!(
        tab["activity"],
        "com.android.chrome/org.chromium.chrome.browser.customtabs.CustomTabActivity"
    );
    let text = snapshot_text(&tab);
    // Chrome's toolbar, then the page under Chrome's WebView, with refs.
    assert!(text.contains("Close tab"), "{text}");
    assert!(text.contains("webview \"Help centre sign-in\""), "{text}");
    let email = web_element(&tab, "email");
    assert!(email["ref"].is_string(), "{email}");
    let (status, typed) = act(
        &app,
        "type",
        json!({"selector": {"css": "#email"}, "text": "tab@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{typed}");
    assert_eq!(
        eval(&h, "document.getElementById('email').value"),
        "tab@example.com"
    );
    // Closing the tab: back to the app, the page gone from the tree.
    let (status, closed) = act(&app, "tap", json!({"selector": {"label": "Close tab"}})).await;
    assert_eq!(status, StatusCode::OK, "{closed}");
    let back = snapshot(&app).await;
    assert!(
        !snapshot_text(&back).contains("webview"),
        "{}",
        snapshot_text(&back)
    );
    assert!(back.get("notes").is_none(), "{back}");
}
