//! The demo's WebView backed by a real headless Chromium, through the real adb: the DevTools
//! socket `webview_devtools_remote_<pid>` in `/proc/net/unix` and behind `adb forward`
//! (`/json/list`, `/json/version`, the page's WebSocket), its lifecycle (`web kill`, the
//! screen shown anew, force-stop, `web debug off`), screenshots of the page, and taps, swipes,
//! text and keys reaching it as a finger and a keyboard would; and the demo's Chrome Custom
//! Tab (`screen tab`), whose page is Chrome's, on `chrome_devtools_remote`.
//!
//! These tests need Chromium on the host (`apt-get install chromium`, or `MOBILECTL_CHROMIUM`);
//! without it they fail saying so.
#![cfg(unix)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;
use virtual_device::testing::{wait_until, VdHarness};

const BIN: &str = env!("CARGO_BIN_EXE_vd-test-device");
const PACKAGE: &str = "com.mobilectl.demo";
/// The WebView's bounds on the demo's web screen, and the device's scale (420 dpi).
const WEBVIEW_TOP: f64 = 252.0;
const DPR: f64 = 2.625;
/// The pages' background.
const PAGE_BACKGROUND: [u8; 3] = [0xe8, 0xf0, 0xfe];

/// Fails (never skips) when the host has no Chromium for the device to run.
fn need_chromium() {
    let named = std::env::var_os("MOBILECTL_CHROMIUM").filter(|p| !p.is_empty());
    let found = match named {
        Some(p) => {
            std::path::Path::new(&p).is_file()
                || virtual_device::sandbox::find_host_program(&p.to_string_lossy()).is_some()
        }
        None => ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .any(|n| virtual_device::sandbox::find_host_program(n).is_some()),
    };
    assert!(
        found,
        "the WebView tests need a real Chromium on this host: apt-get install chromium (or set MOBILECTL_CHROMIUM to one)"
    );
}

/// A device showing the web screen, its Chromium running.
fn web_device() -> VdHarness {
    need_chromium();
    let vd = VdHarness::start(BIN, &[]).expect("virtual device + adb");
    vd.control(&["screen", "web"]).unwrap();
    let web = &vd.state()["web"];
    assert_eq!(web["running"], true, "Chromium did not start: {web}");
    vd
}

fn app_pid(vd: &VdHarness) -> String {
    let out = vd.adb(&["shell", "pidof", PACKAGE]);
    assert!(out.success(), "{out:?}");
    out.stdout_text().trim().to_string()
}

fn unix_sockets(vd: &VdHarness) -> String {
    vd.adb(&["shell", "cat", "/proc/net/unix"]).stdout_text()
}

fn listed(vd: &VdHarness, pid: &str) -> bool {
    unix_sockets(vd).contains(&format!("@webview_devtools_remote_{pid}\n"))
}

/// `adb forward tcp:0 localabstract:webview_devtools_remote_<pid>`: the host port.
fn forward(vd: &VdHarness, pid: &str) -> u16 {
    let out = vd.adb(&[
        "forward",
        "tcp:0",
        &format!("localabstract:webview_devtools_remote_{pid}"),
    ]);
    assert!(out.success(), "{out:?}");
    out.stdout_text().trim().parse().unwrap()
}

/// `GET path` over HTTP/1.1 (the body read to its Content-Length); an error when the
/// connection closed without an answer (a refused forward).
fn http_get(port: u16, path: &str) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n")?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(split) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..split]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= split + 4 + len {
                let status = head
                    .split_whitespace()
                    .nth(1)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let body = String::from_utf8_lossy(&buf[split + 4..split + 4 + len]);
                return Ok((status, body.into_owned()));
            }
        }
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::Error::other(format!(
                "closed without an answer: {:?}",
                String::from_utf8_lossy(&buf)
            )));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// `web eval JS`: the value.
fn eval(vd: &VdHarness, js: &str) -> Value {
    let out = vd.control(&["web", "eval", js]).unwrap();
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{js}: {out:?}: {e}"))
}

/// The screen point (pixels) at the centre of the page's element `#id`.
fn centre(vd: &VdHarness, id: &str) -> (i64, i64) {
    let r = eval(
        vd,
        &format!("(() => {{ const r = document.getElementById('{id}').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"),
    );
    let (x, y) = (r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
    (
        (x * DPR).round() as i64,
        (WEBVIEW_TOP + y * DPR).round() as i64,
    )
}

fn tap(vd: &VdHarness, (x, y): (i64, i64)) {
    let out = vd.adb(&["shell", "input", "tap", &x.to_string(), &y.to_string()]);
    assert!(out.success(), "{out:?}");
}

fn shell(vd: &VdHarness, args: &[&str]) {
    let mut all = vec!["shell"];
    all.extend_from_slice(args);
    let out = vd.adb(&all);
    assert!(out.success(), "{out:?}");
}

fn screenshot(vd: &VdHarness) -> image::RgbaImage {
    let out = vd.adb(&["exec-out", "screencap", "-p"]);
    assert!(out.success(), "{out:?}");
    image::load_from_memory(&out.stdout).unwrap().to_rgba8()
}

fn web_journal(vd: &VdHarness) -> Vec<String> {
    vd.journal()
        .iter()
        .filter_map(|l| l["web"].as_str().map(str::to_string))
        .collect()
}

/// A DevTools WebSocket client of the page, as the product's is.
struct Ws {
    rt: tokio::runtime::Runtime,
    ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    next: u64,
}

impl Ws {
    fn connect(url: &str) -> Ws {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (ws, _) = rt
            .block_on(async {
                tokio::time::timeout(
                    Duration::from_secs(10),
                    tokio_tungstenite::connect_async(url),
                )
                .await
            })
            .unwrap()
            .unwrap();
        Ws { rt, ws, next: 1 }
    }

    /// The next message `pick` accepts (within 10 s).
    fn until(&mut self, mut pick: impl FnMut(&Value) -> bool) -> Value {
        let ws = &mut self.ws;
        let next = async {
            loop {
                let Some(Ok(Message::Text(t))) = ws.next().await else {
                    panic!("the WebSocket closed");
                };
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if pick(&v) {
                    return v;
                }
            }
        };
        self.rt
            .block_on(async { tokio::time::timeout(Duration::from_secs(10), next).await })
            .expect("no such message within 10 s")
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let msg = json!({"id": id, "method": method, "params": params}).to_string();
        let ws = &mut self.ws;
        self.rt
            .block_on(async { ws.send(Message::text(msg)).await })
            .unwrap();
        let v = self.until(|v| v["id"] == id);
        assert!(v.get("error").is_none(), "{method}: {v}");
        v["result"].clone()
    }
}

#[test]
fn the_devtools_socket_serves_the_page_and_goes_with_chromium() {
    let vd = web_device();
    let pid = app_pid(&vd);
    assert!(listed(&vd, &pid), "{}", unix_sockets(&vd));
    let port = forward(&vd, &pid);

    // What chrome://inspect reads: the page, with its WebSocket on the forwarded port.
    let (status, body) = http_get(port, "/json/list").unwrap();
    assert_eq!(status, 200, "{body}");
    let list: Value = serde_json::from_str(&body).unwrap();
    let pages: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"] == "page")
        .collect();
    assert_eq!(pages.len(), 1, "{list}");
    let page = pages[0];
    assert_eq!(page["title"], "Help centre sign-in");
    assert!(
        page["url"].as_str().unwrap().starts_with("file:///")
            && page["url"].as_str().unwrap().ends_with("/login.html"),
        "{page}"
    );
    let ws_url = page["webSocketDebuggerUrl"].as_str().unwrap();
    assert!(
        ws_url.starts_with(&format!("ws://127.0.0.1:{port}/devtools/page/")),
        "{ws_url}"
    );
    let (status, version) = http_get(port, "/json/version").unwrap();
    assert_eq!(status, 200);
    let version: Value = serde_json::from_str(&version).unwrap();
    assert!(
        version["Browser"].as_str().unwrap().contains("Chrome/"),
        "{version}"
    );

    // The page's WebSocket through the forward: evaluate, and the page's console and errors.
    let mut ws = Ws::connect(ws_url);
    let h1 = ws.call(
        "Runtime.evaluate",
        json!({"expression": "document.querySelector('h1').textContent", "returnByValue": true}),
    );
    assert_eq!(h1["result"]["value"], "Sign in");
    ws.call("Runtime.enable", json!({}));
    tap(&vd, centre(&vd, "report"));
    let thrown = ws.until(|v| v["method"] == "Runtime.exceptionThrown");
    let text = thrown["params"]["exceptionDetails"]["exception"]["description"]
        .as_str()
        .unwrap();
    assert!(text.starts_with("TypeError"), "{thrown}");
    tap(&vd, centre(&vd, "submit"));
    let logged = ws.until(|v| v["method"] == "Runtime.consoleAPICalled");
    assert_eq!(
        logged["params"]["args"][0]["value"],
        "sign-in submitted for (no email)"
    );
    assert_eq!(
        eval(&vd, "document.getElementById('error').textContent"),
        "Enter your email and password"
    );
    assert_eq!(eval(&vd, "document.title"), "Help centre sign-in");
    drop(ws);

    // A page of 20,000 elements, then back.
    vd.control(&["web", "big", "20000"]).unwrap();
    let n = eval(&vd, "document.querySelectorAll('*').length")
        .as_u64()
        .unwrap();
    assert!((19_900..=20_100).contains(&n), "{n}");
    vd.control(&["web", "page", "login"]).unwrap();
    assert_eq!(eval(&vd, "document.title"), "Help centre sign-in");
    let err = vd
        .control(&["web", "eval", "null.x"])
        .expect_err("a throw fails");
    assert!(err.to_string().contains("TypeError"), "{err}");

    // The fault: Chromium dies; the socket goes and the forward is refused.
    vd.control(&["web", "kill"]).unwrap();
    assert!(!listed(&vd, &pid), "{}", unix_sockets(&vd));
    assert!(http_get(port, "/json/list").is_err());
    assert_eq!(vd.state()["web"]["running"], false);
    let err = vd.control(&["web", "eval", "1"]).unwrap_err();
    assert!(err.to_string().contains("killed"), "{err}");
    // Still bare while the screen stays; shown anew, Chromium is back.
    assert!(!wait_until(Duration::from_millis(300), || listed(
        &vd, &pid
    )));
    vd.control(&["screen", "web"]).unwrap();
    assert!(listed(&vd, &pid));
    assert_eq!(http_get(port, "/json/list").unwrap().0, 200);
    // A force-stop ends the app's process and its Chromium before it returns.
    shell(&vd, &["am", "force-stop", PACKAGE]);
    assert!(!listed(&vd, &pid), "{}", unix_sockets(&vd));
    assert!(http_get(port, "/json/list").is_err());
    let journal = web_journal(&vd);
    assert_eq!(
        journal
            .iter()
            .filter(|l| l.starts_with("start pid="))
            .count(),
        2,
        "{journal:?}"
    );
    assert!(journal.iter().any(|l| l == "kill: web kill"), "{journal:?}");
    assert!(
        journal.iter().any(|l| l == "kill: the app's process ended"),
        "{journal:?}"
    );
}

#[test]
fn with_debugging_off_the_webview_is_bare_without_a_socket() {
    need_chromium();
    let vd = VdHarness::start(BIN, &[]).expect("virtual device + adb");
    vd.control(&["web", "debug", "off"]).unwrap();
    vd.control(&["screen", "web"]).unwrap();
    let pid = app_pid(&vd);
    assert!(!unix_sockets(&vd).contains("webview_devtools_remote"));
    assert_eq!(vd.state()["web"]["running"], false);
    let port = forward(&vd, &pid);
    assert!(http_get(port, "/json/list").is_err(), "nothing listens");
    // The WebView shows nothing of a page: the native screen's white.
    let shot = screenshot(&vd);
    assert_eq!(&shot.get_pixel(1000, 2300).0[..3], &[255, 255, 255]);
    // Debugging on with the screen shown: Chromium starts and listens.
    vd.control(&["web", "debug", "on"]).unwrap();
    assert!(listed(&vd, &pid), "{}", unix_sockets(&vd));
    assert_eq!(http_get(port, "/json/list").unwrap().0, 200);
}

#[test]
fn screenshots_taps_and_typing_reach_the_page() {
    let vd = web_device();
    // Inside the WebView: the page's background; outside: the native toolbar.
    let shot = screenshot(&vd);
    assert_eq!((shot.width(), shot.height()), (1080, 2400));
    assert_eq!(&shot.get_pixel(1000, 2300).0[..3], &PAGE_BACKGROUND);
    assert_eq!(&shot.get_pixel(1000, 170).0[..3], &[255, 255, 255]);
    // The page is the WebView's size in CSS pixels, on a phone.
    assert_eq!(
        eval(&vd, "[innerWidth, innerHeight, devicePixelRatio]"),
        json!([411, 818, 2.625])
    );

    // A tap on the email field focuses it (as a touch), and typing goes into it.
    tap(&vd, centre(&vd, "email"));
    assert_eq!(eval(&vd, "document.activeElement.id"), "email");
    assert!(eval(&vd, "window.touches").as_u64().unwrap() >= 1);
    shell(&vd, &["input", "text", "ada@example.comx"]);
    shell(&vd, &["input", "keyevent", "67"]);
    assert_eq!(
        eval(&vd, "document.getElementById('email').value"),
        "ada@example.com"
    );
    // As the product types: tap, MOVE_END and DELs to clear, words with SPACE between.
    tap(&vd, centre(&vd, "password"));
    shell(&vd, &["input", "text", "old"]);
    shell(&vd, &["input", "keyevent", "123", "67", "67", "67"]);
    shell(&vd, &["input", "text", "correct"]);
    shell(&vd, &["input", "keyevent", "62"]);
    shell(&vd, &["input", "text", "horse%sbattery"]);
    assert_eq!(
        eval(&vd, "document.getElementById('password').value"),
        "correct horse battery"
    );
    // A swipe scrolls the page; a tap outside the WebView stays native.
    shell(&vd, &["input", "swipe", "540", "2000", "540", "900", "300"]);
    assert!(wait_until(Duration::from_secs(5), || eval(&vd, "scrollY")
        .as_f64()
        .unwrap_or(0.0)
        > 100.0));
    assert_eq!(vd.state()["screen"], "web");
    // Once the fling is over, back at the top, a tap on Sign in submits: the welcome page.
    let mut last = Value::Null;
    assert!(wait_until(Duration::from_secs(10), || {
        let y = eval(&vd, "scrollY");
        std::mem::replace(&mut last, y.clone()) == y
    }));
    assert!(wait_until(Duration::from_secs(5), || eval(
        &vd,
        "window.scrollTo(0, 0); scrollY"
    ) == 0));
    tap(&vd, centre(&vd, "submit"));
    assert!(
        wait_until(Duration::from_secs(10), || eval(&vd, "document.title")
            == "Help centre"),
        "{}",
        eval(&vd, "location.href")
    );
    assert_eq!(
        eval(&vd, "document.querySelector('h1').textContent"),
        "Welcome, ada@example.com"
    );

    // Enter submits too; Tab moves to the next field.
    vd.control(&["web", "page", "login"]).unwrap();
    tap(&vd, centre(&vd, "email"));
    shell(&vd, &["input", "text", "bob@example.com"]);
    shell(&vd, &["input", "keyevent", "61"]);
    assert_eq!(eval(&vd, "document.activeElement.id"), "password");
    shell(&vd, &["input", "text", "pw"]);
    shell(&vd, &["input", "keyevent", "KEYCODE_ENTER"]);
    assert!(wait_until(Duration::from_secs(10), || eval(
        &vd,
        "document.title"
    ) == "Help centre"));
    let journal = web_journal(&vd);
    assert!(journal.iter().any(|l| l.starts_with("tap ")), "{journal:?}");
    assert!(journal.iter().any(|l| l == "key Enter"), "{journal:?}");
    assert!(
        journal.iter().any(|l| l.starts_with("swipe ")),
        "{journal:?}"
    );
}

/// `uiautomator dump` through adb, then `cat`: the dump's XML.
fn dump(vd: &VdHarness) -> String {
    shell(vd, &["uiautomator", "dump", "/sdcard/x.xml"]);
    let out = vd.adb(&["shell", "cat", "/sdcard/x.xml"]);
    assert!(out.success(), "{out:?}");
    out.stdout_text()
}

type Attrs = std::collections::HashMap<String, String>;

/// Every `<node>`'s attributes in a dump, with the classes of its ancestors.
fn nodes(xml: &str) -> Vec<(Vec<String>, Attrs)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack: Vec<String> = Vec::new();
    let mut out = Vec::new();
    loop {
        let (e, open) = match reader.read_event().unwrap() {
            quick_xml::events::Event::Start(e) => (e, true),
            quick_xml::events::Event::Empty(e) => (e, false),
            quick_xml::events::Event::End(e) => {
                if e.name().as_ref() == b"node" {
                    stack.pop();
                }
                continue;
            }
            quick_xml::events::Event::Eof => break,
            _ => continue,
        };
        if e.name().as_ref() != b"node" {
            continue;
        }
        let attrs: Attrs = e
            .attributes()
            .map(|a| {
                let a = a.unwrap();
                (
                    String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                    a.unescape_value().unwrap().into_owned(),
                )
            })
            .collect();
        let class = attrs["class"].clone();
        out.push((stack.clone(), attrs));
        if open {
            stack.push(class);
        }
    }
    out
}

/// The nodes inside the WebView (`help_web`).
fn in_webview(xml: &str) -> Vec<Attrs> {
    let all = nodes(xml);
    let depth = all
        .iter()
        .find(|(_, a)| a["resource-id"] == "com.mobilectl.demo:id/help_web")
        .map(|(up, _)| up.len())
        .expect("the WebView's node");
    let start = all
        .iter()
        .position(|(_, a)| a["resource-id"] == "com.mobilectl.demo:id/help_web")
        .unwrap();
    all[start + 1..]
        .iter()
        .take_while(|(up, _)| up.len() > depth)
        .map(|(_, a)| a.clone())
        .collect()
}

fn bounds(a: &Attrs) -> [i64; 4] {
    let v: Vec<i64> = a["bounds"]
        .split(['[', ']', ','])
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap())
        .collect();
    [v[0], v[1], v[2], v[3]]
}

#[test]
fn with_web_a11y_on_dumps_show_the_page_inside_the_webview() {
    let vd = web_device();
    // Off by default: the WebView is bare.
    assert!(in_webview(&dump(&vd)).is_empty());

    vd.control(&["web", "a11y", "on"]).unwrap();
    assert_eq!(vd.state()["web"]["a11y"], true);
    let inside = in_webview(&dump(&vd));
    let find = |pick: &dyn Fn(&Attrs) -> bool| {
        inside
            .iter()
            .find(|a| pick(a))
            .unwrap_or_else(|| panic!("{inside:#?}"))
            .clone()
    };
    let root = &inside[0];
    assert_eq!(root["class"], "android.webkit.WebView");
    assert_eq!(root["text"], "Help centre sign-in");
    assert_eq!(root["bounds"], "[0,252][1080,2400]");
    let email = find(&|a| a["resource-id"] == "email");
    assert_eq!(email["class"], "android.widget.EditText");
    assert_eq!(email["package"], PACKAGE);
    assert_eq!(email["hint"], "Email");
    assert_eq!(email["text"], "");
    let [x1, y1, x2, y2] = bounds(&email);
    assert!(x1 >= 0 && x2 <= 1080 && y1 >= 252 && y2 <= 2400 && x1 < x2 && y1 < y2);
    // The field's centre on the screen is where the page has it.
    let (cx, cy) = centre(&vd, "email");
    assert!(
        ((x1 + x2) / 2 - cx).abs() <= 2 && ((y1 + y2) / 2 - cy).abs() <= 2,
        "{email:?}"
    );
    assert_eq!(
        find(&|a| a["resource-id"] == "password")["password"],
        "true"
    );
    let submit = find(&|a| a["class"] == "android.widget.Button" && a["text"] == "Sign in");
    assert_eq!(submit["resource-id"], "submit");
    assert_eq!(submit["clickable"], "true");
    find(&|a| a["class"] == "android.widget.TextView" && a["text"] == "Sign in");
    let link = find(&|a| a["resource-id"] == "forgot");
    assert_eq!(
        (
            link["class"].as_str(),
            link["text"].as_str(),
            link["clickable"].as_str()
        ),
        ("android.view.View", "Forgot password?", "true")
    );
    // The footer is below the fold: not visible to the user, not dumped.
    assert!(
        inside.iter().all(|a| a["resource-id"] != "legal"),
        "{inside:#?}"
    );

    // Typing into the field: its node's text, and focus.
    tap(&vd, centre(&vd, "email"));
    shell(&vd, &["input", "text", "ada@example.com"]);
    let inside = in_webview(&dump(&vd));
    let email = inside.iter().find(|a| a["resource-id"] == "email").unwrap();
    assert_eq!(email["text"], "ada@example.com");
    assert_eq!(email["focused"], "true");
    let journal = web_journal(&vd);
    assert!(
        journal
            .iter()
            .any(|l| l.starts_with("a11y: ") && l.contains(" nodes ms=")),
        "{journal:?}"
    );

    // Chromium gone: bare again, and the journal says why.
    vd.control(&["web", "kill"]).unwrap();
    assert!(in_webview(&dump(&vd)).is_empty());
    let journal = web_journal(&vd);
    assert!(
        journal
            .iter()
            .any(|l| l.starts_with("a11y: the WebView is bare: ")),
        "{journal:?}"
    );
}

#[test]
fn with_web_a11y_off_the_webview_is_bare_again() {
    let vd = web_device();
    vd.control(&["web", "a11y", "on"]).unwrap();
    assert!(!in_webview(&dump(&vd)).is_empty());
    vd.control(&["web", "a11y", "off"]).unwrap();
    assert!(in_webview(&dump(&vd)).is_empty());
    assert_eq!(vd.state()["web"]["a11y"], false);
}

/// The Custom Tab's WebView: Chrome's content area, below its 147 px toolbar.
const TAB_WEBVIEW: [i64; 4] = [0, 231, 1080, 2400];
const CHROME: &str = "com.android.chrome";
const CUSTOM_TAB: &str =
    "com.android.chrome/org.chromium.chrome.browser.customtabs.CustomTabActivity";

fn chrome_listed(vd: &VdHarness) -> bool {
    unix_sockets(vd).contains("@chrome_devtools_remote\n")
}

/// `dumpsys window`'s focused window line.
fn focus(vd: &VdHarness) -> String {
    let out = vd.adb(&["shell", "dumpsys", "window"]);
    assert!(out.success(), "{out:?}");
    out.stdout_text()
        .lines()
        .find(|l| l.contains("mCurrentFocus="))
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[test]
fn a_custom_tab_is_chromes_on_chrome_devtools_remote_and_closes() {
    need_chromium();
    let vd = VdHarness::start(BIN, &[]).expect("virtual device + adb");
    let packages = vd.adb(&["shell", "pm", "list", "packages"]).stdout_text();
    assert!(
        packages.contains("package:com.android.chrome\n"),
        "{packages}"
    );
    assert!(!vd.adb(&["shell", "pidof", CHROME]).success());
    vd.control(&["screen", "tab"]).unwrap();
    assert_eq!(vd.state()["web"]["running"], true, "{}", vd.state()["web"]);

    // Chrome's socket, not the app's WebView's.
    let sockets = unix_sockets(&vd);
    assert!(sockets.contains("@chrome_devtools_remote\n"), "{sockets}");
    assert!(!sockets.contains("webview_devtools_remote_"), "{sockets}");
    let focused = focus(&vd);
    assert!(focused.contains(CUSTOM_TAB), "{focused}");
    let chrome_pid = vd.adb(&["shell", "pidof", CHROME]);
    assert!(chrome_pid.success(), "{chrome_pid:?}");
    let chrome_pid = chrome_pid.stdout_text().trim().to_string();
    assert_ne!(chrome_pid, app_pid(&vd));

    // chrome://inspect's way in: the sign-in page.
    let out = vd.adb(&["forward", "tcp:0", "localabstract:chrome_devtools_remote"]);
    assert!(out.success(), "{out:?}");
    let port: u16 = out.stdout_text().trim().parse().unwrap();
    let (status, body) = http_get(port, "/json/list").unwrap();
    assert_eq!(status, 200, "{body}");
    let list: Value = serde_json::from_str(&body).unwrap();
    let page = list
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "page")
        .unwrap_or_else(|| panic!("no page: {list}"));
    assert_eq!(page["title"], "Help centre sign-in");
    assert!(
        page["url"].as_str().unwrap().ends_with("/login.html"),
        "{page}"
    );

    // The dump: Chrome's toolbar, then its web contents as one bare WebView.
    let xml = dump(&vd);
    let all = nodes(&xml);
    assert!(all.iter().all(|(_, a)| a["package"] == CHROME), "{xml}");
    let by_id = |id: &str| {
        all.iter()
            .find(|(_, a)| a["resource-id"] == id)
            .map(|(_, a)| a.clone())
            .unwrap_or_else(|| panic!("{id}: {xml}"))
    };
    by_id("com.android.chrome:id/toolbar");
    assert_eq!(
        by_id("com.android.chrome:id/title_bar")["text"],
        "Help centre sign-in"
    );
    assert_eq!(
        by_id("com.android.chrome:id/url_bar")["class"],
        "android.widget.TextView"
    );
    let close = all
        .iter()
        .find(|(_, a)| a["content-desc"] == "Close tab")
        .map(|(_, a)| a.clone())
        .expect("Close tab");
    assert_eq!(close["clickable"], "true");
    assert!(all.iter().any(|(_, a)| a["content-desc"] == "More options"));
    let webviews: Vec<usize> = all
        .iter()
        .enumerate()
        .filter(|(_, (_, a))| a["class"] == "android.webkit.WebView")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(webviews.len(), 1, "{xml}");
    let (up, webview) = &all[webviews[0]];
    assert_eq!(webview["resource-id"], "");
    assert_eq!(bounds(webview), TAB_WEBVIEW);
    let depth = up.len();
    assert!(
        all[webviews[0] + 1..]
            .iter()
            .all(|(above, _)| above.len() <= depth),
        "bare: {xml}"
    );

    // The page fills the content area (CSS px = px / 2.625) and takes taps like the web screen's.
    let inner = eval(&vd, "[innerWidth, innerHeight]");
    let css = |px: i64| (px as f64 / DPR).round();
    assert_eq!(
        inner[0].as_f64(),
        Some(css(TAB_WEBVIEW[2] - TAB_WEBVIEW[0]))
    );
    assert_eq!(
        inner[1].as_f64(),
        Some(css(TAB_WEBVIEW[3] - TAB_WEBVIEW[1]))
    );
    let r = eval(
        &vd,
        "(() => { const r = document.getElementById('submit').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
    );
    let (x, y) = (r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
    tap(
        &vd,
        (
            (x * DPR).round() as i64,
            (TAB_WEBVIEW[1] as f64 + y * DPR).round() as i64,
        ),
    );
    assert_eq!(
        eval(&vd, "document.getElementById('error').textContent"),
        "Enter your email and password"
    );

    // Screenshots show the page in the content area; with `web a11y on` the page's nodes are
    // inside the WebView, Chrome's.
    let img = screenshot(&vd);
    let px = img.get_pixel(540, 2300).0;
    assert_eq!([px[0], px[1], px[2]], PAGE_BACKGROUND);
    vd.control(&["web", "a11y", "on"]).unwrap();
    let exposed = nodes(&dump(&vd));
    let start = exposed
        .iter()
        .position(|(_, a)| a["class"] == "android.webkit.WebView")
        .unwrap();
    let inside: Vec<&Attrs> = exposed[start + 1..]
        .iter()
        .take_while(|(up, _)| up.len() > depth)
        .map(|(_, a)| a)
        .collect();
    assert!(
        inside
            .iter()
            .any(|a| a["text"] == "Sign in" && a["package"] == CHROME),
        "{inside:?}"
    );
    vd.control(&["web", "a11y", "off"]).unwrap();

    // BACK closes the tab: the app's screen again, Chrome's process and socket gone.
    shell(&vd, &["input", "keyevent", "4"]);
    assert!(!chrome_listed(&vd), "{}", unix_sockets(&vd));
    assert!(http_get(port, "/json/list").is_err());
    assert!(!vd.adb(&["shell", "pidof", CHROME]).success());
    let focused = focus(&vd);
    assert!(focused.contains("com.mobilectl.demo/"), "{focused}");
    assert_eq!(vd.state()["screen"], "login");

    // From the app's WebView to a tab: the socket changes with the WebView in front; the
    // close button closes the tab.
    vd.control(&["screen", "web"]).unwrap();
    let pid = app_pid(&vd);
    assert!(listed(&vd, &pid), "{}", unix_sockets(&vd));
    vd.control(&["screen", "tab"]).unwrap();
    assert!(chrome_listed(&vd), "{}", unix_sockets(&vd));
    assert!(!listed(&vd, &pid), "{}", unix_sockets(&vd));
    let b = bounds(&close);
    tap(&vd, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2));
    assert!(!chrome_listed(&vd), "{}", unix_sockets(&vd));
    assert_eq!(vd.state()["screen"], "web");
    let journal = web_journal(&vd);
    assert!(
        journal
            .iter()
            .any(|l| l.starts_with("start pid=") && l.contains("socket=chrome_devtools_remote")),
        "{journal:?}"
    );
    assert!(
        journal.iter().any(|l| l == "kill: Chrome's process ended"),
        "{journal:?}"
    );
}
