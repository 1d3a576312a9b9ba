//! The rules on real dumps (each answer checked by hand against the XML) and on pictures of
//! known colours drawn here.

use ab_glyph::FontRef;
use image::{Rgb, RgbImage};

use super::*;
use crate::ui::{analyze_owned, parse_any, Rect, ViewOptions};

fn read(rel: &str) -> String {
    let path = format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap()
}

fn analyse(text: &str) -> Screen {
    analyze_owned(parse_any(text).unwrap(), None, &ViewOptions::default())
}

fn run(s: &Screen, density: Option<f64>, img: Option<&RgbImage>) -> Audit {
    audit(&Input {
        screen: s,
        screenshot: img,
        density,
    })
    .unwrap()
}

fn of(a: &Audit, rule: Rule) -> Vec<&Finding> {
    a.findings.iter().filter(|f| f.rule == rule).collect()
}

const HERALD: &str = "android_uiautomator/herald_naf_attr_800x1216_cjk.xml";
const THUNDERBIRD: &str = "android_uiautomator/thunderbird_mail_1080x2028.xml";
const RN_LOGIN: &str = "android_uiautomator/react_native_wdio_demo_login.xml";
const IOS_SETTINGS: &str =
    "ios_wda_source/wda_source_settings_root_iphone17pro_ios26.4_traits_bundleId.xml";

#[test]
fn an_image_button_without_a_description_is_an_unnamed_control() {
    // herald: `<node NAF="true" class="android.widget.ImageButton" content-desc="" text=""
    // clickable="true" bounds="[11,33][86,118]"/>` (the toolbar's navigation button), the only
    // clickable node with neither text nor description.
    let s = analyse(&read(HERALD));
    let a = run(&s, Some(240.0), None);
    let unnamed = of(&a, Rule::UnnamedControl);
    assert_eq!(unnamed.len(), 1, "{unnamed:?}");
    assert_eq!(unnamed[0].bounds, Rect::new(11.0, 33.0, 75.0, 85.0));
    assert_eq!(unnamed[0].severity, Severity::Error);
    assert_eq!(unnamed[0].wcag, "4.1.2");
    assert!(unnamed[0].r#ref.is_some());
    // Thunderbird labels every control (content-desc or text in its rows).
    let a = run(&analyse(&read(THUNDERBIRD)), Some(420.0), None);
    assert!(of(&a, Rule::UnnamedControl).is_empty(), "{:?}", a.findings);
}

#[test]
fn small_icon_buttons_are_measured_in_dp_from_the_density() {
    // herald's action buttons 刷新 [655,43][719,107] and 充值 [719,43][789,107]: 64 and 70 px
    // wide, 64 px high; at 240 dpi 64 px are 42.7 dp. The navigation button (75×85 px) is
    // 50×56.7 dp: large enough.
    let s = analyse(&read(HERALD));
    let a = run(&s, Some(240.0), None);
    let small = of(&a, Rule::TouchTarget);
    let names: Vec<_> = small.iter().map(|f| f.name.as_deref().unwrap()).collect();
    assert_eq!(names, ["刷新", "充值"]);
    let m = small[0].measured.as_ref().unwrap();
    assert_eq!((m.value, m.needed, m.unit.as_str()), (42.7, 48.0, "dp"));
    assert_eq!(small[0].severity, Severity::Warning);
    // At 160 dpi a pixel is a dp: all three are large enough.
    assert!(of(&run(&s, Some(160.0), None), Rule::TouchTarget).is_empty());
    // Without the density the rule does not run, and says so.
    let a = run(&s, None, None);
    assert!(of(&a, Rule::TouchTarget).is_empty());
    assert!(a.skipped.iter().any(|r| r.starts_with("touch-target")));
}

#[test]
fn a_target_cut_by_the_screen_edge_is_information_saying_so() {
    // Thunderbird's "More options" [969,88][1080,220] ends at the right edge: 111 px = 42.3 dp.
    let a = run(&analyse(&read(THUNDERBIRD)), Some(420.0), None);
    let t = of(&a, Rule::TouchTarget);
    assert_eq!(t.len(), 1, "{t:?}");
    assert_eq!(t[0].name.as_deref(), Some("More options"));
    assert_eq!(t[0].severity, Severity::Info);
    assert!(t[0].detail.contains("screen edge"), "{}", t[0].detail);
}

#[test]
fn fields_labelled_by_their_content_description_are_found() {
    // The React Native login's two EditTexts carry content-desc="input-email" and
    // "input-password" (test ids), text and hint "Email" / "Password".
    let a = run(&analyse(&read(RN_LOGIN)), Some(420.0), None);
    let f = of(&a, Rule::FieldLabelledByDescription);
    let names: Vec<_> = f.iter().map(|f| f.name.as_deref().unwrap()).collect();
    assert_eq!(names, ["input-email", "input-password"]);
    assert!(f.iter().all(|f| f.role == crate::ui::Role::Textbox));
    // Their keys differ though they share a resource-id.
    assert_ne!(f[0].key, f[1].key);
    // "button-LOGIN" and the two "button-…-container" descriptions repeat the role.
    let r = of(&a, Rule::NameRepeatsRole);
    assert_eq!(r.len(), 3, "{r:?}");
    assert!(r
        .iter()
        .all(|f| f.name.as_deref().unwrap().starts_with("button-")));
}

#[test]
fn ios_sizes_are_points_and_a_control_listed_twice_counts_once() {
    // iOS 26 Settings lists the search field's "Dictate" button twice with the same frame
    // (18×22 pt at 335,811): one target under WCAG's 24 pt minimum, not two, and not a duplicate.
    let a = run(&analyse(&read(IOS_SETTINGS)), None, None);
    let dictate: Vec<_> = a
        .findings
        .iter()
        .filter(|f| f.name.as_deref() == Some("Dictate"))
        .collect();
    assert_eq!(dictate.len(), 1, "{dictate:?}");
    assert_eq!(dictate[0].rule, Rule::TouchTarget);
    assert_eq!(dictate[0].severity, Severity::Error);
    assert_eq!(dictate[0].measured.as_ref().unwrap().unit, "pt");
    assert!(a.density.is_none());
}

#[test]
fn controls_announced_alike_are_one_duplicate_finding() {
    let xml = dump(
        400,
        400,
        &[
            N::button("Delete", [0, 0, 200, 100]),
            N::button("delete", [0, 100, 200, 200]),
            N::button("Keep", [200, 0, 400, 100]),
            N::link("Click here", [200, 200, 400, 300]),
        ],
    );
    let a = run(&analyse(&xml), Some(160.0), None);
    let d = of(&a, Rule::DuplicateName);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].measured.as_ref().unwrap().value, 2.0);
    let v = of(&a, Rule::VagueLinkText);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].name.as_deref(), Some("Click here"));
}

#[test]
fn overlapping_controls_are_found_but_nested_ones_are_not() {
    let xml = dump(
        400,
        400,
        &[
            N::button("A", [0, 0, 200, 100]),
            N::button("B", [150, 50, 350, 150]),
            N::button("C", [0, 300, 100, 400]),
        ],
    );
    let a = run(&analyse(&xml), Some(160.0), None);
    let o = of(&a, Rule::OverlappingTargets);
    assert_eq!(o.len(), 1, "{o:?}");
    assert_eq!(o[0].name.as_deref(), Some("B"));
    assert!(o[0].detail.contains("\"A\""), "{}", o[0].detail);
    // herald's clickable rows hold clickable children: nested, not overlapping.
    assert!(of(
        &run(&analyse(&read(HERALD)), Some(240.0), None),
        Rule::OverlappingTargets
    )
    .is_empty());
}

// ---- contrast on pixels of known colours ----

fn grey(v: u8) -> Rgb<u8> {
    Rgb([v, v, v])
}

/// A white `w`×`h` picture with each text drawn in its grey at its size at its place.
fn paint(w: u32, h: u32, items: &[(&str, u8, f32, (i32, i32))]) -> RgbImage {
    let font = FontRef::try_from_slice(dejavu::sans::regular()).unwrap();
    let mut img = RgbImage::from_pixel(w, h, grey(255));
    for &(text, c, px, at) in items {
        draw::draw_text(&mut img, grey(c), at, px, &font, text);
    }
    img
}

/// Grey levels on white whose WCAG ratio is about 2.5, 3 and 5.
const AT_2_5: u8 = 164;
const AT_3: u8 = 148;
const AT_5: u8 = 111;

#[test]
fn the_grey_levels_have_the_ratios_the_tests_claim() {
    let r = |v: u8| contrast::ratio(contrast::luminance([v; 3]), 1.0);
    assert!((r(AT_2_5) - 2.5).abs() < 0.05, "{}", r(AT_2_5));
    assert!((r(AT_3) - 3.0).abs() < 0.05, "{}", r(AT_3));
    assert!((r(AT_5) - 5.0).abs() < 0.05, "{}", r(AT_5));
}

#[test]
fn small_text_needs_4_5_and_large_text_3() {
    // A phone at 420 dpi (2.625 px a dp): 36 px is 13.7 sp (small), 64 px is 24.4 sp (large).
    // Small text at 3:1 fails and at 5:1 passes; large text at 3:1 passes and at 2.5:1 fails.
    let img = paint(
        1080,
        800,
        &[
            ("Small grey", AT_3, 36.0, (10, 8)),
            ("Small dark", AT_5, 36.0, (10, 108)),
            ("Large grey", AT_3, 64.0, (10, 210)),
            ("Large pale", AT_2_5, 64.0, (10, 360)),
        ],
    );
    let xml = dump(
        1080,
        800,
        &[
            N::text("Small grey", [0, 0, 1080, 60]),
            N::text("Small dark", [0, 100, 1080, 160]),
            N::text("Large grey", [0, 200, 1080, 300]),
            N::text("Large pale", [0, 350, 1080, 450]),
        ],
    );
    let a = run(&analyse(&xml), Some(420.0), Some(&img));
    let t = of(&a, Rule::TextContrast);
    let names: Vec<_> = t.iter().map(|f| f.name.as_deref().unwrap()).collect();
    assert_eq!(names, ["Small grey", "Large pale"], "{t:?}");
    let small = t[0].measured.as_ref().unwrap();
    assert!((small.value - 3.0).abs() < 0.1, "{small:?}");
    assert_eq!(small.needed, 4.5);
    let large = t[1].measured.as_ref().unwrap();
    assert!((large.value - 2.5).abs() < 0.1, "{large:?}");
    assert_eq!(large.needed, 3.0);
    assert!(
        t[0].detail.contains("#949494 on #ffffff"),
        "{}",
        t[0].detail
    );
}

#[test]
fn a_pale_icon_fails_non_text_contrast_and_a_dark_one_passes() {
    let mut img = RgbImage::from_pixel(400, 400, grey(255));
    draw::fill_rect(&mut img, draw::Rect::new(12, 12, 40, 40), grey(210));
    draw::fill_rect(&mut img, draw::Rect::new(112, 12, 40, 40), grey(90));
    let xml = dump(
        400,
        400,
        &[
            N::icon("Settings", [0, 0, 64, 64]),
            N::icon("Search", [100, 0, 164, 64]),
        ],
    );
    let a = run(&analyse(&xml), Some(160.0), Some(&img));
    let f = of(&a, Rule::NonTextContrast);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].name.as_deref(), Some("Settings"));
    assert_eq!(f[0].measured.as_ref().unwrap().needed, 3.0);
}

#[test]
fn the_demos_real_screenshot_shows_its_hints_below_4_5() {
    // The virtual device draws hints #757575 on fields #f5f5f5: 4.23:1 by the WCAG formula
    // (luminances 0.178 and 0.913), small text. Everything else is black on white or on
    // #bbdefb; the two short controls are 38.1 and 30.5 dp high at 420 dpi.
    let s = analyse(&read("virtual_device/demo_login.xml"));
    let png = std::fs::read(format!(
        "{}/fixtures/virtual_device/demo_login.png",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let img = picture::decode(&png).unwrap();
    let a = run(&s, Some(420.0), Some(&img));
    let t = of(&a, Rule::TextContrast);
    let names: Vec<_> = t.iter().map(|f| f.name.as_deref().unwrap()).collect();
    assert_eq!(names, ["Username", "Password"], "{t:?}");
    assert_eq!(t[0].measured.as_ref().unwrap().value, 4.23);
    assert!(
        t[0].detail.starts_with("4.23:1, #757575 on #f5f5f5"),
        "{}",
        t[0].detail
    );
    let small: Vec<_> = of(&a, Rule::TouchTarget)
        .iter()
        .map(|f| f.measured.as_ref().unwrap().value)
        .collect();
    assert_eq!(small, [38.1, 30.5]);
    assert_eq!(a.findings.len(), 4, "{:?}", a.findings);
}

// ---- bad input ----

#[test]
fn a_dump_without_bounds_is_refused() {
    let xml = r#"<hierarchy rotation="0"><node class="android.widget.Button" text="OK" clickable="true"/></hierarchy>"#;
    let s = analyse(xml);
    let e = audit(&Input {
        screen: &s,
        screenshot: None,
        density: Some(160.0),
    })
    .unwrap_err();
    assert_eq!(e, AuditError::NoBounds);
}

#[test]
fn a_screenshot_of_another_screen_is_refused() {
    let s = analyse(&read(HERALD));
    // herald is 800×1216 px; a landscape picture is not it.
    let img = RgbImage::new(1216, 800);
    let e = audit(&Input {
        screen: &s,
        screenshot: Some(&img),
        density: Some(240.0),
    })
    .unwrap_err();
    assert!(
        matches!(e, AuditError::ScreenshotSize { image_w: 1216, .. }),
        "{e}"
    );
    // Half the size is the same screen, scaled.
    let img = RgbImage::from_pixel(400, 608, grey(255));
    assert!(audit(&Input {
        screen: &s,
        screenshot: Some(&img),
        density: Some(240.0),
    })
    .is_ok());
    let e = audit(&Input {
        screen: &s,
        screenshot: None,
        density: Some(2.0),
    })
    .unwrap_err();
    assert_eq!(e, AuditError::Density(2.0));
}

#[test]
fn a_forty_thousand_node_tree_is_audited_within_its_bounds() {
    // 40,000 small unnamed buttons and lines of text, each in a place of its own, 200 to a row
    // 5 px apart (so each overlaps its neighbours), with a screenshot: every rule runs, and the two whose work
    // grows faster than the tree stop at their bounds and say so (the work is bounded by
    // construction; its time is the bench's to measure).
    let nodes: Vec<N> = (0..40_000)
        .map(|k: i32| {
            let (x, y) = ((k % 200) * 5, (k / 200) * 12);
            match k % 2 {
                0 => N::button("", [x, y, x + 30, y + 30]),
                _ => N::text("word", [x, y, x + 30, y + 30]),
            }
        })
        .collect();
    let xml = dump(1080, 2400, &nodes);
    let s = analyse(&xml);
    let img = RgbImage::from_pixel(1080, 2400, grey(255));
    let a = run(&s, Some(420.0), Some(&img));
    assert!(a.elements >= 40_000, "{}", a.elements);
    let said = |start: &str| a.skipped.iter().any(|s| s.starts_with(start));
    assert!(
        said("overlapping-targets: stopped after"),
        "{:?}",
        a.skipped
    );
    assert!(
        said("text-contrast, non-text-contrast: "),
        "{:?}",
        a.skipped
    );
    assert!(
        a.skipped.iter().any(|s| s.contains("pixel budget")),
        "{:?}",
        a.skipped
    );
    assert!(!of(&a, Rule::UnnamedControl).is_empty());
}

// ---- baseline, SARIF, JUnit, picture ----

#[test]
fn a_baseline_keeps_only_new_findings() {
    let text = read(THUNDERBIRD);
    let before = run(&analyse(&text), Some(420.0), None);
    let again = run(&analyse(&text), Some(420.0), None);
    assert!(baseline::new_findings(&again, &before).findings.is_empty());
    // The compose button loses its label: exactly one new finding, on it.
    let broken = text.replacen("content-desc=\"Compose\"", "content-desc=\"\"", 1);
    assert_ne!(broken, text);
    let now = run(&analyse(&broken), Some(420.0), None);
    let new = baseline::new_findings(&now, &before);
    assert_eq!(new.findings.len(), 1, "{:?}", new.findings);
    assert_eq!(new.findings[0].rule, Rule::UnnamedControl);
    assert_eq!(new.counts.error, 1);
    // A saved audit reads back as it was.
    let saved = serde_json::to_string(&before).unwrap();
    assert_eq!(baseline::parse(&saved).unwrap(), before);
    assert!(baseline::parse("{}").is_err());
}

#[test]
fn sarif_has_one_result_per_finding_pointing_at_its_rule() {
    let a = run(&analyse(&read(RN_LOGIN)), Some(420.0), None);
    let v: serde_json::Value = serde_json::from_str(&sarif::to_sarif(&a, "login.xml")).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), a.findings.len());
    for r in results {
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(run["tool"]["driver"]["rules"][idx]["id"], r["ruleId"]);
        assert!(r["partialFingerprints"]["mobilectlKey/v1"].is_string());
    }
    assert_eq!(results[0]["level"], "error");
}

#[test]
fn junit_fails_a_rule_only_at_or_above_the_level() {
    let a = run(&analyse(&read(RN_LOGIN)), Some(420.0), None);
    let x = junit::to_junit(&a, "login", Severity::Error);
    // Errors: only field-labelled-by-description.
    assert!(x.contains("failures=\"1\""), "{x}");
    assert_eq!(x.matches("<failure ").count(), 1);
    let x = junit::to_junit(&a, "login", Severity::Warning);
    assert!(x.contains("failures=\"3\""), "{x}");
    assert_eq!(x.matches("<testcase ").count(), Rule::ALL.len());
}

#[test]
fn the_picture_outlines_each_finding_in_its_severity_colour() {
    let xml = dump(400, 400, &[N::button("", [100, 100, 200, 200])]);
    let img = RgbImage::from_pixel(400, 400, grey(255));
    let a = run(&analyse(&xml), Some(160.0), Some(&img));
    assert_eq!(a.findings[0].severity, Severity::Error);
    let out = picture::annotate(&a, &img).unwrap();
    // The outline's bottom-right corner is in the error colour; the middle is untouched.
    assert_eq!(*out.get_pixel(199, 199), Rgb([220, 20, 60]));
    assert_eq!(*out.get_pixel(150, 150), grey(255));
    let png = picture::png(&out).unwrap();
    assert_eq!(picture::decode(&png).unwrap(), out);
    assert!(picture::decode(b"not a picture").is_err());
}

// ---- a tiny dump builder ----

struct N {
    class: &'static str,
    text: String,
    desc: String,
    clickable: bool,
    b: [i32; 4],
}

impl N {
    fn button(text: &str, b: [i32; 4]) -> N {
        N {
            class: "android.widget.Button",
            text: text.into(),
            desc: String::new(),
            clickable: true,
            b,
        }
    }
    fn link(text: &str, b: [i32; 4]) -> N {
        N {
            class: "android.widget.TextView",
            ..N::button(text, b)
        }
    }
    fn text(text: &str, b: [i32; 4]) -> N {
        N {
            class: "android.widget.TextView",
            clickable: false,
            ..N::button(text, b)
        }
    }
    fn icon(desc: &str, b: [i32; 4]) -> N {
        N {
            class: "android.widget.ImageButton",
            text: String::new(),
            desc: desc.into(),
            clickable: true,
            b,
        }
    }
}

/// A uiautomator dump: one full-screen window holding `nodes`.
fn dump(w: i32, h: i32, nodes: &[N]) -> String {
    let mut x = format!(
        r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node class="android.widget.FrameLayout" package="com.app" text="" content-desc="" clickable="false" enabled="true" bounds="[0,0][{w},{h}]">"#
    );
    for n in nodes {
        let [x0, y0, x1, y1] = n.b;
        x.push_str(&format!(
            r#"<node class="{}" package="com.app" text="{}" content-desc="{}" clickable="{}" enabled="true" bounds="[{x0},{y0}][{x1},{y1}]"/>"#,
            n.class, n.text, n.desc, n.clickable
        ));
    }
    x.push_str("</node></hierarchy>");
    x
}
