//! The virtual Android device driven through the real adb client and server (`/usr/bin/adb`),
//! each test with its own device subprocess and private adb server.

use std::time::{Duration, Instant};

use virtual_device::testing::{wait_until, VdHarness};

const BIN: &str = env!("CARGO_BIN_EXE_mobilectl");
const DUMP: &str = "uiautomator dump /data/local/tmp/mobilectl.xml >/dev/null && cat /data/local/tmp/mobilectl.xml";

fn start() -> VdHarness {
    VdHarness::start(BIN, &[]).expect("virtual device + adb")
}

fn dump(vd: &VdHarness) -> String {
    // adb sends the first exec-out argument as is and shell-quotes the others.
    let out = vd.adb(&["exec-out", &format!("sh -c '{DUMP}'")]);
    assert!(out.success(), "dump failed: {}", out.stderr_text());
    out.stdout_text()
}

fn lcg_bytes(n: usize) -> Vec<u8> {
    let mut x: u32 = 0x1234_5678;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn connect_and_devices_lists_product_model_device() {
    let vd = start();
    let out = vd.adb_global(&["devices", "-l"]);
    let line = out
        .stdout_text()
        .lines()
        .find(|l| l.starts_with(&vd.serial))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(line.contains(" device "), "{line}");
    assert!(
        // The model carries the port, so two virtual devices never share a name.
        line.contains(&format!(
            "product:demo model:Mobilectl_Virtual_{} device:virtual",
            vd.port
        )),
        "{line}"
    );
    assert_ne!(vd.port, 0);
    assert!(!(5555..=5585).contains(&vd.port));
}

#[test]
fn shell_echo_and_exit_codes() {
    let vd = start();
    let out = vd.adb(&["shell", "echo", "hello", "world"]);
    assert_eq!(out.stdout_text(), "hello world\n");
    let out = vd.adb(&["shell", "echo out; echo err >&2; exit 3"]);
    assert_eq!(out.code, Some(3), "shell v2 carries the exit code");
    assert_eq!(out.stdout_text(), "out\n");
    assert_eq!(out.stderr_text(), "err\n");
    let out = vd.adb(&["shell", "reboot"]);
    assert!(
        out.stderr_text().contains("not found"),
        "{}",
        out.stderr_text()
    );
    let journal = vd.journal();
    assert!(journal.iter().any(|j| j["service"]
        .as_str()
        .is_some_and(|s| s.ends_with(":echo hello world"))));
}

#[test]
fn exec_out_cat_of_binary_file_is_byte_identical() {
    let vd = start();
    let data = lcg_bytes(700_000);
    std::fs::write(vd.root.join("data/local/tmp/blob.bin"), &data).unwrap();
    let out = vd.adb(&["exec-out", "cat", "/data/local/tmp/blob.bin"]);
    assert!(out.success());
    assert_eq!(out.stdout.len(), data.len());
    assert!(out.stdout == data, "bytes differ");
    assert!(vd.journal_argvs().contains(&vec![
        "cat".to_string(),
        "/data/local/tmp/blob.bin".to_string()
    ]));
}

#[test]
fn push_pull_and_ls() {
    let vd = start();
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("up.bin");
    let data = lcg_bytes(300_000);
    std::fs::write(&src, &data).unwrap();
    let out = vd.adb(&["push", src.to_str().unwrap(), "/sdcard/Download/up.bin"]);
    assert!(out.success(), "{}{}", out.stdout_text(), out.stderr_text());
    assert_eq!(
        std::fs::read(vd.root.join("sdcard/Download/up.bin")).unwrap(),
        data
    );
    let ls = vd.adb(&["shell", "ls", "/sdcard/Download"]);
    assert_eq!(ls.stdout_text(), "up.bin\n");
    let sync_ls = vd.adb(&["ls", "/sdcard/Download"]).stdout_text();
    assert!(
        sync_ls
            .lines()
            .any(|l| l.starts_with(&format!("000081a4 {:08x} ", data.len()))
                && l.ends_with(" up.bin")),
        "{sync_ls}"
    );
    let back = tmp.path().join("down.bin");
    let out = vd.adb(&[
        "pull",
        "/storage/emulated/0/Download/up.bin",
        back.to_str().unwrap(),
    ]);
    assert!(out.success(), "{}{}", out.stdout_text(), out.stderr_text());
    assert_eq!(std::fs::read(&back).unwrap(), data);
    let missing = vd.adb(&["pull", "/sdcard/nope.txt", back.to_str().unwrap()]);
    assert!(!missing.success());
}

#[test]
fn install_records_the_package() {
    let vd = start();
    let tmp = tempfile::tempdir().unwrap();
    let apk = tmp.path().join("widget.apk");
    let mut body = b"PK\x03\x04 fake apk for mobilectl tests\npackage=com.acme.widget\n".to_vec();
    body.extend(lcg_bytes(100_000));
    std::fs::write(&apk, &body).unwrap();
    let out = vd.adb(&["install", apk.to_str().unwrap()]);
    assert!(
        out.success() && out.stdout_text().contains("Success"),
        "{}{}",
        out.stdout_text(),
        out.stderr_text()
    );
    let list = vd
        .adb(&["shell", "pm", "list", "packages", "-3"])
        .stdout_text();
    assert!(
        list.lines().any(|l| l == "package:com.acme.widget"),
        "{list}"
    );
    assert!(
        list.lines().any(|l| l == "package:com.mobilectl.demo"),
        "{list}"
    );
    assert!(!list.contains("com.android.systemui"));
    let path = vd.adb(&["shell", "pm", "path", "com.acme.widget"]);
    assert!(path.stdout_text().starts_with("package:/data/app/"));
    // The legacy route: push, then pm install from the pushed path.
    let out = vd.adb(&[
        "push",
        apk.to_str().unwrap(),
        "/data/local/tmp/other-app.apk",
    ]);
    assert!(out.success());
    let out = vd.adb(&[
        "shell",
        "pm",
        "install",
        "-r",
        "/data/local/tmp/other-app.apk",
    ]);
    assert_eq!(out.stdout_text(), "Success\n");
}

#[test]
fn input_text_arrives_literally_in_journal_and_focused_field() {
    let vd = start();
    // Tap the username field (bounds [80,700][1000,840]) to focus it.
    assert!(vd.adb(&["shell", "input", "tap", "540", "770"]).success());
    assert_eq!(vd.state()["keyboard"], true);
    let out = vd.adb(&["shell", "input text 'a;b$(id)'"]);
    assert!(out.success(), "{}", out.stderr_text());
    let argvs = vd.journal_argvs();
    assert!(
        argvs.contains(&vec!["input".into(), "text".into(), "a;b$(id)".into()]),
        "{argvs:?}"
    );
    assert!(
        !argvs.iter().any(|a| a[0] == "id"),
        "nothing was executed: {argvs:?}"
    );
    let xml = dump(&vd);
    assert!(
        xml.contains(r#"text="a;b$(id)" resource-id="com.mobilectl.demo:id/username""#),
        "{xml}"
    );
    assert!(xml.contains(r#"focused="true""#));
    assert!(
        xml.contains(r#"package="com.google.android.inputmethod.latin""#),
        "keyboard window shown"
    );
    // %s is a space; DEL deletes the last character.
    vd.adb(&["shell", "input", "text", "x%sy"]);
    vd.adb(&["shell", "input", "keyevent", "KEYCODE_DEL"]);
    assert!(dump(&vd).contains(r#"text="a;b$(id)x " resource-id="com.mobilectl.demo:id/username""#));
    // The negative control: unquoted, the shell does run `id` — and the journal shows it.
    vd.adb(&["shell", "input text a;b$(id)"]);
    assert!(vd
        .journal_argvs()
        .iter()
        .any(|a| a == &vec!["id".to_string()]));
}

#[test]
fn screencap_png_has_screen_size_and_draws_buttons() {
    let vd = start();
    let out = vd.adb(&["exec-out", "screencap", "-p"]);
    assert!(out.success());
    assert!(out.stdout.starts_with(b"\x89PNG\r\n\x1a\n"));
    let img = image::load_from_memory(&out.stdout)
        .expect("valid PNG")
        .to_rgba8();
    assert_eq!((img.width(), img.height()), (1080, 2400));
    // The LOG IN button [80,1220][1000,1360] is filled; its left edge area has no text.
    assert_eq!(img.get_pixel(90, 1350).0, [187, 222, 251, 255]);
    assert_eq!(img.get_pixel(540, 1600).0, [255, 255, 255, 255]);
    // Text is drawn: the button holds dark pixels.
    let dark = (80..1000)
        .flat_map(|x| (1220..1360).map(move |y| (x, y)))
        .filter(|&(x, y)| img.get_pixel(x, y).0[0] < 80)
        .count();
    assert!(dark > 100, "button label drawn ({dark} dark pixels)");
    // Raw format: width, height, format 1, colour space, then RGBA.
    let raw = vd.adb(&["exec-out", "screencap"]).stdout;
    assert_eq!(&raw[..12], &[56, 4, 0, 0, 96, 9, 0, 0, 1, 0, 0, 0]);
    assert_eq!(raw.len(), 16 + 1080 * 2400 * 4);
}

#[test]
fn tap_on_button_changes_screen_and_focus_reported_by_dumpsys() {
    let vd = start();
    let before = dump(&vd);
    assert!(before.contains("LOG IN"));
    // The same dump with the script as a separate argument (adb quotes it for the device).
    let split = vd.adb(&["exec-out", "sh", "-c", DUMP]).stdout_text();
    assert_eq!(split, before);
    let focus = vd.adb(&["shell", "dumpsys", "window"]).stdout_text();
    assert!(
        focus.contains("mCurrentFocus=Window{7d1c2e3 u0 com.mobilectl.demo/.LoginActivity}"),
        "{focus}"
    );
    vd.adb(&["shell", "input", "tap", "540", "1290"]);
    let after = dump(&vd);
    assert!(
        after.contains("com.android.permissioncontroller:id/permission_allow_button"),
        "{after}"
    );
    vd.adb(&["shell", "input", "tap", "540", "1270"]);
    assert!(dump(&vd).contains("Order #1001"));
    // A long press is a zero-distance swipe.
    vd.adb(&["shell", "input", "swipe", "540", "400", "540", "400", "800"]);
    assert_eq!(vd.state()["screen"], "detail");
    vd.adb(&["shell", "input", "keyevent", "4"]);
    assert_eq!(vd.state()["screen"], "list");
    let act = vd
        .adb(&["shell", "dumpsys", "activity", "activities"])
        .stdout_text();
    assert!(
        act.contains(
            "mResumedActivity: ActivityRecord{5a6b7c8 u0 com.mobilectl.demo/.InboxActivity t12}"
        ),
        "{act}"
    );
}

#[test]
fn app_lifecycle_and_system_stand_ins() {
    let vd = start();
    let out = vd.adb(&["shell", "am", "force-stop", "com.mobilectl.demo"]);
    assert!(out.success());
    assert_eq!(vd.state()["package"], "com.android.launcher3");
    let out = vd
        .adb(&[
            "shell",
            "am",
            "start",
            "-W",
            "-n",
            "com.mobilectl.demo/.LoginActivity",
        ])
        .stdout_text();
    assert!(
        out.contains("LaunchState: COLD") && out.contains("Complete"),
        "{out}"
    );
    let out = vd.adb(&[
        "shell",
        "monkey",
        "-p",
        "com.mobilectl.demo",
        "-c",
        "android.intent.category.LAUNCHER",
        "1",
    ]);
    assert!(out.stdout_text().contains("Events injected: 1"));
    assert_eq!(
        vd.adb(&["shell", "wm", "size"]).stdout_text(),
        "Physical size: 1080x2400\n"
    );
    assert_eq!(
        vd.adb(&["shell", "getprop", "ro.product.model"])
            .stdout_text(),
        format!("Mobilectl_Virtual_{}\n", vd.port)
    );
    assert_eq!(
        vd.adb(&["shell", "getprop", "ro.build.version.sdk"])
            .stdout_text(),
        "34\n"
    );
    vd.adb(&[
        "shell",
        "settings",
        "put",
        "global",
        "stay_on_while_plugged_in",
        "3",
    ]);
    assert_eq!(
        vd.adb(&[
            "shell",
            "settings",
            "get",
            "global",
            "stay_on_while_plugged_in"
        ])
        .stdout_text(),
        "3\n"
    );
    assert!(vd
        .adb(&[
            "shell",
            "pm",
            "grant",
            "com.mobilectl.demo",
            "android.permission.POST_NOTIFICATIONS"
        ])
        .success());
    assert!(!vd
        .adb(&[
            "shell",
            "pm",
            "grant",
            "com.nope",
            "android.permission.CAMERA"
        ])
        .success());
    assert_eq!(
        vd.adb(&["shell", "pm", "clear", "com.mobilectl.demo"])
            .stdout_text(),
        "Success\n"
    );
    let log = vd
        .adb(&["shell", "logcat", "-d", "-v", "threadtime"])
        .stdout_text();
    assert!(log.starts_with("--------- beginning of main\n"));
    assert!(
        log.contains(" I ActivityTaskManager: START u0 {cmp=com.mobilectl.demo/.LoginActivity}"),
        "{log}"
    );
    let bc = vd
        .adb(&["shell", "am", "broadcast", "-a", "com.example.PING"])
        .stdout_text();
    assert!(bc.contains("Broadcast completed: result=0"));
    assert!(vd
        .adb(&["shell", "cmd", "package", "list", "packages"])
        .stdout_text()
        .contains("package:android\n"));
}

/// `cmd connectivity airplane-mode` as Android 11+ has it, kept in the setting
/// `global airplane_mode_on` that `settings` reads; the shell's `AIRPLANE_MODE` broadcast
/// (the old way) is refused, as on Android 7+.
#[test]
fn airplane_mode_through_the_connectivity_service() {
    let vd = start();
    let air = |args: &[&str]| {
        let mut argv = vec!["shell", "cmd", "connectivity", "airplane-mode"];
        argv.extend_from_slice(args);
        vd.adb(&argv)
    };
    let setting = || {
        vd.adb(&["shell", "settings", "get", "global", "airplane_mode_on"])
            .stdout_text()
    };
    assert_eq!(air(&[]).stdout_text(), "disabled\n");
    assert_eq!(setting(), "0\n");
    let on = air(&["enable"]);
    assert!(on.success() && on.stdout_text().is_empty(), "{}", said(&on));
    assert_eq!(air(&[]).stdout_text(), "enabled\n");
    assert_eq!(setting(), "1\n");
    assert_eq!(vd.state()["airplane_mode"], true);
    vd.adb(&[
        "shell",
        "settings",
        "put",
        "global",
        "airplane_mode_on",
        "0",
    ]);
    assert_eq!(air(&[]).stdout_text(), "disabled\n");
    let wrong = air(&["on"]);
    assert!(!wrong.success(), "{}", said(&wrong));
    assert!(said(&wrong).contains("airplane-mode [enable|disable]"));
    let unknown = vd.adb(&["shell", "cmd", "connectivity", "fly"]);
    assert!(said(&unknown).contains("Unknown command: fly"));
    assert!(vd
        .adb(&["shell", "cmd", "-l"])
        .stdout_text()
        .contains("  connectivity\n"));
    let bc = vd.adb(&[
        "shell",
        "am",
        "broadcast",
        "-a",
        "android.intent.action.AIRPLANE_MODE",
        "--ez",
        "state",
        "true",
    ]);
    assert!(!bc.success());
    assert!(
        said(&bc).contains("SecurityException: Permission Denial"),
        "{}",
        said(&bc)
    );
    assert_eq!(vd.state()["airplane_mode"], false);
}

#[test]
fn fault_failing_dumps() {
    let vd = start();
    vd.control(&["fail-dumps", "2"]).unwrap();
    for _ in 0..2 {
        let out = vd.adb(&[
            "exec-out",
            "sh -c 'uiautomator dump /data/local/tmp/f.xml; echo rc=$?'",
        ]);
        assert_eq!(
            out.stdout_text(),
            "ERROR: could not get idle state.\nrc=0\n"
        );
    }
    assert!(dump(&vd).starts_with(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    ));
}

#[test]
fn fault_latency() {
    let vd = start();
    vd.control(&["latency", "400"]).unwrap();
    let t = Instant::now();
    assert!(vd.adb(&["shell", "true"]).success());
    assert!(
        t.elapsed() >= Duration::from_millis(400),
        "{:?}",
        t.elapsed()
    );
    vd.control(&["latency", "0"]).unwrap();
    let t = Instant::now();
    assert!(vd.adb(&["shell", "true"]).success());
    assert!(t.elapsed() < Duration::from_millis(400));
}

#[test]
fn fault_dropped_connection() {
    let vd = start();
    // A long command in flight dies with the connection.
    let vd_ref = &vd;
    std::thread::scope(|s| {
        let h = s.spawn(move || vd_ref.adb(&["shell", "sleep 20; echo never"]));
        assert!(wait_until(Duration::from_secs(10), || vd_ref
            .journal_argvs()
            .iter()
            .any(|a| a[0] == "sleep")));
        vd_ref.control(&["drop"]).unwrap();
        let out = h.join().unwrap();
        assert!(!out.stdout_text().contains("never"));
        assert!(!out.timed_out);
    });
    // The adb server reconnects by itself (a fresh CNXN handshake) and the device serves again.
    let back = wait_until(Duration::from_secs(15), || {
        vd.adb(&["shell", "echo", "back"]).stdout_text() == "back\n"
    });
    assert!(back);
}

#[test]
fn fault_offline() {
    let vd = start();
    vd.control(&["offline", "on"]).unwrap();
    assert!(wait_until(Duration::from_secs(15), || vd.adb_state()
        == "error: device offline"));
    let out = vd.adb(&["shell", "echo", "x"]);
    assert!(
        !out.success() && out.stderr_text().contains("offline"),
        "{}",
        out.stderr_text()
    );
    assert_eq!(vd.state()["offline"], true);
    vd.control(&["offline", "off"]).unwrap();
    // The pending handshake is answered: adb lists the device again without a new connect.
    assert!(
        vd.wait_for_state("device", Duration::from_secs(20)),
        "device back online"
    );
    assert_eq!(vd.adb(&["shell", "echo", "x"]).stdout_text(), "x\n");
}

#[test]
fn fixture_dumps_drive_a_scripted_app() {
    let dir = tempfile::tempdir().unwrap();
    let fx = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/android_uiautomator/");
    std::fs::copy(
        format!("{fx}react_native_wdio_demo_login.xml"),
        dir.path().join("login.xml"),
    )
    .unwrap();
    std::fs::copy(
        format!("{fx}pixel_launcher_popup_menu.xml"),
        dir.path().join("popup.xml"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("app.json"),
        r#"{"package":"com.wdiodemoapp","initial":"login","screens":{
            "login":{"xml":"login.xml","activity":".MainActivity",
                     "transitions":[{"tap":{"desc":"button-LOGIN"},"to":"popup"}]},
            "popup":{"xml":"popup.xml","activity":".PopupActivity","back":"@back"}}}"#,
    )
    .unwrap();
    let vd = VdHarness::start(BIN, &["--app", dir.path().to_str().unwrap()]).unwrap();
    let xml = dump(&vd);
    assert!(xml.contains("content-desc=\"button-LOGIN\""));
    let b = xml.split("content-desc=\"button-LOGIN\"").nth(1).unwrap();
    let bounds = b
        .split("bounds=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let nums: Vec<i32> = bounds
        .split(['[', ']', ','])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let (x, y) = ((nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2);
    vd.adb(&["shell", "input", "tap", &x.to_string(), &y.to_string()]);
    assert_eq!(vd.state()["screen"], "popup");
    let png = vd.adb(&["exec-out", "screencap", "-p"]).stdout;
    let img = image::load_from_memory(&png).unwrap();
    assert_eq!(
        (img.width(), img.height()),
        (1080, 2424),
        "size of the initial screen"
    );
    vd.adb(&["shell", "input", "keyevent", "BACK"]);
    assert_eq!(vd.state()["screen"], "login");
}

#[test]
fn legacy_shell_without_v2_and_interactive_shell() {
    let vd = VdHarness::start(BIN, &["--no-shell-v2"]).unwrap();
    let out = vd.adb(&["shell", "echo out; echo err >&2; exit 3"]);
    assert_eq!(
        out.stdout_text(),
        "out\nerr\n",
        "legacy shell mixes stdout and stderr"
    );
    assert!(vd
        .journal()
        .iter()
        .any(|j| j["service"] == "shell:echo out; echo err >&2; exit 3"));
    let vd2 = start();
    let out = vd2.adb_with_input(&["shell"], b"echo one\nx=2; echo $((x+1))\nexit 4\n");
    assert_eq!(out.stdout_text(), "one\n3\n");
    assert_eq!(out.code, Some(4));
}

#[test]
fn keyboard_keys_password_bullets_and_open_url() {
    let vd = start();
    vd.adb(&["shell", "input", "tap", "540", "950"]); // password field [80,880][1000,1020]
    vd.adb(&["shell", "input", "text", "s3cret"]);
    let xml = dump(&vd);
    assert!(
        xml.contains(r#"text="••••••" resource-id="com.mobilectl.demo:id/password""#),
        "{xml}"
    );
    // Keyboard window: bottom 40% of the screen; its first row starts with "q".
    let key_q = xml.split(r#"content-desc="q""#).nth(1).unwrap();
    let b = key_q
        .split("bounds=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let n: Vec<i32> = b
        .split(['[', ']', ','])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    vd.adb(&[
        "shell",
        "input",
        "tap",
        &((n[0] + n[2]) / 2).to_string(),
        &((n[1] + n[3]) / 2).to_string(),
    ]);
    assert!(dump(&vd).contains(r#"text="•••••••" resource-id="com.mobilectl.demo:id/password""#));
    let out = vd.adb(&[
        "shell",
        "am",
        "start",
        "-a",
        "android.intent.action.VIEW",
        "-d",
        "https://example.com/x?a=1",
    ]);
    assert!(out.stdout_text().contains("dat=https://example.com/x?a=1"));
    assert_eq!(vd.state()["last_url"], "https://example.com/x?a=1");
}

#[test]
fn in_process_device_for_serve_demo() {
    use virtual_device::{
        run_demo_for_serve,
        testing::{adb_path, free_port, run_with_timeout},
    };
    let adb_port = free_port();
    virtual_device::testing::ensure_user_adb_key(&adb_path());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dev = rt
        .block_on(run_demo_for_serve(BIN.into(), &adb_path(), Some(adb_port)))
        .expect("demo device connected");
    let adb = |args: &[&str]| {
        let mut c = std::process::Command::new(adb_path());
        c.arg("-P").arg(adb_port.to_string()).args(args);
        run_with_timeout(&mut c, Duration::from_secs(30)).unwrap()
    };
    assert_eq!(
        adb(&["-s", &dev.serial(), "shell", "echo", "hi"]).stdout_text(),
        "hi\n"
    );
    dev.fail_next_dumps(1);
    let out = adb(&["-s", &dev.serial(), "shell", "uiautomator", "dump"]);
    assert_eq!(out.stderr_text(), "ERROR: could not get idle state.\n");
    assert!(adb(&["-s", &dev.serial(), "shell", "uiautomator", "dump"])
        .stdout_text()
        .contains("/sdcard/window_dump.xml"));
    assert!(dev.root().join("sdcard/window_dump.xml").is_file());
    assert_eq!(dev.state()["screen"], "login");
    let journal = std::fs::read_to_string(dev.journal_path()).unwrap();
    assert_eq!(
        journal
            .lines()
            .filter(|l| l.contains(r#""argv":["uiautomator","dump"]"#))
            .count(),
        2
    );
    drop(dev);
    adb(&["kill-server"]);
}

/// `adb reverse` through the real adb: the forward is listed and removed as adbd does, and it
/// really tunnels — a connection to the device's port reaches the host's port through the adb
/// server, both ways.
#[test]
fn reverse_forwards_tunnel_to_the_host_through_adb() {
    use std::io::{Read, Write};
    let vd = start();
    // A host service to reach: it answers each line upper-cased.
    let host = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let host_port = host.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in host.incoming() {
            let Ok(mut c) = conn else { break };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = c.read(&mut buf) {
                    if n == 0 || c.write_all(&buf[..n].to_ascii_uppercase()).is_err() {
                        break;
                    }
                }
            });
        }
    });
    let spec = format!("tcp:{host_port}");
    let out = vd.adb(&["reverse", "tcp:9101", &spec]);
    assert!(out.success(), "{}", out.stderr_text());
    let list = vd.adb(&["reverse", "--list"]);
    assert!(
        list.stdout_text()
            .lines()
            .any(|l| l.ends_with(&format!(" tcp:9101 {spec}"))),
        "{}",
        list.stdout_text()
    );
    // An app on the device connects to its port 9101.
    let device_port = vd.state()["reverse"]["tcp:9101"]["host_port"]
        .as_u64()
        .expect("the forward's port") as u16;
    let mut app = std::net::TcpStream::connect(("127.0.0.1", device_port)).unwrap();
    app.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let big = vec![b'x'; 300_000];
    app.write_all(b"hello through adb\n").unwrap();
    let mut got = vec![0u8; 18];
    app.read_exact(&mut got).unwrap();
    assert_eq!(got, b"HELLO THROUGH ADB\n");
    // More than one adb payload each way.
    app.write_all(&big).unwrap();
    let mut back = vec![0u8; big.len()];
    app.read_exact(&mut back).unwrap();
    assert!(back.iter().all(|&b| b == b'X'));
    // Removing: gone from the list; removing again fails with adb's words.
    let out = vd.adb(&["reverse", "--remove", "tcp:9101"]);
    assert!(out.success(), "{}", out.stderr_text());
    assert_eq!(vd.adb(&["reverse", "--list"]).stdout_text().trim(), "");
    let again = vd.adb(&["reverse", "--remove", "tcp:9101"]);
    assert!(!again.success());
    assert!(
        again.stderr_text().contains("not found"),
        "{}",
        again.stderr_text()
    );
    let journaled: Vec<String> = vd
        .journal()
        .iter()
        .filter_map(|v| v["service"].as_str().map(str::to_string))
        .filter(|s| s.starts_with("reverse:"))
        .collect();
    assert!(
        journaled.contains(&format!("reverse:forward:tcp:9101;{spec}")),
        "{journaled:?}"
    );
}

/// What an adb command printed, stdout then stderr.
fn said(out: &virtual_device::testing::CmdOutput) -> String {
    out.stdout_text() + &out.stderr_text()
}

/// A name no other run uses, for a file whose absence on the host is checked.
fn unique_name(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("mobilectl-{what}-{}-{nanos}", std::process::id())
}

/// Issue #39 (item 4): `..` in a device path resolves against the device's `/`, where a `..`
/// stays, as on any file system — the pull of `/data/../../../../etc/passwd` finds no such
/// file instead of the host's, a push to `/../../../../tmp/NAME` lands in the device's `/tmp`
/// instead of the host's, and the shell's utilities see the same.
#[test]
fn sync_and_shell_paths_with_dot_dot_stay_inside_the_device() {
    let vd = start();
    let tmp = tempfile::tempdir().unwrap();
    let got = tmp.path().join("passwd");
    let out = vd.adb(&[
        "pull",
        "/data/../../../../etc/passwd",
        got.to_str().unwrap(),
    ]);
    assert!(!out.success(), "{}", said(&out));
    // adb prints its sync errors on stdout.
    assert!(said(&out).contains("does not exist"), "{}", said(&out));
    assert!(!got.exists(), "nothing of the host's was copied");
    let out = vd.adb(&["shell", "cat", "/data/../../../../etc/passwd"]);
    assert!(!out.success());
    assert!(out.stdout.is_empty(), "{}", out.stdout_text());
    assert!(
        out.stderr_text().contains("No such file"),
        "{}",
        out.stderr_text()
    );

    let name = unique_name("vd-push");
    let host_target = std::path::Path::new("/tmp").join(&name);
    let src = tmp.path().join("up.txt");
    std::fs::write(&src, b"pushed").unwrap();
    let out = vd.adb(&[
        "push",
        src.to_str().unwrap(),
        &format!("/../../../../tmp/{name}"),
    ]);
    assert!(out.success(), "{}", said(&out));
    assert!(!host_target.exists(), "nothing written on the host");
    assert_eq!(
        std::fs::read(vd.root.join("tmp").join(&name)).unwrap(),
        b"pushed",
        "the device's /tmp"
    );
}

/// A symlink in the device's folder that leads out of it (a shell command can make one) leads
/// nowhere for the device: pulls, pushes, listings and utilities through it find no such file,
/// and the host folder it names is neither read nor written.
#[test]
fn symlinks_out_of_the_device_lead_nowhere() {
    let vd = start();
    let host = tempfile::tempdir().unwrap();
    std::fs::write(host.path().join("secret"), b"host secret").unwrap();
    std::os::unix::fs::symlink(host.path(), vd.root.join("sdcard/out")).unwrap();
    std::os::unix::fs::symlink(host.path().join("later"), vd.root.join("sdcard/later")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let got = tmp.path().join("got");
    let out = vd.adb(&["pull", "/sdcard/out/secret", got.to_str().unwrap()]);
    assert!(!out.success(), "{}", said(&out));
    assert!(said(&out).contains("does not exist"), "{}", said(&out));
    assert!(!got.exists());
    let src = tmp.path().join("up.txt");
    std::fs::write(&src, b"planted").unwrap();
    for target in ["/sdcard/out/planted", "/sdcard/later"] {
        let out = vd.adb(&["push", src.to_str().unwrap(), target]);
        assert!(!out.success(), "{target}: {}", said(&out));
        assert!(
            said(&out).contains("No such file"),
            "{target}: {}",
            said(&out)
        );
    }
    let listing = vd.adb(&["ls", "/sdcard/out"]).stdout_text();
    assert!(!listing.contains("secret"), "{listing}");
    let out = vd.adb(&["shell", "cat", "/sdcard/out/secret"]);
    assert!(!out.stdout_text().contains("host secret"));
    assert!(
        out.stderr_text().contains("No such file"),
        "{}",
        out.stderr_text()
    );
    let mut left: Vec<String> = std::fs::read_dir(host.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["secret"], "nothing written on the host");
}

/// An adb server of its own (its port, its `HOME`, so its own key), killed on drop.
struct OtherAdbServer {
    home: tempfile::TempDir,
    port: u16,
}

impl OtherAdbServer {
    fn start(vendor_keys: Option<&std::path::Path>) -> OtherAdbServer {
        let server = OtherAdbServer {
            home: tempfile::tempdir().unwrap(),
            port: virtual_device::testing::free_port(),
        };
        let out = server.adb_env(vendor_keys, &["start-server"]);
        assert!(out.success(), "{}", out.stderr_text());
        server
    }

    fn adb_env(
        &self,
        vendor_keys: Option<&std::path::Path>,
        args: &[&str],
    ) -> virtual_device::testing::CmdOutput {
        let mut c = std::process::Command::new(virtual_device::testing::adb_path());
        c.env("HOME", self.home.path())
            .env("ANDROID_ADB_SERVER_PORT", self.port.to_string())
            .env_remove("ADB_VENDOR_KEYS")
            .arg("-P")
            .arg(self.port.to_string())
            .args(args);
        if let Some(keys) = vendor_keys {
            c.env("ADB_VENDOR_KEYS", keys);
        }
        virtual_device::testing::run_with_timeout(&mut c, virtual_device::testing::ADB_TIMEOUT)
            .unwrap()
    }

    fn adb(&self, args: &[&str]) -> virtual_device::testing::CmdOutput {
        self.adb_env(None, args)
    }

    /// How this adb server lists `serial` (`device`, `unauthorized`, …), if it does.
    fn state_of(&self, serial: &str) -> Option<String> {
        self.adb(&["devices"]).stdout_text().lines().find_map(|l| {
            l.strip_prefix(serial)?
                .split_whitespace()
                .next()
                .map(str::to_string)
        })
    }
}

impl Drop for OtherAdbServer {
    fn drop(&mut self) {
        self.adb(&["kill-server"]);
    }
}

/// Issue #39 (item 8): the device asks for adb's RSA authentication and accepts only the keys
/// of the user who started it. An adb server with another key (another `HOME`: the real adb
/// makes itself a fresh `adbkey` there) signs, is refused, offers its public key, and is
/// refused again: it lists the device as `unauthorized`, its `shell` fails, nothing runs on
/// the host, and the device journals the refused key. The user's own adb server is served.
#[test]
fn an_adb_server_with_another_key_is_refused() {
    let vd = start();
    let other = OtherAdbServer::start(None);
    assert!(
        other.home.path().join(".android/adbkey.pub").is_file(),
        "the other adb server made its own key"
    );
    let mark = vd
        .journal()
        .last()
        .and_then(|e| e["seq"].as_u64())
        .unwrap_or(0);
    other.adb(&["connect", &vd.serial]);
    assert!(
        wait_until(Duration::from_secs(15), || other
            .state_of(&vd.serial)
            .as_deref()
            == Some("unauthorized")),
        "{:?}",
        other.state_of(&vd.serial)
    );
    let host = tempfile::tempdir().unwrap();
    let marker = host.path().join("ran");
    let out = other.adb(&[
        "-s",
        &vd.serial,
        "shell",
        &format!("/usr/bin/touch {}", marker.display()),
    ]);
    assert!(!out.success());
    assert!(
        out.stderr_text().contains("unauthorized"),
        "{}",
        out.stderr_text()
    );
    assert!(!marker.exists(), "nothing ran on the host");
    let since: Vec<serde_json::Value> = vd
        .journal()
        .into_iter()
        .filter(|e| e["seq"].as_u64().is_some_and(|s| s > mark))
        .collect();
    assert!(
        since
            .iter()
            .all(|e| e.get("service").is_none() && e.get("argv").is_none()),
        "no service was opened: {since:?}"
    );
    assert!(
        since.iter().any(|e| e["auth_refused"].is_string()),
        "{since:?}"
    );
    // The user's own adb server is still served.
    assert_eq!(vd.adb(&["shell", "echo", "hi"]).stdout_text(), "hi\n");
}

/// adb signs with each of its keys in turn, the device answering each refused signature with
/// a fresh challenge: a server whose keys include the user's (`ADB_VENDOR_KEYS`) gets in.
#[test]
fn an_adb_server_holding_the_users_key_among_others_gets_in() {
    let vd = start();
    let home = std::env::var_os("HOME").expect("HOME");
    let users_key = std::path::Path::new(&home).join(".android/adbkey");
    let other = OtherAdbServer::start(Some(&users_key));
    other.adb(&["connect", &vd.serial]);
    assert!(
        wait_until(Duration::from_secs(15), || other
            .state_of(&vd.serial)
            .as_deref()
            == Some("device")),
        "{:?}",
        other.state_of(&vd.serial)
    );
    let out = other.adb(&["-s", &vd.serial, "shell", "echo", "in"]);
    assert_eq!(out.stdout_text(), "in\n", "{}", out.stderr_text());
}
