//! The `mobilectl` client commands, run as the built binary against a real server (`serve
//! --demo`: a virtual Android device behind a private adb server): the demo login flow, every
//! exit code, autostart from cold and reuse, and the offline `snapshot --from-file`.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use mobilectl::virtual_device::testing::{free_port, wait_until};

const BIN: &str = env!("CARGO_BIN_EXE_mobilectl");

/// A `mobilectl serve` subprocess, stopped with SIGTERM on drop.
struct Server {
    child: Child,
    url: String,
    adb_port: Option<u16>,
}

impl Server {
    fn start(demo: bool, env: &[(&str, &str)]) -> Server {
        let (port, adb_port) = (free_port(), free_port());
        let mut cmd = Command::new(BIN);
        cmd.args(["serve", "--addr", &format!("127.0.0.1:{port}")])
            .env_remove("MOBILECTL_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if demo {
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
        }
    }

    fn cli(&self, args: &[&str]) -> Output {
        cli_at(&self.url, args)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let _ = wait_until(Duration::from_secs(10), || {
            matches!(self.child.try_wait(), Ok(Some(_)))
        });
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(p) = self.adb_port {
            let _ = Command::new("adb")
                .args(["-P", &p.to_string(), "kill-server"])
                .output();
        }
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

/// The ref on the tree line of the element with this resource id (`… #username … [e3]`).
fn ref_of(tree: &str, id: &str) -> String {
    let line = tree
        .lines()
        .find(|l| l.contains(&format!("#{id}")))
        .unwrap_or_else(|| panic!("no #{id} in\n{tree}"));
    let start = line.find("[e").expect("a ref") + 1;
    let end = start + line[start..].find(']').unwrap();
    line[start..end].trim_start_matches("ref=").to_string()
}

#[test]
fn demo_login_flow_and_exit_codes() {
    let s = Server::start(true, &[]);

    let snap = s.cli(&["snapshot", "-i"]);
    assert_exit(&snap, 0);
    let tree = stdout(&snap);
    assert!(tree.contains("LOG IN"), "{tree}");
    let user = ref_of(&tree, "username");
    let pass = ref_of(&tree, "password");

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

#[test]
fn another_protocol_version_is_reported() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut conn in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let body = r#"{"status":"ok","version":"9.9.9","api_protocol_version":999}"#;
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let o = cli_at(&format!("http://127.0.0.1:{port}"), &["devices"]);
    assert_exit(&o, 3);
    assert!(stderr(&o).contains("protocol 999"), "{}", stderr(&o));
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
            .env_remove("MOBILECTL_TOKEN")
            .output()
            .unwrap()
    };
    let first = run();
    let log = state.path().join(format!("server-{port}.log"));
    let pid = read_pid(state.path(), port);
    let stop = || unsafe {
        libc::kill(pid, libc::SIGTERM);
    };
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
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
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
