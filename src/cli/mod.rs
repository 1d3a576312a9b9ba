//! The `mobilectl` command line: `serve` runs the server; `openapi` prints the spec; the client
//! commands call the server over HTTP only — the plain ones made from the operation table
//! ([`derived`]), those with a grammar of their own written by hand ([`commands`]), and any
//! operation by name ([`call`]); `snapshot --from-file` and `completions` work offline.

pub mod audit;
pub mod batch;
pub mod build;
pub mod call;
pub mod commands;
pub mod demo;
pub mod derived;
pub mod flow;
pub mod flow_shards;
pub mod flow_suite;
pub mod grid;
pub mod hint;
pub mod offline;
pub mod output;
pub mod plan;
pub mod proxy;
pub mod repl;
pub mod serve;
pub mod session;
pub mod target;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::client::{exit, Client, ConnectOptions};
use commands::ClientCommand;

/// Inspect and drive phones — iOS Simulators and Android devices — over a local HTTP API.
#[derive(Debug, Parser)]
#[command(name = "mobilectl", version, about, propagate_version = true)]
pub struct Cli {
    /// Options of the client commands.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Options of the client commands (accepted anywhere on the line).
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// The server to talk to.
    #[arg(
        long,
        global = true,
        help_heading = "Client options",
        env = "MOBILECTL_URL",
        hide_env_values = true,
        default_value = "http://127.0.0.1:9100"
    )]
    pub url: String,
    /// Bearer token for the server.
    #[arg(
        long,
        global = true,
        help_heading = "Client options",
        env = "MOBILECTL_TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
    /// Print the server's JSON unchanged (errors too, on stdout).
    #[arg(long, global = true, help_heading = "Client options")]
    pub json: bool,
    /// Do not start a local server when none answers.
    #[arg(long, global = true, help_heading = "Client options")]
    pub no_autostart: bool,
    /// The device to act on (default: the active one, or the only one).
    #[arg(
        short = 'd',
        long,
        global = true,
        help_heading = "Client options",
        env = "MOBILECTL_UDID",
        hide_env_values = true
    )]
    pub udid: Option<String>,
    /// Run in this session: a name `session start --name NAME` made here (its kept secret is
    /// sent), or a session's secret.
    #[arg(
        long,
        global = true,
        help_heading = "Client options",
        env = "MOBILECTL_SESSION",
        hide_env_values = true
    )]
    pub session: Option<String>,
}

impl GlobalArgs {
    /// How the client commands reach the server; `session` is sent as the session header.
    pub fn connect_options(&self, session: Option<String>) -> ConnectOptions {
        ConnectOptions {
            url: self.url.clone(),
            token: self.token.clone(),
            autostart: !self.no_autostart,
            session,
        }
    }
}

/// Which device `mobilectl mcp`'s session leases (default: the one its first call targets).
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Lease this device (udid or name).
    #[arg(long, value_name = "UDID", conflicts_with = "platform")]
    pub device: Option<String>,
    /// Lease the first free device of this platform.
    #[arg(long, value_parser = derived::enum_of::<crate::device::Platform>())]
    pub platform: Option<String>,
    /// Wait up to this long for such a device to be free (first come, first served).
    #[arg(long, value_name = "MS")]
    pub wait_ms: Option<u64>,
    /// Reach devices through a Selenium Grid 4 hub (`http://HUB:4444`): one W3C session
    /// for the connection, made from the capabilities, deleted on exit.
    #[arg(long, value_name = "URL", conflicts_with_all = ["device", "platform"])]
    pub grid: Option<String>,
    /// A capability of the Grid session, `KEY=VALUE` (repeatable): `platformName=android`,
    /// `appium:udid=…`.
    #[arg(long = "capability", value_name = "KEY=VALUE", requires = "grid",
          value_parser = crate::client::grid::capability)]
    pub capabilities: Vec<(String, serde_json::Value)>,
    /// Seconds the leased device stays held if this process dies without closing (a crash,
    /// SIGKILL); renewed every third of it while the process lives.
    #[arg(long, value_name = "S", default_value_t = 60, conflicts_with = "grid",
          value_parser = clap::value_parser!(u64).range(2..=86400))]
    pub session_ttl_s: u64,
    /// Which tools to list (comma-separated or repeated). Default `core`: the agent's loop
    /// (devices, read the screen, act, verify) plus `call` and `describe`, which reach every
    /// other operation; `all`: every operation as its own tool; group names: those groups'
    /// tools (`--tools core,network` adds a group to the default).
    #[arg(long, value_name = "GROUP", value_delimiter = ',',
          value_parser = clap::builder::PossibleValuesParser::new(crate::mcp::offer::choices()))]
    pub tools: Vec<String>,
}

/// The commands: the server, tools around it, and the client commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server (Swagger UI at /docs).
    Serve(serve::ServeArgs),
    /// Print the OpenAPI document (the checked-in openapi/openapi.json).
    Openapi,
    /// Run a virtual Android device that the real adb connects to (tests, demos).
    VirtualDevice(demo::VirtualDeviceArgs),
    /// Serve the API as MCP tools on stdin/stdout (a client of the server, like the CLI), in
    /// a session of its own that leases the device it acts on until stdin closes.
    Mcp(McpArgs),
    /// Selenium Grid 4: the relay node configuration for this server's devices.
    #[command(subcommand)]
    Grid(grid::GridCommand),
    /// An interactive shell with the CLI's commands (`snapshot`, `tap @e4`): history, and
    /// completion of commands, flags and the last snapshot's refs.
    Repl,
    /// Print a shell completion script.
    Completions {
        /// The shell to write the script for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The commands that call the server.
    #[command(flatten)]
    Client(ClientCommand),
}

/// A parsed command line: a hand-written command, or one made from the table.
pub enum Parsed {
    /// A hand-written command.
    Cli(Box<Cli>),
    /// A command made from the operation table: the global options and its request.
    Derived(GlobalArgs, plan::Request),
}

/// The whole command line: [`Cli`] and the commands [`derived`] from the operation table.
pub fn command() -> clap::Command {
    derived::augment(Cli::command())
}

/// Parses a command line (the program's name first).
pub fn parse_from<I, T>(argv: I) -> Result<Parsed, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let m = command().try_get_matches_from(argv)?;
    let global = GlobalArgs::from_arg_matches(&m)?;
    match derived::request(&m, &global.udid) {
        Some(r) => Ok(Parsed::Derived(global, r?)),
        None => Cli::from_arg_matches(&m).map(|c| Parsed::Cli(Box::new(c))),
    }
}

/// Runs a parsed command line; returns the process exit code.
pub fn run_parsed(p: Parsed) -> i32 {
    match p {
        Parsed::Cli(cli) => run(*cli),
        Parsed::Derived(g, r) => {
            quiet_on_broken_pipe();
            run_request(g, Ok(r))
        }
    }
}

/// Runs the parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    if !matches!(cli.command, Command::Serve(_) | Command::VirtualDevice(_)) {
        quiet_on_broken_pipe();
    }
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Openapi => {
            print!("{}", crate::api::openapi_json());
            0
        }
        Command::VirtualDevice(args) => demo::run_cli(args),
        Command::Mcp(m) => {
            let offer = match crate::mcp::Offer::parse(&m.tools) {
                Ok(o) => o,
                Err(why) => {
                    eprintln!("mobilectl mcp: {why}");
                    return crate::client::exit::USAGE;
                }
            };
            match m.grid {
                Some(hub) => crate::mcp::run_stdio_grid(
                    &hub,
                    m.capabilities.into_iter().collect(),
                    cli.global.token,
                    offer,
                ),
                None => crate::mcp::run_stdio(
                    cli.global.connect_options(None),
                    crate::mcp::DevicePick {
                        udid: m.device,
                        platform: m.platform,
                        wait_ms: m.wait_ms,
                        name: Some(format!("mcp-{}", std::process::id())),
                        external: false,
                        ttl_s: Some(m.session_ttl_s),
                    },
                    offer,
                ),
            }
        }
        Command::Grid(grid::GridCommand::NodeConfig(args)) => {
            grid::run(args, cli.global.connect_options(None))
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut command(), "mobilectl", &mut std::io::stdout());
            0
        }
        Command::Repl => repl::run(&cli.global),
        Command::Client(ClientCommand::Flow(f)) => flow::run(f, &cli.global),
        Command::Client(ClientCommand::Audit(a)) => match a.from_file.clone() {
            Some(dump) => audit::run_offline(&dump, &a, cli.global.json),
            None => {
                let json = cli.global.json;
                let req = audit::body(&a)
                    .map_err(crate::client::ClientError::usage)
                    .map(|b| {
                        let mut r = plan::Request::new("audit", b);
                        if let Some(u) = &cli.global.udid {
                            r.args.insert("udid".into(), serde_json::json!(u));
                        }
                        r
                    });
                run_request_with(cli.global, req, move |answer, _| match answer {
                    plan::Answer::Json { reply, .. } => {
                        audit::finish(&reply.value, &a, json, "device")
                    }
                    other => output::answer(other, json),
                })
            }
        },
        Command::Client(ClientCommand::Snapshot(s)) if s.from_file.is_some() => {
            let path = s.from_file.clone().unwrap_or_default();
            offline::run(&path, &s, cli.global.json)
        }
        Command::Client(ClientCommand::Call(c)) if c.list || c.op.is_none() => {
            call::list(cli.global.json)
        }
        Command::Client(cmd) => run_client(cli.global, cmd),
    }
}

/// A command whose reader went away (`mobilectl … | head`) ends quietly, killed by SIGPIPE
/// as other command-line tools are, instead of panicking in `print!`. Only the printing
/// commands do this: the server and the virtual device keep SIGPIPE ignored (a closed socket
/// or pipe is an error they handle).
fn quiet_on_broken_pipe() {
    // SAFETY: resetting a signal to its default disposition, before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn run_client(g: GlobalArgs, mut cmd: ClientCommand) -> i32 {
    if let ClientCommand::Session(s) = &mut cmd {
        s.default_to(&g.session);
    }
    let req = plan::plan(cmd, &g.udid, g.json);
    run_request(g, req)
}

/// The runtime of a client command, or the exit code when it cannot start (said on stderr).
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, i32> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("mobilectl: cannot start the async runtime: {e}");
            exit::FAILED
        })
}

/// Sends a planned request (or prints why it could not be planned); returns the exit code.
fn run_request(g: GlobalArgs, req: Result<plan::Request, crate::client::ClientError>) -> i32 {
    run_request_with(g, req, output::answer)
}

/// [`run_request`] printing a successful answer with `print` (which answers the exit code).
fn run_request_with(
    g: GlobalArgs,
    req: Result<plan::Request, crate::client::ClientError>,
    print: impl FnOnce(&plan::Answer, bool) -> i32,
) -> i32 {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let req = match req.and_then(proxy::with_local_body_file) {
        Ok(r) => r,
        Err(e) => return output::error(&e, g.json),
    };
    rt.block_on(async move {
        if let Some(hub) = session::grid_of(&req, &g.session) {
            let result = session::through_grid(&hub, req, &g).await;
            return match result {
                Ok(a) => print(&a, g.json),
                Err(e) => output::error(&e, g.json),
            };
        }
        let credential = session::credential(&session_of(&req, &g));
        let result = match Client::connect(&g.connect_options(credential)).await {
            Ok(c) => send_in_session(&c, req, &g).await,
            Err(e) => Err(e),
        };
        match result {
            Ok(a) => print(&a, g.json),
            Err(e) => output::error(&e, g.json),
        }
    })
}

/// The session a command runs in: `--session`, else the one `session end NAME` ends (ending
/// takes the session's secret).
fn session_of(req: &plan::Request, g: &GlobalArgs) -> Option<String> {
    if req.op == "end_session" && g.session.is_none() {
        return req
            .args
            .get("id")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string);
    }
    g.session.clone()
}

/// Sends `req`; a named session the server forgot is started again from its kept defaults
/// and the command sent once more, with the new session's secret. A session started or
/// ended is remembered or forgotten.
async fn send_in_session(
    c: &Client,
    req: plan::Request,
    g: &GlobalArgs,
) -> Result<plan::Answer, crate::client::ClientError> {
    let (op, args) = (req.op, req.args.clone());
    let mut result = plan::execute(c, req.clone(), g.json).await;
    if let (Err(e), Some(name)) = (&result, &g.session) {
        if op != "create_session" && session::restart_if_gone(c, name, e).await {
            let again = g.connect_options(session::credential(&g.session));
            result = match Client::connect(&again).await {
                Ok(c) => plan::execute(&c, req, g.json).await,
                Err(e) => Err(e),
            };
        }
    }
    if let Ok(plan::Answer::Json { reply, .. }) = &result {
        session::after(op, &args, &reply.value);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn serve_keeps_its_own_token() {
        let cli = Cli::try_parse_from(["mobilectl", "serve", "--token", "t0k"]).unwrap();
        let Command::Serve(s) = cli.command else {
            panic!()
        };
        assert_eq!(s.token.as_deref(), Some("t0k"));
    }
}
