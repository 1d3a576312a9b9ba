//! Which devices a session would take: its udid (or name), else its match (platform, part of
//! the name, kind, start of the OS version), else any. Pure, so the rule is tested here.

use crate::api::wire::sessions::DeviceMatch;
use crate::device::Device;
use crate::error::{Error, Result};

/// Whether `device` is one a session asking for `udid` or `m` would take.
pub fn wanted(udid: Option<&str>, m: Option<&DeviceMatch>, device: &Device) -> bool {
    if let Some(u) = udid {
        return device.udid == u || device.name == u;
    }
    let Some(m) = m else {
        return true;
    };
    m.platform.is_none_or(|p| device.platform == p)
        && m.kind.is_none_or(|k| device.kind == k)
        && m.name_contains
            .as_deref()
            .is_none_or(|part| device.name.to_lowercase().contains(&part.to_lowercase()))
        && m.os_version.as_deref().is_none_or(|v| {
            device.os_version.as_deref().is_some_and(|have| {
                let have = have.trim_start_matches("iOS ").trim();
                let v = v.trim_start_matches("iOS ").trim();
                have == v || have.starts_with(&format!("{v}."))
            })
        })
}

/// Refuses a match that cannot mean anything (an empty text field).
pub fn check(m: &DeviceMatch) -> Result<()> {
    for (field, v) in [
        ("name_contains", &m.name_contains),
        ("os_version", &m.os_version),
    ] {
        if v.as_deref().is_some_and(|s| s.trim().is_empty()) {
            return Err(Error::validation(format!("match.{field} is empty"))
                .with_hint("leave it out to match any"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceKind, DeviceState, Platform};

    fn device(name: &str, platform: Platform, kind: DeviceKind, os: &str) -> Device {
        Device {
            udid: format!("{name}-udid"),
            name: name.into(),
            platform,
            kind,
            state: DeviceState::Online,
            os_version: Some(os.into()),
            api_level: None,
            model: None,
            backend: "android",
            capabilities: Vec::new(),
        }
    }

    #[test]
    fn every_given_field_must_hold() {
        let pixel = device("Pixel 7", Platform::Android, DeviceKind::Emulator, "14");
        let iphone = device(
            "iPhone 15",
            Platform::Ios,
            DeviceKind::Simulator,
            "iOS 17.5",
        );
        let m = |platform, name: Option<&str>, kind, os: Option<&str>| DeviceMatch {
            platform,
            name_contains: name.map(str::to_string),
            kind,
            os_version: os.map(str::to_string),
        };
        let cases = [
            (m(None, None, None, None), true, true),
            (m(Some(Platform::Ios), None, None, None), false, true),
            (m(None, Some("PIXEL"), None, None), true, false),
            (
                m(None, None, Some(DeviceKind::Simulator), None),
                false,
                true,
            ),
            (m(None, None, None, Some("17")), false, true),
            (m(None, None, None, Some("iOS 17.5")), false, true),
            (m(None, None, None, Some("1")), false, false),
            (m(None, None, None, Some("14")), true, false),
            (
                m(
                    Some(Platform::Android),
                    Some("pixel"),
                    Some(DeviceKind::Emulator),
                    Some("14"),
                ),
                true,
                false,
            ),
        ];
        for (m, on_pixel, on_iphone) in cases {
            assert_eq!(
                wanted(None, Some(&m), &pixel),
                on_pixel,
                "{m:?} on the Pixel"
            );
            assert_eq!(
                wanted(None, Some(&m), &iphone),
                on_iphone,
                "{m:?} on the iPhone"
            );
        }
        assert!(wanted(Some("Pixel 7"), None, &pixel), "by name");
        assert!(wanted(Some("Pixel 7-udid"), None, &pixel), "by udid");
        assert!(!wanted(Some("Pixel 7-udid"), None, &iphone));
    }

    #[test]
    fn empty_text_fields_are_refused() {
        let m = DeviceMatch {
            name_contains: Some(" ".into()),
            ..Default::default()
        };
        assert!(check(&m).is_err());
        assert!(check(&DeviceMatch::default()).is_ok());
    }
}
