//! What a parsed Maestro flow is: its header, its steps, each command with its arguments
//! checked, and the selectors they target. Strings may still hold `${NAME}` references; the
//! runner fills them in from the flow's env just before a step runs.

use crate::device::LaunchValue;

/// A flow file, parsed whole (sub-flows included, loaded into their `runFlow` steps).
#[derive(Debug, Clone, Default)]
pub struct Flow {
    /// The file as given (or `<request>` for posted text).
    pub file: String,
    pub app_id: Option<String>,
    pub name: Option<String>,
    pub env: Vec<(String, String)>,
    pub on_start: Vec<Step>,
    pub on_complete: Vec<Step>,
    pub steps: Vec<Step>,
}

/// One command of a flow, where it was written.
#[derive(Debug, Clone)]
pub struct Step {
    pub file: String,
    pub line: usize,
    /// Maestro's name of the command (`tapOn`, `runFlow`…).
    pub name: &'static str,
    pub optional: bool,
    /// Maestro's `label`: what reports call the step instead of its command.
    pub label: Option<String>,
    /// The `${NAME}` variables its arguments use (not those of nested commands).
    pub vars: Vec<String>,
    pub command: Command,
}

/// A condition of `runFlow.when` and `repeat.while`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Condition {
    pub visible: Option<Selector>,
    pub not_visible: Option<Selector>,
    pub platform: Option<String>,
}

/// A swipe's or scroll's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
    Left,
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
    pub x: f64,
    pub y: f64,
    pub percent: bool,
}

/// A Maestro element selector: `text` and `id` are regular expressions matched whole.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    pub text: Option<String>,
    pub id: Option<String>,
    pub index: Option<String>,
    pub point: Option<String>,
    pub enabled: Option<bool>,
    pub checked: Option<bool>,
    pub focused: Option<bool>,
    pub selected: Option<bool>,
    pub below: Option<Box<Selector>>,
    pub above: Option<Box<Selector>>,
    pub left_of: Option<Box<Selector>>,
    pub right_of: Option<Box<Selector>>,
    pub child_of: Option<Box<Selector>>,
    pub contains_child: Option<Box<Selector>>,
}

/// A command and its checked arguments.
#[derive(Debug, Clone)]
pub enum Command {
    LaunchApp {
        app_id: Option<String>,
        clear_state: bool,
        /// iOS: reset the keychain first (nothing to do on Android).
        clear_keychain: bool,
        stop_app: bool,
        /// Named launch values, `${…}` still in their texts.
        arguments: Vec<(String, LaunchValue)>,
        /// Maestro's `permissions`: a permission (or `all`) to allow, deny or unset.
        permissions: Vec<(String, String)>,
    },
    StopApp(Option<String>),
    KillApp(Option<String>),
    ClearState(Option<String>),
    Tap {
        selector: Selector,
        long: bool,
        retry_if_no_change: bool,
    },
    InputText(String),
    EraseText(Option<String>),
    PressKey(String),
    Back,
    HideKeyboard,
    Scroll,
    ScrollUntilVisible {
        element: Selector,
        direction: Direction,
        timeout_ms: Option<String>,
    },
    Swipe {
        direction: Option<Direction>,
        start: Option<String>,
        end: Option<String>,
        from: Option<Selector>,
        duration_ms: Option<String>,
    },
    AssertVisible(Selector),
    AssertNotVisible(Selector),
    ExtendedWaitUntil {
        visible: Option<Selector>,
        not_visible: Option<Selector>,
        timeout_ms: Option<String>,
    },
    WaitForAnimationToEnd {
        timeout_ms: Option<String>,
    },
    OpenLink(String),
    TakeScreenshot(String),
    /// Starts recording the screen; the video is saved as `NAME.mp4` at `stopRecording` (or
    /// when the flow ends).
    StartRecording(String),
    StopRecording,
    SetLocation {
        latitude: String,
        longitude: String,
    },
    CopyTextFrom(Selector),
    PasteText,
    RunFlow {
        when: Option<Condition>,
        env: Vec<(String, String)>,
        /// The sub-flow file, when it is one (its steps are in `steps`).
        file: Option<String>,
        steps: Vec<Step>,
    },
    Repeat {
        times: Option<String>,
        while_: Option<Condition>,
        steps: Vec<Step>,
    },
    Retry {
        max_retries: u32,
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
            Command::RunFlow { file: Some(f), .. } => f.clone(),
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
