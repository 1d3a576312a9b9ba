//! The page in the WebView, driven over the DevTools Protocol: opening it (the page target,
//! its flattened session, the viewport and touch emulation, the first page loaded), and what
//! the device does to it — navigate, evaluate, screenshot, touches, text and keys. Every wait
//! here is bounded (each call by [`super::cdp::CALL_TIMEOUT`], loads by [`LOAD_TIMEOUT`]).

use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};

use super::cdp::Cdp;
use super::input::{swipe_moves, Viewport, WebKey};

/// Longest a page may take to load.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a load is checked on.
const POLL: Duration = Duration::from_millis(20);
/// Longest a finger is held down (a long press) or a swipe lasts.
const LONGEST_GESTURE_MS: u64 = 10_000;

/// Chromium's page behind the WebView, through one DevTools connection.
pub struct Page {
    cdp: Cdp,
    session: String,
    /// Where the page is on the screen and at what scale.
    pub viewport: Viewport,
}

impl Page {
    /// Connects to the browser at `ws_url`, attaches to its page, makes the page's viewport the
    /// WebView's (`screen_px`: the whole display) with touch, and loads `url`.
    pub async fn open(
        ws_url: &str,
        viewport: Viewport,
        screen_px: (u32, u32),
        url: &str,
    ) -> Result<Page, String> {
        let cdp = Cdp::connect(ws_url).await?;
        let target = page_target(&cdp).await?;
        let attached = cdp
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .await?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or("Target.attachToTarget: no sessionId")?
            .to_string();
        let page = Page {
            cdp,
            session,
            viewport,
        };
        page.call(
            "Emulation.setDeviceMetricsOverride",
            viewport.metrics(screen_px),
        )
        .await?;
        page.call(
            "Emulation.setTouchEmulationEnabled",
            json!({"enabled": true, "maxTouchPoints": 5}),
        )
        .await?;
        page.navigate(url).await?;
        Ok(page)
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        self.cdp.call(Some(&self.session), method, params).await
    }

    /// Evaluates `js` in the page (promises awaited); the value as JSON (`null` for
    /// `undefined`), or the exception it threw.
    pub async fn eval(&self, js: &str) -> Result<Value, String> {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": js, "returnByValue": true, "awaitPromise": true}),
            )
            .await?;
        if let Some(e) = r.get("exceptionDetails") {
            let text = e
                .pointer("/exception/description")
                .and_then(Value::as_str)
                .or_else(|| e.get("text").and_then(Value::as_str))
                .unwrap_or("exception");
            return Err(text.to_string());
        }
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    /// What the page exposes to accessibility services: its full accessibility tree
    /// (`Accessibility.getFullAXTree`) and a DOM snapshot with layout rectangles
    /// (`DOMSnapshot.captureSnapshot`). Reads only: no navigation, no emulation change.
    pub async fn a11y_tree(&self) -> Result<(Value, Value), String> {
        let ax = self.call("Accessibility.getFullAXTree", json!({})).await?;
        let snapshot = self
            .call(
                "DOMSnapshot.captureSnapshot",
                json!({"computedStyles": [], "includeDOMRects": true}),
            )
            .await?;
        Ok((ax, snapshot))
    }

    /// Opens `url` and waits until it has loaded.
    pub async fn navigate(&self, url: &str) -> Result<(), String> {
        let r = self.call("Page.navigate", json!({"url": url})).await?;
        if let Some(e) = r.get("errorText").and_then(Value::as_str) {
            return Err(format!("Page.navigate {url}: {e}"));
        }
        let check = format!(
            "location.href === {} && document.readyState === 'complete'",
            json!(url)
        );
        let deadline = tokio::time::Instant::now() + LOAD_TIMEOUT;
        loop {
            if self.eval(&check).await.ok() == Some(Value::Bool(true)) {
                return Ok(());
            }
            if tokio::time::Instant::now() > deadline {
                return Err(format!("{url} did not load within {LOAD_TIMEOUT:?}"));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The page as PNG, at the viewport's size in device pixels (rounded by Chromium).
    pub async fn screenshot(&self) -> Result<Vec<u8>, String> {
        let r = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await?;
        let data = r["data"]
            .as_str()
            .ok_or("Page.captureScreenshot: no data")?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| format!("Page.captureScreenshot: {e}"))
    }

    async fn touch(&self, kind: &str, at: Option<(f64, f64)>) -> Result<(), String> {
        let points = match at {
            Some((x, y)) => json!([{"x": x, "y": y}]),
            None => json!([]),
        };
        self.call(
            "Input.dispatchTouchEvent",
            json!({"type": kind, "touchPoints": points}),
        )
        .await
        .map(drop)
    }

    /// A finger down at `at` (CSS pixels), held `hold_ms`, then up: a tap, or a long press.
    pub async fn tap(&self, at: (f64, f64), hold_ms: u64) -> Result<(), String> {
        self.touch("touchStart", Some(at)).await?;
        if hold_ms > 0 {
            tokio::time::sleep(Duration::from_millis(hold_ms.min(LONGEST_GESTURE_MS))).await;
        }
        self.touch("touchEnd", None).await
    }

    /// A finger down at `from`, moved to `to` over `duration_ms`, then up (the page scrolls,
    /// or flings, as under a real finger).
    pub async fn swipe(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        duration_ms: u64,
    ) -> Result<(), String> {
        let duration_ms = duration_ms.min(LONGEST_GESTURE_MS);
        let t0 = tokio::time::Instant::now();
        self.touch("touchStart", Some(from)).await?;
        for (x, y, at_ms) in swipe_moves(from, to, duration_ms) {
            tokio::time::sleep_until(t0 + Duration::from_millis(at_ms)).await;
            self.touch("touchMove", Some((x, y))).await?;
        }
        self.touch("touchEnd", None).await
    }

    /// Types `text` where the page's focus is, as an IME commits it.
    pub async fn insert_text(&self, text: &str) -> Result<(), String> {
        self.call("Input.insertText", json!({"text": text}))
            .await
            .map(drop)
    }

    /// Presses and releases `key`.
    pub async fn key(&self, key: &WebKey) -> Result<(), String> {
        for e in key.events() {
            self.call("Input.dispatchKeyEvent", e).await?;
        }
        Ok(())
    }

    /// Runs an editing command on the focused field (`selectAll`, `moveToEndOfDocument`).
    pub async fn edit(&self, command: &str) -> Result<(), String> {
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "rawKeyDown", "key": "Unidentified", "commands": [command]}),
        )
        .await?;
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": "Unidentified"}),
        )
        .await
        .map(drop)
    }

    /// Whether the page's focus is on something that takes text.
    pub async fn editing(&self) -> Result<bool, String> {
        let v = self
            .eval(
                "(() => { const e = document.activeElement; return !!e && (e.isContentEditable \
                 || e.tagName === 'TEXTAREA' || (e.tagName === 'INPUT' && !['button', \
                 'checkbox', 'radio', 'submit', 'reset', 'image', 'file', 'range', 'color']\
                 .includes(e.type))); })()",
            )
            .await?;
        Ok(v == Value::Bool(true))
    }
}

/// The browser's page target (the one tab a headless Chromium opens), waited for briefly.
async fn page_target(cdp: &Cdp) -> Result<String, String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let targets = cdp.call(None, "Target.getTargets", json!({})).await?;
        let page = targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["type"] == "page")
            .and_then(|t| t["targetId"].as_str());
        if let Some(id) = page {
            return Ok(id.to_string());
        }
        if tokio::time::Instant::now() > deadline {
            return Err("chromium has no page target".into());
        }
        tokio::time::sleep(POLL).await;
    }
}
