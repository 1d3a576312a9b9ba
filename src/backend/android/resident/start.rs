//! Starting and stopping one device's UiAutomator2 server: whether its packages are installed
//! and whether another tool's server already runs (one shell call), the instrumentation
//! started as Appium starts it (`am instrument -w`, kept running by a watcher that notices
//! when it ends), a host port forwarded to the device's 6790 (`adb forward tcp:0`), the wait
//! until `/status` says ready (bounded), then a session with mobilectl's settings. Stopping
//! undoes each step for a server this module started, and nothing for one it did not.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use serde_json::Value;
use tokio::time::Instant;

use super::protocol::{self, Refusal, DEVICE_PORT, INSTRUMENTATION, SERVER_PACKAGE, TEST_PACKAGE};
use crate::backend::android::{AdbBackend, QUICK_TIMEOUT};
use crate::exec::{HttpClient, HttpError, HttpRequest};

/// How long a server may take from `am instrument` to ready (a real phone's first start
/// takes a few seconds; the JVM and the accessibility connection come up).
pub const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Time limit of one request to a running server. A read of a busy screen takes well under a
/// second on the server; past this the server is taken for hung and the one-shot tools read.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(8);
/// Time limit of the requests that stop a server.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// Why there is no server to use on a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Absent {
    /// Its packages are not installed (`mobilectl helper install` installs them).
    NotInstalled,
    /// Another tool's server runs there (Appium, another mobilectl): left alone.
    Foreign {
        /// Its process id on the device.
        pid: String,
    },
    /// It was started and failed (or failed later): the words why.
    Failed(String),
}

impl std::fmt::Display for Absent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Absent::NotInstalled => write!(f, "the UiAutomator2 server is not installed"),
            Absent::Foreign { pid } => write!(
                f,
                "another tool's UiAutomator2 server runs on the device (pid {pid}): left to it"
            ),
            Absent::Failed(why) => write!(f, "{why}"),
        }
    }
}

/// What one shell call says about the device: the instrumentation listed, the server's pid.
#[derive(Debug, PartialEq, Eq)]
pub struct Probe {
    /// `cmd package list instrumentation` lists the server's.
    pub installed: bool,
    /// `pidof` found a server process.
    pub running: Option<String>,
}

const PROBE_MARKER: &str = "__MOBILECTL_PIDOF__";

/// The probe's device script.
pub fn probe_script() -> String {
    format!(
        "cmd package list instrumentation 2>/dev/null; echo {PROBE_MARKER}; \
         pidof {SERVER_PACKAGE} 2>/dev/null"
    )
}

/// Reads the probe script's output.
pub fn parse_probe(out: &str) -> Probe {
    let (listed, pids) = out.split_once(PROBE_MARKER).unwrap_or((out, ""));
    Probe {
        installed: listed.lines().any(|l| {
            l.trim()
                .strip_prefix("instrumentation:")
                .is_some_and(|r| r.starts_with(INSTRUMENTATION))
        }),
        running: pids.split_whitespace().next().map(str::to_string),
    }
}

/// A running server this module started.
#[derive(Debug)]
pub struct Server {
    /// The device's serial.
    pub serial: String,
    /// `http://127.0.0.1:PORT`, the host end of the forward.
    pub base: String,
    /// The host port forwarded to the device's 6790.
    pub host_port: u16,
    /// The server's session.
    pub session: String,
    /// The server's version, as its status said.
    pub version: Option<String>,
    /// Set when the instrumentation ended on its own (a crash, a force-stop by someone).
    pub ended: Arc<AtomicBool>,
    /// The watcher of `am instrument -w`; aborting it drops (kills) the local adb client.
    watcher: tokio::task::JoinHandle<()>,
}

impl Server {
    /// Whether the instrumentation was seen to end.
    pub fn has_ended(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
    }

    /// `/session/ID/…`.
    pub fn path(&self, rest: &str) -> String {
        format!("{}/session/{}{rest}", self.base, self.session)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

/// Why a request to the server brought no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The server answered with an error about this request (`no such element` when no field
    /// has focus…): it works, it could not do this.
    Refused {
        /// The W3C error name.
        error: String,
        /// The request and the server's words.
        text: String,
    },
    /// No answer, an answer that is not the server's, a hang: it cannot be relied on.
    Broken(String),
}

impl CallError {
    /// Whether the server can no longer be relied on: anything but a refusal of this one
    /// request. A lost session (`invalid session id`: the server restarted, or another client
    /// replaced it) counts as broken.
    pub fn breaks_server(&self) -> bool {
        match self {
            CallError::Refused { error, .. } => error == "invalid session id",
            CallError::Broken(_) => true,
        }
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Refused { text, .. } | CallError::Broken(text) => write!(f, "{text}"),
        }
    }
}

/// One request; the answer's value, or why not.
pub async fn call(
    http: &HttpClient,
    method: Method,
    url: String,
    body: Option<&Value>,
    timeout: Duration,
) -> Result<Value, CallError> {
    let mut req = HttpRequest::new(method, url).timeout(timeout).any_status();
    if let Some(b) = body {
        req = req.json(b);
    }
    match http.send(&req).await {
        Ok(resp) => protocol::read_answer(&resp.body).map_err(|r| match &r {
            Refusal::Error { error, .. } => CallError::Refused {
                error: error.clone(),
                text: format!("the server refused `{}`: {r}", req.display()),
            },
            Refusal::Garbled(_) => CallError::Broken(format!("`{}`: {r}", req.display())),
        }),
        Err(e @ HttpError::Timeout { .. }) => {
            Err(CallError::Broken(format!("the server hung: {e}")))
        }
        Err(e) => Err(CallError::Broken(e.to_string())),
    }
}

impl AdbBackend {
    /// Whether the server can be started on `serial`, and whether one runs.
    pub(super) async fn probe_helper(&self, serial: &str) -> Result<Probe, String> {
        let out = self
            .shell_any(serial, &probe_script(), QUICK_TIMEOUT)
            .await
            .map_err(|e| e.message)?;
        Ok(parse_probe(&out.stdout_text()))
    }

    /// Starts the server on `serial` (installed, and none running there).
    pub(super) async fn start_helper(
        &self,
        http: &HttpClient,
        serial: &str,
    ) -> Result<Server, Absent> {
        let failed = |why: String| Absent::Failed(why);
        let cmd = self
            .adb_for(serial)
            .map_err(|e| failed(e.message))?
            .args([
                "shell",
                "am",
                "instrument",
                "-w",
                "-e",
                "disableAnalytics",
                "true",
            ])
            .arg(INSTRUMENTATION);
        let mut child = cmd.spawn_lines().await.map_err(|e| failed(e.to_string()))?;
        let ended = Arc::new(AtomicBool::new(false));
        let (said_tx, mut said) = tokio::sync::watch::channel(String::new());
        let flag = ended.clone();
        let watcher = tokio::spawn(async move {
            let mut words = String::new();
            while let Some(line) = child.next_line().await {
                let text = String::from_utf8_lossy(&line.bytes).into_owned();
                tracing::debug!(line = %text, "am instrument");
                if words.len() < 2000 {
                    words.push_str(&text);
                    words.push('\n');
                }
            }
            flag.store(true, Ordering::Relaxed);
            let _ = said_tx.send(words);
        });
        let mut server = Server {
            serial: serial.to_string(),
            base: String::new(),
            host_port: 0,
            session: String::new(),
            version: None,
            ended,
            watcher,
        };
        let result = self.bring_up(http, &mut server, &mut said).await;
        match result {
            Ok(()) => Ok(server),
            Err(why) => {
                self.stop_helper(http, &server).await;
                Err(failed(why))
            }
        }
    }

    /// Forward, wait for ready, open the session and set it up.
    async fn bring_up(
        &self,
        http: &HttpClient,
        server: &mut Server,
        said: &mut tokio::sync::watch::Receiver<String>,
    ) -> Result<(), String> {
        let out = self
            .run(
                self.adb_for(&server.serial)
                    .map_err(|e| e.message)?
                    .args(["forward", "tcp:0", &format!("tcp:{DEVICE_PORT}")])
                    .timeout(QUICK_TIMEOUT),
            )
            .await
            .map_err(|e| e.message)?;
        server.host_port = out.stdout_text().trim().parse().map_err(|_| {
            format!(
                "adb forward did not say its port: {}",
                out.stdout_text().trim()
            )
        })?;
        server.base = format!("http://127.0.0.1:{}", server.host_port);
        let deadline = Instant::now() + START_TIMEOUT;
        let mut last;
        loop {
            if server.has_ended() {
                let words = said.borrow_and_update().clone();
                return Err(format!(
                    "the instrumentation ended before the server was ready: {}",
                    words.trim()
                ));
            }
            match call(
                http,
                Method::GET,
                format!("{}/status", server.base),
                None,
                Duration::from_secs(2),
            )
            .await
            {
                Ok(v) if protocol::status(&v).0 => {
                    server.version = protocol::status(&v).1;
                    break;
                }
                Ok(_) => last = "the server says it is not ready".into(),
                Err(e) => last = e.to_string(),
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "the server was not ready within {} s: {last}",
                    START_TIMEOUT.as_secs()
                ));
            }
            // Ready is the server's answer, polled; the instrumentation ending wakes it too.
            let _ = tokio::time::timeout(Duration::from_millis(100), said.changed()).await;
        }
        let opened = call(
            http,
            Method::POST,
            format!("{}/session", server.base),
            Some(&protocol::new_session()),
            START_TIMEOUT,
        )
        .await
        .map_err(|e| e.to_string())?;
        server.session = protocol::session_id(&opened)
            .ok_or_else(|| format!("the server opened a session without its id: {opened}"))?;
        call(
            http,
            Method::POST,
            server.path("/appium/settings"),
            Some(&protocol::settings()),
            REQUEST_TIMEOUT,
        )
        .await
        .map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Stops a server this module started: its session (the server then stops itself), its
    /// packages force-stopped (a hung server too), the forward removed, the watcher's adb
    /// client killed. Failures are logged: what can be undone is.
    pub(super) async fn stop_helper(&self, http: &HttpClient, server: &Server) {
        if !server.session.is_empty() && !server.has_ended() {
            let url = format!("{}/session/{}", server.base, server.session);
            if let Err(e) = call(http, Method::DELETE, url, None, STOP_TIMEOUT).await {
                tracing::debug!(serial = %server.serial, error = %e, "UiAutomator2 session not deleted");
            }
        }
        let script = format!("am force-stop {SERVER_PACKAGE}; am force-stop {TEST_PACKAGE}");
        if let Err(e) = self.shell_any(&server.serial, &script, QUICK_TIMEOUT).await {
            tracing::warn!(serial = %server.serial, error = %e.message, "UiAutomator2 server not force-stopped");
        }
        if server.host_port != 0 {
            if let Ok(cmd) = self.adb_for(&server.serial) {
                let cmd = cmd
                    .args(["forward", "--remove", &format!("tcp:{}", server.host_port)])
                    .timeout(QUICK_TIMEOUT);
                let _ = self.run(cmd).await;
            }
        }
        server.watcher.abort();
        tracing::info!(serial = %server.serial, "UiAutomator2 server stopped");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_keeps_the_server_anything_else_breaks_it() {
        let refused = |error: &str| CallError::Refused {
            error: error.into(),
            text: String::new(),
        };
        assert!(!refused("no such element").breaks_server());
        assert!(!refused("invalid argument").breaks_server());
        assert!(refused("invalid session id").breaks_server());
        assert!(CallError::Broken("the server hung".into()).breaks_server());
    }

    #[test]
    fn the_probe_reads_the_listing_and_the_pid() {
        let out = "instrumentation:com.example.test/androidx.test.runner.AndroidJUnitRunner (target=com.example)\n\
                   instrumentation:io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner (target=io.appium.uiautomator2.server)\n\
                   __MOBILECTL_PIDOF__\n4242\n";
        assert_eq!(
            parse_probe(out),
            Probe {
                installed: true,
                running: Some("4242".into())
            }
        );
        assert_eq!(
            parse_probe("instrumentation:com.example.test/x.Runner (target=com.example)\n__MOBILECTL_PIDOF__\n"),
            Probe {
                installed: false,
                running: None
            }
        );
        // A device without `cmd package` prints nothing before the marker.
        assert!(!parse_probe("__MOBILECTL_PIDOF__\n").installed);
    }
}
