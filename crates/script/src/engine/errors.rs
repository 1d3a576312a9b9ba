//! Boa's errors as a flow's author reads them: the error's name and message (or what was
//! thrown, or which limit was passed), and where in the script it happened.

use boa_engine::error::{EngineError, JsNativeErrorKind, RuntimeLimitError};
use boa_engine::{js_string, Context, JsError, JsValue};

use super::context::value_text;
use super::globals::PRELUDE_PATH;
use super::Limits;

/// An error as a flow's author reads it: `TypeError: … (in login.js, line 3, col 7)`,
/// `the script ran more than 1000000 loop iterations (in …)`.
pub(super) fn describe(err: JsError, name: &str, limits: Limits, context: &mut Context) -> String {
    let shown = err.to_string();
    let place = match location(&shown) {
        Some((line, col)) => format!("in {name}, line {line}, col {col}"),
        None => format!("in {name}"),
    };
    let text = if let Some(engine) = err.as_engine() {
        match engine {
            EngineError::RuntimeLimit(limit) => limit_text(*limit, limits),
            other => other.to_string(),
        }
    } else if let Some(value) = err.as_opaque().filter(|value| !is_error_object(value)) {
        // `throw 'text'`, `throw {…}`: what it threw.
        let thrown = value_text(value, context).unwrap_or_else(|_| value.display().to_string());
        format!("uncaught exception: {thrown}")
    } else {
        // A thrown error's own `name` (`class ValidationError extends Error`), else its kind's.
        let own_name = err
            .as_opaque()
            .and_then(JsValue::as_object)
            .and_then(|error| error.get(js_string!("name"), context).ok())
            .and_then(|name| name.as_string())
            .map(|name| name.to_std_string_lossy())
            .filter(|name| !name.is_empty());
        match err.try_native(context) {
            Ok(native) => {
                let kind = own_name.as_deref().unwrap_or(kind_name(native.kind()));
                match native.message() {
                    "" => kind.to_owned(),
                    "abrupt end" => format!(
                        "{kind}: the code ends before it is complete (a bracket, string or \
                         comment not closed?)"
                    ),
                    message => format!("{kind}: {message}"),
                }
            }
            Err(_) => shown.lines().next().unwrap_or_default().to_owned(),
        }
    };
    format!("{text} ({place})")
}

fn is_error_object(value: &JsValue) -> bool {
    value
        .as_object()
        .is_some_and(|object| object.is::<boa_engine::builtins::error::Error>())
}

fn limit_text(limit: RuntimeLimitError, limits: Limits) -> String {
    match limit {
        RuntimeLimitError::LoopIteration => format!(
            "the script ran more than {} loop iterations (an endless loop?)",
            limits.loop_iterations
        ),
        RuntimeLimitError::Recursion => format!(
            "the script's calls nested more than {} deep (endless recursion?)",
            limits.recursion
        ),
        RuntimeLimitError::StackSize => {
            "the script went over the engine's value stack (too many values at once)".to_owned()
        }
    }
}

fn kind_name(kind: &JsNativeErrorKind) -> &'static str {
    match kind {
        JsNativeErrorKind::Aggregate(_) => "AggregateError",
        JsNativeErrorKind::Eval => "EvalError",
        JsNativeErrorKind::Range => "RangeError",
        JsNativeErrorKind::Reference => "ReferenceError",
        JsNativeErrorKind::Syntax => "SyntaxError",
        JsNativeErrorKind::Type => "TypeError",
        JsNativeErrorKind::Uri => "URIError",
        _ => "Error",
    }
}

/// The line and column of the innermost frame of the script's own in Boa's backtrace, as its
/// `Display` writes it: lines `    at name (where at :line:col)`, the prelude's frames (`http.*`,
/// `json`) being `(mobilectl-prelude:line:col)`, built-ins' `(native)`.
fn location(shown: &str) -> Option<(u32, u32)> {
    shown
        .lines()
        .filter_map(|line| line.strip_prefix("    at "))
        .find_map(|frame| {
            let place = frame.strip_suffix(')')?;
            let place = &place[place.rfind('(')? + 1..];
            if place.starts_with(PRELUDE_PATH) {
                return None;
            }
            let (rest, col) = place.rsplit_once(':')?;
            let (_, line) = rest.rsplit_once(':')?;
            Some((line.parse().ok()?, col.parse().ok()?))
        })
}
