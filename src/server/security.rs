//! Security middleware (docs/DESIGN.md "Security defaults"): the server can drive a phone, so a
//! web page in the user's browser must not reach it.
//!
//! - `Host` must be a loopback name, the bound address or an `--allow-host` entry (stops DNS
//!   rebinding), else `403 FORBIDDEN_HOST`.
//! - A request carrying an `Origin` must come from such a host or an `--allow-origin` entry.
//! - (Operations that take a body require `Content-Type: application/json`, which a plain HTML
//!   form or a "simple" cross-site request cannot send: see `crate::api::operation`.)
//! - With a token configured, every route but `/health` and the static docs needs
//!   `Authorization: Bearer <token>`.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::{Error, ErrorCode};

/// The security settings of a running server.
#[derive(Debug, Clone, Default)]
pub struct SecurityPolicy {
    /// The address the server is bound to (its `ip:port` is an allowed Host).
    pub bound: Option<SocketAddr>,
    /// Extra allowed hosts (names, with or without port).
    pub allow_hosts: Vec<String>,
    /// Origins allowed to call (`scheme://host[:port]`); also enables CORS for them.
    pub allow_origins: Vec<String>,
    /// Bearer token; `None` disables authentication (loopback only).
    pub token: Option<String>,
}

/// Splits `host[:port]` (IPv6 in brackets) into its host part, lowercased, and its port.
fn split_authority(authority: &str) -> (String, Option<u16>) {
    let a = authority.trim().to_ascii_lowercase();
    if let Some(rest) = a.strip_prefix('[') {
        let (host, after) = rest.split_once(']').unwrap_or((rest, ""));
        let port = after.strip_prefix(':').and_then(|p| p.parse().ok());
        return (host.to_string(), port);
    }
    match a.rsplit_once(':') {
        Some((h, port)) if !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) => {
            (h.to_string(), port.parse().ok())
        }
        _ => (a, None),
    }
}

fn host_part(authority: &str) -> String {
    split_authority(authority).0
}

fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl SecurityPolicy {
    /// Whether a `Host` header value may address this server: a loopback name or the bound
    /// address, at the bound port (no port means 80), or an `--allow-host` entry (an entry
    /// without a port allows that name at any port).
    pub fn host_allowed(&self, authority: &str) -> bool {
        let (host, port) = split_authority(authority);
        if host.is_empty() {
            return false;
        }
        if self.allow_hosts.iter().any(|h| {
            let (name, p) = split_authority(h);
            name == host && (p.is_none() || p == port)
        }) {
            return true;
        }
        let port_ok = match self.bound {
            Some(bound) => port.unwrap_or(80) == bound.port(),
            None => true,
        };
        if !port_ok {
            return false;
        }
        if is_loopback_host(&host) {
            return true;
        }
        self.bound.is_some_and(|bound| {
            !bound.ip().is_unspecified() && host_part(&bound.ip().to_string()) == host
        })
    }

    /// Whether a browser `Origin` may call this server.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        if self
            .allow_origins
            .iter()
            .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin))
        {
            return true;
        }
        // Same-origin pages (Swagger UI at /docs) send their own origin.
        match origin.split_once("://") {
            Some(("http", authority)) => self.host_allowed(authority),
            Some(("https", authority)) if split_authority(authority).1.is_none() => {
                self.host_allowed(&format!("{authority}:443"))
            }
            Some(("https", authority)) => self.host_allowed(authority),
            _ => false,
        }
    }

    fn token_ok(&self, headers: &HeaderMap) -> bool {
        let Some(expected) = &self.token else {
            return true;
        };
        let Some(given) = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
        else {
            return false;
        };
        constant_time_eq(given.trim().as_bytes(), expected.as_bytes())
    }
}

/// Whether `a` and `b` are equal, in a time that does not depend on where they differ.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Paths that need no token: liveness and the static API documentation.
fn public_path(path: &str) -> bool {
    path == "/health" || path == "/openapi.json" || path == "/docs" || path.starts_with("/docs/")
}

/// The shortest token accepted for a non-loopback bind.
const MIN_REMOTE_TOKEN: usize = 16;

/// Why a server must not listen on `addr` with `token` (an empty token is none): a token
/// clients could not send back as it is, or a non-loopback address without a token strong
/// enough that no one on the network could guess it.
pub fn check_bind(addr: SocketAddr, token: Option<&str>) -> Result<(), String> {
    let token = token.filter(|t| !t.is_empty());
    if let Some(t) = token {
        if t.trim().is_empty() {
            return Err("a token of only spaces can never be sent back: choose another".into());
        }
        if t.trim() != t {
            return Err(
                "the token starts or ends with spaces, which clients trim: remove them".into(),
            );
        }
        let strong = t.chars().filter(|c| !c.is_whitespace()).count() >= MIN_REMOTE_TOKEN;
        if !addr.ip().is_loopback() && !strong {
            return Err(format!(
                "refusing to listen on {addr} with a token of fewer than {MIN_REMOTE_TOKEN} \
                 characters: anyone on the network could guess it"
            ));
        }
    }
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(format!(
            "refusing to listen on {addr} without a token: anyone on the network could drive \
             your devices. Pass --token (or set MOBILECTL_TOKEN), or bind 127.0.0.1."
        ));
    }
    Ok(())
}

/// The middleware enforcing [`SecurityPolicy`].
pub async fn enforce(
    State(policy): State<Arc<SecurityPolicy>>,
    request: Request,
    next: Next,
) -> Response {
    match check(&policy, &request) {
        Ok(()) => next.run(request).await,
        Err(e) if e.code == ErrorCode::Unauthorized => {
            let mut r = e.into_response();
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"mobilectl\""),
            );
            r
        }
        Err(e) => e.into_response(),
    }
}

fn check(policy: &SecurityPolicy, request: &Request) -> Result<(), Error> {
    let headers = request.headers();
    if headers.get_all(header::HOST).iter().count() > 1 {
        return Err(
            Error::bad_request("the request has more than one Host header")
                .with_hint("send exactly one Host header"),
        );
    }
    // A Host that is not text is refused, as such an Origin is, rather than read from the URI.
    let authority = match headers.get(header::HOST).map(|h| h.to_str()) {
        Some(Ok(host)) => host.to_string(),
        Some(Err(_)) => {
            return Err(Error::new(
                ErrorCode::ForbiddenHost,
                "the request's Host is not text, so it cannot be an allowed host",
            )
            .with_hint("address the server as 127.0.0.1 or localhost"))
        }
        None => request
            .uri()
            .authority()
            .map(|a| a.to_string())
            .unwrap_or_default(),
    };
    if !policy.host_allowed(&authority) {
        return Err(Error::new(
            ErrorCode::ForbiddenHost,
            format!("Host `{authority}` is not allowed"),
        )
        .with_hint(
            "address the server as 127.0.0.1 or localhost, or start it with --allow-host NAME",
        ));
    }
    if headers.get_all(header::ORIGIN).iter().count() > 1 {
        return Err(
            Error::bad_request("the request has more than one Origin header")
                .with_hint("send at most one Origin header"),
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let Ok(origin) = origin.to_str() else {
            return Err(Error::new(
                ErrorCode::ForbiddenHost,
                "the request's Origin is not text, so it cannot be an allowed origin",
            )
            .with_hint("send an Origin such as http://127.0.0.1:9100, or none"));
        };
        if origin == "null" || !policy.origin_allowed(origin) {
            return Err(Error::new(
                ErrorCode::ForbiddenHost,
                format!("requests from origin `{origin}` are not allowed"),
            )
            .with_hint("start the server with --allow-origin ORIGIN to let a web page call it"));
        }
    }
    if request.method() == Method::OPTIONS {
        // CORS preflights carry no credentials and change nothing.
        return Ok(());
    }
    let path = request.uri().path();
    if !public_path(path) && !policy.token_ok(headers) {
        return Err(Error::new(
            ErrorCode::Unauthorized,
            "missing or wrong bearer token",
        )
        .with_hint("send `Authorization: Bearer $MOBILECTL_TOKEN` (the token the server was started with)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> SecurityPolicy {
        SecurityPolicy {
            bound: Some("127.0.0.1:9100".parse().unwrap()),
            ..Default::default()
        }
    }

    #[test]
    fn non_loopback_without_token_is_refused() {
        let bind = |addr: &str, token: Option<&str>| check_bind(addr.parse().unwrap(), token);
        assert!(bind("0.0.0.0:9100", Some("")).is_err());
        assert!(bind("0.0.0.0:9100", Some("t0k")).is_err());
        assert!(bind("0.0.0.0:9100", Some("0123456789abcdef")).is_ok());
        assert!(bind("127.0.0.1:9100", Some("   ")).is_err());
        assert!(bind("127.0.0.1:9100", Some("t0k")).is_ok());
        assert!(bind("127.0.0.1:9100", None).is_ok());
        assert!(bind("[::1]:9100", None).is_ok());
    }

    #[test]
    fn loopback_hosts_are_allowed() {
        let p = policy();
        for h in [
            "127.0.0.1:9100",
            "localhost:9100",
            "LOCALHOST:9100",
            "[::1]:9100",
            "127.1.2.3:9100",
            "api.localhost:9100",
        ] {
            assert!(p.host_allowed(h), "{h}");
        }
    }

    #[test]
    fn foreign_hosts_are_refused() {
        let p = policy();
        for h in [
            "evil.example",
            "evil.example:9100",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "",
            "10.0.0.5:9100",
            "127.0.0.1:9999",
            "localhost",
            "[::1]:80",
        ] {
            assert!(!p.host_allowed(h), "{h}");
        }
    }

    #[test]
    fn bound_address_and_allowed_hosts() {
        let p = SecurityPolicy {
            bound: Some("192.168.1.20:9100".parse().unwrap()),
            allow_hosts: vec!["phone-lab.local".into()],
            ..Default::default()
        };
        assert!(p.host_allowed("192.168.1.20:9100"));
        assert!(!p.host_allowed("192.168.1.20:9101"));
        assert!(p.host_allowed("phone-lab.local:9100"));
        assert!(p.host_allowed("phone-lab.local"));
        assert!(!p.host_allowed("192.168.1.21:9100"));
        let pinned = SecurityPolicy {
            allow_hosts: vec!["proxy.lab:443".into()],
            ..p
        };
        assert!(pinned.host_allowed("proxy.lab:443"));
        assert!(!pinned.host_allowed("proxy.lab:8443"));
    }

    #[test]
    fn origins() {
        let p = SecurityPolicy {
            allow_origins: vec!["https://agent.example".into()],
            ..policy()
        };
        assert!(p.origin_allowed("http://127.0.0.1:9100"));
        assert!(!p.origin_allowed("http://127.0.0.1:3000"));
        assert!(!p.origin_allowed("http://localhost"));
        assert!(p.origin_allowed("https://agent.example"));
        assert!(!p.origin_allowed("https://evil.example"));
        assert!(!p.origin_allowed("file://"));
    }

    #[test]
    fn token_comparison() {
        let p = SecurityPolicy {
            token: Some("s3cret".into()),
            ..policy()
        };
        let mut h = HeaderMap::new();
        assert!(!p.token_ok(&h));
        h.insert(header::AUTHORIZATION, "Bearer s3cret".parse().unwrap());
        assert!(p.token_ok(&h));
        h.insert(header::AUTHORIZATION, "Bearer s3cre".parse().unwrap());
        assert!(!p.token_ok(&h));
        h.insert(header::AUTHORIZATION, "Basic s3cret".parse().unwrap());
        assert!(!p.token_ok(&h));
    }
}
