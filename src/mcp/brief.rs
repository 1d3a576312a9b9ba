//! The brief input schemas of the default tool list (`super::offer`): a tool's compact schema
//! ([`super::schema`]) with what the agent rarely needs folded away, so that the list an agent
//! loads at the start of every session stays small. Nothing is lost for good: the `describe`
//! tool answers the full schema, and a call is checked against the full one, so an argument
//! the brief schema does not spell out still works.
//!
//! Folded: the fields of a nested object with more than [`MAX_NESTED_FIELDS`] fields or with
//! objects inside (a selector keeps `"type": "object"`; the instructions name its fields), the
//! items of an array of objects, descriptions longer than [`MAX_DESCRIPTION`] characters (a
//! field's name says most of it; a cut sentence costs tokens and says less), , the `required` of
//! nested objects, and the fields the instructions explain once for every tool ([`SAID_ONCE`]:
//! the device, a ref's snapshot, the settle time, measuring). A tool may leave more fields to `describe`
//! (`super::tools`' presentation overrides).

use serde_json::{json, Map, Value};

/// A nested object keeps its fields when it has at most this many, all plain values (a point's
/// `x` and `y`).
const MAX_NESTED_FIELDS: usize = 2;

/// Property descriptions longer than this are dropped.
const MAX_DESCRIPTION: usize = 40;

/// Fields the instructions explain once for every tool, left out of brief schemas.
const SAID_ONCE: &[&str] = &["udid", "snapshot_id", "settle_ms", "measure"];

/// The brief form of a compact input schema, without the fields `omit` names too.
pub fn brief(schema: &Map<String, Value>, omit: &[&str]) -> Map<String, Value> {
    let mut out = schema.clone();
    if let Some(Value::Object(props)) = out.get_mut("properties") {
        props.retain(|name, _| {
            !SAID_ONCE.contains(&name.as_str()) && !omit.contains(&name.as_str())
        });
        for field in props.values_mut() {
            fold(field);
        }
    }
    out
}

/// Folds one property's schema in place.
fn fold(field: &mut Value) {
    let Value::Object(m) = field else { return };
    if m.get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| d.chars().count() > MAX_DESCRIPTION)
    {
        m.remove("description");
    }
    let folded_object = m
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.len() > MAX_NESTED_FIELDS || p.values().any(is_structured));
    if folded_object {
        m.remove("properties");
    }
    m.remove("required");
    if m.get("items").is_some_and(is_structured) {
        m.insert("items".into(), json!({"type": "object"}));
    }
}

/// Whether a schema describes an object with fields (or an array of them).
fn is_structured(schema: &Value) -> bool {
    schema.get("properties").is_some() || schema.get("items").is_some_and(is_structured)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn large_nested_objects_and_object_arrays_keep_only_their_type() {
        let full = schema(json!({
            "type": "object",
            "properties": {
                "selector": {"type": "object", "properties": {
                    "text": {"type": "string"}, "id": {"type": "string"}, "role": {"type": "string"}}},
                "from": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                         "required": ["x", "y"]},
                "baseline": {"type": "object", "description": "For screen_matches", "properties": {
                    "artifact": {"type": "object", "properties": {"run": {"type": "string"}}}}},
                "mask": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}}},
                "tags": {"type": "array", "items": {"type": "string"}},
                "text": {"type": "string", "description": "The text to type, literally (at most 4096 characters)"},
                "submit": {"type": "boolean", "description": "Press Enter afterwards"},
                "udid": {"type": "string"}
            },
            "required": ["text"]
        }));
        let b = brief(&full, &["tags"]);
        let p = &b["properties"];
        assert_eq!(p["selector"], json!({"type": "object"}));
        // A point stays spelled out: two plain fields (which are not marked required).
        assert_eq!(
            p["from"],
            json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}})
        );
        // An object with an object inside is folded, its description kept.
        assert_eq!(
            p["baseline"],
            json!({"type": "object", "description": "For screen_matches"})
        );
        assert_eq!(
            p["mask"],
            json!({"type": "array", "items": {"type": "object"}})
        );
        // Left to `describe` by the tool.
        assert!(p.get("tags").is_none());
        assert_eq!(b["required"], json!(["text"]));
        // A short description stays; a long one goes (the field's name is left to say it).
        assert_eq!(p["submit"], full["properties"]["submit"]);
        assert_eq!(p["text"], json!({"type": "string"}));
        // The device every tool takes is said once, in the instructions.
        assert!(p.get("udid").is_none() && full["properties"].get("udid").is_some());
    }
}
