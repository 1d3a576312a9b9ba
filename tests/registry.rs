//! The backend registry: a backend defined here, in a test, plugs into the controller without
//! any controller change — its devices are listed beside the built-in backends', requests
//! resolve to them, snapshots and taps reach it, and what differs between backends (coordinate
//! space, identifier checks, how an alert is answered) comes from it. Its UI comes from recorded
//! WebDriverAgent page sources (`fixtures/ios_wda_source/`), the shape of the next real backend.

use crate::common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::http::StatusCode;
use axum::Router;
use common::*;
use mobilectl::backend::{
    registry, tap_button, unsupported, Alerts, BackendConfig, DeviceBackend, Input, Screen,
    TypedWith, UiSource,
};
use mobilectl::controller::DeviceController;
use mobilectl::device::{AlertChoice, Device, DeviceKind, DeviceState, KeyPress, Platform, Point};
use mobilectl::error::Result;
use mobilectl::exec::{Tool, Toolbox};
use mobilectl::server::{self, AppState, ServerOptions};
use mobilectl::ui::{AlertButton, CoordinateSpace};
use serde_json::{json, Value};

const SETTINGS: &str =
    "ios_wda_source/wda_source_settings_root_iphone17pro_ios26.4_traits_bundleId.xml";
const LOCATION_ALERT: &str =
    "ios_wda_source/appium_source_springboard_location_alert_inf_coords_375x667.xml";

const READY: &str = "00008130-000A1C2E3C41001C";
const ASLEEP: &str = "00008101-001D24E93C08001E";

/// A backend of physical iPhones whose screens are recorded page sources: it lists two
/// devices (one ready), reads the UI from a fixture, records taps, serves a screenshot when
/// given one, and answers alerts by tapping. It has no other concern (apps, power…), and its
/// checks are the trait's defaults.
struct FixtureBackend {
    id: &'static str,
    screen: Mutex<PathBuf>,
    taps: Mutex<Vec<Point>>,
    png: Option<Vec<u8>>,
}

impl FixtureBackend {
    fn new(id: &'static str, screen: &str) -> Arc<Self> {
        Arc::new(FixtureBackend {
            id,
            screen: Mutex::new(fixture(screen)),
            taps: Mutex::new(Vec::new()),
            png: None,
        })
    }

    fn taps(&self) -> Vec<Point> {
        self.taps.lock().unwrap().clone()
    }
}

fn phone(udid: &str, name: &str, state: DeviceState) -> Device {
    Device {
        udid: udid.into(),
        name: name.into(),
        platform: Platform::Ios,
        kind: DeviceKind::Device,
        state,
        os_version: Some("iOS 26.4".into()),
        api_level: None,
        model: Some("iPhone 17 Pro".into()),
        // The registry stamps the id of the backend that listed the device.
        backend: "",
        capabilities: Vec::new(),
    }
}

#[async_trait]
impl DeviceBackend for FixtureBackend {
    fn id(&self) -> &'static str {
        self.id
    }
    fn platform(&self) -> Platform {
        Platform::Ios
    }
    fn name(&self) -> &'static str {
        "fixture iPhones"
    }
    fn coordinate_space(&self) -> CoordinateSpace {
        CoordinateSpace::Points
    }
    async fn list_devices(&self) -> Result<Vec<Device>> {
        Ok(vec![
            phone(READY, "Test iPhone", DeviceState::Online),
            phone(ASLEEP, "Spare iPhone", DeviceState::Offline),
        ])
    }
    fn screen(&self) -> Option<&dyn Screen> {
        Some(self)
    }
    fn input(&self) -> Option<&dyn Input> {
        Some(self)
    }
    fn alerts(&self) -> Option<&dyn Alerts> {
        Some(self)
    }
}

#[async_trait]
impl Screen for FixtureBackend {
    async fn dump_ui(&self, _device: &Device) -> Result<UiSource> {
        let path = self.screen.lock().unwrap().clone();
        Ok(UiSource {
            text: std::fs::read_to_string(path).unwrap(),
            tool: "fixture",
            foreground: None,
            notes: Vec::new(),
            web: Vec::new(),
        })
    }
    async fn screenshot_png(&self, _device: &Device) -> Result<Vec<u8>> {
        self.png
            .clone()
            .ok_or_else(|| unsupported("screenshots", self.name()))
    }
}

/// Taps are recorded; the other inputs are not offered.
#[async_trait]
impl Input for FixtureBackend {
    async fn tap(&self, _device: &Device, at: Point) -> Result<()> {
        self.taps.lock().unwrap().push(at);
        Ok(())
    }
    async fn long_press(&self, _device: &Device, _at: Point, _ms: u64) -> Result<()> {
        Err(unsupported("long presses", self.name()))
    }
    async fn swipe(&self, _device: &Device, _from: Point, _to: Point, _ms: u64) -> Result<()> {
        Err(unsupported("swiping", self.name()))
    }
    async fn type_text(&self, _device: &Device, _text: &str) -> Result<TypedWith> {
        Err(unsupported("typing", self.name()))
    }
    async fn press_key(&self, _device: &Device, _key: KeyPress) -> Result<()> {
        Err(unsupported("pressing keys", self.name()))
    }
    async fn hide_keyboard(&self, _device: &Device) -> Result<()> {
        Err(unsupported("hiding the keyboard", self.name()))
    }
}

/// Alerts are answered by a tap on the button the controller picked.
#[async_trait]
impl Alerts for FixtureBackend {
    async fn answer_alert(
        &self,
        device: &Device,
        _choice: &AlertChoice,
        button: &AlertButton,
    ) -> Result<()> {
        tap_button(self, device, button).await
    }
}

/// The same phones, answering alerts with their own command (as WebDriverAgent's
/// `/alert/accept` does) instead of a tap: only the hooks it needs, delegated.
struct NativeAlerts {
    inner: Arc<FixtureBackend>,
    answered: Mutex<Vec<(AlertChoice, String)>>,
}

#[async_trait]
impl DeviceBackend for NativeAlerts {
    fn id(&self) -> &'static str {
        self.inner.id()
    }
    fn platform(&self) -> Platform {
        self.inner.platform()
    }
    fn coordinate_space(&self) -> CoordinateSpace {
        self.inner.coordinate_space()
    }
    async fn list_devices(&self) -> Result<Vec<Device>> {
        self.inner.list_devices().await
    }
    fn screen(&self) -> Option<&dyn Screen> {
        Some(self.inner.as_ref())
    }
    fn alerts(&self) -> Option<&dyn Alerts> {
        Some(self)
    }
}

#[async_trait]
impl Alerts for NativeAlerts {
    async fn answer_alert(
        &self,
        _device: &Device,
        choice: &AlertChoice,
        button: &AlertButton,
    ) -> Result<()> {
        self.answered
            .lock()
            .unwrap()
            .push((choice.clone(), button.label.clone()));
        Ok(())
    }
}

/// An app over the built-in backends (with the given tools) plus `extra`.
fn app_with_backend(tools: Toolbox, extra: Arc<dyn DeviceBackend>) -> Router {
    mobilectl::server::check_declared_errors(true);
    let config = BackendConfig {
        tools: tools.clone(),
        ..Default::default()
    };
    let mut backends = registry::builtin(&config);
    backends.push(extra);
    let controller = DeviceController::with_backends(tools, backends);
    server::app(
        AppState::new(controller, ServerOptions::default()),
        loopback_policy(),
    )
}

fn no_tools() -> Toolbox {
    Toolbox::with([])
}

/// The listed element whose name contains `text`.
fn element<'a>(snapshot: &'a Value, text: &str) -> &'a Value {
    snapshot["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str().is_some_and(|n| n.contains(text)) && e["ref"].is_string())
        .unwrap_or_else(|| panic!("no element {text:?} in {}", snapshot["tree_text"]))
}

fn centre(e: &Value) -> Point {
    let b = &e["bounds"];
    let f = |k: &str| b[k].as_f64().unwrap();
    Point {
        x: (f("x") + f("w") / 2.0).round(),
        y: (f("y") + f("h") / 2.0).round(),
    }
}

#[tokio::test]
async fn a_backend_registered_in_a_test_is_listed_resolved_read_and_tapped() {
    let phones = FixtureBackend::new("fixture", SETTINGS);
    let app = app_with_backend(no_tools(), phones.clone());

    let (status, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(udids(&list), [READY, ASLEEP]);
    assert_eq!(list["devices"][0]["kind"], "device");
    // The backend id is not part of a device's JSON; `tools` is keyed by it.
    assert!(list["devices"][0].get("backend").is_none());
    assert_eq!(list["tools"]["fixture"]["available"], true);
    assert_eq!(list["tools"]["android"]["available"], false);
    assert_eq!(list["tools"]["ios"]["available"], false);

    // No udid: the only ready device, which is the fixture's; read in its coordinate space.
    let (status, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    assert_eq!(snap["device"]["udid"], READY);
    assert_eq!(snap["coordinate_space"], "points");
    let general = element(&snap, "General");
    let (status, tapped) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({"ref": general["ref"], "snapshot_id": snap["snapshot_id"]}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tapped}");
    assert_eq!(tapped["success"], true);
    assert_eq!(phones.taps(), [centre(general)]);

    let (status, _) = call(
        &app,
        post("/api/v1/device/ui/tap", json!({"x": 20.5, "y": 700})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(phones.taps()[1], Point { x: 20.5, y: 700.0 });

    // Naming the device that is not ready: resolved through the registry, then refused.
    let (status, body) = call(
        &app,
        post(
            "/api/v1/device/ui/tap",
            json!({"udid": "Spare iPhone", "x": 1, "y": 1}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "DEVICE_OFFLINE");
    assert_eq!(phones.taps().len(), 2);
}

#[tokio::test]
async fn what_a_test_backend_does_not_do_answers_501_and_its_checks_are_the_defaults() {
    let app = app_with_backend(no_tools(), FixtureBackend::new("fixture", SETTINGS));
    let (status, body) = call(&app, get("/api/v1/device/screenshot")).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("fixture iPhones"),
        "{body}"
    );
    for (req, want) in [
        // Checked before anything reaches the backend, by the trait's default rules.
        (
            json!({"bundle_id": "com.apple.Preferences", "activity": ".Main"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"bundle_id": "com.x;reboot"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"bundle_id": "com.apple.Preferences"}),
            StatusCode::NOT_IMPLEMENTED,
        ),
    ] {
        let (status, body) = call(&app, post("/api/v1/device/app/launch", req.clone())).await;
        assert_eq!(status, want, "{req}: {body}");
    }
    let (status, body) = call(&app, post("/api/v1/device/shutdown", json!({}))).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    let (status, body) = call(
        &app,
        post("/api/v1/device/boot", json!({"udid": "Spare iPhone"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    // The doctor reports every registered backend.
    let (_, doctor) = call(&app, get("/api/v1/doctor")).await;
    assert_eq!(doctor["fixture"], "ready", "{doctor}");
    assert_eq!(doctor["android"], "blocked");
    assert_eq!(doctor["overall"], "ready");
}

#[tokio::test]
async fn alerts_are_answered_by_a_tap_by_default_or_by_the_backend_s_own_command() {
    let phones = FixtureBackend::new("fixture", LOCATION_ALERT);
    let app = app_with_backend(no_tools(), phones.clone());
    let (_, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    assert_eq!(
        snap["alert"]["title"],
        "Allow “Yamsafer” to access your location?"
    );
    // Under the alert, only its buttons can be tapped.
    let (status, body) = call(
        &app,
        post("/api/v1/device/ui/tap", json!({"x": 10, "y": 10})),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(error_code(&body), "ALERT_BLOCKING");
    // The default: a tap on the button the controller picked.
    let (status, answer) = call(&app, post("/api/v1/device/alert/accept", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["details"]["button"], "Always Allow");
    let always = element(&snap, "Always Allow");
    assert_eq!(phones.taps(), [centre(always)]);

    // A backend with its own alert command gets the choice and the button, and taps nothing.
    let native = Arc::new(NativeAlerts {
        inner: FixtureBackend::new("fixture", LOCATION_ALERT),
        answered: Mutex::new(Vec::new()),
    });
    let app = app_with_backend(no_tools(), native.clone());
    let (status, answer) = call(&app, post("/api/v1/device/alert/dismiss", json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        native.answered.lock().unwrap().clone(),
        [(AlertChoice::Dismiss, "Don’t Allow".to_string())]
    );
    assert!(native.inner.taps().is_empty());
}

#[tokio::test]
async fn screenshot_geometry_follows_the_backend_s_coordinate_space() {
    // A 2x screen: 750 px wide for the 375-point tree of the fixture.
    let png = blank_png(750, 1334);
    let phones = Arc::new(FixtureBackend {
        id: "fixture",
        screen: Mutex::new(fixture(LOCATION_ALERT)),
        taps: Mutex::new(Vec::new()),
        png: Some(png),
    });
    let app = app_with_backend(no_tools(), phones);
    let (status, headers, _) = get_raw(&app, "/api/v1/device/screenshot").await;
    assert_eq!(status, StatusCode::OK);
    let header = |k: &str| headers[k].to_str().unwrap().to_string();
    assert_eq!(header("x-coordinate-space"), "points");
    assert_eq!(header("x-tap-per-image-pixel"), "0.500000");
}

#[tokio::test]
async fn a_backend_with_a_built_in_id_replaces_the_built_in() {
    let fakes = FakeTools::new();
    let adb = fakes.add("adb", "echo 'List of devices attached'");
    let app = app_with_backend(
        toolbox(&[(Tool::Adb, &adb)]),
        FixtureBackend::new("android", SETTINGS),
    );
    let (status, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["devices"].as_array().unwrap().len(), 2);
    assert_eq!(list["devices"][0]["udid"], READY);
    assert_eq!(list["tools"]["android"]["available"], true);
    let (status, snap) = call(&app, get("/api/v1/device/ui?format=json")).await;
    assert_eq!(status, StatusCode::OK, "{snap}");
    // The adb backend it replaced was never asked.
    assert!(fakes.calls("adb").is_empty(), "{:?}", fakes.calls("adb"));
}

/// The same phones, listed by a second backend that takes over a device an earlier backend
/// listed too (as the WDA backend does with a simulator given to `--wda`).
struct TakesOver {
    inner: Arc<FixtureBackend>,
}

#[async_trait]
impl DeviceBackend for TakesOver {
    fn id(&self) -> &'static str {
        self.inner.id()
    }
    fn platform(&self) -> Platform {
        Platform::Ios
    }
    fn coordinate_space(&self) -> CoordinateSpace {
        CoordinateSpace::Points
    }
    async fn list_devices(&self) -> Result<Vec<Device>> {
        self.inner.list_devices().await
    }
    fn take_over(&self, mine: &Device, earlier: &Device) -> Option<Device> {
        Some(Device {
            name: format!("{} (taken over)", earlier.name),
            ..mine.clone()
        })
    }
    fn screen(&self) -> Option<&dyn Screen> {
        Some(self.inner.as_ref())
    }
    fn input(&self) -> Option<&dyn Input> {
        Some(self.inner.as_ref())
    }
}

#[tokio::test]
async fn a_udid_two_backends_list_is_one_device_whose_backend_says_who_drives_it() {
    mobilectl::server::check_declared_errors(true);
    let build = |backends: Vec<Arc<dyn DeviceBackend>>| {
        server::app(
            AppState::new(
                DeviceController::with_backends(no_tools(), backends),
                ServerOptions::default(),
            ),
            loopback_policy(),
        )
    };
    let tap = json!({"udid": READY, "x": 5, "y": 5});

    // By default the earlier backend keeps it.
    let (first, second) = (
        FixtureBackend::new("first", SETTINGS),
        FixtureBackend::new("second", SETTINGS),
    );
    let app = build(vec![first.clone(), second.clone()]);
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(udids(&list), [READY, ASLEEP]);
    let (status, _) = call(&app, post("/api/v1/device/ui/tap", tap.clone())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((first.taps().len(), second.taps().len()), (1, 0));

    // A later backend that takes it over drives it, under the name it gives.
    let (first, later) = (
        FixtureBackend::new("first", SETTINGS),
        Arc::new(TakesOver {
            inner: FixtureBackend::new("later", SETTINGS),
        }),
    );
    let app = build(vec![first.clone(), later.clone()]);
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    assert_eq!(list["devices"].as_array().unwrap().len(), 2);
    assert_eq!(list["devices"][0]["name"], "Test iPhone (taken over)");
    let (status, _) = call(&app, post("/api/v1/device/ui/tap", tap)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((first.taps().len(), later.inner.taps().len()), (0, 1));
}

#[tokio::test]
async fn a_concern_the_backend_lacks_is_one_501_naming_it_and_capabilities_are_listed() {
    let app = app_with_backend(no_tools(), FixtureBackend::new("fixture", SETTINGS));
    for (req, capability) in [
        (get("/api/v1/device/clipboard"), "clipboard"),
        (
            send_json(
                "PUT",
                "/api/v1/device/orientation",
                r#"{"orientation": "landscape"}"#,
            ),
            "orientation",
        ),
        (
            post(
                "/api/v1/device/app/launch",
                json!({"bundle_id": "com.apple.Preferences"}),
            ),
            "apps",
        ),
        (post("/api/v1/device/erase", json!({})), "erase"),
    ] {
        let (status, body) = call(&app, req).await;
        assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
        assert_eq!(error_code(&body), "UNSUPPORTED_ON_PLATFORM");
        assert_eq!(body["error"]["details"]["capability"], capability, "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("capability `{capability}`"))
                && message.contains("fixture iPhones"),
            "{body}"
        );
        assert!(body["error"]["hint"].as_str().unwrap().len() > 20, "{body}");
    }
    // What the backend has, on each of its devices and in the doctor, from its accessors.
    let (_, list) = call(&app, get("/api/v1/device/list")).await;
    let ours: Vec<&Value> = list["devices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["udid"] == READY || d["udid"] == ASLEEP)
        .collect();
    assert_eq!(ours.len(), 2, "{list}");
    for d in ours {
        assert_eq!(
            d["capabilities"],
            json!(["screen", "input", "alerts"]),
            "{d}"
        );
    }
    let (_, doctor) = call(&app, get("/api/v1/doctor")).await;
    assert_eq!(
        doctor["capabilities"]["fixture"],
        json!(["screen", "input", "alerts"])
    );
    assert!(doctor["capabilities"]["android"]
        .as_array()
        .unwrap()
        .contains(&json!("intents")));
}

/// A backend whose screen is a list of recorded pages: a swipe shows the next one, until the
/// last, where swiping changes nothing (the end of the content).
struct Pages {
    pages: Vec<PathBuf>,
    at: Mutex<usize>,
}

#[async_trait]
impl DeviceBackend for Pages {
    fn id(&self) -> &'static str {
        "pages"
    }
    fn platform(&self) -> Platform {
        Platform::Ios
    }
    fn coordinate_space(&self) -> CoordinateSpace {
        CoordinateSpace::Points
    }
    async fn list_devices(&self) -> Result<Vec<Device>> {
        Ok(vec![phone(READY, "Test iPhone", DeviceState::Online)])
    }
    fn screen(&self) -> Option<&dyn Screen> {
        Some(self)
    }
    fn input(&self) -> Option<&dyn Input> {
        Some(self)
    }
}

#[async_trait]
impl Screen for Pages {
    async fn dump_ui(&self, _device: &Device) -> Result<UiSource> {
        let path = &self.pages[*self.at.lock().unwrap()];
        Ok(UiSource {
            text: std::fs::read_to_string(path).unwrap(),
            tool: "fixture",
            foreground: None,
            notes: Vec::new(),
            web: Vec::new(),
        })
    }
    async fn screenshot_png(&self, _device: &Device) -> Result<Vec<u8>> {
        Err(unsupported("screenshots", "pages"))
    }
}

#[async_trait]
impl Input for Pages {
    async fn tap(&self, _device: &Device, _at: Point) -> Result<()> {
        Ok(())
    }
    async fn long_press(&self, _device: &Device, _at: Point, _ms: u64) -> Result<()> {
        Ok(())
    }
    async fn swipe(&self, _device: &Device, _from: Point, _to: Point, _ms: u64) -> Result<()> {
        let mut at = self.at.lock().unwrap();
        *at = (*at + 1).min(self.pages.len() - 1);
        Ok(())
    }
    async fn type_text(&self, _device: &Device, _text: &str) -> Result<TypedWith> {
        Err(unsupported("typing", "pages"))
    }
    async fn press_key(&self, _device: &Device, _key: KeyPress) -> Result<()> {
        Ok(())
    }
    async fn hide_keyboard(&self, _device: &Device) -> Result<()> {
        Ok(())
    }
}

/// A scroll says whether the content moved: it did while there was another page, and not at
/// the last one, where the CLI and MCP say "nothing moved".
#[tokio::test]
async fn a_scroll_says_whether_the_content_moved() {
    let pages = Arc::new(Pages {
        pages: vec![
            fixture(SETTINGS),
            fixture(
                "ios_wda_source/wda_source_swiftui_form_switch_datepicker_daybreak_ios26.4.xml",
            ),
        ],
        at: Mutex::new(0),
    });
    let app = app_with_backend(no_tools(), pages.clone());
    let scroll = json!({"direction": "down"});
    let (status, first) = call(&app, post("/api/v1/device/ui/scroll", scroll.clone())).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["details"]["moved"], true, "{first}");
    assert!(first.get("changes").is_none(), "{first}");
    let (status, last) = call(&app, post("/api/v1/device/ui/scroll", scroll)).await;
    assert_eq!(status, StatusCode::OK, "{last}");
    assert_eq!(last["details"]["moved"], false, "{last}");
    let said = mobilectl::render::renderer("scroll").unwrap()(&last);
    assert!(
        said.ends_with("nothing moved (the end of the content?)"),
        "{said}"
    );
    let moved = mobilectl::render::renderer("scroll").unwrap()(&first);
    assert!(!moved.contains("nothing moved"), "{moved}");
}
