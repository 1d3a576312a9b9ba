//! THE operation table: every operation of the API, once, as data: method, name, path, tag,
//! summary, its command-line form, declared errors, the wire types of its input and output,
//! and, with a JSON output, the renderer that tells it as text (`crate::render`). The OpenAPI
//! document, the CLI's requests, hints and text, and the MCP tools are made from these
//! entries, and the server binds a handler to each entry's [`Op`] (`crate::server::routes`, an
//! exhaustive match), checked against the types said here. Adding an operation is its variant
//! of `Op` (`crates/error/src/op.rs`, in this table's order), one entry here, its handler with
//! its arm in that match (the compiler asks for it), and its controller method.
//!
//! Summaries are one line and double as MCP tool descriptions, so they stay short.

use super::errors::{DEVICE, NAMED, TARGET};
use super::operation::{op, HttpMethod::*, Operation};
use super::wire::{
    act::*, apps::*, audit::*, batch::*, build::*, devices::*, diff::*, features::*, flows::*,
    inspect::*, logs::*, perf::*, proxy::*, recording::*, runs::*, service::*, sessions::*,
    system::*, verify::*,
};
use crate::error::ErrorCode::*;
use crate::error::Op;
use crate::render;

/// Every operation, in the order the documentation lists them: the table, made once.
pub fn operations() -> &'static [Operation] {
    static TABLE: std::sync::LazyLock<Vec<Operation>> = std::sync::LazyLock::new(table);
    &TABLE
}

fn table() -> Vec<Operation> {
    [
        service(),
        devices(),
        sessions(),
        apps(),
        inspect(),
        recordings(),
        act(),
        flows(),
        verify(),
        system(),
        device_features(),
        network(),
        logs(),
        perf(),
        runs(),
    ]
    .concat()
}

/// The service operations.
fn service() -> Vec<Operation> {
    vec![
        op(
            Get,
            Op::Health,
            "/health",
            "service",
            "Liveness and versions (no token needed).",
        )
        .cli("health", &["health"])
        .json::<Health>(render::devices::health),
        op(
            Get,
            Op::Doctor,
            "/api/v1/doctor",
            "service",
            "Check the device tools: found, path, version, remediation.",
        )
        .cli("doctor", &["doctor"])
        .json::<DoctorReport>(render::devices::doctor),
    ]
}

/// The devices operations.
fn devices() -> Vec<Operation> {
    vec![
        op(
            Get,
            Op::ListDevices,
            "/api/v1/device/list",
            "devices",
            "List Android devices, iOS Simulators and iPhones.",
        )
        .cli("devices", &["devices"])
        .describe("A missing tool is not an error: that platform is absent and `tools` says why.")
        .query::<ListQuery>()
        .json::<DeviceList>(render::devices::list)
        .core(),
        op(
            Get,
            Op::GetDevice,
            "/api/v1/devices/{udid}",
            "devices",
            "One device by udid or name: its state, model and capabilities.",
        )
        .cli("device UDID", &["device", "emulator-5554"])
        .errors(&[NoDevice, AmbiguousDevice])
        .query::<DevicePath>()
        .json::<Device>(render::devices::device),
        op(
            Get,
            Op::GetActiveDevice,
            "/api/v1/device/active",
            "devices",
            "The device that requests without `udid` go to.",
        )
        .cli("active", &["active"])
        .json::<ActiveDevice>(render::devices::active),
        op(
            Put,
            Op::SetActiveDevice,
            "/api/v1/device/active",
            "devices",
            "Choose the active device (`udid: null` forgets it).",
        )
        .cli("use UDID", &["use", "emulator-5554"])
        .errors(&[
            NoDevice,
            AmbiguousDevice,
            ToolMissing,
            Timeout,
            CommandFailed,
        ])
        .body::<SetActive>()
        .json::<ActiveDevice>(render::devices::active),
        op(
            Post,
            Op::Boot,
            "/api/v1/device/boot",
            "devices",
            "Boot an iOS Simulator (`udid`) or an Android emulator (`avd`).",
        )
        .cli("boot UDID", &["boot", "--avd", "Pixel_7"])
        .errors(DEVICE)
        .errors(NAMED)
        .body::<BootRequest>()
        .json::<PowerResult>(render::devices::power),
        op(
            Post,
            Op::Shutdown,
            "/api/v1/device/shutdown",
            "devices",
            "Shut down a simulator or an emulator.",
        )
        .cli("shutdown [UDID]", &["shutdown"])
        .errors(DEVICE)
        .body::<ShutdownRequest>()
        .json::<PowerResult>(render::devices::power),
    ]
}

/// The sessions operations.
fn sessions() -> Vec<Operation> {
    vec![
        op(Post, Op::CreateSession, "/api/v1/sessions", "sessions", "Start a session that leases a device (udid or match).")
            .cli("session start", &["session", "start", "--name", "ci-1", "--platform", "android"])
            .describe("The answer's `secret` is the session's only credential, given to its creator alone: \
                       requests with `Mobilectl-Session: SECRET` (or `session` in the query or body) go \
                       to the session's device, and only the session may act on it: acts from anyone else \
                       answer 409 DEVICE_LEASED before any command; reads stay open. Without `udid` or \
                       `match`, any ready device. `wait_ms` queues for a matching device (first come, \
                       first served); none free: 409 NO_FREE_DEVICE with the candidates and their leases; \
                       none matches: 404 NO_DEVICE. `ttl_s` (default 600) is idle expiry, renewed by every \
                       request (a session leasing nothing lives idle at most 300 s); an expired session \
                       answers 410 SESSION_EXPIRED and its lease is released. Its id and name only label it \
                       (403 SESSION_FORBIDDEN if sent instead of the secret).")
            .errors(&[NoDevice, NoFreeDevice, SessionNameTaken, ToolMissing, Timeout, CommandFailed])
            .body::<CreateSession>()
            .json::<SessionInfo>(render::sessions::session)
            .managed_by_connection(),
        op(Get, Op::ListSessions, "/api/v1/sessions", "sessions", "The live sessions and the devices they lease.")
            .cli("sessions", &["sessions"])
            .json::<SessionList>(render::sessions::list),
        op(Get, Op::GetSession, "/api/v1/sessions/{id}", "sessions", "One session (by id or name).")
            .cli("session show ID", &["session", "show", "ci-1"])
            .query::<SessionPath>()
            .json::<SessionInfo>(render::sessions::session),
        op(Delete, Op::EndSession, "/api/v1/sessions/{id}", "sessions", "End a session and release its lease.")
            .cli("session end ID", &["session", "end", "ci-1"])
            .describe("Only its holder: the request is in the session (`Mobilectl-Session: SECRET`), or the \
                       path is its secret; else 403 SESSION_FORBIDDEN.")
            .query::<SessionPath>()
            .json::<SessionEnded>(render::sessions::ended)
            .managed_by_connection(),
        op(Get, Op::SessionInfo, "/api/v1/session", "sessions", "This caller's session: its device, lease expiry, defaults.")
            .cli("session info", &["session", "info"])
            .describe("The session the request is in (`Mobilectl-Session`); each MCP connection is one.")
            .json::<SessionInfo>(render::sessions::session)
            .core(),
        op(Post, Op::ReleaseDevice, "/api/v1/session/release", "sessions", "Give back this session's device lease (the session goes on).")
            .cli("session release", &["session", "release"])
            .describe("The next device operation of the session leases a device again.")
            .json::<SessionEnded>(render::sessions::ended)
            .core(),
        op(Post, Op::ConnectDevice, "/api/v1/device/connect", "devices", "Connect adb to an Android device over the network (host, port).")
            .cli("connect HOST:PORT", &["connect", "192.168.1.20:5555"])
            .describe("The only way the server makes adb reach out: a `udid` never does. Loopback addresses \
                       only, unless the server allows more (`--adb-connect-allow CIDR`): else 403 \
                       FORBIDDEN before anything is sent. Refused or unreachable: 503 DEVICE_UNREACHABLE \
                       (`details.reason`); no answer: 504 TIMEOUT; a name that does not resolve: 404 NOT_FOUND.")
            .errors(&[Forbidden, NotFound, DeviceUnreachable, DeviceOffline, ToolMissing, Timeout, CommandFailed, Busy, UnsupportedOnPlatform])
            .body::<ConnectRequest>()
            .json::<ConnectResult>(render::devices::connected),
        op(Post, Op::Erase, "/api/v1/device/erase", "devices", "Erase an iOS Simulator's content and settings.")
            .cli("erase [UDID]", &["erase", "iPhone 15"])
            .describe("A booted simulator is shut down, erased and booted again. Android: 501.")
            .errors(DEVICE)
            .body::<EraseRequest>()
            .json::<SettingDone>(render::devices::done),
        op(Post, Op::InstallHelper, "/api/v1/device/helper/install", "devices", "Install the on-device helper that reads and acts in milliseconds (Android: Appium's UiAutomator2 server).")
            .cli("helper install", &["helper", "install", "--apks", "apks/server.apk", "--apks", "apks/test.apk"])
            .describe("Android: the two APKs of the npm package `appium-uiautomator2-server` (`apks/`), given under \
                       the files root or found where npm or Appium installed them (`MOBILECTL_UIA2_APKS`, \
                       `./node_modules`, `npm root -g`, `~/.appium`; `looked_in` lists them); each file's manifest \
                       is read first and a file that is not the server's is refused before anything is installed \
                       (400). Afterwards reads and actions on the device go through the server (a snapshot's \
                       `source` says `uiautomator2-server`), started when first needed and stopped when the \
                       device's lease is released or mobilectl stops; a server another tool runs is left alone. \
                       A broken server (no answer, garbage, a hang) falls back to `uiautomator dump` and `input` with one note; a request it only refuses is done by those for that once. \
                       iOS: 501 (its tools need no helper).")
            .errors(DEVICE)
            .errors(&[NotFound, Forbidden])
            .body::<HelperInstallRequest>()
            .json::<HelperInstalled>(render::devices::helper_installed),
    ]
}

/// The apps operations.
fn apps() -> Vec<Operation> {
    vec![
        op(
            Post,
            Op::InstallApp,
            "/api/v1/device/app/install",
            "apps",
            "Install an app from a path on the server's machine (.apk, .app).",
        )
        .cli("app install PATH", &["app", "install", "/tmp/a.apk"])
        .errors(DEVICE)
        .errors(NAMED)
        .body::<InstallRequest>()
        .json::<AppDone>(render::devices::done),
        op(
            Post,
            Op::LaunchApp,
            "/api/v1/device/app/launch",
            "apps",
            "Launch an app; reports its launch time.",
        )
        .cli("app launch BUNDLE_ID", &["app", "launch", "com.example"])
        .errors(DEVICE)
        .errors(NAMED)
        .body::<LaunchRequest>()
        .json::<LaunchDone>(render::devices::done)
        .core(),
        op(
            Post,
            Op::TerminateApp,
            "/api/v1/device/app/terminate",
            "apps",
            "Stop an app.",
        )
        .cli(
            "app terminate BUNDLE_ID",
            &["app", "terminate", "com.example"],
        )
        .errors(DEVICE)
        .errors(NAMED)
        .body::<AppRequest>()
        .json::<AppDone>(render::devices::done)
        .core(),
        op(
            Post,
            Op::ResetApp,
            "/api/v1/device/app/reset",
            "apps",
            "Clear an app's data.",
        )
        .cli("app reset BUNDLE_ID", &["app", "reset", "com.example"])
        .errors(DEVICE)
        .errors(NAMED)
        .body::<AppRequest>()
        .json::<AppDone>(render::devices::done),
        op(
            Post,
            Op::ResetKeychain,
            "/api/v1/device/keychain/reset",
            "apps",
            "Empty the device's keychain: every app's saved passwords and tokens.",
        )
        .cli("app reset-keychain", &["app", "reset-keychain"])
        .describe("iOS Simulator: `simctl keychain reset`. Android has no keychain shared by apps \
                   (an app's keystore goes with its data: `reset_app`): nothing to do, success. \
                   iPhone: 501.")
        .errors(DEVICE)
        .body::<DeviceBody>()
        .json::<SettingDone>(render::devices::done),
        op(
            Get,
            Op::ListApps,
            "/api/v1/device/app/list",
            "apps",
            "List installed apps.",
        )
        .cli("app list", &["app", "list"])
        .errors(DEVICE)
        .query::<AppListQuery>()
        .json::<AppList>(render::devices::apps),
        op(
            Post,
            Op::OpenUrl,
            "/api/v1/device/open-url",
            "apps",
            "Open a URL or app link on the device.",
        )
        .cli("open URL", &["open", "https://example.com"])
        .errors(DEVICE)
        .body::<OpenUrlRequest>()
        .json::<AppDone>(render::devices::done)
        .core(),
        op(Post, Op::BuildApp, "/api/v1/apps/build", "apps", "Build an app from source (Gradle, xcodebuild); optionally install and launch it.")
            .cli("app build [PROJECT_DIR] --json", &["app", "build", "MyApp", "--install", "--json"])
            .describe(BUILD_DESCRIPTION)
            .errors(&[ValidationFailed, Forbidden, NotFound, ToolMissing, Busy, CommandFailed, Timeout])
            .errors(DEVICE)
            .body::<BuildRequest>()
            .json::<BuildResult>(render::build::result),
        op(Post, Op::BuildAppStream, "/api/v1/apps/build/stream", "apps", "Build an app, telling its phases, progress and diagnostics as they come (Server-Sent Events).")
            .cli("app build [PROJECT_DIR]", &["app", "build", "MyApp", "--launch"])
            .describe("What `build_app` does, told as it goes: one `started` event (the build's id and \
                       command), `progress` events (each phase, and the steps done at most four times a \
                       second), a `diagnostic` event for each distinct error or warning as it is seen, then one \
                       `result` (or `error`) event, and the stream ends. The request is checked and planned \
                       before the stream starts: its errors are plain answers. A client that goes away stops \
                       the build, its whole process tree.")
            .errors(&[ValidationFailed, Forbidden, NotFound, ToolMissing, Busy, CommandFailed])
            .errors(DEVICE)
            .body::<BuildRequest>()
            .events::<BuildEvent>(render::build::event),
        op(Get, Op::ListBuilds, "/api/v1/apps/builds", "apps", "The builds running now: phase, steps, errors so far.")
            .cli("app builds", &["app", "builds"])
            .json::<BuildList>(render::build::list),
        op(Post, Op::CancelBuild, "/api/v1/apps/build/cancel", "apps", "Stop a running build and its whole process tree.")
            .cli("app build-cancel ID", &["app", "build-cancel", "bld-0123456789ab"])
            .errors(&[NotFound])
            .body::<CancelBuild>()
            .json::<BuildCancelled>(render::build::cancelled),
    ]
}

/// What `build_app` says of itself (also in the OpenAPI document).
const BUILD_DESCRIPTION: &str = "Builds the project folder `project_dir`, under the folder the server was started with \
    (`serve --build-root DIR`; without it builds are refused): Android with the project's Gradle wrapper \
    (`./gradlew :MODULE:assembleVARIANT`, default `app` and `debug`), iOS with `xcodebuild` (workspace or project \
    and scheme from the folder when it holds one only, configuration `Debug`, the destination from the device: a \
    Simulator's udid, else generic). The platform is the named device's, else what the folder holds. Each setting left \
    out comes from the session's defaults, and each build's settings become them, so a second build needs no \
    arguments. The answer counts the steps, errors and warnings and lists the first 500 distinct diagnostics \
    (file, line, column, severity, message); `failure` says what made it fail (`compile`, `link`, `signing`, \
    `sdk_missing`, `scheme_missing`…) with what to do. `success: false` is an answer, not an error; the whole \
    output is the run artifact `log` names. With `install` (or `launch`) the built app (found from \
    `output-metadata.json` or `-showBuildSettings`, never guessed) is installed on the device (and started). Two \
    builds of one folder do not run at once (503 BUSY names the running one); `cancel_build` stops one.";

/// The inspect operations.
fn inspect() -> Vec<Operation> {
    vec![
        op(Get, Op::Snapshot, "/api/v1/device/ui", "inspect", "Read the screen: elements with refs e1..eN (JSON, or compact text with format=text).")
            .cli("snapshot", &["snapshot", "-i"])
            .errors(DEVICE)
            .query::<UiQuery>()
            .json_or_text::<SnapshotView>(render::inspect::snapshot)
            .core(),
        op(Get, Op::ScreenSummary, "/api/v1/device/screen-summary", "inspect", "What is on screen, in brief.")
            .cli("summary", &["summary"])
            .describe("Title, counts by role, interactive elements, alert, keyboard, focused field, scroll containers.")
            .errors(DEVICE)
            .query::<DeviceQuery>()
            .json::<SummaryView>(render::devices::summary)
            .core(),
        op(Get, Op::Find, "/api/v1/device/ui/find", "inspect", "Find elements by free text, best match first.")
            .cli("find QUERY", &["find", "log in"])
            .errors(DEVICE)
            .query::<FindQuery>()
            .json::<FindResult>(render::devices::matches)
            .core(),
        op(Get, Op::Screenshot, "/api/v1/device/screenshot", "inspect", "The screen as PNG or JPEG, optionally scaled.")
            .cli("screenshot", &["screenshot", "-o", "s.png"])
            .describe("Headers: `x-original-size`, `x-image-size`, `x-scale`, `x-coordinate-space` (pixels on \
                       Android, points on iOS) and `x-tap-per-image-pixel` (multiply an image pixel \
                       position by it to get tap coordinates).")
            .errors(DEVICE)
            .query::<ScreenshotQuery>()
            .image()
            .core(),
        op(Get, Op::ScreenshotAnnotated, "/api/v1/device/screenshot/annotated", "inspect", "The screen with each ref's box and tag drawn on it.")
            .cli("screenshot --annotate", &["screenshot", "--annotate"])
            .describe("The refs are those of the snapshot taken at the same moment, which becomes the \
                       device's latest (`x-snapshot-id`). `grid=true` overlays lettered columns and \
                       numbered rows; tap a cell with `{\"grid\": \"C5\"}`.")
            .errors(DEVICE)
            .query::<AnnotatedQuery>()
            .image()
            .core(),
        op(Post, Op::ScreenshotDiff, "/api/v1/device/screenshot/diff", "inspect", "Compare the screen with a baseline: changed regions and share.")
            .cli("screenshot diff", &["screenshot", "diff", "--previous"])
            .describe("`baseline`: `{\"previous\": true}` (the screenshot taken before the last action: every \
                       screenshot the server takes for this caller is kept, the diff's own too), `{\"png\": \
                       BASE64}` (at most 20 MiB) or `{\"artifact\": {\"run\", \"name\"}}`. A baseline of \
                       another size is scaled when the aspect ratio agrees, else 422 BASELINE_UNUSABLE with \
                       both sizes (so is one that is not a PNG). Pixels differing by more than \
                       `channel_threshold` in a channel change; changes within 16 px are one region; regions \
                       under 24 changed pixels are noise. `regions` and `mask` are in the unit taps use \
                       (`coordinate_space`: pixels on Android, points on iOS). The status bar is masked unless \
                       `mask_status_bar: false` (its band from the kept snapshot's tree, else 3.5% of the \
                       height in pixels, 6.5% in points). `save: true` adds `image`, the screen with the \
                       regions outlined and numbered (base64 PNG).")
            .errors(DEVICE)
            .errors(&[BaselineUnusable, NotFound, RunNotFound, ArtifactNotFound])
            .body_limit(BASELINE_BODY_LIMIT)
            .body::<DiffRequest>()
            .json::<DiffResult>(render::inspect::diff),
        op(
            Post,
            Op::Audit, "/api/v1/device/ui/audit", "inspect", "Audit the screen's accessibility: unnamed controls, small targets, low contrast, with refs.")
            .cli("audit", &["audit", "--fail-on", "error"])
            .describe("Rules over the screen's tree and its screenshot's pixels (Google's Accessibility Test \
                       Framework and WCAG 2.2): `unnamed-control`, `touch-target` (48×48 dp on Android from \
                       `density`, default the device's `wm density`; 44×44 pt on iOS), `text-contrast` (4.5:1, \
                       3:1 large), `non-text-contrast` (3:1), `duplicate-name`, `name-repeats-role`, \
                       `field-labelled-by-description`, `overlapping-targets`, `vague-link-text`. Each finding: \
                       rule, severity, ref, role, name, bounds, measured against needed, WCAG criterion, fix, \
                       and a `key` of its element's identity (not its ref). `baseline` (an earlier answer) keeps \
                       only new findings; `fail_on` answers `fails`. `annotate: true` adds `image`, the screen \
                       with each finding's box (base64 PNG). Through WebDriverAgent (iOS 17+) Apple's own \
                       audit is merged in, its findings `engine: apple`. Offline: `mobilectl audit \
                       --from-file DUMP [--screenshot PNG]`.")
            .errors(DEVICE)
            .errors(&[ValidationFailed])
            .body_limit(BASELINE_BODY_LIMIT)
            .body::<AuditRequest>()
            .json::<AuditResult>(render::audit::audit),
    ]
}

/// The recordings operations.
fn recordings() -> Vec<Operation> {
    vec![
        op(Post, Op::RecordingStart, "/api/v1/device/recording/start", "recordings", "Start recording the screen to MP4 (stops by itself at max_s).")
            .cli("record start", &["record", "start", "--max-s", "60"])
            .describe("One recording per device: a second start answers 409 RECORDING_ACTIVE. It stops by \
                       itself at `max_s` (default 300, at most 1800), when the session that started it \
                       ends and when the server shuts down, always finalised. Android: `screenrecord`, \
                       chained past its 180 s per-file limit into one MP4. iOS Simulator: `simctl io \
                       recordVideo --codec h264` (`size`, `scale`, `bit_rate` are Android's). iPhone \
                       over WebDriverAgent: 501.")
            .errors(DEVICE)
            .errors(&[RecordingActive])
            .body::<RecordingStart>()
            .json::<RecordingInfo>(render::recordings::recording),
        op(Post, Op::RecordingStop, "/api/v1/device/recording/stop", "recordings", "Stop the recording; answers the MP4's path, duration and size.")
            .cli("record stop", &["record", "stop"])
            .describe("The file is finalised and read back before the answer. A recording that stopped \
                       by itself (`max_s`) is answered once by the next stop; otherwise a stop without a \
                       running recording answers 409 NOT_RECORDING.")
            .errors(DEVICE)
            .errors(&[NotRecording])
            .body::<RecordingStop>()
            .json::<RecordingInfo>(render::recordings::recording),
        op(Get, Op::ListRecordings, "/api/v1/recordings", "recordings", "The recordings of this server, newest first.")
            .cli("recordings", &["recordings"])
            .json::<RecordingList>(render::recordings::list),
        op(Get, Op::GetRecording, "/api/v1/recordings/{id}", "recordings", "A finished recording's MP4.")
            .cli("recording get ID", &["recording", "get", "rec-20261125-010203-0a1b2c3d", "-o", "run.mp4"])
            .errors(NAMED)
            .errors(&[RecordingActive])
            .query::<RecordingPath>()
            .file(&["video/mp4"])
            .document(),
        op(Delete, Op::DeleteRecording, "/api/v1/recordings/{id}", "recordings", "Delete a finished recording and its file.")
            .cli("recording delete ID", &["recording", "delete", "rec-20261125-010203-0a1b2c3d"])
            .errors(NAMED)
            .errors(&[RecordingActive])
            .query::<RecordingPath>()
            .json::<RecordingDeleted>(render::recordings::deleted),
    ]
}

/// The act operations.
fn act() -> Vec<Operation> {
    vec![
        op(Post, Op::Tap, "/api/v1/device/ui/tap", "act", "Tap a ref, a point (x, y), a selector's element or a grid cell.")
            .cli("tap TARGET", &["tap", "@e1"])
            .errors(DEVICE)
            .errors(NAMED) // `measure`: the app does not run
            .errors(TARGET)
            .body::<TapRequest>()
            .json::<ActionResult>(render::act::action)
            .core(),
        op(Post, Op::TapElement, "/api/v1/device/ui/tap-element", "act", "Tap the element with a label, identifier and/or type.")
            .cli("tap-element LABEL", &["tap-element", "LOG IN"])
            .errors(DEVICE)
            .errors(TARGET)
            .body::<TapElementRequest>()
            .json::<ActionResult>(render::act::action),
        op(Post, Op::LongPress, "/api/v1/device/ui/long-press", "act", "Long-press a ref, a point or a selector's element.")
            .cli("long-press TARGET", &["long-press", "10,20"])
            .errors(DEVICE)
            .errors(NAMED) // `measure`: the app does not run
            .errors(TARGET)
            .body::<LongPressRequest>()
            .json::<ActionResult>(render::act::action)
            .core(),
        op(Post, Op::Swipe, "/api/v1/device/ui/swipe", "act", "Swipe from a point to a point, or across a target in a direction.")
            .cli("swipe FROM TO", &["swipe", "1,2", "3,4"])
            .errors(DEVICE)
            .errors(NAMED) // `measure`: the app does not run
            .errors(TARGET)
            .body::<SwipeRequest>()
            .json::<ActionResult>(render::act::action)
            .core(),
        op(Post, Op::Scroll, "/api/v1/device/ui/scroll", "act", "Scroll a container once (default: the biggest scrollable one).")
            .cli("scroll", &["scroll"])
            .errors(DEVICE)
            .errors(NAMED) // `measure`: the app does not run
            .errors(TARGET)
            .body::<ScrollRequest>()
            .json::<ActionResult>(render::act::action)
            .core(),
        op(Post, Op::ScrollTo, "/api/v1/device/ui/scroll-to", "act", "Scroll until a selector's element is in view.")
            .cli("scroll-to SELECTOR", &["scroll-to", "text:Order"])
            .errors(DEVICE)
            .errors(TARGET)
            .body::<ScrollToRequest>()
            .json::<ActionResult>(render::act::action),
        op(Post, Op::TypeText, "/api/v1/device/ui/type", "act", "Type text into the focused field or a target; reads the field back.")
            .cli("type TARGET TEXT", &["type", "@e1", "hi"])
            .errors(DEVICE)
            .errors(NAMED) // `measure`: the app does not run
            .errors(TARGET)
            .errors(&[UnsupportedText])
            .body::<TypeOptions>()
            .json::<ActionResult>(render::act::action)
            .core(),
        op(Post, Op::Press, "/api/v1/device/ui/press", "act", "Press a key: back, home, enter, delete, tab, volume_up… or an Android key code.")
            .cli("press KEY", &["press", "back"])
            .errors(DEVICE)
            .errors(NAMED) // `measure`: the app does not run
            .errors(&[AlertBlocking, ElementNotInteractable])
            .body::<PressRequest>()
            .json::<ActionResult>(render::act::action)
            .core(),
        op(Post, Op::HideKeyboard, "/api/v1/device/ui/hide-keyboard", "act", "Hide the on-screen keyboard if it is up.")
            .cli("hide-keyboard", &["hide-keyboard"])
            .errors(DEVICE)
            .errors(&[AlertBlocking, ElementNotInteractable])
            .body::<DeviceBody>()
            .json::<ActionResult>(render::act::action)
            .core(),
        op(Post, Op::MultiTouch, "/api/v1/device/ui/multi-touch", "act", "Pinch (scale) or rotate (degrees) with two fingers around a target.")
            .cli("multi-touch GESTURE", &["multi-touch", "pinch", "--scale", "2", "--x", "200", "--y", "400"])
            .describe("iPhone (WebDriverAgent): two simultaneous W3C touch pointers. Android and iOS \
                       Simulators: 501 (their tools inject one touch at a time; two swipes in a row \
                       would not be a pinch).")
            .errors(DEVICE)
            .errors(TARGET)
            .body::<MultiTouchRequest>()
            .json::<ActionResult>(render::act::action),
        op(Post, Op::Batch, "/api/v1/device/batch", "act", "Run act and verify steps in order under one hold of the device; stop at a failure.")
            .cli("batch FILE", &["batch", "--step", "tap @e1", "--step", "wait text:OK"])
            .describe("Each step is `{op, body}`: an act or verify operation and its body as its own route takes \
                       it (without `udid`). All steps are checked before the first runs; each answers what \
                       its route answers. With `observe`, one read at the end and what changed over the batch.")
            .errors(DEVICE)
            .body::<BatchRequest>()
            .json::<BatchResult>(render::act::batch),
    ]
}

/// The flows operations.
fn flows() -> Vec<Operation> {
    vec![
        op(Post, Op::FlowRun, "/api/v1/flows/run", "flows", "Run a Maestro flow (YAML text, env) on a device; every step's outcome.")
            .cli("flow run FILE --json", &["flow", "run", "login.yaml", "--env", "USER=bob", "--junit", "report.xml", "--json"])
            .describe("The flow is parsed and checked whole (sub-flows from `files`, `${NAME}` from `env`) before \
                       any device command: a command this runner does not support, JavaScript or a `runFlow` \
                       cycle answers 400 VALIDATION with the file, line and command (a variable nothing sets \
                       fails only the step that needs it, naming it). Then it runs \
                       under one hold of the device: selectors are Maestro's (regex on text, id, label), waits read \
                       the screen until they hold, and a failed step stops the run (unless `optional`) after its \
                       screenshot, tree and log are saved in `artifacts`. `success: false` is an answer, not an error.")
            .errors(DEVICE)
            .body_limit(FLOW_BODY_LIMIT)
            .body::<FlowRunRequest>()
            .json::<FlowRunResult>(render::maestro::run),
        op(Post, Op::FlowRunStream, "/api/v1/flows/run/stream", "flows", "Run a Maestro flow, answering each step as it ends, then the result (Server-Sent Events).")
            .cli("flow run FILE", &["flow", "run", "login.yaml"])
            .describe("What `flow_run` does, told as it goes: a `step` event as each step ends (its `id` its \
                       index in the result's `steps`; a `runFlow`, `repeat` or `retry` ends after the steps \
                       inside it, and a retried attempt's steps are marked `warned` in the result only), then \
                       one `result` event, and the stream ends. The flow is checked and the device resolved \
                       before the stream starts: their errors are plain answers. A client that goes away \
                       stops the run.")
            .errors(DEVICE)
            .body_limit(FLOW_BODY_LIMIT)
            .body::<FlowRunRequest>()
            .events::<FlowEvent>(render::maestro::event),
        op(Post, Op::FlowTest, "/api/v1/flows/test", "flows", "Run a suite: the flows a folder's config.yaml selects (globs, tags, order), each flow's outcome.")
            .cli("flow test DIR --json", &["flow", "test", ".maestro", "--include-tags", "smoke", "--json"])
            .describe("`files` holds the folder: its flows, their sub-flows and its workspace `config.yaml`, \
                       whose `flows` globs (default `*`), `includeTags`/`excludeTags` (with `include_tags`/\
                       `exclude_tags`) and `executionOrder` (`flowsOrder` first; `continueOnFailure`, default \
                       true) select and order the flows, as `maestro test` does. Each flow is checked and run as \
                       `flow_run` runs it, under its own hold of the device; a refused flow is `invalid` and the \
                       suite goes on. A suite that selects nothing, or a glob that leaves the folder, is 400. \
                       The suite's JUnit and JSON reports join the caller's run; `success: false` is an answer.")
            .errors(DEVICE)
            .body::<FlowTestRequest>()
            .json::<SuiteResult>(render::maestro::suite),
        op(Post, Op::FlowTestStream, "/api/v1/flows/test/stream", "flows", "Run a suite, answering each step and each flow as it ends, then the result (Server-Sent Events).")
            .cli("", &["call", "flow_test_stream", r#"{"files": {"login.yaml": "- launchApp\n"}}"#])
            .describe("What `flow_test` does, told as it goes: a `step` event as each step ends, with the \
                       flow it is from (`flow`, its file; the `id` is the flow's index, a dot, the step's index \
                       in that flow's steps), a `flow` event as each flow's outcome is known (the `id` its \
                       index in the result's `flows`; a flow an earlier failure stopped is `not_run`), then one \
                       `result` event, what `flow_test` answers (its reports saved the same way), and the \
                       stream ends. The suite is planned and the device resolved before the stream starts: \
                       their errors are plain answers; a suite that cannot go on (its device went away) ends \
                       with an `error` event. A client that goes away stops the suite.")
            .errors(DEVICE)
            .body::<FlowTestRequest>()
            .events::<SuiteEvent>(render::maestro::suite_event),
        op(Post, Op::FlowRecordStart, "/api/v1/flows/record/start", "flows", "Record this caller's acts and verifies as a Maestro flow.")
            .cli("flow record start", &["flow", "record", "start"])
            .describe("Per session (or per session-less caller). Each successful act or verify operation \
                       becomes Maestro commands; a ref becomes the most stable selector matching only its \
                       element on the screen it was read from (id, text, index, a point last); typing into \
                       a password field records `${PASSWORD}`; a wait becomes `extendedWaitUntil`.")
            .body::<RecordStart>()
            .json::<RecordStarted>(render::maestro::record_started),
        op(Post, Op::FlowRecordStop, "/api/v1/flows/record/stop", "flows", "Stop recording; the Maestro flow of what was done.")
            .cli("flow record stop", &["flow", "record", "stop", "-o", "flow.yaml"])
            .errors(&[NotFound])
            .body::<RecordStop>()
            .json::<Recorded>(render::maestro::recorded),
    ]
}

/// The verify operations.
fn verify() -> Vec<Operation> {
    vec![
        op(Post, Op::Wait, "/api/v1/device/ui/wait", "verify", "Wait until a selector's element meets a condition (a timeout is an answer).")
            .cli("wait SELECTOR", &["wait", "text:OK"])
            .errors(DEVICE)
            .body::<WaitRequest>()
            .json::<WaitResult>(render::verify::wait)
            .core(),
        op(Post, Op::Expect, "/api/v1/device/ui/expect", "verify", "Judge the screen: element visible or not, text, app, activity, fingerprint, screenshot, accessibility.")
            .cli("expect", &["expect", "app", "com.example"])
            .describe("One read of the screen, except `screen_matches`: a visual diff against `baseline` (as \
                       screenshot_diff takes it), `success` when at most `tolerance` (default 0.001) of the \
                       compared pixels changed, else `failure_code: SCREEN_MISMATCH` with the share and the \
                       regions in `observed`; with `timeout_ms` it compares again every 300 ms until it matches. \
                       `accessible`: the audit's rules (as `audit`), `success` when no finding is at or above \
                       `fail_on` (default error) or, with `audit_baseline` (an earlier audit's answer), none \
                       is new; else `failure_code: ACCESSIBILITY_FINDINGS` with the findings in `observed`.")
            .errors(DEVICE)
            .errors(&[BaselineUnusable, NotFound, RunNotFound, ArtifactNotFound])
            .body_limit(BASELINE_BODY_LIMIT)
            .body::<ExpectRequest>()
            .json::<ExpectResult>(render::verify::expect)
            .core(),
        op(Post, Op::WaitForChange, "/api/v1/device/ui/wait-for-change", "verify", "Wait until the screen differs from a fingerprint, then confirm it settled.")
            .cli("wait-for-change [FINGERPRINT]", &["wait-for-change"])
            .errors(DEVICE)
            .body::<WaitForChangeRequest>()
            .json::<ChangeResult>(render::verify::change)
            .core(),
        op(Post, Op::AlertAccept, "/api/v1/device/alert/accept", "verify", "Accept the alert on screen (Allow, OK…) or tap its `button`.")
            .cli("alert accept", &["alert", "accept"])
            .errors(DEVICE)
            .errors(&[NoAlert, ElementNotFound])
            .body::<AlertRequest>()
            .json::<ActionResult>(render::act::action)
            .core(),
        op(Post, Op::AlertDismiss, "/api/v1/device/alert/dismiss", "verify", "Dismiss the alert on screen (Don't allow, Cancel…) or tap its `button`.")
            .cli("alert dismiss", &["alert", "dismiss"])
            .errors(DEVICE)
            .errors(&[NoAlert, ElementNotFound])
            .body::<AlertRequest>()
            .json::<ActionResult>(render::act::action)
            .core(),
    ]
}

/// The system operations.
fn system() -> Vec<Operation> {
    vec![
        op(
            Post,
            Op::SetLocation,
            "/api/v1/device/location",
            "system",
            "Set or clear the simulated GPS location.",
        )
        .cli(
            "location [LATITUDE] [LONGITUDE]",
            &["location", "48.85", "-2.35"],
        )
        .errors(DEVICE)
        .body::<LocationRequest>()
        .json::<SettingDone>(render::devices::done),
        op(
            Post,
            Op::SetPermission,
            "/api/v1/device/permission",
            "system",
            "Grant, revoke or reset an app permission.",
        )
        .cli(
            "permission ACTION BUNDLE_ID PERMISSION",
            &["permission", "grant", "com.example", "camera"],
        )
        .errors(DEVICE)
        .errors(NAMED)
        .body::<PermissionRequest>()
        .json::<SettingDone>(render::devices::done),
        op(
            Post,
            Op::StatusBar,
            "/api/v1/device/status-bar",
            "system",
            "Override (or clear) an iOS Simulator's status bar.",
        )
        .cli("status-bar", &["status-bar", "--time", "9:41"])
        .errors(DEVICE)
        .body::<StatusBarRequest>()
        .json::<SettingDone>(render::devices::done),
    ]
}

/// The device features: location, permissions, clipboard, files, notifications…
fn device_features() -> Vec<Operation> {
    vec![
        op(Get, Op::GetClipboard, "/api/v1/device/clipboard", "system", "Read the clipboard.")
            .cli("clipboard get", &["clipboard", "get"])
            .describe("iOS Simulator: `simctl pbpaste`; iPhone: WDA `/wda/getPasteboard`. Android: `cmd clipboard get-text` where the OS \
                       has it (else 501: Android 10+ restricts clipboard reads to the focused app).")
            .errors(DEVICE)
            .query::<DeviceQuery>()
            .json::<ClipboardView>(render::features::clipboard),
        op(Put, Op::SetClipboard, "/api/v1/device/clipboard", "system", "Set the clipboard's text.")
            .cli("clipboard set TEXT", &["clipboard", "set", "hello"])
            .describe("iOS Simulator: `simctl pbcopy`; iPhone: WDA `/wda/setPasteboard`. Android: `cmd clipboard set-text` where the OS has \
                       it, else 501. At most 64 KiB.")
            .errors(DEVICE)
            .body::<ClipboardSet>()
            .json::<SettingDone>(render::devices::done),
        op(Get, Op::GetOrientation, "/api/v1/device/orientation", "system", "Read the screen orientation.")
            .cli("orientation get", &["orientation", "get"])
            .describe("Android: the UI dump's rotation, and whether auto-rotate is on. iPhone: WDA \
                       `/orientation`. iOS Simulator: 501.")
            .errors(DEVICE)
            .query::<DeviceQuery>()
            .json::<OrientationView>(render::features::orientation),
        op(Put, Op::SetOrientation, "/api/v1/device/orientation", "system", "Rotate the screen, or restore auto-rotate.")
            .cli("orientation set [ORIENTATION]", &["orientation", "set", "landscape"])
            .describe("Android: auto-rotate is locked and `user_rotation` set; `restore: true` turns \
                       auto-rotate back on. Snapshots and coordinates follow the turned screen: take a \
                       new snapshot after turning. iPhone: WDA `/orientation` (`restore`: 501). iOS \
                       Simulator: 501 (simctl cannot rotate).")
            .errors(DEVICE)
            .body::<OrientationRequest>()
            .json::<SettingDone>(render::devices::done),
        op(Post, Op::SendIntent, "/api/v1/device/intent", "system", "Send an Android intent: start an activity or broadcast.")
            .cli("intent", &["intent", "--action", "android.intent.action.VIEW", "--data", "https://example.com"])
            .describe("`am start -W` (mode `start`) or `am broadcast`, every value quoted for the device \
                       shell and typed extras checked against their types first. The answer carries \
                       what `am` said and the activity it started. iOS: 501.")
            .errors(DEVICE)
            .errors(&[NotFound])
            .body::<IntentRequest>()
            .json::<IntentDone>(render::features::intent),
        op(Post, Op::PushFile, "/api/v1/device/files/push", "system", "Push a file (under the files root) to the device.")
            .cli("files push LOCAL_PATH DEVICE_PATH", &["files", "push", "a.txt", "/sdcard/Download/a.txt"])
            .describe("Local paths stay under the server's `--files-root` (default its working directory; \
                       symlinks resolved first: 403 FORBIDDEN outside), at most 1 GiB. The device path \
                       is absolute, without a `..` segment (400). Android: adb \
                       push. iOS Simulator: into the data container of `bundle_id` \
                       (`simctl get_app_container`). iPhone: 501.")
            .errors(DEVICE)
            .errors(&[Forbidden, NotFound])
            .body::<FilePush>()
            .json::<FileDone>(render::features::file),
        op(Post, Op::PullFile, "/api/v1/device/files/pull", "system", "Pull a device file into the files root.")
            .cli("files pull DEVICE_PATH LOCAL_PATH", &["files", "pull", "/sdcard/Download/a.txt", "b.txt"])
            .describe("As push: under `--files-root`, at most 1 GiB, an existing file kept unless \
                       `overwrite`. Android: adb pull. iOS Simulator: from the data container of \
                       `bundle_id`. iPhone: 501.")
            .errors(DEVICE)
            .errors(&[Forbidden, NotFound])
            .body::<FilePull>()
            .json::<FileDone>(render::features::file),
        op(Post, Op::AddMedia, "/api/v1/device/media", "system", "Add a photo or video from the files root to the gallery.")
            .cli("media add LOCAL_PATH", &["media", "add", "photo.jpg"])
            .describe("iOS Simulator: `simctl addmedia`. Android: pushed to /sdcard/Pictures (videos: \
                       /sdcard/Movies) and announced to the media scanner. Paths as for `push_file`.")
            .errors(DEVICE)
            .errors(&[Forbidden, NotFound])
            .body::<MediaRequest>()
            .json::<MediaDone>(render::features::media),
        op(Post, Op::PostNotification, "/api/v1/device/notification", "system", "Post a notification (Android) or push one to an app (Simulator).")
            .cli("notify", &["notify", "--title", "Hi", "--body", "Hello"])
            .describe("Android: `cmd notification post` as the shell. iOS Simulator: `simctl push` of \
                       `payload` (an APNs JSON object with `aps`, at most 4 KB) or of one made from \
                       `title` and `body`, to `bundle_id`. iPhone: 501.")
            .errors(DEVICE)
            .body::<NotificationRequest>()
            .json::<SettingDone>(render::devices::done),
        op(Get, Op::ListNotifications, "/api/v1/device/notifications", "system", "The notifications in the shade.")
            .cli("notifications", &["notifications"])
            .describe("Android: the shade is opened, read through the UI tree and closed again. iOS: 501.")
            .errors(DEVICE)
            .query::<DeviceQuery>()
            .json::<NotificationList>(render::features::notifications),
        op(Post, Op::Biometric, "/api/v1/device/biometric", "system", "Simulate Face ID / Touch ID / fingerprint: enroll, unenroll, match, nonmatch.")
            .cli("biometric ACTION", &["biometric", "match"])
            .describe("iOS Simulator: BiometricKit notifications (`simctl spawn … notifyutil`). Android \
                       emulator: the console's `finger touch` (match: finger 1, nonmatch: 2; enrolling \
                       is done in its Settings: 501). Physical devices: 501.")
            .errors(DEVICE)
            .body::<BiometricRequest>()
            .json::<SettingDone>(render::devices::done),
        op(Post, Op::SetAirplaneMode, "/api/v1/device/airplane-mode", "system", "Turn airplane mode on or off (without `enabled`: toggle it).")
            .cli("airplane-mode [ENABLED]", &["airplane-mode", "true"])
            .describe("Android: `cmd connectivity airplane-mode enable|disable` (Android 11+), then read back; where \
                       the OS has no such command, the setting `global airplane_mode_on` and the \
                       `AIRPLANE_MODE` broadcast, which Android 7+ refuses from the shell without root: \
                       then `note` says the radios may not have followed. The answer's `enabled` is the mode \
                       read back after the change. iOS Simulator: 501 (it has no airplane mode); iPhone: 501.")
            .errors(DEVICE)
            .body::<AirplaneModeRequest>()
            .json::<AirplaneModeDone>(render::features::airplane_mode),
    ]
}

/// The network operations.
fn network() -> Vec<Operation> {
    vec![
        op(Post, Op::ProxyStart, "/api/v1/proxy/start", "network", "Start the recording proxy.")
            .cli("proxy start", &["proxy", "start"])
            .describe("Listens on 127.0.0.1 at the server's `--proxy-port` unless `port` is given (0: \
                       any free port). `passthrough`: more hosts tunnelled without decryption. \
                       Running already: its status, unchanged, with a note.")
            .errors(&[PortInUse, Unknown])
            .body::<ProxyStartRequest>()
            .json::<ProxyStatus>(render::flows::status),
        op(Post, Op::ProxyStop, "/api/v1/proxy/stop", "network", "Stop the proxy (detaches devices first).")
            .cli("proxy stop", &["proxy", "stop"])
            .describe("Refused (`DEVICE_LEASED`, nothing changed) while a device attached to it is \
                       leased by another session than the caller's.")
            .errors(&[DeviceLeased])
            .body::<ProxyStopRequest>()
            .json::<ProxyStatus>(render::flows::status),
        op(Get, Op::ProxyStatus, "/api/v1/proxy/status", "network", "Proxy state: address, CA, devices.")
            .cli("proxy status", &["proxy", "status"])
            .json::<ProxyStatus>(render::flows::status),
        op(Get, Op::ProxyCa, "/api/v1/proxy/ca.pem", "network", "The proxy CA certificate (PEM).")
            .cli("proxy ca", &["proxy", "ca", "-o", "ca.pem"])
            .describe("Made once and kept in the state directory; its private key is never served.")
            .errors(&[Unknown])
            .file(&["application/x-pem-file"]),
        op(Post, Op::ProxyAttach, "/api/v1/proxy/attach", "network", "Route a device's traffic through the proxy.")
            .cli("proxy attach [UDID]", &["proxy", "attach"])
            .describe("Android: `adb reverse tcp:P tcp:P` and `settings put global http_proxy \
                       127.0.0.1:P` (the previous value is restored on detach). iOS Simulator: the \
                       CA is added to its keychain; it uses the Mac's proxy settings, which `todo` \
                       says how to set. HTTPS needs the device to trust the CA: see `todo`.")
            .errors(DEVICE)
            .errors(&[PortInUse, Unknown])
            .body::<ProxyDeviceRequest>()
            .json::<ProxyAttachResult>(render::flows::attached),
        op(Post, Op::ProxyDetach, "/api/v1/proxy/detach", "network", "Undo proxy_attach.")
            .cli("proxy detach [UDID]", &["proxy", "detach"])
            .errors(DEVICE)
            .body::<ProxyDeviceRequest>()
            .json::<ProxyDetachResult>(render::flows::detached),
        op(Get, Op::ListFlows, "/api/v1/proxy/flows", "network", "Recorded network requests, filtered.")
            .cli("proxy flows", &["proxy", "flows", "--status", "4xx"])
            .describe("Oldest first. `host`: that host or a domain with its subdomains; `status`: `404` \
                       or a class `4xx`; `failed`: no answer, 4xx or 5xx; `contains`: text in \
                       the URL; `since`: after a flow id, since an RFC 3339 time or a while ago \
                       (`5m`). Without `since`: the newest `limit` (default 100, at most 1000); \
                       with it: the first `limit` after it, then go on with `since=next_cursor`.")
            .query::<FlowsQuery>()
            .json::<FlowList>(render::flows::list),
        op(Get, Op::GetFlow, "/api/v1/proxy/flows/{id}", "network", "One request: headers, bodies, timing.")
            .cli("proxy flow ID", &["proxy", "flow", "12"])
            .describe("Secret headers (Authorization, Cookie, Set-Cookie, Proxy-Authorization) are \
                       redacted unless `reveal=true` on a loopback server. `body=request|response` \
                       answers that body's bytes (decoded) in its own content type.")
            .errors(&[NotFound, Forbidden])
            .query::<FlowQuery>()
            .json_or_bytes::<FlowDetail>(render::flows::flow),
        op(Get, Op::StreamFlows, "/api/v1/proxy/flows/stream", "network", "New requests as Server-Sent Events.")
            .cli("proxy flows --follow", &["proxy", "flows", "--follow"])
            .describe("The filters of list_flows; with `since`, the matching flows after it first; \
                       `limit`: end after that many.")
            .query::<FlowsQuery>()
            .events::<FlowLine>(render::flows::line),
        op(Get, Op::GetFlowSummary, "/api/v1/proxy/summary", "network", "Network summary: hosts, failures, slowest.")
            .cli("proxy summary", &["proxy", "summary"])
            .describe("`since` and `host` as for list_flows.")
            .query::<SummaryQuery>()
            .json::<FlowSummary>(render::flows::summary),
        op(Delete, Op::ClearFlows, "/api/v1/proxy/flows", "network", "Forget recorded requests.")
            .cli("proxy clear", &["proxy", "clear"])
            .json::<Cleared>(render::flows::cleared),
        op(Get, Op::ExportHar, "/api/v1/proxy/flows.har", "network", "Recorded requests as HAR 1.2 (devtools, Charles, Proxyman).")
            .cli("proxy har", &["proxy", "har"])
            .describe("Every flow in the store, oldest first (tunnels left out). Secrets are redacted \
                       as in every view; bodies decoded, as text or base64. `_flowId`, `_ruleId` and \
                       `_error` are mobilectl's. Not an MCP tool (a whole document): list_flows \
                       and get_flow read flows.")
            .json::<Har>(render::rules::har)
            .document(),
        op(Post, Op::AddProxyRule, "/api/v1/proxy/rules", "network", "Mock, delay, throttle, fail or rewrite requests.")
            .cli("proxy mock", &["proxy", "mock", "--path", "/api/login", "--status", "500", "--body", "down"])
            .describe("Match on `method`, `host` (`*.example.com`), `path` (prefix) | `path_glob` | \
                       `path_regex`, `query` (a value `*`: any), `header` (`name` or `name: value`), `json_field` \
                       (+ `json_equals`); every field given must hold. `nth`: act on the Nth match \
                       only; `times`: at most N times. `action`: respond (default: `status`, \
                       `headers`, `body` | `body_json` | `body_base64` | `body_file`: a file under \
                       the server's files root, read once when added, `delay_ms`), \
                       delay (`delay_ms` before forwarding, `first_byte_delay_ms`), throttle \
                       (`down_bytes_per_sec`, `up_bytes_per_sec`), fail (`fail`: reset, timeout, \
                       502, 503, 504, cut + `cut_after_bytes`), rewrite (`request_headers`, \
                       `response_headers`: a value sets, `null` removes; `json_patch`), passthrough. Rules are evaluated in order; the first that \
                       matches and may act decides. Flows it acts on carry `rule_id` and `mocked`. \
                       Validated whole: a rule that can never match is refused with the reason.")
            .errors(&[Forbidden, NotFound])
            .body::<RuleSpec>()
            .json::<RuleView>(render::rules::rule),
        op(Get, Op::ListProxyRules, "/api/v1/proxy/rules", "network", "List proxy rules.")
            .cli("proxy rules", &["proxy", "rules"])
            .json::<RuleList>(render::rules::list),
        op(Delete, Op::DeleteProxyRule, "/api/v1/proxy/rules/{id}", "network", "Remove one proxy rule.")
            .cli("proxy unmock ID", &["proxy", "unmock", "3"])
            .errors(&[NotFound])
            .query::<RuleQuery>()
            .json::<RuleView>(render::rules::rule),
        op(Delete, Op::ClearProxyRules, "/api/v1/proxy/rules", "network", "Remove all proxy rules.")
            .cli("proxy unmock-all", &["proxy", "unmock-all"])
            .json::<Cleared>(render::rules::cleared),
        op(Post, Op::ProxyRulesFromHar, "/api/v1/proxy/rules/from-har", "network", "Replay a HAR: its answers become respond rules.")
            .cli("proxy replay-har", &["proxy", "replay-har", "--har", "{\"log\":{\"entries\":[]}}"])
            .describe("Entries with an answer (to `host` and its subdomains when given) become \
                       respond rules matching their method, host, exact path and query. Repeats of \
                       one method and URL replay in order. All are added or none. Not an MCP \
                       tool (a whole document): add_proxy_rule adds one rule.")
            .body::<RulesFromHarRequest>()
            .json::<RulesAdded>(render::rules::added)
            .document(),
        op(Post, Op::SetProxyConditions, "/api/v1/proxy/conditions", "network", "Slow or cut the device link.")
            .cli("proxy conditions", &["proxy", "conditions", "--profile", "3g"])
            .describe("A `profile`, and/or explicit `latency_ms`, `jitter_ms`, `down_kbps`, \
                       `up_kbps`, `loss_percent` (overriding the profile's). `offline` closes every \
                       connection without an answer; loss closes that share of them. Applied to \
                       every request before the rules; shown in proxy status.")
            .body::<ConditionsRequest>()
            .json::<ConditionsState>(render::rules::conditions),
        op(Delete, Op::ClearProxyConditions, "/api/v1/proxy/conditions", "network", "Clear link conditions.")
            .cli("proxy conditions-clear", &["proxy", "conditions-clear"])
            .json::<ConditionsState>(render::rules::conditions),
    ]
}

/// The logs operations.
fn logs() -> Vec<Operation> {
    vec![
        op(Get, Op::TailLogs, "/api/v1/logs", "logs", "The device log's newest entries, or those after `since`.")
            .cli("logs", &["logs", "--level", "W"])
            .describe("Filters: `level` (minimum), `tag`, `app`, `contains`, `regex`. The answer's \
                       `cursor`, passed as `since`, reads on from there.")
            .errors(DEVICE)
            .query::<LogsQuery>()
            .json::<LogPage>(render::logs::page),
        op(Get, Op::StreamLogs, "/api/v1/logs/stream", "logs", "Follow the device log as Server-Sent Events.")
            .cli("logs --follow", &["logs", "-f", "--app", "com.example"])
            .describe("The filters of GET /api/v1/logs. Each entry is an `entry` event whose `id` \
                       resumes the stream (`Last-Event-ID`) without gaps or repeats; a reader that \
                       fell behind gets a `dropped` event; a comment every 15 s keeps the \
                       connection open. `limit` ends the stream after that many entries.")
            .errors(DEVICE)
            .query::<LogsQuery>()
            .events::<LogEvent>(render::logs::event),
        op(Get, Op::ListCrashes, "/api/v1/logs/crashes", "logs", "Crashes and ANRs, newest first.")
            .cli("crashes", &["crashes", "--since", "1h"])
            .errors(DEVICE)
            .query::<CrashesQuery>()
            .json::<CrashList>(render::logs::crashes),
        op(Get, Op::GetCrash, "/api/v1/logs/crashes/{id}", "logs", "One crash or ANR with its full text.")
            .cli("crashes ID", &["crashes", "c0123456789ab"])
            .errors(DEVICE)
            .errors(NAMED)
            .query::<CrashQuery>()
            .json::<CrashDetail>(render::logs::crash),
        op(Get, Op::DebugBundle, "/api/v1/debug/bundle", "logs", "Screen, screenshot, app errors and crashes in one answer.")
            .cli("debug-bundle", &["debug-bundle", "-o", "/tmp/bundle"])
            .errors(DEVICE)
            .describe("When something went wrong: the device, the foreground app, the compact tree, a \
                       scaled JPEG screenshot (base64), the app's last warnings and errors, and \
                       the crashes since `since`. Parts that cannot be read are listed in `problems`.")
            .query::<BundleQuery>()
            .json::<DebugBundle>(render::logs::bundle),
    ]
}

/// The app performance operations.
fn perf() -> Vec<Operation> {
    vec![
        op(Get, Op::Perf, "/api/v1/device/perf", "perf", "An app's CPU, memory, threads and frames now.")
            .cli("perf", &["perf", "--app", "com.example"])
            .describe("CPU is the app's share of one core over `window_ms` (default 500) between two \
                       samples, never a lifetime average; memory, threads and frames (Android: since \
                       gfxinfo's last reset) are read at the window's end. Android reads on the device \
                       (`/proc`, `dumpsys`, one round trip a sample); an iOS Simulator's app is a \
                       process of the Mac and is read there. `missing` names what the platform gave \
                       no figure for; an app that is not running is `NOT_FOUND`.")
            .errors(DEVICE)
            .errors(NAMED)
            .query::<PerfQuery>()
            .json::<PerfNow>(render::perf::now),
        op(Post, Op::PerfStart, "/api/v1/device/perf/start", "perf", "Sample an app every interval_ms into a window (stops by itself at max_s).")
            .cli("perf start", &["perf", "start", "--app", "com.example"])
            .describe("One window per device: a second start answers 409 PERF_WINDOW_ACTIVE. The app must \
                       be running (its first sample is taken before the answer). Each sample reads what \
                       `perf` reads over its own interval (Android resets gfxinfo's counters each time, so \
                       a reading's frames while a window runs are that interval's). It stops at `max_s` \
                       (default 600, at most 3600), when its session ends and when the server shuts down; \
                       a long window keeps at most 2000 points, merging neighbours, never dropping one.")
            .errors(DEVICE)
            .errors(NAMED)
            .errors(&[PerfWindowActive])
            .body::<PerfStart>()
            .json::<PerfWindow>(render::perf::window),
        op(Post, Op::PerfStop, "/api/v1/device/perf/stop", "perf", "Stop the window; answers its summary and saves its series and plots.")
            .cli("perf stop", &["perf", "stop"])
            .describe("The summary gives min, median, max, first, last and delta of CPU, memory and \
                       threads, and the frames drawn and janky. The series (JSON) and a plot of CPU, memory \
                       and frame time against time (SVG, PNG) are saved among the run's artifacts \
                       (`get_artifact`). A window that stopped by itself is answered once by the next stop; \
                       otherwise a stop without a window answers 409 NO_PERF_WINDOW.")
            .errors(DEVICE)
            .errors(&[NoPerfWindow])
            .body::<PerfStop>()
            .json::<PerfWindow>(render::perf::window),
    ]
}

/// The runs operations.
fn runs() -> Vec<Operation> {
    vec![
        op(Get, Op::ListRuns, "/api/v1/runs", "runs", "Runs (each session's, the server's), newest first.")
            .cli("runs", &["runs"])
            .describe("Each session has a run in the cache directory (`MOBILECTL_CACHE_DIR`, else \
                       `$XDG_CACHE_HOME/mobilectl`, else the platform's: `~/.cache/mobilectl`, \
                       `~/Library/Caches/mobilectl`, `%LOCALAPPDATA%\\mobilectl`), session-less callers \
                       share one per server start: `trace.jsonl` (every operation: time, duration, \
                       device, outcome, error code), `artifacts/` (a failed act's or expect's \
                       screenshot and tree, debug bundles, flow reports, recordings) and \
                       `result.json` when it ends. A run is failed when an act or verify \
                       operation failed in it. `total` says how many there are beyond `limit`.")
            .query::<RunsQuery>()
            .json::<RunList>(render::runs::list),
        op(Get, Op::GetRun, "/api/v1/runs/{id}", "runs", "One run: its result and its artifacts.")
            .cli("runs show ID", &["runs", "show", "20260101-120000-ab12cd"])
            .errors(&[RunNotFound])
            .query::<RunPath>()
            .json::<RunDetail>(render::runs::run),
        op(Get, Op::GetArtifact, "/api/v1/runs/{id}/artifacts/{name}", "runs", "One artifact's bytes, in its content type.")
            .cli("runs artifact ID NAME", &["runs", "artifact", "20260101-120000-ab12cd", "failure-tap.png", "-o", "f.png"])
            .describe("`name` is looked up in the run's index (as get_run lists it), never used as \
                       a path: a name no artifact can have is 400 VALIDATION_FAILED, an unknown one \
                       404 ARTIFACT_NOT_FOUND. Not an MCP tool (bytes): get_run lists artifacts.")
            .errors(&[RunNotFound, ArtifactNotFound])
            .query::<ArtifactPath>()
            .file(ARTIFACT_TYPES)
            .document(),
        op(Delete, Op::DeleteRun, "/api/v1/runs/{id}", "runs", "Delete one run and its artifacts (not a live one).")
            .cli("runs delete ID", &["runs", "delete", "20260101-120000-ab12cd"])
            .describe("A live run (a live session's, the server's, or one a recording is writing) is \
                       409 RUN_LIVE. A session's run is its own: another caller gets 404 \
                       RUN_NOT_FOUND, as for reading it.")
            .errors(&[RunNotFound, RunLive])
            .query::<RunPath>()
            .json::<RunDeleted>(render::runs::deleted),
        op(Post, Op::Gc, "/api/v1/gc", "runs", "Delete old runs by the GC policy (dry_run: only plan).")
            .cli("gc", &["gc", "--dry-run"])
            .describe("Keeps the newest `MOBILECTL_GC_KEEP_LAST` runs (20), failed runs (and runs \
                       without result.json) for `MOBILECTL_GC_KEEP_FAILURE_DAYS` (7), then deletes \
                       the oldest kept runs while they hold more than `MOBILECTL_GC_MAX_BYTES` (2 \
                       GB). Never a live session's run, the server's, or one recording. Also runs \
                       at server start and when a run ends. The answer: each run's action and \
                       reason, and the totals.")
            .body::<GcRequest>()
            .json::<GcPlan>(render::runs::gc),
    ]
}

/// The content types an artifact is served in (by its name's extension, else its kind).
pub const ARTIFACT_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "video/mp4",
    "application/json",
    "application/xml",
    "text/plain; charset=utf-8",
    "application/octet-stream",
];
