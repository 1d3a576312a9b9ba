//! Devices reached over TCP (`adb connect HOST:PORT`), and who may make the adb server reach
//! out. Nothing a request names is connected to on its own: `POST /api/v1/device/connect` is
//! the one explicit (and logged) way, and a device a request names is reconnected only when
//! this server saw the adb server list it before and adb forgot it since (a restarted adb
//! server, `adb disconnect`). Both reach only loopback addresses unless the user allowed more
//! (`serve --adb-connect-allow CIDR`); a refusal happens before any packet is sent.

use std::collections::HashSet;
use std::net::IpAddr;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;

use super::devices::is_network_serial;
use super::{AdbBackend, QUICK_TIMEOUT};
use crate::backend::Connect;
use crate::error::{Error, ErrorCode, Op, Result, Step};

/// An address block, `192.168.1.0/24` or `fd00::/8` (a bare address is one host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    net: IpAddr,
    prefix: u8,
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (addr, prefix) = match s.trim().split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s.trim(), None),
        };
        let net: IpAddr = addr
            .parse()
            .map_err(|_| format!("`{s}` is not an address block (e.g. 192.168.1.0/24)"))?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("`{s}`: the prefix length is 0 to {max}"))?,
        };
        Ok(Cidr { net, prefix })
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.net, self.prefix)
    }
}

impl Cidr {
    /// Whether `ip` is inside this block.
    pub fn contains(&self, ip: IpAddr) -> bool {
        fn bits(a: &[u8], b: &[u8], prefix: u8) -> bool {
            let (whole, rest) = ((prefix / 8) as usize, prefix % 8);
            a[..whole] == b[..whole]
                && (rest == 0 || (a[whole] ^ b[whole]) & (0xffu8 << (8 - rest)) == 0)
        }
        match (self.net, canonical(ip)) {
            (IpAddr::V4(n), IpAddr::V4(i)) => bits(&n.octets(), &i.octets(), self.prefix),
            (IpAddr::V6(n), IpAddr::V6(i)) => bits(&n.octets(), &i.octets(), self.prefix),
            _ => false,
        }
    }
}

/// An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is that IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// Where the adb server may be sent: loopback always, and the blocks the user allowed.
#[derive(Debug, Clone, Default)]
pub struct ConnectPolicy {
    /// The address blocks allowed besides loopback (`--adb-connect-allow`).
    pub allow: Vec<Cidr>,
}

impl ConnectPolicy {
    /// Whether `connect` may reach `ip`: loopback, or an address in an allowed block.
    pub fn allows(&self, ip: IpAddr) -> bool {
        canonical(ip).is_loopback() || self.allow.iter().any(|c| c.contains(ip))
    }
}

/// Checks a host as given to `connect`: an IP address, or a hostname (letters, digits,
/// hyphens and dots; labels of 1–63 characters, 253 in all).
pub fn check_host(host: &str) -> Result<()> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.parse::<IpAddr>().is_ok() {
        return Ok(());
    }
    let label_ok = |l: &str| {
        (1..=63).contains(&l.len())
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let name = host.strip_suffix('.').unwrap_or(host);
    if !name.is_empty() && name.len() <= 253 && name.split('.').all(label_ok) {
        return Ok(());
    }
    Err(
        Error::validation(format!("`{host}` is neither an IP address nor a hostname")).with_next(
            "give {0} as an address (192.168.1.20, ::1) or a name (pixel.local), and {1} apart",
            [
                Step::field_of(Op::ConnectDevice, "host"),
                Step::field_of(Op::ConnectDevice, "port"),
            ],
        ),
    )
}

/// `HOST:PORT` as adb writes it (IPv6 in brackets).
fn serial_of(ip: IpAddr, port: u16) -> String {
    std::net::SocketAddr::new(ip, port).to_string()
}

/// The refusal of an address outside what the user allowed.
fn refused(host: &str, ip: IpAddr, port: u16) -> Error {
    Error::new(
        ErrorCode::Forbidden,
        format!(
            "connecting adb to {} is not allowed: only loopback addresses are, unless the server \
             allows more",
            serial_of(ip, port)
        ),
    )
    .with_hint(format!(
        "start the server with `--adb-connect-allow {}` (or a block that holds it) to let adb \
         connect there, or run `adb connect` yourself",
        Cidr {
            net: canonical(ip),
            prefix: if canonical(ip).is_ipv4() { 32 } else { 128 }
        }
    ))
    .with_details(
        json!({ "host": host, "address": ip.to_string(), "port": port, "reason": "not_allowed" }),
    )
}

/// What adb said when it could not connect, as a typed error.
fn connect_failure(serial: &str, said: &str) -> Error {
    let low = said.to_ascii_lowercase();
    let (code, reason, hint) = if low.contains("refused") {
        (
            ErrorCode::DeviceUnreachable,
            "refused",
            "nothing listens there: on the phone, enable wireless debugging (or `adb tcpip 5555` \
             over USB) and check the port",
        )
    } else if low.contains("timed out") || low.contains("timeout") {
        (
            ErrorCode::Timeout,
            "timeout",
            "the address did not answer: check that the phone is on and on the same network",
        )
    } else if low.contains("unreachable") || low.contains("no route") {
        (
            ErrorCode::DeviceUnreachable,
            "unreachable",
            "there is no route to that address from this machine: check the network",
        )
    } else if low.contains("resolve") {
        (
            ErrorCode::NotFound,
            "unresolved",
            "the name does not resolve: give the phone's IP address",
        )
    } else {
        (
            ErrorCode::CommandFailed,
            "failed",
            "see `details.output` for what adb said",
        )
    };
    Error::new(
        code,
        format!("adb could not connect to {serial}: {}", said.trim()),
    )
    .with_hint(hint)
    .with_details(json!({ "serial": serial, "reason": reason, "output": said.trim() }))
}

/// How long the name of a host given to `connect` may take to resolve.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);

impl AdbBackend {
    /// Remembers the network serials the adb server lists: only those are ever reconnected.
    pub(super) fn saw(&self, serials: impl IntoIterator<Item = String>) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.extend(serials.into_iter().filter(|s| is_network_serial(s)));
        }
    }

    fn was_seen(&self, serial: &str) -> bool {
        self.seen.lock().is_ok_and(|s| s.contains(serial))
    }

    /// The serials seen so far (tests).
    pub fn seen_serials(&self) -> HashSet<String> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Waits (bounded) until adb can use a transport that just came up.
    async fn wait_for(&self, serial: &str) -> bool {
        let Ok(cmd) = self.adb_for(serial) else {
            return false;
        };
        let wait = cmd.arg("wait-for-device").timeout(QUICK_TIMEOUT);
        self.run(wait).await.is_ok_and(|o| o.success())
    }

    /// The first address of `host` (the address is then checked, and connected to as such:
    /// what was checked is what adb reaches).
    async fn resolve_host(&self, host: &str, port: u16) -> Result<IpAddr> {
        let lookup = tokio::net::lookup_host((host, port));
        match tokio::time::timeout(RESOLVE_TIMEOUT, lookup).await {
            Ok(Ok(mut addrs)) => addrs.next().map(|a| a.ip()).ok_or_else(|| {
                connect_failure(&format!("{host}:{port}"), "cannot resolve host: no address")
            }),
            Ok(Err(e)) => Err(connect_failure(
                &format!("{host}:{port}"),
                &format!("cannot resolve host: {e}"),
            )),
            Err(_) => Err(Error::new(
                ErrorCode::Timeout,
                format!("resolving `{host}` took longer than {RESOLVE_TIMEOUT:?}"),
            )
            .with_details(json!({ "reason": "timeout" }))
            .with_hint("give the phone's IP address")),
        }
    }
}

#[async_trait]
impl Connect for AdbBackend {
    /// The explicit `adb connect HOST:PORT`: checked, resolved and refused outside the allowed
    /// addresses before anything is sent; answers the serial adb lists it under and whether it
    /// was connected already.
    async fn connect(&self, host: &str, port: u16) -> Result<(String, bool)> {
        check_host(host)?;
        if port == 0 {
            return Err(Error::validation("`port` is 1 to 65535").with_hint(
                "adb's wireless debugging port is shown on the phone; 5555 after `adb tcpip`",
            ));
        }
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let ip = match bare.parse::<IpAddr>() {
            Ok(ip) => ip,
            Err(_) => self.resolve_host(host, port).await?,
        };
        if !self.connect_policy.allows(ip) {
            tracing::warn!(host, %ip, port, "adb connect refused: address not allowed");
            return Err(refused(host, ip, port));
        }
        let serial = serial_of(canonical(ip), port);
        tracing::info!(host, serial, "adb connect");
        let cmd = self
            .adb()?
            .args(["connect", &serial])
            .timeout(QUICK_TIMEOUT + Duration::from_secs(5));
        let out = self.run(cmd).await?;
        let said = format!("{}{}", out.stdout_text(), out.stderr_text());
        let already = said.contains("already connected");
        if !said.contains("connected to") || said.contains("failed to connect") {
            return Err(connect_failure(&serial, &said));
        }
        self.saw([serial.clone()]);
        // A device that stays unauthorized never gets there; it is answered as listed anyway.
        self.wait_for(&serial).await;
        Ok((serial, already))
    }

    /// `adb connect HOST:PORT` for a network device that the adb server listed before, in this
    /// server's life, and forgot since (a restarted adb server, `adb disconnect`), when its
    /// address is allowed. Anything else is not reached: `false`.
    async fn reconnect(&self, serial: &str) -> Result<bool> {
        if !is_network_serial(serial) || !self.was_seen(serial) {
            return Ok(false);
        }
        let Ok(addr) = serial.parse::<std::net::SocketAddr>() else {
            return Ok(false);
        };
        if !self.connect_policy.allows(addr.ip()) {
            return Ok(false);
        }
        tracing::info!(serial, "reconnecting a device adb forgot");
        let cmd = self.adb()?.args(["connect", serial]).timeout(QUICK_TIMEOUT);
        let out = self.run(cmd).await?;
        if !(out.success() && out.stdout_text().contains("connected to")) {
            return Ok(false);
        }
        Ok(self.wait_for(serial).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn blocks_parse_and_contain() {
        let c: Cidr = "192.168.1.0/24".parse().unwrap();
        assert!(c.contains(ip("192.168.1.77")));
        assert!(c.contains(ip("::ffff:192.168.1.77")));
        assert!(!c.contains(ip("192.168.2.1")));
        let one: Cidr = "10.0.0.5".parse().unwrap();
        assert_eq!(one.to_string(), "10.0.0.5/32");
        assert!(one.contains(ip("10.0.0.5")) && !one.contains(ip("10.0.0.6")));
        let odd: Cidr = "10.0.0.0/13".parse().unwrap();
        assert!(odd.contains(ip("10.7.255.255")) && !odd.contains(ip("10.8.0.0")));
        let v6: Cidr = "fd00::/8".parse().unwrap();
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        assert!("0.0.0.0/0".parse::<Cidr>().unwrap().contains(ip("8.8.8.8")));
        assert!("10.0.0.0/33".parse::<Cidr>().is_err());
        assert!("pixel.local/24".parse::<Cidr>().is_err());
    }

    #[test]
    fn loopback_is_always_allowed_the_rest_only_when_listed() {
        let none = ConnectPolicy::default();
        assert!(none.allows(ip("127.0.0.1")) && none.allows(ip("127.9.9.9")));
        assert!(none.allows(ip("::1")) && none.allows(ip("::ffff:127.0.0.1")));
        assert!(!none.allows(ip("192.0.2.1")) && !none.allows(ip("0.0.0.0")));
        let lan = ConnectPolicy {
            allow: vec!["192.0.2.0/24".parse().unwrap()],
        };
        assert!(lan.allows(ip("192.0.2.9")) && !lan.allows(ip("198.51.100.1")));
    }

    #[test]
    fn hosts_are_addresses_or_names() {
        for ok in [
            "127.0.0.1",
            "::1",
            "[::1]",
            "pixel.local",
            "a-b.example.",
            "localhost",
        ] {
            assert!(check_host(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "-a.example",
            "a b",
            "a..b",
            "host:5555",
            "$(reboot)",
            "a;b",
            &"x".repeat(64),
        ] {
            let e = check_host(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationFailed, "{bad}");
        }
    }

    #[test]
    fn adb_words_become_codes() {
        let refused = connect_failure(
            "127.0.0.1:1",
            "failed to connect to '127.0.0.1:1': Connection refused\n",
        );
        assert_eq!(refused.code, ErrorCode::DeviceUnreachable);
        assert_eq!(refused.details.unwrap()["reason"], "refused");
        let t = connect_failure(
            "10.0.0.1:5555",
            "failed to connect to 10.0.0.1:5555: Connection timed out",
        );
        assert_eq!(t.code, ErrorCode::Timeout);
        let u = connect_failure(
            "10.0.0.1:5555",
            "failed to connect to 10.0.0.1:5555: No route to host",
        );
        assert_eq!(u.details.unwrap()["reason"], "unreachable");
        let n = connect_failure(
            "nohost:5555",
            "cannot resolve host: failed to lookup address",
        );
        assert_eq!(n.code, ErrorCode::NotFound);
    }
}
