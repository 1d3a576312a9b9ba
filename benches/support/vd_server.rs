//! What the Android benches share: the virtual device of a bench run (a subprocess of the
//! release binary, behind a private adb server) and the server, in process, on a free port.

use mobilectl::backend::BackendConfig;
use mobilectl::controller::DeviceController;
use mobilectl::exec::{Tool, Toolbox};
use mobilectl::server::{self, AppState, SecurityPolicy, ServerOptions};
use virtual_device::testing::VdHarness;

/// The median of `v`.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The virtual device of `bench`, or `None` under `cargo test` (the bench only builds then).
/// The device runs `MOBILECTL_BIN`, default `target/release/mobilectl`.
pub fn device(bench: &str) -> Option<VdHarness> {
    if !std::env::args().any(|a| a == "--bench") {
        println!("{bench}: skipped (run with cargo bench)");
        return None;
    }
    let bin = std::env::var("MOBILECTL_BIN").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/mobilectl").into()
    });
    Some(VdHarness::start(&bin, &[]).expect("virtual device (build the release binary first)"))
}

/// The server for `h`'s device, serving on a free loopback port: its address and state.
#[allow(dead_code)] // Not every bench including this file serves without a files root.
pub async fn serve(h: &VdHarness) -> (std::net::SocketAddr, AppState) {
    serve_rooted(h, None).await
}

/// [`serve`], with `files_root` as the server's files root.
pub async fn serve_rooted(
    h: &VdHarness,
    files_root: Option<std::path::PathBuf>,
) -> (std::net::SocketAddr, AppState) {
    let controller = DeviceController::new(BackendConfig {
        tools: Toolbox::with([(Tool::Adb, h.adb.clone())]),
        adb_server_port: Some(h.adb_port),
        ..Default::default()
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let options = ServerOptions {
        files_root,
        ..Default::default()
    };
    let state = AppState::new(controller, options);
    let policy = SecurityPolicy {
        bound: Some(addr),
        ..Default::default()
    };
    let app = server::app(state.clone(), policy);
    tokio::spawn(server::serve(listener, app));
    (addr, state)
}
