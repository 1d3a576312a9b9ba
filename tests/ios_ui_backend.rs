//! The iOS UI backend layer (AXe preferred, idb as fallback) called directly, since its HTTP
//! routes come with the UI work: fake `axe`, `idb` and `xcrun` executables replay recorded
//! real dumps (`fixtures/ios_axe/`, `fixtures/ios_idb/`) or just exit, and the tests assert
//! the exact argv (and stdin) each one received.

use crate::common;

use std::path::PathBuf;

use common::*;
use mobilectl::backend::ios::{
    pixels_to_points, points_to_pixels, screen_scale, AxeSelector, SimctlBackend,
};
use mobilectl::backend::{Input, Screen};
use mobilectl::device::{Device, KeyPress};
use mobilectl::device::{Key, Point};
use mobilectl::error::ErrorCode;
use mobilectl::exec::Tool;

const UDID: &str = "D2E4C979-FFEA-4236-9F57-64C3209975A0";
const AXE_TREE: &str = "ios_axe/axe_describe_ui_tuist_app_trimmed_393x852.json";
const IDB_TREE: &str = "ios_idb/idb_describe_all_json_springboard_home_iphone_430x932_ios18.4.json";

fn device() -> Device {
    booted_simulator(UDID)
}

/// A fake UI tool that saves its stdin to `<name>.stdin` and runs `script`.
fn ui_fake(fakes: &FakeTools, name: &str, script: &str) -> PathBuf {
    let stdin = fakes.dir.path().join(format!("{name}.stdin"));
    fakes.add(
        name,
        &format!(
            "if [ ! -t 0 ]; then cat >> '{}'; fi\n{script}",
            stdin.display()
        ),
    )
}

fn stdin_of(fakes: &FakeTools, name: &str) -> String {
    std::fs::read_to_string(fakes.dir.path().join(format!("{name}.stdin"))).unwrap_or_default()
}

struct Setup {
    fakes: FakeTools,
    backend: SimctlBackend,
}

/// A backend with the given UI tools (`axe`, `idb`) as fakes that exit 0, plus a fake xcrun.
fn setup(with: &[&str]) -> Setup {
    let fakes = FakeTools::new();
    let xcrun = ui_fake(&fakes, "xcrun", "exit 0");
    let mut entries = vec![(Tool::Xcrun, xcrun)];
    for name in with {
        let tool = if *name == "axe" { Tool::Axe } else { Tool::Idb };
        entries.push((tool, ui_fake(&fakes, name, "exit 0")));
    }
    let backend = SimctlBackend::new(mobilectl::exec::Toolbox::with(entries));
    Setup { fakes, backend }
}

fn argv(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn pt(x: f64, y: f64) -> Point {
    Point { x, y }
}

#[tokio::test]
async fn dump_ui_with_axe_returns_its_recorded_json_unparsed() {
    let s = setup(&[]);
    let axe = ui_fake(
        &s.fakes,
        "axe",
        &format!("cat '{}'", fixture(AXE_TREE).display()),
    );
    let backend = SimctlBackend::new(toolbox(&[(Tool::Axe, &axe)]));
    let src = backend.dump_ui(&device()).await.unwrap();
    assert_eq!(src.tool, "axe");
    assert_eq!(
        src.text,
        std::fs::read_to_string(fixture(AXE_TREE)).unwrap()
    );
    assert_eq!(
        s.fakes.calls("axe"),
        [argv(&["describe-ui", "--udid", UDID])]
    );
}

#[tokio::test]
async fn dump_ui_falls_back_to_idb() {
    let s = setup(&[]);
    let idb = ui_fake(
        &s.fakes,
        "idb",
        &format!("cat '{}'", fixture(IDB_TREE).display()),
    );
    let backend = SimctlBackend::new(toolbox(&[(Tool::Idb, &idb)]));
    let src = backend.dump_ui(&device()).await.unwrap();
    assert_eq!(src.tool, "idb");
    assert_eq!(
        src.text,
        std::fs::read_to_string(fixture(IDB_TREE)).unwrap()
    );
    assert_eq!(
        s.fakes.calls("idb"),
        [argv(&["ui", "describe-all", "--json", "--udid", UDID])]
    );
}

#[tokio::test]
async fn axe_is_preferred_when_both_are_installed() {
    let s = setup(&["axe", "idb"]);
    s.backend.tap(&device(), pt(1.0, 2.0)).await.unwrap();
    assert_eq!(s.fakes.calls("axe").len(), 1);
    assert!(s.fakes.calls("idb").is_empty());
}

#[tokio::test]
async fn without_axe_or_idb_ui_operations_are_tool_missing_with_both_hints() {
    let s = setup(&[]);
    let d = device();
    let errors = [
        s.backend.dump_ui(&d).await.unwrap_err(),
        s.backend.tap(&d, pt(1.0, 2.0)).await.unwrap_err(),
        s.backend.type_text(&d, "hi").await.unwrap_err(),
        s.backend
            .press_key(&d, KeyPress::Named(Key::Home))
            .await
            .unwrap_err(),
    ];
    for e in errors {
        assert_eq!(e.code.as_str(), "TOOL_MISSING");
        assert_eq!(e.code.status(), 503);
        let hint = e.hint.unwrap();
        assert!(
            hint.contains("MOBILECTL_AXE") && hint.contains("MOBILECTL_IDB"),
            "{hint}"
        );
    }
    assert!(s.fakes.calls("xcrun").is_empty());
}

#[tokio::test]
async fn tap_in_points() {
    let s = setup(&["axe"]);
    s.backend.tap(&device(), pt(120.0, 540.0)).await.unwrap();
    s.backend.tap(&device(), pt(120.5, 540.25)).await.unwrap();
    assert_eq!(
        s.fakes.calls("axe"),
        [
            argv(&["tap", "-x", "120", "-y", "540", "--udid", UDID]),
            argv(&["tap", "-x", "120.5", "-y", "540.25", "--udid", UDID]),
        ]
    );
    let s = setup(&["idb"]);
    s.backend.tap(&device(), pt(120.4, 540.6)).await.unwrap();
    assert_eq!(
        s.fakes.calls("idb"),
        [argv(&["ui", "tap", "120", "541", "--udid", UDID])]
    );
}

#[tokio::test]
async fn negative_points_are_refused_before_any_command() {
    let s = setup(&["axe"]);
    let e = s.backend.tap(&device(), pt(-1.0, 5.0)).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ValidationFailed);
    assert!(s.fakes.calls("axe").is_empty());
}

#[tokio::test]
async fn tap_by_identifier_or_label_with_axe() {
    let s = setup(&["axe"]);
    let id = AxeSelector::Id("SearchField".into());
    let label = AxeSelector::Label("Sign in".into());
    s.backend.tap_element(UDID, &id).await.unwrap();
    s.backend.tap_element(UDID, &label).await.unwrap();
    assert_eq!(
        s.fakes.calls("axe"),
        [
            argv(&["tap", "--id", "SearchField", "--udid", UDID]),
            argv(&["tap", "--label", "Sign in", "--udid", UDID]),
        ]
    );
    let s = setup(&["idb"]);
    let e = s.backend.tap_element(UDID, &id).await.unwrap_err();
    assert_eq!(e.code.status(), 501);
    assert!(s.fakes.calls("idb").is_empty());
}

#[tokio::test]
async fn long_press() {
    let s = setup(&["axe"]);
    s.backend
        .long_press(&device(), pt(10.0, 20.0), 1500)
        .await
        .unwrap();
    assert_eq!(
        s.fakes.calls("axe"),
        [argv(&[
            "touch", "-x", "10", "-y", "20", "--down", "--up", "--delay", "1.5", "--udid", UDID
        ])]
    );
    let e = s
        .backend
        .long_press(&device(), pt(10.0, 20.0), 20_000)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ValidationFailed);
    let s = setup(&["idb"]);
    s.backend
        .long_press(&device(), pt(10.0, 20.0), 1500)
        .await
        .unwrap();
    assert_eq!(
        s.fakes.calls("idb"),
        [argv(&[
            "ui",
            "tap",
            "10",
            "20",
            "--duration",
            "1.5",
            "--udid",
            UDID
        ])]
    );
}

#[tokio::test]
async fn swipe() {
    let s = setup(&["axe"]);
    let (a, b) = (pt(196.0, 700.0), pt(196.0, 200.0));
    s.backend.swipe(&device(), a, b, 300).await.unwrap();
    s.backend.swipe(&device(), a, b, 0).await.unwrap();
    assert_eq!(
        s.fakes.calls("axe"),
        [
            argv(&[
                "swipe",
                "--start-x",
                "196",
                "--start-y",
                "700",
                "--end-x",
                "196",
                "--end-y",
                "200",
                "--duration",
                "0.3",
                "--udid",
                UDID
            ]),
            argv(&[
                "swipe",
                "--start-x",
                "196",
                "--start-y",
                "700",
                "--end-x",
                "196",
                "--end-y",
                "200",
                "--udid",
                UDID
            ]),
        ]
    );
    let s = setup(&["idb"]);
    s.backend.swipe(&device(), a, b, 300).await.unwrap();
    assert_eq!(
        s.fakes.calls("idb"),
        [argv(&[
            "ui",
            "swipe",
            "196",
            "700",
            "196",
            "200",
            "--duration",
            "0.3",
            "--udid",
            UDID
        ])]
    );
}

#[tokio::test]
async fn ascii_text_is_typed_by_axe_from_stdin() {
    let s = setup(&["axe"]);
    let text = "-x 'quoted' $HOME; rm -rf /";
    let how = s.backend.type_text(&device(), text).await.unwrap();
    assert_eq!(how.0, "axe");
    assert_eq!(
        s.fakes.calls("axe"),
        [argv(&["type", "--stdin", "--udid", UDID])]
    );
    assert_eq!(stdin_of(&s.fakes, "axe"), text);
    assert!(s.fakes.calls("xcrun").is_empty());
}

#[tokio::test]
async fn other_text_is_pasted_through_the_simulator_pasteboard() {
    let s = setup(&["axe"]);
    let text = "Crème brûlée — 日本語 🍮";
    let how = s.backend.type_text(&device(), text).await.unwrap();
    assert_eq!(how.0, "pasteboard");
    assert_eq!(s.fakes.calls("xcrun"), [argv(&["simctl", "pbcopy", UDID])]);
    assert_eq!(stdin_of(&s.fakes, "xcrun"), text);
    assert_eq!(
        s.fakes.calls("axe"),
        [argv(&[
            "key-combo",
            "--modifiers",
            "227",
            "--key",
            "25",
            "--udid",
            UDID
        ])]
    );
}

#[tokio::test]
async fn idb_types_ascii_and_sends_leading_dashes_as_keys() {
    let s = setup(&["idb"]);
    let how = s.backend.type_text(&device(), "-5 apples").await.unwrap();
    assert_eq!(how.0, "idb");
    assert_eq!(
        s.fakes.calls("idb"),
        [
            argv(&["ui", "key", "45", "--udid", UDID]),
            argv(&["ui", "text", "5 apples", "--udid", UDID]),
        ]
    );
}

#[tokio::test]
async fn idb_cannot_type_non_ascii() {
    let s = setup(&["idb"]);
    let e = s.backend.type_text(&device(), "café").await.unwrap_err();
    assert_eq!(e.code.as_str(), "UNSUPPORTED_TEXT");
    assert!(e.hint.unwrap().contains("AXe"));
    assert!(s.fakes.calls("idb").is_empty());
    assert!(s.fakes.calls("xcrun").is_empty());
}

#[tokio::test]
async fn keys_and_buttons() {
    let s = setup(&["axe"]);
    let d = device();
    for key in [
        Key::Home,
        Key::Lock,
        Key::Siri,
        Key::ApplePay,
        Key::Enter,
        Key::Delete,
    ] {
        s.backend.press_key(&d, KeyPress::Named(key)).await.unwrap();
    }
    s.backend.press_key(&d, KeyPress::Code(41)).await.unwrap();
    assert_eq!(
        s.fakes.calls("axe"),
        [
            argv(&["button", "home", "--udid", UDID]),
            argv(&["button", "lock", "--udid", UDID]),
            argv(&["button", "siri", "--udid", UDID]),
            argv(&["button", "apple-pay", "--udid", UDID]),
            argv(&["key", "40", "--udid", UDID]),
            argv(&["key", "42", "--udid", UDID]),
            argv(&["key", "41", "--udid", UDID]),
        ]
    );
    let s = setup(&["idb"]);
    s.backend
        .press_key(&d, KeyPress::Named(Key::Home))
        .await
        .unwrap();
    s.backend
        .press_key(&d, KeyPress::Named(Key::Tab))
        .await
        .unwrap();
    assert_eq!(
        s.fakes.calls("idb"),
        [
            argv(&["ui", "button", "HOME", "--udid", UDID]),
            argv(&["ui", "key", "43", "--udid", UDID]),
        ]
    );
}

#[tokio::test]
async fn keys_a_simulator_lacks_are_501_and_run_nothing() {
    let s = setup(&["axe"]);
    let d = device();
    for key in [Key::Back, Key::RecentApps, Key::VolumeUp, Key::Menu] {
        let e = s
            .backend
            .press_key(&d, KeyPress::Named(key))
            .await
            .unwrap_err();
        assert_eq!(e.code.status(), 501, "{key:?}");
        assert!(e.hint.is_some());
    }
    let e = s.backend.hide_keyboard(&d).await.unwrap_err();
    assert_eq!(e.code.status(), 501);
    assert!(s.fakes.calls("axe").is_empty());
}

#[tokio::test]
async fn a_failing_ui_tool_is_command_failed() {
    let s = setup(&[]);
    let axe = ui_fake(&s.fakes, "axe", "exit 1");
    let backend = SimctlBackend::new(toolbox(&[(Tool::Axe, &axe)]));
    let e = backend.tap(&device(), pt(1.0, 1.0)).await.unwrap_err();
    assert_eq!(e.code.as_str(), "COMMAND_FAILED");
    assert_eq!(e.details.unwrap()["tool"], "axe");
}

/// Root frame widths of recorded trees against the pixel widths of those screens.
#[test]
fn scale_from_recorded_tree_sizes() {
    let width = |rel: &str| -> f64 {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fixture(rel)).unwrap()).unwrap();
        v[0]["frame"]["width"].as_f64().unwrap()
    };
    let w393 = width(AXE_TREE);
    let w430 = width(IDB_TREE);
    assert_eq!((w393, w430), (393.0, 430.0));
    assert_eq!(screen_scale(1179, w393), Some(3));
    assert_eq!(screen_scale(1290, w430), Some(3));
    // A tap at the centre of a 393x852 screen is pixel (589.5, 1278) in a 1179x2556 shot.
    let centre = Point { x: 196.5, y: 426.0 };
    assert_eq!(
        points_to_pixels(centre, 3),
        Point {
            x: 589.5,
            y: 1278.0
        }
    );
    assert_eq!(
        pixels_to_points(
            Point {
                x: 1179.0,
                y: 2556.0
            },
            3
        ),
        Point { x: 393.0, y: 852.0 }
    );
}
