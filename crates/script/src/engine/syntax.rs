//! [`check_syntax`]: parsing a script as an evaluation would, without running it (what a flow
//! is checked with before it runs).

use std::thread;

use boa_engine::{JsNativeError, Source};

use super::nesting::check_nesting;
use super::{panic_text, INTERNAL_ERROR, STACK_BYTES};

/// Parses `code` as an evaluation would (strict mode) without running it: `Ok`, or the error
/// as `SyntaxError: … at line N, col M`. It parses on a thread of its own with the engine's
/// stack, after [`check_nesting`].
pub fn check_syntax(code: &str) -> Result<(), String> {
    check_nesting(code).map_err(|why| format!("SyntaxError: {why}"))?;
    let parse = || -> Result<(), String> {
        let mut parser = boa_engine::parser::Parser::new(Source::from_bytes(code));
        parser.set_strict();
        let mut interner = boa_engine::interner::Interner::default();
        let scope = boa_engine::ast::scope::Scope::new_global();
        match parser.parse_script(&scope, &mut interner) {
            Ok(_) => Ok(()),
            Err(err) => {
                let text = JsNativeError::from(err).message().to_owned();
                Err(match text.as_str() {
                    "abrupt end" => "SyntaxError: the code ends before it is complete (a \
                                     bracket, string or comment not closed?)"
                        .to_owned(),
                    _ => format!("SyntaxError: {text}"),
                })
            }
        }
    };
    thread::scope(|scope| {
        let parsing = thread::Builder::new()
            .name("javascript-syntax".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, parse);
        match parsing {
            Ok(parsing) => parsing
                .join()
                .unwrap_or_else(|panic| Err(format!("{INTERNAL_ERROR}: {}", panic_text(&*panic)))),
            Err(err) => Err(format!("could not start a thread to parse on: {err}")),
        }
    })
}
