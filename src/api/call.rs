//! An operation called with named JSON arguments, as the CLI and the MCP tools both call the
//! API: path parameters filled in (percent-encoded), the rest sent as query parameters or as
//! the JSON body, as the operation takes its input ([`http_call`]).

use serde_json::{Map, Value};

use super::operation::{HttpMethod, Input};

/// How an operation takes its input, without the schema functions of [`Input`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// It takes no arguments.
    None,
    /// Its arguments go in the query string.
    Query,
    /// Its arguments are the JSON body.
    Body,
}

impl Input {
    /// How it takes its input, as an [`InputKind`].
    pub fn kind(&self) -> InputKind {
        match self {
            Input::None => InputKind::None,
            Input::Query(_) => InputKind::Query,
            Input::Body(_) => InputKind::Body,
        }
    }
}

/// One HTTP request to the API.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpCall {
    /// The operation's HTTP method.
    pub method: HttpMethod,
    /// The path with its parameters filled in.
    pub path: String,
    /// The query parameters (name, value), not yet percent-encoded; empty unless the
    /// operation takes a query.
    pub query: Vec<(String, String)>,
    /// The JSON body: the arguments of a body operation, `{}` for another state-changing one
    /// (the server wants JSON on every state-changing request), none for a `GET`.
    pub body: Option<Value>,
    /// The session it runs in (sent as `Mobilectl-Session`), if any.
    pub session: Option<String>,
}

impl HttpCall {
    /// The request's target: its path, then its query percent-encoded.
    pub fn uri(&self) -> String {
        if self.query.is_empty() {
            return self.path.clone();
        }
        let q = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&self.query)
            .finish();
        format!("{}?{q}", self.path)
    }
}

/// Arguments that cannot make a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgumentError {
    /// A path parameter is missing, empty, or not a string or number.
    MissingPathParameter(String),
    /// The operation takes no arguments but got these.
    TakesNone(Vec<String>),
}

impl std::fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgumentError::MissingPathParameter(name) => {
                write!(f, "`{name}` (a non-empty string) is required")
            }
            ArgumentError::TakesNone(names) => {
                write!(f, "takes no arguments (got {})", names.join(", "))
            }
        }
    }
}

/// The request calling an operation (`method`, `path`, `input`) with `args`. `null` arguments
/// are left out of a query; an array argument is repeated.
pub fn http_call(
    method: HttpMethod,
    path: &str,
    input: InputKind,
    mut args: Map<String, Value>,
) -> Result<HttpCall, ArgumentError> {
    let path = fill_path(path, &mut args)?;
    let (query, body) = match input {
        InputKind::Query => (query_pairs(&args), None),
        InputKind::Body => (Vec::new(), Some(Value::Object(args))),
        InputKind::None if !args.is_empty() => {
            return Err(ArgumentError::TakesNone(args.keys().cloned().collect()))
        }
        InputKind::None if method == HttpMethod::Get => (Vec::new(), None),
        InputKind::None => (Vec::new(), Some(Value::Object(Map::new()))),
    };
    Ok(HttpCall {
        method,
        path,
        query,
        body,
        session: None,
    })
}

/// Replaces each `{name}` segment of `path` with the argument `name` (percent-encoded), which
/// is taken out of `args`.
fn fill_path(path: &str, args: &mut Map<String, Value>) -> Result<String, ArgumentError> {
    let mut out = Vec::new();
    for segment in path.split('/') {
        let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
            out.push(segment.to_string());
            continue;
        };
        let value = match args.remove(name) {
            // An empty one would name another route (`/crashes/` is not a crash).
            Some(Value::String(s)) if !s.is_empty() => s,
            Some(v @ Value::Number(_)) => v.to_string(),
            _ => return Err(ArgumentError::MissingPathParameter(name.to_string())),
        };
        out.push(percent_encode(&value));
    }
    Ok(out.join("/"))
}

/// Every byte but the unreserved characters of RFC 3986 as `%XX`.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Query parameters from arguments: scalars as text, arrays repeated, `null` left out.
fn query_pairs(args: &Map<String, Value>) -> Vec<(String, String)> {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut pairs = Vec::new();
    for (k, v) in args {
        match v {
            Value::Null => {}
            Value::Array(items) => pairs.extend(items.iter().map(|i| (k.clone(), text(i)))),
            other => pairs.push((k.clone(), text(other))),
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uri_is_the_path_then_the_query_encoded() {
        let mut call = HttpCall {
            method: HttpMethod::Get,
            path: "/api/v1/device/ui/find".into(),
            query: vec![],
            body: None,
            session: None,
        };
        assert_eq!(call.uri(), "/api/v1/device/ui/find");
        call.query = vec![
            ("q".into(), "log in & go".into()),
            ("limit".into(), "3".into()),
        ];
        assert_eq!(call.uri(), "/api/v1/device/ui/find?q=log+in+%26+go&limit=3");
    }
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn path_parameters_are_filled_and_encoded() {
        let c = http_call(
            HttpMethod::Get,
            "/api/v1/thing/{id}/x",
            InputKind::Query,
            args(json!({"id": "a b/c", "keep": 1})),
        )
        .unwrap();
        assert_eq!(c.path, "/api/v1/thing/a%20b%2Fc/x");
        assert_eq!(c.query, [("keep".to_string(), "1".to_string())]);
        assert_eq!(
            http_call(HttpMethod::Get, "/t/{id}", InputKind::None, Map::new()),
            Err(ArgumentError::MissingPathParameter("id".into()))
        );
        assert_eq!(
            http_call(
                HttpMethod::Get,
                "/t/{id}",
                InputKind::None,
                args(json!({"id": ""}))
            ),
            Err(ArgumentError::MissingPathParameter("id".into()))
        );
    }

    #[test]
    fn queries_drop_nulls_and_repeat_arrays() {
        let c = http_call(
            HttpMethod::Get,
            "/q",
            InputKind::Query,
            args(json!({"a": null, "b": [1, "x"], "c": true})),
        )
        .unwrap();
        assert_eq!(
            c.query,
            [
                ("b".to_string(), "1".to_string()),
                ("b".into(), "x".into()),
                ("c".into(), "true".into())
            ]
        );
        assert_eq!(c.body, None);
    }

    #[test]
    fn bodies_carry_the_arguments_and_state_changes_always_send_json() {
        let c = http_call(
            HttpMethod::Put,
            "/b",
            InputKind::Body,
            args(json!({"udid": null})),
        )
        .unwrap();
        assert_eq!(c.body, Some(json!({"udid": null})));
        let none = http_call(HttpMethod::Post, "/n", InputKind::None, Map::new()).unwrap();
        assert_eq!(none.body, Some(json!({})));
        let get = http_call(HttpMethod::Get, "/n", InputKind::None, Map::new()).unwrap();
        assert_eq!(get.body, None);
        assert_eq!(
            http_call(
                HttpMethod::Get,
                "/n",
                InputKind::None,
                args(json!({"x": 1}))
            ),
            Err(ArgumentError::TakesNone(vec!["x".into()]))
        );
    }
}
