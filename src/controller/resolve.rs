//! The target-device rule (docs/DESIGN.md "Target device") as a pure function: an explicit
//! `udid` wins, then the active device, then the only ready device; otherwise `NO_DEVICE` or
//! `AMBIGUOUS_DEVICE` with the candidates.

use serde_json::json;

use crate::device::Device;
use crate::error::{Error, ErrorCode, Op, Result, Step};

fn brief(d: &Device) -> serde_json::Value {
    json!({ "udid": d.udid, "name": d.name, "platform": d.platform, "state": d.state })
}

/// Picks the device a request is about.
///
/// `explicit` may name a device by udid/serial or, when unique, by name.
pub fn resolve_target(
    explicit: Option<&str>,
    active: Option<&str>,
    devices: &[Device],
) -> Result<Device> {
    if let Some(wanted) = explicit {
        return find_named(wanted, devices);
    }
    if let Some(active) = active {
        return devices
            .iter()
            .find(|d| d.udid == active)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::NoDevice,
                    format!("the active device `{active}` is no longer connected"),
                )
                .with_next(
                    "reconnect it, or choose another with {0}",
                    [Step::call(Op::SetActiveDevice)],
                )
                .with_details(json!({ "devices": devices.iter().map(brief).collect::<Vec<_>>() }))
            });
    }
    let ready: Vec<&Device> = devices.iter().filter(|d| d.state.is_ready()).collect();
    match ready.as_slice() {
        [only] => Ok((*only).clone()),
        [] => Err(Error::new(ErrorCode::NoDevice, "no booted or online device")
            .with_next(if devices.is_empty() {
                "connect an Android device (adb devices), boot a simulator ({0}), or try `mobilectl serve --demo`"
            } else {
                "boot one of the listed devices ({0}), or authorise the phone"
            }, [Step::call(Op::Boot)])
            .with_details(json!({ "devices": devices.iter().map(brief).collect::<Vec<_>>() }))),
        many => Err(Error::new(
            ErrorCode::AmbiguousDevice,
            format!("{} devices are ready and none is chosen", many.len()),
        )
        .with_next("pass {0}, or choose one with {1}", [Step::field("udid"), Step::call(Op::SetActiveDevice)])
        .with_details(json!({ "candidates": many.iter().map(|d| brief(d)).collect::<Vec<_>>() }))),
    }
}

fn find_named(wanted: &str, devices: &[Device]) -> Result<Device> {
    if let Some(d) = devices.iter().find(|d| d.udid == wanted) {
        return Ok(d.clone());
    }
    let by_name: Vec<&Device> = devices.iter().filter(|d| d.name == wanted).collect();
    match by_name.as_slice() {
        [only] => Ok((*only).clone()),
        [] => Err(
            Error::new(ErrorCode::NoDevice, format!("no device `{wanted}`"))
                .with_next("list devices with {0}", [Step::call(Op::ListDevices)])
                .with_details(json!({ "devices": devices.iter().map(brief).collect::<Vec<_>>() })),
        ),
        many => Err(Error::new(
            ErrorCode::AmbiguousDevice,
            format!("{} devices are named `{wanted}`", many.len()),
        )
        .with_hint("pass the udid instead of the name")
        .with_details(json!({ "candidates": many.iter().map(|d| brief(d)).collect::<Vec<_>>() }))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceKind, DeviceState, Platform};

    fn dev(udid: &str, name: &str, state: DeviceState) -> Device {
        Device {
            udid: udid.into(),
            name: name.into(),
            platform: Platform::Android,
            kind: DeviceKind::Device,
            state,
            os_version: None,
            api_level: None,
            model: None,
            backend: "android",
            capabilities: Vec::new(),
        }
    }

    fn code(r: Result<Device>) -> ErrorCode {
        r.unwrap_err().code
    }

    #[test]
    fn explicit_udid_wins_over_active() {
        let ds = [
            dev("a", "A", DeviceState::Online),
            dev("b", "B", DeviceState::Online),
        ];
        assert_eq!(resolve_target(Some("b"), Some("a"), &ds).unwrap().udid, "b");
    }

    #[test]
    fn explicit_name_when_unique() {
        let ds = [
            dev("a", "Pixel", DeviceState::Online),
            dev("b", "iPhone 15", DeviceState::Booted),
        ];
        assert_eq!(
            resolve_target(Some("iPhone 15"), None, &ds).unwrap().udid,
            "b"
        );
        let twins = [
            dev("a", "Pixel", DeviceState::Online),
            dev("b", "Pixel", DeviceState::Online),
        ];
        assert_eq!(
            code(resolve_target(Some("Pixel"), None, &twins)),
            ErrorCode::AmbiguousDevice
        );
    }

    #[test]
    fn explicit_unknown_is_no_device_even_with_one_ready() {
        let ds = [dev("a", "A", DeviceState::Online)];
        assert_eq!(
            code(resolve_target(Some("zz"), None, &ds)),
            ErrorCode::NoDevice
        );
    }

    #[test]
    fn explicit_offline_device_is_returned_for_the_route_to_judge() {
        let ds = [dev("a", "A", DeviceState::Offline)];
        assert_eq!(
            resolve_target(Some("a"), None, &ds).unwrap().state,
            DeviceState::Offline
        );
    }

    #[test]
    fn active_device_is_used() {
        let ds = [
            dev("a", "A", DeviceState::Online),
            dev("b", "B", DeviceState::Online),
        ];
        assert_eq!(resolve_target(None, Some("a"), &ds).unwrap().udid, "a");
    }

    #[test]
    fn vanished_active_device_is_an_error_not_a_silent_switch() {
        let ds = [dev("b", "B", DeviceState::Online)];
        let err = resolve_target(None, Some("a"), &ds).unwrap_err();
        assert_eq!(err.code, ErrorCode::NoDevice);
        assert!(err.message.contains("`a`"));
    }

    #[test]
    fn the_only_ready_device_is_chosen() {
        let ds = [
            dev("a", "A", DeviceState::Offline),
            dev("b", "B", DeviceState::Booted),
            dev("c", "C", DeviceState::Shutdown),
        ];
        assert_eq!(resolve_target(None, None, &ds).unwrap().udid, "b");
    }

    #[test]
    fn no_devices_at_all() {
        assert_eq!(code(resolve_target(None, None, &[])), ErrorCode::NoDevice);
    }

    #[test]
    fn none_ready() {
        let ds = [
            dev("a", "A", DeviceState::Unauthorized),
            dev("c", "C", DeviceState::Shutdown),
        ];
        let err = resolve_target(None, None, &ds).unwrap_err();
        assert_eq!(err.code, ErrorCode::NoDevice);
        assert_eq!(err.details.unwrap()["devices"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn several_ready_is_ambiguous_with_candidates() {
        let ds = [
            dev("a", "A", DeviceState::Online),
            dev("b", "B", DeviceState::Booted),
            dev("c", "C", DeviceState::Offline),
        ];
        let err = resolve_target(None, None, &ds).unwrap_err();
        assert_eq!(err.code, ErrorCode::AmbiguousDevice);
        let candidates = err.details.unwrap()["candidates"].clone();
        let udids: Vec<&str> = candidates
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["udid"].as_str().unwrap())
            .collect();
        assert_eq!(udids, ["a", "b"]);
    }
}
