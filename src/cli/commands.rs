//! The client subcommands and their flags; [`super::plan`] turns each into its request.

use clap::{Args, Subcommand};

use super::derived::values;
use super::target::Modifiers;

/// The commands that call the server with a grammar of their own; the plain ones are made
/// from the operation table ([`super::derived`]).
#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Make a device the active one (`--clear` forgets the choice).
    Use {
        /// The device to make active.
        #[arg(value_name = "UDID")]
        device: Option<String>,
        /// Forget the active device.
        #[arg(long, conflicts_with = "device")]
        clear: bool,
    },
    /// Boot an iOS Simulator (UDID or name) or an Android emulator (--avd).
    Boot {
        /// The simulator to boot (UDID or name).
        #[arg(value_name = "UDID")]
        device: Option<String>,
        /// The Android emulator to start (its AVD name).
        #[arg(long, conflicts_with = "device")]
        avd: Option<String>,
        /// Return once the boot is started instead of when it is done.
        #[arg(long)]
        no_wait: bool,
        /// How long to wait for the boot, in milliseconds.
        #[arg(long)]
        timeout_ms: Option<u64>,
    },
    /// Connect adb to an Android device over the network: `connect 192.168.1.20:5555`
    /// (IPv6 in brackets: `[fd00::7]:5555`). Loopback only unless the server allows more.
    Connect {
        /// The device's adb address, HOST:PORT.
        #[arg(value_name = "HOST:PORT")]
        address: String,
    },
    /// Install, launch, stop, reset and list apps.
    #[command(subcommand)]
    App(AppCommand),
    /// Network capture: the recording proxy, devices pointed at it, and its flows.
    #[command(subcommand)]
    Proxy(super::proxy::ProxyCommand),
    /// Maestro flows: `flow check FILE|DIR` validates them offline, `flow run` runs them.
    #[command(subcommand)]
    Flow(super::flow::FlowCommand),
    /// Sessions: start one that leases a device, end it (`--session NAME` runs in it).
    #[command(subcommand)]
    Session(super::session::SessionCommand),
    /// Audit the screen's accessibility (unnamed controls, small targets, contrast…), or a
    /// saved dump and screenshot offline with --from-file.
    Audit(super::audit::AuditArgs),
    /// Read the screen as the compact tree (`--json`: the full snapshot), or render a saved
    /// dump offline with --from-file.
    Snapshot(super::offline::SnapshotArgs),
    /// Tap an element or a point.
    Tap(TargetArgs),
    /// Tap the element with a label, identifier and/or type (`tap-element "LOG IN"`,
    /// `tap-element --id login --type button`).
    TapElement {
        /// Accessibility label, text or content-desc.
        label: Option<String>,
        /// resource-id (Android) or accessibilityIdentifier (iOS).
        #[arg(long, value_name = "IDENTIFIER")]
        id: Option<String>,
        /// Role of the element: button, textbox, cell, checkbox…
        #[arg(long = "type", value_name = "ROLE", value_parser = wire::<crate::ui::Role>)]
        element_type: Option<String>,
        /// Match the label as a substring.
        #[arg(long)]
        contains: bool,
        /// Pick the N-th (0-based) match instead of failing on ambiguity.
        #[arg(long)]
        index: Option<u32>,
        /// Whether to read the screen afterwards.
        #[command(flatten)]
        o: ObserveArgs,
    },
    /// Long-press an element or a point.
    LongPress {
        /// The element or point to press.
        #[command(flatten)]
        t: TargetArgs,
        /// How long to hold, in milliseconds.
        #[arg(long)]
        duration_ms: Option<u64>,
    },
    /// Swipe from a point to a point (`swipe 500,1500 500,500`) or across a target
    /// (`swipe @e3 --direction up`).
    Swipe {
        /// The start point X,Y, or with --direction the target to swipe across.
        from: String,
        /// The end point X,Y.
        to: Option<String>,
        /// Which way to swipe across the target.
        #[arg(long, value_parser = values("swipe", "direction"))]
        direction: Option<String>,
        /// How long the swipe takes, in milliseconds.
        #[arg(long)]
        duration_ms: Option<u64>,
        /// Modifiers of the target (--index, --contains, --ignore-case).
        #[command(flatten)]
        m: ModifierArgs,
        /// Whether to read the screen afterwards.
        #[command(flatten)]
        o: ObserveArgs,
    },
    /// Scroll a container once (default: the biggest scrollable one).
    Scroll {
        /// The container to scroll.
        target: Vec<String>,
        /// Which way to scroll.
        #[arg(long, value_parser = values("scroll", "direction"))]
        direction: Option<String>,
        /// Modifiers of the target (--index, --contains, --ignore-case).
        #[command(flatten)]
        m: ModifierArgs,
        /// Whether to read the screen afterwards.
        #[command(flatten)]
        o: ObserveArgs,
    },
    /// Scroll until an element matching the selector is in view.
    ScrollTo {
        /// The element to bring into view.
        selector: Vec<String>,
        /// Which way to scroll.
        #[arg(long, value_parser = values("scroll_to", "direction"))]
        direction: Option<String>,
        /// Give up after this many scrolls.
        #[arg(long)]
        max_scrolls: Option<u32>,
        /// Modifiers of the selector (--index, --contains, --ignore-case).
        #[command(flatten)]
        m: ModifierArgs,
    },
    /// Type text into the focused field, or into a target after tapping it.
    ///
    /// TEXT and TARGET come in either order: `type @e5 user@example.com` and
    /// `type user@example.com @e5` are the same. When both words could be targets
    /// (`type e5 e6`), the first is the text.
    Type {
        /// TEXT, or TARGET TEXT, or TEXT TARGET.
        #[arg(value_name = "TEXT|TARGET", num_args = 1..=2, required = true)]
        words: Vec<String>,
        /// Empty the field first.
        #[arg(long)]
        clear: bool,
        /// Press Enter afterwards.
        #[arg(long)]
        submit: bool,
        /// Skip reading the field back.
        #[arg(long)]
        no_verify: bool,
        /// Measure what typing cost the app in front: frames and CPU.
        #[arg(long)]
        measure: bool,
        /// Modifiers of the target (--index, --contains, --ignore-case).
        #[command(flatten)]
        m: ModifierArgs,
    },
    /// Press a key: back, home, enter, delete, tab, escape, space, dpad_*, volume_up,
    /// volume_down, power, lock, recent_apps, menu, search… or a raw Android key code.
    Press {
        /// The key's name, or an Android key code.
        key: String,
        /// Whether to read the screen afterwards.
        #[command(flatten)]
        o: ObserveArgs,
    },
    /// Run several steps in order under one hold of the device, stopping at a failure:
    /// `batch steps.txt` (one command per line, or JSON), `batch -` (stdin), or
    /// `batch --step "type alice @e1" --step "tap text:'LOG IN'"`.
    Batch(super::batch::BatchArgs),
    /// Wait until an element matching the selector meets a condition (exit 1 on timeout).
    Wait {
        /// The element to wait for.
        selector: Vec<String>,
        /// What must hold of it.
        #[arg(long, default_value = "exists", value_parser = values("wait", "condition"))]
        condition: String,
        /// The text for `--condition text_equals`.
        #[arg(long)]
        text: Option<String>,
        /// Give up after this many milliseconds.
        #[arg(long)]
        timeout_ms: Option<u64>,
        /// Milliseconds between two reads of the screen.
        #[arg(long)]
        poll_interval_ms: Option<u64>,
        /// Modifiers of the selector (--index, --contains, --ignore-case).
        #[command(flatten)]
        m: ModifierArgs,
    },
    /// Assert something about the screen now (exit 1 when it does not hold).
    #[command(subcommand)]
    Expect(ExpectCommand),
    /// Save a screenshot (PNG by default).
    Screenshot(ScreenshotArgs),
    /// Everything about a problem at once: screen, screenshot, the foreground app's warnings
    /// and errors, recent crashes (`-o DIR` writes bundle.json and screenshot.jpg there).
    DebugBundle {
        /// Folder to write bundle.json and screenshot.jpg to.
        #[arg(short, long, value_name = "DIR")]
        output: Option<String>,
        /// Crashes since: a duration back (default 15m) or an RFC 3339 time.
        #[arg(long)]
        since: Option<String>,
        /// Warnings and errors at most.
        #[arg(long)]
        lines: Option<u32>,
    },
    /// Answer the alert on screen.
    #[command(subcommand)]
    Alert(AlertCommand),
    /// Call any operation by its name: `call tap ref=e3`, `call expect --json '{…}'`;
    /// `call` alone lists them.
    Call(super::call::CallArgs),
}

/// The `app` subcommands with a grammar of their own.
#[derive(Debug, Subcommand)]
pub enum AppCommand {
    /// Build an app from source on the server's machine (Gradle, xcodebuild), told as it
    /// goes; --install/--launch put it on the device.
    Build(super::build::BuildArgs),
    /// Start an app.
    Launch {
        /// The app's bundle id (iOS) or package (Android).
        bundle_id: String,
        /// Stop the app first if it runs.
        #[arg(long)]
        relaunch: bool,
        /// Android: the activity to start.
        #[arg(long)]
        activity: Option<String>,
        /// A named value for the app (repeatable): Android intent extra, iOS `-K V` argument;
        /// `true`/`false`, whole numbers and decimals are typed as such, anything else is text.
        #[arg(long = "extra", value_name = "K=V", value_parser = super::flow::env_pair)]
        extras: Vec<(String, String)>,
        /// iOS Simulator: reset the keychain first.
        #[arg(long)]
        clear_keychain: bool,
        /// Start it N times (1-20) and say each start's time and their median (with
        /// --relaunch, cold starts).
        #[arg(long, value_name = "N")]
        repeat: Option<u32>,
        /// A cold start: stop the app first (as --relaunch).
        #[arg(long, conflicts_with = "warm")]
        cold: bool,
        /// A warm start: start the app once first, unmeasured, if it does not run.
        #[arg(long, conflicts_with = "relaunch")]
        warm: bool,
        /// Also say what the start cost the app: frames and CPU.
        #[arg(long)]
        measure: bool,
        /// iOS launch arguments (after `--`).
        #[arg(last = true)]
        arguments: Vec<String>,
    },
}

/// The assertions of `expect`.
#[derive(Debug, Subcommand)]
pub enum ExpectCommand {
    /// An element matching the selector is on screen.
    Visible {
        /// The element to look for.
        selector: Vec<String>,
        /// Modifiers of the selector (--index, --contains, --ignore-case).
        #[command(flatten)]
        m: ModifierArgs,
    },
    /// No element matching the selector is on screen.
    NotVisible {
        /// The element that must be absent.
        selector: Vec<String>,
        /// Modifiers of the selector (--index, --contains, --ignore-case).
        #[command(flatten)]
        m: ModifierArgs,
    },
    /// The first element matching the selector shows exactly TEXT.
    Text {
        /// The element to read.
        selector: String,
        /// The text it must show.
        text: String,
        /// Modifiers of the selector (--index, --contains, --ignore-case).
        #[command(flatten)]
        m: ModifierArgs,
    },
    /// The foreground app is BUNDLE_ID.
    App {
        /// The expected bundle id or package.
        bundle_id: String,
    },
    /// The focused activity (Android) ends with ACTIVITY.
    Activity {
        /// The expected end of the focused activity's name.
        activity: String,
    },
    /// The screen's fingerprint is FINGERPRINT.
    Screen {
        /// The expected fingerprint (from a snapshot).
        fingerprint: String,
    },
    /// The screen looks like a baseline: at most --tolerance of its pixels changed.
    Matches(MatchesArgs),
    /// An accessibility audit finds nothing at or above --fail-on (default error); with
    /// --baseline, nothing new against that saved audit.
    Accessible {
        /// A saved audit (the JSON of `audit --format json`).
        #[arg(long, value_name = "FILE")]
        baseline: Option<std::path::PathBuf>,
        /// The lowest severity that fails: info, warning, error.
        #[arg(long, value_name = "SEVERITY", value_parser = ["info", "warning", "error"])]
        fail_on: Option<String>,
    },
}

/// The baseline of a comparison (exactly one) and what it leaves out: `screenshot diff` and
/// `expect matches`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("baseline").required(true).args(["file", "previous", "artifact"])))]
pub struct BaselineArgs {
    /// A PNG file to compare with (read here, sent as base64).
    #[arg(long = "baseline", value_name = "FILE.png")]
    pub file: Option<String>,
    /// Compare with the screenshot taken before the last action.
    #[arg(long, visible_alias = "baseline-previous")]
    pub previous: bool,
    /// Compare with a saved run artifact.
    #[arg(long, value_name = "RUN/NAME")]
    pub artifact: Option<String>,
    /// An area not to compare, in tap coordinates (repeatable).
    #[arg(long, value_name = "X,Y,WIDTH,HEIGHT")]
    pub mask: Vec<String>,
    /// Compare the status bar too (it is masked by default).
    #[arg(long)]
    pub with_status_bar: bool,
}

/// The baseline and options of `expect matches`.
#[derive(Debug, Args)]
pub struct MatchesArgs {
    /// What to compare with.
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// Share of the pixels that may differ, 0-1 (default 0.001).
    #[arg(long)]
    pub tolerance: Option<f64>,
    /// Compare again until it matches, at most this long.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
}

/// The answers to an alert.
#[derive(Debug, Subcommand)]
pub enum AlertCommand {
    /// Tap the button with this label.
    Button {
        /// The button's label.
        label: String,
    },
}

/// One target plus selector modifiers.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// @e12 | X,Y | text:VALUE | text~:VALUE | label:VALUE | id:VALUE | role:ROLE
    pub target: Vec<String>,
    /// Modifiers of the target (--index, --contains, --ignore-case).
    #[command(flatten)]
    pub m: ModifierArgs,
    /// Whether to read the screen afterwards.
    #[command(flatten)]
    pub o: ObserveArgs,
}

/// Reading the screen after an action.
#[derive(Debug, Args, Clone, Copy)]
pub struct ObserveArgs {
    /// Read the screen afterwards: the new fingerprint and what changed.
    #[arg(long)]
    pub observe: bool,
    /// With --observe: milliseconds to let the screen settle before the read.
    #[arg(long, requires = "observe")]
    pub settle_ms: Option<u64>,
    /// Measure what the action cost the app in front: frames, janky frames, longest frame, CPU.
    #[arg(long)]
    pub measure: bool,
}

/// Selector modifiers.
#[derive(Debug, Args, Clone, Copy)]
pub struct ModifierArgs {
    /// Pick the N-th (0-based) match instead of failing on ambiguity.
    #[arg(long)]
    pub index: Option<u32>,
    /// Match text/label as a substring.
    #[arg(long)]
    pub contains: bool,
    /// Match case-insensitively (the selector's `case_insensitive`).
    #[arg(long = "ignore-case")]
    pub case_insensitive: bool,
}

impl ModifierArgs {
    pub(super) fn get(self) -> Modifiers {
        Modifiers {
            contains: self.contains,
            case_insensitive: self.case_insensitive,
            index: self.index,
        }
    }
}

/// Flags of `screenshot`, and its `diff` subcommand.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ScreenshotArgs {
    /// `screenshot diff`: compare the screen with a baseline.
    #[command(subcommand)]
    pub command: Option<ScreenshotCommand>,
    /// Output file (`-` for stdout). Default: screenshot.png / screenshot.jpg.
    #[arg(short, long)]
    pub output: Option<String>,
    /// Draw the refs' boxes and labels on the image.
    #[arg(long)]
    pub annotate: bool,
    /// With --annotate: only interactive elements.
    #[arg(long, requires = "annotate")]
    pub interactive_only: bool,
    /// With --annotate: draw a coordinate grid.
    #[arg(long, requires = "annotate")]
    pub grid: bool,
    /// Scale factor (0 < scale <= 1).
    #[arg(long)]
    pub scale: Option<f64>,
    /// Image format (default png).
    #[arg(long, value_parser = values("screenshot", "format"))]
    pub format: Option<String>,
    /// JPEG quality (1-100).
    #[arg(long)]
    pub quality: Option<u8>,
    /// Longest side in pixels.
    #[arg(long)]
    pub max_size: Option<u32>,
}

/// What `screenshot` does besides saving one.
#[derive(Debug, Subcommand)]
pub enum ScreenshotCommand {
    /// Compare the screen with a baseline: the changed regions and the share of pixels changed.
    Diff(DiffArgs),
}

/// The baseline and options of `screenshot diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// What to compare with.
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// Per-channel change (0-255) a pixel may show and count as unchanged (default 16).
    #[arg(long)]
    pub channel_threshold: Option<u8>,
    /// Write the screen with the regions outlined to this PNG file.
    #[arg(short, long, value_name = "FILE.png")]
    pub output: Option<String>,
}

/// Checks a word against the server's type for it (a role, a battery state…), so a typo is a
/// usage error listing the accepted values; the word is sent as given.
fn wire<T: serde::de::DeserializeOwned>(word: &str) -> Result<String, String> {
    serde_json::from_value::<T>(serde_json::Value::String(word.to_string()))
        .map(|_| word.to_string())
        .map_err(|e| e.to_string())
}
