//! The Boa context on the engine's thread: its set-up (limits, host hooks, Maestro's globals
//! from [`globals`](super::globals)), and one evaluation: the globals put back, the code run
//! through the strict-mode runner, its completion value or its error as text.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use boa_engine::context::{ContextBuilder, HostHooks};
use boa_engine::module::IdleModuleLoader;
use boa_engine::property::PropertyKey;
use boa_engine::{js_string, Context, JsNativeError, JsObject, JsResult, JsString, JsValue};

use super::errors::describe;
use super::globals::{
    call_source, global_property, native, write_line, Console, OWN_GLOBALS, PRELUDE, RUNNER,
};
use super::http::send_http;
use super::nesting::check_nesting;
use super::Limits;
use crate::wire::{Eval, FromWorker};

/// The largest `ArrayBuffer` a script may make, when its memory budget is larger (Boa's own
/// bound, the spec's recommendation).
const MAX_BUFFER_BYTES: u64 = 1_610_612_736;

/// The host hooks: UTC as the local time zone (nothing read from the host), array buffers
/// bounded by the evaluation's memory budget (a `RangeError` rather than an abort), and
/// [`check_nesting`] on every string compiled at run time (`eval`, `new Function`), which
/// would otherwise get past the check made on the script.
struct Hooks {
    max_buffer: Cell<u64>,
}

impl HostHooks for Hooks {
    fn ensure_can_compile_strings(
        &self,
        _realm: boa_engine::realm::Realm,
        parameters: &[JsString],
        body: &JsString,
        _direct: bool,
        _context: &mut Context,
    ) -> JsResult<()> {
        for text in parameters.iter().chain([body]) {
            check_nesting(&text.to_std_string_lossy())
                .map_err(|why| JsNativeError::syntax().with_message(why))?;
        }
        Ok(())
    }

    fn local_timezone_offset_seconds(&self, _unix_time_seconds: i64) -> i32 {
        0
    }

    fn max_buffer_size(&self, _context: &mut Context) -> u64 {
        self.max_buffer.get()
    }
}

/// The context and what the engine keeps of its set-up.
pub(super) struct Js {
    pub(super) context: Context,
    limits: Limits,
    hooks: Rc<Hooks>,
    /// `function () { return eval(arguments[0]) }`, strict, with the real `eval`.
    runner: JsObject,
    /// `maestro`, `console`, `json`, `http`: put back before each evaluation.
    globals: Vec<(JsString, JsObject)>,
    maestro: JsObject,
    /// The global's own properties after set-up: never removed, never set from env.
    builtins: HashSet<PropertyKey>,
}

impl Js {
    pub(super) fn new(limits: Limits) -> Result<Js, String> {
        let hooks = Rc::new(Hooks {
            max_buffer: Cell::new(MAX_BUFFER_BYTES),
        });
        let mut context = ContextBuilder::new()
            .host_hooks(hooks.clone())
            .module_loader(Rc::new(IdleModuleLoader))
            .build()
            .map_err(|err| err.to_string())?;
        let runtime = context.runtime_limits_mut();
        runtime.set_loop_iteration_limit(limits.loop_iterations);
        runtime.set_recursion_limit(limits.recursion);
        context.insert_data(RefCell::new(Console::default()));

        let global = context.global_object();
        let write_line = native(&mut context, "writeLine", 1, write_line);
        let send = native(&mut context, "send", 4, send_http);
        let made = call_source(&mut context, PRELUDE, &[write_line, send])?;
        let eval = global
            .get(js_string!("eval"), &mut context)
            .map_err(|e| e.to_string())?;
        let runner = call_source(&mut context, RUNNER, &[eval])?;
        let get_object = |object: &JsObject, name: &str, context: &mut Context| {
            object
                .get(JsString::from(name), context)
                .map_err(|err| err.to_string())?
                .as_object()
                .ok_or_else(|| format!("prelude: no {name}"))
        };
        let mut globals = Vec::new();
        for name in OWN_GLOBALS {
            let object = get_object(&made, name, &mut context)?;
            let key = JsString::from(name);
            global
                .define_property_or_throw(key.clone(), global_property(&object), &mut context)
                .map_err(|err| err.to_string())?;
            if name != "output" {
                globals.push((key, object));
            }
        }
        let maestro = get_object(&made, "maestro", &mut context)?;
        let builtins = global
            .own_property_keys(&mut context)
            .map_err(|err| err.to_string())?
            .into_iter()
            .collect();
        Ok(Js {
            context,
            limits,
            hooks,
            runner,
            globals,
            maestro,
            builtins,
        })
    }

    pub(super) fn eval(&mut self, eval: &Eval) -> FromWorker {
        if let Some(console) = self.context.get_data::<RefCell<Console>>() {
            *console.borrow_mut() = Console::default();
        }
        let outcome = self.run(eval);
        let console = self
            .context
            .get_data::<RefCell<Console>>()
            .map(|console| std::mem::take(&mut console.borrow_mut().lines))
            .unwrap_or_default();
        match outcome {
            Ok(value) => FromWorker::Done { value, console },
            Err(message) => FromWorker::Failed { message, console },
        }
    }

    fn run(&mut self, eval: &Eval) -> Result<String, String> {
        if let Err(why) = check_nesting(&eval.code) {
            return Err(format!("SyntaxError: {why} (in {})", eval.name));
        }
        self.hooks
            .max_buffer
            .set(eval.memory_bytes.min(MAX_BUFFER_BYTES));
        let value = self.prepare_globals(eval).and_then(|()| {
            let code = JsValue::from(JsString::from(eval.code.as_str()));
            let value = self
                .runner
                .call(&JsValue::undefined(), &[code], &mut self.context)?;
            self.context.run_jobs()?;
            value_text(&value, &mut self.context)
        });
        value.map_err(|err| describe(err, &eval.name, self.limits, &mut self.context))
    }

    /// Removes the globals the last evaluation left (its env, what its code put on
    /// `globalThis`), sets this one's env, and puts `maestro` (with this evaluation's values),
    /// `console`, `json` and `http` back.
    fn prepare_globals(&mut self, eval: &Eval) -> JsResult<()> {
        let context = &mut self.context;
        let global = context.global_object();
        for key in global.own_property_keys(context)? {
            if !self.builtins.contains(&key) {
                // One a script made non-configurable stays; nothing to do about it.
                let _ = global.delete_property_or_throw(key, context);
            }
        }
        for (name, value) in &eval.env {
            let key = PropertyKey::from(JsString::from(name.as_str()));
            // An env variable named like a built-in (`JSON`, `output`) would break it: the
            // built-in wins.
            if !self.builtins.contains(&key) {
                global.create_data_property_or_throw(
                    key,
                    JsString::from(value.as_str()),
                    context,
                )?;
            }
        }
        for (name, object) in &self.globals {
            global.define_property_or_throw(name.clone(), global_property(object), context)?;
        }
        let platform = JsString::from(eval.platform.as_str());
        self.maestro
            .set(js_string!("platform"), platform, true, context)?;
        let copied = match &eval.copied_text {
            Some(text) => JsValue::from(JsString::from(text.as_str())),
            None => JsValue::undefined(),
        };
        self.maestro
            .set(js_string!("copiedText"), copied, true, context)?;
        Ok(())
    }
}

/// `String(value)`: what the answer carries.
pub(super) fn value_text(value: &JsValue, context: &mut Context) -> JsResult<String> {
    if let Some(symbol) = value.as_symbol() {
        return Ok(symbol.descriptive_string().to_std_string_lossy());
    }
    Ok(value.to_string(context)?.to_std_string_lossy())
}
