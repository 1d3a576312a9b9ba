//! Target arguments of the CLI: one shell word names what an action aims at, and becomes the
//! `ref` / `x`+`y` / `selector` fields of the request body (docs/DESIGN.md "Targets").
//!
//! Grammar (one argument; the shell has already removed its own quotes):
//!
//! | form                         | meaning                                            |
//! | ---------------------------- | -------------------------------------------------- |
//! | `@e12` or `e12`              | ref from the latest snapshot                       |
//! | `120,540` or `coords:120,540`| a point in tap coordinates (px on Android, pt iOS) |
//! | `text:Sign in`               | selector, displayed text or name, exact            |
//! | `label:Close`                | selector, accessibility label, exact               |
//! | `id:login_button`            | selector, resource-id / accessibilityIdentifier    |
//! | `role:button`                | selector, role                                     |
//! | `text~:Sign`, `label~:Clo`   | selector, substring instead of exact               |
//!
//! A value may be wrapped in double quotes (`text:"Sign in"` passed through single quotes),
//! which are removed. Selector modifiers come as flags: `--index N`, `--contains`,
//! `--ignore-case`. Anything else, or more than one target, is a usage error (exit 2).

use serde_json::{json, Map, Value};

/// A parsed target.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// An element ref, without its `@` (`e12`).
    Ref(String),
    /// A point X,Y in tap coordinates.
    Point(f64, f64),
    /// A selector.
    Selector(Selector),
}

/// The selector fields the CLI can fill (the server's `Selector`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    /// Text the element shows (`text:VALUE`; `text~:VALUE` with `contains`).
    pub text: Option<String>,
    /// Accessibility label (`label:VALUE`).
    pub label: Option<String>,
    /// resource-id (Android) or accessibilityIdentifier (iOS) (`id:VALUE`).
    pub id: Option<String>,
    /// Role of the element (`role:ROLE`).
    pub role: Option<String>,
    /// CSS selector of a web element inside a WebView (`css:#email`).
    pub css: Option<String>,
    /// Match values as substrings.
    pub contains: bool,
    /// Match ignoring case.
    pub case_insensitive: bool,
    /// Pick the N-th (0-based) match instead of failing on ambiguity.
    pub index: Option<u32>,
}

/// Selector modifiers given as flags next to the target.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Modifiers {
    /// `--contains`: match values as substrings.
    pub contains: bool,
    /// `--ignore-case`: match ignoring case.
    pub case_insensitive: bool,
    /// `--index N`: pick the N-th (0-based) match.
    pub index: Option<u32>,
}

const FORMS: &str =
    "@e12, 120,540, text:VALUE, text~:VALUE, label:VALUE, id:VALUE, role:ROLE or css:SELECTOR";

/// Parses exactly one target from the given arguments.
pub fn parse_one(args: &[String], m: Modifiers) -> Result<Target, String> {
    match args {
        [] => Err(format!("a target is required ({FORMS})")),
        [one] => parse(one, m),
        many => Err(format!(
            "several targets given ({}); give exactly one",
            many.join(" | ")
        )),
    }
}

/// Parses at most one target.
pub fn parse_opt(args: &[String], m: Modifiers) -> Result<Option<Target>, String> {
    if args.is_empty() {
        return Ok(None);
    }
    parse_one(args, m).map(Some)
}

/// Parses one target word.
pub fn parse(word: &str, m: Modifiers) -> Result<Target, String> {
    let w = word.trim();
    if let Some(r) = w.strip_prefix('@') {
        return if is_ref(r) {
            Ok(Target::Ref(r.to_string()))
        } else {
            Err(format!("`{word}` is not a ref (refs look like @e12)"))
        };
    }
    if is_ref(w) {
        return Ok(Target::Ref(w.to_string()));
    }
    if let Some(p) = w.strip_prefix("coords:") {
        return parse_point(p).ok_or_else(|| format!("`{word}`: coordinates are X,Y"));
    }
    if let Some(t) = parse_point(w) {
        return Ok(t);
    }
    let Some((key, value)) = w.split_once(':') else {
        return Err(format!("`{word}` is not a target; use {FORMS}"));
    };
    let (key, contains) = match key.strip_suffix('~') {
        Some(k) => (k, true),
        None => (key, m.contains),
    };
    let value = unquote(value);
    if value.is_empty() {
        return Err(format!("`{word}`: the value after `{key}:` is empty"));
    }
    let mut s = Selector {
        contains,
        case_insensitive: m.case_insensitive,
        index: m.index,
        ..Selector::default()
    };
    match key {
        "text" => s.text = Some(value),
        "label" => s.label = Some(value),
        "id" => s.id = Some(value),
        "role" => s.role = Some(value.to_ascii_lowercase()),
        "css" => s.css = Some(value),
        other => return Err(format!("unknown target kind `{other}:`; use {FORMS}")),
    }
    Ok(Target::Selector(s))
}

/// Splits `type`'s one or two words into the text and the target. With one word it is the
/// text. With two, the one that parses as a target is the target, in either order
/// (`@e5 user@example.com` or `user@example.com @e5`); when both do (`e5 e6`) the first is
/// the text; when neither does, the second is reported as not a target.
pub fn text_and_target(words: &[String], m: Modifiers) -> Result<(String, Option<Target>), String> {
    match words {
        [text] => Ok((text.clone(), None)),
        [a, b] => match (parse(a, m), parse(b, m)) {
            (Ok(t), Err(_)) => Ok((b.clone(), Some(t))),
            (_, Ok(t)) => Ok((a.clone(), Some(t))),
            (Err(_), Err(e)) => Err(e),
        },
        [] => Err("the text to type is required".into()),
        _ => Err(format!(
            "give TEXT and at most one TARGET, not {} words",
            words.len()
        )),
    }
}

/// Parses a target that must be a selector (wait, expect, scroll-to).
pub fn parse_selector(args: &[String], m: Modifiers) -> Result<Selector, String> {
    match parse_one(args, m)? {
        Target::Selector(s) => Ok(s),
        _ => Err(format!(
            "`{}` is not a selector here; use text:, label:, id:, role: or css:",
            args.join(" ")
        )),
    }
}

/// Parses a point (`X,Y` or `coords:X,Y`), for swipe ends.
pub fn parse_point_arg(word: &str) -> Result<(f64, f64), String> {
    match parse(word, Modifiers::default()) {
        Ok(Target::Point(x, y)) => Ok((x, y)),
        _ => Err(format!("`{word}` is not a point; use X,Y")),
    }
}

fn is_ref(s: &str) -> bool {
    s.len() > 1 && s.starts_with('e') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

fn parse_point(s: &str) -> Option<Target> {
    let (x, y) = s.split_once(',')?;
    let x: f64 = x.trim().parse().ok()?;
    let y: f64 = y.trim().parse().ok()?;
    (x.is_finite() && y.is_finite()).then_some(Target::Point(x, y))
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        v[1..v.len() - 1].to_string()
    } else {
        v.to_string()
    }
}

impl Selector {
    /// The JSON `Selector` object.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        for (k, v) in [
            ("text", &self.text),
            ("label", &self.label),
            ("id", &self.id),
            ("role", &self.role),
            ("css", &self.css),
        ] {
            if let Some(v) = v {
                o.insert(k.into(), json!(v));
            }
        }
        if self.contains {
            o.insert("contains".into(), json!(true));
        }
        if self.case_insensitive {
            o.insert("case_insensitive".into(), json!(true));
        }
        if let Some(i) = self.index {
            o.insert("index".into(), json!(i));
        }
        Value::Object(o)
    }
}

impl Target {
    /// The target's fields, to merge into a request body.
    pub fn fields(&self) -> Map<String, Value> {
        let v = match self {
            Target::Ref(r) => json!({ "ref": r }),
            Target::Point(x, y) => json!({ "x": x, "y": y }),
            Target::Selector(s) => json!({ "selector": s.to_json() }),
        };
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }
}

/// The selector fields a target word names (`text:VALUE`…), as [`parse`] reads them.
const KINDS: [&str; 4] = ["text", "label", "id", "role"];

/// The target word of a request's `ref`, `x`+`y` or `selector` fields (or of a selector's
/// own fields given alone), as [`parse`] reads it back: `@e12`, `120,540`, `text:"Sign in"`,
/// `text~:Sign` (with `contains`). `None` when `args` name no target, or one that one word
/// cannot say (two selector fields).
pub fn word_of(args: &Map<String, Value>) -> Option<String> {
    if let Some(r) = args.get("ref").and_then(Value::as_str) {
        return Some(format!("@{}", r.trim_start_matches('@')));
    }
    if let (Some(x), Some(y)) = (args.get("x"), args.get("y")) {
        return (x.is_number() && y.is_number()).then(|| format!("{x},{y}"));
    }
    let sel = match args.get("selector") {
        Some(Value::Object(s)) => s,
        Some(_) => return None,
        None => args,
    };
    let mut named = KINDS.iter().filter(|k| sel.contains_key(**k));
    let (Some(kind), None) = (named.next(), named.next()) else {
        return None;
    };
    let tilde = if sel.get("contains") == Some(&Value::Bool(true)) {
        "~"
    } else {
        ""
    };
    Some(format!("{kind}{tilde}:{}", quoted(sel[*kind].as_str()?)))
}

/// The word of a selector field named in advice (`role` → `role:ROLE`, `text` with a value →
/// `text:"Sign in"`); `None` for another field.
pub fn field_word(name: &str, value: Option<&Value>) -> Option<String> {
    KINDS.contains(&name).then_some(())?;
    let value = match value {
        Some(v) => quoted(v.as_str()?),
        None => name.to_ascii_uppercase(),
    };
    Some(format!("{name}:{value}"))
}

/// A value after `kind:`, in double quotes when it holds a space ([`unquote`] removes them).
fn quoted(v: &str) -> String {
    if v.contains(char::is_whitespace) {
        format!("{v:?}")
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Target, String> {
        parse(s, Modifiers::default())
    }
    fn sel(f: impl FnOnce(&mut Selector)) -> Target {
        let mut s = Selector::default();
        f(&mut s);
        Target::Selector(s)
    }

    #[test]
    fn refs() {
        assert_eq!(p("@e12"), Ok(Target::Ref("e12".into())));
        assert_eq!(p("e3"), Ok(Target::Ref("e3".into())));
        assert!(p("@x1").is_err());
        assert!(p("@e").is_err());
    }

    #[test]
    fn points() {
        assert_eq!(p("120,540"), Ok(Target::Point(120.0, 540.0)));
        assert_eq!(p("coords:1.5, 2"), Ok(Target::Point(1.5, 2.0)));
        assert!(p("coords:1").is_err());
        assert_eq!(parse_point_arg("10,20"), Ok((10.0, 20.0)));
        assert!(parse_point_arg("@e1").is_err());
    }

    #[test]
    fn selectors() {
        assert_eq!(
            p("text:Sign in"),
            Ok(sel(|s| s.text = Some("Sign in".into())))
        );
        assert_eq!(
            p("text:\"Sign in\""),
            Ok(sel(|s| s.text = Some("Sign in".into())))
        );
        assert_eq!(
            p("id:login_button"),
            Ok(sel(|s| s.id = Some("login_button".into())))
        );
        assert_eq!(
            p("role:Button"),
            Ok(sel(|s| s.role = Some("button".into())))
        );
        assert_eq!(
            p("label:Close"),
            Ok(sel(|s| s.label = Some("Close".into())))
        );
        assert_eq!(
            p("text~:Order"),
            Ok(sel(|s| {
                s.text = Some("Order".into());
                s.contains = true
            }))
        );
        // Colons after the first belong to the value.
        assert_eq!(
            p("id:pkg:id/x"),
            Ok(sel(|s| s.id = Some("pkg:id/x".into())))
        );
    }

    #[test]
    fn modifiers_apply_to_selectors() {
        let m = Modifiers {
            contains: true,
            case_insensitive: true,
            index: Some(2),
        };
        let t = parse("text:ok", m).unwrap();
        let Target::Selector(s) = &t else { panic!() };
        assert_eq!(
            s.to_json(),
            json!({"text": "ok", "contains": true, "case_insensitive": true, "index": 2})
        );
    }

    #[test]
    fn errors() {
        assert!(p("Login").is_err());
        assert!(p("text:").is_err());
        assert!(p("name:x").is_err());
        let two = vec!["@e1".to_string(), "10,20".to_string()];
        assert!(parse_one(&two, Modifiers::default())
            .unwrap_err()
            .contains("several"));
        assert!(parse_one(&[], Modifiers::default()).is_err());
        assert_eq!(parse_opt(&[], Modifiers::default()), Ok(None));
        assert!(parse_selector(&["@e1".into()], Modifiers::default()).is_err());
    }

    #[test]
    fn type_takes_text_and_target_in_either_order() {
        let tt = |a: &[&str]| {
            let w: Vec<String> = a.iter().map(|s| s.to_string()).collect();
            text_and_target(&w, Modifiers::default())
        };
        let e5 = Some(Target::Ref("e5".into()));
        assert_eq!(
            tt(&["@e5", "user@example.com"]),
            Ok(("user@example.com".into(), e5.clone()))
        );
        assert_eq!(
            tt(&["user@example.com", "@e5"]),
            Ok(("user@example.com".into(), e5.clone()))
        );
        assert_eq!(tt(&["hello"]), Ok(("hello".into(), None)));
        // A lone ref-like word is text: there is no target without a second word.
        assert_eq!(tt(&["e5"]), Ok(("e5".into(), None)));
        // Both could be targets: the first is the text.
        assert_eq!(
            tt(&["e5", "e6"]),
            Ok(("e5".into(), Some(Target::Ref("e6".into()))))
        );
        assert_eq!(
            tt(&["12,34", "text:Name"]),
            Ok(("12,34".into(), Some(sel(|s| s.text = Some("Name".into())))))
        );
        assert_eq!(
            tt(&["id:email", "a:b c"]),
            Ok(("a:b c".into(), Some(sel(|s| s.id = Some("email".into())))))
        );
        // Neither is a target: the second is reported.
        assert!(tt(&["hello", "world"]).unwrap_err().contains("`world`"));
        assert!(tt(&["a", "b", "c"]).is_err());
    }

    #[test]
    fn request_fields() {
        assert_eq!(
            Value::Object(p("@e4").unwrap().fields()),
            json!({"ref": "e4"})
        );
        assert_eq!(
            Value::Object(p("1,2").unwrap().fields()),
            json!({"x": 1.0, "y": 2.0})
        );
        assert_eq!(
            Value::Object(p("id:x").unwrap().fields()),
            json!({"selector": {"id": "x"}})
        );
    }

    #[test]
    fn targets_are_worded_as_they_are_read() {
        let word = |v: Value| word_of(v.as_object().unwrap()).unwrap();
        for (args, said) in [
            (json!({"ref": "e12"}), "@e12"),
            (json!({"x": 120, "y": 540}), "120,540"),
            (json!({"selector": {"text": "Sign in"}}), "text:\"Sign in\""),
            (json!({"id": "login_button"}), "id:login_button"),
            (
                json!({"selector": {"label": "Clo", "contains": true}}),
                "label~:Clo",
            ),
        ] {
            assert_eq!(word(args.clone()), said);
            // Read back, the word is the same target.
            let t = parse(said, Modifiers::default()).unwrap();
            let back = Value::Object(t.fields());
            let sel = args.get("selector").cloned().unwrap_or(args.clone());
            match t {
                Target::Selector(_) => assert_eq!(back["selector"], sel),
                Target::Ref(_) => assert_eq!(back, args),
                Target::Point(x, y) => {
                    assert_eq!(Some((x, y)), args["x"].as_f64().zip(args["y"].as_f64()))
                }
            }
        }
        assert_eq!(
            word_of(json!({"text": "a", "id": "b"}).as_object().unwrap()),
            None
        );
        assert_eq!(field_word("role", None).as_deref(), Some("role:ROLE"));
        assert_eq!(field_word("index", None), None);
    }
}
