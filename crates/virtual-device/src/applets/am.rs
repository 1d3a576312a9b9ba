//! App lifecycle stand-ins: `am` (start [-W] [-S] [-n CMP | -a ACTION -d URI], force-stop,
//! broadcast, kill), `pm` (list packages [-3], path, clear, grant, revoke, install, uninstall),
//! `monkey -p PKG … 1`, and `cmd package|activity|input|window|connectivity …`.
//!
//! Installs record a package name: from the APK's binary manifest (a real APK), else from a
//! `package=NAME` (or `package="NAME"`) marker in the
//! first 64 KiB of the file (the test APKs are text files carrying one), else from the file name
//! (`app-debug.apk` → `app.debug`). Installed packages have no UI: they are listed, have a
//! path, can be cleared and uninstalled, but starting them shows nothing new. The
//! instrumentations a manifest declares (`<instrumentation android:name=… android:targetPackage=…>`)
//! are recorded for `pm list instrumentation` and `am instrument` ([`crate::uia2`]).

use super::AppletResult;
use crate::state::{DeviceState, IME_PKG, LAUNCHER_PKG};
use crate::Device;
use base64::Engine;

const SYSTEM_PACKAGES: &[&str] = &[
    "android",
    "com.android.systemui",
    "com.android.settings",
    LAUNCHER_PKG,
    IME_PKG,
    "com.android.permissioncontroller",
    "com.android.shell",
    // Chrome: the demo's Custom Tab (its `tab` screen) runs in its process.
    "com.android.chrome",
];

fn known(st: &DeviceState, pkg: &str) -> bool {
    pkg == st.app.spec.package || st.installed.contains_key(pkg) || SYSTEM_PACKAGES.contains(&pkg)
}

/// Broadcasts only the system may send (a few of Android's protected broadcasts).
const PROTECTED_BROADCASTS: &[&str] = &[
    "android.intent.action.AIRPLANE_MODE",
    "android.intent.action.BOOT_COMPLETED",
    "android.intent.action.BATTERY_CHANGED",
];

/// Package of the ADB Keyboard IME, which types `am broadcast -a ADB_INPUT_B64 --es msg …`.
const ADB_KEYBOARD: &str = "com.android.adbkeyboard";

pub fn am(dev: &Device, args: &[String]) -> AppletResult {
    let Some(sub) = args.first() else {
        return AppletResult::fail(1, "usage: am [subcommand] [options]\n");
    };
    let rest = &args[1..];
    let mut st = dev.state();
    match sub.as_str() {
        "start" | "start-activity" => start(&mut st, rest),
        "force-stop" | "kill" => {
            if let Some(pkg) = rest.iter().rev().find(|a| !a.starts_with('-')) {
                if pkg == &st.app.spec.package {
                    st.force_stop();
                } else {
                    st.force_stop_other(pkg);
                }
                if crate::uia2::is_server_package(pkg) {
                    drop(st);
                    crate::uia2::force_stop(dev, pkg);
                    st = dev.state();
                }
                st.log(
                    'I',
                    "ActivityManager",
                    &format!("Force stopping {pkg} appid=10123 user=0: from pid 4242"),
                );
            }
            AppletResult::ok("")
        }
        "broadcast" => {
            let intent = match super::intent::parse(rest) {
                Ok(i) => i,
                Err(e) => return AppletResult::fail(255, format!("{e}\n")),
            };
            let action = intent.action.as_deref().unwrap_or("null");
            // The ADB Keyboard IME (when installed) types the broadcast's text literally.
            if st.installed.contains_key(ADB_KEYBOARD) {
                let msg = intent.extra("msg").unwrap_or("");
                let text = match action {
                    "ADB_INPUT_TEXT" => Some(msg.to_string()),
                    "ADB_INPUT_B64" => base64::engine::general_purpose::STANDARD
                        .decode(msg)
                        .ok()
                        .and_then(|b| String::from_utf8(b).ok()),
                    _ => None,
                };
                if let Some(text) = text {
                    // Into the page when the WebView's Chromium has the keyboard.
                    drop(st);
                    let web = crate::web::act::type_text(dev, &text);
                    st = dev.state();
                    if !web {
                        st.type_text(&text);
                    }
                }
            }
            // The media scanner adds a scanned file to the media store.
            if action == "android.intent.action.MEDIA_SCANNER_SCAN_FILE" {
                if let Some(uri) = &intent.data {
                    st.media.push(uri.clone());
                }
            }
            let mut shown = intent.clone();
            shown.action = Some(action.to_string());
            shown.flags = Some(shown.flags.unwrap_or(0) | 0x400000);
            // Android 7+ keeps system broadcasts to the system: the shell's is refused.
            if PROTECTED_BROADCASTS.contains(&action) {
                return AppletResult::Output {
                    code: 255,
                    stdout: format!("Broadcasting: Intent {{ {} }}\n", shown.describe()).into(),
                    stderr: format!(
                        "Exception occurred while executing 'broadcast':\n\
                         java.lang.SecurityException: Permission Denial: not allowed to send \
                         broadcast {action} from pid=4242, uid=2000\n"
                    )
                    .into(),
                };
            }
            st.log(
                'I',
                "BroadcastQueue",
                &format!("Enqueued {{{}}}", shown.describe()),
            );
            AppletResult::ok(format!(
                "Broadcasting: Intent {{ {} }}\nBroadcast completed: result=0\n",
                shown.describe()
            ))
        }
        other => AppletResult::fail(255, format!("Unknown command: {other}\n")),
    }
}

fn start(st: &mut DeviceState, rest: &[String]) -> AppletResult {
    let intent = match super::intent::parse(rest) {
        Ok(i) => i,
        Err(e) => return AppletResult::fail(255, format!("{e}\n")),
    };
    let wait = intent.wait;
    if intent.stop {
        st.force_stop();
    }
    let pkg = st.app.spec.package.clone();
    let not_found = |cmp: &str| {
        let msg = format!("Starting: Intent {{ cmp={cmp} }}\nError type 3\nError: Activity class {{{cmp}}} does not exist.\n");
        AppletResult::Output {
            code: 1,
            stdout: msg.into_bytes(),
            stderr: Vec::new(),
        }
    };
    let (described, screen) = if let Some(cmp) = intent.component.as_deref() {
        let Some((p, act)) = cmp.split_once('/') else {
            return AppletResult::fail(1, format!("Error: Bad component name: {cmp}\n"));
        };
        if p != pkg {
            return not_found(cmp);
        }
        match st.screen_for_activity(act) {
            Some(s) => (intent.describe(), Some(s)),
            None => return not_found(cmp),
        }
    } else if let Some(uri) = intent.data.as_deref() {
        let mut shown = intent.clone();
        shown.action = Some(
            intent
                .action
                .clone()
                .unwrap_or_else(|| "android.intent.action.VIEW".into()),
        );
        st.last_url = Some(uri.to_string());
        st.log(
            'I',
            "ActivityTaskManager",
            &format!("START u0 {{{}}} from uid 2000", shown.describe()),
        );
        return AppletResult::ok(format!("Starting: Intent {{ {} }}\n", shown.describe()));
    } else if intent.package.as_deref() == Some(pkg.as_str()) {
        (intent.describe(), None)
    } else {
        let msg = format!(
            "Starting: Intent {{ {d} }}\nError: Activity not started, unable to resolve Intent {{ {d} flg=0x10000000 }}\n",
            d = intent.describe()
        );
        return AppletResult::Output {
            code: 1,
            stdout: msg.into_bytes(),
            stderr: Vec::new(),
        };
    };
    st.log(
        'I',
        "ActivityTaskManager",
        &format!("START u0 {{{described}}} from uid 2000"),
    );
    let cold = !st.running;
    let target = screen.filter(|s| s != &st.app.spec.initial);
    st.launch(target.as_deref());
    st.fill_from_extras(&intent.extras);
    let comp = st.focused_component();
    let mut out = format!("Starting: Intent {{ {described} }}\n");
    if wait {
        // A cold start makes the process and draws the first frame; a hot one brings the
        // running activity back (Android 10+ prints which).
        let (state, total, wait) = if cold {
            ("COLD", 312, 318)
        } else {
            ("HOT", 48, 53)
        };
        out.push_str(&format!(
            "Status: ok\nLaunchState: {state}\nActivity: {comp}\nTotalTime: {total}\nWaitTime: {wait}\nComplete\n"
        ));
    }
    AppletResult::ok(out)
}

pub fn monkey(dev: &Device, args: &[String]) -> AppletResult {
    let mut st = dev.state();
    match value_after(args, "-p") {
        Some(p) if p == st.app.spec.package => {
            st.launch(None);
            AppletResult::ok("Events injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n")
        }
        _ => AppletResult::Output {
            code: 252,
            stdout: b"** No activities found to run, monkey aborted.\n".to_vec(),
            stderr: Vec::new(),
        },
    }
}

/// The package an APK installs and the instrumentations it declares (runner, target).
/// A real APK's binary manifest says; other files (the tests' text APKs) go through the
/// markers below.
fn manifest_of(data: &[u8], file_name: &str) -> (String, Vec<(String, String)>) {
    match apk_manifest::read_manifest(data) {
        Ok(m) => {
            let runners = m
                .instrumentations
                .iter()
                .map(|i| (i.name.clone(), i.target_package.clone()))
                .collect();
            (m.package, runners)
        }
        Err(_) => (package_name_of(data, file_name), instrumentations_of(data)),
    }
}

/// `<instrumentation android:name="R" android:targetPackage="T" …>` markers in the first
/// 64 KiB (text manifests of test APKs; a relative name `.R` is the package's).
fn instrumentations_of(data: &[u8]) -> Vec<(String, String)> {
    let head = String::from_utf8_lossy(&data[..data.len().min(64 * 1024)]).into_owned();
    let attr = |tag: &str, key: &str| -> Option<String> {
        let i = tag.find(&format!("{key}=\""))? + key.len() + 2;
        Some(tag[i..].split('"').next()?.to_string())
    };
    head.split("<instrumentation")
        .skip(1)
        .filter_map(|rest| {
            let tag = rest.split('>').next()?;
            Some((
                attr(tag, "android:name")?,
                attr(tag, "android:targetPackage")?,
            ))
        })
        .collect()
}

fn package_name_of(data: &[u8], file_name: &str) -> String {
    let head = String::from_utf8_lossy(&data[..data.len().min(64 * 1024)]).into_owned();
    if let Some(i) = head.find("package=") {
        let name: String = head[i + 8..]
            .trim_start_matches('"')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
            .collect();
        if name.contains('.') {
            return name;
        }
    }
    let stem = file_name
        .rsplit('/')
        .next()
        .unwrap_or(file_name)
        .trim_end_matches(".apk");
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '.'
            }
        })
        .collect();
    if clean.contains('.') {
        clean
    } else {
        format!("com.example.{clean}")
    }
}

pub fn pm(dev: &Device, args: &[String], stdin: Vec<u8>) -> AppletResult {
    let Some(sub) = args.first() else {
        return AppletResult::fail(1, "usage: pm [subcommand] [options]\n");
    };
    let rest = &args[1..];
    let mut st = dev.state();
    let target = rest
        .iter()
        .rev()
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_default();
    match sub.as_str() {
        "list" if rest.first().map(String::as_str) == Some("packages") => {
            let third_party = rest.iter().any(|a| a == "-3");
            let filter = rest[1..]
                .iter()
                .find(|a| !a.starts_with('-'))
                .cloned()
                .unwrap_or_default();
            let mut names: Vec<String> = vec![st.app.spec.package.clone()];
            names.extend(st.installed.keys().cloned());
            if !third_party {
                names.extend(SYSTEM_PACKAGES.iter().map(|s| s.to_string()));
            }
            names.sort();
            names.dedup();
            let out: String = names
                .iter()
                .filter(|n| n.contains(&filter))
                .map(|n| format!("package:{n}\n"))
                .collect();
            AppletResult::ok(out)
        }
        "list" if rest.first().map(String::as_str) == Some("instrumentation") => {
            let filter = rest[1..].iter().find(|a| !a.starts_with('-'));
            let out: String = st
                .instrumentations
                .iter()
                .flat_map(|(pkg, list)| list.iter().map(move |(name, target)| (pkg, name, target)))
                .filter(|(_, _, target)| filter.is_none_or(|f| f == *target))
                .map(|(pkg, name, target)| {
                    format!("instrumentation:{pkg}/{name} (target={target})\n")
                })
                .collect();
            AppletResult::ok(out)
        }
        "path" => {
            if target == st.app.spec.package || st.installed.contains_key(&target) {
                AppletResult::ok(format!(
                    "package:/data/app/~~mobilectl==/{target}-1/base.apk\n"
                ))
            } else {
                AppletResult::fail(1, "")
            }
        }
        "clear" => {
            if target == st.app.spec.package {
                st.force_stop();
            }
            if crate::uia2::is_server_package(&target) {
                drop(st);
                crate::uia2::force_stop(dev, &target);
                st = dev.state();
            }
            if known(&st, &target) {
                AppletResult::ok("Success\n")
            } else {
                AppletResult::Output {
                    code: 1,
                    stdout: b"Failed\n".to_vec(),
                    stderr: Vec::new(),
                }
            }
        }
        "grant" | "revoke" => {
            let (Some(pkg), Some(perm)) = (rest.first(), rest.get(1)) else {
                return AppletResult::fail(1, "Error: no package or permission specified\n");
            };
            if !known(&st, pkg) {
                return AppletResult::fail(255, format!("Exception occurred while executing '{sub}':\njava.lang.IllegalArgumentException: Unknown package: {pkg}\n"));
            }
            let key = (pkg.clone(), perm.clone());
            if sub == "grant" {
                st.permissions.insert(key);
            } else {
                st.permissions.remove(&key);
            }
            AppletResult::ok("")
        }
        "install" | "install-streamed" => {
            let streamed = rest.iter().any(|a| a == "-S");
            let (data, name) = if streamed {
                (stdin, String::new())
            } else {
                match dev.sandbox.host_path(&target).map(std::fs::read) {
                    Some(Ok(d)) => (d, target.clone()),
                    _ => {
                        return AppletResult::fail(1, format!("Exception occurred while executing 'install':\njava.lang.IllegalArgumentException: Error: Can't open file: {target}\n"))
                    }
                }
            };
            if data.is_empty() {
                return AppletResult::Output {
                    code: 1,
                    stdout:
                        b"Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse: empty file]\n"
                            .to_vec(),
                    stderr: Vec::new(),
                };
            }
            let (pkg, instrumentations) = manifest_of(&data, &name);
            if let Some(apk) = dev.sandbox.host_path(&format!("/data/app/{pkg}-1.apk")) {
                let _ = std::fs::write(apk, &data);
            }
            st.log(
                'I',
                "PackageManager",
                &format!("Package {pkg} installed ({} bytes)", data.len()),
            );
            if instrumentations.is_empty() {
                st.instrumentations.remove(&pkg);
            } else {
                st.instrumentations.insert(pkg.clone(), instrumentations);
            }
            st.installed.insert(pkg, name);
            AppletResult::ok("Success\n")
        }
        // `cmd package resolve-activity --brief -c android.intent.category.LAUNCHER PKG`
        "resolve-activity" => {
            let spec = &st.app.spec;
            if target == spec.package {
                let activity = spec
                    .screens
                    .get(&spec.initial)
                    .map(|s| s.activity.clone())
                    .unwrap_or_default();
                AppletResult::ok(format!(
                    "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n{}/{activity}\n",
                    spec.package
                ))
            } else {
                AppletResult::ok("No activity found\n")
            }
        }
        "uninstall" => {
            if crate::uia2::is_server_package(&target) && st.installed.contains_key(&target) {
                drop(st);
                crate::uia2::force_stop(dev, &target);
                st = dev.state();
            }
            st.instrumentations.remove(&target);
            if st.installed.remove(&target).is_some() {
                AppletResult::ok("Success\n")
            } else {
                AppletResult::Output {
                    code: 1,
                    stdout: b"Failure [DELETE_FAILED_INTERNAL_ERROR]\n".to_vec(),
                    stderr: Vec::new(),
                }
            }
        }
        other => AppletResult::fail(255, format!("Unknown command: {other}\n")),
    }
}

pub fn cmd(dev: &Device, args: &[String], stdin: Vec<u8>) -> AppletResult {
    let Some(service) = args.first() else {
        return AppletResult::fail(
            1,
            "cmd: No service specified; use -l to list all running services\n",
        );
    };
    let rest = &args[1..];
    match service.as_str() {
        "package" => pm(dev, rest, stdin),
        "activity" => am(dev, rest),
        "input" => super::input::run(dev, rest),
        "window" => super::system::wm(dev, rest),
        "settings" => super::system::settings(dev, rest),
        "clipboard" => clipboard(dev, rest),
        "notification" => notification(dev, rest),
        "statusbar" => statusbar(dev, rest),
        "connectivity" => connectivity(dev, rest),
        "-l" => AppletResult::ok(
            "Currently running services:\n  activity\n  clipboard\n  connectivity\n  input\n  notification\n  package\n  settings\n  statusbar\n  window\n",
        ),
        other => AppletResult::fail(20, format!("cmd: Can't find service: {other}\n")),
    }
}

fn value_after<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// `cmd clipboard set-text TEXT` (the rest of the arguments, joined by spaces, as the
/// service reads them) and `cmd clipboard get-text` (the text and a newline; nothing when
/// the clipboard is empty).
fn clipboard(dev: &Device, args: &[String]) -> AppletResult {
    let mut st = dev.state();
    match args.first().map(String::as_str) {
        Some("set-text") => {
            st.clipboard = Some(args[1..].join(" "));
            AppletResult::ok("")
        }
        Some("get-text") => AppletResult::ok(match &st.clipboard {
            Some(t) => format!("{t}\n"),
            None => String::new(),
        }),
        _ => AppletResult::fail(
            255,
            "Clipboard service commands:\n  get-text\n  set-text TEXT\n",
        ),
    }
}

/// `cmd notification post [-t TITLE] [-S STYLE] [-i ICON] [-I ICON] [-c INTENT] TAG TEXT`.
fn notification(dev: &Device, args: &[String]) -> AppletResult {
    const USAGE: &str = "usage: cmd notification post [flags] <tag> <text>\n";
    if args.first().map(String::as_str) != Some("post") {
        return AppletResult::fail(255, USAGE);
    }
    let mut title = None;
    let mut words = Vec::new();
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-t" | "--title" => title = it.next().cloned(),
            "-S" | "--style" | "-i" | "--icon" | "-I" | "--large-icon" | "-c"
            | "--content-intent" => {
                it.next();
            }
            "-v" | "--verbose" => {}
            _ => words.push(a.clone()),
        }
    }
    let [tag, text @ ..] = words.as_slice() else {
        return AppletResult::fail(255, USAGE);
    };
    if text.is_empty() {
        return AppletResult::fail(255, USAGE);
    }
    dev.state().post_notification(crate::state::Posted {
        tag: tag.clone(),
        title,
        text: text.join(" "),
    });
    AppletResult::ok("")
}

/// `cmd statusbar expand-notifications | collapse`.
fn statusbar(dev: &Device, args: &[String]) -> AppletResult {
    let mut st = dev.state();
    match args.first().map(String::as_str) {
        Some("expand-notifications") => st.shade_open = true,
        Some("collapse") => st.shade_open = false,
        _ => {
            return AppletResult::fail(255, "usage: cmd statusbar expand-notifications|collapse\n")
        }
    }
    AppletResult::ok("")
}

/// The connectivity service's help, as Android 11+ prints it (the commands kept here).
const CONNECTIVITY_HELP: &str = "Connectivity service commands:\n  help\n    Print this help text.\n  airplane-mode [enable|disable]\n    Turn airplane mode on or off.\n  airplane-mode\n    Get airplane mode.\n";

/// `cmd connectivity airplane-mode [enable|disable]`, as Android 11+ answers it: no argument
/// prints `enabled` or `disabled` (the setting `global airplane_mode_on`), `enable` and
/// `disable` write that setting and print nothing; another argument prints the help and
/// exits 255, as does an unknown command (`Unknown command: X`).
fn connectivity(dev: &Device, args: &[String]) -> AppletResult {
    const KEY: (&str, &str) = ("global", "airplane_mode_on");
    let mut st = dev.state();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] | ["help"] | ["-h"] => AppletResult::ok(CONNECTIVITY_HELP),
        ["airplane-mode"] => {
            let on = st
                .settings
                .get(&(KEY.0.into(), KEY.1.into()))
                .is_some_and(|v| v.trim() != "0");
            AppletResult::ok(if on { "enabled\n" } else { "disabled\n" })
        }
        ["airplane-mode", verb @ ("enable" | "disable"), ..] => {
            let value = if verb == "enable" { "1" } else { "0" };
            st.settings
                .insert((KEY.0.into(), KEY.1.into()), value.into());
            AppletResult::ok("")
        }
        ["airplane-mode", ..] => AppletResult::fail(255, CONNECTIVITY_HELP),
        [other, ..] => AppletResult::fail(255, format!("Unknown command: {other}\n")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn package_names_from_marker_or_file_name() {
        assert_eq!(
            super::package_name_of(b"xx package=\"com.acme.app\" yy", "x.apk"),
            "com.acme.app"
        );
        assert_eq!(
            super::package_name_of(b"PK\x03\x04", "/data/local/tmp/app-debug.apk"),
            "app.debug"
        );
        assert_eq!(
            super::package_name_of(b"", "hello.apk"),
            "com.example.hello"
        );
    }

    #[test]
    fn instrumentations_from_a_text_manifest() {
        let manifest = br#"PK<manifest package="io.appium.uiautomator2.server.test"><instrumentation android:name="androidx.test.runner.AndroidJUnitRunner" android:targetPackage="io.appium.uiautomator2.server" /></manifest>"#;
        assert_eq!(
            super::manifest_of(manifest, "x.apk"),
            (
                "io.appium.uiautomator2.server.test".to_string(),
                vec![(
                    "androidx.test.runner.AndroidJUnitRunner".to_string(),
                    "io.appium.uiautomator2.server".to_string()
                )]
            )
        );
    }
}
