//! Screen fingerprint: a blake3 hash over the structurally significant visible elements (role,
//! id, label, checked/selected, coarse position) that ignores the status bar and volatile
//! strings (clock times, percentages). The same screen read twice hashes the same.

use super::model::{Element, Rect, Role, Size};
use super::parse::is_system_ui_package;

/// Per element: whether it belongs to the status bar (or sits in it on iOS). One pass;
/// parents precede children.
pub fn status_bar_mask(els: &[Element], screen: Rect) -> Vec<bool> {
    let band = screen.h * 0.065;
    let mut out: Vec<bool> = Vec::with_capacity(els.len());
    for e in els.iter() {
        let inherited = e.parent.filter(|&p| p < out.len()).is_some_and(|p| out[p]);
        let own = is_status_bar(e);
        let in_band = e.bounds.is_valid() && e.bounds.bottom() <= screen.y + band;
        let band_item = in_band
            && match e.package.as_deref() {
                Some(p) => is_system_ui_package(p),
                // iOS: the status bar items are plain texts and generic elements at the top.
                None => !e.role.is_control(),
            };
        out.push(inherited || own || band_item);
    }
    out
}

/// Per element: whether it is a passive item of the status bar (clock, battery, signal,
/// notification icons), which the compact text leaves out. They are the system's, change on
/// their own (a clock tick would be a change in every receipt) and cost an agent tokens on
/// every read. Only items inside the bar's band count (a notification row of the open shade,
/// `status_bar_latest_event_content`, is not one), and none that can be acted on.
pub fn passive_status_bar(els: &[Element], screen: Rect) -> Vec<bool> {
    let size = Size {
        w: screen.w,
        h: screen.h,
    };
    let Some(band) = status_bar_rect(els, size) else {
        return vec![false; els.len()];
    };
    status_bar_mask(els, screen)
        .into_iter()
        .zip(els)
        .map(|(bar, e)| {
            bar && e.bounds.bottom() <= band.bottom() + 1.0 && !super::prune::is_actionable(e)
        })
        .collect()
}

/// Whether the element is a status bar itself (role, or an id that says so).
fn is_status_bar(e: &Element) -> bool {
    e.role == Role::Statusbar
        || e.id.as_deref().is_some_and(|id| {
            [
                "status_bar",
                "statusbar",
                "statusBar",
                "StatusBar",
                "STATUS_BAR",
            ]
            .iter()
            .any(|p| id.contains(p))
        })
}

/// The status bar's band across the top of the screen, as the tree gives it: the lowest
/// bottom edge of the status bar elements that start at the top (Android
/// `com.android.systemui:id/status_bar`, iOS `StatusBar`), at most 15% of the screen high (a
/// notification row's `status_bar_latest_event_content` does not qualify). `None` when the
/// tree has none.
pub fn status_bar_rect(els: &[Element], screen: Size) -> Option<Rect> {
    let bottom = els
        .iter()
        .filter(|e| is_status_bar(e) && e.bounds.is_valid())
        .filter(|e| e.bounds.y <= 1.0 && e.bounds.h > 0.0 && e.bounds.bottom() <= screen.h * 0.15)
        .map(|e| e.bounds.bottom())
        .fold(None, |m: Option<f64>, b| Some(m.map_or(b, |m| m.max(b))))?;
    Some(Rect {
        x: 0.0,
        y: 0.0,
        w: screen.w,
        h: bottom,
    })
}

/// Replaces volatile fragments: `12:34`, `9:41 AM`, `100%` become `#`.
pub fn mask_volatile(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b':' || b[i] == b'.') {
                i += 1;
            }
            let run = &s[start..i];
            let is_time = run.contains(':');
            let is_pct = i < b.len() && b[i] == b'%';
            if is_time || is_pct {
                out.push('#');
                if is_pct {
                    i += 1;
                }
            } else {
                out.push_str(run);
            }
        } else {
            let ch = s[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Hashes the significant elements (`significant[i]`); returns 16 hex digits.
pub fn fingerprint(els: &[Element], significant: &[bool], screen: Rect) -> String {
    let mut h = blake3::Hasher::new();
    let q = |v: f64, size: f64| -> i64 {
        if size > 0.0 && v.is_finite() {
            (v / size * 48.0).round() as i64
        } else {
            0
        }
    };
    let bar = status_bar_mask(els, screen);
    for (i, e) in els.iter().enumerate() {
        if !significant[i] || bar[i] {
            continue;
        }
        h.update(e.role.as_str().as_bytes());
        h.update(b"\x1f");
        h.update(e.id.as_deref().unwrap_or("").as_bytes());
        h.update(b"\x1f");
        if let Some(l) = e.label() {
            h.update(mask_volatile(l).as_bytes());
        }
        h.update(b"\x1f");
        let s = &e.states;
        h.update(&[s.checked as u8, s.selected as u8, s.enabled as u8]);
        for v in [
            q(e.bounds.x, screen.w),
            q(e.bounds.y, screen.h),
            q(e.bounds.w, screen.w),
            q(e.bounds.h, screen.h),
        ] {
            h.update(&v.to_le_bytes());
        }
        h.update(b"\x1e");
    }
    h.finalize().to_hex()[..16].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_clock_and_battery() {
        assert_eq!(mask_volatile("12:34"), "#");
        assert_eq!(mask_volatile("9:41 AM"), "# AM");
        assert_eq!(mask_volatile("Battery 100%"), "Battery #");
        assert_eq!(mask_volatile("Page 2 of 10"), "Page 2 of 10");
        assert_eq!(mask_volatile("Привет 5"), "Привет 5");
    }

    fn bar_of(rel: &str) -> Option<Rect> {
        let path = format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"));
        let tree = crate::ui::parse::parse_any(&std::fs::read_to_string(path).unwrap()).unwrap();
        status_bar_rect(&tree.nodes, tree.screen)
    }

    #[test]
    fn the_status_bar_band_comes_from_the_tree() {
        // uiautomator: com.android.systemui:id/status_bar [0,0][1080,72].
        let r = bar_of("android_uiautomator/avito_second_screen_u2.xml").unwrap();
        assert_eq!((r.x, r.y, r.w, r.h), (0.0, 0.0, 1080.0, 72.0));
        // WebDriverAgent: XCUIElementTypeStatusBar 414x20 points.
        let r = bar_of(
            "ios_wda_source/wda_source_real_device_empty_content_multiwindow_414x736_zh.xml",
        )
        .unwrap();
        assert_eq!((r.x, r.y, r.w, r.h), (0.0, 0.0, 414.0, 20.0));
        // A tree without one says so (the caller falls back to a share of the height).
        assert_eq!(status_bar_rect(&[], Size { w: 100.0, h: 200.0 }), None);
    }
}
