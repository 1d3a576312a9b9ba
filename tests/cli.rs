//! The `mobilectl` client commands, run as the built binary against a real server (`serve
//! --demo`: a virtual Android device behind a private adb server): the demo login flow, every
//! exit code, autostart from cold and reuse, and the offline `snapshot --from-file`.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use crate::common;
use virtual_device::testing::{adb_path, ensure_user_adb_key, free_port, wait_until};

const BIN: &str = env!("CARGO_BIN_EXE_mobilectl");

/// A `mobilectl serve` subprocess, stopped with SIGTERM on drop.
struct Server {
    child: Child,
    url: String,
    adb_port: Option<u16>,
    _cache: tempfile::TempDir,
}

impl Server {
    fn start(demo: bool, env: &[(&str, &str)]) -> Server {
        let (port, adb_port) = (free_port(), free_port());
        let cache = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(BIN);
        cmd.args(["serve", "--addr", &format!("127.0.0.1:{port}")])
            .env_remove("MOBILECTL_TOKEN")
            // Runs go to a temporary cache, never the user's.
            .env("MOBILECTL_CACHE_DIR", cache.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if demo {
            ensure_user_adb_key(&adb_path());
            cmd.args(["--demo", "--adb-server-port", &adb_port.to_string()]);
        }
        cmd.envs(env.iter().copied());
        let child = cmd.spawn().unwrap();
        let url = format!("http://127.0.0.1:{port}");
        let up = wait_until(Duration::from_secs(60), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(up, "the server did not come up");
        Server {
            child,
            url,
            adb_port: demo.then_some(adb_port),
            _cache: cache,
        }
    }

    fn cli(&self, args: &[&str]) -> Output {
        cli_at(&self.url, args)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        common::stop_server(&mut self.child, self.adb_port);
    }
}

/// Runs the client against `url` without autostart.
fn cli_at(url: &str, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--no-autostart")
        .env("MOBILECTL_URL", url)
        .env_remove("MOBILECTL_TOKEN")
        .env_remove("MOBILECTL_UDID")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[track_caller]
fn assert_exit(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(o),
        stderr(o)
    );
}

#[test]
fn a_rules_body_file_is_read_by_the_cli_from_its_working_directory() {
    // The server's files root is its own working directory, not the CLI's.
    let state = tempfile::tempdir().unwrap();
    let s = Server::start(
        false,
        &[("MOBILECTL_STATE_DIR", state.path().to_str().unwrap())],
    );
    let here = tempfile::tempdir().unwrap();
    std::fs::write(here.path().join("answer.json"), br#"{"ok":true}"#).unwrap();
    let mock = |file: &str| {
        Command::new(BIN)
            .args([
                "--json",
                "proxy",
                "mock",
                "--path",
                "/a",
                "--body-file",
                file,
            ])
            .arg("--no-autostart")
            .current_dir(here.path())
            .env("MOBILECTL_URL", &s.url)
            .env_remove("MOBILECTL_TOKEN")
            .output()
            .unwrap()
    };
    let added = mock("answer.json");
    assert_exit(&added, 0);
    let rule: serde_json::Value = serde_json::from_str(&stdout(&added)).unwrap();
    assert_eq!(rule["rule"]["body_base64"], "eyJvayI6dHJ1ZX0=", "{rule}");
    assert!(rule["rule"].get("body_file").is_none(), "{rule}");
    // A file the CLI cannot read is its own error; nothing is sent.
    let missing = mock("missing.json");
    assert_ne!(missing.status.code(), Some(0));
    let said = stdout(&missing) + &stderr(&missing);
    assert!(said.contains("cannot read missing.json"), "{said}");
    let rules: serde_json::Value =
        serde_json::from_str(&stdout(&s.cli(&["--json", "proxy", "rules"]))).unwrap();
    assert_eq!(rules["rules"].as_array().unwrap().len(), 1, "{rules}");
}

#[test]
fn demo_login_flow_and_exit_codes() {
    let s = Server::start(true, &[]);

    let snap = s.cli(&["snapshot", "-i"]);
    assert_exit(&snap, 0);
    let tree = stdout(&snap);
    assert!(tree.contains("LOG IN"), "{tree}");
    let user = common::ref_of(&tree, "username");
    let pass = common::ref_of(&tree, "password");

    let typed = s.cli(&["type", "alice", &format!("@{user}")]);
    assert_exit(&typed, 0);
    assert!(stdout(&typed).starts_with("type "), "{}", stdout(&typed));
    assert_exit(&s.cli(&["type", "secret", &pass, "--no-verify"]), 0);

    let tap = s.cli(&["tap", "text:LOG IN"]);
    assert_exit(&tap, 0);
    assert!(stdout(&tap).contains(" ok"), "{}", stdout(&tap));
    let wait = s.cli(&["wait", "text:Allow", "--condition", "visible"]);
    assert_exit(&wait, 0);
    assert!(
        stdout(&wait).starts_with("wait success"),
        "{}",
        stdout(&wait)
    );
    assert_exit(&s.cli(&["alert", "accept"]), 0);
    assert_exit(&s.cli(&["expect", "visible", "text:\"Order #1001\""]), 0);
    // An ambiguous target lists its candidates, by ref and the name the tree prints.
    let ambiguous = s.cli(&["tap", "text~:Shipped"]);
    assert_exit(&ambiguous, 1);
    let err = stderr(&ambiguous);
    assert!(err.contains("AMBIGUOUS_TARGET"), "{err}");
    let listed: Vec<&str> = err.lines().filter(|l| l.starts_with("  @e")).collect();
    assert_eq!(listed.len(), 2, "{err}");
    assert!(
        listed[0].ends_with(r#"button "Order #1001 · Shipped · 2 items""#),
        "{err}"
    );

    // 1: handled failures.
    let nope = s.cli(&["expect", "visible", "text:Nope"]);
    assert_exit(&nope, 1);
    assert!(stdout(&nope).contains("FAILED"), "{}", stdout(&nope));
    let json = s.cli(&["expect", "visible", "text:Nope", "--json"]);
    assert_exit(&json, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["success"], false, "{v}");
    let timeout = s.cli(&["wait", "text:Nope", "--timeout-ms", "300"]);
    assert_exit(&timeout, 1);
    let missing = s.cli(&["tap", "text:Nope"]);
    assert_exit(&missing, 1);
    assert!(
        stderr(&missing).contains("ELEMENT_NOT_FOUND"),
        "{}",
        stderr(&missing)
    );
    let missing_json = s.cli(&["--json", "tap", "text:Nope"]);
    assert_exit(&missing_json, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&missing_json)).unwrap();
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");

    // 2: usage errors, the CLI's own and the server's validation.
    assert_exit(&s.cli(&["tap", "@e1", "10,20"]), 2);
    assert_exit(&s.cli(&["tap", "Login"]), 2);
    assert_exit(&s.cli(&["tap"]), 2);
    assert_exit(&s.cli(&["frobnicate"]), 2);
    let bad_key = s.cli(&["press", "notakey"]);
    assert_exit(&bad_key, 2);
    assert!(stderr(&bad_key).contains("BAD_REQUEST") || stderr(&bad_key).contains("VALIDATION"));
    assert_exit(&s.cli(&["wait", "role:notarole"]), 2);

    // Other inspections answer.
    let summary = s.cli(&["summary"]);
    assert_exit(&summary, 0);
    let snap_json = s.cli(&["snapshot", "--json"]);
    assert_exit(&snap_json, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&snap_json)).unwrap();
    assert!(
        v["tree_text"].as_str().unwrap().contains("Order #1001"),
        "{v}"
    );
    assert_exit(&s.cli(&["find", "order"]), 0);
    let devices = s.cli(&["devices"]);
    assert_exit(&devices, 0);
    assert!(stdout(&devices).contains('*'), "{}", stdout(&devices));

    // A plain screenshot to a file.
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let shot = s.cli(&["screenshot", "-o", png.to_str().unwrap()]);
    assert_exit(&shot, 0);
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
    // Annotated, scaled, JPEG.
    let jpg = dir.path().join("shot.jpg");
    let shot = s.cli(&[
        "screenshot",
        "--annotate",
        "--grid",
        "--scale",
        "0.5",
        "--format",
        "jpeg",
        "-o",
        jpg.to_str().unwrap(),
    ]);
    assert_exit(&shot, 0);
    let bytes = std::fs::read(&jpg).unwrap();
    assert_eq!(&bytes[..3], &[0xFF, 0xD8, 0xFF], "not a JPEG");
    let img = image::load_from_memory(&bytes).unwrap();
    assert_eq!((img.width(), img.height()), (540, 1200));

    // A crash's line points to the command that shows it, and that command does.
    assert_exit(&s.cli(&["tap", "text:\"Order #1003\""]), 0);
    let crash = s.cli(&["tap", "text:CRASH", "--observe"]);
    assert_exit(&crash, 1);
    let line = stdout(&crash);
    let pointer = line
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("no command in {line}"));
    let words: Vec<&str> = pointer.split_whitespace().collect();
    assert_eq!(words[..2], ["mobilectl", "crashes"], "{line}");
    let shown = s.cli(&words[1..]);
    assert_exit(&shown, 0);
    assert!(
        stdout(&shown).contains("CRASH button tapped"),
        "{}",
        stdout(&shown)
    );
}

#[test]
fn unreachable_server_exits_3_without_autostart() {
    let url = format!("http://127.0.0.1:{}", free_port());
    let o = cli_at(&url, &["devices"]);
    assert_exit(&o, 3);
    assert!(stderr(&o).contains("no mobilectl server"), "{}", stderr(&o));
    let j = cli_at(&url, &["--json", "snapshot"]);
    assert_exit(&j, 3);
    let v: serde_json::Value = serde_json::from_str(&stdout(&j)).unwrap();
    assert_eq!(v["error"]["code"], "SERVER_UNREACHABLE");
    // A usage error is reported before any connection.
    assert_exit(&cli_at(&url, &["tap", "@e1", "1,2"]), 2);
    // Also before any connection to a hub: a Grid session holds its device from the start.
    let lazy = cli_at(
        &url,
        &["session", "start", "--grid", &url, "--name", "g", "--lazy"],
    );
    assert_exit(&lazy, 2);
    assert!(
        stderr(&lazy).contains("`--lazy` does not go with --grid"),
        "{}",
        stderr(&lazy)
    );
}

#[test]
fn missing_tool_exits_127() {
    let s = Server::start(
        false,
        &[
            ("MOBILECTL_ADB", "/nonexistent/adb"),
            ("MOBILECTL_EMULATOR", "/nonexistent/emulator"),
            ("ANDROID_HOME", "/nonexistent"),
            ("ANDROID_SDK_ROOT", "/nonexistent"),
            ("PATH", "/nonexistent"),
        ],
    );
    let o = s.cli(&["boot", "--avd", "Pixel_7"]);
    assert_exit(&o, 127);
    assert!(stderr(&o).contains("TOOL_MISSING"), "{}", stderr(&o));
}

#[test]
fn the_token_is_sent_and_a_wrong_one_is_a_usage_error() {
    let s = Server::start(false, &[("MOBILECTL_TOKEN", "s3cret")]);
    let none = s.cli(&["doctor"]);
    assert_exit(&none, 2);
    assert!(stderr(&none).contains("UNAUTHORIZED"), "{}", stderr(&none));
    let ok = s.cli(&["--json", "doctor", "--token", "s3cret"]);
    assert_exit(&ok, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&ok)).unwrap();
    assert!(v["overall"].is_string(), "{v}");
}

/// A stand-in for a server, to show the client what no real server sends on demand: each
/// request (read whole) gets the content type and body `answer` gives for its request line,
/// and the connection closes. Its URL.
fn fake_server(answer: fn(&str) -> (&'static str, String)) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{BufRead, BufReader, Read, Write};
        for conn in listener.incoming().flatten() {
            let mut reader = BufReader::new(conn);
            let mut request_line = String::new();
            let _ = reader.read_line(&mut request_line);
            let mut length = 0;
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
            }
            let _ = reader.by_ref().take(length).read_to_end(&mut Vec::new());
            let (content_type, body) = answer(&request_line);
            let mut conn = reader.into_inner();
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[test]
fn another_protocol_version_is_reported() {
    let url = fake_server(|_| {
        let body = r#"{"status":"ok","version":"9.9.9","api_protocol_version":999}"#;
        ("application/json", body.to_string())
    });
    let o = cli_at(&url, &["devices"]);
    assert_exit(&o, 3);
    assert!(stderr(&o).contains("protocol 999"), "{}", stderr(&o));
}

#[test]
fn a_flow_run_that_cannot_go_on_says_why() {
    // A streamed run whose device went offline after its first step: the server's last event
    // is the error envelope.
    let url = fake_server(|request_line| {
        if request_line.starts_with("GET /health") {
            let health = serde_json::json!({"status": "ok", "version": "0.1.0",
                "api_protocol_version": mobilectl::API_PROTOCOL_VERSION});
            return ("application/json", health.to_string());
        }
        let step = serde_json::json!({"step": {"title": "tapOn \"LOG IN\"", "command": "tapOn",
            "file": "login.yaml", "line": 3, "depth": 0, "status": "passed", "duration_ms": 7}});
        let error = serde_json::json!({"error": {"code": "DEVICE_OFFLINE",
            "message": "device `emulator-5554` went offline", "retryable": true,
            "hint": "reconnect it"}});
        let events = format!("event: step\nid: 0\ndata: {step}\n\nevent: error\ndata: {error}\n\n");
        ("text/event-stream", events)
    });
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("login.yaml");
    std::fs::write(&flow, "appId: com.example\n---\n- tapOn: LOG IN\n").unwrap();
    let junit = dir.path().join("junit.xml");
    let o = cli_at(
        &url,
        &[
            "flow",
            "run",
            flow.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
    );
    // DEVICE_OFFLINE's exit code, its message and hint, after the step that ran.
    assert_exit(&o, 1);
    assert!(stdout(&o).contains("tapOn \"LOG IN\""), "{}", stdout(&o));
    assert!(!stdout(&o).contains("DEVICE_OFFLINE"), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("mobilectl: DEVICE_OFFLINE: device `emulator-5554` went offline")
            && err.contains("hint: reconnect it"),
        "{err}"
    );
    assert!(!err.contains("without its result"), "{err}");
    assert!(junit.exists(), "the report is still written");
}

fn read_pid(dir: &Path, port: u16) -> i32 {
    let p = dir.join(format!("server-{port}.pid"));
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn autostart_from_cold_then_reuse() {
    let state = tempfile::tempdir().unwrap();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let run = || {
        Command::new(BIN)
            .arg("doctor")
            .env("MOBILECTL_URL", &url)
            .env("MOBILECTL_STATE_DIR", state.path())
            .env("MOBILECTL_CACHE_DIR", state.path().join("cache"))
            .env_remove("MOBILECTL_TOKEN")
            .output()
            .unwrap()
    };
    let first = run();
    let log = state.path().join(format!("server-{port}.log"));
    let pid = read_pid(state.path(), port);
    let stop = || common::sigterm(pid as u32);
    let checks = std::panic::catch_unwind(|| {
        assert!(
            first.status.code() == Some(0),
            "{}\n{}",
            stdout(&first),
            stderr(&first)
        );
        assert!(
            stderr(&first).contains("started a server"),
            "{}",
            stderr(&first)
        );
        assert!(stdout(&first).contains("overall:"), "{}", stdout(&first));
        assert!(log.exists());

        let second = run();
        assert_exit(&second, 0);
        assert!(!stderr(&second).contains("started"), "{}", stderr(&second));
        assert_eq!(read_pid(state.path(), port), pid);
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text.matches("listening on").count(), 1, "{text}");
    });
    stop();
    let gone = wait_until(Duration::from_secs(10), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
    });
    if let Err(e) = checks {
        std::panic::resume_unwind(e);
    }
    assert!(gone, "the autostarted server did not stop on SIGTERM");
}

#[test]
fn clients_started_together_start_one_server() {
    let state = tempfile::tempdir().unwrap();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let children: Vec<Child> = (0..3)
        .map(|_| {
            Command::new(BIN)
                .arg("doctor")
                .env("MOBILECTL_URL", &url)
                .env("MOBILECTL_STATE_DIR", state.path())
                .env("MOBILECTL_CACHE_DIR", state.path().join("cache"))
                .env_remove("MOBILECTL_TOKEN")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let pid = read_pid(state.path(), port);
    common::sigterm(pid as u32);
    let started = outs
        .iter()
        .filter(|o| stderr(o).contains("started a server"))
        .count();
    for o in &outs {
        assert_exit(o, 0);
    }
    let errs: Vec<String> = outs.iter().map(stderr).collect();
    assert_eq!(started, 1, "{errs:#?}");
    let log = std::fs::read_to_string(state.path().join(format!("server-{port}.log"))).unwrap();
    assert_eq!(log.matches("listening on").count(), 1, "{log}");
    assert!(wait_until(Duration::from_secs(10), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
    }));
}

#[test]
fn audit_from_file_runs_offline_in_every_format() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let dump = root.join("virtual_device/demo_login.xml");
    let png = root.join("virtual_device/demo_login.png");
    let (dump, png) = (dump.to_str().unwrap(), png.to_str().unwrap());
    let dead = format!("http://127.0.0.1:{}", free_port());
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("audit.json");
    let drawn = dir.path().join("audit.png");
    let base = [
        "audit",
        "--from-file",
        dump,
        "--screenshot",
        png,
        "--density",
        "420",
    ];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        cli_at(&dead, &a)
    };
    // Text: the summary line first; two hint contrast errors fail --fail-on error.
    let text = with(&["--fail-on", "error"]);
    assert_exit(&text, 1);
    let out = stdout(&text);
    assert!(out.starts_with("4 findings: 2 errors, 2 warnings"), "{out}");
    // JSON, saved as a baseline: against itself nothing is new, and --fail-on passes.
    let json = with(&["--format", "json"]);
    assert_exit(&json, 0);
    std::fs::write(&saved, stdout(&json)).unwrap();
    let again = with(&["--baseline", saved.to_str().unwrap(), "--fail-on", "info"]);
    assert_exit(&again, 0);
    assert!(
        stdout(&again).starts_with("no new findings"),
        "{}",
        stdout(&again)
    );
    // SARIF 2.1.0 and JUnit.
    let sarif = with(&["--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&sarif)).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(v["runs"][0]["results"].as_array().unwrap().len(), 4);
    let junit = with(&["--format", "junit", "--fail-on", "warning"]);
    assert!(
        stdout(&junit).contains("failures=\"2\""),
        "{}",
        stdout(&junit)
    );
    // The picture is the screenshot's size, with the findings drawn.
    let annotated = with(&["--annotate", drawn.to_str().unwrap()]);
    assert_exit(&annotated, 0);
    let bytes = std::fs::read(&drawn).unwrap();
    assert_eq!(&bytes[16..24], &std::fs::read(png).unwrap()[16..24]);
    // A screenshot of another screen is a clear error.
    let other = root.join("android_uiautomator/herald_naf_attr_800x1216_cjk.xml");
    let wrong = cli_at(
        &dead,
        &[
            "audit",
            "--from-file",
            other.to_str().unwrap(),
            "--screenshot",
            png,
        ],
    );
    assert_exit(&wrong, 1);
    assert!(
        stderr(&wrong).contains("not the same screen"),
        "{}",
        stderr(&wrong)
    );
}

#[test]
fn snapshot_from_file_renders_offline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let xml = root.join("android_uiautomator/fdroid_app_list.xml");
    // A dead URL: the offline mode must not need a server.
    let dead = format!("http://127.0.0.1:{}", free_port());
    let text = cli_at(&dead, &["snapshot", "--from-file", xml.to_str().unwrap()]);
    assert_exit(&text, 0);
    assert!(
        stdout(&text).contains("[e1]") || stdout(&text).contains("e1"),
        "{}",
        stdout(&text)
    );
    let json = cli_at(
        &dead,
        &[
            "snapshot",
            "--from-file",
            xml.to_str().unwrap(),
            "--format",
            "json",
            "-i",
        ],
    );
    assert_exit(&json, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["source"], "uiautomator", "{v}");

    let axe = std::fs::read_dir(root.join("ios_axe"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let ios = cli_at(
        &dead,
        &["snapshot", "--from-file", axe.to_str().unwrap(), "--json"],
    );
    assert_exit(&ios, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout(&ios)).unwrap();
    assert_eq!(v["coordinate_space"], "points", "{v}");

    assert_exit(
        &cli_at(&dead, &["snapshot", "--from-file", "/nonexistent.xml"]),
        2,
    );
}

#[test]
fn completions_are_printed() {
    for shell in ["bash", "zsh", "fish"] {
        let o = Command::new(BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_exit(&o, 0);
        assert!(stdout(&o).contains("mobilectl"));
    }
}

/// One CLI invocation of an operation, run against the demo in order, with the exit code it
/// must end with and a text its output (stdout or stderr) must contain.
struct Case {
    op: &'static str,
    args: Vec<String>,
    exit: i32,
    says: String,
}

fn case(op: &'static str, args: &[&str], exit: i32, says: &str) -> Case {
    Case {
        op,
        args: args.iter().map(|s| s.to_string()).collect(),
        exit,
        says: says.to_string(),
    }
}

#[test]
fn every_operation_runs_from_the_cli_against_the_demo() {
    // No emulator binary, so `boot --avd` answers TOOL_MISSING on any machine. The proxy's CA
    // goes to a temporary state directory, the proxy to a free port.
    let dir = tempfile::tempdir().unwrap();
    let (proxy_port, unused_port) = (free_port(), free_port());
    let s = Server::start(
        true,
        &[
            ("MOBILECTL_EMULATOR", "/nonexistent/emulator"),
            ("MOBILECTL_STATE_DIR", dir.path().to_str().unwrap()),
            ("MOBILECTL_PROXY_PORT", &proxy_port.to_string()),
            ("MOBILECTL_PROXY_ALLOW_LOCAL", &unused_port.to_string()),
        ],
    );
    let shot = dir.path().join("plain.png");
    let annotated = dir.path().join("annotated.png");
    let ca = dir.path().join("ca.pem");
    let (shot, annotated, ca) = (
        shot.to_str().unwrap(),
        annotated.to_str().unwrap(),
        ca.to_str().unwrap(),
    );
    // One flow to read: the proxy answers a request to a port nothing listens on (a port of
    // this host the server was told devices may reach).
    assert_exit(&s.cli(&["proxy", "start"]), 0);
    let refused = request_through_proxy(proxy_port, unused_port);
    assert!(refused.starts_with("HTTP/1.1 502"), "{refused}");
    let bundle = dir.path().join("bundle");
    let bundle = bundle.to_str().unwrap();
    let video = dir.path().join("run.mp4");
    let video = video.to_str().unwrap();
    // A Maestro flow that reads the screen whatever it shows.
    let flow = dir.path().join("noop.yaml");
    std::fs::write(
        &flow,
        "name: noop\n---\n- runFlow: {when: {platform: iOS}, commands: [back]}\n- waitForAnimationToEnd\n",
    )
    .unwrap();
    // A suite of that one flow, for `flow test`.
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    std::fs::copy(&flow, suite.join("noop.yaml")).unwrap();
    let suite = suite.to_str().unwrap();
    let suite_body = serde_json::json!({"files": {
        "noop.yaml": std::fs::read_to_string(&flow).unwrap()
    }})
    .to_string();
    let flow = flow.to_str().unwrap();
    let junit = dir.path().join("junit.xml");
    let junit = junit.to_str().unwrap();
    let recorded = dir.path().join("recorded.yaml");
    let recorded = recorded.to_str().unwrap();

    let v: serde_json::Value =
        serde_json::from_str(&stdout(&s.cli(&["--json", "devices"]))).unwrap();
    let udid = v["devices"][0]["udid"]
        .as_str()
        .expect("the demo device")
        .to_string();
    let tree = stdout(&s.cli(&["snapshot", "-i"]));
    let user = format!("@{}", common::ref_of(&tree, "username"));
    let pass = format!("@{}", common::ref_of(&tree, "password"));
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&s.cli(&["--json", "snapshot"]))).unwrap();
    let login_fp = v["fingerprint"].as_str().unwrap().to_string();
    let saved_audit = dir.path().join("login-audit.json");
    std::fs::write(&saved_audit, stdout(&s.cli(&["audit", "--format", "json"]))).unwrap();
    let saved_audit = saved_audit.to_str().unwrap();

    let cases = vec![
        case("health", &["health"], 0, "ok · mobilectl"),
        case("doctor", &["doctor"], 0, "overall:"),
        case("list_devices", &["devices"], 0, &udid),
        case("get_device", &["device", &udid], 0, "can: "),
        case("set_active_device", &["use", &udid], 0, "active device:"),
        case("get_active_device", &["active"], 0, "active device:"),
        case("snapshot", &["snapshot", "-i"], 0, "LOG IN"),
        case("screen_summary", &["summary"], 0, "fingerprint"),
        case("find", &["find", "log in"], 0, "button"),
        case("screenshot", &["screenshot", "-o", shot], 0, "saved"),
        case(
            "screenshot_annotated",
            &["screenshot", "--annotate", "-o", annotated],
            0,
            "saved",
        ),
        // Against the screenshot just taken: nothing changed.
        case(
            "screenshot_diff",
            &["screenshot", "diff", "--previous"],
            0,
            "changed 0.00% · 0 regions (px) · baseline previous",
        ),
        // The demo's hints are #757575 on #f5f5f5 (4.23:1): errors, so --fail-on error exits 1.
        case(
            "audit",
            &["audit", "--fail-on", "error"],
            1,
            "text-contrast e1 textbox \"Username\" · 4.23:1",
        ),
        // The same, as an expectation; against the screen's own saved audit nothing is new.
        case(
            "expect",
            &["expect", "accessible"],
            1,
            "expect FAILED ACCESSIBILITY_FINDINGS · 2 findings at or above error: text-contrast @e1 textbox \"Username\"",
        ),
        case(
            "expect",
            &["expect", "accessible", "--baseline", saved_audit, "--fail-on", "info"],
            0,
            "expect ok",
        ),
        case(
            "expect",
            &["expect", "matches", "--previous", "--tolerance", "0"],
            0,
            "expect ok",
        ),
        // Target first, then text first: both type into the right field.
        case(
            "type_text",
            &["type", &user, "alice@example.com"],
            0,
            "type ",
        ),
        case(
            "type_text",
            &["type", "secret", &pass, "--no-verify"],
            0,
            "type ",
        ),
        case(
            "expect",
            &["expect", "text", "id:username", "alice@example.com"],
            0,
            "expect ok",
        ),
        case("hide_keyboard", &["hide-keyboard"], 0, "ok"),
        case("tap_element", &["tap-element", "Remember me"], 0, "ok"),
        case("long_press", &["long-press", "text:Remember me"], 0, "ok"),
        // Nothing moves on the login screen: a short wait for a change times out (exit 1).
        case(
            "wait_for_change",
            &["wait-for-change", "--timeout-ms", "400"],
            1,
            "timeout",
        ),
        case("tap", &["tap", "text:LOG IN"], 0, " ok"),
        case(
            "wait_for_change",
            &["wait-for-change", &login_fp, "--timeout-ms", "10000"],
            0,
            "changed",
        ),
        case(
            "wait",
            &["wait", "text:Allow", "--condition", "visible"],
            0,
            "wait success",
        ),
        case("alert_dismiss", &["alert", "dismiss"], 0, "ok"),
        // No alert any more: exit 1, and the hint speaks CLI.
        case(
            "alert_accept",
            &["alert", "accept"],
            1,
            "hint: read the screen with `mobilectl snapshot`",
        ),
        case(
            "expect",
            &["expect", "visible", "text:\"Order #1001\""],
            0,
            "expect ok",
        ),
        case(
            "batch",
            &[
                "batch",
                "--observe",
                "--step",
                "expect visible 'text:Order #1001'",
                "--step",
                "scroll --observe",
            ],
            0,
            "batch ok (2 steps)",
        ),
        case("scroll", &["scroll"], 0, "ok"),
        case("scroll_to", &["scroll-to", "text:\"Order #1002\""], 0, "ok"),
        case("swipe", &["swipe", "500,1500", "500,900"], 0, "ok"),
        case(
            "long_press",
            &["long-press", "text:\"Order #1001\""],
            0,
            "ok",
        ),
        // The log: the list screen's error, one entry followed then the stream ends, no
        // crash so far.
        case(
            "tail_logs",
            &["logs", "--level", "W", "--app", "com.mobilectl.demo"],
            0,
            "E DemoApp: avatar fetch failed",
        ),
        case(
            "stream_logs",
            &["logs", "-f", "--since", "5m", "--tag", "DemoApp", "-n", "1"],
            0,
            "DemoApp: LoginActivity shown  [com.mobilectl.demo]",
        ),
        case("list_crashes", &["crashes"], 0, "no crashes"),
        case("get_crash", &["crashes", "c000000000000"], 1, "NOT_FOUND"),
        case("debug_bundle", &["debug-bundle", "-o", bundle], 0, "saved"),
        case(
            "perf",
            &["perf", "--app", "com.mobilectl.demo", "--window-ms", "100"],
            0,
            "com.mobilectl.demo (pid ",
        ),
        case("perf", &["perf", "--app", "com.example.absent"], 1, "NOT_FOUND"),
        case(
            "perf_start",
            &["perf", "start", "--app", "com.mobilectl.demo", "--interval-ms", "1"],
            2,
            "VALIDATION_FAILED",
        ),
        case(
            "perf_start",
            &["perf", "start", "--app", "com.mobilectl.demo", "--interval-ms", "100"],
            0,
            "sampling every 100 ms",
        ),
        case(
            "perf_start",
            &["perf", "start", "--app", "com.mobilectl.demo"],
            1,
            "PERF_WINDOW_ACTIVE",
        ),
        case("perf_stop", &["perf", "stop"], 0, " samples over "),
        case("perf_stop", &["perf", "stop"], 1, "NO_PERF_WINDOW"),
        case(
            "recording_start",
            &["record", "start", "--max-s", "60"],
            0,
            " recording · ",
        ),
        case(
            "recording_start",
            &["record", "start"],
            1,
            "RECORDING_ACTIVE",
        ),
        // Runs: the server's run (session-less requests) is live; an unknown run is a 404.
        case("list_runs", &["runs"], 0, " · live · server · "),
        case("list_runs", &["runs", "-n", "1"], 0, "run "),
        case(
            "get_run",
            &["runs", "show", "20200101-000000-abcdef"],
            1,
            "RUN_NOT_FOUND",
        ),
        case(
            "get_artifact",
            &[
                "runs",
                "artifact",
                "20200101-000000-abcdef",
                "x.png",
                "-o",
                shot,
            ],
            1,
            "RUN_NOT_FOUND",
        ),
        case(
            "delete_run",
            &["runs", "delete", "20200101-000000-abcdef"],
            1,
            "RUN_NOT_FOUND",
        ),
        case("gc", &["gc", "--dry-run"], 0, "gc (dry run): 0 deleted"),
        case("press", &["press", "back"], 0, "ok"),
        case("list_recordings", &["recordings"], 0, " recording · "),
        case("recording_stop", &["record", "stop"], 0, " finished · "),
        case("recording_stop", &["record", "stop"], 1, "NOT_RECORDING"),
        case(
            "get_recording",
            &["recording", "get", "rec-none", "-o", video],
            1,
            "NOT_FOUND",
        ),
        case(
            "delete_recording",
            &["recording", "delete", "rec-none"],
            1,
            "NOT_FOUND",
        ),
        case("open_url", &["open", "https://example.com"], 0, "ok"),
        // The demo server has no build root: builds are refused, saying how to allow them.
        case("build_app", &["app", "build", "shop", "--json"], 1, "--build-root"),
        case("build_app_stream", &["app", "build", "shop"], 1, "--build-root"),
        case("list_builds", &["app", "builds"], 0, "no build is running"),
        case(
            "cancel_build",
            &["app", "build-cancel", "bld-000000000000"],
            1,
            "NOT_FOUND",
        ),
        case("list_apps", &["app", "list"], 0, "com.mobilectl.demo"),
        case(
            "launch_app",
            &[
                "app",
                "launch",
                "com.mobilectl.demo",
                "--extra",
                "username=ada",
            ],
            0,
            "ok",
        ),
        case(
            "launch_app",
            &[
                "app",
                "launch",
                "com.mobilectl.demo",
                "--relaunch",
                "--repeat",
                "2",
            ],
            0,
            "launched in 312 ms (cold start) · 2 starts: median 312 ms (312–312 ms)",
        ),
        case(
            "launch_app",
            &["app", "launch", "com.mobilectl.demo", "--warm", "--measure"],
            0,
            " frames, ",
        ),
        case(
            "launch_app",
            &["app", "launch", "com.mobilectl.demo", "--warm", "--relaunch"],
            2,
            "cannot be used with",
        ),
        case(
            "terminate_app",
            &["app", "terminate", "com.mobilectl.demo"],
            0,
            "ok",
        ),
        case(
            "reset_app",
            &["app", "reset", "com.mobilectl.demo"],
            0,
            "ok",
        ),
        case("reset_keychain", &["app", "reset-keychain"], 0, "ok"),
        case(
            "install_app",
            &["app", "install", "/nonexistent/app.apk"],
            1,
            "NOT_FOUND",
        ),
        case(
            "set_permission",
            &[
                "permission",
                "grant",
                "com.mobilectl.demo",
                "android.permission.CAMERA",
            ],
            0,
            "ok",
        ),
        // Device features: the clipboard, the orientation (restored after), intents.
        case(
            "set_clipboard",
            &["clipboard", "set", "it's $(me)"],
            0,
            "ok",
        ),
        case("get_clipboard", &["clipboard", "get"], 0, "it's $(me)"),
        case(
            "set_orientation",
            &["orientation", "set", "landscape"],
            0,
            "ok",
        ),
        case(
            "get_orientation",
            &["orientation", "get"],
            0,
            "landscape · auto-rotate off",
        ),
        case(
            "set_orientation",
            &["orientation", "set", "--restore"],
            0,
            "ok",
        ),
        case(
            "set_orientation",
            &["orientation", "set", "diagonal"],
            2,
            "portrait",
        ),
        case(
            "send_intent",
            &[
                "intent",
                "--component",
                "com.mobilectl.demo/.InboxActivity",
                "--extras",
                r#"{"key": "n", "type": "int", "value": 3}"#,
            ],
            0,
            "start ok · com.mobilectl.demo/.InboxActivity",
        ),
        case(
            "send_intent",
            &[
                "intent",
                "--action",
                "A",
                "--extras",
                r#"{"key": "n", "type": "int", "value": "x"}"#,
            ],
            2,
            "VALIDATION_FAILED",
        ),
        case(
            "push_file",
            &["files", "push", "no/such/file", "/sdcard/Download/x"],
            1,
            "NOT_FOUND",
        ),
        case(
            "pull_file",
            &["files", "pull", "/sdcard/Download/x", "../outside.bin"],
            1,
            "FORBIDDEN",
        ),
        case(
            "post_notification",
            &["notify", "--title", "Hi", "--body", "it's me"],
            0,
            "ok",
        ),
        case(
            "list_notifications",
            &["notifications"],
            0,
            "Shell · Hi: it's me",
        ),
        case(
            "biometric",
            &["biometric", "match"],
            1,
            "UNSUPPORTED_ON_PLATFORM",
        ),
        // Airplane mode on, toggled back off (the device's `cmd connectivity`), a bad value.
        case(
            "set_airplane_mode",
            &["airplane-mode", "true"],
            0,
            "airplane mode on",
        ),
        case("set_airplane_mode", &["airplane-mode"], 0, "airplane mode off"),
        case(
            "set_airplane_mode",
            &["airplane-mode", "yes"],
            2,
            "expected a boolean",
        ),
        case(
            "multi_touch",
            &[
                "multi-touch",
                "pinch",
                "--scale",
                "2",
                "--x",
                "500",
                "--y",
                "900",
            ],
            1,
            "UNSUPPORTED_ON_PLATFORM",
        ),
        case(
            "add_media",
            &["media", "add", "no/such.jpg"],
            1,
            "NOT_FOUND",
        ),
        // The demo is a physical phone: its location cannot be set over adb.
        case(
            "set_location",
            &["location", "48.85", "2.35"],
            1,
            "UNSUPPORTED_ON_PLATFORM",
        ),
        case("erase", &["erase"], 1, "UNSUPPORTED_ON_PLATFORM"),
        case(
            "status_bar",
            &["status-bar", "--time", "9:41"],
            1,
            "UNSUPPORTED_ON_PLATFORM",
        ),
        case("boot", &["boot", "--avd", "Pixel_7"], 127, "TOOL_MISSING"),
        case("shutdown", &["shutdown"], 1, "emulators and simulators"),
        case(
            "connect_device",
            &["connect", &udid],
            0,
            "already connected 127.0.0.1:",
        ),
        case(
            "connect_device",
            &["connect", "192.0.2.10:5555"],
            1,
            "--adb-connect-allow",
        ),
        case("connect_device", &["connect", "nohost"], 2, "HOST:PORT"),
        case(
            "install_helper",
            &["helper", "install", "--apks", "missing.apk"],
            1,
            "cannot be read",
        ),
        // network capture
        case(
            "proxy_start",
            &["proxy", "start"],
            0,
            "note: it was running already",
        ),
        case(
            "proxy_status",
            &["proxy", "status"],
            0,
            "proxy running on 127.0.0.1:",
        ),
        case("proxy_ca", &["proxy", "ca", "-o", ca], 0, "saved"),
        case("proxy_attach", &["proxy", "attach"], 0, "attached"),
        case(
            "list_flows",
            &["proxy", "flows"],
            0,
            "#1 GET refused http://127.0.0.1:",
        ),
        case(
            "list_flows",
            &["proxy", "flows", "--status", "9xx"],
            2,
            "status=4xx",
        ),
        case("get_flow", &["proxy", "flow", "1"], 0, "error: refused"),
        case(
            "get_flow",
            &["proxy", "flow", "99"],
            1,
            "`mobilectl proxy flows`",
        ),
        case(
            "stream_flows",
            &["proxy", "flows", "--follow", "--since", "0", "--limit", "1"],
            0,
            "#1 GET refused",
        ),
        case(
            "get_flow_summary",
            &["proxy", "summary"],
            0,
            "1 flow · error 1",
        ),
        case("proxy_detach", &["proxy", "detach"], 0, "detached"),
        case("clear_flows", &["proxy", "clear"], 0, "cleared 1 flow"),
        case(
            "add_proxy_rule",
            &[
                "proxy",
                "mock",
                "--path",
                "/api/login",
                "--status",
                "500",
                "--body",
                "down",
            ],
            0,
            "/api/login → respond 500",
        ),
        case(
            "add_proxy_rule",
            &["proxy", "mock", "--path-regex", "(["],
            2,
            "does not compile",
        ),
        case(
            "add_proxy_rule",
            &["proxy", "delay", "800", "--path", "/api/feed"],
            0,
            "/api/feed → delay 800 ms",
        ),
        case(
            "add_proxy_rule",
            &[
                "proxy",
                "fail",
                "503",
                "--host",
                "*.example.com",
                "--times",
                "1",
            ],
            0,
            "*.example.com times=1 → fail 503",
        ),
        case(
            "add_proxy_rule",
            &["proxy", "fail", "418"],
            2,
            "possible values",
        ),
        case(
            "list_proxy_rules",
            &["proxy", "rules"],
            0,
            "[hits 0, matched 0] /api/login",
        ),
        case(
            "delete_proxy_rule",
            &["proxy", "unmock", "1"],
            0,
            "respond 500",
        ),
        case(
            "delete_proxy_rule",
            &["proxy", "unmock", "1"],
            1,
            "NOT_FOUND",
        ),
        case(
            "clear_proxy_rules",
            &["proxy", "unmock-all"],
            0,
            "removed 2 rules",
        ),
        case(
            "proxy_rules_from_har",
            &["proxy", "replay-har", "--har", r#"{"log":{"entries":[]}}"#],
            2,
            "no entry with an answer",
        ),
        case(
            "set_proxy_conditions",
            &["proxy", "conditions", "--profile", "3g"],
            0,
            "link conditions: 3g · 100 ms",
        ),
        case(
            "clear_proxy_conditions",
            &["proxy", "conditions-clear"],
            0,
            "no link conditions",
        ),
        case("export_har", &["proxy", "har"], 0, "\"version\": \"1.2\""),
        case("proxy_stop", &["proxy", "stop"], 0, "proxy stopped"),
        case(
            "flow_run_stream",
            &["flow", "run", flow, "--junit", junit],
            0,
            "flow noop passed",
        ),
        case(
            "flow_run",
            &["flow", "run", flow, "--json"],
            0,
            "\"success\":true",
        ),
        case(
            "flow_test",
            &["flow", "test", suite, "--json"],
            0,
            "\"passed\":1",
        ),
        // The suite's stream has no command of its own: `call` runs it, each event told.
        case(
            "flow_test_stream",
            &["call", "flow_test_stream", &suite_body],
            0,
            "suite passed: 1 passed, 0 failed",
        ),
        case(
            "flow_record_start",
            &["flow", "record", "start"],
            0,
            "recording",
        ),
        case(
            "flow_record_stop",
            &["flow", "record", "stop", "-o", recorded],
            0,
            "recorded 0 commands",
        ),
        // Sessions, last: a named session leases the device, across CLI processes.
        case(
            "create_session",
            &["session", "start", "--name", "cli-s", "--ttl-s", "60"],
            0,
            "(cli-s) · device",
        ),
        case("list_sessions", &["sessions"], 0, "(cli-s)"),
        case("get_session", &["session", "show", "cli-s"], 0, "(cli-s)"),
        case(
            "session_info",
            &["--session", "cli-s", "session", "info"],
            0,
            "(cli-s)",
        ),
        case("press", &["press", "back"], 1, "DEVICE_LEASED"),
        case("press", &["--session", "cli-s", "press", "back"], 0, "ok"),
        case(
            "release_device",
            &["--session", "cli-s", "session", "release"],
            0,
            "released",
        ),
        case(
            "end_session",
            &["session", "end", "cli-s"],
            0,
            "no lease held",
        ),
    ];

    let covered: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.op).collect();
    let table: std::collections::BTreeSet<&str> = mobilectl::api::operations()
        .iter()
        .map(|o| o.name)
        .collect();
    assert_eq!(covered, table, "every operation needs a CLI case here");

    for c in &cases {
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        let o = s.cli(&args);
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(c.exit), "{} ({args:?}):\n{all}", c.op);
        assert!(
            all.contains(&c.says),
            "{} ({args:?}) does not say {:?}:\n{all}",
            c.op,
            c.says
        );
        assert!(
            !all.contains("/api/v1"),
            "{} ({args:?}) speaks HTTP:\n{all}",
            c.op
        );
    }
    assert!(std::fs::read(shot).unwrap().starts_with(b"\x89PNG"));
    assert!(std::fs::read(annotated).unwrap().starts_with(b"\x89PNG"));
    let pem = std::fs::read_to_string(ca).unwrap();
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----") && !pem.contains("PRIVATE"));
    let dir = std::path::Path::new(bundle);
    assert!(std::fs::read(dir.join("screenshot.jpg"))
        .unwrap()
        .starts_with(&[0xFF, 0xD8]));
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("bundle.json")).unwrap()).unwrap();
    assert_eq!(saved["screenshot"]["file"], "screenshot.jpg");
    assert!(saved["tree_text"].is_string(), "{saved}");
}

/// A plain request through the proxy on `proxy_port` to `127.0.0.1:target`; the answer.
fn request_through_proxy(proxy_port: u16, target: u16) -> String {
    use std::io::{Read, Write};
    let mut c = std::net::TcpStream::connect(("127.0.0.1", proxy_port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        c,
        "GET http://127.0.0.1:{target}/x HTTP/1.1\r\nHost: 127.0.0.1:{target}\r\n\
         Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = c.read_to_string(&mut answer);
    answer
}

#[test]
fn hints_speak_cli_but_json_is_the_servers() {
    let s = Server::start(true, &[]);
    let text = s.cli(&["tap", "@e999"]);
    assert_exit(&text, 1);
    let err = stderr(&text);
    assert!(
        err.contains("hint:") && err.contains("`mobilectl snapshot`"),
        "{err}"
    );
    assert!(!err.contains("/api/"), "{err}");
    // A request field as the flag that sets it; an example as the command line that sends it.
    let missing = s.cli(&["tap", "text:No such button"]);
    assert_exit(&missing, 1);
    assert!(stderr(&missing).contains("try `--contains`"), "{missing:?}");
    let half = s.cli(&["location", "48.8584"]);
    assert!(
        stderr(&half).contains("e.g. `mobilectl location 48.8584 2.2945`"),
        "{half:?}"
    );
    let json = s.cli(&["--json", "tap", "@e999"]);
    assert_exit(&json, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert!(
        v["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("/api/v1/device/ui"),
        "{v}"
    );
}

#[test]
fn help_does_not_show_environment_values() {
    for env in [None, Some("http://10.0.0.9:1234")] {
        let mut cmd = Command::new(BIN);
        cmd.arg("--help").env_remove("MOBILECTL_UDID");
        match env {
            Some(v) => cmd.env("MOBILECTL_URL", v),
            None => cmd.env_remove("MOBILECTL_URL"),
        };
        let o = cmd.output().unwrap();
        assert_exit(&o, 0);
        let help = stdout(&o);
        assert!(help.contains("[env: MOBILECTL_URL]"), "{help}");
        assert!(help.contains("[default: http://127.0.0.1:9100]"), "{help}");
        assert!(!help.contains("MOBILECTL_URL="), "{help}");
        assert!(!help.contains("10.0.0.9"), "{help}");
        assert!(!help.contains("MOBILECTL_UDID="), "{help}");
    }
}

/// Runs the binary with its stdout a pipe whose reader is gone before it writes: it must end
/// quietly (exit 0, or killed by SIGPIPE as `head` expects), never panic.
fn assert_quiet_on_closed_stdout(args: &[&str]) {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(BIN)
        .args(args)
        .arg("--no-autostart")
        .env("MOBILECTL_URL", format!("http://127.0.0.1:{}", free_port()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The output is larger than a pipe holds, so the write fails whatever the timing.
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?} is not quiet: {err}");
    assert!(
        o.status.success() || o.status.signal() == Some(libc::SIGPIPE),
        "{args:?}: {:?}",
        o.status
    );
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let big = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/android_uiautomator/androidtv_philo_channels_1920x1080.xml");
    let big = big.to_str().unwrap();
    assert_quiet_on_closed_stdout(&["openapi"]);
    assert_quiet_on_closed_stdout(&["snapshot", "--from-file", big, "--format", "json"]);
    assert_quiet_on_closed_stdout(&["completions", "bash"]);
}

/// `mobilectl call OP …` against `serve --demo`: the same answers (with `--json`) and the same
/// error codes as the HTTP routes, for a GET with a query, POST bodies, a bad body and a
/// path parameter; an unknown name is a usage error naming the close ones.
#[test]
fn call_answers_as_the_http_route() {
    let s = Server::start(true, &[]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let http = |method: &str, path: &str, body: Option<&str>| -> (u16, serde_json::Value) {
        rt.block_on(async {
            let c = reqwest::Client::new();
            let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
            let mut r = c.request(m, format!("{}{path}", s.url));
            if let Some(b) = body {
                r = r
                    .header("content-type", "application/json")
                    .body(b.to_string());
            }
            let a = r.send().await.unwrap();
            let status = a.status().as_u16();
            (status, a.json().await.unwrap())
        })
    };
    let call = |args: &[&str], exit: i32| -> serde_json::Value {
        let o = s.cli(&[&["call"], args, &["--json"]].concat());
        assert_exit(&o, exit);
        serde_json::from_str(&stdout(&o))
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&o)))
    };

    // A GET with a query.
    let (st, devices) = http("GET", "/api/v1/device/list", None);
    assert_eq!(st, 200);
    let by_call = call(&["list_devices"], 0);
    let udids = |v: &serde_json::Value| -> Vec<String> {
        v["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["udid"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(udids(&by_call), udids(&devices));
    assert!(!udids(&devices).is_empty());

    let (_, snap) = http("GET", "/api/v1/device/ui?format=json", None);
    let by_call = call(&["snapshot", "format=json"], 0);
    assert_eq!(by_call["fingerprint"], snap["fingerprint"]);
    assert_eq!(
        by_call["elements"].as_array().map(Vec::len),
        snap["elements"].as_array().map(Vec::len)
    );

    // POST bodies, given whole after --json or as key=value pairs.
    let expect = r#"{"kind":"element_visible","selector":{"text":"LOG IN"}}"#;
    let (st, direct) = http("POST", "/api/v1/device/ui/expect", Some(expect));
    assert_eq!((st, &direct["success"]), (200, &serde_json::json!(true)));
    let by_call = call(&["expect", expect], 0);
    assert_eq!(by_call["success"], direct["success"]);
    assert_eq!(by_call["observed"], direct["observed"]);
    let pairs = call(&["expect", "kind=element_visible", "selector.text=Nope"], 1);
    assert_eq!(pairs["success"], serde_json::json!(false));

    let tree = stdout(&s.cli(&["snapshot", "-i"]));
    let user = common::ref_of(&tree, "username");
    let tap = format!(r#"{{"ref":"{user}"}}"#);
    let (st, direct) = http("POST", "/api/v1/device/ui/tap", Some(&tap));
    assert_eq!(st, 200, "{direct}");
    let by_call = call(&["tap", &format!("ref={user}")], 0);
    for field in ["action_type", "success", "target"] {
        assert_eq!(by_call[field], direct[field], "{field}");
    }
    // Text output is the renderer's line.
    let o = s.cli(&["call", "tap", &format!("ref={user}")]);
    assert_exit(&o, 0);
    assert!(stdout(&o).starts_with("tap "), "{}", stdout(&o));

    // A bad body: the same refusal.
    let bad = r#"{"ref":"e1","nope":1}"#;
    let (st, direct) = http("POST", "/api/v1/device/ui/tap", Some(bad));
    assert!((400..500).contains(&st), "{st} {direct}");
    let by_call = call(&["tap", bad], 2);
    assert_eq!(by_call["error"]["code"], direct["error"]["code"]);

    // Path parameters: unknown ids are the same 404s.
    for (op, path) in [
        ("get_flow", "/api/v1/proxy/flows/987654"),
        ("get_crash", "/api/v1/logs/crashes/c000000000000"),
    ] {
        let (st, direct) = http("GET", path, None);
        assert_eq!(st, 404, "{path}: {direct}");
        let id = path.rsplit('/').next().unwrap();
        let by_call = call(&[op, &format!("id={id}")], 1);
        assert_eq!(by_call["error"]["code"], direct["error"]["code"], "{op}");
    }

    // A stream prints its events; an image is saved with -o.
    let o = s.cli(&["call", "stream_logs", "since=5m", "tag=DemoApp", "limit=1"]);
    assert_exit(&o, 0);
    assert!(
        stdout(&o).contains("DemoApp: LoginActivity shown"),
        "{}",
        stdout(&o)
    );
    let dir = std::env::temp_dir().join(format!("mobilectl-call-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("s.png");
    let o = s.cli(&["call", "screenshot", "-o", png.to_str().unwrap()]);
    assert_exit(&o, 0);
    assert!(stdout(&o).starts_with("saved "), "{}", stdout(&o));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let _ = std::fs::remove_dir_all(&dir);

    // Unknown names, a missing path parameter, the list.
    let o = s.cli(&["call", "tapp"]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("tap"), "{}", stderr(&o));
    assert_exit(&s.cli(&["call", "get_flow"]), 2);
    let list = s.cli(&["call"]);
    assert_exit(&list, 0);
    assert_eq!(
        stdout(&list).lines().count(),
        mobilectl::api::operations().len()
    );
}

/// `flow test DIR`: a suite as Maestro runs one. The workspace `config.yaml` selects the flows
/// (globs, tags) and orders them; each runs on the demo through the server; one JUnit report,
/// a JSON index, and the exit code of the worst outcome. With `continueOnFailure: false` the
/// flows after a failure are not run.
#[test]
fn a_suite_runs_the_flows_its_config_selects_in_order_with_one_report() {
    let s = Server::start(true, &[]);
    let tmp = tempfile::tempdir().unwrap();
    let write = |dir: &Path, rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let suite = tmp.path().join("suite");
    let login = "appId: com.mobilectl.demo\nname: login\ntags: [smoke]\n---\n- launchApp: {clearState: true}\n- assertVisible: \"LOG IN\"\n";
    let missing = "appId: com.mobilectl.demo\ntags: [smoke]\n---\n- extendedWaitUntil: {visible: \"Nope\", timeout: 300}\n";
    write(
        &suite,
        "config.yaml",
        "flows:\n  - '**'\nexcludeTags: [wip]\nexecutionOrder:\n  flowsOrder: [login]\n",
    );
    write(&suite, "a_missing.yaml", missing);
    write(&suite, "z_login.yaml", login);
    write(&suite, "wip/draft.yaml", "tags: [wip]\n---\n- back\n");
    write(&suite, "more/invalid.yaml", "- frobnicate\n");
    let (junit, report) = (tmp.path().join("suite.xml"), tmp.path().join("suite.json"));
    let out = s.cli(&[
        "flow",
        "test",
        suite.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_exit(&out, 2);
    assert!(
        stdout(&out).contains("1 passed, 1 failed, 1 invalid, 0 not run (1 left out by tags)"),
        "{}",
        stdout(&out)
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let by = common::suite_outcomes(&r);
    // `flowsOrder` first, then the rest by path; the draft left out by its tag.
    assert_eq!(
        by,
        [
            ("z_login.yaml", "passed"),
            ("a_missing.yaml", "failed"),
            ("more/invalid.yaml", "invalid")
        ],
        "{r}"
    );
    assert_eq!(r["left_out"], serde_json::json!(["wip/draft.yaml"]), "{r}");
    assert_eq!(r["flows"][0]["tags"], serde_json::json!(["smoke"]));
    assert!(r["flows"][1]["artifacts"].is_string(), "{r}");
    assert!(
        r["flows"][2]["error"]
            .as_str()
            .unwrap()
            .contains("unknown command"),
        "{r}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 3, "{xml}");

    // Tags from the command line narrow it: the smoke flows only (exit 1: one fails).
    let out = s.cli(&[
        "flow",
        "test",
        suite.to_str().unwrap(),
        "--include-tags",
        "smoke",
    ]);
    assert_exit(&out, 1);
    assert!(
        stdout(&out).contains("1 passed, 1 failed, 0 invalid"),
        "{}",
        stdout(&out)
    );

    // A suite that stops at its first failure leaves the rest not run.
    let stop = tmp.path().join("stop");
    write(
        &stop,
        "config.yml",
        "executionOrder:\n  continueOnFailure: false\n  flowsOrder: [a_missing, login]\n",
    );
    write(&stop, "a_missing.yaml", missing);
    write(&stop, "z_login.yaml", login);
    let out = s.cli(&[
        "flow",
        "test",
        stop.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_exit(&out, 1);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["flows"][1]["status"], "not_run", "{r}");
    assert_eq!(
        (r["failed"].as_u64(), r["not_run"].as_u64()),
        (Some(1), Some(1)),
        "{r}"
    );

    // A suite that is wrong is refused before anything runs.
    write(&stop, "config.yml", "flows: ['../**']\n");
    let out = s.cli(&["flow", "test", stop.to_str().unwrap()]);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("reaches outside the suite's folder"),
        "{}",
        stderr(&out)
    );
}

/// `flow test --shards 2`: the suite split between two demo devices, each leased by a session
/// of its own, and one merged report that says which device ran each flow; `--shard-all` runs
/// every flow on both. More shards than free devices is refused, and leaves no lease behind.
#[test]
fn a_suite_shards_across_two_devices_with_one_merged_report() {
    let server = common::demo_server::DemoServer::start_with(None, 2);
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    for name in ["a", "b", "c", "d"] {
        std::fs::write(
            suite.join(format!("{name}.yaml")),
            "appId: com.mobilectl.demo\n---\n- launchApp: {clearState: true}\n- assertVisible: \"LOG IN\"\n",
        )
        .unwrap();
    }
    let (junit, report) = (tmp.path().join("suite.xml"), tmp.path().join("suite.json"));
    let run = |extra: &[&str]| {
        let o = Command::new(BIN)
            .args(["--url", &server.url, "--no-autostart", "flow", "test"])
            .arg(&suite)
            .args([
                "--junit",
                junit.to_str().unwrap(),
                "--report",
                report.to_str().unwrap(),
            ])
            .args(extra)
            .output()
            .unwrap();
        let r: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(&report).unwrap_or_else(|_| "null".into()),
        )
        .unwrap();
        (o, r)
    };
    let devices_of = |r: &serde_json::Value| {
        let mut by: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for f in r["flows"].as_array().unwrap() {
            assert_eq!(f["status"], "passed", "{f}");
            by.entry(f["udid"].as_str().unwrap().to_string())
                .or_default()
                .push(f["file"].as_str().unwrap().to_string());
        }
        by
    };
    let (o, r) = run(&["--shards", "2"]);
    assert_exit(&o, 0);
    let by = devices_of(&r);
    assert_eq!(by.len(), 2, "{r}");
    let mut files: Vec<String> = by.values().flatten().cloned().collect();
    files.sort();
    assert_eq!(
        files,
        ["a.yaml", "b.yaml", "c.yaml", "d.yaml"],
        "each flow once: {r}"
    );
    assert!(by.values().all(|f| f.len() == 2), "{by:?}");
    assert!(
        stdout(&o).contains("suite ") && stdout(&o).contains("4 passed"),
        "{}",
        stdout(&o)
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 4, "{xml}");

    let (o, r) = run(&["--shards", "2", "--shard-all"]);
    assert_exit(&o, 0);
    let by = devices_of(&r);
    assert!(by.len() == 2 && by.values().all(|f| f.len() == 4), "{by:?}");

    let (o, _) = run(&["--shards", "3"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("shard 3 of 3 found no free device"),
        "{}",
        stderr(&o)
    );
    // The two leases made for it were given back.
    let (o, _) = run(&["--shards", "2"]);
    assert_exit(&o, 0);
}
