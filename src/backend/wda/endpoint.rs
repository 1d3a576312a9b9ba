//! The WebDriverAgent endpoints a server is given (`--wda [UDID=]URL`, repeatable, or
//! `MOBILECTL_WDA` comma-separated), checked whole at startup, and what is kept per endpoint
//! while the server runs: its WDA session, its screen geometry and its last `/status`.

use std::sync::Mutex;

use reqwest::Url;

use super::status::{ScreenGeometry, Status};

/// One `[UDID=]URL` as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointSpec {
    /// The device's UDID, when given: ties the endpoint to the phone devicectl lists (name,
    /// apps), or to a simulator.
    pub udid: Option<String>,
    /// The base URL, without a trailing slash (`http://127.0.0.1:8100`).
    pub url: String,
}

impl EndpointSpec {
    /// Parses `[UDID=]URL`; a URL without a scheme gets `http://`.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let spec = spec.trim();
        if spec.is_empty() {
            return Err("an empty WebDriverAgent endpoint".into());
        }
        // `UDID=` only when what precedes the first `=` could be a UDID (a URL's query may
        // hold `=` too, after characters a UDID never has).
        let (udid, url) = match spec.split_once('=') {
            Some((u, rest)) if !u.contains([':', '/', '?']) => (Some(u.trim()), rest.trim()),
            _ => (None, spec),
        };
        if let Some(u) = udid {
            check_udid(u)?;
        }
        let with_scheme = if url.contains("://") {
            url.to_string()
        } else {
            format!("http://{url}")
        };
        let parsed = Url::parse(&with_scheme).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "`{url}`: WebDriverAgent is reached over http or https"
            ));
        }
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(format!("`{url}` names no host"));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(format!("`{url}`: give the base URL, without a query"));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(format!("`{url}`: credentials in the URL are not supported"));
        }
        Ok(EndpointSpec {
            udid: udid.map(str::to_string),
            url: parsed.as_str().trim_end_matches('/').to_string(),
        })
    }

    /// Parses every spec and refuses two endpoints with the same URL or UDID.
    pub fn parse_all<S: AsRef<str>>(specs: &[S]) -> Result<Vec<Self>, String> {
        let mut out: Vec<EndpointSpec> = Vec::new();
        for s in specs
            .iter()
            .map(AsRef::as_ref)
            .filter(|s| !s.trim().is_empty())
        {
            let e = Self::parse(s).map_err(|why| format!("--wda {s}: {why}"))?;
            if out.iter().any(|o| o.url == e.url) {
                return Err(format!("--wda {s}: {} is given twice", e.url));
            }
            if e.udid.is_some() && out.iter().any(|o| o.udid == e.udid) {
                return Err(format!("--wda {s}: the UDID is given twice"));
            }
            out.push(e);
        }
        Ok(out)
    }

    /// The udid the device of this endpoint is listed under: the given UDID, else
    /// `wda:HOST:PORT`.
    pub fn device_udid(&self) -> String {
        if let Some(u) = &self.udid {
            return u.clone();
        }
        match Url::parse(&self.url) {
            Ok(u) => format!(
                "wda:{}:{}",
                u.host_str().unwrap_or_default(),
                u.port_or_known_default().unwrap_or(80)
            ),
            Err(_) => format!("wda:{}", self.url),
        }
    }

    /// `HOST:PORT` of the URL, for names and messages.
    pub fn authority(&self) -> String {
        self.url
            .split_once("://")
            .map_or(self.url.as_str(), |(_, rest)| rest)
            .to_string()
    }
}

/// A UDID as Apple prints them: hex digits and dashes (`00008130-000A1C2E3C41001C`, a
/// simulator's UUID, a CoreDevice identifier).
fn check_udid(u: &str) -> Result<(), String> {
    let ok =
        !u.is_empty() && u.len() <= 64 && u.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{u}` is not a UDID (letters, digits and dashes, as `xcrun devicectl list devices` prints them)"
        ))
    }
}

/// An endpoint while the server runs.
#[derive(Debug)]
pub(super) struct Endpoint {
    pub spec: EndpointSpec,
    /// The udid its device is listed under.
    pub udid: String,
    /// The WDA session mobilectl created, reused by every command until WDA forgets it.
    pub session: tokio::sync::Mutex<Option<String>>,
    /// Screen size (points) and scale, once read.
    pub screen: Mutex<Option<ScreenGeometry>>,
    /// The last `/status` answer, once one came.
    pub status: Mutex<Option<Status>>,
}

impl Endpoint {
    pub fn new(spec: EndpointSpec) -> Self {
        Endpoint {
            udid: spec.device_udid(),
            spec,
            session: tokio::sync::Mutex::new(None),
            screen: Mutex::new(None),
            status: Mutex::new(None),
        }
    }

    pub fn status(&self) -> Option<Status> {
        self.status.lock().ok().and_then(|s| s.clone())
    }

    pub fn set_status(&self, status: Status) {
        if let Ok(mut s) = self.status.lock() {
            *s = Some(status);
        }
    }

    pub fn screen(&self) -> Option<ScreenGeometry> {
        self.screen.lock().ok().and_then(|s| *s)
    }

    pub fn set_screen(&self, geometry: Option<ScreenGeometry>) {
        if let Ok(mut s) = self.screen.lock() {
            *s = geometry;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_with_and_without_udid() {
        let e = EndpointSpec::parse("http://127.0.0.1:8100").unwrap();
        assert_eq!(e.udid, None);
        assert_eq!(e.url, "http://127.0.0.1:8100");
        assert_eq!(e.device_udid(), "wda:127.0.0.1:8100");
        assert_eq!(e.authority(), "127.0.0.1:8100");

        let e = EndpointSpec::parse("00008130-000A1C2E3C41001C=http://localhost:8101/").unwrap();
        assert_eq!(e.udid.as_deref(), Some("00008130-000A1C2E3C41001C"));
        assert_eq!(e.url, "http://localhost:8101");
        assert_eq!(e.device_udid(), "00008130-000A1C2E3C41001C");

        // No scheme: http. A path (WDA behind a proxy prefix) is kept.
        let e = EndpointSpec::parse("192.168.1.20:8100").unwrap();
        assert_eq!(e.url, "http://192.168.1.20:8100");
        let e = EndpointSpec::parse("https://farm.local/wda/7/").unwrap();
        assert_eq!(e.url, "https://farm.local/wda/7");
        assert_eq!(e.device_udid(), "wda:farm.local:443");
    }

    #[test]
    fn bad_specs_are_refused_with_the_reason() {
        for (spec, why) in [
            ("", "empty"),
            ("ftp://127.0.0.1:8100", "http or https"),
            ("http://127.0.0.1:8100/?x=1", "without a query"),
            ("not a udid!=http://127.0.0.1:8100", "not a UDID"),
            ("http://user:pw@127.0.0.1:8100", "credentials"),
            ("http://:8100", "URL"),
        ] {
            let err = EndpointSpec::parse(spec).unwrap_err();
            assert!(err.contains(why), "{spec:?}: {err}");
        }
    }

    #[test]
    fn the_same_endpoint_twice_is_refused() {
        assert!(EndpointSpec::parse_all(&["http://a:8100", "http://a:8100/"]).is_err());
        assert!(EndpointSpec::parse_all(&["X1=http://a:8100", "X1=http://b:8100"]).is_err());
        let ok = EndpointSpec::parse_all(&["X1=http://a:8100", "http://b:8100", " "]).unwrap();
        assert_eq!(ok.len(), 2);
    }
}
