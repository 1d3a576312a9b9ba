//! What a rule matches on, compiled: method, host (exact or `*.example.com`), path (prefix,
//! glob or regex), query parameters, one header, one JSON body field. Pure: a request is seen
//! through a [`RequestView`], and every condition given must hold.

use regex::Regex;
use serde_json::Value;

/// The parts of a request a rule looks at.
#[derive(Debug, Clone, Copy)]
pub struct RequestView<'a> {
    /// Uppercase, as sent.
    pub method: &'a str,
    /// Without port, any case.
    pub host: &'a str,
    /// The URL's path, as sent (`/v1/items`).
    pub path: &'a str,
    /// The URL's query, without the `?`; `None` when there is none.
    pub query: Option<&'a str>,
    /// The request's headers.
    pub headers: &'a hyper::HeaderMap,
    /// The request body parsed as JSON, when a rule needs it and it is JSON.
    pub json: Option<&'a Value>,
}

/// A host pattern.
#[derive(Debug, Clone)]
pub enum HostPattern {
    /// This host only (lowercase).
    Exact(String),
    /// Any subdomain of this domain (`*.example.com` holds `.example.com`).
    Subdomains(String),
}

impl HostPattern {
    fn matches(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        match self {
            HostPattern::Exact(h) => host == *h,
            HostPattern::Subdomains(suffix) => host.ends_with(suffix.as_str()),
        }
    }
}

/// A path pattern.
#[derive(Debug, Clone)]
pub enum PathPattern {
    /// Paths that start with this.
    Prefix(String),
    /// A glob or a regex, compiled.
    Regex(Regex),
}

/// A compiled match: every condition given must hold.
#[derive(Debug, Clone, Default)]
pub struct Matcher {
    /// The method (any case).
    pub method: Option<String>,
    /// The host, exact or with its subdomains.
    pub host: Option<HostPattern>,
    /// The path: a prefix, a glob or a regex.
    pub path: Option<PathPattern>,
    /// Parameters that must be present; with a value, equal to it.
    pub query: Vec<(String, Option<String>)>,
    /// A header (lowercase name) that must be present; with a value, equal to it.
    pub header: Option<(String, Option<String>)>,
    /// A JSON pointer into the request body; with a value, equal to it.
    pub json: Option<(String, Option<Value>)>,
}

impl Matcher {
    /// Whether it reads the request's body (a JSON field).
    pub fn needs_body(&self) -> bool {
        self.json.is_some()
    }

    /// Whether `r` meets every condition given (none given: every request).
    pub fn matches(&self, r: &RequestView<'_>) -> bool {
        if let Some(m) = &self.method {
            if !m.eq_ignore_ascii_case(r.method) {
                return false;
            }
        }
        if let Some(h) = &self.host {
            if !h.matches(r.host) {
                return false;
            }
        }
        match &self.path {
            Some(PathPattern::Prefix(p)) if !r.path.starts_with(p.as_str()) => return false,
            Some(PathPattern::Regex(re)) if !re.is_match(r.path) => return false,
            _ => {}
        }
        if !self.query.is_empty() {
            let pairs: Vec<(String, String)> =
                form_urlencoded::parse(r.query.unwrap_or("").as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect();
            let holds = |(name, want): &(String, Option<String>)| {
                pairs
                    .iter()
                    .any(|(k, v)| k == name && want.as_ref().is_none_or(|w| w == v))
            };
            if !self.query.iter().all(holds) {
                return false;
            }
        }
        if let Some((name, want)) = &self.header {
            let found = r.headers.get_all(name.as_str()).iter().any(|v| match want {
                None => true,
                Some(w) => v.to_str().is_ok_and(|v| v.trim() == w),
            });
            if !found {
                return false;
            }
        }
        if let Some((pointer, want)) = &self.json {
            let Some(found) = r.json.and_then(|j| j.pointer(pointer)) else {
                return false;
            };
            if want.as_ref().is_some_and(|w| w != found) {
                return false;
            }
        }
        true
    }
}

/// A glob over a path as a regex: `**` any characters, `*` any but `/`, `?` one but `/`.
pub fn glob_regex(glob: &str) -> Result<Regex, regex::Error> {
    let mut re = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                re.push_str(".*");
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re)
}

/// A JSON pointer from `/a/b` or a dotted `a.b` (array indexes as numbers: `items.0.id`).
pub fn pointer(field: &str) -> String {
    if field.starts_with('/') {
        field.to_string()
    } else {
        format!(
            "/{}",
            field
                .split('.')
                .map(|p| p.replace('~', "~0").replace('/', "~1"))
                .collect::<Vec<_>>()
                .join("/")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::HeaderMap;
    use serde_json::json;

    fn view<'a>(
        method: &'a str,
        host: &'a str,
        path: &'a str,
        query: Option<&'a str>,
        headers: &'a HeaderMap,
        json: Option<&'a Value>,
    ) -> RequestView<'a> {
        RequestView {
            method,
            host,
            path,
            query,
            headers,
            json,
        }
    }

    #[test]
    fn each_condition_narrows() {
        let mut h = HeaderMap::new();
        h.insert("x-env", "staging".parse().unwrap());
        let body = json!({"user": {"name": "ann"}, "items": [{"id": 7}]});
        let r = view(
            "POST",
            "API.example.com",
            "/v1/login",
            Some("a=1&b=two%20words"),
            &h,
            Some(&body),
        );
        let all = Matcher {
            method: Some("post".into()),
            host: Some(HostPattern::Subdomains(".example.com".into())),
            path: Some(PathPattern::Prefix("/v1/".into())),
            query: vec![("a".into(), None), ("b".into(), Some("two words".into()))],
            header: Some(("x-env".into(), Some("staging".into()))),
            json: Some((pointer("user.name"), Some(json!("ann")))),
        };
        assert!(all.matches(&r));
        assert!(Matcher::default().matches(&r));
        let not = |m: Matcher| assert!(!m.matches(&r), "{m:?}");
        not(Matcher {
            method: Some("GET".into()),
            ..Default::default()
        });
        not(Matcher {
            host: Some(HostPattern::Exact("example.com".into())),
            ..Default::default()
        });
        not(Matcher {
            host: Some(HostPattern::Subdomains(".other.com".into())),
            ..Default::default()
        });
        not(Matcher {
            path: Some(PathPattern::Prefix("/v2".into())),
            ..Default::default()
        });
        not(Matcher {
            query: vec![("c".into(), None)],
            ..Default::default()
        });
        not(Matcher {
            header: Some(("x-env".into(), Some("prod".into()))),
            ..Default::default()
        });
        not(Matcher {
            json: Some((pointer("/items/0/id"), Some(json!(8)))),
            ..Default::default()
        });
        assert!(Matcher {
            json: Some((pointer("items.0.id"), Some(json!(7)))),
            ..Default::default()
        }
        .matches(&r));
    }

    #[test]
    fn globs_stay_within_segments_unless_doubled() {
        let g = glob_regex("/v1/*/orders").unwrap();
        assert!(g.is_match("/v1/42/orders"));
        assert!(!g.is_match("/v1/42/x/orders"));
        let g = glob_regex("/static/**.png").unwrap();
        assert!(g.is_match("/static/a/b/c.png"));
        assert!(!g.is_match("/static/a.pngx"));
        assert!(glob_regex("/a+b(c)?").unwrap().is_match("/a+b(c)x"));
    }
}
