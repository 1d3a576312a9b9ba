//! Fixture-wide tests of the UI module: every recorded dump parses, recall and size budgets of
//! the compact text, ref stability, fingerprints, detection, and hostile inputs.

use mobilectl::ui::fingerprint::passive_status_bar;
use mobilectl::ui::{self, analyze, parse_any, DumpKind, Element, Screen, Tree, ViewOptions};
use std::path::{Path, PathBuf};

const UI_DIRS: &[(&str, &[DumpKind])] = &[
    ("android_uiautomator", &[DumpKind::Uiautomator]),
    ("android_appium_source", &[DumpKind::AppiumSource]),
    ("ios_axe", &[DumpKind::Axe]),
    ("ios_idb", &[DumpKind::Idb]),
    ("ios_wda_source", &[DumpKind::WdaXml, DumpKind::WdaJson]),
];

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn read(p: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned()
}

/// Every UI dump fixture: (path, expected kinds, content).
fn ui_fixtures() -> Vec<(PathBuf, &'static [DumpKind], String)> {
    let mut out = Vec::new();
    for (dir, kinds) in UI_DIRS {
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures_dir().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            if !is_ui_dump(&f) {
                continue;
            }
            let text = read(&f);
            out.push((f, *kinds, text));
        }
    }
    assert!(out.len() > 60, "fixtures missing: {}", out.len());
    out
}

/// `ios_wda_source/` also holds WebDriverAgent's small answers (`/status`, `POST /session`,
/// errors: `wda_*.json`), which the WDA backend's tests replay; its UI dumps are the XML
/// sources and the legacy `/tree` JSON.
fn is_ui_dump(p: &Path) -> bool {
    let name = p.file_name().unwrap_or_default().to_string_lossy();
    let in_wda = p.parent().is_some_and(|d| d.ends_with("ios_wda_source"));
    !(in_wda && name.starts_with("wda_") && name.ends_with(".json") && !name.contains("_tree_"))
}

fn on_screen(t: &Tree, e: &Element) -> bool {
    let s = t.screen_rect();
    e.states.visible && e.bounds.is_valid() && e.bounds.intersects(&s)
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The floor of the text's budget (docs/DESIGN.md "The compact text and its budget"), the
/// plainest lossless listing: one line per on-screen node with a text, a content-desc (iOS:
/// label) or a clickable flag, in document order.
fn floor_listing(t: &Tree) -> String {
    let mut out = String::new();
    let mut k = 0;
    for e in &t.nodes {
        if !on_screen(t, e) {
            continue;
        }
        let label = e
            .text
            .as_deref()
            .or(e.desc.as_deref())
            .or(e.name.as_deref());
        if e.states.clickable {
            k += 1;
            out.push_str(&format!("- btn \"{}\" [ref=e{k}]\n", label.unwrap_or("")));
        } else if let Some(l) = label {
            out.push_str(&format!("- text \"{l}\"\n"));
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn every_fixture_parses_with_its_kind() {
    for (path, kinds, text) in ui_fixtures() {
        let kind = ui::detect_kind(&text);
        assert!(
            kind.is_some_and(|k| kinds.contains(&k)),
            "{}: detected {kind:?}",
            path.display()
        );
        let t = parse_any(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!t.nodes.is_empty());
        assert!(t.screen.w > 0.0 && t.screen.h > 0.0, "{}", path.display());
        assert_eq!(t.coordinate_space, kind.unwrap().coordinate_space());
    }
}

#[test]
fn non_ui_fixtures_are_refused() {
    for dir in ["android_misc", "ios_simctl"] {
        for f in std::fs::read_dir(fixtures_dir().join(dir)).unwrap() {
            let p = f.unwrap().path();
            assert!(parse_any(&read(&p)).is_err(), "{} parsed", p.display());
        }
    }
}

#[test]
fn recall_every_clickable_and_every_label() {
    for (path, _, text) in ui_fixtures() {
        let t = parse_any(&text).unwrap();
        let s = analyze(&t, None, &ViewOptions::default());
        let hay = squash(&s.tree_text);
        let ref_bounds: Vec<_> = s.refs.entries.iter().map(|e| e.bounds).collect();
        let bar = passive_status_bar(&t.nodes, t.screen_rect());
        // What the text leaves out as the status bar lies in its band at the top, and none
        // of it can be acted on (a notification row of the open shade is listed).
        for (e, _) in t.nodes.iter().zip(&bar).filter(|(_, &b)| b) {
            assert!(
                e.bounds.bottom() <= t.screen.h * 0.15 && !e.states.clickable,
                "{}: {:?} {:?} left out as status bar",
                path.display(),
                e.label(),
                e.bounds
            );
        }
        for (i, e) in t.nodes.iter().enumerate() {
            if !on_screen(&t, e) {
                continue;
            }
            if e.states.clickable {
                let (x, y) = e.bounds.center();
                assert!(
                    ref_bounds.iter().any(|b| b.contains(x, y)),
                    "{}: clickable {:?} {:?} unreachable",
                    path.display(),
                    e.label(),
                    e.bounds
                );
            }
            // The keys of an on-screen keyboard are one `keyboard [eN]` line, and the status
            // bar's clock, battery and icons no line at all, by design.
            let (cx, cy) = e.bounds.center();
            if s.keyboard.is_some_and(|k| k.contains(cx, cy)) || bar[i] {
                continue;
            }
            for l in [e.text.as_deref(), e.desc.as_deref(), e.name.as_deref()]
                .into_iter()
                .flatten()
            {
                let want: String = squash(l).chars().take(24).collect();
                if want.is_empty() {
                    continue;
                }
                let want = want.trim_end();
                assert!(
                    hay.contains(want),
                    "{}: label {want:?} missing from\n{}",
                    path.display(),
                    s.tree_text
                );
            }
        }
    }
}

/// Byte-based proxy of the token budget (cl100k counts: scripts/token_budget.py).
#[test]
fn size_budget_against_floor_and_raw() {
    let mut vs_floor = Vec::new();
    let mut vs_raw = Vec::new();
    let mut io_vs_floor = Vec::new();
    for (_, _, text) in ui_fixtures() {
        let t = parse_any(&text).unwrap();
        let floor = floor_listing(&t);
        if floor.len() < 200 {
            continue; // trimmed fixtures of 1-3 elements say nothing about size
        }
        let s = analyze(&t, None, &ViewOptions::default());
        let io = analyze(
            &t,
            None,
            &ViewOptions {
                interactive_only: true,
            },
        );
        vs_floor.push(s.tree_text.len() as f64 / floor.len() as f64);
        vs_raw.push(s.tree_text.len() as f64 / text.len() as f64);
        io_vs_floor.push(io.tree_text.len() as f64 / floor.len() as f64);
    }
    let (f, r, i) = (median(vs_floor), median(vs_raw), median(io_vs_floor));
    eprintln!("median bytes: text/floor {f:.3}, text/raw {r:.4}, interactive/floor {i:.3}");
    assert!(f <= 1.0, "text/floor median {f}");
    assert!(r <= 1.0 / 20.0, "text/raw median {r}");
    assert!(i <= 0.7, "interactive/floor median {i}");
}

fn ref_of(s: &Screen, i: usize) -> Option<&str> {
    s.elements[i].r#ref.as_deref()
}

#[test]
fn refs_are_stable() {
    for (path, _, text) in ui_fixtures() {
        let t = parse_any(&text).unwrap();
        let opts = ViewOptions::default();
        let s1 = analyze(&t, None, &opts);
        let s2 = analyze(&t, Some(&s1.refs), &opts);
        assert_eq!(s1.refs, s2.refs, "{}", path.display());
        assert_eq!(s1.tree_text, s2.tree_text);
        if s1.refs.len() < 4 {
            continue;
        }
        // Remove one element with a ref (a leaf in its subtree), the others keep theirs.
        let victim = s1.refs.entries[s1.refs.len() / 2].node;
        if victim >= t.nodes.len() {
            continue; // synthetic keyboard
        }
        let end = t.subtree_end(victim);
        let t2 = t.without(victim);
        let s3 = analyze(&t2, Some(&s1.refs), &opts);
        let removed = end - victim;
        for e in &s1.refs.entries {
            if (victim..end).contains(&e.node) || e.node >= t.nodes.len() {
                continue;
            }
            let j = if e.node >= end {
                e.node - removed
            } else {
                e.node
            };
            // Merging decisions may change for the parent of the removed element; every
            // element that still has a ref must have its old one.
            if let Some(r) = ref_of(&s3, j) {
                assert_eq!(r, e.r#ref, "{}: element {j} renumbered", path.display());
            }
        }
    }
}

#[test]
fn fingerprints_same_screen_same_other_screen_differs() {
    let mut seen = std::collections::HashMap::new();
    for (path, _, text) in ui_fixtures() {
        let t = parse_any(&text).unwrap();
        let a = analyze(&t, None, &ViewOptions::default());
        let b = analyze(
            &parse_any(&text).unwrap(),
            Some(&a.refs),
            &ViewOptions::default(),
        );
        assert_eq!(a.fingerprint, b.fingerprint);
        // The interactive-only view is a view, not another screen.
        let io = analyze(
            &t,
            None,
            &ViewOptions {
                interactive_only: true,
            },
        );
        assert_eq!(a.fingerprint, io.fingerprint);
        if let Some((other, other_text)) =
            seen.insert(a.fingerprint.clone(), (path.clone(), a.tree_text.clone()))
        {
            // Two files may hold the same screen (a raw dump and its envelope): then equal.
            assert_eq!(
                other_text,
                a.tree_text,
                "{} and {} share a fingerprint",
                path.display(),
                other.display()
            );
        }
        // Removing a visible labelled element changes the fingerprint.
        if let Some(&i) = a.refs.entries.first().map(|e| &e.node) {
            if i < t.nodes.len() && i > 0 {
                let c = analyze(&t.without(i), None, &ViewOptions::default());
                assert_ne!(a.fingerprint, c.fingerprint, "{}", path.display());
            }
        }
    }
}

#[test]
fn fingerprint_ignores_the_status_bar_clock() {
    let mut tested = 0;
    for (path, _, text) in ui_fixtures() {
        let t = parse_any(&text).unwrap();
        // Find the status-bar clock: a systemui node with a clock id and an h:mm text.
        let Some(clock) = t.nodes.iter().find(|e| {
            e.package.as_deref() == Some("com.android.systemui")
                && e.id.as_deref().is_some_and(|id| id.ends_with("id/clock"))
                && e.text.as_deref().is_some_and(|x| x.contains(':'))
        }) else {
            continue;
        };
        let old = clock.text.clone().unwrap();
        let attr = format!("text=\"{old}\"");
        assert_eq!(text.matches(&attr).count(), 1, "{}", path.display());
        let new_time = if old.starts_with("23") {
            "00:00"
        } else {
            "23:59"
        };
        let changed = text.replace(&attr, &format!("text=\"{new_time}\""));
        let a = analyze(&t, None, &ViewOptions::default());
        let b = analyze(&parse_any(&changed).unwrap(), None, &ViewOptions::default());
        let clock_of = |s: &Screen| {
            s.elements
                .iter()
                .find(|e| e.id.as_deref().is_some_and(|id| id.ends_with("id/clock")))
                .and_then(|e| e.text.clone())
        };
        assert_ne!(clock_of(&a), clock_of(&b), "the copy must really differ");
        assert_eq!(a.fingerprint, b.fingerprint, "{}", path.display());
        // Nor does the text change: the status bar is not in it.
        assert_eq!(a.tree_text, b.tree_text, "{}", path.display());
        let clock_line = format!("\"{old}\"");
        assert!(
            !a.tree_text.lines().any(|l| l.trim() == clock_line),
            "{}",
            path.display()
        );
        // A change of app content with the same shape is another screen.
        let content = t
            .nodes
            .iter()
            .filter(|e| e.package.as_deref() != Some("com.android.systemui"))
            .filter_map(|e| e.text.as_deref())
            .find(|x| x.len() > 3 && text.matches(&format!("text=\"{x}\"")).count() == 1);
        if let Some(x) = content {
            let c = text.replace(&format!("text=\"{x}\""), "text=\"something else\"");
            let c = analyze(&parse_any(&c).unwrap(), None, &ViewOptions::default());
            assert_ne!(a.fingerprint, c.fingerprint, "{}", path.display());
        }
        tested += 1;
    }
    assert!(
        tested >= 2,
        "expected dumps with a status-bar clock, got {tested}"
    );
}

#[test]
fn detection_on_real_dumps() {
    let get = |dir: &str, name: &str| {
        let t = parse_any(&read(&fixtures_dir().join(dir).join(name))).unwrap();
        analyze(&t, None, &ViewOptions::default())
    };
    let s = get(
        "android_uiautomator",
        "avito_search_keyboard_multiwindow_u2.xml",
    );
    assert!(s.keyboard.is_some());
    assert_eq!(s.foreground.as_deref(), Some("com.avito.android"));
    let f = s.focused.as_deref().and_then(|r| s.element(r)).unwrap();
    assert!(f.states.editable);
    let s = get(
        "ios_axe",
        "simuse_describe_ui_raw_line_app_qwerty_ja_402x874.json",
    );
    let kb = s.keyboard.expect("AXe keyboard from its keys");
    assert!(kb.y > 400.0 && kb.bottom() <= 874.5);
    let s = get(
        "ios_axe",
        "simuse_describe_ui_raw_line_app_no_keyboard_ja_402x874.json",
    );
    assert!(s.keyboard.is_none());
    let s = get(
        "ios_wda_source",
        "appium_source_springboard_location_alert_inf_coords_375x667.xml",
    );
    let a = s.alert.expect("location alert");
    assert!(!a.buttons.is_empty() && a.buttons.iter().all(|b| b.r#ref.is_some()));
    assert!(a.title.is_some());
    // The alert's buttons are all the screen lists: their lines say which they are.
    assert_eq!(
        s.tree_text.lines().next(),
        Some("! alert"),
        "{}",
        s.tree_text
    );
    let s = get(
        "ios_wda_source",
        "wda_source_settings_root_iphone17pro_ios26.4_traits_bundleId.xml",
    );
    assert_eq!(s.foreground.as_deref(), Some("com.apple.Preferences"));
    assert!(s.alert.is_none() && s.keyboard.is_none());
    let s = get("android_uiautomator", "kakaotalk_delete_dialog_korean.xml");
    let a = s.alert.expect("floating dialog window");
    assert_eq!(a.buttons.len(), 2);
    // The dialog's radios are listed too, so the alert line names its buttons.
    let named: Vec<&str> = a
        .buttons
        .iter()
        .filter_map(|b| b.r#ref.as_deref())
        .collect();
    let line = format!("! alert buttons: {}", named.join(" "));
    assert_eq!(
        s.tree_text.lines().next(),
        Some(line.as_str()),
        "{}",
        s.tree_text
    );
    let s = get("android_uiautomator", "wework_invite_confirm_dialog.xml");
    assert!(s.alert.is_some());
    for quiet in [
        "ivi_vehiclecontrol_landscape_korean.xml",
        "huawei_calendar_popup_offset_window.xml",
        "notification_shade_spanish_systemui.xml",
        "whatsapp_samsung_systemui_launcher.xml",
    ] {
        assert!(get("android_uiautomator", quiet).alert.is_none(), "{quiet}");
    }
    let s = get("android_uiautomator", "bluestacks_spotlight_rotation1.xml");
    assert_eq!(s.rotation, Some(1));
    let sum = ui::summary::summarize(&get(
        "ios_wda_source",
        "wda_source_settings_root_iphone17pro_ios26.4_traits_bundleId.xml",
    ));
    assert!(sum.interactive_elements.len() >= 10);
    assert!(sum.screen_description.contains("com.apple.Preferences"));
}

#[test]
fn selectors_on_a_real_dump() {
    use ui::select::{find, find_query, Selector};
    let t =
        parse_any(&read(&fixtures_dir().join("ios_wda_source").join(
            "wda_source_settings_root_iphone17pro_ios26.4_traits_bundleId.xml",
        )))
        .unwrap();
    let s = analyze(&t, None, &ViewOptions::default());
    let m = find(
        &s,
        &Selector {
            text: Some("general".into()),
            case_insensitive: true,
            ..Selector::default()
        },
    )
    .unwrap();
    assert!(m.r#ref.is_some());
    let q = find_query(&s, "General");
    assert_eq!(q[0].element.node, m.node);
}

// ---- hostile input ----

fn no_panic(text: &str) {
    if let Ok(t) = parse_any(text) {
        let s = analyze(&t, None, &ViewOptions::default());
        let _ = ui::summary::summarize(&s);
    }
}

#[test]
fn hostile_inputs_are_clean_errors() {
    assert_eq!(parse_any(""), Err(ui::ParseError::Empty));
    assert_eq!(parse_any("  \n"), Err(ui::ParseError::Empty));
    assert!(parse_any("\u{0}\u{1}garbage\u{ff}").is_err());
    let garbage: String = (0..100_000u32)
        .map(|i| char::from_u32(i.wrapping_mul(2654435761u32) % 0xD7FF).unwrap_or('x'))
        .collect();
    no_panic(&garbage);
    no_panic(&format!("<{garbage}"));
    no_panic(&format!("[{garbage}"));
    for (_, _, text) in ui_fixtures() {
        for cut in [1, 7, text.len() / 3, text.len() / 2, text.len() - 1] {
            let mut c = cut.min(text.len());
            while !text.is_char_boundary(c) {
                c -= 1;
            }
            no_panic(&text[..c]);
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 10_000;
    let open = r#"<node class="android.widget.FrameLayout" clickable="true" text="x" bounds="[0,0][100,100]">"#;
    let xml = format!(
        "<hierarchy rotation=\"0\">{}{}</hierarchy>",
        open.repeat(depth),
        "</node>".repeat(depth)
    );
    let t = parse_any(&xml).unwrap();
    assert_eq!(t.nodes.len(), depth);
    let s = analyze(&t, None, &ViewOptions::default());
    assert!(s.tree_text.len() < 2_000_000);
    let _ = ui::summary::summarize(&s);
    let _ = ui::select::find_query(&s, "x");
    let wda = format!(
        "<XCUIElementTypeApplication x=\"0\" y=\"0\" width=\"10\" height=\"10\">{}{}</XCUIElementTypeApplication>",
        "<XCUIElementTypeButton label=\"b\" x=\"0\" y=\"0\" width=\"10\" height=\"10\">".repeat(depth),
        "</XCUIElementTypeButton>".repeat(depth)
    );
    let t = parse_any(&wda).unwrap();
    let _ = analyze(&t, None, &ViewOptions::default());
    let json = format!(
        "[{}{}]",
        r#"{"AXFrame":"{{0, 0}, {1, 1}}","role":"AXGroup","children":["#.repeat(depth),
        "]}".repeat(depth)
    );
    assert!(parse_any(&json).is_err());
    // Truncated deep XML is an error, not a crash.
    assert!(parse_any(&xml[..xml.len() / 2]).is_err());
}

#[test]
fn ten_megabytes() {
    let node = r#"<node class="android.widget.TextView" text="row" clickable="true" bounds="[0,0][100,100]"/>"#;
    let n = 10 * 1024 * 1024 / node.len();
    let xml = format!(
        "<hierarchy rotation=\"0\"><node class=\"android.widget.FrameLayout\" bounds=\"[0,0][1080,1920]\">{}</node></hierarchy>",
        node.repeat(n)
    );
    let t = parse_any(&xml).unwrap();
    assert_eq!(t.nodes.len(), n + 1);
    let s = analyze(&t, None, &ViewOptions::default());
    assert!(!s.tree_text.is_empty());
    let huge = " ".repeat(ui::parse::MAX_INPUT_BYTES + 1);
    assert!(matches!(parse_any(&huge), Err(ui::ParseError::TooLarge(_))));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_strings_never_panic(s in "\\PC{0,400}") {
            no_panic(&s);
            no_panic(&format!("<hierarchy>{s}"));
            no_panic(&format!("[{{\"AXFrame\":{s}"));
        }

        #[test]
        fn mutated_fixtures_never_panic(k in 0usize..1000, pos in 0.0f64..1.0, junk in "[<>\"&#;/ a-z0-9\\[\\]{}:,]{0,12}") {
            let fx = ui_fixtures();
            let (_, _, text) = &fx[k % fx.len()];
            let mut at = (pos * text.len() as f64) as usize;
            while !text.is_char_boundary(at) { at -= 1; }
            let mutated = format!("{}{}{}", &text[..at], junk, &text[at..]);
            no_panic(&mutated);
        }
    }
}

/// On every fixture, an element's JSON `name` is the label its line of the compact text
/// prints — including clickable containers whose label comes from a child — and at least one
/// fixture has such a composite button.
#[test]
fn json_names_what_the_text_prints() {
    let mut composite = 0;
    for (path, _, text) in ui_fixtures() {
        let json: serde_json::Value =
            serde_json::from_str(&ui::render_dump(&text, ui::Format::Json, false).unwrap())
                .unwrap();
        let tree_text = json["tree_text"].as_str().unwrap();
        for e in json["elements"].as_array().unwrap() {
            let Some(r) = e["ref"].as_str() else { continue };
            let tag = format!("[{r}]");
            let Some(line) = tree_text.lines().find(|l| l.contains(&tag)) else {
                continue;
            };
            let before = &line[..line.find(&tag).unwrap()];
            let Some(open) = before.find('"') else {
                continue;
            };
            let printed = &before[open + 1..before.rfind('"').unwrap()];
            assert_eq!(
                e["name"].as_str(),
                Some(printed),
                "{}: {line}",
                path.display()
            );
            if e["text"].is_null() && e["class"].as_str().is_some_and(|c| c.ends_with("Layout")) {
                composite += 1;
            }
        }
    }
    assert!(composite > 0, "no composite button in the fixtures");
}

/// Appium on a gesture-navigation phone reports the window height (2254) below the display's
/// (2400): the bottom tabs, displayed and inside the display, are listed, not "more below".
#[test]
fn nodes_below_a_short_window_height_are_on_screen() {
    let text = read(&fixtures_dir().join("android_appium_source/appium_tiktok_miui.xml"));
    let tree_text = ui::render_dump(&text, ui::Format::Text, false).unwrap();
    for tab in ["\"Inicio\"", "\"Perfil\""] {
        assert!(tree_text.contains(tab), "{tab} missing:\n{tree_text}");
    }
    assert!(!tree_text.contains("more below"), "{tree_text}");
}
