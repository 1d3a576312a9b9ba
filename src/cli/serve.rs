//! `mobilectl serve`: the server's settings from flags and environment; `crate::server::start`
//! starts it (refusing unsafe setups, such as a non-loopback bind without a token) and serves
//! until SIGINT/SIGTERM.

use std::net::SocketAddr;

use clap::Args;

use crate::backend::wda::{EndpointSpec, WdaConfig};
use crate::backend::BackendConfig;
use crate::controller::DeviceController;
use crate::exec::Toolbox;
use crate::proxy::ProxyOptions;
use crate::server::start::{self, Settings, StartError};
use crate::server::ServerOptions;

/// Flags of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "MOBILECTL_ADDR", default_value = "127.0.0.1:9100")]
    pub addr: SocketAddr,
    /// Bearer token required on every route but /health and the docs. Mandatory when --addr
    /// is not a loopback address.
    #[arg(long, env = "MOBILECTL_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Extra Host names the server answers to (repeatable).
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// Browser origins allowed to call the API, with CORS (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Allow open-url with any scheme (javascript:, file:, content:…).
    #[arg(long)]
    pub allow_any_url_scheme: bool,
    /// The directory files are pushed from and pulled into (default: the working directory).
    #[arg(long = "files-root", value_name = "DIR")]
    pub files_root: Option<std::path::PathBuf>,
    /// The folder apps are built under (`app build`): a build runs the project's own build
    /// scripts (Gradle, Xcode), so only projects under it are built. Default: no builds.
    #[arg(long = "build-root", value_name = "DIR")]
    pub build_root: Option<std::path::PathBuf>,
    /// A token that lets a request (`Mobilectl-Admin: TOKEN`) see and change what every session
    /// made (recordings, runs, proxy rules, link conditions); without it each caller sees its
    /// own only.
    #[arg(long, env = "MOBILECTL_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Port of the adb server to use (default: adb's own, 5037 or ANDROID_ADB_SERVER_PORT).
    #[arg(long, env = "MOBILECTL_ADB_SERVER_PORT")]
    pub adb_server_port: Option<u16>,
    /// An address block (`192.168.1.0/24`, or one address) besides loopback that adb may be
    /// sent to: by `POST /api/v1/device/connect`, and to reconnect a device it listed
    /// before (repeatable). Without it adb is never sent off this machine.
    #[arg(long = "adb-connect-allow", value_name = "CIDR")]
    pub adb_connect_allow: Vec<crate::backend::android::connect::Cidr>,
    /// Whether Android devices with the UiAutomator2 server installed (`helper install`) are
    /// read and driven through it: `auto` (default) starts it when first needed, `off` keeps
    /// to `uiautomator dump` and `input`.
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        env = "MOBILECTL_ANDROID_HELPER"
    )]
    pub android_helper: crate::backend::android::resident::HelperUse,
    /// Also start a virtual Android device running a small demo app, connect adb to it and
    /// make it the active device: every Android route can be tried without a phone.
    #[arg(long)]
    pub demo: bool,
    /// With --demo: how many virtual devices to start (1–8), to try sessions and leases; the
    /// first is the active one.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "demo",
          value_parser = clap::value_parser!(u8).range(1..=8))]
    pub demo_devices: u8,
    /// A WebDriverAgent endpoint of an iOS device, `[UDID=]URL` (repeatable; the variable is
    /// comma-separated), e.g. `00008130-000A1C2E3C41001C=http://127.0.0.1:8100` after
    /// `iproxy 8100 8100`. The UDID ties it to the phone devicectl lists.
    #[arg(
        long = "wda",
        env = "MOBILECTL_WDA",
        value_name = "[UDID=]URL",
        value_delimiter = ','
    )]
    pub wda: Vec<String>,
    /// Time limit of one UI read through WebDriverAgent (`GET /source`), in milliseconds.
    #[arg(long, env = "MOBILECTL_WDA_SOURCE_TIMEOUT_MS", default_value_t = 20_000,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub wda_source_timeout_ms: u64,
    /// Length of one Android `screenrecord` file, seconds; longer recordings chain files
    /// into one MP4. Most devices allow at most 180.
    #[arg(long, env = "MOBILECTL_ANDROID_RECORD_SEGMENT_S", default_value_t = 180,
          value_parser = clap::value_parser!(u64).range(1..=180))]
    pub android_record_segment_s: u64,
    /// The cache directory runs and their artifacts go to (`<DIR>/runs/<id>/`; default
    /// `$XDG_CACHE_HOME/mobilectl`, else the platform's cache folder: `~/.cache/mobilectl`,
    /// `~/Library/Caches/mobilectl` on macOS, `%LOCALAPPDATA%\mobilectl` on Windows). GC: `MOBILECTL_GC_KEEP_LAST`,
    /// `MOBILECTL_GC_KEEP_FAILURE_DAYS`, `MOBILECTL_GC_MAX_BYTES`.
    #[arg(long = "cache-dir", env = "MOBILECTL_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<std::path::PathBuf>,
    /// Settings of the recording proxy.
    #[command(flatten)]
    pub proxy: ProxyArgs,
}

/// Settings of the recording proxy (network capture).
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Port of the recording proxy on 127.0.0.1 (started on demand; 0: any free port).
    #[arg(long, env = "MOBILECTL_PROXY_PORT", default_value_t = crate::proxy::DEFAULT_PORT)]
    pub proxy_port: u16,
    /// Host tunnelled through the proxy without decryption, with its subdomains (repeatable;
    /// for apps that pin certificates).
    #[arg(long = "proxy-passthrough", value_name = "HOST")]
    pub proxy_passthrough: Vec<String>,
    /// A port of this host's own addresses that devices may reach through the proxy, e.g. a
    /// local backend on localhost:3000 (repeatable, or several after one flag). Other local
    /// ports are refused; the API's, the adb server's and the proxy's own never pass.
    #[arg(
        long = "proxy-allow-local",
        value_name = "PORT",
        num_args = 1..,
        env = "MOBILECTL_PROXY_ALLOW_LOCAL",
        value_delimiter = ','
    )]
    pub proxy_allow_local: Vec<u16>,
    /// Most flows the proxy keeps (the oldest go first).
    #[arg(long, default_value_t = 2000)]
    pub proxy_max_flows: usize,
    /// Most bytes the kept flows hold (K, M, G suffixes: 64M).
    #[arg(long, value_parser = parse_size, default_value = "64M")]
    pub proxy_max_bytes: usize,
    /// Bytes kept of each request or response body (the rest goes through unstored).
    #[arg(long, value_parser = parse_size, default_value = "1M")]
    pub proxy_body_cap: usize,
    /// An upstream silent for this long (connecting, answering, mid-body) is cut.
    #[arg(long, default_value_t = 30_000)]
    pub proxy_timeout_ms: u64,
    /// Extra CA certificate (PEM) trusted for upstream HTTPS, e.g. a local test server's
    /// (repeatable).
    #[arg(long = "proxy-upstream-ca", value_name = "FILE")]
    pub proxy_upstream_ca: Vec<std::path::PathBuf>,
}

/// `65536`, `64K`, `64M`, `1G` (binary units).
fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (n, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: usize = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => return Err(format!("`{s}`: the suffix is K, M or G")),
            };
            (&s[..i], m)
        }
        _ => (s, 1),
    };
    n.trim()
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("`{s}` is not a size (e.g. 65536, 64K, 64M)"))
}

impl ProxyArgs {
    /// The proxy's options; the CA is kept in `state_dir`.
    pub fn options(&self, state_dir: std::path::PathBuf) -> Result<ProxyOptions, String> {
        let mut roots = Vec::new();
        for f in &self.proxy_upstream_ca {
            use rustls::pki_types::pem::PemObject;
            let certs = rustls::pki_types::CertificateDer::pem_file_iter(f)
                .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                .map_err(|e| format!("--proxy-upstream-ca {}: {e}", f.display()))?;
            if certs.is_empty() {
                return Err(format!(
                    "--proxy-upstream-ca {}: no certificate in it",
                    f.display()
                ));
            }
            roots.extend(certs);
        }
        let mut o = ProxyOptions {
            port: self.proxy_port,
            passthrough: self.proxy_passthrough.clone(),
            limits: crate::proxy::store::StoreLimits {
                max_flows: self.proxy_max_flows,
                max_bytes: self.proxy_max_bytes,
            },
            body_cap: self.proxy_body_cap,
            timeout: std::time::Duration::from_millis(self.proxy_timeout_ms.max(1)),
            state_dir: Some(state_dir),
            upstream_roots: roots,
            allow_local: self.proxy_allow_local.clone(),
            adb_server_port: None,
        };
        o.check()?;
        Ok(o)
    }
}

/// The WebDriverAgent settings of the flags, or why they are wrong.
fn wda_config(args: &ServeArgs) -> Result<WdaConfig, String> {
    Ok(WdaConfig {
        endpoints: EndpointSpec::parse_all(&args.wda)?,
        source_timeout: std::time::Duration::from_millis(args.wda_source_timeout_ms),
    })
}

/// The server's settings from the flags and the environment, or why they are wrong.
fn settings(args: ServeArgs) -> Result<Settings, String> {
    let wda = wda_config(&args)?;
    let state_dir = crate::client::autostart::state_dir();
    let proxy = ProxyOptions {
        adb_server_port: args.adb_server_port,
        ..args.proxy.options(state_dir.clone())?
    };
    let (policy, problems) = crate::runs::GcPolicy::from_env();
    for p in problems {
        eprintln!("mobilectl: {p}");
    }
    let cache_dir = args
        .cache_dir
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(crate::host_dirs::cache_dir);
    Ok(Settings {
        addr: args.addr,
        token: args.token,
        allow_hosts: args.allow_hosts,
        allow_origins: args.allow_origins,
        options: ServerOptions {
            allow_any_url_scheme: args.allow_any_url_scheme,
            proxy,
            files_root: args.files_root,
            build_root: args.build_root,
            admin_token: args.admin_token.filter(|t| !t.trim().is_empty()),
            script_worker: None,
        },
        controller: DeviceController::new(BackendConfig {
            tools: Toolbox::from_env(),
            adb_server_port: args.adb_server_port,
            wda,
            adb_connect_allow: args.adb_connect_allow,
            android_helper: args.android_helper,
            android_record_segment: Some(std::time::Duration::from_secs(
                args.android_record_segment_s,
            )),
            ..Default::default()
        })
        .with_runs(crate::runs::RunStore::open(cache_dir, policy)),
        state_dir,
        demo_devices: if args.demo { args.demo_devices } else { 0 },
        adb_server_port: args.adb_server_port,
    })
}

/// Runs `serve`: checks the flags, then serves until shut down; returns the exit code (2:
/// a wrong flag or an unsafe bind).
pub fn run(args: ServeArgs) -> i32 {
    init_tracing();
    let settings = match settings(args) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("mobilectl: {msg}");
            return 2;
        }
    };
    crate::server::memory::limit_malloc_arenas();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mobilectl: cannot start the async runtime: {e}");
            return 1;
        }
    };
    match runtime.block_on(start::run(settings)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("mobilectl: {e}");
            match e {
                StartError::Refused(_) => 2,
                StartError::Failed(_) => 1,
            }
        }
    }
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("MOBILECTL_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // No colour codes in a log file or a pipe.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> ServeArgs {
        #[derive(Parser)]
        struct T {
            #[command(flatten)]
            serve: ServeArgs,
        }
        T::parse_from(std::iter::once("t").chain(args.iter().copied())).serve
    }

    #[test]
    fn adb_connect_allow_takes_blocks() {
        let a = parse(&[
            "--adb-connect-allow",
            "192.168.1.0/24",
            "--adb-connect-allow",
            "10.0.0.7",
        ]);
        let shown: Vec<String> = a.adb_connect_allow.iter().map(|c| c.to_string()).collect();
        assert_eq!(shown, ["192.168.1.0/24", "10.0.0.7/32"]);
        #[derive(clap::Parser)]
        struct T {
            #[command(flatten)]
            serve: ServeArgs,
        }
        assert!(T::try_parse_from(["t", "--adb-connect-allow", "lan"]).is_err());
    }

    #[test]
    fn wda_endpoints_are_repeatable_and_checked() {
        let a = parse(&[
            "--wda",
            "00008130-000A1C2E3C41001C=http://127.0.0.1:8100",
            "--wda",
            "127.0.0.1:8101",
            "--wda-source-timeout-ms",
            "5000",
        ]);
        let c = wda_config(&a).unwrap();
        assert_eq!(c.endpoints.len(), 2);
        assert_eq!(c.endpoints[1].url, "http://127.0.0.1:8101");
        assert_eq!(c.source_timeout, std::time::Duration::from_secs(5));
        // One flag may carry several, comma-separated, as MOBILECTL_WDA does.
        let a = parse(&["--wda", "http://a:8100,http://b:8100"]);
        assert_eq!(wda_config(&a).unwrap().endpoints.len(), 2);
        let a = parse(&["--wda", "ftp://a:8100"]);
        assert!(wda_config(&a).unwrap_err().contains("http or https"));
    }

    #[test]
    fn sizes_and_proxy_options() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("2m"), Ok(2 << 20));
        assert!(parse_size("3X").is_err() && parse_size("M").is_err() && parse_size("").is_err());
        let dir = std::path::PathBuf::from("/tmp/state");
        let o = parse(&[
            "--proxy-passthrough",
            "*.Pinned.example",
            "--proxy-body-cap",
            "4K",
        ])
        .proxy
        .options(dir.clone())
        .unwrap();
        assert_eq!(o.passthrough, ["pinned.example"]);
        assert_eq!((o.port, o.body_cap), (crate::proxy::DEFAULT_PORT, 4096));
        assert_eq!(o.state_dir, Some(dir.clone()));
        // A store that cannot hold two bodies of the cap is refused.
        let e = parse(&["--proxy-max-bytes", "1M", "--proxy-body-cap", "1M"])
            .proxy
            .options(dir.clone())
            .unwrap_err();
        assert!(e.contains("two bodies"), "{e}");
        let e = parse(&["--proxy-upstream-ca", "/nonexistent.pem"])
            .proxy
            .options(dir)
            .unwrap_err();
        assert!(e.contains("--proxy-upstream-ca"), "{e}");
    }
}
