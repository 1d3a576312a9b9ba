//! YAML nodes to a [`Flow`]: the header (`appId`, `env`, `onFlowStart`, `onFlowComplete`), and
//! each command, bare (`- back`) or a one-key map (`- tapOn: …`), with its arguments checked.
//! A command this runner does not support, a misspelt argument or JavaScript is a
//! [`Refusal`] with its file and line; parsing goes on past it so that a check lists them all,
//! but a flow with any refusal never runs. Sub-flow files are read through [`Loader`], once
//! per `runFlow` naming them. Nesting counts across files ([`MAX_NESTING`]), and the whole
//! flow has one [`Budget`]: past either, the parse stops with a refusal where it went over.

use super::budget::Budget;
use super::model::*;
use super::yaml::{self, Node, Value};
use crate::launch::LaunchValue;

/// The commands the runner supports, as Maestro spells them.
pub const SUPPORTED: &[&str] = &[
    "launchApp",
    "stopApp",
    "killApp",
    "clearState",
    "clearKeychain",
    "tapOn",
    "doubleTapOn",
    "longPressOn",
    "inputText",
    "eraseText",
    "pressKey",
    "back",
    "hideKeyboard",
    "scroll",
    "scrollUntilVisible",
    "swipe",
    "assertVisible",
    "assertNotVisible",
    "extendedWaitUntil",
    "waitForAnimationToEnd",
    "openLink",
    "takeScreenshot",
    "startRecording",
    "stopRecording",
    "setLocation",
    "travel",
    "copyTextFrom",
    "pasteText",
    "inputRandomText",
    "inputRandomNumber",
    "inputRandomEmail",
    "inputRandomPersonName",
    "setOrientation",
    "setAirplaneMode",
    "toggleAirplaneMode",
    "runFlow",
    "repeat",
    "retry",
    "runScript",
    "evalScript",
    "assertTrue",
    "setPermissions",
    "addMedia",
];

/// Maestro's `action: X` and the bare command each is.
const ACTIONS: &[(&str, &str)] = &[
    ("back", "back"),
    ("hideKeyboard", "hideKeyboard"),
    ("hide keyboard", "hideKeyboard"),
    ("scroll", "scroll"),
    ("clearKeychain", "clearKeychain"),
    ("pasteText", "pasteText"),
];

/// Maestro commands that exist but this runner refuses, and why.
const REFUSED: &[(&str, &str)] = &[
    ("assertWithAI", "AI assertions need Maestro's cloud"),
    (
        "assertNoDefectsWithAI",
        "AI assertions need Maestro's cloud",
    ),
    ("extractTextWithAI", "AI commands need Maestro's cloud"),
];

/// Most taps one `tapOn` makes (its `repeat`).
pub const MAX_TAPS: u64 = 10;
/// Maestro's pause between repeated taps (`delay`), in milliseconds.
pub const TAP_DELAY_MS: u64 = 100;

/// Largest `repeat.times` (and `retry.maxRetries` is at most 3, as in Maestro).
pub const MAX_REPEAT: u64 = 1000;
/// Deepest nesting of `runFlow`, `repeat` and `retry`, counted across sub-flow files (a
/// `runFlow: file` is a level). The parse recurses a few frames per level: the deepest flow
/// allowed, its selectors nested as deep as YAML goes, parses in 512 KiB of stack in a debug
/// build (a test holds it to that), a quarter of a tokio worker's 2 MiB.
pub const MAX_NESTING: usize = 16;

/// Why a flow nests too deep.
fn too_deep() -> String {
    format!(
        "`runFlow`, `repeat` and `retry` nest deeper than {MAX_NESTING} levels (counted across \
         sub-flow files)"
    )
}

/// Why a flow cannot run: where, which command, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Refusal {
    /// The file the line is in: the flow's, or a sub-flow's.
    pub file: String,
    /// Its line in `file`, from 1.
    pub line: usize,
    /// The command it is about (`tapOn`…), or empty for the file as a whole.
    pub command: String,
    /// What is wrong, for the flow's author.
    pub message: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.command.is_empty() {
            true => write!(f, "{}:{}: {}", self.file, self.line, self.message),
            false => write!(
                f,
                "{}:{}: `{}`: {}",
                self.file, self.line, self.command, self.message
            ),
        }
    }
}

/// Reads sub-flow files: `runFlow: file` relative to the flow that names it.
pub trait Loader {
    /// The text of `path`, resolved against `from` (the file naming it), and the resolved
    /// name; an error message when it cannot be read or is not allowed.
    fn load(&self, from: &str, path: &str) -> Result<(String, String), String>;

    /// The bytes of the photo or video `path` (`addMedia`), resolved as [`Loader::load`]
    /// resolves a file, and the resolved name.
    fn load_bytes(&self, from: &str, path: &str) -> Result<(Vec<u8>, String), String> {
        let _ = from;
        Err(format!(
            "`{path}`: a posted flow's media are given in `media`; none were"
        ))
    }
}

/// A loader for posted text: it has no folder, so `runFlow: file` is refused.
pub struct NoFiles;

impl Loader for NoFiles {
    fn load(&self, _from: &str, path: &str) -> Result<(String, String), String> {
        Err(format!(
            "`{path}`: a posted flow cannot run sub-flow files; inline them with `commands:`"
        ))
    }
}

/// A parse: the flow, and everything refused in it (empty: it can run).
#[derive(Debug, Default)]
pub struct Parsed {
    /// The flow, without the commands refused.
    pub flow: Flow,
    /// Everything refused, in the order met.
    pub refusals: Vec<Refusal>,
    /// What may fail only when the flow runs, in the order met: a `${NAME}` that nothing in
    /// the flow or its options sets (CI may give it at run time, as `maestro test -e` does).
    pub warnings: Vec<Refusal>,
    /// Every command met: its name, whether it is supported (with these arguments), and its
    /// file (sub-flows' commands are met once per `runFlow` naming them): the corpus share.
    pub commands: Vec<(String, bool, String)>,
    /// The file parsed (the name its own commands carry).
    pub top: String,
}

/// Parses `text` (the file `file`), loading sub-flows through `loader`.
pub fn parse_flow(file: &str, text: &str, loader: &dyn Loader) -> Parsed {
    let mut p = P {
        loader,
        stack: vec![file.to_string()],
        budget: Budget::default(),
        refused: Default::default(),
        out: Parsed::default(),
    };
    p.out.top = file.to_string();
    p.out.flow = match p.file(file, text, 0) {
        Ok(flow) => flow,
        Err(e) => {
            p.refuse(file, 1, "", e);
            Flow {
                file: file.to_string(),
                ..Flow::default()
            }
        }
    };
    p.out
}

struct P<'a> {
    loader: &'a dyn Loader,
    /// The files being parsed, outermost first (a cycle is one already here).
    stack: Vec<String>,
    /// What the flow has used so far, all its files together.
    budget: Budget,
    /// The refusals made so far, to make each once.
    refused: std::collections::HashSet<Refusal>,
    out: Parsed,
}

type R<T> = Result<T, String>;

impl P<'_> {
    /// Refuses once: a sub-flow named twice is parsed twice, its refusals kept once.
    fn refuse(&mut self, file: &str, line: usize, command: &str, message: impl Into<String>) {
        let refusal = Refusal {
            file: file.to_string(),
            line,
            command: command.to_string(),
            message: message.into(),
        };
        if self.refused.insert(refusal.clone()) {
            self.out.refusals.push(refusal);
        }
    }

    /// The flow of `text` (the file `file`), its commands `depth` levels in; `Err` when
    /// reading it goes over the budget (the caller refuses where it was named).
    fn file(&mut self, file: &str, text: &str, depth: usize) -> R<Flow> {
        let mut flow = Flow {
            file: file.to_string(),
            ..Flow::default()
        };
        self.budget.charge_text(text.len(), 0)?;
        let docs = match yaml::parse(text) {
            Ok(d) => d,
            Err(e) => {
                self.refuse(file, e.line, "", e.message);
                return Ok(flow);
            }
        };
        self.budget
            .charge_text(0, docs.iter().map(Node::size).sum())?;
        let (header, commands) = match docs.as_slice() {
            [] => (None, None),
            [one] if one.seq().is_some() => (None, Some(one)),
            [one] => (Some(one), None),
            [h, c] => (Some(h), Some(c)),
            [_, _, extra, ..] => {
                self.refuse(
                    file,
                    extra.line,
                    "",
                    "a flow has a header and one list of commands, not more documents",
                );
                return Ok(flow);
            }
        };
        if let Some(h) = header {
            self.header(file, h, &mut flow, depth);
        }
        if let Some(c) = commands {
            flow.steps = self.commands(file, c, depth);
        }
        Ok(flow)
    }

    fn header(&mut self, file: &str, h: &Node, flow: &mut Flow, depth: usize) {
        if h.is_null() {
            return;
        }
        let Some(pairs) = h.map() else {
            self.refuse(
                file,
                h.line,
                "",
                format!("the header is {}, not a map of `appId`, `env`…", h.kind()),
            );
            return;
        };
        for (k, v) in pairs {
            let key = k.str().unwrap_or_default();
            match key {
                "appId" => flow.app_id = v.str().map(str::to_string),
                "name" => flow.name = v.str().map(str::to_string),
                "env" => match string_map(v) {
                    Ok(env) => flow.env = env,
                    Err(e) => self.refuse(file, v.line, "", format!("`env`: {e}")),
                },
                "tags" => match string_list(v) {
                    Ok(tags) => flow.tags = tags,
                    Err(e) => self.refuse(file, v.line, "", format!("`tags`: {e}")),
                },
                "onFlowStart" => flow.on_start = self.commands(file, v, depth),
                "onFlowComplete" => flow.on_complete = self.commands(file, v, depth),
                "jsEngine" | "properties" | "url" | "executionOrder" | "androidWebViewHierarchy" => {}
                other => self.refuse(file, k.line, "", format!("unknown header key `{other}` (known: appId, name, env, tags, onFlowStart, onFlowComplete)")),
            }
        }
    }

    fn commands(&mut self, file: &str, list: &Node, depth: usize) -> Vec<Step> {
        if list.is_null() {
            return vec![];
        }
        let Some(items) = list.seq() else {
            self.refuse(
                file,
                list.line,
                "",
                format!("commands are a list, not {}", list.kind()),
            );
            return vec![];
        };
        if depth > MAX_NESTING {
            self.refuse(file, list.line, "", too_deep());
            return vec![];
        }
        let mut steps = vec![];
        for n in items {
            if self.budget.spent() {
                break;
            }
            steps.extend(self.command(file, n, depth));
        }
        steps
    }

    fn command(&mut self, file: &str, n: &Node, depth: usize) -> Option<Step> {
        // Every command met is charged, refused or not: a refusal costs as much as a step.
        if let Err(e) = self.budget.charge_steps(1) {
            self.refuse(file, n.line, "", e);
            return None;
        }
        let (name, arg) = match &n.value {
            Value::Scalar { text, .. } => (text.as_str(), None),
            Value::Map(pairs) if pairs.len() == 1 => {
                (pairs[0].0.str().unwrap_or_default(), Some(&pairs[0].1))
            }
            Value::Map(pairs) => {
                let keys: Vec<&str> = pairs.iter().filter_map(|(k, _)| k.str()).collect();
                self.refuse(
                    file,
                    n.line,
                    "",
                    format!(
                        "a command is one key, this map has {}: {}",
                        keys.len(),
                        keys.join(", ")
                    ),
                );
                return None;
            }
            Value::Seq(_) => {
                self.refuse(
                    file,
                    n.line,
                    "",
                    "a command is a name or a one-key map, not a list",
                );
                return None;
            }
        };
        let arg = arg.filter(|a| !a.is_null());
        // Maestro's older spelling of some bare commands: `- action: back`.
        let (name, arg) = match (name, arg.and_then(Node::str)) {
            ("action", Some(what)) => match ACTIONS.iter().find(|(a, _)| *a == what) {
                Some((_, command)) => (*command, None),
                None => {
                    self.refuse(
                        file,
                        n.line,
                        "action",
                        format!(
                            "`action: {what}` is not one of Maestro's: {}",
                            ACTIONS
                                .iter()
                                .map(|(a, _)| *a)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                    return None;
                }
            },
            _ => (name, arg),
        };
        let Some(&known) = SUPPORTED.iter().find(|s| **s == name) else {
            self.out
                .commands
                .push((name.to_string(), false, file.to_string()));
            let why = match REFUSED.iter().find(|(c, _)| *c == name) {
                Some((_, why)) => format!("not supported: {why}"),
                None => "unknown command".to_string(),
            };
            self.refuse(
                file,
                n.line,
                name,
                format!("{why}; supported: {}", SUPPORTED.join(", ")),
            );
            return None;
        };
        let (optional, label) = arg
            .map(|a| {
                (
                    a.get("optional").and_then(Node::bool).unwrap_or(false),
                    a.get("label").and_then(Node::str).map(str::to_string),
                )
            })
            .unwrap_or_default();
        match self.args(file, known, arg, depth) {
            Ok(command) => {
                let (mut vars, mut exprs) = (vec![], vec![]);
                // `evalScript`'s code is its command, evaluated once, when it runs.
                let own = match known {
                    "evalScript" => None,
                    _ => Some(&mut exprs),
                };
                if let Err(e) = check_vars(n, &mut vars, own) {
                    self.out
                        .commands
                        .push((name.to_string(), false, file.to_string()));
                    self.refuse(file, n.line, known, e);
                    return None;
                }
                self.out
                    .commands
                    .push((name.to_string(), true, file.to_string()));
                Some(Step {
                    vars,
                    exprs,
                    file: file.to_string(),
                    line: n.line,
                    name: known,
                    optional,
                    label,
                    command,
                })
            }
            Err(e) => {
                // A sub-flow that cannot be read, or a flow over its budget, is the file's
                // problem, not the command's.
                let supported = e.starts_with("the sub-flow")
                    || e.starts_with("the script")
                    || e.starts_with("the media file")
                    || e.starts_with("`runFlow` cycle")
                    || self.budget.spent();
                self.out
                    .commands
                    .push((name.to_string(), supported, file.to_string()));
                self.refuse(file, n.line, known, e);
                None
            }
        }
    }

    /// A command's arguments, checked: `runFlow`, `repeat` and `retry` parse the commands they
    /// hold (the parse's recursion), every other command's are [`P::plain`]'s.
    fn args(
        &mut self,
        file: &str,
        name: &'static str,
        a: Option<&Node>,
        depth: usize,
    ) -> R<Command> {
        match name {
            "runFlow" => self.run_flow(file, a.ok_or("needs a file or `commands`")?, depth),
            "repeat" => self.repeat(
                file,
                a.ok_or("needs `times` or `while`, and `commands`")?,
                depth,
            ),
            "retry" => self.retry(file, a.ok_or("needs `commands` or `file`")?, depth),
            "runScript" => self.run_script(file, a.ok_or("needs a file")?),
            "addMedia" => self.add_media(file, a.ok_or("needs the files to add")?),
            _ => self.plain(name, a),
        }
    }

    /// `repeat`: `times` (at most [`MAX_REPEAT`]) or `while`, and its commands, charged
    /// `times` times when it is known before the run.
    fn repeat(&mut self, file: &str, a: &Node, depth: usize) -> R<Command> {
        allowed(a, &["times", "while", "commands"])?;
        let times = a.get("times").and_then(scalar);
        // Known before the run: its steps are charged that many times.
        let mut literal = None;
        if let Some(t) = times.as_deref().filter(|t| !t.contains("${")) {
            let n: u64 = t
                .trim()
                .parse()
                .map_err(|_| format!("`times` is a number, not `{t}`"))?;
            if n > MAX_REPEAT {
                return Err(format!(
                    "`times: {n}` is more than {MAX_REPEAT}, the most this runner repeats"
                ));
            }
            literal = Some(n as usize);
        }
        let while_ = a.get("while").map(condition).transpose()?;
        if times.is_none() && while_.is_none() {
            return Err("needs `times` or `while`".into());
        }
        let before = self.budget.steps();
        let steps = self.commands(
            file,
            a.get("commands").ok_or("needs `commands`")?,
            depth + 1,
        );
        if let Some(n) = literal {
            let once = self.budget.steps() - before;
            self.budget
                .charge_steps(once.saturating_mul(n.saturating_sub(1)))?;
        }
        Ok(Command::Repeat {
            times,
            while_,
            steps,
        })
    }

    /// `retry`: its commands or file, charged once per attempt.
    fn retry(&mut self, file: &str, a: &Node, depth: usize) -> R<Command> {
        allowed(a, &["maxRetries", "commands", "file"])?;
        let max_retries = match a.get("maxRetries").and_then(scalar) {
            None => 1,
            Some(t) => t
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| *n <= 3)
                .ok_or_else(|| format!("`maxRetries` is 0 to 3, not `{t}`"))?,
        };
        let before = self.budget.steps();
        let steps = match (a.get("commands"), a.get("file")) {
            (Some(c), None) => self.commands(file, c, depth + 1),
            (None, Some(f)) => self.sub_file(file, f, depth)?.1,
            _ => return Err("needs one of `commands` and `file`".into()),
        };
        // Each retry may run them all again.
        let once = self.budget.steps() - before;
        self.budget
            .charge_steps(once.saturating_mul(max_retries as usize))?;
        Ok(Command::Retry { max_retries, steps })
    }

    /// The arguments of a command that holds no commands, checked. Off the parse's recursive
    /// path: its many arms make a large frame in a debug build, paid once, not once per level.
    fn plain(&self, name: &'static str, a: Option<&Node>) -> R<Command> {
        let s = |a: Option<&Node>| -> R<String> {
            let a = a.ok_or("needs an argument")?;
            scalar(a.get("text").unwrap_or(a))
                .ok_or_else(|| format!("takes a string, not {}", a.kind()))
        };
        let app = |a: Option<&Node>| -> R<Option<String>> {
            match a {
                None => Ok(None),
                Some(a) => {
                    allowed(a, &["appId"])?;
                    Ok(scalar(a.get("appId").unwrap_or(a)))
                }
            }
        };
        Ok(match name {
            "launchApp" => launch_app(a)?,
            "setPermissions" => {
                let a = a.ok_or("needs `permissions`")?;
                allowed(a, &["appId", "permissions"])?;
                Command::SetPermissions {
                    app_id: a.get("appId").and_then(scalar),
                    permissions: permissions(a.get("permissions").ok_or("needs `permissions`")?)?,
                }
            }
            "stopApp" => Command::StopApp(app(a)?),
            "killApp" => Command::KillApp(app(a)?),
            "clearState" => Command::ClearState(app(a)?),
            "clearKeychain" => match a {
                None => Command::ClearKeychain,
                Some(_) => return Err("takes no arguments".into()),
            },
            "tapOn" | "longPressOn" | "doubleTapOn" => {
                let a = a.ok_or("needs a selector")?;
                let double = name == "doubleTapOn";
                let number = |key: &str, default: u64, max: u64| -> R<u64> {
                    match a.get(key).and_then(scalar) {
                        None => Ok(default),
                        Some(t) => t
                            .trim()
                            .parse()
                            .ok()
                            .filter(|n| (1..=max).contains(n) || (key == "delay" && *n == 0))
                            .ok_or_else(|| format!("`{key}` is a number up to {max}, not `{t}`")),
                    }
                };
                Command::Tap {
                    selector: selector(a, true)?,
                    long: name == "longPressOn",
                    retry_if_no_change: a
                        .get("retryTapIfNoChange")
                        .map(|n| n.bool().unwrap_or(false))
                        .unwrap_or(false),
                    taps: number("repeat", if double { 2 } else { 1 }, MAX_TAPS)? as u32,
                    delay_ms: number("delay", TAP_DELAY_MS, 5000)?,
                }
            }
            "inputText" => {
                if let Some(m) = a.filter(|a| a.map().is_some()) {
                    allowed(m, &["text"])?;
                }
                Command::InputText(s(a)?)
            }
            "eraseText" => Command::EraseText(match a {
                None => None,
                Some(a) => {
                    allowed(a, &["charactersToErase"])?;
                    scalar(a.get("charactersToErase").unwrap_or(a))
                }
            }),
            "pressKey" => Command::PressKey(s(a)?),
            "back" => Command::Back,
            "hideKeyboard" => Command::HideKeyboard,
            "scroll" => Command::Scroll,
            "pasteText" => Command::PasteText,
            "inputRandomText" | "inputRandomNumber" => {
                let length = match a {
                    None => None,
                    Some(a) => {
                        allowed(a, &["length"])?;
                        Some(scalar(a.get("length").unwrap_or(a)).ok_or("`length` is a number")?)
                    }
                };
                let kind = match name {
                    "inputRandomText" => RandomKind::Text,
                    _ => RandomKind::Number,
                };
                Command::InputRandom { kind, length }
            }
            "inputRandomEmail" | "inputRandomPersonName" => {
                if a.is_some() {
                    return Err("takes no arguments".into());
                }
                let kind = match name {
                    "inputRandomEmail" => RandomKind::Email,
                    _ => RandomKind::PersonName,
                };
                Command::InputRandom { kind, length: None }
            }
            "setOrientation" => {
                let a = a.ok_or(
                    "needs an orientation (PORTRAIT, LANDSCAPE_LEFT, LANDSCAPE_RIGHT, UPSIDE_DOWN)",
                )?;
                if a.map().is_some() {
                    allowed(a, &["orientation"])?;
                }
                let o = scalar(a.get("orientation").unwrap_or(a)).ok_or("needs an orientation")?;
                if !o.contains("${") {
                    crate::commands::maestro_orientation(&o)?;
                }
                Command::SetOrientation(o)
            }
            "setAirplaneMode" => {
                let a = a.ok_or("needs `enabled` or `disabled`")?;
                if a.map().is_some() {
                    allowed(a, &["value"])?;
                }
                let v =
                    scalar(a.get("value").unwrap_or(a)).ok_or("needs `enabled` or `disabled`")?;
                if !v.contains("${") {
                    crate::commands::maestro_airplane(&v)?;
                }
                Command::SetAirplaneMode(v)
            }
            "toggleAirplaneMode" => match a {
                None => Command::ToggleAirplaneMode,
                Some(a) if a.is_null() => Command::ToggleAirplaneMode,
                Some(a) if a.map().is_some() => {
                    allowed(a, &[])?;
                    Command::ToggleAirplaneMode
                }
                Some(_) => return Err("takes no arguments".into()),
            },
            "stopRecording" => Command::StopRecording,
            "evalScript" => {
                let code = s(a)?;
                let code = match super::vars::whole(code.trim()) {
                    Some(inner) => inner.to_string(),
                    None => code,
                };
                if code.trim().is_empty() {
                    return Err("needs JavaScript: `evalScript: ${…}`".into());
                }
                Command::EvalScript(code)
            }
            "assertTrue" => {
                let a = a.ok_or("needs a condition: `assertTrue: ${…}`")?;
                if a.map().is_some() {
                    allowed(a, &["condition"])?;
                }
                let c = scalar(a.get("condition").unwrap_or(a))
                    .ok_or_else(|| format!("takes a condition, not {}", a.kind()))?;
                Command::AssertTrue(c)
            }
            "waitForAnimationToEnd" => Command::WaitForAnimationToEnd {
                timeout_ms: match a {
                    None => None,
                    Some(a) => {
                        allowed(a, &["timeout"])?;
                        a.get("timeout").and_then(scalar)
                    }
                },
            },
            "scrollUntilVisible" => scroll_until_visible(a.ok_or("needs `element`")?)?,
            "swipe" => swipe(a.ok_or("needs `direction`, or `start` and `end`")?)?,
            "assertVisible" => {
                Command::AssertVisible(selector(a.ok_or("needs a selector")?, false)?)
            }
            "assertNotVisible" => {
                Command::AssertNotVisible(selector(a.ok_or("needs a selector")?, false)?)
            }
            "copyTextFrom" => Command::CopyTextFrom(selector(a.ok_or("needs a selector")?, false)?),
            "extendedWaitUntil" => {
                extended_wait_until(a.ok_or("needs `visible` or `notVisible`")?)?
            }
            "openLink" => {
                let a = a.ok_or("needs a link")?;
                if a.map().is_some() {
                    allowed(a, &["link", "autoVerify", "browser"])?;
                }
                Command::OpenLink(scalar(a.get("link").unwrap_or(a)).ok_or("needs a link")?)
            }
            "takeScreenshot" => Command::TakeScreenshot(file_name(a)?),
            "startRecording" => Command::StartRecording(file_name(a)?),
            "setLocation" => set_location(a.ok_or("needs `latitude` and `longitude`")?)?,
            "travel" => {
                let a = a.ok_or("needs `points` and `speed`")?;
                allowed(a, &["points", "speed"])?;
                let points = string_list(a.get("points").ok_or("needs `points`")?)?;
                if points.is_empty() {
                    return Err("needs at least one point".into());
                }
                let speed = a
                    .get("speed")
                    .and_then(scalar)
                    .ok_or("needs `speed` (meters per second)")?;
                for p in points.iter().filter(|p| !p.contains("${")) {
                    crate::travel::point(p)?;
                }
                if !speed.contains("${") {
                    crate::travel::speed(&speed)?;
                }
                Command::Travel { points, speed }
            }
            other => return Err(format!("`{other}` has no parser")),
        })
    }

    fn run_flow(&mut self, file: &str, a: &Node, depth: usize) -> R<Command> {
        if a.map().is_none() {
            let (f, steps) = self.sub_file(file, a, depth)?;
            return Ok(Command::RunFlow {
                when: None,
                env: vec![],
                file: Some(f),
                steps,
            });
        }
        allowed(a, &["file", "commands", "env", "when"])?;
        let when = a.get("when").map(condition).transpose()?;
        let env = a
            .get("env")
            .map(string_map)
            .transpose()?
            .unwrap_or_default();
        let (f, steps) = match (a.get("file"), a.get("commands")) {
            (Some(f), None) => {
                let (f, s) = self.sub_file(file, f, depth)?;
                (Some(f), s)
            }
            (None, Some(c)) => (None, self.commands(file, c, depth + 1)),
            _ => return Err("needs one of `file` and `commands`".into()),
        };
        Ok(Command::RunFlow {
            when,
            env,
            file: f,
            steps,
        })
    }

    /// `runScript`: a file (or `{file, env, when}`), loaded as a sub-flow is and charged to
    /// the budget's text.
    fn run_script(&mut self, file: &str, a: &Node) -> R<Command> {
        let (f, env, when) = match a.map() {
            None => (a, vec![], None),
            Some(_) => {
                allowed(a, &["file", "env", "when"])?;
                let env = a.get("env").map(string_map).transpose()?;
                let when = a.get("when").map(condition).transpose()?;
                (
                    a.get("file").ok_or("needs `file`")?,
                    env.unwrap_or_default(),
                    when,
                )
            }
        };
        let path = scalar(f).ok_or("the script's file is a path")?;
        if path.contains("${") {
            return Err(format!(
                "the script path `{path}` uses a variable; it must be known before the run"
            ));
        }
        let (code, resolved) = self
            .loader
            .load(file, &path)
            .map_err(|e| e.replacen("the sub-flow", "the script", 1))?;
        self.budget.charge_text(code.len(), 0)?;
        Ok(Command::RunScript {
            file: resolved,
            code,
            env,
            when,
        })
    }

    /// `addMedia`: a file or a list of them (photos and videos), each read through the loader
    /// and kept with the step.
    fn add_media(&mut self, file: &str, a: &Node) -> R<Command> {
        let paths = match a.seq() {
            Some(items) => items
                .iter()
                .map(|i| scalar(i).ok_or("`addMedia` lists file paths"))
                .collect::<Result<Vec<_>, _>>()?,
            None => vec![scalar(a).ok_or("`addMedia` takes a file path or a list of them")?],
        };
        if paths.is_empty() {
            return Err("`addMedia` needs at least one file".into());
        }
        let mut media = vec![];
        for path in paths {
            if path.contains("${") {
                return Err(format!(
                    "the media path `{path}` uses a variable; it must be known before the run"
                ));
            }
            let (bytes, name) = self
                .loader
                .load_bytes(file, &path)
                .map_err(|e| e.replacen("the sub-flow", "the media file", 1))?;
            media.push(Media { name, bytes });
        }
        Ok(Command::AddMedia(media))
    }

    /// Loads and parses a sub-flow file; its header's `env` is kept as a leading scope.
    fn sub_file(&mut self, from: &str, f: &Node, depth: usize) -> R<(String, Vec<Step>)> {
        let path = scalar(f).ok_or("the sub-flow file is a path")?;
        if path.contains("${") {
            return Err(format!(
                "the sub-flow path `{path}` uses a variable; it must be known before the run"
            ));
        }
        if depth >= MAX_NESTING {
            return Err(too_deep());
        }
        let (text, resolved) = self.loader.load(from, &path)?;
        if let Some(at) = self.stack.iter().position(|s| *s == resolved) {
            let mut cycle: Vec<&str> = self.stack[at..].iter().map(String::as_str).collect();
            cycle.push(&resolved);
            return Err(format!("`runFlow` cycle: {}", cycle.join(" → ")));
        }
        self.stack.push(resolved.clone());
        let sub = self.file(&resolved, &text, depth + 1);
        self.stack.pop();
        let sub = sub?;
        let mut steps = sub.on_start;
        let env = sub.env;
        steps.extend(sub.steps);
        steps.extend(sub.on_complete);
        if env.is_empty() {
            return Ok((resolved, steps));
        }
        // The sub-flow's own env defaults: a scope around its steps.
        let line = steps.first().map(|s| s.line).unwrap_or(1);
        Ok((
            resolved.clone(),
            vec![Step {
                file: resolved,
                line,
                name: "runFlow",
                optional: false,
                label: None,
                vars: vec![],
                exprs: vec![],
                command: Command::RunFlow {
                    when: None,
                    env,
                    file: None,
                    steps,
                },
            }],
        ))
    }
}

/// A scalar's text (numbers and booleans as written).
fn scalar(n: &Node) -> Option<String> {
    n.str().map(str::to_string)
}

fn flag(a: &Node, key: &str) -> R<Option<bool>> {
    a.get(key)
        .map(|v| v.bool().ok_or_else(|| format!("`{key}` is true or false")))
        .transpose()
}

/// Refuses keys of `a` (a map) outside `keys` (plus the common `label` and `optional`).
fn allowed(a: &Node, keys: &[&str]) -> R<()> {
    let Some(pairs) = a.map() else { return Ok(()) };
    for (k, _) in pairs {
        let key = k.str().unwrap_or_default();
        if !keys.contains(&key) && key != "label" && key != "optional" {
            return Err(format!(
                "unknown argument `{key}` (known: {})",
                keys.join(", ")
            ));
        }
    }
    Ok(())
}

/// A list of strings (a single string is a list of one), as `tags` and a suite's globs are.
pub(crate) fn string_list(n: &Node) -> R<Vec<String>> {
    if n.is_null() {
        return Ok(vec![]);
    }
    match n.seq() {
        Some(items) => items
            .iter()
            .map(|i| scalar(i).ok_or_else(|| format!("a list of strings, not of {}", i.kind())))
            .collect(),
        None => scalar(n)
            .map(|s| vec![s])
            .ok_or_else(|| format!("a list of strings, not {}", n.kind())),
    }
}

fn string_map(n: &Node) -> R<Vec<(String, String)>> {
    let pairs = n
        .map()
        .ok_or_else(|| format!("a map of names to values, not {}", n.kind()))?;
    pairs
        .iter()
        .map(|(k, v)| {
            let key = k.str().ok_or("names are strings")?.to_string();
            let value = match v.is_null() {
                true => String::new(),
                false => {
                    scalar(v).ok_or_else(|| format!("`{key}` is a string, not {}", v.kind()))?
                }
            };
            Ok((key, value))
        })
        .collect()
}

/// Launch `arguments: {user: ada, onboarded: true, count: 3, ratio: 1.5}`, typed as Maestro's
/// YAML reader types them: an unquoted `true`/`false` is a boolean, an unquoted whole number
/// an integer, an unquoted decimal a number; anything quoted, and any other word, a string.
fn launch_values(n: &Node) -> R<Vec<(String, LaunchValue)>> {
    let pairs = n
        .map()
        .ok_or_else(|| format!("`arguments` is a map of names to values, not {}", n.kind()))?;
    pairs
        .iter()
        .map(|(k, v)| {
            let key = k.str().ok_or("`arguments`: names are strings")?.to_string();
            let Value::Scalar { text, plain } = &v.value else {
                return Err(format!(
                    "`arguments`: `{key}` is a string, a number or a boolean, not {}",
                    v.kind()
                ));
            };
            if v.is_null() {
                return Err(format!("`arguments`: `{key}` has no value"));
            }
            let typed = match plain {
                true => LaunchValue::from_plain(text),
                false => LaunchValue::Text(text.clone()),
            };
            Ok((key, typed))
        })
        .collect()
}

/// `permissions: {all: deny, notifications: allow}`.
fn permissions(n: &Node) -> R<Vec<(String, String)>> {
    let map = string_map(n).map_err(|e| format!("`permissions`: {e}"))?;
    for (k, v) in &map {
        if !matches!(v.as_str(), "allow" | "deny" | "unset") {
            return Err(format!(
                "`permissions`: `{k}` is allow, deny or unset, not `{v}`"
            ));
        }
    }
    Ok(map)
}

fn direction(n: Option<&Node>) -> R<Option<Direction>> {
    n.map(|d| {
        let s = d.str().unwrap_or_default();
        Direction::parse(s)
            .ok_or_else(|| format!("direction is UP, DOWN, LEFT or RIGHT, not `{s}`"))
    })
    .transpose()
}

fn condition(n: &Node) -> R<Condition> {
    allowed(n, &["visible", "notVisible", "platform", "true"])?;
    let c = Condition {
        visible: n.get("visible").map(|v| selector(v, false)).transpose()?,
        not_visible: n
            .get("notVisible")
            .map(|v| selector(v, false))
            .transpose()?,
        platform: n.get("platform").and_then(scalar),
        script: n.get("true").and_then(scalar),
    };
    if c == Condition::default() {
        return Err("a condition needs `visible`, `notVisible`, `platform` or `true`".into());
    }
    Ok(c)
}

/// A selector: a string (text) or a map. `tap` allows the tap-only keys.
fn selector(n: &Node, tap: bool) -> R<Selector> {
    if n.map().is_none() {
        let sel = Selector {
            text: Some(scalar(n).ok_or("a selector is text or a map")?),
            ..Selector::default()
        };
        return checked(sel);
    }
    let mut keys = vec![
        "text",
        "id",
        "index",
        "point",
        "enabled",
        "checked",
        "focused",
        "selected",
        "below",
        "above",
        "leftOf",
        "rightOf",
        "childOf",
        "containsChild",
    ];
    if tap {
        keys.extend([
            "retryTapIfNoChange",
            "waitToSettleTimeoutMs",
            "repeat",
            "delay",
        ]);
    }
    allowed(n, &keys)?;
    let rel = |k: &str| -> R<Option<Box<Selector>>> {
        n.get(k)
            .map(|v| selector(v, false).map(Box::new))
            .transpose()
    };
    let sel = Selector {
        text: n.get("text").and_then(scalar),
        id: n.get("id").and_then(scalar),
        index: n.get("index").and_then(scalar),
        point: n.get("point").and_then(scalar),
        enabled: flag(n, "enabled")?,
        checked: flag(n, "checked")?,
        focused: flag(n, "focused")?,
        selected: flag(n, "selected")?,
        below: rel("below")?,
        above: rel("above")?,
        left_of: rel("leftOf")?,
        right_of: rel("rightOf")?,
        child_of: rel("childOf")?,
        contains_child: rel("containsChild")?,
    };
    checked(sel)
}

/// Refuses a selector whose regular expressions or point do not parse.
fn checked(sel: Selector) -> R<Selector> {
    for re in [&sel.text, &sel.id].into_iter().flatten() {
        if !re.contains("${") {
            regex::Regex::new(&format!("^(?s:{re})$"))
                .map_err(|e| format!("`{re}` is not a regular expression: {e}"))?;
        }
    }
    if let Some(p) = &sel.point {
        if !p.contains("${") {
            super::select::point(p)?;
        }
    }
    if sel == Selector::default() {
        return Err("an empty selector".into());
    }
    Ok(sel)
}

/// The command's `${…}`: plain variables into `vars`, JavaScript into `exprs` (when given;
/// not inside a `when` or `while`, which are evaluated as they are checked); an error for one
/// never closed.
fn check_vars(n: &Node, vars: &mut Vec<String>, mut exprs: Option<&mut Vec<String>>) -> R<()> {
    match &n.value {
        Value::Scalar { text, .. } => {
            for r in super::vars::references(text)? {
                match r {
                    super::vars::Ref::Var(v) => vars.push(v),
                    super::vars::Ref::Expr(e) => {
                        if let Some(out) = exprs.as_deref_mut().filter(|o| !o.contains(&e)) {
                            out.push(e);
                        }
                    }
                }
            }
            Ok(())
        }
        Value::Seq(items) => items
            .iter()
            .try_for_each(|i| check_vars(i, vars, exprs.as_deref_mut())),
        // Nested commands are checked as their own steps; `env` values may refer to outer ones.
        Value::Map(pairs) => pairs
            .iter()
            .filter(|(k, _)| !matches!(k.str(), Some("commands")))
            .try_for_each(|(k, v)| {
                let conditional = matches!(k.str(), Some("when" | "while"));
                let exprs = exprs.as_deref_mut().filter(|_| !conditional);
                check_vars(v, vars, exprs)
            }),
    }
}

/// `launchApp`'s arguments: none, an app id, or a map of options.
fn launch_app(a: Option<&Node>) -> R<Command> {
    Ok(match a {
        None => Command::LaunchApp {
            app_id: None,
            clear_state: false,
            clear_keychain: false,
            stop_app: true,
            arguments: vec![],
            permissions: vec![],
        },
        Some(a) if a.map().is_none() => Command::LaunchApp {
            app_id: scalar(a),
            clear_state: false,
            clear_keychain: false,
            stop_app: true,
            arguments: vec![],
            permissions: vec![],
        },
        Some(a) => {
            allowed(
                a,
                &[
                    "appId",
                    "clearState",
                    "stopApp",
                    "arguments",
                    "permissions",
                    "clearKeychain",
                ],
            )?;
            Command::LaunchApp {
                app_id: a.get("appId").and_then(scalar),
                clear_state: flag(a, "clearState")?.unwrap_or(false),
                clear_keychain: flag(a, "clearKeychain")?.unwrap_or(false),
                stop_app: flag(a, "stopApp")?.unwrap_or(true),
                arguments: a
                    .get("arguments")
                    .map(launch_values)
                    .transpose()?
                    .unwrap_or_default(),
                permissions: a
                    .get("permissions")
                    .map(permissions)
                    .transpose()?
                    .unwrap_or_default(),
            }
        }
    })
}

/// `scrollUntilVisible`'s arguments.
fn scroll_until_visible(a: &Node) -> R<Command> {
    allowed(
        a,
        &[
            "element",
            "direction",
            "timeout",
            "speed",
            "visibilityPercentage",
            "centerElement",
        ],
    )?;
    Ok(Command::ScrollUntilVisible {
        element: selector(a.get("element").ok_or("needs `element`")?, false)?,
        direction: direction(a.get("direction"))?.unwrap_or(Direction::Down),
        timeout_ms: a.get("timeout").and_then(scalar),
    })
}

/// `swipe`'s arguments: a direction (from an element, or across the screen), or two points.
fn swipe(a: &Node) -> R<Command> {
    allowed(a, &["direction", "start", "end", "from", "duration"])?;
    let c = Command::Swipe {
        direction: direction(a.get("direction"))?,
        start: a.get("start").and_then(scalar),
        end: a.get("end").and_then(scalar),
        from: a.get("from").map(|f| selector(f, false)).transpose()?,
        duration_ms: a.get("duration").and_then(scalar),
    };
    if let Command::Swipe {
        direction: None,
        start,
        end,
        ..
    } = &c
    {
        if start.is_none() || end.is_none() {
            return Err("needs `direction`, or `start` and `end`".into());
        }
    }
    Ok(c)
}

/// `extendedWaitUntil`'s arguments: one of `visible` and `notVisible`, and a timeout.
fn extended_wait_until(a: &Node) -> R<Command> {
    allowed(a, &["visible", "notVisible", "timeout"])?;
    let visible = a.get("visible").map(|v| selector(v, false)).transpose()?;
    let not_visible = a
        .get("notVisible")
        .map(|v| selector(v, false))
        .transpose()?;
    if visible.is_none() == not_visible.is_none() {
        return Err("needs one of `visible` and `notVisible`".into());
    }
    Ok(Command::ExtendedWaitUntil {
        visible,
        not_visible,
        timeout_ms: a.get("timeout").and_then(scalar),
    })
}

/// `setLocation`'s arguments.
fn set_location(a: &Node) -> R<Command> {
    allowed(a, &["latitude", "longitude"])?;
    Ok(Command::SetLocation {
        latitude: a
            .get("latitude")
            .and_then(scalar)
            .ok_or("needs `latitude`")?,
        longitude: a
            .get("longitude")
            .and_then(scalar)
            .ok_or("needs `longitude`")?,
    })
}

/// The file name of `takeScreenshot` and `startRecording`: given as it is, or as `path`.
fn file_name(a: Option<&Node>) -> R<String> {
    let a = a.ok_or("needs a file name")?;
    if a.map().is_some() {
        allowed(a, &["path"])?;
    }
    scalar(a.get("path").unwrap_or(a)).ok_or_else(|| "needs a file name".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parsed {
        parse_flow("t.yaml", text, &NoFiles)
    }

    #[test]
    fn header_and_commands() {
        let p = parse("appId: com.x\nenv:\n  USER: bob\n---\n- launchApp\n- tapOn: \"Log.*\"\n- inputText: ${USER}\n");
        assert!(p.refusals.is_empty(), "{:?}", p.refusals);
        assert_eq!(p.flow.app_id.as_deref(), Some("com.x"));
        assert_eq!(p.flow.env, vec![("USER".into(), "bob".into())]);
        assert_eq!(p.flow.steps.len(), 3);
        assert_eq!(p.flow.steps[1].line, 6);
        assert!(
            matches!(&p.flow.steps[1].command, Command::Tap { selector, .. } if selector.text.as_deref() == Some("Log.*"))
        );
    }

    #[test]
    fn every_supported_command_parses() {
        let text = r#"
- launchApp: {appId: a.b, clearState: true, stopApp: false, permissions: {all: allow}}
- stopApp
- killApp: a.b
- clearState
- tapOn: {id: "login", index: 1, below: "Name", enabled: true, optional: true}
- doubleTapOn: {text: "Photo", delay: 50}
- clearKeychain
- longPressOn: {point: "50%, 20%"}
- inputText: hello
- eraseText: 5
- pressKey: Enter
- back
- hideKeyboard
- scroll
- scrollUntilVisible: {element: {text: End}, direction: UP, timeout: 5000}
- swipe: {direction: LEFT}
- swipe: {start: "10, 20", end: "30, 40", duration: 300}
- assertVisible: Welcome
- assertNotVisible: {id: spinner}
- extendedWaitUntil: {visible: Done, timeout: 10000}
- waitForAnimationToEnd
- openLink: https://example.com
- takeScreenshot: shot
- startRecording: {path: login}
- stopRecording
- startRecording: again
- setLocation: {latitude: 52.5, longitude: 13.4}
- travel: {points: ["0.0,0.0", "0.1,0.0"], speed: 7900}
- copyTextFrom: {id: code}
- pasteText
- inputRandomText: {length: 12}
- inputRandomNumber
- inputRandomEmail
- inputRandomPersonName
- setOrientation: LANDSCAPE_LEFT
- setAirplaneMode: enabled
- setAirplaneMode: {value: disabled, optional: true}
- setAirplaneMode: ${AIR}
- toggleAirplaneMode
- runFlow: {when: {visible: Ok, platform: Android}, commands: [back]}
- repeat: {times: 3, commands: [scroll]}
- retry: {maxRetries: 2, commands: [back]}
- runScript: {file: setup.js, env: {WHO: "${USER}"}, when: {true: "${output.go}"}}
- evalScript: ${output.x = 1}
- assertTrue: {condition: "${output.x == 1}", label: x is set}
- setPermissions: {permissions: {camera: allow, all: deny}}
- action: back
- addMedia: [media/cat.png, media/clip.mp4]
"#;
        let scripts = files([("setup.js".to_string(), "output.go = true".to_string())]);
        let media = [
            ("media/cat.png", b"png".to_vec()),
            ("media/clip.mp4", b"mp4".to_vec()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let posted = super::super::load::Posted {
            files: &scripts,
            media: &media,
        };
        let p = parse_flow("t.yaml", text, &posted);
        assert!(p.refusals.is_empty(), "{:?}", p.refusals);
        let names: Vec<&str> = p.flow.steps.iter().map(|s| s.name).collect();
        for s in SUPPORTED {
            assert!(names.contains(s), "{s} not exercised");
        }
        assert!(p.flow.steps[4].optional);
        let recordings: Vec<&Command> = p
            .flow
            .steps
            .iter()
            .filter(|s| s.name == "startRecording")
            .map(|s| &s.command)
            .collect();
        assert!(matches!(recordings[0], Command::StartRecording(n) if n == "login"));
        assert!(matches!(recordings[1], Command::StartRecording(n) if n == "again"));
        let airplane: Vec<&Command> = p
            .flow
            .steps
            .iter()
            .filter(|s| s.name.ends_with("AirplaneMode"))
            .map(|s| &s.command)
            .collect();
        assert!(matches!(airplane[0], Command::SetAirplaneMode(v) if v == "enabled"));
        assert!(matches!(airplane[1], Command::SetAirplaneMode(v) if v == "disabled"));
        assert!(matches!(airplane[2], Command::SetAirplaneMode(v) if v == "${AIR}"));
        assert!(matches!(airplane[3], Command::ToggleAirplaneMode));
        assert!(parse("- startRecording\n").refusals[0]
            .to_string()
            .contains("needs a file name"));
        for (bad, why) in [
            (
                "- setOrientation: SIDEWAYS\n",
                "`SIDEWAYS` is not an orientation",
            ),
            ("- inputRandomEmail: {length: 3}\n", "takes no arguments"),
            ("- setAirplaneMode: on\n", "`on` is not an airplane mode"),
            ("- setAirplaneMode\n", "needs `enabled` or `disabled`"),
            (
                "- setAirplaneMode: {state: enabled}\n",
                "unknown argument `state`",
            ),
            ("- toggleAirplaneMode: now\n", "takes no arguments"),
            ("- inputRandomText: {size: 3}\n", "size"),
            ("- travel: {points: [\"0,0\"]}\n", "needs `speed`"),
            ("- travel: {points: [\"95,0\"], speed: 3}\n", "latitude is"),
            ("- travel: {points: [], speed: 3}\n", "at least one point"),
        ] {
            let r = parse(bad).refusals;
            assert!(
                r.len() == 1 && r[0].to_string().contains(why),
                "{bad}: {r:?}"
            );
        }
    }

    #[test]
    fn launch_arguments_are_typed_as_maestro_reads_them() {
        let p = parse(
            r#"
- launchApp:
    appId: a.b
    clearKeychain: true
    arguments:
      user: ada
      quoted: "3"
      onboarded: false
      count: 3
      big: 9000000000
      ratio: 1.5
      version: 1.2.3
      who: ${USER}
"#,
        );
        assert!(p.refusals.is_empty(), "{:?}", p.refusals);
        let Command::LaunchApp {
            arguments,
            clear_keychain,
            ..
        } = &p.flow.steps[0].command
        else {
            panic!("not a launch");
        };
        assert!(clear_keychain);
        use LaunchValue::*;
        let expected = [
            ("user", Text("ada".into())),
            ("quoted", Text("3".into())),
            ("onboarded", Bool(false)),
            ("count", Int(3)),
            ("big", Int(9_000_000_000)),
            ("ratio", Number(1.5)),
            ("version", Text("1.2.3".into())),
            ("who", Text("${USER}".into())),
        ];
        let got: Vec<(&str, LaunchValue)> = arguments
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        assert_eq!(got, expected);
        for (bad, why) in [
            ("- launchApp: {arguments: [a, b]}\n", "a map of names"),
            ("- launchApp: {arguments: {a: [1]}}\n", "not a list"),
            ("- launchApp: {arguments: {a: }}\n", "has no value"),
        ] {
            let r = parse(bad).refusals;
            assert!(r[0].to_string().contains(why), "{bad}: {r:?}");
        }
        assert!(parse("- clearKeychain\n").refusals.is_empty());
        assert!(parse("- clearKeychain: x\n").refusals[0]
            .to_string()
            .contains("takes no arguments"));
    }

    #[test]
    fn refusals_name_command_line_and_the_supported_list() {
        let p = parse("- back\n- assertWithAI: ok\n- frobnicate\n- tapOn: {colour: red}\n");
        let r: Vec<String> = p.refusals.iter().map(|r| r.to_string()).collect();
        assert_eq!(p.refusals.len(), 3, "{r:?}");
        assert!(
            r[0].starts_with("t.yaml:2: `assertWithAI`: not supported: AI assertions"),
            "{}",
            r[0]
        );
        assert!(r[0].contains("supported: launchApp"));
        assert!(
            r[1].starts_with("t.yaml:3: `frobnicate`: unknown command"),
            "{}",
            r[1]
        );
        assert!(r[2].contains("unknown argument `colour`"), "{}", r[2]);
    }

    #[test]
    fn bad_inputs() {
        for (text, want) in [
            ("- tapOn: [\n", "invalid YAML"),
            (
                "- repeat: {times: 1000000, commands: [back]}\n",
                "more than 1000",
            ),
            ("- tapOn: \"(\"\n", "not a regular expression"),
            ("- inputText: ${1 + 2\n", "without a closing"),
            ("- runFlow: other.yaml\n", "cannot run sub-flow files"),
            ("- runScript: setup.js\n", "cannot run sub-flow files"),
            ("- runScript: {file: \"${F}.js\"}\n", "uses a variable"),
            ("- evalScript: \"\"\n", "needs JavaScript"),
            ("- assertTrue\n", "needs a condition"),
            ("- action: fly\n", "not one of Maestro's: back"),
            ("- addMedia: [cat.png]\n", "media are given in `media`"),
            ("- addMedia: []\n", "at least one file"),
            ("- {tapOn: a, back: b}\n", "one key"),
        ] {
            let p = parse(text);
            assert!(
                p.refusals.iter().any(|r| r.message.contains(want)),
                "{text}: {:?}",
                p.refusals
            );
        }
    }

    /// Files by name, for a [`super::super::load::Posted`] loader.
    fn files(
        named: impl IntoIterator<Item = (String, String)>,
    ) -> std::collections::BTreeMap<String, String> {
        named.into_iter().collect()
    }

    /// Every step of `steps`, nested ones included.
    fn all_steps(steps: &[Step]) -> usize {
        steps
            .iter()
            .map(|s| match &s.command {
                Command::RunFlow { steps, .. }
                | Command::Repeat { steps, .. }
                | Command::Retry { steps, .. } => 1 + all_steps(steps),
                _ => 1,
            })
            .sum()
    }

    /// A chain of `n` files, `f1.yaml` running `f2.yaml`… and the last `back`.
    fn chain(n: usize) -> std::collections::BTreeMap<String, String> {
        files((1..=n).map(|i| {
            let text = match i == n {
                true => "- back\n".to_string(),
                false => format!("- runFlow: f{}.yaml\n", i + 1),
            };
            (format!("f{i}.yaml"), text)
        }))
    }

    #[test]
    fn nesting_counts_across_sub_flow_files_on_a_quarter_of_a_workers_stack() {
        use super::super::load::Posted;
        // A quarter of a tokio worker's 2 MiB: what the deepest flow allowed needs, with room.
        let worker = std::thread::Builder::new().stack_size(512 * 1024);
        let worker = worker.spawn(nesting_across_files).expect("thread");
        worker.join().expect("no overflow");

        fn nesting_across_files() {
            // The top flow is level 0 and `f16.yaml` level 16: the deepest allowed.
            let ok = chain(MAX_NESTING);
            let p = parse_flow("top.yaml", "- runFlow: f1.yaml\n", &Posted::new(&ok));
            assert!(p.refusals.is_empty(), "{:?}", p.refusals);
            assert_eq!(all_steps(&p.flow.steps), MAX_NESTING + 1);
            // One file more is refused where the chain goes too deep, file and line.
            let long = chain(300);
            let p = parse_flow("top.yaml", "- runFlow: f1.yaml\n", &Posted::new(&long));
            assert_eq!(p.refusals.len(), 1, "{:?}", p.refusals);
            let r = p.refusals[0].to_string();
            assert!(
                r.starts_with(
                    "f16.yaml:1: `runFlow`: `runFlow`, `repeat` and `retry` nest deeper than 16 levels"
                ),
                "{r}"
            );
            // A `repeat` in each file is a level too.
            let both = files((1..=10).map(|i| {
                let text = format!(
                    "- back\n- repeat:\n    times: 2\n    commands:\n      - runFlow: r{}.yaml\n",
                    i + 1
                );
                (format!("r{i}.yaml"), text)
            }));
            let p = parse_flow("top.yaml", "- runFlow: r1.yaml\n", &Posted::new(&both));
            let r = p.refusals[0].to_string();
            assert!(
                r.starts_with("r8.yaml:5: `runFlow`") && r.contains("nest deeper"),
                "{r}"
            );
            // The deepest allowed: a `repeat` and a file a level each, the top one a `repeat`
            // too, and the last file's selector nested almost as deep as YAML goes.
            let last = MAX_NESTING / 2 - 1;
            let mut named = files((0..last).map(|i| {
                let text = format!(
                    "- repeat:\n    times: 1\n    commands:\n      - runFlow: d{}.yaml\n",
                    i + 1
                );
                (format!("d{i}.yaml"), text)
            }));
            let mut sel = "{text: x}".to_string();
            for _ in 0..55 {
                sel = format!("{{text: x, childOf: {sel}}}");
            }
            named.insert(format!("d{last}.yaml"), format!("- tapOn: {sel}\n"));
            let top = "- repeat:\n    times: 1\n    commands:\n      - runFlow: d0.yaml\n";
            let p = parse_flow("top.yaml", top, &Posted::new(&named));
            assert!(p.refusals.is_empty(), "{:?}", p.refusals);
            assert_eq!(all_steps(&p.flow.steps), MAX_NESTING + 1);
        }
    }

    #[test]
    fn a_fan_out_of_sub_flows_is_refused_where_it_goes_over_the_budget() {
        use super::super::budget::MAX_STEPS;
        use super::super::load::Posted;
        // Each file runs the next twice: 2^15 runs of the last one, were they all parsed (15
        // files, under the nesting limit).
        let fan = files((1..=15).map(|i| {
            let text = match i {
                15 => "- back\n".to_string(),
                _ => format!("- runFlow: f{0}.yaml\n- runFlow: f{0}.yaml\n", i + 1),
            };
            (format!("f{i}.yaml"), text)
        }));
        let top = "appId: x\n---\n- runFlow: f1.yaml\n- runFlow: f1.yaml\n";
        let p = parse_flow("top.yaml", top, &Posted::new(&fan));
        assert_eq!(p.refusals.len(), 1, "{:?}", p.refusals);
        let r = p.refusals[0].to_string();
        assert!(
            r.contains(".yaml:") && r.contains("more than 20000 steps"),
            "{r}"
        );
        // What was parsed before it went over is all that is held.
        assert!(all_steps(&p.flow.steps) <= MAX_STEPS);
        assert!(p.commands.len() <= MAX_STEPS + 1);
    }

    #[test]
    fn literal_repeats_and_retries_are_charged_by_their_counts() {
        let nested = "- back\n- repeat:\n    times: 1000\n    commands:\n      - repeat:\n          times: 1000\n          commands: [back]\n";
        let r = parse(nested).refusals;
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].to_string()
                .starts_with("t.yaml:2: `repeat`: the flow comes to more than 20000 steps"),
            "{r:?}"
        );
        // 5000 steps, tried up to 4 times, and the `retry` itself.
        let backs = vec!["back"; 5000].join(", ");
        let retry = format!("- retry:\n    maxRetries: 3\n    commands: [{backs}]\n");
        assert!(parse(&retry).refusals[0]
            .message
            .contains("more than 20000 steps"));
        let retry = format!("- retry:\n    maxRetries: 2\n    commands: [{backs}]\n");
        assert!(parse(&retry).refusals.is_empty());
        // A count known only at run time is bounded there.
        let later = "- repeat:\n    times: ${N}\n    commands:\n      - repeat: {times: '${N}', commands: [back]}\n";
        assert!(parse(later).refusals.is_empty());
    }

    #[test]
    fn sub_flows_read_again_and_again_are_bounded_by_their_text() {
        use super::super::load::Posted;
        // A large sub-flow read once per `runFlow`: 40 readings of 600 KB is over 16 MiB.
        let big = format!("- inputText: \"{}\"\n", "x".repeat(600 * 1024));
        let named = files([("big.yaml".to_string(), big)]);
        let top = "- runFlow: big.yaml\n".repeat(40);
        let p = parse_flow("top.yaml", &top, &Posted::new(&named));
        assert_eq!(p.refusals.len(), 1, "{:?}", p.refusals);
        let r = p.refusals[0].to_string();
        assert!(
            r.starts_with("top.yaml:28: `runFlow`") && r.contains("MiB of text"),
            "{r}"
        );
        // And by their YAML nodes, aliases expanded.
        let items = vec!["*a"; 180].join(", ");
        let wide = format!(
            "tags: &a [{}]\nproperties: [{items}]\n---\n- back\n",
            vec!["1"; 1000].join(", ")
        );
        let named = files([("wide.yaml".to_string(), wide)]);
        let top = "- runFlow: wide.yaml\n".repeat(10);
        let p = parse_flow("top.yaml", &top, &Posted::new(&named));
        let r = p.refusals[0].to_string();
        assert!(
            r.starts_with("top.yaml:6: `runFlow`") && r.contains("YAML nodes"),
            "{r}"
        );
    }

    #[test]
    fn a_sub_flows_refusals_are_listed_once_however_often_it_runs() {
        use super::super::load::Posted;
        let named = files([("bad.yaml".to_string(), "- frobnicate\n".to_string())]);
        let p = parse_flow(
            "top.yaml",
            &"- runFlow: bad.yaml\n".repeat(5),
            &Posted::new(&named),
        );
        assert_eq!(p.refusals.len(), 1, "{:?}", p.refusals);
        assert!(p.refusals[0]
            .to_string()
            .starts_with("bad.yaml:1: `frobnicate`"));
    }
}
