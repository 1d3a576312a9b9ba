//! The device's listening sockets: a device-wide table from what a process on the device
//! listens on — a TCP port (`tcp:6790`) or an abstract Unix socket name
//! (`localabstract:chrome_devtools_remote`) — to the endpoint inside the device process that
//! stands for it (a loopback listener the device owns).
//!
//! `adb forward tcp:H tcp:6790` opens a stream with service `tcp:6790` on the device; the
//! service (see `services::connect`) looks the name up here, connects to the endpoint and
//! relays. A name nobody listens on is refused, as adbd refuses when its `connect` fails.
//! A listener holds its name through a [`Binding`]; dropping it frees the name.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};

type Table = BTreeMap<String, (u64, SocketAddr)>;

/// The table of listening sockets (cheap to clone: every clone is the same table).
#[derive(Clone, Default)]
pub struct Sockets(Arc<Mutex<Table>>);

/// Someone already listens on that name (`EADDRINUSE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InUse;

static NEXT_BINDING: AtomicU64 = AtomicU64::new(1);

/// A name held by one listener; the name is free again once this is dropped.
pub struct Binding {
    table: Sockets,
    name: String,
    id: u64,
}

impl Drop for Binding {
    fn drop(&mut self) {
        let mut t = self.table.lock();
        if t.get(&self.name).is_some_and(|(id, _)| *id == self.id) {
            t.remove(&self.name);
        }
    }
}

/// The table's key for a socket name: `tcp:PORT` (a port number, no host) or
/// `localabstract:NAME`; `None` for anything else.
pub fn normalise(spec: &str) -> Option<String> {
    if let Some(port) = spec.strip_prefix("tcp:") {
        let port: u16 = port.parse().ok().filter(|p| *p > 0)?;
        return Some(format!("tcp:{port}"));
    }
    match spec.strip_prefix("localabstract:") {
        Some(name) if !name.is_empty() => Some(spec.to_string()),
        _ => None,
    }
}

impl Sockets {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Listens on `spec` (`tcp:6790`, `localabstract:NAME`) through `endpoint`.
    pub fn bind(&self, spec: &str, endpoint: SocketAddr) -> Result<Binding, InUse> {
        let name = normalise(spec).ok_or(InUse)?;
        let mut t = self.lock();
        if t.contains_key(&name) {
            return Err(InUse);
        }
        let id = NEXT_BINDING.fetch_add(1, Ordering::Relaxed);
        t.insert(name.clone(), (id, endpoint));
        Ok(Binding {
            table: self.clone(),
            name,
            id,
        })
    }

    /// The endpoint standing for `spec`, when something listens on it.
    pub fn lookup(&self, spec: &str) -> Option<SocketAddr> {
        let name = normalise(spec)?;
        self.lock().get(&name).map(|(_, addr)| *addr)
    }

    /// The abstract socket names listened on (`webview_devtools_remote_4242`), sorted.
    pub fn abstract_names(&self) -> Vec<String> {
        self.lock()
            .keys()
            .filter_map(|k| k.strip_prefix("localabstract:").map(str::to_string))
            .collect()
    }

    /// `{"tcp:6790": "127.0.0.1:41234"}`
    pub fn json(&self) -> Value {
        Value::Object(
            self.lock()
                .iter()
                .map(|(k, (_, a))| (k.clone(), json!(a.to_string())))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_held_until_its_binding_goes() {
        let s = Sockets::default();
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let b = s.bind("tcp:6790", addr).unwrap();
        assert_eq!(s.bind("tcp:6790", addr).err(), Some(InUse));
        assert_eq!(s.lookup("tcp:6790"), Some(addr));
        assert_eq!(s.lookup("tcp:6791"), None);
        drop(b);
        assert_eq!(s.lookup("tcp:6790"), None);
        let _a = s
            .bind("localabstract:chrome_devtools_remote", addr)
            .unwrap();
        assert_eq!(s.lookup("localabstract:chrome_devtools_remote"), Some(addr));
        assert_eq!(normalise("tcp:0"), None);
        assert_eq!(normalise("localabstract:"), None);
    }
}
