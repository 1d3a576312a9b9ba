//! What WebDriverAgent says about itself and its screen, read from the `value` of its answers:
//! `GET /status` (readiness, OS, build, the session it holds, whether it runs on a simulator),
//! `GET /wda/screen` (size in points and scale) and, on a WDA without that route,
//! `GET /window/size`. Pure functions over JSON; no I/O.

use serde_json::Value;

/// The screen in points and its scale (unknown when it came from `/window/size`).
pub use crate::backend::ScreenGeometry;

/// `GET /status`, as far as the answer says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Status {
    /// `ready` (absent from old WDAs, which answer only when ready).
    pub ready: Option<bool>,
    pub os_name: Option<String>,
    pub os_version: Option<String>,
    /// The SDK WDA was built with.
    pub sdk_version: Option<String>,
    /// WDA runs in an iOS Simulator (`ios.simulatorVersion`).
    pub simulator: bool,
    /// The user interface idiom (`iphone`, `ipad`, `apple tv`…), newer WDAs only.
    pub device: Option<String>,
    /// `build.version` (newer WDAs) and `build.time`.
    pub build_version: Option<String>,
    pub build_time: Option<String>,
    /// The session WDA holds now, whoever created it.
    pub session_id: Option<String>,
}

fn text(v: &Value, path: &[&str]) -> Option<String> {
    let mut cur = v;
    for k in path {
        cur = cur.get(*k)?;
    }
    match cur {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Status {
    /// Reads a whole `/status` answer (`{"value": {…}, "sessionId": …}`).
    pub fn parse(answer: &Value) -> Option<Status> {
        let v = answer.get("value").filter(|v| v.is_object())?;
        Some(Status {
            ready: v.get("ready").and_then(Value::as_bool),
            os_name: text(v, &["os", "name"]),
            os_version: text(v, &["os", "version"]),
            sdk_version: text(v, &["os", "sdkVersion"]),
            simulator: v
                .get("ios")
                .and_then(|i| i.get("simulatorVersion"))
                .is_some_and(|s| !s.is_null()),
            device: text(v, &["device"]),
            build_version: text(v, &["build", "version"]),
            build_time: text(v, &["build", "time"]),
            session_id: text(answer, &["sessionId"]).or_else(|| text(v, &["sessionId"])),
        })
    }

    /// `iOS 14.6`, as devices are listed.
    pub fn os(&self) -> Option<String> {
        let version = self.os_version.as_deref()?;
        Some(format!(
            "{} {version}",
            self.os_name.as_deref().unwrap_or("iOS")
        ))
    }

    /// WDA's version for the doctor: its version when it says one, else its build time.
    pub fn version(&self) -> Option<String> {
        match (&self.build_version, &self.build_time) {
            (Some(v), Some(t)) => Some(format!("{v} (built {t})")),
            (Some(v), None) => Some(v.clone()),
            (None, Some(t)) => Some(format!("built {t}")),
            (None, None) => None,
        }
    }

    /// The kind of device, as people write it (`iPhone`, `iPad`).
    pub fn device_word(&self) -> &'static str {
        match self
            .device
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("ipad") => "iPad",
            Some("apple tv") | Some("tv") => "Apple TV",
            Some("iphone") | None => "iPhone",
            Some(_) => "iOS device",
        }
    }
}

fn size_of(v: &Value) -> Option<(f64, f64)> {
    let w = v.get("width")?.as_f64()?;
    let h = v.get("height")?.as_f64()?;
    // WDA answers 0x0 in some states (after `configureLocalization`): not a size.
    (w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0).then_some((w, h))
}

/// The `value` of `GET /wda/screen`: `{screenSize: {width, height}, statusBarSize, scale}`.
pub fn parse_screen(value: &Value) -> Option<ScreenGeometry> {
    let (width, height) = size_of(value.get("screenSize")?)?;
    let scale = value
        .get("scale")
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s >= 1.0);
    Some(ScreenGeometry {
        width,
        height,
        scale,
    })
}

/// The `value` of `GET /window/size`: `{width, height}` in points.
pub fn parse_window_size(value: &Value) -> Option<ScreenGeometry> {
    let (width, height) = size_of(value)?;
    Some(ScreenGeometry {
        width,
        height,
        scale: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::backend::wda::recorded_wda as fixture;

    #[test]
    fn status_of_real_iphones_and_an_old_simulator_wda() {
        let s = Status::parse(&fixture("wda_status_real_iphone_ios14.6_tidevice.json")).unwrap();
        assert_eq!(s.ready, Some(true));
        assert_eq!(s.os().as_deref(), Some("iOS 14.6"));
        assert_eq!(s.sdk_version.as_deref(), Some("14.5"));
        assert!(!s.simulator);
        assert_eq!(
            s.session_id.as_deref(),
            Some("EAB73269-5D5B-45EB-913B-2BAA21FE2830")
        );
        assert_eq!(s.version().as_deref(), Some("built Jul 17 2021 18:57:32"));
        assert_eq!(s.device_word(), "iPhone");

        let s = Status::parse(&fixture(
            "wda_status_real_iphone_ios13.6_sessionId_null.json",
        ))
        .unwrap();
        assert_eq!(s.session_id, None);
        assert_eq!(s.os().as_deref(), Some("iOS 13.6"));

        // iOS 12.4 simulator, JSONWP era: no `ready`, a legacy `status`, simulatorVersion.
        let s = Status::parse(&fixture(
            "wda_status_simulator_ios12.4_legacy_jsonwp_status0.json",
        ))
        .unwrap();
        assert_eq!(s.ready, None);
        assert!(s.simulator);
        assert_eq!(s.os().as_deref(), Some("iOS 12.4"));
        assert_eq!(
            s.session_id.as_deref(),
            Some("CBD5B219-90D6-45CD-A672-66E707916F85")
        );
    }

    #[test]
    fn window_sizes_including_the_zero_one() {
        let v = fixture("wda_window_size_375x812_appium_log_2020.json");
        let g = parse_window_size(&v["value"]).unwrap();
        assert_eq!((g.width, g.height, g.scale), (375.0, 812.0, None));
        let v = fixture("wda_window_size_zero_0x0_wda5.9_sim_ios15.2_appiumlog_compact.json");
        assert_eq!(parse_window_size(&v["value"]), None);
    }

    #[test]
    fn wda_screen_shape() {
        // The shape of WDA's handleGetScreen (FBCustomCommands.m); no recorded answer exists.
        let v = serde_json::json!({
            "screenSize": {"width": 402, "height": 874},
            "statusBarSize": {"width": 402, "height": 62},
            "scale": 3
        });
        let g = parse_screen(&v).unwrap();
        assert_eq!((g.width, g.height, g.scale), (402.0, 874.0, Some(3.0)));
        assert_eq!(parse_screen(&serde_json::json!({"scale": 2})), None);
    }
}
