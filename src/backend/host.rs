//! What this host cannot do, whatever tools it has: the parts of mobilectl that need another
//! operating system (iOS Simulators and `devicectl` need macOS; the virtual demo device needs
//! a Unix host). The doctor lists them, so that a missing part is explained rather than found
//! by a failing call.

use crate::api::wire::service::BackendCheck;

/// One limit: the part, why it cannot work here, and what to do.
fn limit(os: &str, name: &str, why: &str, remedy: &str) -> BackendCheck {
    BackendCheck {
        backend: "host".to_string(),
        name: name.to_string(),
        target: os.to_string(),
        ok: false,
        version: None,
        session: None,
        detail: Some(why.to_string()),
        remediation: Some(remedy.to_string()),
    }
}

/// The parts that cannot work on `os` (`std::env::consts::OS`), given whether the virtual
/// device was built in.
pub fn limits(os: &str, demo_built: bool) -> Vec<BackendCheck> {
    let mut out = Vec::new();
    if os != "macos" {
        out.push(limit(
            os,
            "iOS Simulator",
            "simctl, AXe and idb exist only on macOS (Xcode)",
            "drive iOS Simulators from a Mac",
        ));
        out.push(limit(
            os,
            "iPhone over USB",
            "devicectl (Xcode) exists only on macOS; a WebDriverAgent reachable from here still works (`serve --wda UDID=URL`)",
            "run WebDriverAgent from a Mac, or reach one over the network",
        ));
    }
    if os == "windows" {
        out.push(limit(
            os,
            "virtual demo device",
            "the virtual Android device runs Android's shell (mksh) and Unix utilities: Linux and macOS only",
            "use a real device or an emulator through adb.exe",
        ));
    } else if !demo_built {
        out.push(limit(
            os,
            "virtual demo device",
            "this binary was built without the `demo` feature",
            "rebuild with default features",
        ));
    }
    out
}

/// The limits of the host this runs on.
pub fn this_host() -> Vec<BackendCheck> {
    limits(std::env::consts::OS, cfg!(all(feature = "demo", unix)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(os: &str, demo: bool) -> Vec<String> {
        limits(os, demo).into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn each_host_is_told_what_it_cannot_do() {
        assert!(names("macos", true).is_empty());
        assert_eq!(names("macos", false), ["virtual demo device"]);
        assert_eq!(names("linux", true), ["iOS Simulator", "iPhone over USB"]);
        assert_eq!(
            names("windows", true),
            ["iOS Simulator", "iPhone over USB", "virtual demo device"]
        );
        assert!(limits("windows", true)
            .iter()
            .all(|c| !c.ok && c.backend == "host"));
    }
}
