//! One page attached over DevTools: found in the socket's `/json/list` (through the HTTP
//! runner), its WebSocket opened once and kept, then read as often as the screen is. A read is
//! three calls sent together; when the page navigated between them (the accessibility tree and
//! the layout of two documents), it is read once more before giving up.

use std::time::Duration;

use serde_json::{json, Value};

use super::cdp::{Cdp, CdpError, Event};
use super::page::{read_page, PageAnswers, PageError, PageRead};
use super::targets::{self, Target};
use super::viewport;
use crate::exec::{HttpClient, HttpRequest};
use crate::ui::model::Rect;

/// Most pages of one socket tried when attaching (a browser with many tabs).
const MAX_TRIED: usize = 8;

/// Why a page could not be attached or read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WebError {
    /// `/json/list` did not answer, or not with a list.
    #[error("the DevTools socket did not list its pages: {0}")]
    List(String),
    /// The list has no page a WebView shows.
    #[error("the DevTools socket lists no page this WebView shows")]
    NoPage,
    /// The attached page is hidden: its WebView is not the one on the screen now.
    #[error("the attached page is hidden (its WebView is not the one shown)")]
    Hidden,
    /// The protocol failed.
    #[error(transparent)]
    Cdp(#[from] CdpError),
    /// The answers could not be made into a page.
    #[error(transparent)]
    Page(#[from] PageError),
}

/// A page attached over DevTools.
#[derive(Debug)]
pub struct Attached {
    /// The target, as listed when attached.
    pub target: Target,
    cdp: Cdp,
}

impl Attached {
    /// Attaches to the page that a WebView at `host` shows, through the DevTools socket that
    /// answers at `base` (`http://127.0.0.1:PORT`, the host end of a forward).
    pub async fn open(
        http: &HttpClient,
        base: &str,
        host: Rect,
        limit: Duration,
    ) -> Result<Attached, WebError> {
        let list = http
            .send(&HttpRequest::get(format!("{base}/json/list")).timeout(limit))
            .await
            .map_err(|e| WebError::List(e.to_string()))?;
        let all = targets::parse(&list.text()).map_err(WebError::List)?;
        let candidates = targets::candidates(&all, host);
        let last = candidates.len().min(MAX_TRIED);
        for (i, target) in candidates.into_iter().take(MAX_TRIED).enumerate() {
            let path = target.socket_path().ok_or(WebError::NoPage)?;
            let ws = format!("ws://{}{path}", base.trim_start_matches("http://"));
            let page = Attached {
                target: target.clone(),
                cdp: Cdp::connect(&ws, limit).await?,
            };
            // A hidden page is not the one shown (Chrome's tabs behind the one in front, a
            // WebView behind another screen): the next one is tried, the last is kept.
            let probe = page.evaluate(viewport::PROBE, limit).await?;
            if probe["hidden"] == true && i + 1 < last {
                continue;
            }
            // Console messages and uncaught errors are events only once Runtime is enabled.
            page.cdp.call("Runtime.enable", json!({}), limit).await?;
            return Ok(page);
        }
        Err(WebError::NoPage)
    }

    /// Why the page's connection ended (the page closed, the browser died), once it has.
    pub fn ended(&self) -> Option<String> {
        self.cdp.ended()
    }

    /// The page's events from now on (console messages, exceptions, navigations).
    pub fn events(&self) -> tokio::sync::broadcast::Receiver<Event> {
        self.cdp.events()
    }

    /// The page as elements under a WebView at `host`, at most `max_elements` of them: its
    /// accessibility tree, or for a page of more than [`viewport::LARGE_PAGE`] elements what a
    /// script finds near its viewport.
    pub async fn read(
        &self,
        host: Rect,
        max_elements: usize,
        limit: Duration,
    ) -> Result<PageRead, WebError> {
        let probe = self.evaluate(viewport::PROBE, limit).await?;
        if probe["hidden"] == true {
            return Err(WebError::Hidden);
        }
        if probe["n"].as_u64().unwrap_or(0) > viewport::LARGE_PAGE {
            let answer = self
                .evaluate(&format!("({})({max_elements})", viewport::SCRIPT), limit)
                .await?;
            return viewport::read_items(&answer, host).ok_or(WebError::Page(PageError::Missing(
                "the viewport script's answer",
            )));
        }
        let mut tries = 0;
        loop {
            tries += 1;
            let (ax, snapshot, metrics) = tokio::join!(
                self.cdp
                    .call("Accessibility.getFullAXTree", json!({}), limit),
                self.cdp.call(
                    "DOMSnapshot.captureSnapshot",
                    json!({"computedStyles": [], "includeDOMRects": true}),
                    limit
                ),
                self.cdp.call("Page.getLayoutMetrics", json!({}), limit),
            );
            let (ax, snapshot, metrics) = (ax?, snapshot?, metrics?);
            match read_page(
                PageAnswers {
                    ax: &ax,
                    snapshot: &snapshot,
                    metrics: &metrics,
                },
                host,
                max_elements,
            ) {
                Err(PageError::Navigated { .. }) if tries < 2 => continue,
                answer => return Ok(answer?),
            }
        }
    }

    /// The DOM nodes (`backendNodeId`s) that the CSS selector `css` matches in the page, in
    /// document order. An invalid selector is refused by the page
    /// ([`CdpError::Refused`]).
    pub async fn css(&self, css: &str, limit: Duration) -> Result<Vec<u64>, WebError> {
        let doc = self
            .cdp
            .call("DOM.getDocument", json!({"depth": 0}), limit)
            .await?;
        let root = doc["root"]["nodeId"].as_u64().unwrap_or(0);
        let found = self
            .cdp
            .call(
                "DOM.querySelectorAll",
                json!({"nodeId": root, "selector": css}),
                limit,
            )
            .await?;
        let mut out = Vec::new();
        for id in found["nodeIds"].as_array().into_iter().flatten() {
            let node = self
                .cdp
                .call("DOM.describeNode", json!({"nodeId": id}), limit)
                .await?;
            if let Some(b) = node["node"]["backendNodeId"].as_u64() {
                out.push(b);
            }
        }
        Ok(out)
    }

    /// Evaluates `expression` in the page and answers its value (for tests and checks).
    pub async fn evaluate(&self, expression: &str, limit: Duration) -> Result<Value, WebError> {
        let v = self
            .cdp
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
                limit,
            )
            .await?;
        Ok(v["result"]["value"].clone())
    }
}
