//! Which hosts a run's scripts may reach over HTTP: those given with `--allow-http HOST`
//! (`allow_http` in a request) and in the flow's `MOBILECTL_ALLOW_HTTP` variable
//! (comma-separated). An entry is a host (`api.example.com`, `localhost`, `127.0.0.1`,
//! `[::1]`), with a port to allow only that one (`localhost:8080`), or `*` for any. Only
//! `http` and `https` URLs go out; anything else is refused before a connection is made.

use reqwest::Url;

/// The variable of a flow's env that allows hosts besides the request's.
pub const ENV_VAR: &str = "MOBILECTL_ALLOW_HTTP";

/// One allowed host, with its port when only that one is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Any,
    Host { host: String, port: Option<u16> },
}

/// The hosts a run allows; see the module's doc.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList(Vec<Entry>);

impl AllowList {
    /// The list of `entries`; an error naming the first that is not a host.
    pub fn parse<S: AsRef<str>>(entries: impl IntoIterator<Item = S>) -> Result<AllowList, String> {
        let mut out = vec![];
        for e in entries {
            let e = e.as_ref().trim();
            if e == "*" {
                out.push(Entry::Any);
                continue;
            }
            let bad = || format!("`{e}` is not a host to allow (a host, `host:port`, or `*`)");
            if e.is_empty() || e.contains("://") || e.contains(['/', '?', '#', '@']) {
                return Err(bad());
            }
            let url = Url::parse(&format!("http://{e}")).map_err(|_| bad())?;
            let host = url.host_str().ok_or_else(bad)?.to_ascii_lowercase();
            out.push(Entry::Host {
                host,
                port: url.port(),
            });
        }
        Ok(AllowList(out))
    }

    /// This list with the entries of a run's env (`MOBILECTL_ALLOW_HTTP`, the last binding).
    pub fn with_env(mut self, env: &[(String, String)]) -> Result<AllowList, String> {
        if let Some((_, v)) = env.iter().rev().find(|(k, _)| k == ENV_VAR) {
            let more = AllowList::parse(v.split(',').filter(|p| !p.trim().is_empty()))
                .map_err(|e| format!("{ENV_VAR}: {e}"))?;
            self.0.extend(more.0);
        }
        Ok(self)
    }

    /// Whether a script may request `url`: `Ok`, or why not, naming the host and how to
    /// allow it.
    pub fn check(&self, url: &str) -> Result<(), String> {
        let parsed = Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "`{url}`: a script's requests are http or https, not {}",
                parsed.scheme()
            ));
        }
        let host = parsed
            .host_str()
            .ok_or_else(|| format!("`{url}` names no host"))?
            .to_ascii_lowercase();
        let port = parsed.port_or_known_default();
        let allowed = self.0.iter().any(|e| match e {
            Entry::Any => true,
            Entry::Host { host: h, port: p } => *h == host && (p.is_none() || *p == port),
        });
        match allowed {
            true => Ok(()),
            false => {
                let shown = match parsed.port() {
                    Some(p) => format!("{host}:{p}"),
                    None => host.clone(),
                };
                Err(format!(
                    "the request to {url} was refused: {shown} is not a host this run allows; \
                     allow it with --allow-http {shown} (`allow_http` in the request, or \
                     {ENV_VAR} in the flow's env)"
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_ports_are_allowed_as_given() {
        let a = AllowList::parse(["LocalHost:8080", "api.example.com", "[::1]"]).unwrap();
        assert!(a.check("http://localhost:8080/x").is_ok());
        assert!(a.check("http://localhost:9090/x").is_err());
        assert!(a.check("https://api.example.com/v1?q=1").is_ok());
        assert!(a.check("http://API.example.com:81/").is_ok());
        assert!(a.check("http://[::1]:3000/").is_ok());
        let refused = a.check("http://evil.example:81/steal").unwrap_err();
        assert!(
            refused.contains("evil.example:81 is not a host"),
            "{refused}"
        );
        assert!(
            refused.contains("--allow-http evil.example:81"),
            "{refused}"
        );
        // A user name does not hide the host.
        assert!(a.check("http://api.example.com@evil.example/").is_err());
        assert!(a
            .check("file:///etc/passwd")
            .unwrap_err()
            .contains("not file"));
        assert!(a.check("not a url").is_err());
    }

    #[test]
    fn nothing_is_allowed_by_default_and_star_allows_any() {
        assert!(AllowList::default().check("http://localhost/").is_err());
        assert!(AllowList::parse(["*"])
            .unwrap()
            .check("https://x.y/")
            .is_ok());
    }

    #[test]
    fn bad_entries_are_refused_and_the_env_adds_its_own() {
        for bad in ["http://x", "x/y", "", "a b", "u@x"] {
            assert!(AllowList::parse([bad]).is_err(), "{bad}");
        }
        let env = vec![
            (
                ENV_VAR.to_string(),
                "one.example, two.example:81".to_string(),
            ),
            ("OTHER".to_string(), "x".to_string()),
        ];
        let a = AllowList::default().with_env(&env).unwrap();
        assert!(a.check("http://one.example/").is_ok());
        assert!(a.check("http://two.example:81/").is_ok());
        assert!(a.check("http://two.example/").is_err());
        let bad = vec![(ENV_VAR.to_string(), "x/y".to_string())];
        assert!(AllowList::default()
            .with_env(&bad)
            .unwrap_err()
            .contains(ENV_VAR));
    }
}
