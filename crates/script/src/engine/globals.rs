//! Maestro's globals: the prelude (JavaScript that makes `output`, `maestro`, `console`,
//! `json` and `http`), the runner each evaluation's code goes through, and the native functions
//! the prelude is given: `writeLine` (one `console.*` line, into [`Console`]) and `send`
//! (an `http.*` call, in [`http`](super::http)).

use std::cell::RefCell;
use std::path::Path;

use boa_engine::object::FunctionObjectBuilder;
use boa_engine::property::PropertyDescriptor;
use boa_engine::{Context, JsObject, JsResult, JsString, JsValue, NativeFunction, Source};

/// How much an evaluation may write with `console.*` (bytes, counted in UTF-8): past it, the
/// lines are dropped and one line says so.
pub const CONSOLE_LIMIT_BYTES: usize = 1 << 20;

/// Where the prelude's frames say they are, to tell them from the script's in a backtrace.
pub(super) const PRELUDE_PATH: &str = "mobilectl-prelude";

/// What `console.*` wrote in the current evaluation.
#[derive(Default)]
pub(super) struct Console {
    pub(super) lines: Vec<String>,
    bytes: usize,
    cut: bool,
}

impl Console {
    pub(super) fn push(&mut self, line: String) {
        if self.cut {
            return;
        }
        let bytes = self.bytes.saturating_add(line.len());
        if bytes > CONSOLE_LIMIT_BYTES {
            self.cut = true;
            self.lines.push(format!(
                "(console output cut: more than {CONSOLE_LIMIT_BYTES} bytes in one evaluation)"
            ));
        } else {
            self.bytes = bytes;
            self.lines.push(line);
        }
    }
}

/// Sets up Maestro's globals. Evaluated once; it gets the two native functions, and keeps its
/// own references to the built-ins it uses, so that a script replacing `JSON` or `String` does
/// not change what `console.log` writes.
pub(super) const PRELUDE: &str = r#"(function (writeLine, send) {
  'use strict';
  const global = globalThis;
  const stringify = JSON.stringify, parse = JSON.parse, toStr = String;
  const ErrorType = Error, keysOf = Object.keys;
  const objectToString = Object.prototype.toString;
  const toUpper = String.prototype.toUpperCase;

  function show(value) {
    if (typeof value === 'string') return value;
    if (typeof value === 'object' && value !== null && !(value instanceof ErrorType)) {
      try {
        const text = stringify(value);
        if (typeof text === 'string') return text;
      } catch (ignored) {}
    }
    try {
      return toStr(value);
    } catch (ignored) {
      return objectToString.call(value);
    }
  }
  function write(args) {
    let line = '';
    for (let i = 0; i < args.length; i++) {
      if (i > 0) line += ' ';
      line += show(args[i]);
    }
    writeLine(line);
  }
  const console = {
    log(...args) { write(args); },
    info(...args) { write(args); },
    warn(...args) { write(args); },
    error(...args) { write(args); },
    debug(...args) { write(args); },
  };

  function json(text) { return parse(text); }

  function request(method, url, options) {
    if (options === undefined || options === null) options = {};
    if (options.multipartForm !== undefined && options.multipartForm !== null) {
      throw new ErrorType('http: multipartForm is not supported by mobilectl');
    }
    const headers = [];
    const given = options.headers;
    if (given !== undefined && given !== null) {
      const names = keysOf(given);
      for (let i = 0; i < names.length; i++) {
        headers.push([names[i], toStr(given[names[i]])]);
      }
    }
    let body = options.body;
    if (body === null) body = undefined;
    if (body !== undefined && typeof body !== 'string') body = stringify(body);
    return send(toUpper.call(toStr(method)), toStr(url), headers, body);
  }
  const http = {
    get(url, options) { return request('GET', url, options); },
    post(url, options) { return request('POST', url, options); },
    put(url, options) { return request('PUT', url, options); },
    delete(url, options) { return request('DELETE', url, options); },
    request(url, options) {
      const method = options === undefined || options === null || options.method === undefined
        ? 'GET' : options.method;
      return request(method, url, options);
    },
  };

  // A name declared nowhere reads as undefined instead of throwing a ReferenceError, as in
  // Maestro: `${MY_VAR || 'default'}`.
  Object.setPrototypeOf(global, new Proxy(Object.getPrototypeOf(global), {
    has() { return true; },
  }));

  return { output: {}, maestro: { platform: 'unknown', copiedText: undefined }, console, json, http };
})"#;

/// Makes the function each evaluation's code goes through: a strict-mode direct `eval`, so the
/// code's declarations are its own and its completion value comes back. Its only outer scope
/// is this sloppy-mode function, whose parameter is named `eval` so that `eval(…)` is a direct
/// eval of the real `eval` whatever a script does to the global one: the code sees nothing of
/// the prelude, only the globals (and `arguments`).
pub(super) const RUNNER: &str = r#"(function (eval) {
  return function () { 'use strict'; return eval(arguments[0]); };
})"#;

/// The globals the prelude makes, by name; `output` is set once, the others before each
/// evaluation.
pub(super) const OWN_GLOBALS: [&str; 5] = ["output", "maestro", "console", "json", "http"];

/// A global of the prelude's: writable, not enumerable, not configurable (never deleted).
pub(super) fn global_property(object: &JsObject) -> PropertyDescriptor {
    PropertyDescriptor::builder()
        .value(object.clone())
        .writable(true)
        .enumerable(false)
        .configurable(false)
        .build()
}

/// Evaluates `source` (a function) and calls it with `args`: the object it answers.
pub(super) fn call_source(
    context: &mut Context,
    source: &str,
    args: &[JsValue],
) -> Result<JsObject, String> {
    let source = Source::from_bytes(source).with_path(Path::new(PRELUDE_PATH));
    let function = context
        .eval(source)
        .map_err(|err| format!("prelude: {err}"))?;
    let function = function.as_callable().ok_or("prelude: not a function")?;
    let made = function
        .call(&JsValue::undefined(), args, context)
        .map_err(|err| format!("prelude: {err}"))?;
    made.as_object()
        .ok_or_else(|| "prelude: no object".to_owned())
}

pub(super) fn native(
    context: &mut Context,
    name: &str,
    length: usize,
    function: fn(&JsValue, &[JsValue], &mut Context) -> JsResult<JsValue>,
) -> JsValue {
    FunctionObjectBuilder::new(context.realm(), NativeFunction::from_fn_ptr(function))
        .name(JsString::from(name))
        .length(length)
        .build()
        .into()
}

/// `writeLine(line)`: one `console.*` line.
pub(super) fn write_line(
    _this: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let line = match args.first() {
        Some(value) => value.to_string(context)?.to_std_string_lossy(),
        None => String::new(),
    };
    if let Some(console) = context.get_data::<RefCell<Console>>() {
        console.borrow_mut().push(line);
    }
    Ok(JsValue::undefined())
}
