//! Tests of evaluations as a script sees them: completion values, env variables, what lasts
//! from one evaluation to the next (only `output`), `maestro`, `console`, `json`, and what the
//! engine keeps from the host. Also the helpers the other tests of the engine share.

use std::collections::BTreeMap;

use super::Engine;
use crate::wire::{Eval, FromWorker, HttpCall, HttpReply};

/// An evaluation of `code`, named `test.js`, on Android, with no env and 64 MiB of memory.
pub(super) fn eval_of(code: &str) -> Eval {
    Eval {
        code: code.to_owned(),
        name: "test.js".to_owned(),
        env: BTreeMap::new(),
        platform: "android".to_owned(),
        copied_text: None,
        memory_bytes: 64 << 20,
    }
}

pub(super) fn with_env(code: &str, env: &[(&str, &str)]) -> Eval {
    let env = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Eval {
        env,
        ..eval_of(code)
    }
}

pub(super) fn no_http(call: HttpCall) -> HttpReply {
    panic!("unexpected http call {call:?}")
}

/// The value of a `Done`, or a panic with what came instead.
pub(super) fn done(engine: &mut Engine, eval: &Eval) -> String {
    match engine.eval(eval, &mut no_http) {
        FromWorker::Done { value, .. } => value,
        other => panic!("{:?} answered {other:?}", eval.code),
    }
}

/// The message of a `Failed`, or a panic with what came instead.
pub(super) fn failed(engine: &mut Engine, eval: &Eval) -> String {
    match engine.eval(eval, &mut no_http) {
        FromWorker::Failed { message, .. } => message,
        other => panic!("{:?} answered {other:?}", eval.code),
    }
}

pub(super) fn value(engine: &mut Engine, code: &str) -> String {
    done(engine, &eval_of(code))
}

#[test]
fn values_read_as_string_of_the_completion_value() {
    let mut engine = Engine::new();
    for (code, expected) in [
        ("1 + 2", "3"),
        ("0.5 * 3", "1.5"),
        ("1e21", "1e+21"),
        ("'text'", "text"),
        ("undefined", "undefined"),
        ("null", "null"),
        ("true", "true"),
        ("({a: 1})", "[object Object]"),
        ("[1, 2, 3]", "1,2,3"),
        ("Symbol('s')", "Symbol(s)"),
        ("10n ** 20n", "100000000000000000000"),
        ("let x = 2; if (x > 1) { 'big' } else { 'small' }", "big"),
        ("var v = 5; v * 2", "10"),
        ("", "undefined"),
    ] {
        assert_eq!(value(&mut engine, code), expected, "{code}");
    }
    // An object whose toString throws: that is the failure.
    let message = failed(
        &mut engine,
        &eval_of("({toString() { throw new Error('no text') }})"),
    );
    assert!(
        message.starts_with("Error: no text (in test.js"),
        "{message}"
    );
}

#[test]
fn env_variables_are_globals_of_their_evaluation_only() {
    let mut engine = Engine::new();
    let first = with_env(
        "USER + ' ' + PASSWORD",
        &[("USER", "ann"), ("PASSWORD", "s3cret")],
    );
    assert_eq!(done(&mut engine, &first), "ann s3cret");
    let second = with_env("typeof PASSWORD + ' ' + USER", &[("USER", "bob")]);
    assert_eq!(done(&mut engine, &second), "undefined bob");
    assert_eq!(value(&mut engine, "typeof USER"), "undefined");
    // An env variable with a name that is no identifier is still a property of the global.
    let odd = with_env("globalThis['MY-VAR']", &[("MY-VAR", "x")]);
    assert_eq!(done(&mut engine, &odd), "x");
}

#[test]
fn env_variables_do_not_replace_built_ins_or_maestros_globals() {
    let mut engine = Engine::new();
    let eval = with_env(
        "[typeof JSON.parse, typeof output, typeof console.log, typeof http.get, Math.max(1, 2)].join()",
        &[("JSON", "x"), ("output", "y"), ("console", "z"), ("http", "w"), ("Math", "m")],
    );
    assert_eq!(
        done(&mut engine, &eval),
        "function,object,function,function,2"
    );
    assert_eq!(value(&mut engine, "typeof JSON.stringify"), "function");
}

#[test]
fn declarations_and_globals_of_a_script_do_not_outlive_it() {
    let mut engine = Engine::new();
    // Two scripts may declare the same names.
    assert_eq!(
        value(
            &mut engine,
            "const response = 1; let a = 2; class C {} response + a"
        ),
        "3"
    );
    assert_eq!(
        value(
            &mut engine,
            "const response = 10; let a = 20; class C {} response + a"
        ),
        "30"
    );
    assert_eq!(
        value(&mut engine, "var v = 1; function f() { return 2 } v + f()"),
        "3"
    );
    assert_eq!(
        value(&mut engine, "typeof v + ' ' + typeof f"),
        "undefined undefined"
    );
    // What a script puts on the global object is removed before the next one.
    assert_eq!(value(&mut engine, "globalThis.leftover = 1; leftover"), "1");
    assert_eq!(value(&mut engine, "typeof leftover"), "undefined");
    // Replacing Maestro's globals lasts one evaluation too (but `output`, see below).
    assert_eq!(
        value(
            &mut engine,
            "console = null; json = null; maestro = 1; typeof console"
        ),
        "object"
    );
    assert_eq!(
        value(
            &mut engine,
            "typeof console.log + typeof json + maestro.platform"
        ),
        "functionfunctionandroid"
    );
}

#[test]
fn scripts_see_nothing_of_the_prelude() {
    let mut engine = Engine::new();
    let names = [
        "writeLine",
        "send",
        "request",
        "show",
        "write",
        "stringify",
        "toStr",
        "global",
    ];
    for name in names {
        assert_eq!(
            value(&mut engine, &format!("typeof {name}")),
            "undefined",
            "{name}"
        );
    }
    // A script replacing built-ins the prelude uses does not change it, nor the runner.
    let code =
        "JSON.stringify = () => 'replaced'; String = null; globalThis.eval = null; console.log({a: 1}); 1";
    let FromWorker::Done { console, .. } = engine.eval(&eval_of(code), &mut no_http) else {
        panic!("not done");
    };
    assert_eq!(console, [r#"{"a":1}"#]);
    assert_eq!(value(&mut engine, "const again = 2; again"), "2");
}

#[test]
fn an_undeclared_name_reads_as_undefined_as_in_maestro() {
    let mut engine = Engine::new();
    assert_eq!(value(&mut engine, "MISSING || 'default'"), "default");
    assert_eq!(value(&mut engine, "typeof MISSING"), "undefined");
    let message = failed(&mut engine, &eval_of("MISSING.field"));
    assert!(message.starts_with("TypeError: "), "{message}");
    assert!(
        message.ends_with("(in test.js, line 1, col 9)"),
        "{message}"
    );
}

#[test]
fn output_persists_across_evaluations() {
    let mut engine = Engine::new();
    assert_eq!(
        value(&mut engine, "output.token = 'abc'; output.count = 1; 'set'"),
        "set"
    );
    assert!(failed(
        &mut engine,
        &eval_of("output.count++; throw new Error('x')")
    )
    .contains('x'));
    let env = with_env("output.token + ' ' + output.count", &[("OTHER", "1")]);
    assert_eq!(done(&mut engine, &env), "abc 2");
    assert_eq!(value(&mut engine, "output.nested = {list: [1, 2]}; 0"), "0");
    assert_eq!(value(&mut engine, "output.nested.list.length"), "2");
    // Another engine has its own.
    assert_eq!(
        value(&mut Engine::new(), "typeof output.token"),
        "undefined"
    );
}

#[test]
fn maestro_platform_and_copied_text_come_from_each_evaluation() {
    let mut engine = Engine::new();
    let mut eval = eval_of("maestro.platform + ' ' + maestro.copiedText");
    assert_eq!(done(&mut engine, &eval), "android undefined");
    eval.platform = "ios".to_owned();
    eval.copied_text = Some("copied".to_owned());
    assert_eq!(done(&mut engine, &eval), "ios copied");
    eval.copied_text = None;
    assert_eq!(done(&mut engine, &eval), "ios undefined");
    assert_eq!(
        value(&mut engine, "maestro.copiedText === undefined"),
        "true"
    );
}

#[test]
fn console_lines_are_collected_per_evaluation() {
    let mut engine = Engine::new();
    let code = "console.log('a', 1, true, null, undefined);
        console.info({x: [1, 'two']}, [3]);
        console.warn(new Error('bad'), function f() {}, Symbol('s'), 5n);
        console.error(); console.debug('d');
        const cyclic = {}; cyclic.self = cyclic; console.log(cyclic, Object.create(null));
        'end'";
    let FromWorker::Done { value, console } = engine.eval(&eval_of(code), &mut no_http) else {
        panic!("not done");
    };
    assert_eq!(value, "end");
    assert_eq!(
        console,
        [
            "a 1 true null undefined",
            r#"{"x":[1,"two"]} [3]"#,
            "Error: bad function f() {} Symbol(s) 5",
            "",
            "d",
            "[object Object] {}",
        ]
    );
    // The next evaluation starts with none, and a failing one keeps what it wrote.
    let FromWorker::Failed { console, message } =
        engine.eval(&eval_of("console.log('before'); null.x"), &mut no_http)
    else {
        panic!("not failed");
    };
    assert_eq!(console, ["before"]);
    assert!(message.starts_with("TypeError"), "{message}");
}

#[test]
fn console_output_is_cut_past_its_limit() {
    let mut engine = Engine::new();
    let code = "const line = 'x'.repeat(400000); for (let i = 0; i < 5; i++) console.log(line); 1";
    let FromWorker::Done { console, .. } = engine.eval(&eval_of(code), &mut no_http) else {
        panic!("not done");
    };
    assert_eq!(console.len(), 3);
    assert!(
        console[2].starts_with("(console output cut"),
        "{}",
        console[2]
    );
}

#[test]
fn json_parses_text() {
    let mut engine = Engine::new();
    assert_eq!(
        value(&mut engine, r#"json('{"a": [1, {"b": "c"}]}').a[1].b"#),
        "c"
    );
    assert_eq!(value(&mut engine, "json('3') + 1"), "4");
    let message = failed(&mut engine, &eval_of("json('{')"));
    assert!(message.starts_with("SyntaxError: "), "{message}");
}

#[test]
fn nothing_is_loaded_from_the_host() {
    let mut engine = Engine::new();
    let code = "import('./Cargo.toml').then(() => { output.loaded = 'yes' }, e => { output.loaded = 'no' }); 0";
    assert_eq!(value(&mut engine, code), "0");
    assert_eq!(value(&mut engine, "output.loaded"), "no");
    for name in [
        "require",
        "process",
        "fs",
        "setTimeout",
        "fetch",
        "XMLHttpRequest",
    ] {
        assert_eq!(
            value(&mut engine, &format!("typeof {name}")),
            "undefined",
            "{name}"
        );
    }
    // The local time zone is UTC, whatever the host's.
    assert_eq!(
        value(
            &mut engine,
            "new Date(0).getHours() + ' ' + new Date(0).getTimezoneOffset()"
        ),
        "0 0"
    );
}

#[test]
fn array_buffers_are_bounded_by_the_memory_budget() {
    let mut engine = Engine::new();
    let eval = Eval {
        memory_bytes: 1 << 20,
        ..eval_of("new ArrayBuffer(2 << 20)")
    };
    let message = failed(&mut engine, &eval);
    assert!(message.starts_with("RangeError: "), "{message}");
    let eval = Eval {
        memory_bytes: 1 << 20,
        ..eval_of("new ArrayBuffer(1000).byteLength")
    };
    assert_eq!(done(&mut engine, &eval), "1000");
}
