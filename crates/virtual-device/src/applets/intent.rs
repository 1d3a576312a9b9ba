//! The intent arguments of `am start` / `am broadcast` as `am` reads them: `-a ACTION`,
//! `-d URI`, `-t TYPE`, `-n COMPONENT`, `-c CATEGORY` (repeatable), `-f FLAGS`, `-p PACKAGE`,
//! typed extras (`--es`, `--ei`, `--el`, `--ef`, `--ed`, `--ez`, `--eu`, `--esa`, `--esn KEY`), the
//! start options `-W`, `-S`, `--user U`; a last bare word is an intent URI. Extras are kept
//! with their types, checked as `am` checks them (a bad number is `am`'s error), and the
//! intent is described as `am` prints it (`Intent { act=… dat=… cmp=… (has extras) }`).

/// One parsed intent.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Intent {
    pub action: Option<String>,
    pub data: Option<String>,
    pub component: Option<String>,
    pub package: Option<String>,
    pub categories: Vec<String>,
    pub flags: Option<u32>,
    /// `(type, key, value)`: type as `am`'s flag without dashes (`es`, `ei`…).
    pub extras: Vec<(String, String, String)>,
    pub wait: bool,
    pub stop: bool,
}

impl Intent {
    /// `am`'s description, e.g. `act=android.intent.action.VIEW dat=https://x (has extras)`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.action {
            parts.push(format!("act={a}"));
        }
        if !self.categories.is_empty() {
            parts.push(format!("cat=[{}]", self.categories.join(",")));
        }
        if let Some(d) = &self.data {
            parts.push(format!("dat={d}"));
        }
        if let Some(f) = self.flags {
            parts.push(format!("flg=0x{f:x}"));
        }
        if let Some(p) = &self.package {
            parts.push(format!("pkg={p}"));
        }
        if let Some(c) = &self.component {
            parts.push(format!("cmp={c}"));
        }
        if !self.extras.is_empty() {
            parts.push("(has extras)".into());
        }
        parts.join(" ")
    }

    /// The value of the extra `key`, if any.
    pub fn extra(&self, key: &str) -> Option<&str> {
        self.extras
            .iter()
            .find(|(_, k, _)| k == key)
            .map(|(_, _, v)| v.as_str())
    }
}

/// Parses `am start|broadcast` arguments, or answers `am`'s error words.
pub fn parse(args: &[String]) -> Result<Intent, String> {
    let mut it = args.iter();
    let mut intent = Intent::default();
    let value = |it: &mut std::slice::Iter<'_, String>, flag: &str| {
        it.next()
            .cloned()
            .ok_or_else(|| format!("Error: No argument for option {flag}"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "-a" => intent.action = Some(value(&mut it, a)?),
            "-d" => intent.data = Some(value(&mut it, a)?),
            "-t" => {
                value(&mut it, a)?;
            }
            "-n" => intent.component = Some(value(&mut it, a)?),
            "-p" => intent.package = Some(value(&mut it, a)?),
            "-c" => intent.categories.push(value(&mut it, a)?),
            "-f" => {
                let v = value(&mut it, a)?;
                let parsed = match v.strip_prefix("0x") {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => v.parse().ok(),
                };
                intent.flags = Some(parsed.ok_or_else(|| format!("Error: Bad flags: {v}"))?);
            }
            "--user" | "--receiver-permission" => {
                value(&mut it, a)?;
            }
            "-W" => intent.wait = true,
            "-S" => intent.stop = true,
            "--esn" => {
                let key = value(&mut it, a)?;
                intent.extras.push(("esn".into(), key, String::new()));
            }
            "--es" | "--ei" | "--el" | "--ef" | "--ed" | "--ez" | "--eu" | "--esa" => {
                let key = value(&mut it, a)?;
                let v = value(&mut it, a)?;
                let ok = match a.as_str() {
                    "--ei" => v.parse::<i32>().is_ok(),
                    "--el" => v.parse::<i64>().is_ok(),
                    "--ef" => v.parse::<f32>().is_ok(),
                    "--ed" => v.parse::<f64>().is_ok(),
                    "--ez" => {
                        ["true", "false", "0", "1"].contains(&v.to_ascii_lowercase().as_str())
                    }
                    _ => true,
                };
                if !ok {
                    return Err(format!(
                        "Error: java.lang.NumberFormatException: For input string: \"{v}\""
                    ));
                }
                intent
                    .extras
                    .push((a.trim_start_matches('-').to_string(), key, v));
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("Error: Unknown option: {s}"));
            }
            uri => intent.data = Some(uri.to_string()),
        }
    }
    Ok(intent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn typed_extras_are_kept_literally() {
        let i = parse(&args(&[
            "-a",
            "A",
            "--es",
            "s",
            "$(id); `x`",
            "--ei",
            "n",
            "3",
            "-c",
            "C",
            "-f",
            "0x10",
        ]))
        .unwrap();
        assert_eq!(i.extra("s"), Some("$(id); `x`"));
        assert_eq!(i.flags, Some(16));
        assert_eq!(i.describe(), "act=A cat=[C] flg=0x10 (has extras)");
        assert!(parse(&args(&["--ei", "n", "x"])).is_err());
        assert!(parse(&args(&["--ed", "x", "1.5"])).is_ok());
        assert!(parse(&args(&["--ed", "x", "one"])).is_err());
    }
}
