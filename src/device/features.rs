//! Device features beyond the screen: the screen's orientation, Android intents (action,
//! data, component, categories, flags, typed extras) and the kinds of media a gallery takes,
//! as the backends receive them, with the checks that make a request's values safe to hand to
//! a device (see `crate::backend`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

use crate::error::{Error, Op, Result, Step};

/// What a file added to a device's gallery is, told by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// A photo ([`MediaKind::PHOTOS`]).
    Photo,
    /// A video ([`MediaKind::VIDEOS`]).
    Video,
}

impl MediaKind {
    /// The extensions of photos.
    pub const PHOTOS: &[&str] = &["jpg", "jpeg", "png", "gif", "heic", "webp"];
    /// The extensions of videos.
    pub const VIDEOS: &[&str] = &["mp4", "mov", "m4v", "3gp"];

    /// The kind of the file `path` names, by its extension in any case; none for another.
    pub fn of(path: &std::path::Path) -> Option<MediaKind> {
        let ext = super::extension(path);
        if Self::PHOTOS.contains(&ext.as_str()) {
            Some(MediaKind::Photo)
        } else if Self::VIDEOS.contains(&ext.as_str()) {
            Some(MediaKind::Video)
        } else {
            None
        }
    }

    /// The extensions taken, for a hint: `photos: .jpg .jpeg …; videos: .mp4 …`.
    pub fn extensions() -> String {
        let dotted = |exts: &[&str]| format!(".{}", exts.join(" ."));
        format!(
            "photos: {}; videos: {}",
            dotted(Self::PHOTOS),
            dotted(Self::VIDEOS)
        )
    }
}

/// Which way up the screen is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Orientation {
    /// Upright (Android rotation 0).
    Portrait,
    /// Turned a quarter to the left: the top of the content on the device's left edge
    /// (Android rotation 1, iOS landscape-left).
    Landscape,
    /// Upside down (Android rotation 2).
    PortraitReverse,
    /// Turned a quarter to the right (Android rotation 3, iOS landscape-right).
    LandscapeReverse,
}

impl Orientation {
    /// Android's `user_rotation` (a `Surface.ROTATION_*` value, 0..3).
    pub fn android_rotation(self) -> u8 {
        match self {
            Orientation::Portrait => 0,
            Orientation::Landscape => 1,
            Orientation::PortraitReverse => 2,
            Orientation::LandscapeReverse => 3,
        }
    }

    /// The orientation of an Android rotation (0..3).
    pub fn from_android_rotation(r: u8) -> Option<Orientation> {
        Some(match r {
            0 => Orientation::Portrait,
            1 => Orientation::Landscape,
            2 => Orientation::PortraitReverse,
            3 => Orientation::LandscapeReverse,
            _ => return None,
        })
    }

    /// The wire name (`landscape_reverse`).
    pub fn as_str(self) -> &'static str {
        match self {
            Orientation::Portrait => "portrait",
            Orientation::Landscape => "landscape",
            Orientation::PortraitReverse => "portrait_reverse",
            Orientation::LandscapeReverse => "landscape_reverse",
        }
    }
}

/// What a backend reads of the orientation. `orientation: None` means "read the screen":
/// the controller takes it from a UI dump's rotation.
#[derive(Debug, Clone, PartialEq)]
pub struct OrientationRead {
    /// The orientation the device reports; `None`: the controller reads it from the screen.
    pub orientation: Option<Orientation>,
    /// Whether the screen follows the sensor (Android `accelerometer_rotation`).
    pub auto_rotate: Option<bool>,
}

/// The type of an intent extra, as `am` spells its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExtraType {
    /// `--es`
    String,
    /// `--ei` (32-bit)
    Int,
    /// `--el` (64-bit)
    Long,
    /// `--ef`
    Float,
    /// `--ez`
    Bool,
    /// `--eu`
    Uri,
    /// `--esa` (the strings may not contain commas: `am` splits on them)
    StringArray,
}

/// One intent extra: a key, a type and a JSON value of that type.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IntentExtra {
    pub key: String,
    #[serde(rename = "type")]
    pub kind: ExtraType,
    pub value: Value,
}

/// Whether the intent starts an activity or is broadcast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntentMode {
    /// `am start -W` (the default): the answer names the activity that was resolved.
    #[default]
    Start,
    /// `am broadcast`.
    Broadcast,
}

/// A checked intent: every value is plain text for `am`, quoted by the backend.
#[derive(Debug, Clone, PartialEq)]
pub struct IntentSpec {
    /// Started as an activity or broadcast.
    pub mode: IntentMode,
    /// The intent action (`-a`), e.g. `android.intent.action.VIEW`.
    pub action: Option<String>,
    /// The data URI (`-d`).
    pub data: Option<String>,
    /// The explicit component (`-n`), `package/.Activity`.
    pub component: Option<String>,
    /// The package the intent is limited to (`-p`).
    pub package: Option<String>,
    /// Categories (`-c` each), e.g. `android.intent.category.BROWSABLE`.
    pub categories: Vec<String>,
    /// `Intent` flags as one bit mask (`-f`, sent in hex).
    pub flags: Option<u32>,
    /// `(am flag, key, value as am reads it)`.
    pub extras: Vec<(&'static str, String, String)>,
}

impl IntentSpec {
    /// `am`'s arguments after `start -W` / `broadcast`, unquoted.
    pub fn am_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let mut push = |flag: &str, v: &Option<String>| {
            if let Some(v) = v {
                args.push(flag.to_string());
                args.push(v.clone());
            }
        };
        push("-a", &self.action);
        push("-d", &self.data);
        push("-n", &self.component);
        push("-p", &self.package);
        for c in &self.categories {
            args.push("-c".into());
            args.push(c.clone());
        }
        if let Some(f) = self.flags {
            args.push("-f".into());
            args.push(format!("0x{f:x}"));
        }
        for (flag, key, value) in &self.extras {
            args.push((*flag).to_string());
            args.push(key.clone());
            args.push(value.clone());
        }
        args
    }
}

/// What `am` answered to an intent.
#[derive(Debug, Clone, PartialEq)]
pub struct IntentOutcome {
    /// `am`'s words, trimmed.
    pub output: String,
    /// The activity `am start -W` says was started.
    pub activity: Option<String>,
}

/// A two-finger gesture around a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MultiTouch {
    /// The fingers' distance is multiplied by `scale` (above 1: apart, zoom in; below 1:
    /// together). `radius`: each finger's start distance from the centre.
    Pinch {
        /// Factor of the fingers' distance, 0.1..=10 and not 1.
        scale: f64,
        /// Each finger's start distance from the centre, in tap coordinates.
        radius: f64,
    },
    /// Both fingers turn `degrees` (clockwise positive) around the centre at `radius`.
    Rotate {
        /// The turn, -360..=360 and not 0; clockwise positive.
        degrees: f64,
        /// Each finger's distance from the centre, in tap coordinates.
        radius: f64,
    },
}

/// The two fingers' paths of a gesture around `c`: each finger's points, first to last
/// (a rotation is cut into steps of at most 15°, so that it is an arc).
pub fn finger_paths(c: crate::device::Point, g: MultiTouch) -> [Vec<crate::device::Point>; 2] {
    use crate::device::Point;
    let at = |r: f64, deg: f64| {
        let a = deg.to_radians();
        Point {
            x: (c.x + r * a.cos()).round(),
            y: (c.y + r * a.sin()).round(),
        }
    };
    match g {
        MultiTouch::Pinch { scale, radius } => {
            let end = radius * scale;
            [
                vec![at(radius, 180.0), at(end, 180.0)],
                vec![at(radius, 0.0), at(end, 0.0)],
            ]
        }
        MultiTouch::Rotate { degrees, radius } => {
            let steps = (degrees.abs() / 15.0).ceil().max(1.0) as usize;
            let path = |start: f64| {
                (0..=steps)
                    .map(|i| at(radius, start + degrees * i as f64 / steps as f64))
                    .collect::<Vec<_>>()
            };
            [path(180.0), path(0.0)]
        }
    }
}

/// Checks a gesture's numbers: a scale in 0.1..=10 and not 1, degrees in -360..=360 and not
/// 0, and which one goes with which gesture.
pub fn check_multi_touch(pinch: bool, scale: Option<f64>, degrees: Option<f64>) -> Result<()> {
    match (pinch, scale, degrees) {
        (true, Some(s), None) if s.is_finite() && (0.1..=10.0).contains(&s) && s != 1.0 => Ok(()),
        (true, Some(s), None) => Err(Error::validation(format!(
            "`scale` {s} is not a pinch: give 0.1..10, below 1 to pinch in, above 1 to spread"
        ))),
        (false, None, Some(d)) if d.is_finite() && d != 0.0 && d.abs() <= 360.0 => Ok(()),
        (false, None, Some(d)) => Err(Error::validation(format!(
            "`degrees` {d} is not a rotation: give -360..360, not 0"
        ))),
        _ => Err(
            Error::validation("a pinch takes `scale`, a rotation `degrees` (only that one)")
                .with_next(
                    "e.g. {0}",
                    [Step::example_of(
                        Op::MultiTouch,
                        json!({"gesture": "pinch", "scale": 2, "ref": "e3"}),
                    )],
                ),
        ),
    }
}

/// What to do with the simulated biometric sensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BiometricAction {
    /// Enrol a face or finger (iOS Simulator).
    Enroll,
    /// Remove the enrolment (iOS Simulator).
    Unenroll,
    /// Present a matching face or finger.
    Match,
    /// Present a face or finger that does not match.
    Nonmatch,
}

/// Which sensor (iOS Simulator: Face ID or Touch ID).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BiometricKind {
    /// Face ID (the default).
    #[default]
    Face,
    /// Touch ID.
    Finger,
}

/// Largest APNs payload (Apple's limit for a regular remote notification).
pub const MAX_APNS_PAYLOAD: usize = 4096;

/// A checked notification to post: a title and body (Android), or an APNs payload for an
/// app (iOS Simulator: the given payload, else one made of the title and body).
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationPost {
    /// The app the push is for; the iOS Simulator needs it, Android ignores it.
    pub bundle_id: Option<String>,
    /// The title, if any; `None` when a payload was given.
    pub title: Option<String>,
    /// The body text; Android needs it non-empty. `None` when a payload was given.
    pub body: Option<String>,
    /// The APNs payload as compact JSON, at most [`MAX_APNS_PAYLOAD`] bytes.
    pub apns: String,
    /// Whether the caller gave the payload (rather than title and body).
    pub given_payload: bool,
}

/// A notification read from the shade.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ShownNotification {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Checks a notification: text without NUL or line breaks and bounded; a payload that is an
/// object with an `aps` object, at most 4 KB as sent.
pub fn check_notification(
    bundle_id: Option<&str>,
    title: Option<&str>,
    body: Option<&str>,
    payload: Option<&serde_json::Map<String, Value>>,
) -> Result<NotificationPost> {
    for (what, v) in [("`title`", title), ("`body`", body)] {
        if let Some(v) = v {
            check_plain(what, v)?;
        }
    }
    if title.is_none() && body.is_none() && payload.is_none() {
        return Err(
            Error::validation("give `title` and `body`, or an APNs `payload`").with_next(
                "e.g. {0}",
                [Step::example_of(
                    Op::PostNotification,
                    json!({"title": "Hello", "body": "It works"}),
                )],
            ),
        );
    }
    if payload.is_some() && (title.is_some() || body.is_some()) {
        return Err(Error::validation(
            "give either `payload` or `title`/`body`, not both",
        ));
    }
    let apns = match payload {
        Some(p) => {
            if !p.get("aps").is_some_and(Value::is_object) {
                return Err(Error::validation("the APNs `payload` has no `aps` object")
                    .with_next(
                        "e.g. {0}",
                        [Step::example_of(
                            Op::PostNotification,
                            json!({"payload": {"aps": {"alert": {"title": "Hi", "body": "…"}}}}),
                        )],
                    ));
            }
            Value::Object(p.clone()).to_string()
        }
        None => serde_json::json!({"aps": {"alert": {"title": title.unwrap_or(""), "body": body.unwrap_or("")}}})
            .to_string(),
    };
    if apns.len() > MAX_APNS_PAYLOAD {
        return Err(Error::validation(format!(
            "the APNs payload is {} bytes; APNs takes at most {MAX_APNS_PAYLOAD}",
            apns.len()
        )));
    }
    Ok(NotificationPost {
        bundle_id: bundle_id.map(str::to_string),
        title: title.map(str::to_string),
        body: body.map(str::to_string),
        apns,
        given_payload: payload.is_some(),
    })
}

/// Longest text of one intent value (action, data, key, value).
const MAX_VALUE: usize = 4096;
/// Most extras an intent (or a launch) takes.
pub const MAX_EXTRAS: usize = 64;

/// A value that can reach a device's shell as one quoted word: bounded, without NUL or line
/// breaks (which `am` cannot take as one argument either).
pub fn check_plain(what: &str, v: &str) -> Result<()> {
    if v.len() > MAX_VALUE {
        return Err(Error::validation(format!(
            "{what} is longer than {MAX_VALUE} bytes"
        )));
    }
    if v.chars().any(|c| c == '\0' || c == '\n' || c == '\r') {
        return Err(Error::validation(format!(
            "{what} contains a NUL or a line break, which `am` cannot take"
        )));
    }
    Ok(())
}

/// A name (action, category, component, package, extra key): printable, no spaces.
pub fn check_name(what: &str, v: &str) -> Result<()> {
    check_plain(what, v)?;
    if v.is_empty() || v.len() > 512 || v.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::validation(format!(
            "{what} `{v}` is not a name (1-512 characters, no spaces)"
        ))
        .with_hint("e.g. android.intent.action.VIEW, com.example/.MainActivity"));
    }
    Ok(())
}

/// One extra as `am` takes it, or a validation error naming the key and the mismatch.
pub fn check_extra(e: &IntentExtra) -> Result<(&'static str, String, String)> {
    check_name("an extra's key", &e.key)?;
    let mismatch = || {
        Error::validation(format!(
            "extra `{}`: the value {} is not a {}",
            e.key,
            e.value,
            match e.kind {
                ExtraType::String => "string",
                ExtraType::Int => "32-bit integer",
                ExtraType::Long => "64-bit integer",
                ExtraType::Float => "number",
                ExtraType::Bool => "boolean",
                ExtraType::Uri => "URI string",
                ExtraType::StringArray => "array of strings without commas",
            }
        ))
        .with_hint("e.g. {\"key\": \"count\", \"type\": \"int\", \"value\": 3}")
    };
    let (flag, value) = match e.kind {
        ExtraType::String => ("--es", e.value.as_str().ok_or_else(mismatch)?.to_string()),
        ExtraType::Uri => {
            let s = e.value.as_str().ok_or_else(mismatch)?;
            if !s.contains(':') {
                return Err(mismatch());
            }
            ("--eu", s.to_string())
        }
        ExtraType::Int => {
            let n = e.value.as_i64().ok_or_else(mismatch)?;
            i32::try_from(n).map_err(|_| mismatch())?;
            ("--ei", n.to_string())
        }
        ExtraType::Long => ("--el", e.value.as_i64().ok_or_else(mismatch)?.to_string()),
        ExtraType::Float => {
            let f = e.value.as_f64().ok_or_else(mismatch)?;
            if !f.is_finite() {
                return Err(mismatch());
            }
            ("--ef", f.to_string())
        }
        ExtraType::Bool => ("--ez", e.value.as_bool().ok_or_else(mismatch)?.to_string()),
        ExtraType::StringArray => {
            let items = e.value.as_array().ok_or_else(mismatch)?;
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                let s = item.as_str().ok_or_else(mismatch)?;
                if s.contains(',') {
                    return Err(mismatch());
                }
                parts.push(s);
            }
            ("--esa", parts.join(","))
        }
    };
    check_plain(&format!("extra `{}`", e.key), &value)?;
    Ok((flag, e.key.clone(), value))
}

/// The raw parts of an intent request, checked into an [`IntentSpec`].
pub struct IntentParts<'a> {
    /// Started as an activity or broadcast.
    pub mode: IntentMode,
    /// The intent action, unchecked.
    pub action: Option<&'a str>,
    /// The data URI, unchecked.
    pub data: Option<&'a str>,
    /// The explicit component (`package/.Activity`), unchecked.
    pub component: Option<&'a str>,
    /// The package the intent is limited to, unchecked.
    pub package: Option<&'a str>,
    /// Categories, unchecked.
    pub categories: &'a [String],
    /// `Intent` flags as one bit mask.
    pub flags: Option<u32>,
    /// Typed extras, at most [`MAX_EXTRAS`] once checked.
    pub extras: &'a [IntentExtra],
}

/// Checks an intent: something to address (action, data, component or package), names that
/// are names, extras whose values match their types.
pub fn check_intent(p: &IntentParts<'_>) -> Result<IntentSpec> {
    if p.action.is_none() && p.data.is_none() && p.component.is_none() && p.package.is_none() {
        return Err(Error::validation(
            "an intent needs at least one of `action`, `data`, `component`, `package`",
        )
        .with_next(
            "e.g. {0}",
            [Step::example_of(
                Op::SendIntent,
                json!({"action": "android.intent.action.VIEW", "data": "https://example.com"}),
            )],
        ));
    }
    if let Some(a) = p.action {
        check_name("`action`", a)?;
    }
    if let Some(d) = p.data {
        check_plain("`data`", d)?;
        if d.is_empty() {
            return Err(Error::validation("`data` is empty"));
        }
    }
    if let Some(c) = p.component {
        check_name("`component`", c)?;
        if !c.contains('/') {
            return Err(
                Error::validation(format!("`component` `{c}` is not PACKAGE/ACTIVITY"))
                    .with_hint("e.g. com.example/.MainActivity"),
            );
        }
    }
    if let Some(pkg) = p.package {
        crate::backend::validate::android_package(pkg)?;
    }
    for c in p.categories {
        check_name("a category", c)?;
    }
    if p.extras.len() > MAX_EXTRAS {
        return Err(Error::validation(format!(
            "at most {MAX_EXTRAS} extras per intent"
        )));
    }
    let extras = p
        .extras
        .iter()
        .map(check_extra)
        .collect::<Result<Vec<_>>>()?;
    Ok(IntentSpec {
        mode: p.mode,
        action: p.action.map(str::to_string),
        data: p.data.map(str::to_string),
        component: p.component.map(str::to_string),
        package: p.package.map(str::to_string),
        categories: p.categories.to_vec(),
        flags: p.flags,
        extras,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn media_kinds_by_extension_in_any_case() {
        let kind = |p: &str| MediaKind::of(std::path::Path::new(p));
        assert_eq!(kind("/tmp/a.JPG"), Some(MediaKind::Photo));
        assert_eq!(kind("b.heic"), Some(MediaKind::Photo));
        assert_eq!(kind("clip.Mov"), Some(MediaKind::Video));
        assert_eq!(kind("notes.txt"), None);
        assert_eq!(kind("no_extension"), None);
        assert_eq!(
            MediaKind::extensions(),
            "photos: .jpg .jpeg .png .gif .heic .webp; videos: .mp4 .mov .m4v .3gp"
        );
    }

    fn extra(kind: ExtraType, value: Value) -> IntentExtra {
        IntentExtra {
            key: "k".into(),
            kind,
            value,
        }
    }

    #[test]
    fn extras_take_only_values_of_their_type() {
        assert_eq!(
            check_extra(&extra(ExtraType::Int, json!(3))).unwrap().2,
            "3"
        );
        assert!(check_extra(&extra(ExtraType::Int, json!("3"))).is_err());
        assert!(check_extra(&extra(ExtraType::Int, json!(1u64 << 40))).is_err());
        assert_eq!(
            check_extra(&extra(ExtraType::Long, json!(1u64 << 40)))
                .unwrap()
                .2,
            "1099511627776"
        );
        assert!(check_extra(&extra(ExtraType::Bool, json!(1))).is_err());
        assert!(check_extra(&extra(ExtraType::Uri, json!("no scheme"))).is_err());
        assert_eq!(
            check_extra(&extra(ExtraType::StringArray, json!(["a", "b"])))
                .unwrap()
                .2,
            "a,b"
        );
        assert!(check_extra(&extra(ExtraType::StringArray, json!(["a,b"]))).is_err());
        assert!(check_extra(&extra(ExtraType::String, json!("a\nb"))).is_err());
        assert_eq!(
            check_extra(&extra(ExtraType::String, json!("$(reboot); `id` 'q'")))
                .unwrap()
                .2,
            "$(reboot); `id` 'q'"
        );
    }

    #[test]
    fn an_intent_needs_an_address() {
        let parts = IntentParts {
            mode: IntentMode::Start,
            action: None,
            data: None,
            component: None,
            package: None,
            categories: &[],
            flags: None,
            extras: &[],
        };
        assert!(check_intent(&parts).is_err());
        let spec = check_intent(&IntentParts {
            action: Some("android.intent.action.VIEW"),
            flags: Some(0x1000_0000),
            ..parts
        })
        .unwrap();
        assert_eq!(
            spec.am_args(),
            ["-a", "android.intent.action.VIEW", "-f", "0x10000000"]
        );
    }
}
