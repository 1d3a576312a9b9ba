//! Network capture: a recording HTTP(S) proxy inside `mobilectl serve`, built on hyper and
//! rustls. A server-wide service, not a device's: it listens on the host's loopback
//! only (never an open relay), starts on demand, decrypts HTTPS with a CA of its own
//! ([`ca`]), tunnels passthrough hosts untouched, and records every exchange ([`record`])
//! into a bounded store ([`store`]) that the API lists, filters ([`filter`]), summarises
//! ([`summary`]) and streams. Devices are pointed at it by the controller ([`attach`] has the
//! types the backends use). [`rules`] mock, delay, throttle, fail or rewrite requests, and
//! [`conditions`] slow or cut the whole link; [`har`] exports and replays HAR 1.2.

// The product's code never unwraps (tests may: clippy.toml).
#![warn(clippy::unwrap_used)]
// Every public item says what it is (rustdoc).
#![warn(missing_docs)]

pub mod attach;
mod body;
pub mod ca;
pub mod conditions;
pub mod decode;
pub mod filter;
pub mod flow;
pub mod guard;
pub mod har;
mod listen;
mod record;
pub mod rules;
pub mod store;
pub mod summary;
mod tee;
mod tunnel;
pub mod upstream;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rustls::pki_types::CertificateDer;
use serde::Serialize;
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;

use ca::Ca;
use mobilectl_error::{Error, ErrorCode, Op, Result, Step};
use store::{FlowStore, StoreLimits};

/// The port `serve` listens on for the proxy unless told otherwise.
pub const DEFAULT_PORT: u16 = 9101;
/// Bodies are stored up to this many bytes each unless told otherwise.
pub const DEFAULT_BODY_CAP: usize = 1024 * 1024;
/// An upstream that sends nothing for this long is cut.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How the proxy is set up.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Hosts (and their subdomains) tunnelled without decryption.
    pub passthrough: Vec<String>,
    /// How many exchanges, and how many bytes of them, the store keeps.
    pub limits: StoreLimits,
    /// Bytes stored per body.
    pub body_cap: usize,
    /// Longest an upstream may stay silent (connecting, answering, or mid-body).
    pub timeout: Duration,
    /// Where the CA is kept; `None` keeps one in memory for the life of the process.
    pub state_dir: Option<PathBuf>,
    /// Certificates trusted for upstream TLS besides Mozilla's roots.
    pub upstream_roots: Vec<CertificateDer<'static>>,
    /// Ports of this host's own addresses a device may reach through the proxy (a local
    /// backend); every other local destination is refused (see [`guard`]).
    pub allow_local: Vec<u16>,
    /// The adb server's port when it is not adb's default (never reachable through the proxy).
    pub adb_server_port: Option<u16>,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        ProxyOptions {
            port: 0,
            passthrough: Vec::new(),
            limits: StoreLimits::default(),
            body_cap: DEFAULT_BODY_CAP,
            timeout: DEFAULT_TIMEOUT,
            state_dir: None,
            upstream_roots: Vec::new(),
            allow_local: Vec::new(),
            adb_server_port: None,
        }
    }
}

impl ProxyOptions {
    /// Why these options cannot work (checked when the server starts).
    pub fn check(&mut self) -> std::result::Result<(), String> {
        if self.body_cap < 1024 {
            return Err("the body cap is at least 1024 bytes".into());
        }
        if self.limits.max_flows == 0 {
            return Err("the store keeps at least one flow".into());
        }
        if self.limits.max_bytes < 2 * self.body_cap {
            return Err(format!(
                "the store's byte limit ({}) must hold at least two bodies of the cap ({})",
                self.limits.max_bytes, self.body_cap
            ));
        }
        self.passthrough = self
            .passthrough
            .iter()
            .map(|h| passthrough_host(h))
            .collect::<std::result::Result<_, _>>()?;
        Ok(())
    }
}

/// A passthrough entry: a host name (`*.` allowed in front), lowercase, without the `*.`.
pub fn passthrough_host(h: &str) -> std::result::Result<String, String> {
    let h = h.trim().trim_start_matches("*.").to_ascii_lowercase();
    let ok = !h.is_empty()
        && h.len() <= 253
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._:[]".contains(&b));
    if ok {
        Ok(h)
    } else {
        Err(format!(
            "`{h}` is not a host name (e.g. api.example.com or *.example.com)"
        ))
    }
}

/// The proxy's certificate authority, as shown.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CaInfo {
    pub name: String,
    /// SHA-256 fingerprint of the certificate.
    pub sha256: String,
    /// Where it is kept (absent: in memory only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A running proxy, as shown.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// The address it listens on (127.0.0.1 and its port).
    pub address: SocketAddr,
    /// When it started.
    pub started_at: DateTime<Utc>,
    /// Hosts (and their subdomains) tunnelled without decryption, as checked.
    pub passthrough: Vec<String>,
    /// Exchanges under way now.
    pub in_flight: usize,
}

struct Running {
    address: SocketAddr,
    started_at: DateTime<Utc>,
    shared: Arc<record::Shared>,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

/// The proxy service of a server.
pub struct ProxyService {
    opts: ProxyOptions,
    store: Arc<FlowStore>,
    ca: Mutex<Option<Arc<Ca>>>,
    /// The certificate's file for a CA kept in memory (made when a step needs a file).
    ca_temp: Mutex<Option<tempfile::TempDir>>,
    run: tokio::sync::Mutex<Option<Running>>,
    rules: Arc<rules::RuleSet>,
    conditions: Arc<conditions::ConditionsSlot>,
}

impl ProxyService {
    /// A stopped proxy with an empty store, no rules and no conditions; the CA is loaded or
    /// made on first use.
    pub fn new(opts: ProxyOptions) -> ProxyService {
        ProxyService {
            store: Arc::new(FlowStore::new(opts.limits)),
            opts,
            ca: Mutex::new(None),
            ca_temp: Mutex::new(None),
            run: tokio::sync::Mutex::new(None),
            rules: Arc::new(rules::RuleSet::new()),
            conditions: Arc::new(conditions::ConditionsSlot::default()),
        }
    }

    /// The rules requests through the proxy meet (kept while it stops and starts again).
    pub fn rules(&self) -> &rules::RuleSet {
        &self.rules
    }

    /// The link's conditions (kept while it stops and starts again).
    pub fn conditions(&self) -> &conditions::ConditionsSlot {
        &self.conditions
    }

    /// The options it was made with (checked).
    pub fn options(&self) -> &ProxyOptions {
        &self.opts
    }

    /// The store of recorded exchanges (kept while it stops and starts again).
    pub fn store(&self) -> &FlowStore {
        &self.store
    }

    /// The CA, loaded or made on first use.
    pub fn ca(&self) -> Result<Arc<Ca>> {
        let mut slot = self.ca.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ca) = slot.as_ref() {
            return Ok(ca.clone());
        }
        let ca = Arc::new(match &self.opts.state_dir {
            Some(dir) => Ca::load_or_create(dir)?,
            None => Ca::in_memory()?,
        });
        *slot = Some(ca.clone());
        Ok(ca)
    }

    /// The CA as shown, once it was loaded or made.
    pub fn ca_info(&self) -> Option<CaInfo> {
        let slot = self.ca.lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().map(|ca| CaInfo {
            name: ca.name(),
            sha256: ca.fingerprint(),
            path: ca.cert_path().map(|p| p.display().to_string()),
        })
    }

    /// A file holding the CA certificate (the state directory's, or a temporary copy).
    pub fn ca_file(&self) -> Result<PathBuf> {
        let ca = self.ca()?;
        if let Some(p) = ca.cert_path() {
            return Ok(p.to_path_buf());
        }
        let mut temp = self.ca_temp.lock().unwrap_or_else(|e| e.into_inner());
        if temp.is_none() {
            *temp = Some(tempfile::tempdir().map_err(|e| Error::internal(e.to_string()))?);
        }
        let path = temp
            .as_ref()
            .map(|d| d.path().join(ca::CERT_FILE))
            .ok_or_else(|| Error::internal("no temporary folder"))?;
        std::fs::write(&path, ca.cert_pem()).map_err(|e| Error::internal(e.to_string()))?;
        Ok(path)
    }

    /// Starts listening on 127.0.0.1 (`port`, else the configured one) with `passthrough`
    /// hosts added to the configured ones. `own` is the mobilectl API's address, never
    /// forwarded to (nor the adb server, nor the proxy: see [`guard`]).
    /// Already running: nothing changes, and `false` is answered.
    pub async fn start(
        &self,
        port: Option<u16>,
        passthrough: &[String],
        own: Option<SocketAddr>,
    ) -> Result<bool> {
        let mut run = self.run.lock().await;
        if run.is_some() {
            return Ok(false);
        }
        let mut hosts = self.opts.passthrough.clone();
        for h in passthrough {
            let h = passthrough_host(h).map_err(|m| {
                Error::validation(m).with_details(serde_json::json!({ "field": "passthrough" }))
            })?;
            if !hosts.contains(&h) {
                hosts.push(h);
            }
        }
        let ca = self.ca()?;
        let port = port.unwrap_or(self.opts.port);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::AddrInUse {
                    Error::new(ErrorCode::PortInUse, format!("port {port} is taken"))
                        .with_next(
                            "stop what listens there, or start the proxy with another {0} (0: any free one)",
                            [Step::field_of(Op::ProxyStart, "port")],
                        )
                } else {
                    Error::new(ErrorCode::Unknown, format!("cannot listen on 127.0.0.1:{port}: {e}"))
                }
            })?;
        let address = listener
            .local_addr()
            .map_err(|e| Error::internal(e.to_string()))?;
        let guard = guard::Guard::new(
            &self.opts.allow_local,
            own.map(|a| a.port()),
            address.port(),
            &self.adb_ports(),
        );
        let connector =
            upstream::Connector::new(&self.opts.upstream_roots, self.opts.timeout, guard)
                .map_err(|e| Error::internal(format!("upstream TLS: {e}")))?;
        let stop = CancellationToken::new();
        let shared = Arc::new(
            record::Shared::new(
                self.store.clone(),
                connector.clone(),
                Arc::new(ca::LeafIssuer::new(ca.clone())?),
                hosts,
                self.opts.body_cap,
                self.opts.timeout,
                stop.clone(),
            )
            .with_rules(self.rules.clone(), self.conditions.clone()),
        );
        let task = tokio::spawn(listen::serve(
            listener,
            record::Recorder::new(shared.clone()),
            stop.clone(),
        ));
        tracing::info!(%address, "recording proxy listening");
        *run = Some(Running {
            address,
            started_at: Utc::now(),
            shared,
            stop,
            task,
        });
        Ok(true)
    }

    /// The adb server ports never reached: the configured one, `ANDROID_ADB_SERVER_PORT`'s,
    /// and adb's default.
    fn adb_ports(&self) -> Vec<u16> {
        let env = std::env::var("ANDROID_ADB_SERVER_PORT")
            .ok()
            .and_then(|p| p.parse().ok());
        let mut ports: Vec<u16> = [self.opts.adb_server_port, env, Some(5037)]
            .into_iter()
            .flatten()
            .collect();
        ports.dedup();
        ports
    }

    /// Stops listening and ends tunnels; answers whether it was running.
    pub async fn stop(&self) -> bool {
        let Some(r) = self.run.lock().await.take() else {
            return false;
        };
        r.stop.cancel();
        let mut task = r.task;
        if tokio::time::timeout(Duration::from_secs(3), &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
        tracing::info!(address = %r.address, "recording proxy stopped");
        true
    }

    /// The running proxy, if any.
    pub async fn running(&self) -> Option<RunInfo> {
        self.run.lock().await.as_ref().map(|r| RunInfo {
            address: r.address,
            started_at: r.started_at,
            passthrough: r.shared.passthrough.clone(),
            in_flight: r
                .shared
                .in_flight
                .load(std::sync::atomic::Ordering::Relaxed),
        })
    }
}

impl Drop for ProxyService {
    fn drop(&mut self) {
        if let Ok(mut run) = self.run.try_lock() {
            if let Some(r) = run.take() {
                r.stop.cancel();
            }
        }
    }
}
