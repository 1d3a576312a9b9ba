//! What a parsed Maestro flow is: its header, its steps, each command with its arguments
//! checked, and the selectors they target. Strings may still hold `${NAME}` references; the
//! runner fills them in from the flow's env just before a step runs.

use crate::launch::LaunchValue;

/// A flow file, parsed whole (sub-flows included, loaded into their `runFlow` steps).
#[derive(Debug, Clone, Default)]
pub struct Flow {
    /// The file as given (or `<request>` for posted text).
    pub file: String,
    /// The header's `appId`: the app commands without their own act on (none: not given).
    pub app_id: Option<String>,
    /// The header's `name`: what reports call the flow (none: its file).
    pub name: Option<String>,
    /// The header's `env`: default variables, in file order; the caller's values win.
    pub env: Vec<(String, String)>,
    /// The header's `tags`: what a suite selects flows by (`includeTags`, `excludeTags`).
    pub tags: Vec<String>,
    /// The header's `onFlowStart`: steps run before `steps`.
    pub on_start: Vec<Step>,
    /// The header's `onFlowComplete`: steps run after `steps`, even when one failed.
    pub on_complete: Vec<Step>,
    /// The flow's commands, in order.
    pub steps: Vec<Step>,
}

/// One command of a flow, where it was written.
#[derive(Debug, Clone)]
pub struct Step {
    /// The file it is written in (a sub-flow's own for its steps).
    pub file: String,
    /// Its line in `file`, from 1.
    pub line: usize,
    /// Maestro's name of the command (`tapOn`, `runFlow`…).
    pub name: &'static str,
    /// Maestro's `optional`: a failure is a warning and the flow goes on.
    pub optional: bool,
    /// Maestro's `label`: what reports call the step instead of its command.
    pub label: Option<String>,
    /// The `${NAME}` variables its arguments use (not those of nested commands).
    pub vars: Vec<String>,
    /// The JavaScript `${…}` of its arguments, evaluated just before it runs (not those of
    /// nested commands, nor of a `when` or `while`, which are evaluated each time they are
    /// checked).
    pub exprs: Vec<String>,
    /// What it does, its arguments checked.
    pub command: Command,
}

/// A condition of `runFlow.when` and `repeat.while`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Condition {
    /// Holds when this selector matches on one screen read.
    pub visible: Option<Selector>,
    /// Holds when this selector matches nothing on one screen read.
    pub not_visible: Option<Selector>,
    /// Holds on this platform only (`Android`, `iOS`; any case).
    pub platform: Option<String>,
    /// Maestro's `true`: holds when this text, its `${…}` evaluated, is truthy.
    pub script: Option<String>,
}

/// A swipe's or scroll's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `UP`.
    Up,
    /// `DOWN`.
    Down,
    /// `LEFT`.
    Left,
    /// `RIGHT`.
    Right,
}

impl Direction {
    /// Maestro's spelling (any case).
    pub fn parse(s: &str) -> Option<Direction> {
        match s.to_ascii_uppercase().as_str() {
            "UP" => Some(Direction::Up),
            "DOWN" => Some(Direction::Down),
            "LEFT" => Some(Direction::Left),
            "RIGHT" => Some(Direction::Right),
            _ => None,
        }
    }

    /// The API's spelling.
    pub fn wire(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }
}

/// A point in pixels or in percent of the screen (`"50%, 20%"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// From the left edge: pixels, or percent of the width (0 to 100).
    pub x: f64,
    /// From the top edge: pixels, or percent of the height (0 to 100).
    pub y: f64,
    /// Whether `x` and `y` are percents (both written with `%`).
    pub percent: bool,
}

/// A Maestro element selector: `text` and `id` are regular expressions matched whole.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    /// Matched against an element's text, name or content description.
    pub text: Option<String>,
    /// Matched against the resource-id, whole or its last `/` segment.
    pub id: Option<String>,
    /// Which match, from 0 in reading order (text: it may hold `${…}`); none: all.
    pub index: Option<String>,
    /// Maestro's `point` (`"x, y"` or `"x%, y%"`): act there, no element looked for.
    pub point: Option<String>,
    /// Only elements whose enabled state is this.
    pub enabled: Option<bool>,
    /// Only elements whose checked state is this.
    pub checked: Option<bool>,
    /// Only elements whose focused state is this.
    pub focused: Option<bool>,
    /// Only elements whose selected state is this.
    pub selected: Option<bool>,
    /// Only elements wholly below a match of this one.
    pub below: Option<Box<Selector>>,
    /// Only elements wholly above a match of this one.
    pub above: Option<Box<Selector>>,
    /// Only elements wholly left of a match of this one.
    pub left_of: Option<Box<Selector>>,
    /// Only elements wholly right of a match of this one.
    pub right_of: Option<Box<Selector>>,
    /// Only elements inside the bounds of a match of this one.
    pub child_of: Option<Box<Selector>>,
    /// Only elements whose bounds hold a match of this one.
    pub contains_child: Option<Box<Selector>>,
}

/// A command and its checked arguments.
#[derive(Debug, Clone)]
pub enum Command {
    /// `launchApp`: (re)starts the app, after the state resets and permissions asked for.
    LaunchApp {
        /// The app (none: the flow's `appId`).
        app_id: Option<String>,
        /// Maestro's `clearState`: the app's data is reset first.
        clear_state: bool,
        /// iOS: reset the keychain first (nothing to do on Android).
        clear_keychain: bool,
        /// Maestro's `stopApp` (default true): a running app is stopped and launched anew.
        stop_app: bool,
        /// Named launch values, `${…}` still in their texts.
        arguments: Vec<(String, LaunchValue)>,
        /// Maestro's `permissions`: a permission (or `all`) to allow, deny or unset.
        permissions: Vec<(String, String)>,
    },
    /// `stopApp`: terminates the app (none: the flow's `appId`).
    StopApp(Option<String>),
    /// `killApp`: terminates the app, as `stopApp` does (none: the flow's `appId`).
    KillApp(Option<String>),
    /// `clearState`: resets the app's data (none: the flow's `appId`).
    ClearState(Option<String>),
    /// `clearKeychain`: empties the device's keychain (iOS; nothing to do on Android).
    ClearKeychain,
    /// `tapOn` or `longPressOn`.
    Tap {
        /// What to tap.
        selector: Selector,
        /// A long press (`longPressOn`), not a tap.
        long: bool,
        /// Maestro's `retryTapIfNoChange`: tap once more when the screen did not change.
        retry_if_no_change: bool,
        /// How many taps (Maestro's `repeat`; `doubleTapOn`: 2).
        taps: u32,
        /// The pause between them, in milliseconds (Maestro's `delay`).
        delay_ms: u64,
    },
    /// `inputText`: types the text into the focused field.
    InputText(String),
    /// `eraseText`: presses delete this many times (text: it may hold `${…}`; none: 50).
    EraseText(Option<String>),
    /// `pressKey`: presses the key of this Maestro name (`Enter`, `Home`…).
    PressKey(String),
    /// `back`: presses the back key.
    Back,
    /// `hideKeyboard`: dismisses the on-screen keyboard.
    HideKeyboard,
    /// `scroll`: scrolls the screen down once.
    Scroll,
    /// `scrollUntilVisible`: scrolls until the element is on screen.
    ScrollUntilVisible {
        /// The element looked for after each scroll.
        element: Selector,
        /// Which way to scroll (default down).
        direction: Direction,
        /// Maestro's `timeout`, in milliseconds (none: 20 s).
        timeout_ms: Option<String>,
    },
    /// `swipe`: by direction, from an element, or from `start` to `end`.
    Swipe {
        /// Which way (none: up, unless `start` and `end` are given).
        direction: Option<Direction>,
        /// Where the swipe starts, a Maestro point (`"x, y"` or `"x%, y%"`).
        start: Option<String>,
        /// Where the swipe ends, a Maestro point.
        end: Option<String>,
        /// The element the swipe starts on (none: the screen's middle).
        from: Option<Selector>,
        /// Maestro's `duration`, in milliseconds (none: the API's default).
        duration_ms: Option<String>,
    },
    /// `assertVisible`: fails when the element is not found before the lookup timeout.
    AssertVisible(Selector),
    /// `assertNotVisible`: fails when the element is still there at the lookup timeout.
    AssertNotVisible(Selector),
    /// `extendedWaitUntil`: waits for one element to appear or to go (exactly one is given).
    ExtendedWaitUntil {
        /// Wait until this matches.
        visible: Option<Selector>,
        /// Wait until this matches nothing.
        not_visible: Option<Selector>,
        /// Maestro's `timeout`, in milliseconds (none: 10 s).
        timeout_ms: Option<String>,
    },
    /// `waitForAnimationToEnd`: reads the screen until two reads agree.
    WaitForAnimationToEnd {
        /// Maestro's `timeout`, in milliseconds (none: 10 s).
        timeout_ms: Option<String>,
    },
    /// `openLink`: opens the URL (or deep link) on the device.
    OpenLink(String),
    /// `takeScreenshot`: saves the screen as `NAME.png` among the flow's artifacts.
    TakeScreenshot(String),
    /// Starts recording the screen; the video is saved as `NAME.mp4` at `stopRecording` (or
    /// when the flow ends).
    StartRecording(String),
    /// `stopRecording`: saves the recording `startRecording` began.
    StopRecording,
    /// `setLocation`: sets the device's simulated GPS position.
    SetLocation {
        /// Degrees north, as written (it may hold `${…}`).
        latitude: String,
        /// Degrees east, as written (it may hold `${…}`).
        longitude: String,
    },
    /// `travel`: the location moved along `points` (`"lat, lon"`) at `speed` meters per
    /// second, as written (they may hold `${…}`).
    Travel {
        /// The journey's points, in order.
        points: Vec<String>,
        /// Its speed, in meters per second.
        speed: String,
    },
    /// `copyTextFrom`: keeps the element's text (or name, or description) for `pasteText`.
    CopyTextFrom(Selector),
    /// `pasteText`: types the text `copyTextFrom` kept.
    PasteText,
    /// `inputRandomText`, `inputRandomNumber`, `inputRandomEmail`, `inputRandomPersonName`:
    /// types a value made up when the step runs (the receipt shows it).
    InputRandom {
        /// What kind of value.
        kind: RandomKind,
        /// Its length in characters (text and numbers; none: 8), as written (it may hold
        /// `${…}`).
        length: Option<String>,
    },
    /// `setOrientation`: turns the screen (Maestro's `PORTRAIT`, `LANDSCAPE_LEFT`,
    /// `LANDSCAPE_RIGHT`, `UPSIDE_DOWN`; it may hold `${…}`).
    SetOrientation(String),
    /// `setAirplaneMode`: Maestro's `enabled` or `disabled` (it may hold `${…}`).
    SetAirplaneMode(String),
    /// `toggleAirplaneMode`: airplane mode the other way from how it is.
    ToggleAirplaneMode,
    /// `setPermissions`: each permission (or `all`) allowed, denied or unset for the app.
    SetPermissions {
        /// The app (none: the flow's `appId`).
        app_id: Option<String>,
        /// Maestro's permission names with `allow`, `deny` or `unset`.
        permissions: Vec<(String, String)>,
    },
    /// `addMedia`: photos and videos added to the device's gallery, in order.
    AddMedia(Vec<Media>),
    /// `runScript`: a JavaScript file run in the flow's engine (its `output` shared).
    RunScript {
        /// The file, as resolved against the flow naming it.
        file: String,
        /// Its text.
        code: String,
        /// Variables it sees besides the flow's (`${…}` still in their values).
        env: Vec<(String, String)>,
        /// Runs only when this holds (none: always); otherwise the step is skipped.
        when: Option<Condition>,
    },
    /// `evalScript`: JavaScript evaluated for what it does (the inside of its `${…}`).
    EvalScript(String),
    /// `assertTrue`: fails unless the text, its `${…}` evaluated, is truthy.
    AssertTrue(String),
    /// `runFlow`: a sub-flow's steps (from a file or inline `commands`), maybe conditional.
    RunFlow {
        /// Runs only when this holds (none: always); otherwise the step is skipped.
        when: Option<Condition>,
        /// Variables set for its steps only.
        env: Vec<(String, String)>,
        /// The sub-flow file, when it is one (its steps are in `steps`).
        file: Option<String>,
        /// Its steps.
        steps: Vec<Step>,
    },
    /// `repeat`: runs its steps `times` times, or while a condition holds.
    Repeat {
        /// How many times (it may hold `${…}`; none: up to 1000, while `while_` holds).
        times: Option<String>,
        /// Maestro's `while`: checked before each round; the repeat stops when it fails.
        while_: Option<Condition>,
        /// The steps of one round.
        steps: Vec<Step>,
    },
    /// `retry`: runs its steps again after a failure, at most `max_retries` more times.
    Retry {
        /// Attempts after the first, 0 to 3 (default 1).
        max_retries: u32,
        /// The steps of one attempt.
        steps: Vec<Step>,
    },
}

impl Step {
    /// What a report calls the step: its label, or its command and main argument.
    pub fn title(&self) -> String {
        if let Some(l) = &self.label {
            return l.clone();
        }
        let arg = match &self.command {
            Command::Tap { selector: s, .. }
            | Command::AssertVisible(s)
            | Command::AssertNotVisible(s)
            | Command::CopyTextFrom(s) => s.describe(),
            Command::InputText(t) | Command::PressKey(t) | Command::OpenLink(t) => {
                format!("\"{t}\"")
            }
            Command::LaunchApp {
                app_id: Some(a), ..
            } => a.clone(),
            Command::ExtendedWaitUntil {
                visible: Some(s), ..
            } => format!("visible {}", s.describe()),
            Command::ExtendedWaitUntil {
                not_visible: Some(s),
                ..
            } => {
                format!("not visible {}", s.describe())
            }
            Command::RunFlow { file: Some(f), .. } | Command::RunScript { file: f, .. } => {
                f.clone()
            }
            Command::EvalScript(code) => format!("${{{code}}}"),
            Command::AssertTrue(t) => t.clone(),
            Command::ScrollUntilVisible { element, .. } => element.describe(),
            _ => String::new(),
        };
        match arg.is_empty() {
            true => self.name.to_string(),
            false => format!("{} {arg}", self.name),
        }
    }
}

impl Selector {
    /// The selector in one line, as Maestro would write it.
    pub fn describe(&self) -> String {
        let mut parts = vec![];
        if let Some(t) = &self.text {
            parts.push(format!("\"{t}\""));
        }
        if let Some(i) = &self.id {
            parts.push(format!("id \"{i}\""));
        }
        if let Some(p) = &self.point {
            parts.push(format!("point {p}"));
        }
        if let Some(i) = &self.index {
            parts.push(format!("index {i}"));
        }
        for (name, rel) in [
            ("below", &self.below),
            ("above", &self.above),
            ("leftOf", &self.left_of),
            ("rightOf", &self.right_of),
            ("childOf", &self.child_of),
            ("containsChild", &self.contains_child),
        ] {
            if let Some(r) = rel {
                parts.push(format!("{name} {}", r.describe()));
            }
        }
        parts.join(" ")
    }
}

/// A photo or video of `addMedia`, read when the flow was loaded.
#[derive(Clone, PartialEq, Eq)]
pub struct Media {
    /// Its file, as resolved against the flow naming it (its extension tells its kind).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for Media {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Media({}, {} bytes)", self.name, self.bytes.len())
    }
}

/// What an `inputRandom…` command types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandomKind {
    /// Lower-case letters and digits.
    Text,
    /// Digits, the first not 0.
    Number,
    /// An address at `example.com` (a domain reserved for examples: mail never goes out).
    Email,
    /// A first and a last name.
    PersonName,
}
