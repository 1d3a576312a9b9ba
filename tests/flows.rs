//! Maestro flows: the public-flow corpus checked offline (every file parses, each command
//! supported or refused clearly, the share of supported commands), bad input refused before
//! any device command, and flows run against the demo app.

use std::path::Path;

use mobilectl::flows::{check, load, parse};

/// The public flows, copied with their manifest from the shared fixture set.
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/maestro_flows");

/// Runs a flow (a `POST /api/v1/flows/run` body) and asserts it answered 200 and passed,
/// showing the run's text when not; the answer.
async fn run_green(app: &axum::Router, body: &serde_json::Value) -> serde_json::Value {
    use crate::common::*;
    let (status, r) = call(app, post("/api/v1/flows/run", body.clone())).await;
    assert_eq!(status, axum::http::StatusCode::OK, "{r}");
    assert_eq!(
        r["success"],
        true,
        "{}\n{r}",
        mobilectl::render::text("flow_run", &r)
    );
    r
}

#[test]
fn corpus_every_file_parses_and_each_command_is_supported_or_refused_clearly() {
    let root = Path::new(CORPUS);
    let report = check::check(root, &[]).expect("corpus");
    assert!(report.files.len() >= 60, "{} files", report.files.len());
    for f in &report.files {
        for r in &f.refusals {
            // Clear: a file, a line, and (for a command) the supported list or a reason.
            assert!(r.contains(".y") && r.contains(':'), "{r}");
            assert!(
                !r.contains("invalid YAML"),
                "a corpus file does not parse: {r}"
            );
            if r.contains("unknown command") || r.contains("not supported:") {
                assert!(r.contains("supported: launchApp"), "{r}");
            }
        }
    }
    let runnable = report.files.iter().filter(|f| f.runnable).count();
    eprintln!(
        "corpus: {} files, {runnable} runnable as they are; {}/{} commands supported ({:.1} %)",
        report.files.len(),
        report.supported,
        report.commands,
        report.share()
    );
    assert!(report.share() >= 75.0, "{}", report.text());
    // Workspace configs are not flows, and parse as YAML.
    for cfg in [
        "workspace_configs/duckduckgo__Android/.maestro__config.yaml",
        "workspace_configs/RocketChat__Rocket.Chat.ReactNative/.maestro__config.yml",
    ] {
        let text = std::fs::read_to_string(root.join(cfg)).expect("config");
        mobilectl::flows::yaml::parse(&text).expect("config parses");
    }
}

#[test]
fn bad_input_is_refused_quickly_before_any_device_command() {
    let started = std::time::Instant::now();
    let cases: &[(&str, &str)] = &[
        ("- tapOn: {text: [\n", "invalid YAML"),
        ("- frobnicate: 1\n", "unknown command"),
        (
            "- repeat: {times: 1000000, commands: [back]}\n",
            "more than 1000",
        ),
        ("- runFlow: sub.yaml\n", "cannot run sub-flow files"),
    ];
    for (text, want) in cases {
        let p = load::parse_text(text, &[]);
        assert!(
            p.refusals.iter().any(|r| r.message.contains(want)),
            "{text}: {:?}",
            p.refusals
        );
    }
    // A variable nothing sets is a warning, not a refusal: it may be given when the flow runs.
    let p = load::parse_text("- inputText: ${PASSWORD}\n", &[]);
    assert!(p.refusals.is_empty(), "{:?}", p.refusals);
    assert!(p.warnings[0].message.contains("`${PASSWORD}` is not set"));
    let big = format!("- inputText: \"{}\"\n", "x".repeat(10 * 1024 * 1024));
    let p = load::parse_text(&big, &[]);
    assert!(
        p.refusals[0].message.contains("at most"),
        "{:?}",
        p.refusals
    );
    let tmp = tempfile::tempdir().expect("tmp");
    let d = tmp.path().join("f");
    std::fs::create_dir(&d).expect("dir");
    std::fs::write(d.join("a.yaml"), "- runFlow: b.yaml\n").expect("a");
    std::fs::write(d.join("b.yaml"), "- runFlow: a.yaml\n").expect("b");
    std::fs::write(d.join("big.yaml"), &big).expect("big");
    std::fs::write(d.join("out.yaml"), "- runFlow: ../../etc/passwd\n").expect("out");
    std::fs::write(d.join("gone.yaml"), "- runFlow: gone/nothing.yaml\n").expect("gone");
    let r = check::check(&d, &[]).expect("check");
    let text = r.text();
    assert!(!r.ok());
    for want in [
        "cycle",
        "at most",
        "outside the flow's folder",
        "cannot be read",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(parse::SUPPORTED.len(), 43);
}

/// The demo's login, as a Maestro flow.
const LOGIN: &str = r#"appId: com.mobilectl.demo
name: demo login
env:
  USER: nobody
---
- waitForAnimationToEnd
- tapOn:
    id: "user.*"
- inputText: ${USER}
- tapOn: "LOG IN"
- extendedWaitUntil:
    visible: "Allow|ALLOW"
    timeout: 10000
- assertNotVisible: "LOG IN"
- runFlow:
    when:
      platform: iOS
    commands:
      - back
"#;

#[tokio::test]
async fn the_demo_login_flow_runs_green_through_real_adb() {
    use crate::common::android::*;
    let h = start_device();
    let app = app_for(&h);
    let body = serde_json::json!({"yaml": LOGIN, "file": "login.yaml", "env": {"USER": "alice"}});
    let r = run_green(&app, &body).await;
    let steps = r["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 7, "{r}");
    assert_eq!(steps[6]["status"], "skipped", "{r}");
    assert_eq!(steps[1]["line"], 7);
    let inputs = argvs_with(&h, "input");
    assert!(
        inputs.contains(&vec!["input".into(), "text".into(), "alice".into()]),
        "{inputs:?}"
    );
    // The runner's own time is small beside the device's.
    let device_ms: u64 = steps
        .iter()
        .map(|s| s["duration_ms"].as_u64().unwrap_or(0))
        .sum();
    eprintln!(
        "login flow: {} ms wall, {device_ms} ms in steps",
        r["duration_ms"]
    );

    // A long flow: steps per second, each a screen read and a match.
    let long = "- repeat:\n    times: 40\n    commands:\n      - assertVisible: \"Allow|ALLOW\"\n      - assertNotVisible: {id: \"username\"}\n";
    let body = serde_json::json!({"yaml": long});
    let r = run_green(&app, &body).await;
    let steps = r["steps"].as_array().expect("steps").len();
    assert_eq!(steps, 81);
    let ms = r["duration_ms"].as_u64().unwrap_or(1).max(1);
    eprintln!(
        "long flow: {steps} steps in {ms} ms: {:.0} steps/s",
        steps as f64 * 1000.0 / ms as f64
    );
}

/// Maestro's launch `arguments` reach the app as typed intent extras (the demo app fills its
/// username field from the `username` extra), `clearKeychain` is accepted on Android (which
/// has no shared keychain), and a launch's bad values are refused before any device command.
#[tokio::test]
async fn launch_arguments_reach_the_app_as_typed_intent_extras() {
    use crate::common::android::*;
    use crate::common::*;
    let h = start_device();
    let app = app_for(&h);
    let yaml = r#"appId: com.mobilectl.demo
---
- launchApp:
    clearState: true
    clearKeychain: true
    arguments:
      username: ${USER}
      remember: true
      count: 3
      ratio: 1.5
      note: "it's $(id)"
- assertVisible:
    id: "username"
    text: "alice"
"#;
    let body = serde_json::json!({"yaml": yaml, "env": {"USER": "alice"}});
    run_green(&app, &body).await;
    let starts: Vec<Vec<String>> = argvs_with(&h, "am")
        .into_iter()
        .filter(|a| a.get(1).map(String::as_str) == Some("start"))
        .collect();
    let start = starts.last().expect("an am start");
    let has = |flag: &str, key: &str, value: &str| {
        start
            .windows(3)
            .any(|w| w[0] == flag && w[1] == key && w[2] == value)
    };
    assert!(has("--es", "username", "alice"), "{start:?}");
    assert!(has("--ez", "remember", "true"), "{start:?}");
    assert!(has("--ei", "count", "3"), "{start:?}");
    assert!(has("--ed", "ratio", "1.5"), "{start:?}");
    // The device's shell got the text as one word, not as a command to run.
    assert!(has("--es", "note", "it's $(id)"), "{start:?}");

    // iOS argv on Android, and a nameless value: refused before the device is asked.
    let before = h.journal_argvs().len();
    for bad in [
        serde_json::json!({"bundle_id": "com.mobilectl.demo", "arguments": ["-x"]}),
        serde_json::json!({"bundle_id": "com.mobilectl.demo", "extras": {"": 1}}),
        serde_json::json!({"bundle_id": "com.mobilectl.demo", "extras": {"a": [1]}}),
    ] {
        let (status, body) = call(&app, post("/api/v1/device/app/launch", bad.clone())).await;
        assert_eq!(status, axum::http::StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    let after: Vec<Vec<String>> = h.journal_argvs().into_iter().skip(before).collect();
    assert!(
        !after
            .iter()
            .any(|a| a.first().map(String::as_str) == Some("am")),
        "{after:?}"
    );
}

/// The names of the artifacts of the server's run (the first run listed).
async fn server_run_artifacts(app: &axum::Router) -> Vec<String> {
    use crate::common::*;
    let (_, runs) = call(app, get("/api/v1/runs")).await;
    let id = runs["runs"][0]["id"]
        .as_str()
        .expect("the server's run")
        .to_string();
    let (_, detail) = call(app, get(&format!("/api/v1/runs/{id}"))).await;
    detail["artifacts"]
        .as_array()
        .expect("artifacts")
        .iter()
        .filter_map(|a| a["name"].as_str().map(str::to_string))
        .collect()
}

/// Every command the runner supports, once at least, on the demo (a new command must be added
/// here: the test compares this flow's commands with the supported list).
const EVERY_COMMAND: &str = r#"appId: com.mobilectl.demo
---
- clearKeychain
- addMedia: [media/cat.png]
- setPermissions:
    permissions:
      notifications: allow
- launchApp:
    clearState: true
    stopApp: true
- evalScript: ${output.typed = 'alice' + 'x'}
- runScript: scripts/check.js
- assertTrue: ${output.checked && output.typed.length == 6}
- waitForAnimationToEnd
- assertVisible: "LOG IN"
- tapOn:
    id: "username"
- inputRandomText:
    length: 6
- inputRandomNumber: {length: 4}
- inputRandomEmail
- inputRandomPersonName
- eraseText: 120
- inputText: ${output.typed}
- eraseText: 1
- copyTextFrom:
    id: "username"
- assertTrue: ${maestro.copiedText.length > 0 && maestro.copiedText == output.typed.slice(0, maestro.copiedText.length)}
- tapOn:
    id: "password"
- pasteText
- hideKeyboard
- longPressOn: "Remember me"
- doubleTapOn: "Remember me"
- pressKey: Enter
- extendedWaitUntil:
    visible: "Allow"
    timeout: 10000
- takeScreenshot: dialog
- tapOn: "Allow"
- assertNotVisible: "LOG IN"
- scroll
- swipe:
    direction: DOWN
- scrollUntilVisible:
    element: "Order #1005"
    direction: DOWN
- runFlow:
    when:
      visible: "Inbox"
    commands:
      - tapOn: "Order #1001"
- repeat:
    times: 2
    commands:
      - assertVisible: "SEND"
- retry:
    maxRetries: 1
    commands:
      - assertVisible: "Notify me"
- back
- startRecording: every
- setLocation:
    latitude: 52.52
    longitude: 13.40
    optional: true
- travel:
    points: ["52.52, 13.40", "52.53, 13.40"]
    speed: 10000
    optional: true
- stopRecording
- setOrientation: LANDSCAPE_LEFT
- setOrientation: PORTRAIT
- setAirplaneMode: enabled
- toggleAirplaneMode
- openLink: https://example.com
- stopApp
- killApp
- clearState
"#;

#[tokio::test]
async fn every_supported_command_runs_on_the_demo() {
    use crate::common::android::*;
    let used: std::collections::BTreeSet<&str> = EVERY_COMMAND
        .lines()
        .filter_map(|l| {
            l.strip_prefix("- ")
                .or_else(|| l.trim_start().strip_prefix("- "))
        })
        .map(|c| c.split(':').next().unwrap().trim())
        .collect();
    let supported: std::collections::BTreeSet<&str> =
        mobilectl::flows::parse::SUPPORTED.iter().copied().collect();
    assert_eq!(
        used, supported,
        "the flow below uses every supported command"
    );

    let h = start_device();
    let app = app_for(&h);
    let files =
        serde_json::json!({"scripts/check.js": "output.checked = maestro.platform == 'android'"});
    let png = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(crate::common::blank_png(8, 8))
    };
    let media = serde_json::json!({"media/cat.png": png});
    let body = serde_json::json!({"yaml": EVERY_COMMAND, "file": "every.yaml", "files": files, "media": media});
    let r = run_green(&app, &body).await;
    let steps = r["steps"].as_array().expect("steps");
    // setLocation (and travel's first stop) reaches the device and is refused there: a
    // physical phone's (this virtual device's) location cannot be set over adb, only an
    // emulator's; optional, it warns.
    for s in steps {
        let want = if s["command"] == "setLocation" || s["command"] == "travel" {
            "warned"
        } else {
            "passed"
        };
        assert_eq!(s["status"], want, "{s}");
    }
    // What the commands did, as the device saw it.
    let inputs = argvs_with(&h, "input");
    assert!(
        inputs.contains(&vec!["input".into(), "text".into(), "alicex".into()]),
        "{inputs:?}"
    );
    assert!(inputs.iter().any(|a| a[1] == "swipe"), "{inputs:?}");
    // The made-up values, each typed as its kind (a name's two words typed apart, a space
    // key between them).
    let typed: Vec<&str> = inputs
        .iter()
        .filter(|a| a.len() == 3 && a[1] == "text")
        .map(|a| a[2].as_str())
        .collect();
    type Fits = fn(&str) -> bool;
    let shapes: [(&str, Fits); 3] = [
        ("text", |t| {
            t.len() == 6
                && t.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        }),
        ("number", |t| {
            t.len() == 4 && t.bytes().all(|b| b.is_ascii_digit())
        }),
        ("email", |t| t.ends_with("@example.com")),
    ];
    for (kind, fits) in shapes {
        assert!(
            typed.iter().any(|t| fits(t)),
            "no random {kind} typed: {typed:?}"
        );
    }
    let name = |t: &str| t.starts_with(char::is_uppercase) && t.chars().all(char::is_alphabetic);
    assert!(
        typed.windows(2).any(|w| name(w[0]) && name(w[1])),
        "no random person name typed: {typed:?}"
    );
    assert_eq!(argvs_with(&h, "screenrecord").len(), 1);
    let dir = std::path::PathBuf::from(r["artifacts"].as_str().expect("artifacts"));
    assert!(dir.join("dialog.png").is_file() && dir.join("every.mp4").is_file());
    let state = h.state();
    assert_eq!(state["last_url"], "https://example.com", "{state}");
    // Turned to landscape and back: the rotation the device holds is upright again.
    assert_eq!(state["rotation"], 0, "{state}");
    let rotations = argvs_with(&h, "settings");
    assert!(
        rotations
            .iter()
            .any(|a| a.iter().any(|w| w == "user_rotation")
                && a.last().map(String::as_str) == Some("1")),
        "{rotations:?}"
    );
    assert_eq!(state["running"], false, "{state}");
    // `addMedia`: the photo reached the device's gallery under its own name.
    let journal = serde_json::to_string(&h.journal()).unwrap_or_default();
    assert!(journal.contains("cat.png"), "no cat.png on the device");
    // Airplane mode turned on, then toggled back off, by the connectivity service.
    assert_eq!(state["airplane_mode"], false, "{state}");
    let airplane: Vec<Vec<String>> = argvs_with(&h, "cmd")
        .into_iter()
        .filter(|a| a.get(2).map(String::as_str) == Some("airplane-mode"))
        .collect();
    let verbs: Vec<&str> = airplane
        .iter()
        .filter_map(|a| a.get(3).map(String::as_str))
        .collect();
    assert_eq!(verbs, ["enable", "disable"], "{airplane:?}");
    // `doubleTapOn`: two taps at one point, right after `longPressOn`'s press there.
    let taps: Vec<&Vec<String>> = inputs.iter().filter(|a| a[1] == "tap").collect();
    assert!(
        taps.windows(2).any(|w| w[0] == w[1]),
        "no two taps in a row at one point: {taps:?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn start_and_stop_recording_save_the_flows_video_with_its_artifacts() {
    use crate::common::android::*;
    use crate::common::*;
    let h = start_device();
    let app = app_for(&h);
    // The second recording is left running: the end of the flow saves it, as Maestro does.
    let yaml = "appId: com.mobilectl.demo\n---\n- startRecording: login\n- tapOn: \"LOG IN\"\n- extendedWaitUntil: {visible: \"Allow|ALLOW\", timeout: 10000}\n- stopRecording\n- startRecording: {path: after}\n- assertVisible: \"Allow|ALLOW\"\n";
    let body = serde_json::json!({"yaml": yaml, "file": "rec.yaml"});
    let r = run_green(&app, &body).await;
    let dir = std::path::PathBuf::from(r["artifacts"].as_str().expect("artifacts"));
    for f in ["login.mp4", "after.mp4"] {
        let path = dir.join(f);
        assert!(test_support::media::ffprobe_duration(&path) > 0.0, "{f}");
        test_support::media::decodes_cleanly(&path);
    }
    assert_eq!(argvs_with(&h, "screenrecord").len(), 2);
    // No recording is left running on the device.
    let (status, v) = call(
        &app,
        post("/api/v1/device/recording/stop", serde_json::json!({})),
    )
    .await;
    assert_eq!(status.as_u16(), 409, "{v}");
    let _ = std::fs::remove_dir_all(dir);
    // Without a start, `stopRecording` fails its step.
    let body = serde_json::json!({"yaml": "- stopRecording\n"});
    let (_, r) = call(
        &app,
        send_json("POST", "/api/v1/flows/run", &body.to_string()),
    )
    .await;
    assert_eq!(r["success"], false, "{r}");
}

#[tokio::test]
async fn a_failed_assertion_names_its_step_in_junit_and_saves_artifacts() {
    use crate::common::android::*;
    use crate::common::*;
    let h = start_device();
    let app = app_for(&h);
    let yaml = "appId: com.mobilectl.demo\n---\n- assertVisible: \"LOG IN\"\n- extendedWaitUntil: {visible: \"Nope, not here\", timeout: 200, optional: true}\n- extendedWaitUntil:\n    visible: \"Nowhere.*\"\n    timeout: 300\n- back\n";
    let body = serde_json::json!({"yaml": yaml, "file": "fails.yaml"});
    let (status, r) = call(
        &app,
        send_json("POST", "/api/v1/flows/run", &body.to_string()),
    )
    .await;
    assert_eq!(status, axum::http::StatusCode::OK, "{r}");
    assert_eq!(r["success"], false, "{r}");
    assert_eq!(r["failed_step"], 2, "{r}");
    let steps = r["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 3, "stopped at the failure: {r}");
    assert_eq!(steps[1]["status"], "warned", "optional: {r}");
    assert_eq!(steps[2]["line"], 5);
    let dir = std::path::PathBuf::from(r["artifacts"].as_str().expect("artifacts"));
    for f in ["failure.png", "tree.txt", "steps.json"] {
        assert!(dir.join(f).is_file(), "{f} in {}", dir.display());
    }
    let tree = std::fs::read_to_string(dir.join("tree.txt")).expect("tree");
    assert!(tree.contains("LOG IN"), "{tree}");
    let result: mobilectl::api::wire::flows::FlowRunResult =
        serde_json::from_value(r.clone()).expect("result");
    let xml = mobilectl::flows::report::junit(&[result], &[]);
    assert!(xml.contains("failures=\"1\""), "{xml}");
    assert!(xml.contains("<failure message=\"extendedWaitUntil visible &quot;Nowhere.*&quot;: &quot;Nowhere.*&quot; is not visible"), "{xml}");
    assert!(xml.contains("(fails.yaml:5)"), "{xml}");
    let _ = std::fs::remove_dir_all(dir);

    // An invalid flow is refused before any device command, with its line.
    let mark = journal_mark(&h);
    let body = serde_json::json!({"yaml": "- back\n- runScript: x.js\n"});
    let (status, e) = call(
        &app,
        send_json("POST", "/api/v1/flows/run", &body.to_string()),
    )
    .await;
    assert_eq!(status.as_u16(), 400, "{e}");
    let msg = e["error"]["message"].as_str().expect("message");
    assert!(msg.contains("flow.yaml:2: `runScript`"), "{msg}");
    assert!(
        e["error"]["hint"].as_str().expect("hint").contains("tapOn"),
        "{e}"
    );
    assert!(services_since(&h, mark).is_empty(), "no device command");
}

/// The ref of the first element named `name`.
fn ref_named(snap: &serde_json::Value, name: &str) -> String {
    snap["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .find(|e| e["name"] == name && e["ref"].is_string())
        .unwrap_or_else(|| panic!("no {name} in {}", snap["tree_text"]))["ref"]
        .as_str()
        .expect("ref")
        .to_string()
}

#[tokio::test]
async fn record_by_refs_then_replay_reaches_the_same_screen() {
    use crate::common::android::*;
    use crate::common::*;
    use serde_json::json;
    let h = start_device();
    let app = app_for(&h);
    let post =
        |path: &'static str, body: serde_json::Value| send_json("POST", path, &body.to_string());

    let (status, started) = call(&app, post("/api/v1/flows/record/start", json!({}))).await;
    assert_eq!(status.as_u16(), 200, "{started}");
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let user = ref_by_id(&snap, "username");
    let pass = ref_by_id(&snap, "password");
    for (r, text) in [(&user, "alice"), (&pass, "hunter2")] {
        let (status, typed) = call(
            &app,
            post("/api/v1/device/ui/type", json!({"ref": r, "text": text})),
        )
        .await;
        assert_eq!(status.as_u16(), 200, "{typed}");
    }
    let (_, snap) = call(&app, get("/api/v1/device/ui")).await;
    let login = ref_named(&snap, "LOG IN");
    let (status, tapped) = call(&app, post("/api/v1/device/ui/tap", json!({"ref": login}))).await;
    assert_eq!(status.as_u16(), 200, "{tapped}");
    let wait = json!({"selector": {"text": "Allow"}, "condition": "visible", "timeout_ms": 10000});
    let (status, waited) = call(&app, post("/api/v1/device/ui/wait", wait)).await;
    assert_eq!(status.as_u16(), 200, "{waited}");
    let (_, end) = call(&app, get("/api/v1/device/ui")).await;

    let (status, rec) = call(
        &app,
        post(
            "/api/v1/flows/record/stop",
            json!({"app_id": "com.mobilectl.demo"}),
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{rec}");
    let yaml = rec["yaml"].as_str().expect("yaml").to_string();
    eprintln!("recorded:\n{yaml}");
    assert!(yaml.contains("- tapOn: {id: \"username\"}"), "{yaml}");
    assert!(yaml.contains("- inputText: \"alice\""), "{yaml}");
    assert!(
        yaml.contains("- inputText: ${PASSWORD}") && !yaml.contains("hunter2"),
        "{yaml}"
    );
    assert!(yaml.contains("- tapOn: {id: \"login\"}"), "{yaml}");
    assert!(
        yaml.contains("- extendedWaitUntil: {visible: {text: \"Allow\"}"),
        "{yaml}"
    );
    assert!(!yaml.contains("point"), "{yaml}");
    // Nothing more is recorded once stopped; a second stop is 404.
    let (status, _) = call(&app, post("/api/v1/flows/record/stop", json!({}))).await;
    assert_eq!(status.as_u16(), 404);

    // Relaunch the app at its first screen, replay, and reach the same screen.
    let (status, launched) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({"bundle_id": "com.mobilectl.demo", "relaunch": true}),
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{launched}");
    let (_, again) = call(&app, get("/api/v1/device/ui")).await;
    assert!(
        again["tree_text"]
            .as_str()
            .expect("tree")
            .contains("LOG IN"),
        "{}",
        again["tree_text"]
    );
    let run = json!({"yaml": yaml, "env": {"PASSWORD": "hunter2"}});
    run_green(&app, &run).await;
    let (_, replayed) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(
        replayed["fingerprint"], end["fingerprint"],
        "{}\n---\n{}",
        replayed["tree_text"], end["tree_text"]
    );
}

/// A recorded session that starts the app with named values replays from the same start: the
/// launch is recorded as `launchApp` with its `arguments`, and replaying it after the app went
/// elsewhere brings back the same screen.
#[tokio::test]
async fn a_recorded_launch_with_values_replays_the_same_start() {
    use crate::common::android::*;
    use crate::common::*;
    use serde_json::json;
    let h = start_device();
    let app = app_for(&h);
    let (status, _) = call(&app, post("/api/v1/flows/record/start", json!({}))).await;
    assert_eq!(status.as_u16(), 200);
    let launch = json!({"bundle_id": "com.mobilectl.demo", "relaunch": true, "extras": {"username": "bob", "tries": 2}});
    let (status, launched) = call(&app, post("/api/v1/device/app/launch", launch)).await;
    assert_eq!(status.as_u16(), 200, "{launched}");
    let wait = json!({"selector": {"text": "bob"}, "condition": "visible", "timeout_ms": 5000});
    let (status, waited) = call(&app, post("/api/v1/device/ui/wait", wait)).await;
    assert_eq!(status.as_u16(), 200, "{waited}");
    let (_, start) = call(&app, get("/api/v1/device/ui")).await;
    let (status, rec) = call(&app, post("/api/v1/flows/record/stop", json!({}))).await;
    assert_eq!(status.as_u16(), 200, "{rec}");
    let yaml = rec["yaml"].as_str().expect("yaml").to_string();
    assert!(
        yaml.contains("- launchApp:\n    appId: \"com.mobilectl.demo\"\n"),
        "{yaml}"
    );
    assert!(yaml.contains("\"username\": \"bob\""), "{yaml}");
    assert!(yaml.contains("\"tries\": 2"), "{yaml}");
    assert!(!yaml.contains("stopApp: false"), "{yaml}");

    // The app goes elsewhere and forgets the name; the replay starts it as recorded.
    let (status, _) = call(
        &app,
        post(
            "/api/v1/device/app/launch",
            json!({"bundle_id": "com.mobilectl.demo", "relaunch": true}),
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 200);
    let (_, plain) = call(&app, get("/api/v1/device/ui")).await;
    assert_ne!(plain["fingerprint"], start["fingerprint"]);
    run_green(&app, &json!({"yaml": yaml})).await;
    let (_, replayed) = call(&app, get("/api/v1/device/ui")).await;
    assert_eq!(replayed["fingerprint"], start["fingerprint"]);
}

#[tokio::test]
async fn retry_tap_if_no_change_taps_again_only_when_the_screen_stayed() {
    use crate::common::android::*;
    use crate::common::*;
    let h = start_device();
    let app = app_for(&h);
    let taps = |h: &virtual_device::testing::VdHarness| {
        argvs_with(h, "input")
            .into_iter()
            .filter(|a| a.get(1).map(String::as_str) == Some("tap"))
            .count()
    };
    let run = |yaml: &str| {
        let body = serde_json::json!({ "yaml": yaml });
        send_json("POST", "/api/v1/flows/run", &body.to_string())
    };
    // A static text: the tap changes nothing, so it is made twice.
    let before = taps(&h);
    let (status, r) = call(
        &app,
        run("- tapOn:\n    text: \"Welcome back\"\n    retryTapIfNoChange: true\n"),
    )
    .await;
    assert_eq!(
        (status.as_u16(), &r["success"]),
        (200, &serde_json::json!(true)),
        "{r}"
    );
    assert_eq!(taps(&h) - before, 2, "{r}");
    // Without the option: once.
    let before = taps(&h);
    let (status, r) = call(&app, run("- tapOn: \"Welcome back\"\n")).await;
    assert_eq!(
        (status.as_u16(), &r["success"]),
        (200, &serde_json::json!(true)),
        "{r}"
    );
    assert_eq!(taps(&h) - before, 1, "{r}");
    // A tap that changes the screen (the login's dialog): once.
    let before = taps(&h);
    let (status, r) = call(
        &app,
        run("- tapOn:\n    text: \"LOG IN\"\n    retryTapIfNoChange: true\n"),
    )
    .await;
    assert_eq!(
        (status.as_u16(), &r["success"]),
        (200, &serde_json::json!(true)),
        "{r}"
    );
    assert_eq!(taps(&h) - before, 1, "{r}");
}

/// `flow_run_stream` answers each step as it ends (its id its index), then the whole result,
/// the same as `flow_run` answers; a bad flow is a plain 400 before any stream; a client that
/// goes away stops the run (it saves no report, and the device is free again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_run_tells_each_step_as_it_ends_and_stops_when_its_client_goes() {
    use crate::common::android::*;
    use crate::common::sse::post_stream;
    use crate::common::*;
    use std::time::Duration;
    let h = start_device();
    let cache = tempfile::tempdir().unwrap();
    let app = crate::common::android::app_keeping_runs_in(&h, cache.path());
    let stream = |body: serde_json::Value| post_stream(&app, "/api/v1/flows/run/stream", body);

    let body = serde_json::json!({"yaml": LOGIN, "file": "login.yaml", "env": {"USER": "alice"}});
    let (status, mut events) = stream(body).await;
    assert_eq!(status.as_u16(), 200);
    let mut steps = vec![];
    let result = loop {
        let e = events
            .next(Duration::from_secs(60))
            .await
            .expect("an event before the stream ends");
        match e.event.as_str() {
            "step" => steps.push((
                e.id.parse::<usize>().expect("index"),
                e.data["step"].clone(),
            )),
            "result" => break e.data["result"].clone(),
            other => panic!("event {other}: {:?}", e.data),
        }
    };
    assert!(
        events.next(Duration::from_secs(5)).await.is_none(),
        "the stream ends"
    );
    assert_eq!(result["success"], true, "{result}");
    let all = result["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), all.len());
    for (at, step) in &steps {
        assert_eq!(&all[*at], step, "step {at}");
    }

    // A flow that cannot run is refused before any stream.
    let (status, body) = call(
        &app,
        post(
            "/api/v1/flows/run/stream",
            serde_json::json!({"yaml": "- frobnicate\n"}),
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 400, "{body}");

    // A long run whose client leaves after its first step: the device is free afterwards,
    // and the run saved no report (it would at its end).
    let long =
        "- repeat:\n    times: 1000\n    commands:\n      - assertVisible: \"Allow|ALLOW\"\n";
    let (status, mut events) = stream(serde_json::json!({"yaml": long, "file": "long.yaml"})).await;
    assert_eq!(status.as_u16(), 200);
    let first = events.next(Duration::from_secs(60)).await.expect("a step");
    assert_eq!(first.event, "step");
    drop(events);
    run_green(
        &app,
        &serde_json::json!({"yaml": "- assertVisible: \"Allow|ALLOW\"\n", "file": "short.yaml"}),
    )
    .await;
    let names = server_run_artifacts(&app).await;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert!(names.contains(&"flow-short.json"), "{names:?}");
    assert!(!names.contains(&"flow-long.json"), "{names:?}");
}

/// `flow_test_stream` tells each step with its flow as it ends (its id the flow's index, a dot,
/// the step's) and each flow's outcome as it ends (its id the flow's index), then the result
/// `flow_test` answers for the same folder; a suite that cannot start is a plain 400 before any
/// stream; a client that goes away stops the suite (the device is free again, and the suite
/// saved no report).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_suite_tells_each_step_with_its_flow_and_each_flow_and_stops_when_its_client_goes(
) {
    use crate::common::android::*;
    use crate::common::sse::post_stream;
    use crate::common::*;
    use std::time::Duration;
    let h = start_device();
    let cache = tempfile::tempdir().unwrap();
    let app = crate::common::android::app_keeping_runs_in(&h, cache.path());
    let stream = |body: serde_json::Value| post_stream(&app, "/api/v1/flows/test/stream", body);

    // `flowsOrder` runs `second` first; then the rest by path: the refused one, the failing one.
    let files = serde_json::json!({
        "config.yaml": "executionOrder: {flowsOrder: [second]}\n",
        "first.yaml": "- extendedWaitUntil: {visible: \"Nope\", timeout: 200}\n",
        "second.yaml": "appId: com.mobilectl.demo\n---\n- assertVisible: \"LOG IN\"\n- waitForAnimationToEnd\n",
        "bad.yaml": "- frobnicate\n",
    });
    let (status, whole) = call(
        &app,
        post("/api/v1/flows/test", serde_json::json!({"files": files})),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{whole}");
    let (status, mut events) = stream(serde_json::json!({"files": files})).await;
    assert_eq!(status.as_u16(), 200);
    // Every event as it came: its name, id and what it names (a step's flow, a flow's file).
    let mut told = vec![];
    let mut flows = vec![];
    let result = loop {
        let e = events
            .next(Duration::from_secs(60))
            .await
            .expect("an event before the stream ends");
        match e.event.as_str() {
            "step" => {
                let step = &e.data["step"];
                assert!(step["step"]["title"].is_string(), "{step}");
                told.push(("step", e.id, step["flow"].as_str().unwrap().to_string()));
            }
            "flow" => {
                let flow = e.data["flow"].clone();
                told.push(("flow", e.id, flow["file"].as_str().unwrap().to_string()));
                flows.push(flow);
            }
            "result" => break e.data["result"].clone(),
            other => panic!("event {other}: {:?}", e.data),
        }
    };
    assert!(
        events.next(Duration::from_secs(5)).await.is_none(),
        "the stream ends"
    );
    let told: Vec<(&str, &str, &str)> = told
        .iter()
        .map(|(kind, id, file)| (*kind, id.as_str(), file.as_str()))
        .collect();
    assert_eq!(
        told,
        [
            ("step", "0.0", "second.yaml"),
            ("step", "0.1", "second.yaml"),
            ("flow", "0", "second.yaml"),
            ("flow", "1", "bad.yaml"),
            ("step", "2.0", "first.yaml"),
            ("flow", "2", "first.yaml"),
        ]
    );
    // Each flow's event is its entry in the result, which is `flow_test`'s for the folder (but
    // for how long each took and where its artifacts went).
    assert_eq!(&serde_json::Value::from(flows), &result["flows"]);
    let timeless = |r: &serde_json::Value| {
        let mut r = r.clone();
        for f in r["flows"].as_array_mut().unwrap() {
            let f = f.as_object_mut().unwrap();
            f.remove("duration_ms");
            f.remove("artifacts");
        }
        r
    };
    assert_eq!(timeless(&result), timeless(&whole));
    assert_eq!(
        suite_outcomes(&result),
        [
            ("second.yaml", "passed"),
            ("bad.yaml", "invalid"),
            ("first.yaml", "failed")
        ]
    );

    // A suite that cannot start is refused before any stream.
    let (status, body) = call(
        &app,
        post(
            "/api/v1/flows/test/stream",
            serde_json::json!({"files": {"config.yaml": "flows: ['../*']\n", "a.yaml": "- back\n"}}),
        ),
    )
    .await;
    assert_eq!(status.as_u16(), 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("outside the suite's folder"),
        "{body}"
    );

    // A long suite whose client leaves after its first step: the device is free afterwards,
    // and the suite saved no report (it would at its end).
    let long = serde_json::json!({"files": {
        "long.yaml": "- repeat:\n    times: 1000\n    commands:\n      - assertVisible: \"LOG IN\"\n",
    }});
    let (status, mut events) = stream(long).await;
    assert_eq!(status.as_u16(), 200);
    let first = events.next(Duration::from_secs(60)).await.expect("a step");
    assert_eq!(first.event, "step");
    drop(events);
    run_green(
        &app,
        &serde_json::json!({"yaml": "- assertVisible: \"LOG IN\"\n", "file": "short.yaml"}),
    )
    .await;
    let names = server_run_artifacts(&app).await;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert!(names.contains(&"flow-short.json"), "{names:?}");
    // The two suites that ended saved theirs; the one stopped did not.
    assert!(names.contains(&"suite-2.json"), "{names:?}");
    assert!(
        !names.contains(&"suite-3.json") && !names.contains(&"flow-long.json"),
        "{names:?}"
    );
}

/// Sub-flow files `{dir}f1.yaml`… `{dir}f{n}.yaml`, each running the next `times` times (as
/// written, relative to itself), the last one `back`; for a posted flow's `files`.
fn sub_flow_files(dir: &str, n: usize, times: usize) -> std::collections::BTreeMap<String, String> {
    (1..=n)
        .map(|i| {
            let text = match i == n {
                true => "- back\n".to_string(),
                false => format!("- runFlow: f{}.yaml\n", i + 1).repeat(times),
            };
            (format!("{dir}f{i}.yaml"), text)
        })
        .collect()
}

/// Posts a flow to the real server process; its status and JSON answer.
async fn post_flow(
    server: &crate::common::demo_server::DemoServer,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let http = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(120))
        .build()
        .expect("client");
    let r = http
        .post(format!("{}/api/v1/flows/run", server.url))
        .json(body)
        .send()
        .await
        .expect("the server answers");
    let status = r.status().as_u16();
    (status, r.json().await.expect("a JSON answer"))
}

/// The server process still runs and answers `/health`.
async fn assert_alive(server: &mut crate::common::demo_server::DemoServer) {
    assert_eq!(server.exited(), None, "the server process ended");
    let health = reqwest::get(format!("{}/health", server.url))
        .await
        .expect("/health answers");
    assert_eq!(health.status().as_u16(), 200);
}

/// Issue #39, 2: a posted flow whose `runFlow` chains 300 sub-flow files (16 KB of request)
/// overflowed the server's stack and aborted it, with its devices. Nesting now counts across
/// files: a 400 names the file and line where it goes too deep, and the server stays up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_posted_chain_of_300_sub_flows_is_a_400_and_the_server_stays_up() {
    let mut server = crate::common::demo_server::DemoServer::start(None);
    let body = serde_json::json!({
        "yaml": "appId: com.mobilectl.demo\n---\n- runFlow: chain/f1.yaml\n",
        "file": "flow.yaml",
        "files": sub_flow_files("chain/", 300, 1),
    });
    let (status, r) = post_flow(&server, &body).await;
    assert_eq!(status, 400, "{r}");
    assert_eq!(r["error"]["code"], "VALIDATION_FAILED", "{r}");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("chain/f16.yaml:1: `runFlow`: ")
            && message.contains("nest deeper than 16 levels (counted across sub-flow files)"),
        "{r}"
    );
    assert_alive(&mut server).await;
}

/// Issue #39, 3: 19 posted sub-flow files that each run the next twice (1.5 KB) took the
/// server to 1.2 GB in 15 s, doubling per file. Now a clear 400 names the file and line:
/// too deep for the 19, and over the flow's step budget for 15 (under the nesting limit); the
/// server stays up, its memory (now and at its peak) bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_posted_fan_out_of_sub_flows_is_a_400_with_the_servers_memory_bounded() {
    let mut server = crate::common::demo_server::DemoServer::start(None);
    for (files, refused) in [
        (
            19,
            "f16.yaml:1: `runFlow`: `runFlow`, `repeat` and `retry` nest deeper",
        ),
        (15, ".yaml:1: the flow comes to more than 20000 steps"),
    ] {
        let body = serde_json::json!({
            "yaml": "- runFlow: f1.yaml\n- runFlow: f1.yaml\n",
            "file": "fan.yaml",
            "files": sub_flow_files("", files, 2),
        });
        let (status, r) = post_flow(&server, &body).await;
        assert_eq!(status, 400, "{files} files: {r}");
        assert_eq!(r["error"]["code"], "VALIDATION_FAILED", "{r}");
        let message = r["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(refused), "{files} files: {r}");
    }
    assert_alive(&mut server).await;
    let (now, peak) = server.memory_bytes();
    eprintln!(
        "server memory after the fan-outs: {} MiB, at its peak {} MiB",
        now >> 20,
        peak >> 20
    );
    assert!(peak < 300 << 20, "peak RSS {} MiB", peak >> 20);
}

/// Issue #39, 2: `mobilectl flow check` aborted on a 3,000-deep chain of sub-flows on disk.
/// It reports where the chain nests too deep, and exits 2 (invalid), not by a signal.
#[test]
fn flow_check_of_a_3000_deep_chain_on_disk_reports_it_and_exits_2() {
    let tmp = tempfile::tempdir().expect("tmp");
    for (name, text) in sub_flow_files("", 3000, 1) {
        std::fs::write(tmp.path().join(name), text).expect("write");
    }
    let out = std::process::Command::new(crate::common::demo_server::BIN)
        .args(["flow", "check"])
        .arg(tmp.path().join("f1.yaml"))
        .output()
        .expect("mobilectl runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{:?}: {stdout}", out.status);
    assert!(
        stdout.contains("f17.yaml:1: `runFlow`: `runFlow`, `repeat` and `retry` nest deeper"),
        "{stdout}"
    );
}

/// A run records at most `MAX_STEPS` step results: a `repeat` whose count comes from a
/// variable (unknown to the parse) stops there, failed, with why, rather than holding a
/// million results (1000 × 1001 steps that each cost no device command).
#[tokio::test]
async fn a_run_stops_at_the_step_budget_with_why() {
    use crate::common::android::*;
    use crate::common::*;
    use mobilectl::flows::budget::MAX_STEPS;
    let h = start_device();
    let app = app_for(&h);
    let yaml = "- repeat:\n    times: ${N}\n    commands:\n      - repeat:\n          times: ${N}\n          commands:\n            - runFlow: {when: {platform: iOS}, commands: [back]}\n";
    let body = serde_json::json!({"yaml": yaml, "file": "loop.yaml", "env": {"N": "1000"}});
    let (status, r) = call(&app, post("/api/v1/flows/run", body)).await;
    assert_eq!(status.as_u16(), 200, "{r}");
    assert_eq!(r["success"], false);
    let steps = r["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), MAX_STEPS + 1);
    let last = &steps[MAX_STEPS];
    assert_eq!(last["status"], "failed", "{last}");
    assert!(
        last["error"]
            .as_str()
            .unwrap_or_default()
            .contains("the run came to 20000 steps"),
        "{last}"
    );
    assert_eq!(
        (last["file"].as_str(), &last["line"]),
        (Some("loop.yaml"), &serde_json::json!(7))
    );
    assert_eq!(steps[0]["status"], "failed");
}

/// A flow nested as deep as allowed aborted the server: each level of the run took some
/// 32 KiB of a worker's 2 MiB stack (debug build), on top of the innermost operation's own.
/// The run keeps its own stack of lists now; this runs on the test's thread (2 MiB), and its
/// retry, sub-flows, repeat and optional steps end as they did: a retry's failed attempt
/// stays as warnings, an optional sub-flow's failure warns and the flow goes on.
#[tokio::test]
async fn a_flow_nested_as_deep_as_allowed_runs_on_a_workers_stack() {
    use crate::common::android::*;
    let h = start_device();
    let app = app_for(&h);
    // At depth 14: a retry whose first attempt logs in then fails, and whose second finds
    // the login gone (its sub-flow skipped); a `while` that does not hold; an optional
    // sub-flow that fails. Its innermost steps are at depth 16, the deepest allowed.
    let mut deepest = r#"- retry:
    maxRetries: 1
    commands:
      - runFlow:
          when:
            visible: "LOG IN"
          commands:
            - tapOn:
                id: "user.*"
            - inputText: ada
            - tapOn: "LOG IN"
            - extendedWaitUntil:
                visible: "Never here"
                timeout: 200
- repeat:
    while:
      visible: "LOG IN"
    commands:
      - back
- runFlow:
    optional: true
    commands:
      - extendedWaitUntil: {visible: "Never here", timeout: 200}
"#
    .to_string();
    let wrappers = parse::MAX_NESTING - 2;
    for _ in 0..wrappers {
        let inner = deepest.replace('\n', "\n      ");
        deepest = format!(
            "- repeat:\n    times: 1\n    commands:\n      {}\n",
            inner.trim_end()
        );
    }
    let body = serde_json::json!({"yaml": deepest, "file": "deep.yaml"});
    let r = run_green(&app, &body).await;
    let steps = r["steps"].as_array().expect("steps");
    let ended: Vec<(&str, &str, u64)> = steps[wrappers..]
        .iter()
        .map(|s| {
            let f = |k: &str| s[k].as_str().unwrap_or_default();
            (f("command"), f("status"), s["depth"].as_u64().unwrap_or(0))
        })
        .collect();
    let expected = [
        ("retry", "passed", 14),
        ("runFlow", "warned", 15),
        ("tapOn", "passed", 16),
        ("inputText", "passed", 16),
        ("tapOn", "passed", 16),
        ("extendedWaitUntil", "warned", 16),
        ("runFlow", "skipped", 15),
        ("repeat", "passed", 14),
        ("runFlow", "warned", 14),
        ("extendedWaitUntil", "failed", 15),
    ];
    assert_eq!(ended, expected, "{r}");
    assert!(
        steps[..wrappers].iter().all(|s| s["status"] == "passed"),
        "{r}"
    );
}

/// A variable nothing sets does not refuse the flow (CI may give it): the steps before it
/// run, and the step that needs it fails, naming the variable and how to give it.
#[tokio::test]
async fn an_unset_variable_fails_only_the_step_that_needs_it() {
    use crate::common::android::*;
    use crate::common::*;
    let h = start_device();
    let app = app_for(&h);
    let yaml = "appId: com.mobilectl.demo\n---\n- waitForAnimationToEnd\n- tapOn: {id: \"username\"}\n- inputText: ${NOBODY_SET_THIS}\n- back\n";
    let body = serde_json::json!({"yaml": yaml, "file": "unset.yaml"});
    let (status, r) = call(&app, post("/api/v1/flows/run", body)).await;
    assert_eq!(status.as_u16(), 200, "{r}");
    assert_eq!(r["success"], false, "{r}");
    let steps = r["steps"].as_array().expect("steps");
    let status_of: Vec<&str> = steps
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(status_of[..3], ["passed", "passed", "failed"], "{r}");
    let error = steps[2]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("`${NOBODY_SET_THIS}` is not set")
            && error.contains("--env NOBODY_SET_THIS="),
        "{error}"
    );
    assert!(argvs_with(&h, "input").iter().all(|a| a[1] != "text"));
    // Given at run time, the same flow passes that step.
    let body =
        serde_json::json!({"yaml": yaml, "file": "unset.yaml", "env": {"NOBODY_SET_THIS": "bob"}});
    let r = run_green(&app, &body).await;
    assert_eq!(r["steps"].as_array().map(Vec::len), Some(4), "{r}");
}

/// `flow check` warns of a variable nothing sets and still passes the file (exit 0); a
/// `MAESTRO_` variable of the shell sets it, as Maestro reads them.
#[test]
fn flow_check_warns_of_unset_variables_and_reads_maestro_host_variables() {
    let tmp = tempfile::tempdir().expect("tmp");
    let flow = tmp.path().join("login.yaml");
    std::fs::write(&flow, "appId: x\n---\n- inputText: ${MAESTRO_USER}\n").expect("write");
    let check = |host: Option<&str>| {
        let mut cmd = std::process::Command::new(crate::common::demo_server::BIN);
        cmd.args(["flow", "check"])
            .arg(&flow)
            .env_remove("MAESTRO_USER");
        if let Some(v) = host {
            cmd.env("MAESTRO_USER", v);
        }
        let out = cmd.output().expect("mobilectl runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, text) = check(None);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("warning: ")
            && text.contains("login.yaml:3: `inputText`: `${MAESTRO_USER}` is not set"),
        "{text}"
    );
    assert!(
        text.contains("1/1 files runnable (1 with warnings)"),
        "{text}"
    );
    let (code, text) = check(Some("alice"));
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("(0 with warnings)") && !text.contains("warning: "),
        "{text}"
    );
}

/// `POST /api/v1/flows/test`: a posted folder runs as a suite on the demo. Its `config.yaml`
/// selects and orders the flows; a refused flow is `invalid` and the suite goes on, or stops
/// with `continueOnFailure: false`; the suite's reports join the caller's run; a suite that
/// is wrong is a 400 before any device command.
#[tokio::test]
async fn a_posted_suite_runs_as_its_config_says() {
    use crate::common::android::*;
    use crate::common::*;
    let h = start_device();
    let app = app_for(&h);
    let passing = "appId: com.mobilectl.demo\ntags: [smoke]\n---\n- assertVisible: \"LOG IN\"\n";
    let failing = "tags: [smoke]\n---\n- extendedWaitUntil: {visible: \"Nope\", timeout: 200}\n";
    let mut files = serde_json::json!({
        "config.yaml": "flows: ['**']\nexcludeTags: [wip]\nexecutionOrder: {flowsOrder: [second]}\n",
        "first.yaml": failing,
        "second.yaml": passing,
        "wip/draft.yaml": "tags: [wip]\n---\n- back\n",
        "more/bad.yaml": "- frobnicate\n",
        "shared/sub.yaml": "- waitForAnimationToEnd\n",
        "uses_sub.yaml": "- runFlow: shared/sub.yaml\n",
    });
    let (status, r) = call(
        &app,
        post("/api/v1/flows/test", serde_json::json!({"files": files})),
    )
    .await;
    assert_eq!(status.as_u16(), 200, "{r}");
    let by = suite_outcomes(&r);
    assert_eq!(
        by,
        [
            ("second.yaml", "passed"),
            ("first.yaml", "failed"),
            ("more/bad.yaml", "invalid"),
            ("shared/sub.yaml", "passed"),
            ("uses_sub.yaml", "passed"),
        ],
        "{r}"
    );
    assert_eq!(r["success"], false);
    assert_eq!(r["left_out"], serde_json::json!(["wip/draft.yaml"]));
    assert!(
        r["flows"][1]["error"].as_str().unwrap().contains("Nope"),
        "{r}"
    );
    let artifacts = std::path::PathBuf::from(r["flows"][1]["artifacts"].as_str().unwrap());
    let junit =
        std::fs::read_to_string(artifacts.join("suite.junit.xml")).expect("the suite's JUnit");
    assert_eq!(junit.matches("<testcase ").count(), 5, "{junit}");
    assert!(junit.contains("failures=\"1\" errors=\"1\""), "{junit}");
    let _ = std::fs::remove_dir_all(artifacts);

    // Stopping at the first failure: the rest are not run.
    files["config.yaml"] = "executionOrder: {continueOnFailure: false}\n".into();
    let body = serde_json::json!({"files": files, "include_tags": ["smoke"]});
    let (_, r) = call(&app, post("/api/v1/flows/test", body)).await;
    let statuses: Vec<&str> = r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["failed", "not_run"], "{r}");

    // Wrong suites: a 400 with the reason, nothing run.
    let before = argvs_with(&h, "uiautomator").len();
    for (body, says) in [
        (
            serde_json::json!({"files": {"config.yaml": "flows: ['../*']\n", "a.yaml": "- back\n"}}),
            "outside the suite's folder",
        ),
        (
            serde_json::json!({"files": {"a.yaml": "tags: [x]\n---\n- back\n"}, "include_tags": ["y"]}),
            "no flow to run",
        ),
        (
            serde_json::json!({"files": {"a.yaml": "- back\n"}, "timeout_ms": 0}),
            "`timeout_ms` is 1 to",
        ),
    ] {
        let (status, r) = call(&app, post("/api/v1/flows/test", body)).await;
        assert_eq!(status.as_u16(), 400, "{r}");
        assert!(
            r["error"]["message"].as_str().unwrap().contains(says),
            "{says}: {r}"
        );
    }
    let many: serde_json::Map<String, serde_json::Value> = (0..2001)
        .map(|i| (format!("f{i}.yaml"), serde_json::Value::from("- back\n")))
        .collect();
    let (status, r) = call(
        &app,
        post("/api/v1/flows/test", serde_json::json!({"files": many})),
    )
    .await;
    assert_eq!(status.as_u16(), 400, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 2000 files"),
        "{r}"
    );
    assert_eq!(
        argvs_with(&h, "uiautomator").len(),
        before,
        "a refused suite read the screen"
    );
}
