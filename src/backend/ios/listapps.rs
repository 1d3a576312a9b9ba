//! `simctl listapps` prints an old-style (OpenStep/ASCII) property list keyed by bundle id;
//! read it with the `plist` crate (XML or binary output is accepted too) into [`AppInfo`]s,
//! user apps first, then system apps, each sorted by bundle id.

use std::io::Cursor;

use plist::Value;

use crate::device::AppInfo;

fn text(dict: &plist::Dictionary, key: &str) -> Option<String> {
    match dict.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Integer(i) => Some(i.to_string()),
        Value::Real(r) => Some(r.to_string()),
        _ => None,
    }
    .filter(|s| !s.is_empty())
}

/// Parses `simctl listapps` output.
pub fn parse_listapps(bytes: &[u8]) -> Result<Vec<AppInfo>, String> {
    let value = Value::from_reader_ascii(bytes)
        .or_else(|_| Value::from_reader(Cursor::new(bytes)))
        .map_err(|e| e.to_string())?;
    let root = value
        .as_dictionary()
        .ok_or("the top level is not a dictionary")?;
    let mut apps: Vec<AppInfo> = root
        .iter()
        .filter_map(|(key, v)| {
            let d = v.as_dictionary()?;
            let kind = text(d, "ApplicationType").map(|t| t.to_ascii_lowercase());
            Some(AppInfo {
                bundle_id: text(d, "CFBundleIdentifier").unwrap_or_else(|| key.clone()),
                name: text(d, "CFBundleDisplayName").or_else(|| text(d, "CFBundleName")),
                version: text(d, "CFBundleShortVersionString")
                    .or_else(|| text(d, "CFBundleVersion")),
                kind,
            })
        })
        .collect();
    apps.sort_by(|a, b| {
        (a.kind.as_deref() != Some("user"), &a.bundle_id)
            .cmp(&(b.kind.as_deref() != Some("user"), &b.bundle_id))
    });
    Ok(apps)
}

#[cfg(test)]
mod tests {
    use super::parse_listapps;

    const LISTAPPS: &[u8] = include_bytes!(
        "../../../fixtures/ios_simctl/simctl_listapps_xcode27_ios27_40apps_with_user_app.txt"
    );

    #[test]
    fn reads_the_recorded_listapps_plist() {
        let apps = parse_listapps(LISTAPPS).unwrap();
        assert_eq!(apps.len(), 40);
        let user = &apps[0];
        assert_eq!(user.bundle_id, "dev.devicehubpro.fixture.apps");
        assert_eq!(user.name.as_deref(), Some("AQA Fixture"));
        assert_eq!(user.version.as_deref(), Some("1.2"));
        assert_eq!(user.kind.as_deref(), Some("user"));
        assert!(apps[1..]
            .iter()
            .all(|a| a.kind.as_deref() == Some("system")));
        let watch = apps
            .iter()
            .find(|a| a.bundle_id == "com.apple.Bridge")
            .unwrap();
        assert_eq!(watch.name.as_deref(), Some("Watch"));
    }

    #[test]
    fn refuses_what_is_not_a_plist() {
        assert!(parse_listapps(b"An error was encountered").is_err());
    }
}
