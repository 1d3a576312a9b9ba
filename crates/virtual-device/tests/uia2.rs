//! The UiAutomator2 server stand-in and `adb forward` into the device, through the real adb:
//! install → `pm list instrumentation` → `am instrument -w` → `adb forward tcp:0 tcp:6790` →
//! the server's HTTP protocol, its lifecycle (DELETE, force-stop, a closed shell, a taken
//! port) and its faults. The real APKs' test reads their folder from `MOBILECTL_UIA2_APKS`.
#![cfg(unix)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use virtual_device::testing::{wait_until, VdHarness};

const BIN: &str = env!("CARGO_BIN_EXE_vd-test-device");
const COMPONENT: &str =
    "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner";
const INSTRUMENTATION_LINE: &str = "instrumentation:io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner (target=io.appium.uiautomator2.server)";

/// A zip-looking APK whose (stored) manifest is text the device's fallback reads.
fn text_apk(dir: &Path, name: &str, manifest: &str) -> PathBuf {
    let mut data = b"PK\x03\x04\x14\x00\x00\x00\x00\x00".to_vec();
    data.extend_from_slice(&[0; 16]);
    data.extend_from_slice(b"AndroidManifest.xml");
    data.extend_from_slice(manifest.as_bytes());
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

/// Installs the two packages (small text APKs) through `adb install`.
fn install_server(vd: &VdHarness, dir: &Path) {
    let server = text_apk(
        dir,
        "server.apk",
        r#"<manifest package="io.appium.uiautomator2.server"></manifest>"#,
    );
    let test = text_apk(
        dir,
        "server-test.apk",
        r#"<manifest package="io.appium.uiautomator2.server.test"><instrumentation android:name="androidx.test.runner.AndroidJUnitRunner" android:targetPackage="io.appium.uiautomator2.server" /></manifest>"#,
    );
    for apk in [server, test] {
        let out = vd.adb(&["install", apk.to_str().unwrap()]);
        assert!(out.stdout_text().contains("Success"), "{out:?}");
    }
}

/// `am instrument -w …` in the background, as Appium's driver starts it.
fn instrument(vd: &VdHarness) -> Child {
    vd.adb_spawn(&[
        "shell",
        "am",
        "instrument",
        "-w",
        "-e",
        "disableAnalytics",
        "true",
        COMPONENT,
    ])
    .unwrap()
}

/// `adb forward tcp:0 tcp:6790`: the host port adb chose.
fn forward(vd: &VdHarness) -> u16 {
    let out = vd.adb(&["forward", "tcp:0", "tcp:6790"]);
    assert!(out.success(), "{out:?}");
    out.stdout_text().trim().parse().unwrap()
}

/// One HTTP/1.1 request (`Connection: close`); (status, body), or an error when the
/// connection closed without an answer.
fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, Vec<u8>)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf)?;
    let Some(split) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Err(std::io::Error::other(format!(
            "no HTTP answer: {:?}",
            String::from_utf8_lossy(&buf)
        )));
    };
    let head = String::from_utf8_lossy(&buf[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok((status, buf[split + 4..].to_vec()))
}

fn json_call(port: u16, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let (status, body) = http(port, method, path, body).unwrap();
    let v = serde_json::from_slice(&body).unwrap_or_else(|e| {
        panic!(
            "{method} {path}: not JSON ({e}): {:?}",
            String::from_utf8_lossy(&body)
        )
    });
    (status, v)
}

/// Polls `GET /status` until the server answers (bounded).
fn wait_ready(port: u16) {
    assert!(
        wait_until(Duration::from_secs(15), || matches!(
            http(port, "GET", "/status", None),
            Ok((200, _))
        )),
        "the server never answered /status"
    );
}

/// Waits (bounded) for the background `am instrument -w` to exit; its stdout.
fn wait_exit(mut child: Child, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("am instrument -w did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    out
}

fn server_pid(vd: &VdHarness) -> Option<String> {
    let out = vd.adb(&["shell", "pidof", "io.appium.uiautomator2.server"]);
    out.success().then(|| out.stdout_text().trim().to_string())
}

/// (class, bounds, text) of every element, from a dump or a page source.
fn nodes(xml: &str) -> Vec<(String, String, String)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    loop {
        match reader.read_event().unwrap() {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                let mut attrs = std::collections::HashMap::new();
                for a in e.attributes() {
                    let a = a.unwrap();
                    attrs.insert(
                        String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                        a.unescape_value().unwrap().into_owned(),
                    );
                }
                if e.name().as_ref() != b"hierarchy" {
                    let get = |k: &str| attrs.get(k).cloned().unwrap_or_default();
                    out.push((get("class"), get("bounds"), get("text")));
                }
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    out
}

fn dump(vd: &VdHarness) -> String {
    let out = vd.adb(&["exec-out", "uiautomator", "dump", "/dev/tty"]);
    let text = out.stdout_text();
    text[..text.find("UI hierchary dumped").unwrap()].to_string()
}

fn source(port: u16, sid: &str) -> String {
    let (status, v) = json_call(port, "GET", &format!("/session/{sid}/source"), None);
    assert_eq!(status, 200, "{v}");
    v["value"].as_str().unwrap().to_string()
}

fn uia2_requests(vd: &VdHarness, what: &str) -> usize {
    vd.journal()
        .iter()
        .filter(|l| l["uia2"].as_str() == Some(what))
        .count()
}

#[test]
fn install_instrument_forward_and_drive_the_app_over_http() {
    let vd = VdHarness::start(BIN, &[]).expect("virtual device + adb");
    let dir = tempfile::tempdir().unwrap();
    install_server(&vd, dir.path());
    let list = vd.adb(&["shell", "pm", "list", "instrumentation"]);
    assert_eq!(list.stdout_text(), format!("{INSTRUMENTATION_LINE}\n"));
    let packages = vd.adb(&["shell", "pm", "list", "packages"]).stdout_text();
    assert!(
        packages.contains("package:io.appium.uiautomator2.server\n"),
        "{packages}"
    );
    assert!(
        packages.contains("package:io.appium.uiautomator2.server.test\n"),
        "{packages}"
    );

    let am = instrument(&vd);
    let port = forward(&vd);
    wait_ready(port);
    let pid = server_pid(&vd).expect("the server's process");
    let ps = vd.adb(&["shell", "ps", "-A"]).stdout_text();
    assert!(
        ps.lines()
            .any(|l| l.ends_with(" io.appium.uiautomator2.server") && l.contains(&pid)),
        "{ps}"
    );

    let (status, v) = json_call(port, "GET", "/status", None);
    assert_eq!(status, 200);
    assert_eq!(v["value"]["ready"], true);
    assert_eq!(v["sessionId"], Value::Null);
    let (status, legacy) = json_call(port, "GET", "/wd/hub/status", None);
    assert_eq!((status, &legacy["value"]["ready"]), (200, &json!(true)));

    let caps = json!({"firstMatch": [{}], "alwaysMatch": {"platformName": "Android"}});
    let (status, v) = json_call(
        port,
        "POST",
        "/session",
        Some(&json!({"capabilities": caps})),
    );
    assert_eq!(status, 200, "{v}");
    let sid = v["sessionId"].as_str().unwrap().to_string();
    assert_eq!(v["value"]["sessionId"], sid.as_str());
    assert_eq!(v["value"]["capabilities"], caps);
    let (_, sessions) = json_call(port, "GET", "/sessions", None);
    assert_eq!(sessions["value"][0]["id"], sid.as_str());

    // The page source has the nodes and bounds `uiautomator dump` has.
    let src = source(port, &sid);
    assert!(src.contains("<hierarchy index=\"0\" class=\"hierarchy\" rotation=\"0\" width=\"1080\" height=\"2400\">"), "{src}");
    assert_eq!(nodes(&src), nodes(&dump(&vd)));

    // A tap action does what `input tap` does: it focuses the user name field.
    let tap = json!({"actions": [{"type": "pointer", "id": "finger1", "parameters": {"pointerType": "touch"},
        "actions": [{"type": "pointerMove", "duration": 0, "x": 540, "y": 770},
                    {"type": "pointerDown", "button": 0}, {"type": "pause", "duration": 100},
                    {"type": "pointerUp", "button": 0}]}]});
    let (status, v) = json_call(port, "POST", &format!("/session/{sid}/actions"), Some(&tap));
    assert_eq!((status, &v["value"]), (200, &Value::Null), "{v}");
    let by_http = vd.state();
    assert_eq!(by_http["keyboard"], true);
    let (status, _) = json_call(
        port,
        "POST",
        &format!("/session/{sid}/appium/device/press_keycode"),
        Some(&json!({"keycode": 4})),
    );
    assert_eq!(status, 200);
    assert_eq!(vd.state()["keyboard"], false);
    assert!(vd.adb(&["shell", "input", "tap", "540", "770"]).success());
    assert_eq!(vd.state()["focused"], by_http["focused"]);

    // Typing reaches the focused field: appended, replaced, and by key actions.
    let keys = format!("/session/{sid}/keys");
    assert_eq!(
        json_call(port, "POST", &keys, Some(&json!({"text": "alice"}))).0,
        200
    );
    assert_eq!(
        json_call(port, "POST", &keys, Some(&json!({"text": "!"}))).0,
        200
    );
    let texts = |xml: &str| nodes(xml).into_iter().map(|n| n.2).collect::<Vec<_>>();
    assert!(texts(&source(port, &sid)).contains(&"alice!".to_string()));
    assert_eq!(
        json_call(
            port,
            "POST",
            &keys,
            Some(&json!({"text": "bob", "replace": true}))
        )
        .0,
        200
    );
    let typing = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
        {"type": "keyDown", "value": "x"}, {"type": "keyUp", "value": "x"}]}]});
    assert_eq!(
        json_call(
            port,
            "POST",
            &format!("/session/{sid}/actions"),
            Some(&typing)
        )
        .0,
        200
    );
    assert!(texts(&dump(&vd)).contains(&"bobx".to_string()));
    assert_eq!(nodes(&source(port, &sid)), nodes(&dump(&vd)));

    // Settings, the cache reset, errors.
    let settings = format!("/session/{sid}/appium/settings");
    assert_eq!(
        json_call(
            port,
            "POST",
            &settings,
            Some(&json!({"settings": {"waitForIdleTimeout": 100}}))
        )
        .0,
        200
    );
    assert_eq!(
        json_call(port, "GET", &settings, None).1["value"]["waitForIdleTimeout"],
        100
    );
    assert_eq!(
        json_call(
            port,
            "POST",
            &format!("/session/{sid}/appium/reset_ax_cache"),
            None
        )
        .0,
        200
    );
    let (status, v) = json_call(port, "GET", "/session/nope/source", None);
    assert_eq!(
        (status, v["value"]["error"].as_str()),
        (404, Some("invalid session id"))
    );
    let (status, v) = json_call(port, "GET", "/no/such/route", None);
    assert_eq!(
        (status, v["value"]["error"].as_str()),
        (404, Some("unknown command"))
    );
    let (status, body) = http(port, "POST", &keys, None).unwrap();
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "POST {keys} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\n{{bad}}"
    )
    .ok();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    assert!(
        raw.starts_with("HTTP/1.1 400") && raw.contains("invalid argument"),
        "{raw}"
    );
    assert_eq!(
        uia2_requests(&vd, &format!("POST /session/{sid}/actions")),
        2
    );

    // DELETE answers, then the server stops and `am instrument -w` prints its test's end.
    let (status, v) = json_call(port, "DELETE", &format!("/session/{sid}"), None);
    assert_eq!((status, &v["value"]), (200, &Value::Null));
    let out = wait_exit(am, Duration::from_secs(10));
    assert!(
        out.contains("io.appium.uiautomator2.server.test.AppiumUiAutomator2Server:."),
        "{out}"
    );
    assert!(out.contains("OK (1 test)"), "{out}");
    assert!(wait_until(Duration::from_secs(5), || server_pid(&vd).is_none()));
    // Nothing listens on 6790 now: the forward's connection is refused (closed unanswered).
    assert!(http(port, "GET", "/status", None).is_err());
}

#[test]
fn lifecycle_force_stop_closed_shell_taken_port_and_refusals() {
    let vd = VdHarness::start(BIN, &[]).expect("virtual device + adb");
    // Nothing listens yet: the forward's connection is closed without an answer.
    let port = forward(&vd);
    assert!(http(port, "GET", "/status", None).is_err());
    // Not installed: ActivityManager's failure, exit 1.
    let out = vd.adb(&["shell", "am", "instrument", "-w", COMPONENT]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stdout_text().contains(&format!(
            "Unable to find instrumentation info for: ComponentInfo{{{COMPONENT}}}"
        )),
        "{out:?}"
    );
    assert!(
        out.stderr_text()
            .contains(&format!("INSTRUMENTATION_FAILED: {COMPONENT}")),
        "{out:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    install_server(&vd, dir.path());
    // Closing the shell that ran `am instrument -w` leaves the server running.
    let mut am = instrument(&vd);
    wait_ready(port);
    am.kill().unwrap();
    am.wait().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(http(port, "GET", "/status", None).unwrap().0, 200);
    let first = server_pid(&vd).expect("the server's process");
    // A new instrumentation replaces it (ActivityManager force-stops the target first); then
    // force-stop stops it, and the `am instrument -w` waiting on it reports the crash.
    let am = instrument(&vd);
    assert!(wait_until(Duration::from_secs(10), || server_pid(&vd)
        .is_some_and(|p| p != first)));
    wait_ready(port);
    assert!(vd
        .adb(&["shell", "am", "force-stop", "io.appium.uiautomator2.server"])
        .success());
    let out = wait_exit(am, Duration::from_secs(10));
    assert!(
        out.contains("INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0"),
        "{out}"
    );
    assert!(server_pid(&vd).is_none());
    assert!(http(port, "GET", "/status", None).is_err());
    // Another process holds device port 6790 (a reverse forward): the server cannot bind.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_port = taken.local_addr().unwrap().port().to_string();
    assert!(vd
        .adb(&["reverse", "tcp:6790", &format!("tcp:{taken_port}")])
        .success());
    let out = vd.adb(&["shell", "am", "instrument", "-w", COMPONENT]);
    assert!(
        out.stdout_text().contains("shortMsg=Process crashed."),
        "{out:?}"
    );
    assert!(server_pid(&vd).is_none());
}

#[test]
fn faults_garbage_hang_and_die() {
    let vd = VdHarness::start(BIN, &[]).expect("virtual device + adb");
    let dir = tempfile::tempdir().unwrap();
    install_server(&vd, dir.path());
    let am = instrument(&vd);
    let port = forward(&vd);
    wait_ready(port);
    vd.control(&["uia2", "garbage"]).unwrap();
    let (status, body) = http(port, "GET", "/status", None).unwrap();
    assert_eq!(status, 200);
    assert!(serde_json::from_slice::<Value>(&body).is_err());
    vd.control(&["uia2", "hang"]).unwrap();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(700)))
        .unwrap();
    s.write_all(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 64];
    let err = s.read(&mut buf).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
        "{err}"
    );
    vd.control(&["uia2", "normal"]).unwrap();
    assert_eq!(http(port, "GET", "/status", None).unwrap().0, 200);
    vd.control(&["uia2", "die"]).unwrap();
    let out = wait_exit(am, Duration::from_secs(10));
    assert!(
        out.contains(
            "INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n"
        ),
        "{out}"
    );
    assert!(http(port, "GET", "/status", None).is_err());
    assert!(server_pid(&vd).is_none());
    assert!(uia2_requests(&vd, "GET /status") >= 3);
}

/// The real APKs of npm `appium-uiautomator2-server` 10.6.6 (their folder in
/// `MOBILECTL_UIA2_APKS`; `scripts/test.sh` fetches them).
#[test]
fn the_real_server_apks_install_and_list_their_instrumentation() {
    let Some(dir) = std::env::var_os("MOBILECTL_UIA2_APKS") else {
        panic!("MOBILECTL_UIA2_APKS is not set: it names the folder of the real appium-uiautomator2-server APKs; run scripts/test.sh, which fetches them and sets it");
    };
    let dir = PathBuf::from(dir);
    let vd = VdHarness::start(BIN, &[]).expect("virtual device + adb");
    for apk in [
        "appium-uiautomator2-server-v10.6.6.apk",
        "appium-uiautomator2-server-debug-androidTest.apk",
    ] {
        let path = dir.join(apk);
        assert!(
            path.is_file(),
            "{} is missing; run scripts/test.sh",
            path.display()
        );
        let out = vd.adb(&["install", path.to_str().unwrap()]);
        assert!(out.stdout_text().contains("Success"), "{out:?}");
    }
    let list = vd
        .adb(&["shell", "pm", "list", "instrumentation"])
        .stdout_text();
    assert!(list.lines().any(|l| l == INSTRUMENTATION_LINE), "{list}");
    let am = instrument(&vd);
    let port = forward(&vd);
    wait_ready(port);
    vd.adb(&[
        "shell",
        "am",
        "force-stop",
        "io.appium.uiautomator2.server.test",
    ]);
    assert!(wait_exit(am, Duration::from_secs(10)).contains("Process crashed."));
}

/// `web eval JS` on the device's WebView page: the value.
fn web_eval(vd: &VdHarness, js: &str) -> Value {
    let out = vd.control(&["web", "eval", js]).unwrap();
    serde_json::from_str(out.trim()).unwrap()
}

/// A touch pointer's tap at (x, y), as W3C actions.
fn tap_action(x: i64, y: i64) -> Value {
    json!({"actions": [{"type": "pointer", "id": "finger1", "parameters": {"pointerType": "touch"},
        "actions": [{"type": "pointerMove", "duration": 0, "x": x, "y": y},
                    {"type": "pointerDown", "button": 0}, {"type": "pause", "duration": 50},
                    {"type": "pointerUp", "button": 0}]}]})
}

/// The server's gestures and keys go through the device's input code: on the web screen
/// (the WebView backed by Chromium, which this test needs) they reach the page.
#[test]
fn pointer_actions_and_keys_reach_a_web_page() {
    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .any(|n| virtual_device::sandbox::find_host_program(n).is_some())
        || std::env::var_os("MOBILECTL_CHROMIUM").is_some();
    assert!(
        chromium,
        "this test needs a real Chromium: apt-get install chromium"
    );
    let vd = VdHarness::start(BIN, &[]).expect("virtual device + adb");
    let dir = tempfile::tempdir().unwrap();
    install_server(&vd, dir.path());
    let am = instrument(&vd);
    let port = forward(&vd);
    wait_ready(port);
    let (_, v) = json_call(
        port,
        "POST",
        "/session",
        Some(&json!({"capabilities": {"alwaysMatch": {"platformName": "Android"}}})),
    );
    let sid = v["sessionId"].as_str().unwrap().to_string();
    vd.control(&["screen", "web"]).unwrap();
    assert_eq!(vd.state()["web"]["running"], true, "{}", vd.state());
    let email = web_eval(
        &vd,
        "(() => { const r = document.getElementById('email').getBoundingClientRect(); return [Math.round((r.x + r.width / 2) * 2.625), Math.round(252 + (r.y + r.height / 2) * 2.625)]; })()",
    );
    let (x, y) = (email[0].as_i64().unwrap(), email[1].as_i64().unwrap());
    let actions = format!("/session/{sid}/actions");
    let keys = format!("/session/{sid}/keys");
    let value = |vd: &VdHarness| web_eval(vd, "document.getElementById('email').value");

    // Nothing focused in the page yet: no field to type into.
    let (status, v) = json_call(port, "POST", &keys, Some(&json!({"text": "x"})));
    assert_eq!(
        (status, v["value"]["error"].as_str()),
        (404, Some("no such element"))
    );
    let (status, _) = json_call(port, "POST", &actions, Some(&tap_action(x, y)));
    assert_eq!(status, 200);
    assert_eq!(web_eval(&vd, "document.activeElement.id"), "email");
    assert!(web_eval(&vd, "window.touches").as_u64().unwrap() >= 1);
    for (body, want) in [
        (json!({"text": "old text"}), "old text"),
        (
            json!({"text": "ada@example.com", "replace": true}),
            "ada@example.com",
        ),
        (json!({"text": "!"}), "ada@example.com!"),
    ] {
        assert_eq!(json_call(port, "POST", &keys, Some(&body)).0, 200);
        assert_eq!(value(&vd), want);
    }
    let typing = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
        {"type": "keyDown", "value": "\u{E003}"}, {"type": "keyUp", "value": "\u{E003}"},
        {"type": "keyDown", "value": "x"}, {"type": "keyUp", "value": "x"}]}]});
    assert_eq!(json_call(port, "POST", &actions, Some(&typing)).0, 200);
    assert_eq!(value(&vd), "ada@example.comx");
    // The native screen did not change under the page.
    assert_eq!(vd.state()["screen"], "web");
    assert_eq!(vd.state()["focused"], Value::Null);
    let (status, _) = json_call(port, "DELETE", &format!("/session/{sid}"), None);
    assert_eq!(status, 200);
    assert!(wait_exit(am, Duration::from_secs(10)).contains("OK (1 test)"));
}
