//! Security middleware (DESIGN.md "Security defaults"): the server can drive a phone, so a web
//! page in the user's browser must not reach it.
//!
//! - `Host` must be a loopback name, the bound address or an `--allow-host` entry (stops DNS
//!   rebinding), else `403 FORBIDDEN_HOST`.
//! - A request carrying an `Origin` must come from such a host or an `--allow-origin` entry.
//! - State-changing methods under `/api/` must send `Content-Type: application/json`, which a
//!   plain HTML form or a "simple" cross-site request cannot.
//! - With a token configured, every route but `/health` and the static docs needs
//!   `Authorization: Bearer <token>`.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
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

/// Splits `host[:port]` (IPv6 in brackets) into its host part, lowercased.
fn host_part(authority: &str) -> String {
    let a = authority.trim().to_ascii_lowercase();
    if let Some(rest) = a.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("").to_string();
    }
    match a.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h.to_string(),
        _ => a,
    }
}

fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl SecurityPolicy {
    /// Whether a `Host` header value may address this server.
    pub fn host_allowed(&self, authority: &str) -> bool {
        let host = host_part(authority);
        if host.is_empty() {
            return false;
        }
        if is_loopback_host(&host) {
            return true;
        }
        if let Some(bound) = self.bound {
            if !bound.ip().is_unspecified() && host_part(&bound.ip().to_string()) == host {
                return true;
            }
        }
        self.allow_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(authority) || host_part(h) == host)
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
            Some(("http", authority)) | Some(("https", authority)) => self.host_allowed(authority),
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

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Paths that need no token: liveness and the static API documentation.
fn public_path(path: &str) -> bool {
    path == "/health" || path == "/openapi.json" || path == "/docs" || path.starts_with("/docs/")
}

/// The middleware enforcing [`SecurityPolicy`].
pub async fn enforce(
    State(policy): State<Arc<SecurityPolicy>>,
    request: Request,
    next: Next,
) -> Response {
    match check(&policy, &request) {
        Ok(()) => next.run(request).await,
        Err(e) => e.into_response(),
    }
}

fn check(policy: &SecurityPolicy, request: &Request) -> Result<(), Error> {
    let headers = request.headers();
    let authority = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| request.uri().authority().map(|a| a.to_string()))
        .unwrap_or_default();
    if !policy.host_allowed(&authority) {
        return Err(Error::new(
            ErrorCode::ForbiddenHost,
            format!("Host `{authority}` is not allowed"),
        )
        .with_hint(
            "address the server as 127.0.0.1 or localhost, or start it with --allow-host NAME",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
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
    let mutating = matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    );
    if mutating && path.starts_with("/api/") {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|mime| {
                let mime = mime.trim().to_ascii_lowercase();
                mime == "application/json" || mime.ends_with("+json")
            });
        if !json {
            return Err(Error::new(
                ErrorCode::UnsupportedMediaType,
                "requests that change state must send `Content-Type: application/json`",
            )
            .with_hint("send a JSON body (`{}` when there is nothing to say) with that header"));
        }
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
    fn loopback_hosts_are_allowed() {
        let p = policy();
        for h in [
            "127.0.0.1:9100",
            "localhost",
            "LOCALHOST:9100",
            "[::1]:9100",
            "127.1.2.3",
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
        assert!(p.host_allowed("phone-lab.local:9100"));
        assert!(!p.host_allowed("192.168.1.21:9100"));
    }

    #[test]
    fn origins() {
        let p = SecurityPolicy {
            allow_origins: vec!["https://agent.example".into()],
            ..policy()
        };
        assert!(p.origin_allowed("http://127.0.0.1:9100"));
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
