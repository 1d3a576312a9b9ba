//! Tests of checking code before it runs: [`check_syntax`], and [`check_nesting`] on scripts
//! and on code made at run time.

use super::tests::{eval_of, failed, value};
use super::{check_nesting, check_syntax, Engine, BRACKET_WEIGHT, NESTING_LIMIT};

#[test]
fn check_syntax_parses_without_running() {
    assert_eq!(
        check_syntax("const a = http.get('x'); output.a = json(a.body).b"),
        Ok(())
    );
    assert_eq!(check_syntax("while (true) {}"), Ok(()));
    assert_eq!(check_syntax(""), Ok(()));
    let message = check_syntax("const a = 1;\nconst b = ;").unwrap_err();
    assert!(message.starts_with("SyntaxError: "), "{message}");
    assert!(message.contains("line 2"), "{message}");
    let message = check_syntax("function f() {").unwrap_err();
    assert!(message.contains("ends before it is complete"), "{message}");
    assert!(check_syntax("with (a) {}")
        .unwrap_err()
        .starts_with("SyntaxError"));
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "(".repeat(depth), ")".repeat(depth))
}

#[test]
fn code_nested_too_deep_is_refused_before_parsing() {
    let mut engine = Engine::new();
    // Within the limit, and at it: parsed and run.
    assert_eq!(check_syntax(&nested(200)), Ok(()));
    assert_eq!(value(&mut engine, &nested(200)), "1");
    assert_eq!(
        check_nesting(&format!(
            "{}{}",
            "[".repeat(NESTING_LIMIT),
            "]".repeat(NESTING_LIMIT)
        )),
        Ok(())
    );
    // Past it, and far past it (100 000 deep overflows Boa's stack): refused.
    for code in [
        format!(
            "{}{}",
            "[".repeat(NESTING_LIMIT + 1),
            "]".repeat(NESTING_LIMIT + 1)
        ),
        nested(100_000),
        format!("x = {}1{}", "{a:".repeat(100_000), "}".repeat(100_000)),
        format!("{}1{}", "`${".repeat(100_000), "}`".repeat(100_000)),
        format!("{}1", "!".repeat(100_000)),
        format!("{};", "if (a) ".repeat(100_000)),
        format!("var x; {}1", "x ? 1 : ".repeat(100_000)),
    ] {
        let message = check_syntax(&code).unwrap_err();
        assert!(
            message.starts_with("SyntaxError: the code nests too deep"),
            "{message}"
        );
        let message = failed(&mut engine, &eval_of(&code));
        assert!(
            message.starts_with("SyntaxError: the code nests too deep"),
            "{message}"
        );
        assert!(message.ends_with("(in test.js)"), "{message}");
    }
    assert_eq!(value(&mut engine, "'still running'"), "still running");
}

#[test]
fn code_made_at_run_time_is_checked_too() {
    let mut engine = Engine::new();
    let deep = "const deep = '('.repeat(100000) + '1' + ')'.repeat(100000);\n";
    for code in [
        "eval(deep)",
        "(0, eval)(deep)",
        "new Function('return ' + deep)",
        "(function () {}).constructor('a', 'b', 'return ' + deep)",
        "new Function('a = ' + deep, 'return a')",
    ] {
        let message = failed(&mut engine, &eval_of(&format!("{deep}{code}")));
        assert!(
            message.starts_with("SyntaxError: the code nests too deep"),
            "{message}"
        );
        assert!(message.contains("(in test.js, line 2"), "{message}");
    }
    let code = format!("{deep}try {{ eval(deep) }} catch (e) {{ e.name }}");
    assert_eq!(value(&mut engine, &code), "SyntaxError");
    assert_eq!(
        value(
            &mut engine,
            "eval('(((1)))') + new Function('a', 'return a * 2')(3)"
        ),
        "7"
    );
}

#[test]
fn nesting_skips_strings_comments_templates_and_regular_expressions() {
    let deep = "(".repeat(10_000);
    for code in [
        format!("'{deep}'"),
        format!("\"{deep}\""),
        format!("`{deep}`"),
        format!("// {deep}\n1"),
        format!("/* {deep} */ 1"),
        format!("/{}/.test('x')", "\\(".repeat(10_000)),
        format!("x = /[{deep}]/"),
        format!("`a${{'{deep}'}}b`"),
        // Long expressions broken by commas, semicolons or lines are no deep chains.
        "a = 1, ".repeat(10_000),
        "x = a + b;".repeat(10_000),
        "x = a\n  + b\n".repeat(10_000),
        format!("[{}]", "[1, 2], ".repeat(10_000)),
    ] {
        assert_eq!(check_nesting(&code), Ok(()), "{}", &code[..40]);
    }
    // Brackets inside `${…}` count; a chain counts with the brackets around it.
    let templates = format!(
        "{}1{}",
        "`${".repeat(NESTING_LIMIT + 1),
        "}`".repeat(NESTING_LIMIT + 1)
    );
    assert!(check_nesting(&templates).is_err());
    let mixed = format!(
        "{}1{}",
        "!(".repeat(NESTING_LIMIT),
        ")".repeat(NESTING_LIMIT)
    );
    assert!(check_nesting(&mixed).is_err());
    let chain = format!("{}1", "-".repeat(NESTING_LIMIT * BRACKET_WEIGHT + 1));
    assert!(check_nesting(&chain).is_err());
    let chain = format!("{}1", "- ".repeat(NESTING_LIMIT * BRACKET_WEIGHT - 1));
    assert_eq!(check_nesting(&chain), Ok(()));
}
