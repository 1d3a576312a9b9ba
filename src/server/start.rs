//! The whole server from its settings, as `mobilectl serve` starts it: the bind check (no
//! open port without a strong token), the listener, the demo devices, the kept proxy state,
//! around a controller its caller built (the backends are the caller's choice: the server
//! knows none); then serving until SIGINT/SIGTERM, and the clean-up after it (the proxy's
//! attachments undone and recordings finished before the listener closes; live runs ended and
//! demo devices disconnected from adb after).

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::controller::DeviceController;

use super::{demo, security, AppState, SecurityPolicy, ServerOptions};

/// What a server is started with.
pub struct Settings {
    /// The address to listen on.
    pub addr: SocketAddr,
    /// The bearer token every route but /health and the docs needs (`None`: loopback only).
    pub token: Option<String>,
    /// Extra Host names the server answers to.
    pub allow_hosts: Vec<String>,
    /// Browser origins allowed to call the API.
    pub allow_origins: Vec<String>,
    /// The behaviour switches handlers see.
    pub options: ServerOptions,
    /// The devices and everything done to them, with its backends and run store.
    pub controller: DeviceController,
    /// Where the proxy's attachments are kept across a restart.
    pub state_dir: PathBuf,
    /// How many virtual Android devices to start (0: none); the first becomes active.
    pub demo_devices: u8,
    /// The adb server's port for the demo devices (none: adb's own).
    pub adb_server_port: Option<u16>,
}

/// Why the server did not start, or stopped in error.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The settings are unsafe or wrong: nothing was started.
    #[error("{0}")]
    Refused(String),
    /// Starting or serving failed.
    #[error("{0}")]
    Failed(String),
}

/// Starts the server and serves until SIGINT/SIGTERM; prints the address it listens on (and
/// the demo device, with `demo_devices`) to stdout.
pub async fn run(settings: Settings) -> Result<(), StartError> {
    let Settings {
        addr,
        token,
        allow_hosts,
        allow_origins,
        options,
        controller,
        state_dir,
        demo_devices,
        adb_server_port,
    } = settings;
    let token = token.filter(|t| !t.is_empty());
    security::check_bind(addr, token.as_deref()).map_err(StartError::Refused)?;
    let failed = StartError::Failed;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| failed(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener.local_addr().unwrap_or(addr);
    let tools = controller.tools().clone();
    let runs = controller.runs().clone();
    // Kept alive for as long as the server runs.
    let mut demos = Vec::new();
    for _ in 0..demo_devices {
        let d = demo::start(&tools, adb_server_port)
            .await
            .map_err(|msg| failed(format!("--demo: {msg}")))?;
        demos.push(d);
    }
    // Attachments are persisted before a device changes; those a killed server left are
    // restored as their devices are listed (the first listing is started below).
    controller
        .keep_proxy_state_in(&state_dir)
        .map_err(|e| failed(e.message))?;
    if let Some(d) = demos.first() {
        controller.set_active(&d.serial()).await.map_err(|e| {
            failed(format!(
                "--demo: the virtual device is not usable: {}",
                e.message
            ))
        })?;
        println!(
            "demo: virtual Android device {} is the active device (try GET /api/v1/device/ui)",
            d.serial()
        );
    }
    let state = AppState::new(controller, options);
    let policy = SecurityPolicy {
        bound: Some(bound),
        allow_hosts,
        allow_origins,
        token,
    };
    let first = state.controller.clone();
    tokio::spawn(async move { first.list().await });
    // Old runs go at start, as when each run ends.
    let collect = runs.clone();
    tokio::task::spawn_blocking(move || collect.gc(false));
    let router = super::app(state.clone(), policy);
    super::memory::spawn_quiet_trim();
    println!("mobilectl listening on http://{bound} (Swagger UI: http://{bound}/docs)");
    tracing::info!(%bound, "listening");
    // On SIGINT/SIGTERM, first undo what the proxy's attach did to devices and finish the
    // recordings (stopped and finalised, not cut).
    let recordings = state.controller.clone();
    let cleanup = async move {
        tokio::join!(
            recordings.stop_all_recordings(),
            recordings.stop_all_perf_windows(),
            recordings.let_go_of_all(),
            super::routes::proxy::on_shutdown(state)
        );
    };
    let served = super::serve_with_cleanup(listener, router, cleanup).await;
    // Every run still live ends with the server: its result.json, then GC.
    let _ = tokio::task::spawn_blocking(move || runs.end_all()).await;
    for d in &demos {
        demo::disconnect(d, &tools, adb_server_port).await;
    }
    served.map_err(|e| failed(format!("server error: {e}")))
}
