//! Tests of how evaluations fail: the runtime limits, and errors named with the script and
//! the line.

use super::tests::{eval_of, failed, value};
use super::{Engine, Limits};
use crate::wire::Eval;

#[test]
fn an_endless_loop_fails_on_the_loop_limit() {
    let limits = Limits {
        loop_iterations: 100_000,
        ..Limits::DEFAULT
    };
    let mut engine = Engine::with_limits(limits);
    assert_eq!(value(&mut engine, "output.before = 1; 'ok'"), "ok");
    let message = failed(&mut engine, &eval_of("while (true) {}"));
    assert_eq!(
        message,
        "the script ran more than 100000 loop iterations (an endless loop?) (in test.js)"
    );
    let message = failed(&mut engine, &eval_of("let i = 0;\nfor (;;) { i++ }"));
    assert!(
        message.starts_with("the script ran more than 100000 loop iterations"),
        "{message}"
    );
    // A loop under the limit runs, and the engine goes on, `output` with it.
    assert_eq!(
        value(
            &mut engine,
            "let n = 0; for (let i = 0; i < 50000; i++) n++; n + output.before"
        ),
        "50001"
    );
}

#[test]
fn the_default_limits_are_set() {
    assert_eq!(
        Limits::default(),
        Limits {
            loop_iterations: 1_000_000,
            recursion: 400
        }
    );
    let mut engine = Engine::new();
    let message = failed(&mut engine, &eval_of("while (true) {}"));
    assert_eq!(
        message,
        "the script ran more than 1000000 loop iterations (an endless loop?) (in test.js)"
    );
    let message = failed(&mut engine, &eval_of("function f() { return f() }\nf()"));
    assert_eq!(
        message,
        "the script's calls nested more than 400 deep (endless recursion?) (in test.js, line 1, col 24)"
    );
    // Mutual recursion, and recursion through a built-in, end the same way.
    let message = failed(
        &mut engine,
        &eval_of("const a = () => b(), b = () => [1].map(a); a()"),
    );
    assert!(
        message.starts_with("the script's calls nested more than 400 deep"),
        "{message}"
    );
    // Recursion under the limit runs, and the engine goes on.
    assert_eq!(
        value(
            &mut engine,
            "function d(n) { return n ? d(n - 1) + 1 : 0 } d(300)"
        ),
        "300"
    );
}

#[test]
fn failures_name_the_error_the_script_and_the_line() {
    let mut engine = Engine::new();
    let eval = Eval {
        name: "login.js".to_owned(),
        ..eval_of("const a = 1;\n\nnull.x")
    };
    let message = failed(&mut engine, &eval);
    assert!(message.starts_with("TypeError: "), "{message}");
    assert!(
        message.ends_with("(in login.js, line 3, col 6)"),
        "{message}"
    );
    let message = failed(
        &mut engine,
        &eval_of("function inner() {\n  throw new RangeError('too far')\n}\ninner()"),
    );
    assert_eq!(message, "RangeError: too far (in test.js, line 2, col 9)");
    let message = failed(&mut engine, &eval_of("throw 'plain text'"));
    assert_eq!(
        message,
        "uncaught exception: plain text (in test.js, line 1, col 7)"
    );
    let message = failed(&mut engine, &eval_of("throw {code: 7}"));
    assert!(
        message.starts_with("uncaught exception: [object Object]"),
        "{message}"
    );
    let message = failed(
        &mut engine,
        &eval_of("class E extends Error {}; throw new E('custom')"),
    );
    assert!(
        message.starts_with("Error: custom (in test.js"),
        "{message}"
    );
    let code =
        "class Invalid extends Error { constructor(m) { super(m); this.name = 'Invalid' } }\n\
                throw new Invalid('no user')";
    let message = failed(&mut engine, &eval_of(code));
    assert_eq!(message, "Invalid: no user (in test.js, line 1, col 31)");
}

#[test]
fn a_syntax_error_fails_with_a_readable_message() {
    let mut engine = Engine::new();
    let message = failed(&mut engine, &eval_of("let a = 1;\nlet b = = 2;"));
    assert!(message.starts_with("SyntaxError: "), "{message}");
    assert!(message.contains("line 2"), "{message}");
    assert!(message.ends_with("(in test.js)"), "{message}");
    let message = failed(&mut engine, &eval_of("if (x) {"));
    assert_eq!(
        message,
        "SyntaxError: the code ends before it is complete (a bracket, string or comment not closed?) (in test.js)"
    );
    // Strict mode, as in Maestro.
    assert!(failed(&mut engine, &eval_of("with (Math) { max(1, 2) }")).starts_with("SyntaxError"));
    assert_eq!(value(&mut engine, "'still running'"), "still running");
}
