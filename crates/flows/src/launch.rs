//! A typed launch argument: a string, a boolean, an integer or a number, as the app reads it.
//! Maestro's `launchApp` `arguments` are typed this way, and the product's `launch_app` takes
//! them so (the product re-exports this type as its own).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A named launch value: a string, a boolean, an integer or a number, typed as the app
/// reads it (Android `getStringExtra`, `getBooleanExtra`, `getIntExtra`/`getLongExtra`,
/// `getDoubleExtra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LaunchValue {
    /// `--ez` on Android.
    Bool(bool),
    /// `--ei` on Android (`--el` beyond 32 bits).
    Int(i64),
    /// `--ed` on Android.
    Number(f64),
    /// `--es` on Android.
    Text(String),
}

impl LaunchValue {
    /// A value written without quotes, typed as a YAML reader types a plain scalar (as
    /// Maestro's launch `arguments` are): `true`/`false` (any case) a boolean, a whole number
    /// an integer, a decimal a number, anything else text.
    pub fn from_plain(text: &str) -> LaunchValue {
        match text.to_ascii_lowercase().as_str() {
            "true" => return LaunchValue::Bool(true),
            "false" => return LaunchValue::Bool(false),
            _ => {}
        }
        match (text.parse::<i64>(), text.parse::<f64>()) {
            (Ok(i), _) => LaunchValue::Int(i),
            (_, Ok(f)) if f.is_finite() && text.contains(['.', 'e', 'E']) => LaunchValue::Number(f),
            _ => LaunchValue::Text(text.to_string()),
        }
    }
}

/// `anyOf`, not the derive's `oneOf`: a JSON integer is a number too.
impl utoipa::PartialSchema for LaunchValue {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AnyOf, ObjectBuilder, Type};
        let of = |t: Type, what: &str| ObjectBuilder::new().schema_type(t).description(Some(what));
        AnyOf::builder()
            .item(of(Type::Boolean, "`--ez` on Android."))
            .item(of(
                Type::Integer,
                "`--ei` on Android (`--el` beyond 32 bits).",
            ))
            .item(of(Type::Number, "`--ed` on Android."))
            .item(of(Type::String, "`--es` on Android."))
            .description(Some(
                "A string, a boolean, an integer or a number, typed as the app reads it.",
            ))
            .into()
    }
}

impl ToSchema for LaunchValue {
    fn name() -> std::borrow::Cow<'static, str> {
        "LaunchValue".into()
    }
}

impl std::fmt::Display for LaunchValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchValue::Bool(b) => write!(f, "{b}"),
            LaunchValue::Int(i) => write!(f, "{i}"),
            LaunchValue::Number(n) => write!(f, "{n:?}"),
            LaunchValue::Text(t) => f.write_str(t),
        }
    }
}
