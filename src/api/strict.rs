//! Strict request bodies: a field the body's schema does not name is refused with
//! `400 VALIDATION_FAILED` naming it (`{"x":1,"y":1,"obsrve":true}` → "unknown field
//! `obsrve`; did you mean `observe`?"), at any depth. serde's `deny_unknown_fields` cannot do
//! this for bodies that flatten a target, so the check walks the body against the same schema
//! the OpenAPI document publishes: what the document says is what the server accepts.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde_json::Value;
use utoipa::openapi::schema::{AdditionalProperties, ArrayItems};
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::types::{schema_ref, Schemas};
use crate::error::{Error, Result, Step};

/// The fields a JSON value may have, as its schema allows them.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Anything (a primitive, a free-form object).
    Any,
    /// An object with exactly these fields.
    Object(BTreeMap<String, Shape>),
    /// An array of these.
    Array(Box<Shape>),
}

impl Shape {
    /// The shape of `T`'s schema.
    pub fn of<T: ToSchema>() -> Shape {
        let mut schemas = Schemas::new();
        let root = schema_ref::<T>(&mut schemas);
        let defs: BTreeMap<String, RefOr<Schema>> = schemas.into_iter().collect();
        shape(&root, &defs, 0)
    }

    /// Every field name this shape takes at the top level.
    pub fn fields(&self) -> Vec<&str> {
        match self {
            Shape::Object(m) => m.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// The first value of `v` where the shape wants an object and finds an array, a string, a
    /// number or a boolean (serde would read a struct from an array), as a dotted path.
    pub fn not_an_object(&self, v: &Value) -> Option<String> {
        match (self, v) {
            (Shape::Object(fields), Value::Object(map)) => map.iter().find_map(|(k, child)| {
                let inner = fields.get(k)?.not_an_object(child)?;
                Some(if inner.is_empty() {
                    k.clone()
                } else {
                    format!("{k}.{inner}")
                })
            }),
            (Shape::Object(_), Value::Null) => None,
            (Shape::Object(_), _) => Some(String::new()),
            (Shape::Array(item), Value::Array(items)) => {
                items.iter().enumerate().find_map(|(i, x)| {
                    let inner = item.not_an_object(x)?;
                    Some(if inner.is_empty() {
                        i.to_string()
                    } else {
                        format!("{i}.{inner}")
                    })
                })
            }
            _ => None,
        }
    }

    /// The first field of `v` that the shape does not name, as a dotted path.
    pub fn unknown_field(&self, v: &Value) -> Option<(String, Vec<String>)> {
        match (self, v) {
            (Shape::Object(fields), Value::Object(map)) => {
                for (k, child) in map {
                    match fields.get(k) {
                        None => return Some((k.clone(), fields.keys().cloned().collect())),
                        Some(s) => {
                            if let Some((path, known)) = s.unknown_field(child) {
                                return Some((format!("{k}.{path}"), known));
                            }
                        }
                    }
                }
                None
            }
            (Shape::Array(item), Value::Array(items)) => {
                items.iter().enumerate().find_map(|(i, x)| {
                    item.unknown_field(x)
                        .map(|(path, known)| (format!("{i}.{path}"), known))
                })
            }
            _ => None,
        }
    }
}

/// Depth guard against recursive schemas.
const MAX_DEPTH: usize = 16;

fn shape(s: &RefOr<Schema>, defs: &BTreeMap<String, RefOr<Schema>>, depth: usize) -> Shape {
    if depth > MAX_DEPTH {
        return Shape::Any;
    }
    let schema = match s {
        RefOr::Ref(r) => {
            let name = r.ref_location.rsplit('/').next().unwrap_or_default();
            return match defs.get(name) {
                Some(target) => shape(target, defs, depth + 1),
                None => Shape::Any,
            };
        }
        RefOr::T(schema) => schema,
    };
    match schema {
        Schema::Object(o) => {
            let open = matches!(
                o.additional_properties.as_deref(),
                Some(AdditionalProperties::FreeForm(true)) | Some(AdditionalProperties::RefOr(_))
            );
            // No properties and no others allowed: an object that takes no field.
            let closed = matches!(
                o.additional_properties.as_deref(),
                Some(AdditionalProperties::FreeForm(false))
            );
            if (o.properties.is_empty() && !closed) || open {
                return Shape::Any;
            }
            Shape::Object(
                o.properties
                    .iter()
                    .map(|(k, v)| (k.clone(), shape(v, defs, depth + 1)))
                    .collect(),
            )
        }
        Schema::Array(a) => match &a.items {
            ArrayItems::RefOrSchema(item) => Shape::Array(Box::new(shape(item, defs, depth + 1))),
            _ => Shape::Any,
        },
        Schema::AllOf(all) => union(all.items.iter().map(|i| shape(i, defs, depth + 1))),
        Schema::OneOf(one) => union(one.items.iter().map(|i| shape(i, defs, depth + 1))),
        Schema::AnyOf(any) => union(any.items.iter().map(|i| shape(i, defs, depth + 1))),
        _ => Shape::Any,
    }
}

/// The fields any of the branches allow (`allOf` of a flattened target; `oneOf` of the
/// variants of a tagged enum; `oneOf [null, T]` of an optional `T`).
fn union(shapes: impl Iterator<Item = Shape>) -> Shape {
    let mut fields: Option<BTreeMap<String, Shape>> = None;
    let mut array: Option<Shape> = None;
    for s in shapes {
        match s {
            Shape::Object(m) => {
                let all = fields.get_or_insert_with(BTreeMap::new);
                for (k, v) in m {
                    match all.get_mut(&k) {
                        Some(existing) if *existing != v => *existing = merge(existing.clone(), v),
                        Some(_) => {}
                        None => {
                            all.insert(k, v);
                        }
                    }
                }
            }
            Shape::Array(item) => array = Some(*item),
            Shape::Any => {}
        }
    }
    match (fields, array) {
        (Some(f), None) => Shape::Object(f),
        (None, Some(item)) => Shape::Array(Box::new(item)),
        _ => Shape::Any,
    }
}

fn merge(a: Shape, b: Shape) -> Shape {
    union([a, b].into_iter())
}

/// Parses a request body strictly.
pub struct StrictJson;

impl StrictJson {
    /// Parses `bytes` as `T` after refusing fields `shape` does not name. An empty body is
    /// `{}`.
    pub fn parse<T: DeserializeOwned>(bytes: &[u8], shape: &Shape) -> Result<T> {
        let value: Value = if bytes.iter().all(u8::is_ascii_whitespace) {
            Value::Object(Default::default())
        } else {
            serde_json::from_slice(bytes).map_err(|e| {
                Error::bad_request(format!("the body is not valid JSON: {e}"))
                    .with_hint("the body is not valid JSON; check quotes, commas and braces")
            })?
        };
        let mut value = value;
        integral_floats_to_integers(&mut value);
        if let Some(path) = shape.not_an_object(&value) {
            let what = if path.is_empty() {
                "the body".to_string()
            } else {
                format!("`{path}`")
            };
            return Err(Error::bad_request(format!("{what} must be a JSON object"))
                .with_next("see the request schema in {0}", [Step::Schema]));
        }
        if let Some((field, known)) = shape.unknown_field(&value) {
            let leaf = field.rsplit('.').next().unwrap_or(&field);
            let guess = closest(leaf, &known)
                .map(|g| format!("; did you mean `{g}`?"))
                .unwrap_or_default();
            return Err(Error::validation(format!("unknown field `{field}`{guess}"))
                .with_hint(format!("fields allowed here: {}", known.join(", ")))
                .with_details(serde_json::json!({ "field": field, "allowed": known })));
        }
        serde_json::from_value(value).map_err(|e| {
            Error::bad_request(format!("the body does not fit this route: {e}"))
                .with_next("see the request schema in {0}", [Step::Schema])
        })
    }
}

/// JSON Schema counts `100000.0` as an integer; serde does not. Whole numbers written as
/// floats become integers, so a schema-valid body is not refused over its spelling.
fn integral_floats_to_integers(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f >= 0.0 && f < u64::MAX as f64 {
                *v = Value::from(f as u64);
            } else if f.fract() == 0.0 && f < 0.0 && f > i64::MIN as f64 {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_to_integers),
        Value::Object(map) => map.values_mut().for_each(integral_floats_to_integers),
        _ => {}
    }
}

/// The allowed name nearest to a misspelt one, when it is near enough to be a typo.
fn closest<'a>(wrong: &str, known: &'a [String]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (edit_distance(wrong, k), k))
        .filter(|(d, k)| *d <= 2 && *d < wrong.len() && 2 * *d <= k.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

/// Levenshtein distance between two names (how a misspelt field or operation is matched to
/// the name meant).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, ToSchema)]
    struct Inner {
        #[allow(dead_code)]
        text: Option<String>,
    }

    #[derive(Debug, Deserialize, ToSchema)]
    struct Flat {
        #[allow(dead_code)]
        x: Option<f64>,
        #[allow(dead_code)]
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize, ToSchema)]
    struct Outer {
        #[allow(dead_code)]
        observe: Option<bool>,
        #[serde(flatten)]
        #[allow(dead_code)]
        flat: Flat,
        #[allow(dead_code)]
        list: Option<Vec<Inner>>,
    }

    fn refuse(body: &str) -> Error {
        StrictJson::parse::<Outer>(body.as_bytes(), &Shape::of::<Outer>()).unwrap_err()
    }

    #[test]
    fn flattened_and_nested_fields_are_known() {
        let ok = r#"{"observe": true, "x": 1, "inner": {"text": "a"}, "list": [{"text": "b"}]}"#;
        StrictJson::parse::<Outer>(ok.as_bytes(), &Shape::of::<Outer>()).unwrap();
        StrictJson::parse::<Outer>(b"", &Shape::of::<Outer>()).unwrap();
    }

    #[test]
    fn unknown_fields_are_named_at_any_depth() {
        let e = refuse(r#"{"x": 1, "obsrve": true}"#);
        assert_eq!(e.code, crate::error::ErrorCode::ValidationFailed);
        assert_eq!(e.message, "unknown field `obsrve`; did you mean `observe`?");
        let e = refuse(r#"{"inner": {"txt": "a"}}"#);
        assert!(
            e.message.starts_with("unknown field `inner.txt`"),
            "{}",
            e.message
        );
        let e = refuse(r#"{"list": [{"text": "a"}, {"zzz": 1}]}"#);
        assert_eq!(e.message, "unknown field `list.1.zzz`");
    }

    #[test]
    fn objects_must_be_objects_and_whole_floats_are_integers() {
        let e = refuse(r#"{"inner": [null, null]}"#);
        assert_eq!(e.message, "`inner` must be a JSON object");
        let e = refuse("[1, 2]");
        assert_eq!(e.message, "the body must be a JSON object");
        #[derive(Debug, Deserialize, ToSchema)]
        struct Count {
            n: u64,
        }
        let c: Count = StrictJson::parse(br#"{"n": 100000.0}"#, &Shape::of::<Count>()).unwrap();
        assert_eq!(c.n, 100_000);
    }

    #[test]
    fn bad_json_and_wrong_types_are_bad_requests() {
        assert_eq!(refuse("{").code, crate::error::ErrorCode::BadRequest);
        assert_eq!(
            refuse(r#"{"x": "one"}"#).code,
            crate::error::ErrorCode::BadRequest
        );
    }
}
