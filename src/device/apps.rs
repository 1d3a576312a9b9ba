//! Apps on a device, named by `bundle_id` on every platform (an Android package name is its
//! bundle id): what is installed, how to start one, what a launch did.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An installed app.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AppInfo {
    /// Android package name or iOS bundle identifier.
    pub bundle_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `user` or `system`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// How to start an app.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// iOS launch arguments, passed as they are.
    pub arguments: Vec<String>,
    /// Named values for the app, in order: Android intent extras, iOS launch arguments.
    pub extras: Vec<(String, LaunchValue)>,
    /// Stop the app first if it is running.
    pub relaunch: bool,
    /// iOS: reset the device's whole keychain before the launch.
    pub clear_keychain: bool,
    /// Android: the activity to start (default: the launcher activity).
    pub activity: Option<String>,
    /// Where the platform measures no start (iOS Simulators): wait for the app's first screen
    /// and time the start to it (asked with `measure` or `repeat`; it costs UI reads).
    pub time_first_screen: bool,
}

impl LaunchOptions {
    /// The process arguments an iOS app gets: `arguments` as given, then each extra as
    /// Maestro passes it, so that `UserDefaults` reads it: `-key value` (a key already
    /// starting with `-` keeps it), and a boolean as `key true|false`.
    pub fn ios_argv(&self) -> Vec<String> {
        let mut argv = self.arguments.clone();
        for (key, value) in &self.extras {
            let key = match value {
                LaunchValue::Bool(_) => key.clone(),
                _ if key.starts_with('-') => key.clone(),
                _ => format!("-{key}"),
            };
            argv.push(key);
            argv.push(value.to_string());
        }
        argv
    }
}

/// A named launch value (the flow language's, which types Maestro's launch `arguments`).
pub use mobilectl_flows::launch::LaunchValue;

/// What a launch did.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Launched {
    pub bundle_id: String,
    /// The activity started (Android) when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
    /// Process id when the tool reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Launch time as the platform measured it (Android `am start -W` TotalTime), or as
    /// mobilectl did (an iOS Simulator: to the app's first screen), else the wall time of the
    /// launch command.
    pub launch_time_ms: u64,
    /// The start as measured: by the platform (Android `am start -W`: launch state, TotalTime,
    /// WaitTime) or by mobilectl (an iOS Simulator: the first screen in the UI tree).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup: Option<crate::perf::StartupMeasure>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ios_argv_passes_extras_as_maestro_does() {
        let opts = LaunchOptions {
            arguments: vec!["-AppleLanguages".into(), "(fr)".into()],
            extras: vec![
                ("user".into(), LaunchValue::Text("ada lovelace".into())),
                ("-already".into(), LaunchValue::Int(3)),
                ("onboarded".into(), LaunchValue::Bool(false)),
                ("ratio".into(), LaunchValue::Number(1.5)),
                ("whole".into(), LaunchValue::Number(2.0)),
            ],
            ..Default::default()
        };
        assert_eq!(
            opts.ios_argv(),
            [
                "-AppleLanguages",
                "(fr)",
                "-user",
                "ada lovelace",
                "-already",
                "3",
                "onboarded",
                "false",
                "-ratio",
                "1.5",
                "-whole",
                "2.0"
            ]
        );
    }

    #[test]
    fn launch_values_keep_their_json_type() {
        let v: Vec<LaunchValue> =
            serde_json::from_str(r#"[true, 3, 3.5, "3", -9000000000]"#).unwrap();
        assert_eq!(
            v,
            [
                LaunchValue::Bool(true),
                LaunchValue::Int(3),
                LaunchValue::Number(3.5),
                LaunchValue::Text("3".into()),
                LaunchValue::Int(-9_000_000_000)
            ]
        );
    }
}
