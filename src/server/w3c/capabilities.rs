//! W3C capabilities (`POST /session`'s body) read as mobilectl session requests: `alwaysMatch`
//! merged with each `firstMatch` in turn; `platformName`, `appium:udid`, `appium:deviceName`,
//! `appium:platformVersion`, `appium:app` / `appium:bundleId` / `appium:appPackage`, and our
//! own `mobilectl:name`, `mobilectl:ttl_s`, `mobilectl:wait_ms`. Other capabilities are
//! ignored, as W3C allows for extensions. Pure, so the mapping is tested here.

use serde_json::{Map, Value};

use crate::api::wire::sessions::{CreateSession, DeviceMatch};
use crate::device::Platform;

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
    let platform = match text("platformName")? {
        None => None,
        Some(p) => match p.to_ascii_lowercase().as_str() {
            "android" => Some(Platform::Android),
            "ios" => Some(Platform::Ios),
            _ => {
                return Err(InvalidCapabilities(format!(
                    "platformName `{p}`: this server drives Android and iOS"
                )))
            }
        },
    };
    let udid = text("appium:udid")?;
    let device_name = text("appium:deviceName")?;
    let os_version = text("appium:platformVersion")?;
    let wanted = DeviceMatch {
        platform,
        // A udid names the device; its name then says nothing more.
        name_contains: device_name.filter(|_| udid.is_none()),
        kind: None,
        os_version,
    };
    let app = text("appium:app")?
        .or(text("appium:bundleId")?)
        .or(text("appium:appPackage")?);
    let r#match = (udid.is_none() && wanted != DeviceMatch::default()).then_some(wanted);
    Ok(CreateSession {
        name: text("mobilectl:name")?,
        udid,
        r#match,
        app,
        ttl_s: number("mobilectl:ttl_s")?,
        wait_ms: number("mobilectl:wait_ms")?,
        lazy: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
                json!({"capabilities": {"alwaysMatch": {"platformName": "android"},
                                        "firstMatch": [{"platformName": "ios"}]}}),
                "both",
            ),
        ] {
            let e = requests(&body).unwrap_err();
            assert!(e.0.contains(says), "{body}: {}", e.0);
        }
    }
}
