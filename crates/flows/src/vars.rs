//! `${NAME}` references in flow strings: finding them (anything but a plain variable is
//! JavaScript, refused), checking that each is set, and filling them in before a step runs.

/// Names Maestro sets itself.
pub const BUILTIN: &[&str] = &["maestro.platform", "maestro.copiedText", "MAESTRO_FILENAME"];

/// The variables `text` refers to; an error for `${…}` that is not a plain name.
pub fn references(text: &str) -> Result<Vec<String>, String> {
    let mut out = vec![];
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("`{text}`: `${{` without a closing `}}`"))?;
        let name = after[..end].trim();
        let plain = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !plain && !BUILTIN.contains(&name) {
            return Err(format!("`${{{name}}}` is a JavaScript expression, which is not run; only plain variables are"));
        }
        out.push(name.to_string());
        rest = &after[end + 1..];
    }
    Ok(out)
}

/// `text` with every reference replaced by its value from `env` (the last binding wins);
/// an error naming the first that is unset.
pub fn fill(text: &str, env: &[(String, String)], platform: &str) -> Result<String, String> {
    if !text.contains("${") {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("`{text}`: `${{` without a closing `}}`"))?;
        let name = after[..end].trim();
        let value = match name {
            "maestro.platform" => Some(platform.to_string()),
            _ => env
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone()),
        };
        out.push_str(&value.ok_or_else(|| unset(name))?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
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
            fill("${MAESTRO_USER}/${MAESTRO_PIN}", &env, "android").unwrap(),
            "given/1"
        );
    }

    #[test]
    fn references_and_fill() {
        assert_eq!(
            references("a ${X} b ${Y_2}").expect("refs"),
            vec!["X", "Y_2"]
        );
        assert!(references("${a + b}").is_err());
        assert!(references("${output.x}").is_err());
        assert!(references("${maestro.platform}").is_ok());
        let env = vec![
            ("X".to_string(), "1".to_string()),
            ("X".to_string(), "2".to_string()),
        ];
        assert_eq!(fill("<${X}>", &env, "android").expect("filled"), "<2>");
        assert_eq!(
            fill("${maestro.platform}", &env, "android").expect("filled"),
            "android"
        );
        assert!(fill("${NOPE}", &env, "android")
            .expect_err("unset")
            .contains("--env NOPE="));
    }
}
