//! `${…}` in flow strings: finding them ([`references`]), and filling them in before a step
//! runs ([`fill`]). A plain name (`${USER}`) is a variable, looked up here; anything else is
//! JavaScript (`${output.token}`, `${USER || 'guest'}`), which the runner evaluates through its
//! host just before the step and hands to [`fill`] by its text. A `${…}` ends at the `}` that
//! closes it: braces inside it, and inside its string literals, are its own.

use std::collections::HashMap;

/// Names Maestro sets itself.
pub const BUILTIN: &[&str] = &["maestro.platform", "maestro.copiedText", "MAESTRO_FILENAME"];

/// One `${…}` of a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    /// A plain variable (or one of [`BUILTIN`]): its name.
    Var(String),
    /// JavaScript: the code between `${` and its `}`, trimmed.
    Expr(String),
}

/// Where each `${…}` of `text` is: the byte range of the whole, and its inside, trimmed; an
/// error for a `${` that is never closed.
fn spans(text: &str) -> Result<Vec<(usize, usize, &str)>, String> {
    let mut out = vec![];
    let mut from = 0;
    while let Some(at) = text[from..].find("${").map(|i| i + from) {
        let inner = at + 2;
        let end = closing(&text[inner..])
            .map(|e| e + inner)
            .ok_or_else(|| format!("`{text}`: `${{` without a closing `}}`"))?;
        out.push((at, end + 1, text[inner..end].trim()));
        from = end + 1;
    }
    Ok(out)
}

/// The byte offset in `code` of the `}` closing a `${` just before it, past nested braces and
/// string literals (`'…'`, `"…"`, `` `…` ``, with `\` escapes).
fn closing(code: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in code.char_indices() {
        if let Some(q) = quote {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                c if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Whether `name` is a plain variable name (or one Maestro sets).
fn plain(name: &str) -> bool {
    BUILTIN.contains(&name)
        || (!name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The inside of `text` when it is one `${…}` whole (`${output.x = 1}`), trimmed.
pub fn whole(text: &str) -> Option<&str> {
    match spans(text).ok()?.as_slice() {
        [(0, end, inner)] if *end == text.len() => Some(inner),
        _ => None,
    }
}

/// The `${…}` of `text`, in order; an error for one never closed or empty.
pub fn references(text: &str) -> Result<Vec<Ref>, String> {
    spans(text)?
        .into_iter()
        .map(|(_, _, inner)| match inner {
            "" => Err(format!("`{text}`: an empty `${{}}`")),
            name if plain(name) => Ok(Ref::Var(name.to_string())),
            code => Ok(Ref::Expr(code.to_string())),
        })
        .collect()
}

/// The JavaScript of `text`'s `${…}` (none for plain variables), in order.
pub fn expressions(text: &str) -> Vec<String> {
    references(text)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|r| match r {
            Ref::Expr(code) => Some(code),
            Ref::Var(_) => None,
        })
        .collect()
}

/// `text` with every `${…}` replaced: a variable by its value from `env` (the last binding
/// wins), JavaScript by its value in `evaluated` (by its code); an error naming the first
/// variable that is unset.
pub fn fill(
    text: &str,
    env: &[(String, String)],
    platform: &str,
    evaluated: &HashMap<String, String>,
) -> Result<String, String> {
    if !text.contains("${") {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (from, to, inner) in spans(text)? {
        out.push_str(&text[last..from]);
        let value = match inner {
            "maestro.platform" => Some(platform.to_string()),
            name if plain(name) => env
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone()),
            code => Some(evaluated.get(code).cloned().ok_or_else(|| {
                format!("`${{{code}}}` was not evaluated before the step (a bug)")
            })?),
        };
        out.push_str(&value.ok_or_else(|| unset(inner))?);
        last = to;
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// Whether a condition's value holds, as Maestro reads a script's value: not empty, and not
/// `false`, `0`, `null` or `undefined`.
pub fn truthy(value: &str) -> bool {
    !matches!(
        value.trim(),
        "" | "false" | "0" | "null" | "undefined" | "NaN"
    )
}

/// The variables a flow sees: the host's whose names start with `MAESTRO_` (as Maestro reads
/// them, names kept whole), then those `given` (`--env`), which win.
pub fn with_host(
    given: &[(String, String)],
    host: impl IntoIterator<Item = (String, String)>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = host
        .into_iter()
        .filter(|(k, _)| k.starts_with("MAESTRO_") && !given.iter().any(|(g, _)| g == k))
        .collect();
    out.sort();
    out.extend(given.iter().cloned());
    out
}

/// The message for a variable nobody set.
pub fn unset(name: &str) -> String {
    format!("`${{{name}}}` is not set: give it with --env {name}=… (or `env` in the request), or in the flow's `env`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maestro_host_variables_come_first_and_given_ones_win() {
        let host = [
            ("MAESTRO_USER", "host"),
            ("HOME", "/root"),
            ("MAESTRO_PIN", "1"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let given = vec![("MAESTRO_USER".to_string(), "given".to_string())];
        let env = with_host(&given, host);
        assert_eq!(
            env,
            vec![
                ("MAESTRO_PIN".to_string(), "1".to_string()),
                ("MAESTRO_USER".to_string(), "given".to_string()),
            ]
        );
        assert_eq!(
            fill("${MAESTRO_USER}/${MAESTRO_PIN}", &env, "android", &none()).unwrap(),
            "given/1"
        );
    }

    fn none() -> HashMap<String, String> {
        HashMap::new()
    }

    #[test]
    fn references_and_fill() {
        assert_eq!(
            references("a ${X} b ${Y_2}").expect("refs"),
            vec![Ref::Var("X".into()), Ref::Var("Y_2".into())]
        );
        assert_eq!(
            references("${a + b}").expect("refs"),
            vec![Ref::Expr("a + b".into())]
        );
        assert_eq!(
            references("${output.x}").expect("refs"),
            vec![Ref::Expr("output.x".into())]
        );
        assert_eq!(
            references("${maestro.platform}").expect("refs"),
            vec![Ref::Var("maestro.platform".into())]
        );
        assert!(references("${}").is_err());
        assert!(references("${X").is_err());
        let env = vec![
            ("X".to_string(), "1".to_string()),
            ("X".to_string(), "2".to_string()),
        ];
        assert_eq!(
            fill("<${X}>", &env, "android", &none()).expect("filled"),
            "<2>"
        );
        assert_eq!(
            fill("${maestro.platform}", &env, "android", &none()).expect("filled"),
            "android"
        );
        assert!(fill("${NOPE}", &env, "android", &none())
            .expect_err("unset")
            .contains("--env NOPE="));
        // JavaScript is filled from what the runner evaluated, by its code.
        let evaluated = HashMap::from([("output.x + 1".to_string(), "3".to_string())]);
        assert_eq!(
            fill("n=${ output.x + 1 } x=${X}", &env, "ios", &evaluated).expect("filled"),
            "n=3 x=2"
        );
        assert!(fill("${output.y}", &env, "ios", &evaluated).is_err());
    }

    #[test]
    fn a_reference_ends_at_its_own_closing_brace() {
        assert_eq!(
            expressions("${ {a: 1}.a } and ${'}' + \"{\"} and ${`x}`}"),
            vec!["{a: 1}.a", "'}' + \"{\"", "`x}`"]
        );
        assert_eq!(expressions(r"${'it\'s }'}"), vec![r"'it\'s }'"]);
        let evaluated = HashMap::from([("{a: 1}.a".to_string(), "1".to_string())]);
        assert_eq!(
            fill("[${ {a: 1}.a }]", &[], "android", &evaluated).expect("filled"),
            "[1]"
        );
    }

    #[test]
    fn truthy_as_maestro_reads_a_value() {
        for yes in ["true", "1", "x", "[object Object]"] {
            assert!(truthy(yes), "{yes}");
        }
        for no in ["", "false", "0", "null", "undefined", " false "] {
            assert!(!truthy(no), "{no}");
        }
    }
}
