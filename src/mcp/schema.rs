//! The MCP tools' input schemas: a compact JSON Schema made from an operation's input (query
//! parameters, or the JSON body's schema) with `$ref`s inlined and `allOf` merged, and with
//! what costs a model tokens without telling it anything dropped — formats, defaults, bounds,
//! nullable unions (optional fields are simply not required) and long descriptions.

use serde_json::{json, Map, Value};

use crate::api::{Input, Operation};

/// Descriptions longer than this (after keeping the first sentence) are cut at a word.
const MAX_DESCRIPTION: usize = 72;

/// Fields that many tools share and the server instructions explain once
/// (`super::INSTRUCTIONS`): their schemas keep their types but lose every description.
const EXPLAINED_ONCE: &[&str] = &[
    "udid",
    "ref",
    "snapshot_id",
    "x",
    "y",
    "grid",
    "selector",
    "observe",
    "settle_ms",
    "measure",
    "from",
    "to",
];

/// Enums with more values than this keep only their type: the server names the allowed
/// values when it refuses one, and listing them in every tool costs more than it helps.
const MAX_ENUM: usize = 12;

/// How deep schemas are followed at most; a `$ref` to a type already being expanded (a
/// recursive type) becomes `{}` (any value) at once.
const MAX_DEPTH: usize = 24;

/// Keywords that never reach a tool schema.
const DROPPED: &[&str] = &[
    "format",
    "default",
    "example",
    "examples",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "title",
    "nullable",
    "deprecated",
    "readOnly",
    "writeOnly",
    "xml",
    "externalDocs",
    "discriminator",
    "additionalProperties",
    // `{"type": "string"}` for a map's keys: JSON object keys are strings anyway.
    "propertyNames",
    "$schema",
];

/// The compact input schema of `op`, an `object` schema as MCP requires. `components` are the
/// OpenAPI document's `components.schemas` (as JSON), against which `$ref`s are resolved.
pub fn input_schema(op: &Operation, components: &Map<String, Value>) -> Map<String, Value> {
    let root = match op.input {
        Input::None => json!({"type": "object"}),
        Input::Query(params) => {
            let params = serde_json::to_value(params.list()).unwrap_or(Value::Null);
            from_parameters(&params)
        }
        Input::Body(body) => {
            let mut scratch = Vec::new();
            let root = serde_json::to_value(body.register(&mut scratch)).unwrap_or(Value::Null);
            // The types the body registered itself, looked up after the document's (the same
            // types, by name): the document's are read in place, not copied for each tool.
            let own: Map<String, Value> = scratch
                .into_iter()
                .filter_map(|(name, s)| Some((name, serde_json::to_value(s).ok()?)))
                .collect();
            compact_root(&root, [components, &own])
        }
    };
    let mut root = root;
    quiet_shared_fields(&mut root);
    trim_long_enums(&mut root);
    match root {
        Value::Object(m) => m,
        _ => Map::from_iter([("type".to_string(), json!("object"))]),
    }
}

/// Strips the descriptions of the [`EXPLAINED_ONCE`] fields (and of everything inside them).
fn quiet_shared_fields(root: &mut Value) {
    if let Some(Value::Object(props)) = root.get_mut("properties") {
        for (name, schema) in props.iter_mut() {
            if EXPLAINED_ONCE.contains(&name.as_str()) {
                strip_descriptions(schema);
            }
        }
    }
}

fn strip_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(m) => {
            m.remove("description");
            if let Some(Value::Object(props)) = m.get_mut("properties") {
                props.values_mut().for_each(strip_descriptions);
            }
            for key in ["items", "oneOf", "anyOf"] {
                if let Some(v) = m.get_mut(key) {
                    strip_descriptions(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// Drops `enum` lists longer than [`MAX_ENUM`], everywhere in `schema`.
fn trim_long_enums(schema: &mut Value) {
    match schema {
        Value::Object(m) => {
            if m.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.len() > MAX_ENUM)
            {
                m.remove("enum");
            }
            m.values_mut().for_each(trim_long_enums);
        }
        Value::Array(items) => items.iter_mut().for_each(trim_long_enums),
        _ => {}
    }
}

/// An object schema from OpenAPI parameters (`[{name, required, description, schema}]`).
fn from_parameters(params: &Value) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in params.as_array().into_iter().flatten() {
        let Some(name) = p["name"].as_str() else {
            continue;
        };
        let mut schema = compact(&p["schema"], &Map::new());
        if let Some(d) = p["description"].as_str() {
            set_description(&mut schema, d);
        }
        properties.insert(name.to_string(), schema);
        if p["required"] == json!(true) {
            required.push(json!(name));
        }
    }
    object(properties, required)
}

fn object(properties: Map<String, Value>, required: Vec<Value>) -> Value {
    let mut o = Map::new();
    o.insert("type".into(), json!("object"));
    if !properties.is_empty() {
        o.insert("properties".into(), Value::Object(properties));
    }
    if !required.is_empty() {
        o.insert("required".into(), Value::Array(required));
    }
    Value::Object(o)
}

/// The body's schema as the tool's root: an object without its own description (the tool's
/// description says what it does).
fn compact_root(root: &Value, defs: [&Map<String, Value>; 2]) -> Value {
    let mut v = Walk {
        defs,
        expanding: Vec::new(),
    }
    .compact(root, 0);
    if let Value::Object(m) = &mut v {
        m.remove("description");
        m.entry("type").or_insert(json!("object"));
    }
    v
}

/// Compacts one schema: inlines `$ref`, merges `allOf`, unwraps nullable unions, drops noise.
pub fn compact(schema: &Value, defs: &Map<String, Value>) -> Value {
    Walk {
        defs: [defs, &Map::new()],
        expanding: Vec::new(),
    }
    .compact(schema, 0)
}

/// A walk through a schema, with the named types being expanded (to stop at recursion).
struct Walk<'a> {
    /// Where a `$ref`'s name is looked up, in this order.
    defs: [&'a Map<String, Value>; 2],
    expanding: Vec<String>,
}

impl Walk<'_> {
    fn compact(&mut self, schema: &Value, depth: usize) -> Value {
        let Value::Object(m) = schema else {
            return schema.clone();
        };
        if depth > MAX_DEPTH {
            return json!({});
        }
        if let Some(r) = m.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or(r).to_string();
            let found = self.defs.iter().find_map(|d| d.get(&name));
            let mut target = match found {
                Some(t) if !self.expanding.contains(&name) => {
                    self.expanding.push(name);
                    let v = self.compact(t, depth + 1);
                    self.expanding.pop();
                    v
                }
                _ => json!({}),
            };
            // A description beside the `$ref` is about this use of the type: it is kept. The
            // type's own ("What wait waits for") says no more than the field's name and values.
            match m.get("description").and_then(Value::as_str) {
                Some(d) => set_description(&mut target, d),
                None if depth > 0 => {
                    if let Value::Object(t) = &mut target {
                        t.remove("description");
                    }
                }
                None => {}
            }
            return target;
        }
        if let Some(Value::Array(parts)) = m.get("allOf") {
            let mut merged = Map::new();
            for p in parts {
                merge_into(&mut merged, self.compact(p, depth + 1));
            }
            if let Some(d) = m.get("description").and_then(Value::as_str) {
                set_description_map(&mut merged, d);
            }
            return Value::Object(merged);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = m.get(key) {
                let kept: Vec<Value> = branches
                    .iter()
                    .filter(|b| !is_null_schema(b))
                    .map(|b| self.compact(b, depth + 1))
                    .collect();
                let mut out = if kept.len() == 1 {
                    kept.into_iter().next().unwrap_or(json!({}))
                } else {
                    json!({ key: kept })
                };
                if let Some(d) = m.get("description").and_then(Value::as_str) {
                    set_description(&mut out, d);
                }
                return out;
            }
        }
        let mut out = Map::new();
        for (k, v) in m {
            if DROPPED.contains(&k.as_str()) {
                continue;
            }
            match k.as_str() {
                "type" => {
                    out.insert(k.clone(), without_null_type(v));
                }
                "description" => {
                    if let Some(d) = v.as_str().and_then(short_description) {
                        out.insert(k.clone(), json!(d));
                    }
                }
                "properties" => {
                    let props: Map<String, Value> = v
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(name, s)| (name.clone(), self.compact(s, depth + 1)))
                        .collect();
                    out.insert(k.clone(), Value::Object(props));
                }
                "items" => {
                    out.insert(k.clone(), self.compact(v, depth + 1));
                }
                "enum" => {
                    let values: Vec<Value> = v
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|x| !x.is_null())
                        .cloned()
                        .collect();
                    out.insert(k.clone(), Value::Array(values));
                }
                "required" => {
                    if v.as_array().is_some_and(|a| !a.is_empty()) {
                        out.insert(k.clone(), v.clone());
                    }
                }
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        Value::Object(out)
    }
}

fn is_null_schema(s: &Value) -> bool {
    s.get("type") == Some(&json!("null"))
}

/// `["string", "null"]` → `"string"`; other types unchanged.
fn without_null_type(t: &Value) -> Value {
    match t {
        Value::Array(ts) => {
            let kept: Vec<&Value> = ts.iter().filter(|t| *t != "null").collect();
            match kept.as_slice() {
                [one] => (*one).clone(),
                _ => Value::Array(kept.into_iter().cloned().collect()),
            }
        }
        other => other.clone(),
    }
}

/// Merges an `allOf` part: properties and required lists are unioned, the rest kept first-wins.
fn merge_into(merged: &mut Map<String, Value>, part: Value) {
    let Value::Object(part) = part else {
        return;
    };
    for (k, v) in part {
        match (k.as_str(), merged.get_mut(&k)) {
            ("properties", Some(Value::Object(have))) => {
                if let Value::Object(more) = v {
                    for (name, s) in more {
                        have.entry(name).or_insert(s);
                    }
                }
            }
            ("required", Some(Value::Array(have))) => {
                for r in v.as_array().into_iter().flatten() {
                    if !have.contains(r) {
                        have.push(r.clone());
                    }
                }
            }
            // The parts' own descriptions describe the parts, not the whole.
            ("description", _) => {}
            (_, Some(_)) => {}
            (_, None) => {
                merged.insert(k, v);
            }
        }
    }
}

fn set_description(schema: &mut Value, text: &str) {
    if let Value::Object(m) = schema {
        set_description_map(m, text);
    }
}

fn set_description_map(m: &mut Map<String, Value>, text: &str) {
    match short_description(text) {
        Some(d) => {
            m.insert("description".into(), json!(d));
        }
        None => {
            m.remove("description");
        }
    }
}

/// Where the first sentence of `text` ends: the first `. ` that does not close an
/// abbreviation (`e.g.`, `i.e.`, `etc.`).
fn sentence_end(text: &str) -> Option<usize> {
    text.match_indices(". ").map(|(i, _)| i).find(|&i| {
        let before = &text[..i];
        !["e.g", "i.e", "etc", "vs"]
            .iter()
            .any(|abbr| before.ends_with(abbr))
    })
}

/// The first sentence of `text`, on one line, without Markdown backticks, at most
/// [`MAX_DESCRIPTION`] characters; `None` when nothing is left.
pub fn short_description(text: &str) -> Option<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = flat.replace('`', "");
    let first = match sentence_end(&flat) {
        Some(i) => &flat[..i],
        None => flat.as_str(),
    };
    let first = first.trim().trim_end_matches('.').trim();
    if first.is_empty() {
        return None;
    }
    if first.chars().count() <= MAX_DESCRIPTION {
        return Some(first.to_string());
    }
    let cut: String = first.chars().take(MAX_DESCRIPTION).collect();
    let cut = match cut.rfind(' ') {
        Some(i) => &cut[..i],
        None => cut.as_str(),
    };
    Some(format!("{}…", cut.trim_end_matches([',', ';', ':'])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs() -> Map<String, Value> {
        json!({
            "Selector": {
                "type": "object",
                "description": "Which element(s) an action targets. All given fields must match.",
                "properties": {
                    "text": {"type": ["string", "null"], "description": "The displayed text."},
                    "index": {"type": ["integer", "null"], "format": "int32", "minimum": 0},
                    "role": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Role"}]}
                }
            },
            "Role": {"type": "string", "description": "A role.", "enum": ["button", "textbox"]},
            "Target": {
                "type": "object",
                "properties": {
                    "ref": {"type": ["string", "null"], "description": "A ref (`e12`)."},
                    "selector": {"oneOf": [{"type": "null"},
                        {"$ref": "#/components/schemas/Selector", "description": "Find it."}]}
                }
            }
        })
        .as_object()
        .cloned()
        .unwrap()
    }

    #[test]
    fn refs_are_inlined_and_nullable_unions_unwrapped() {
        let s = compact(&json!({"$ref": "#/components/schemas/Selector"}), &defs());
        assert_eq!(
            s,
            json!({
                "type": "object",
                "description": "Which element(s) an action targets",
                "properties": {
                    "text": {"type": "string", "description": "The displayed text"},
                    "index": {"type": "integer"},
                    // The type's own description ("A role") says nothing the field does not.
                    "role": {"type": "string", "enum": ["button", "textbox"]}
                }
            })
        );
        let text = s.to_string();
        for noise in ["null", "format", "minimum", "$ref", "oneOf"] {
            assert!(!text.contains(noise), "{noise} left in {text}");
        }
    }

    #[test]
    fn all_of_merges_properties_and_required() {
        let body = json!({
            "allOf": [
                {"$ref": "#/components/schemas/Target"},
                {"type": "object", "required": ["text"], "properties": {
                    "text": {"type": "string", "description": "The text to type, literally."},
                    "udid": {"type": ["string", "null"]}
                }}
            ],
            "description": "Options of `type`."
        });
        let s = compact_root(&body, [&defs(), &Map::new()]);
        let props = s["properties"].as_object().unwrap();
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(names, ["ref", "selector", "text", "udid"]);
        assert_eq!(s["required"], json!(["text"]));
        assert_eq!(s["type"], "object");
        assert!(s.get("description").is_none(), "{s}");
        assert!(s.get("allOf").is_none(), "{s}");
        // The description beside the ref wins over the type's own.
        assert_eq!(props["selector"]["description"], "Find it");
        assert_eq!(props["ref"]["description"], "A ref (e12)");
    }

    #[test]
    fn parameters_become_properties() {
        let params = json!([
            {"name": "udid", "in": "query", "required": false, "schema": {"type": "string"}},
            {"name": "format", "in": "query", "required": false, "description": "`png` (default) or `jpeg`.",
             "schema": {"type": "string", "description": "Image encoding.", "enum": ["png", "jpeg"]}},
            {"name": "max_size", "in": "query", "required": true,
             "schema": {"type": "integer", "format": "int32", "minimum": 0}}
        ]);
        assert_eq!(
            from_parameters(&params),
            json!({
                "type": "object",
                "properties": {
                    "udid": {"type": "string"},
                    "format": {"type": "string", "description": "png (default) or jpeg", "enum": ["png", "jpeg"]},
                    "max_size": {"type": "integer"}
                },
                "required": ["max_size"]
            })
        );
        assert_eq!(from_parameters(&json!([])), json!({"type": "object"}));
    }

    #[test]
    fn descriptions_keep_one_short_sentence() {
        assert_eq!(
            short_description("Default 5000, at most 120000."),
            Some("Default 5000, at most 120000".into())
        );
        assert_eq!(
            short_description("A cell of the grid.\nA vision fallback. More."),
            Some("A cell of the grid".into())
        );
        assert_eq!(short_description("  "), None);
        assert_eq!(
            short_description("Clock text, e.g. 9:41. More."),
            Some("Clock text, e.g. 9:41".into())
        );
        let long = "word ".repeat(40);
        let d = short_description(&long).unwrap();
        assert!(d.chars().count() <= MAX_DESCRIPTION + 1, "{d}");
        assert!(d.ends_with('…'), "{d}");
    }

    #[test]
    fn recursion_stops() {
        let defs = json!({"Node": {"type": "object", "properties": {
            "child": {"$ref": "#/components/schemas/Node"}}}})
        .as_object()
        .cloned()
        .unwrap();
        let s = compact(&json!({"$ref": "#/components/schemas/Node"}), &defs);
        assert!(s.to_string().len() < 400, "{s}");
    }

    /// The schema keywords used anywhere in `s` (property names are not keywords).
    fn keywords(s: &Value, out: &mut Vec<String>) {
        let Value::Object(m) = s else { return };
        for (k, v) in m {
            out.push(k.clone());
            if k == "properties" {
                for p in v.as_object().into_iter().flatten().map(|(_, p)| p) {
                    keywords(p, out);
                }
            } else {
                keywords(v, out);
                for item in v.as_array().into_iter().flatten() {
                    keywords(item, out);
                }
            }
        }
    }

    #[test]
    fn every_operation_has_a_compact_object_schema() {
        let doc = serde_json::to_value(crate::api::openapi()).unwrap();
        let components = doc["components"]["schemas"].as_object().cloned().unwrap();
        for op in crate::api::operations() {
            let s = Value::Object(input_schema(op, &components));
            assert_eq!(s["type"], "object", "{}: {s}", op.name);
            assert!(!s.to_string().contains("\"null\""), "{}: {s}", op.name);
            let mut keys = Vec::new();
            keywords(&s, &mut keys);
            for noise in ["format", "$ref", "allOf", "oneOf", "default", "minimum"] {
                assert!(
                    !keys.contains(&noise.to_string()),
                    "{}: {noise} in {s}",
                    op.name
                );
            }
        }
        let tap = input_schema(crate::api::entry(crate::error::Op::Tap), &components);
        for p in ["ref", "x", "y", "selector", "grid", "udid"] {
            assert!(tap["properties"].get(p).is_some(), "tap lacks {p}: {tap:?}");
        }
        let wait = input_schema(crate::api::entry(crate::error::Op::Wait), &components);
        assert_eq!(wait["required"], json!(["selector", "condition"]));
        assert!(wait["properties"]["selector"]["properties"]["text"].is_object());
    }
}
