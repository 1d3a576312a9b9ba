//! System stand-ins: `dumpsys` (window, activity [activities|top], input_method, display;
//! meminfo and gfxinfo in [`super::meminfo`] and [`super::gfxinfo`]),
//! `wm size|density`, `getprop`/`setprop`, `settings get|put|delete|list`.

use super::AppletResult;
use crate::state::{DeviceState, IME_PKG};
use crate::Device;

const DENSITY: u32 = 420;

pub fn props(dev: &Device, st: &DeviceState) -> Vec<(String, String)> {
    let o = &dev.opts;
    let mut v: Vec<(String, String)> = [
        ("ro.build.version.release", "14"),
        ("ro.build.version.sdk", "34"),
        ("ro.build.type", "userdebug"),
        ("ro.product.manufacturer", "Mobilectl"),
        ("ro.product.brand", "mobilectl"),
        ("ro.product.cpu.abi", "x86_64"),
        ("ro.kernel.qemu", "0"),
        ("sys.boot_completed", "1"),
        ("dev.bootcomplete", "1"),
        ("persist.sys.locale", "en-US"),
        ("ro.sf.lcd_density", "420"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    v.push(("ro.product.model".into(), o.model.clone()));
    v.push(("ro.product.name".into(), o.product.clone()));
    v.push(("ro.product.device".into(), o.device.clone()));
    v.push(("ro.serialno".into(), format!("MOBILECTL{}", dev.port)));
    for (k, val) in &st.props {
        v.retain(|(key, _)| key != k);
        v.push((k.clone(), val.clone()));
    }
    v.sort();
    v
}

pub fn getprop(dev: &Device, args: &[String]) -> AppletResult {
    let st = dev.state();
    let all = props(dev, &st);
    match args.first() {
        Some(key) => {
            let v = all
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
                .or(args.get(1).map(String::as_str))
                .unwrap_or("");
            AppletResult::ok(format!("{v}\n"))
        }
        None => AppletResult::ok(
            all.iter()
                .map(|(k, v)| format!("[{k}]: [{v}]\n"))
                .collect::<String>(),
        ),
    }
}

pub fn setprop(dev: &Device, args: &[String]) -> AppletResult {
    match (args.first(), args.get(1)) {
        (Some(k), Some(v)) if !k.starts_with("ro.") => {
            dev.state().props.insert(k.clone(), v.clone());
            AppletResult::ok("")
        }
        (Some(k), Some(_)) => AppletResult::fail(1, format!("Failed to set property '{k}'\n")),
        _ => AppletResult::fail(1, "usage: setprop NAME VALUE\n"),
    }
}

pub fn wm(dev: &Device, args: &[String]) -> AppletResult {
    let (w, h) = dev.state().app.size;
    match args.first().map(String::as_str) {
        Some("size") => AppletResult::ok(format!("Physical size: {w}x{h}\n")),
        Some("density") => AppletResult::ok(format!("Physical density: {DENSITY}\n")),
        _ => AppletResult::fail(255, "usage: wm [size|density]\n"),
    }
}

pub fn settings(dev: &Device, args: &[String]) -> AppletResult {
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    if args.first() == Some(&"--user") && args.len() > 1 {
        args.drain(..2);
    }
    let mut st = dev.state();
    match args[..] {
        ["get", ns, key] => AppletResult::ok(format!("{}\n", st.settings.get(&(ns.into(), key.into())).map(String::as_str).unwrap_or("null"))),
        ["put", ns, key, value, ..] => {
            st.settings.insert((ns.into(), key.into()), value.into());
            AppletResult::ok("")
        }
        ["delete", ns, key] => {
            let n = st.settings.remove(&(ns.to_string(), key.to_string())).map_or(0, |_| 1);
            AppletResult::ok(format!("Deleted {n} rows\n"))
        }
        ["list", ns] => AppletResult::ok(
            st.settings.iter().filter(|((n, _), _)| n == ns).map(|((_, k), v)| format!("{k}={v}\n")).collect::<String>(),
        ),
        _ => AppletResult::fail(255, "usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value\n"),
    }
}

pub fn dumpsys(dev: &Device, args: &[String]) -> AppletResult {
    match args.first().map(String::as_str) {
        Some("meminfo") => return super::meminfo::dumpsys(dev, &args[1..]),
        Some("gfxinfo") => return super::gfxinfo::dumpsys(dev, &args[1..]),
        _ => {}
    }
    let st = dev.state();
    let comp = st.focused_component();
    let short = comp.replacen(
        &format!("{}/{}", st.foreground_package(), st.foreground_package()),
        &format!("{}/", st.foreground_package()),
        1,
    );
    let (w, h) = st.screen_size();
    let service = args.first().map(String::as_str).unwrap_or("");
    let out = match service {
        "window" => format!(
            "WINDOW MANAGER WINDOWS (dumpsys window windows)\n  Window #0 Window{{7d1c2e3 u0 {comp}}}:\n    mDisplayId=0 rootTaskId=12 mSession=Session{{c0ffee 4242:u0a10123}}\n\n  mGlobalConfiguration={{1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp {DENSITY}dpi nrml long port finger -keyb/v/h -nav/h winConfig={{ mBounds=Rect(0, 0 - {w}, {h}) }}}}\n  mCurrentFocus=Window{{7d1c2e3 u0 {comp}}}\n  mFocusedApp=ActivityRecord{{5a6b7c8 u0 {short} t12}}\n  mInputMethodWindow={}\n",
            if st.keyboard_visible() { "Window{1f2e3d4 u0 InputMethod}".to_string() } else { "null".to_string() }
        ),
        "activity" => format!(
            "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\nDisplay #0 (activities from top to bottom):\n  * Task{{a1b2c3d #12 type=standard A=10123:{pkg} U=0 visible=true mode=fullscreen translucent=false sz=1}}\n    * Hist  #0: ActivityRecord{{5a6b7c8 u0 {short} t12}}\n\n  ResumedActivity: ActivityRecord{{5a6b7c8 u0 {short} t12}}\n  mResumedActivity: ActivityRecord{{5a6b7c8 u0 {short} t12}}\n  mFocusedApp=ActivityRecord{{5a6b7c8 u0 {short} t12}}\n",
            pkg = st.foreground_package()
        ),
        "input_method" => format!(
            "Current Input Method Manager state:\n  mCurSelectedId={IME_PKG}/com.android.inputmethod.latin.LatinIME\n  mInputShown={}\n  mShowRequested={}\n",
            st.keyboard_visible(),
            st.keyboard_visible()
        ),
        "display" => format!("DISPLAY MANAGER (dumpsys display)\n  mDefaultViewport=DisplayViewport{{valid=true, type=INTERNAL, logicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}\n  DisplayDeviceInfo{{\"Built-in Screen\": {w} x {h}, 60.0 fps, density {DENSITY}}}\n"),
        other => return AppletResult::fail(1, format!("Can't find service: {other}\n")),
    };
    AppletResult::ok(out)
}
