//! Where the proxy may connect. Apps on a device reach the proxy (through `adb reverse`), so
//! whatever it connects to, they reach: the host's own services must stay out of reach.
//! Destinations are judged by address, after name resolution (so `127.1`, `2130706433`,
//! `0x7f000001`, `[::ffff:127.0.0.1]`, `localhost` and names that resolve to this host are all
//! seen for what they are), and the connection is made to the address judged, never to a
//! second lookup.
//!
//! A *local* address is one of this host: loopback, unspecified (`0.0.0.0`, `::`), their
//! IPv4-mapped forms, link-local, or an address of one of its interfaces. Local destinations
//! are refused unless their port was allowed (`--proxy-allow-local`); the mobilectl API's
//! port, the adb server's port and the proxy's own port are refused on every local address,
//! allowed or not. Other hosts (the internet, the LAN) are reached as the device would.

use std::net::{IpAddr, SocketAddr};

/// The destination was refused; the words say why.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct Blocked(pub String);

/// The rules of one running proxy.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// Ports of local addresses the device may reach.
    allow_local: Vec<u16>,
    /// Ports never reached on a local address, with what they are.
    never: Vec<(u16, &'static str)>,
}

impl Guard {
    /// `api`: the mobilectl API's port; `proxy`: the proxy's; `adb`: the adb server's ports.
    pub fn new(allow_local: &[u16], api: Option<u16>, proxy: u16, adb: &[u16]) -> Guard {
        let mut never = vec![(proxy, "the proxy itself")];
        never.extend(api.map(|p| (p, "the mobilectl API")));
        never.extend(adb.iter().map(|p| (*p, "the adb server")));
        Guard {
            allow_local: allow_local.to_vec(),
            never,
        }
    }

    /// Whether `addr` may be connected to.
    pub fn check(&self, addr: SocketAddr) -> Result<(), Blocked> {
        let ip = canonical(addr.ip());
        let port = addr.port();
        if !is_local(ip) {
            return Ok(());
        }
        if let Some((_, what)) = self.never.iter().find(|(p, _)| *p == port) {
            return Err(Blocked(format!(
                "{addr} is {what} on this host, which the proxy never forwards to"
            )));
        }
        if self.allow_local.contains(&port) {
            return Ok(());
        }
        Err(Blocked(format!(
            "{addr} is on this host, and its port was not allowed (serve --proxy-allow-local {port})"
        )))
    }

    /// The addresses `host:port` resolves to that may be connected to; refused when none may.
    pub async fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let found: Vec<SocketAddr> = tokio::net::lookup_host((host, port)).await?.collect();
        let mut refusal = None;
        let mut ok = Vec::new();
        for a in found {
            match self.check(a) {
                Ok(()) => ok.push(a),
                Err(b) => refusal = Some(b),
            }
        }
        match (ok.is_empty(), refusal) {
            (true, Some(b)) => Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                Blocked(format!("{host}:{port}: {b}")),
            )),
            _ => Ok(ok),
        }
    }
}

/// The IPv4 address of an IPv4-mapped IPv6 address; others unchanged.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// Whether `ip` reaches this host (or its link): see the module documentation.
fn is_local(ip: IpAddr) -> bool {
    let special = match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_unspecified() || v4.is_link_local(),
        IpAddr::V6(v6) => {
            v6.is_loopback()
                || v6.is_unspecified()
                || (v6.segments()[0] & 0xffc0) == 0xfe80
                // IPv4-compatible ::a.b.c.d (deprecated, still routed to IPv4 by some stacks)
                || v6.to_ipv4().is_some_and(|v4| v4.is_loopback() || v4.is_unspecified())
        }
    };
    // An address a socket can be bound to is one of this host's own.
    special || std::net::TcpListener::bind(SocketAddr::new(ip, 0)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn local_addresses_are_refused_unless_their_port_is_allowed() {
        let g = Guard::new(&[3000, 9100, 5037], Some(9100), 9101, &[5037]);
        for s in [
            "127.0.0.1:3001",
            "127.0.0.2:3001",
            "0.0.0.0:3001",
            "[::1]:3001",
            "[::]:3001",
            "[::ffff:127.0.0.1]:3001",
            "[::ffff:0.0.0.0]:3001",
            "169.254.169.254:80",
            "[fe80::1]:80",
        ] {
            assert!(g.check(a(s)).is_err(), "{s}");
        }
        for s in ["127.0.0.1:3000", "[::ffff:127.0.0.1]:3000", "[::1]:3000"] {
            assert!(g.check(a(s)).is_ok(), "{s}");
        }
        // Allowed or not, the API, the adb server and the proxy itself stay out of reach.
        for s in [
            "127.0.0.1:9100",
            "0.0.0.0:5037",
            "[::1]:9101",
            "127.9.9.9:9100",
        ] {
            let e = g.check(a(s)).unwrap_err().0;
            assert!(e.contains("never forwards"), "{s}: {e}");
        }
        // Other hosts are not this one.
        for s in ["192.0.2.1:9100", "[2001:db8::1]:5037", "198.51.100.7:80"] {
            assert!(g.check(a(s)).is_ok(), "{s}");
        }
    }

    #[tokio::test]
    async fn names_are_judged_by_what_they_resolve_to() {
        let g = Guard::new(&[], Some(9100), 9101, &[5037]);
        for host in [
            "localhost",
            "127.1",
            "2130706433",
            "0x7f000001",
            "0",
            "[::1]",
        ] {
            let e = g.resolve(host, 3000).await.unwrap_err();
            assert_eq!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied,
                "{host}: {e}"
            );
        }
        let g = Guard::new(&[3000], Some(9100), 9101, &[5037]);
        assert!(!g.resolve("127.1", 3000).await.unwrap().is_empty());
    }
}
