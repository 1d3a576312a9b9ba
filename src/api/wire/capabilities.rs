//! W3C capabilities and mobilectl session requests, both ways, with the capability names in
//! one place ([`name`]): [`requests`] reads a `POST /session` body (the W3C routes a Grid
//! relay node calls), `alwaysMatch` merged with each `firstMatch` in turn; [`of`] writes a
//! session request as the capabilities a client sends to a hub (`session start --grid`); a
//! Grid node's slots offer the same names (`grid node-config`). Other capabilities are ignored,
//! as W3C allows for extensions. Pure, so the mapping is tested here.

use serde_json::{Map, Value};

use crate::api::wire::sessions::{CreateSession, DeviceMatch};

/// The capability names mobilectl reads and writes.
pub mod name {
    /// `android` or `ios`, any case.
    pub const PLATFORM: &str = "platformName";
    /// The device's udid.
    pub const UDID: &str = "appium:udid";
    /// Part of the device's name.
    pub const DEVICE_NAME: &str = "appium:deviceName";
    /// The start of the OS version.
    pub const PLATFORM_VERSION: &str = "appium:platformVersion";
    /// The session's default app (also read: `appium:app`, `appium:appPackage`).
    pub const BUNDLE_ID: &str = "appium:bundleId";
    /// The session's default app, as Appium's generic name.
    pub const APP: &str = "appium:app";
    /// The session's default app, as Appium's Android name.
    pub const APP_PACKAGE: &str = "appium:appPackage";
    /// `emulator`, `simulator` or `device`.
    pub const KIND: &str = "mobilectl:kind";
    /// The session's name.
    pub const NAME: &str = "mobilectl:name";
    /// The session's idle expiry, seconds.
    pub const TTL_S: &str = "mobilectl:ttl_s";
    /// How long to wait for a free device, milliseconds.
    pub const WAIT_MS: &str = "mobilectl:wait_ms";
    /// The session's id, in the answer.
    pub const SESSION: &str = "mobilectl:session";
    /// The mobilectl server a slot relays to (a node's stereotypes).
    pub const HOST: &str = "mobilectl:host";
}

/// Capabilities that cannot be read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidCapabilities(pub String);

/// The session requests of a `POST /session` body, one per `firstMatch` entry, in order.
pub fn requests(body: &Value) -> Result<Vec<CreateSession>, InvalidCapabilities> {
    let bad = |m: &str| InvalidCapabilities(m.to_string());
    let caps = body
        .get("capabilities")
        .ok_or_else(|| bad("the body has no `capabilities` object"))?;
    let caps = caps
        .as_object()
        .ok_or_else(|| bad("`capabilities` must be an object"))?;
    let always = match caps.get("alwaysMatch") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(bad("`alwaysMatch` must be an object")),
    };
    let first: Vec<Map<String, Value>> = match caps.get("firstMatch") {
        None | Some(Value::Null) => vec![Map::new()],
        Some(Value::Array(list)) if !list.is_empty() => list
            .iter()
            .map(|v| {
                v.as_object()
                    .cloned()
                    .ok_or_else(|| bad("each `firstMatch` entry must be an object"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(bad("`firstMatch` must be a non-empty array of objects")),
    };
    first
        .into_iter()
        .map(|extra| {
            let mut merged = always.clone();
            for (k, v) in extra {
                if merged.contains_key(&k) {
                    return Err(InvalidCapabilities(format!(
                        "`{k}` is in both alwaysMatch and firstMatch"
                    )));
                }
                merged.insert(k, v);
            }
            request(&merged)
        })
        .collect()
}

/// One merged set of capabilities as a session request.
fn request(caps: &Map<String, Value>) -> Result<CreateSession, InvalidCapabilities> {
    let text = |k: &str| -> Result<Option<String>, InvalidCapabilities> {
        match caps.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
            Some(_) => Err(InvalidCapabilities(format!(
                "`{k}` must be a non-empty string"
            ))),
        }
    };
    let number = |k: &str| -> Result<Option<u64>, InvalidCapabilities> {
        match caps.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| InvalidCapabilities(format!("`{k}` must be a whole number"))),
        }
    };
    let platform = word(text(name::PLATFORM)?, |p| {
        format!("platformName `{p}`: this server drives Android and iOS")
    })?;
    let kind = word(text(name::KIND)?, |k| {
        format!("`{}` `{k}`: emulator, simulator or device", name::KIND)
    })?;
    let udid = text(name::UDID)?;
    let device_name = text(name::DEVICE_NAME)?;
    let os_version = text(name::PLATFORM_VERSION)?;
    let wanted = DeviceMatch {
        platform,
        // A udid names the device; its name then says nothing more.
        name_contains: device_name.filter(|_| udid.is_none()),
        kind,
        os_version,
    };
    let app = text(name::APP)?
        .or(text(name::BUNDLE_ID)?)
        .or(text(name::APP_PACKAGE)?);
    let r#match = (udid.is_none() && wanted != DeviceMatch::default()).then_some(wanted);
    Ok(CreateSession {
        name: text(name::NAME)?,
        udid,
        r#match,
        app,
        ttl_s: number(name::TTL_S)?,
        wait_ms: number(name::WAIT_MS)?,
        lazy: false,
        build: None,
    })
}

/// A capability's word (any case) as the wire enum `T` it names; `refused` says why another
/// word is not one.
fn word<T: serde::de::DeserializeOwned>(
    text: Option<String>,
    refused: impl FnOnce(&str) -> String,
) -> Result<Option<T>, InvalidCapabilities> {
    let Some(w) = text else {
        return Ok(None);
    };
    serde_json::from_value(Value::String(w.to_ascii_lowercase()))
        .map(Some)
        .map_err(|_| InvalidCapabilities(refused(&w)))
}

/// The capabilities a client asks a hub for to open `session` (what [`requests`] reads back).
/// A lazy session has no capability: a Grid session holds its device from the start.
pub fn of(session: &CreateSession) -> Map<String, Value> {
    let wanted = session.r#match.clone().unwrap_or_default();
    let text = |v: Option<String>| v.map(Value::String);
    let mut caps = Map::new();
    for (cap, value) in [
        (
            name::PLATFORM,
            wanted.platform.map(|p| serde_json::json!(p)),
        ),
        (name::KIND, wanted.kind.map(|k| serde_json::json!(k))),
        (name::DEVICE_NAME, text(wanted.name_contains)),
        (name::PLATFORM_VERSION, text(wanted.os_version)),
        (name::UDID, text(session.udid.clone())),
        (name::BUNDLE_ID, text(session.app.clone())),
        (name::NAME, text(session.name.clone())),
        (name::TTL_S, session.ttl_s.map(Value::from)),
        (name::WAIT_MS, session.wait_ms.map(Value::from)),
    ] {
        if let Some(v) = value {
            caps.insert(cap.to_string(), v);
        }
    }
    caps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{DeviceKind, Platform};
    use serde_json::json;

    #[test]
    fn always_and_first_match_merge_into_one_request_each() {
        let body = json!({"capabilities": {
            "alwaysMatch": {"platformName": "Android", "appium:bundleId": "com.example"},
            "firstMatch": [{"appium:udid": "emulator-5554"}, {"appium:deviceName": "Pixel"}]
        }});
        let r = requests(&body).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].udid.as_deref(), Some("emulator-5554"));
        assert!(r[0].r#match.is_none(), "a udid says which device");
        assert_eq!(r[0].app.as_deref(), Some("com.example"));
        let m = r[1].r#match.clone().unwrap();
        assert_eq!(m.platform, Some(Platform::Android));
        assert_eq!(m.name_contains.as_deref(), Some("Pixel"));
    }

    #[test]
    fn our_own_options_and_defaults() {
        let body = json!({"capabilities": {"alwaysMatch": {
            "platformName": "ios", "appium:platformVersion": "17.5",
            "mobilectl:ttl_s": 60, "mobilectl:wait_ms": 5000, "mobilectl:name": "ci",
            "browserName": "ignored", "se:cdp": "ignored"}}});
        let r = &requests(&body).unwrap()[0];
        assert_eq!(
            (r.ttl_s, r.wait_ms, r.name.as_deref()),
            (Some(60), Some(5000), Some("ci"))
        );
        assert_eq!(
            r.r#match.as_ref().unwrap().os_version.as_deref(),
            Some("17.5")
        );
        let any = &requests(&json!({"capabilities": {}})).unwrap()[0];
        assert!(any.udid.is_none() && any.r#match.is_none());
    }

    #[test]
    fn malformed_capabilities_say_what_is_wrong() {
        for (body, says) in [
            (json!({}), "no `capabilities`"),
            (json!({"capabilities": []}), "must be an object"),
            (json!({"capabilities": {"alwaysMatch": 3}}), "`alwaysMatch`"),
            (json!({"capabilities": {"firstMatch": []}}), "`firstMatch`"),
            (json!({"capabilities": {"firstMatch": [1]}}), "`firstMatch`"),
            (
                json!({"capabilities": {"alwaysMatch": {"platformName": "windows"}}}),
                "windows",
            ),
            (
                json!({"capabilities": {"alwaysMatch": {"appium:udid": 5}}}),
                "appium:udid",
            ),
            (
                json!({"capabilities": {"alwaysMatch": {"mobilectl:ttl_s": "x"}}}),
                "ttl_s",
            ),
            (
                json!({"capabilities": {"alwaysMatch": {"mobilectl:kind": "tablet"}}}),
                "emulator, simulator or device",
            ),
            (
                json!({"capabilities": {"alwaysMatch": {"platformName": "android"},
                                        "firstMatch": [{"platformName": "ios"}]}}),
                "both",
            ),
        ] {
            let e = requests(&body).unwrap_err();
            assert!(e.0.contains(says), "{body}: {}", e.0);
        }
    }

    #[test]
    fn a_session_request_reads_back_from_its_capabilities() {
        let by_match = CreateSession {
            name: Some("ci-1".into()),
            r#match: Some(DeviceMatch {
                platform: Some(Platform::Ios),
                name_contains: Some("iPhone 15".into()),
                kind: Some(DeviceKind::Simulator),
                os_version: Some("17".into()),
            }),
            app: Some("com.example".into()),
            ttl_s: Some(60),
            wait_ms: Some(5000),
            ..CreateSession::default()
        };
        let caps = of(&by_match);
        assert_eq!(caps[name::PLATFORM], "ios");
        assert_eq!(caps[name::KIND], "simulator");
        let back =
            &requests(&serde_json::json!({"capabilities": {"alwaysMatch": caps}})).unwrap()[0];
        assert_eq!(back.r#match, by_match.r#match);
        assert_eq!(
            (
                back.name.as_deref(),
                back.app.as_deref(),
                back.ttl_s,
                back.wait_ms
            ),
            (Some("ci-1"), Some("com.example"), Some(60), Some(5000))
        );
        let by_udid = CreateSession {
            udid: Some("emulator-5554".into()),
            ..CreateSession::default()
        };
        let caps = of(&by_udid);
        assert_eq!(caps.len(), 1, "{caps:?}");
        let back =
            &requests(&serde_json::json!({"capabilities": {"alwaysMatch": caps}})).unwrap()[0];
        assert_eq!(back.udid.as_deref(), Some("emulator-5554"));
        assert!(back.r#match.is_none());
    }
}
