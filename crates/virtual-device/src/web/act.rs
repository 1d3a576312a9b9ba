//! What reaches the page from the device, as a finger and a keyboard on a phone would: the
//! entry points `input`, `screencap`, `am broadcast` (the ADB Keyboard) and the UiAutomator2
//! stand-in call before their native behaviour. Each answers whether the page took it; the
//! page takes a touch inside the WebView's bounds and, while the web screen is in front with
//! Chromium running, text and the keys [`super::input::web_key`] maps. Called on blocking
//! threads (they wait for Chromium's answers).

use std::sync::Arc;

use image::RgbaImage;

use super::input::web_key;
use super::Page;
use crate::Device;

/// The page of the WebView in front (the web screen shown, its Chromium running).
fn in_front(dev: &Device) -> Option<Arc<Page>> {
    let view = dev.state().web_view()?;
    dev.web.page_of(&view)
}

/// The page and the point (CSS pixels) under a screen point inside the WebView in front.
fn under(dev: &Device, x: i32, y: i32) -> Option<(Arc<Page>, (f64, f64))> {
    let (page, (ux, uy)) = {
        let st = dev.state();
        let view = st.web_view()?;
        (dev.web.page_of(&view)?, st.upright(x, y))
    };
    page.viewport
        .contains(ux, uy)
        .then(|| (page.clone(), page.viewport.css_point(ux, uy)))
}

fn done(dev: &Device, what: String, r: Result<(), String>) {
    match r {
        Ok(()) => dev.journal.web(&what),
        Err(e) => dev.journal.web(&format!("{what} failed: {e}")),
    }
}

/// A tap (held `hold_ms`: a long press when 500 or more) at a screen point.
pub fn tap(dev: &Device, x: i32, y: i32, hold_ms: u64) -> bool {
    let Some((page, at)) = under(dev, x, y) else {
        return false;
    };
    let r = dev.web.block_on(page.tap(at, hold_ms));
    let what = if hold_ms >= 500 {
        format!("long-press {:.1} {:.1} {hold_ms}", at.0, at.1)
    } else {
        format!("tap {:.1} {:.1}", at.0, at.1)
    };
    done(dev, what, r);
    true
}

/// A swipe that starts inside the WebView (the finger stays the page's wherever it goes).
pub fn swipe(dev: &Device, from: (i32, i32), to: (i32, i32), duration_ms: u64) -> bool {
    let Some((page, a)) = under(dev, from.0, from.1) else {
        return false;
    };
    let b = {
        let (ux, uy) = dev.state().upright(to.0, to.1);
        page.viewport.css_point(ux, uy)
    };
    let r = dev.web.block_on(page.swipe(a, b, duration_ms));
    done(
        dev,
        format!(
            "swipe {:.1} {:.1} {:.1} {:.1} {duration_ms}",
            a.0, a.1, b.0, b.1
        ),
        r,
    );
    true
}

/// Typed text (`input text`, already decoded), committed where the page's focus is.
pub fn type_text(dev: &Device, text: &str) -> bool {
    let Some(page) = in_front(dev) else {
        return false;
    };
    let r = dev.web.block_on(page.insert_text(text));
    done(dev, format!("text {}", serde_json::json!(text)), r);
    true
}

/// An Android key (`66`, `ENTER`, `KEYCODE_ENTER`) the page takes; false for the others
/// (BACK, HOME…) and when no page is in front.
pub fn key(dev: &Device, android: &str) -> bool {
    let Some(k) = web_key(android) else {
        return false;
    };
    let Some(page) = in_front(dev) else {
        return false;
    };
    let r = dev.web.block_on(page.key(&k));
    done(dev, format!("key {}", k.code), r);
    true
}

/// What the UiAutomator2 stand-in's `/keys` did to the page.
pub enum SetText {
    /// No page in front: the native field's business.
    NotWeb,
    /// The page's focus is on nothing that takes text.
    NoFocus,
    Done,
}

/// `/keys`: the focused web field gets `text` (its whole text selected first with
/// `replace`, else the caret moved to its end), then Enter when `enter`.
pub fn set_text(dev: &Device, text: &str, replace: bool, enter: bool) -> SetText {
    let Some(page) = in_front(dev) else {
        return SetText::NotWeb;
    };
    let r = dev.web.block_on(async {
        if !page.editing().await? {
            return Ok(false);
        }
        page.edit(if replace {
            "selectAll"
        } else {
            "moveToEndOfDocument"
        })
        .await?;
        page.insert_text(text).await?;
        if enter {
            if let Some(k) = web_key("ENTER") {
                page.key(&k).await?;
            }
        }
        Ok::<_, String>(true)
    });
    let what = format!(
        "set-text {}{}",
        serde_json::json!(text),
        if replace { " replace" } else { "" }
    );
    match r {
        Ok(false) => SetText::NoFocus,
        Ok(true) => {
            dev.journal.web(&what);
            SetText::Done
        }
        Err(e) => {
            dev.journal.web(&format!("{what} failed: {e}"));
            SetText::Done
        }
    }
}

/// Draws the page over the WebView in a screenshot of the screen as shown: Chromium's
/// rendering, scaled to exactly the WebView's bounds when they differ by rounding.
pub fn composite(dev: &Device, img: &mut RgbaImage) {
    let Some((page, b)) = ({
        let st = dev.state();
        st.web_view()
            .and_then(|view| Some((dev.web.page_of(&view)?, st.web_view_shown_bounds()?)))
    }) else {
        return;
    };
    let png = match dev.web.block_on(page.screenshot()) {
        Ok(png) => png,
        Err(e) => {
            dev.journal.web(&format!("screenshot failed: {e}"));
            return;
        }
    };
    let shot = match image::load_from_memory_with_format(&png, image::ImageFormat::Png) {
        Ok(i) => i.to_rgba8(),
        Err(e) => {
            dev.journal.web(&format!("screenshot failed: {e}"));
            return;
        }
    };
    let (w, h) = ((b.x2 - b.x1) as u32, (b.y2 - b.y1) as u32);
    let shot = if shot.dimensions() == (w, h) {
        shot
    } else {
        image::imageops::resize(&shot, w, h, image::imageops::FilterType::Triangle)
    };
    image::imageops::replace(img, &shot, i64::from(b.x1), i64::from(b.y1));
    dev.journal.web("screenshot");
}
