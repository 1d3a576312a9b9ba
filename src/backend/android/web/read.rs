//! Reading the pages of a screen's WebViews: which WebViews a dump has, which app's DevTools
//! socket serves each (one device round trip, only when a WebView is not attached yet),
//! attaching, reading, and what the snapshot says when a page cannot be read — the native part
//! is always answered.

use std::sync::Arc;
use std::time::Duration;

use super::pages::Page;
use super::{closed_note, devtools_sockets, pids, script, socket_of, webviews, WebViewNode};
use crate::backend::android::{AdbBackend, QUICK_TIMEOUT};
use crate::error::Result;
use crate::ui::web::WebContent;
use crate::web::Attached;

/// Most web elements listed per page: a page of tens of thousands of nodes is cut in document
/// order, said in the notes.
pub const MAX_WEB_ELEMENTS: usize = 2000;
/// Time limit of one DevTools request (listing the pages, opening one, one read's calls).
const WEB_TIMEOUT: Duration = Duration::from_secs(5);

/// What went wrong with a WebView's page over DevTools.
#[derive(Clone, Copy)]
enum Failed {
    Attached,
    Read,
}

/// The note for a WebView whose page could not be attached or read: the snapshot shows the
/// app's native part only.
fn native_only_note(package: &str, failed: Failed, why: &dyn std::fmt::Display) -> String {
    let verb = match failed {
        Failed::Attached => "attached",
        Failed::Read => "read",
    };
    format!(
        "the page in the WebView of `{package}` could not be {verb} over DevTools ({why}): \
         the snapshot shows the app's native part only"
    )
}

impl AdbBackend {
    fn web_limit(&self) -> Duration {
        self.max_command_time
            .map_or(WEB_TIMEOUT, |m| m.min(WEB_TIMEOUT))
    }

    /// The pages of the WebViews in `xml` (a dump of `serial`), and what the read's notes must
    /// say about them: a WebView that shows nothing and cannot be debugged (with the fix), a
    /// page that could not be read (the snapshot then shows the app's native part), a page cut
    /// at [`MAX_WEB_ELEMENTS`]. No device round trip when the screen has no WebView, or when
    /// every WebView's page is attached already.
    pub(crate) async fn read_web(&self, serial: &str, xml: &str) -> (Vec<WebContent>, Vec<String>) {
        let views: Vec<WebViewNode> = webviews(xml)
            .into_iter()
            .filter(|w| crate::backend::validate::android_package(&w.package).is_ok())
            .collect();
        let mut notes = Vec::new();
        if views.is_empty() {
            return (Vec::new(), notes);
        }
        let (live, ended) = self.web.live(serial);
        for page in ended {
            self.unforward(serial, &page).await;
        }
        // Each WebView with the page already attached for its app (in order, one each).
        let mut pairs: Vec<(WebViewNode, Option<Arc<Page>>)> = Vec::new();
        let mut used: Vec<Arc<Page>> = Vec::new();
        for view in views {
            let page = live
                .iter()
                .find(|p| p.package == view.package && !used.iter().any(|u| Arc::ptr_eq(u, p)))
                .cloned();
            if let Some(p) = &page {
                used.push(p.clone());
            }
            pairs.push((view, page));
        }
        if pairs.iter().any(|(_, page)| page.is_none()) {
            self.attach_missing(serial, &mut pairs, &mut notes).await;
        }
        let limit = self.web_limit();
        let mut contents = Vec::new();
        for (view, page) in pairs {
            let Some(mut page) = page else { continue };
            let mut answer = page
                .attached
                .read(view.bounds, MAX_WEB_ELEMENTS, limit)
                .await;
            if matches!(answer, Err(crate::web::WebError::Hidden)) {
                // The page kept from an earlier read belongs to a WebView no longer shown (an
                // app with several): attach anew to the page this one shows, once.
                self.let_go(serial, &page).await;
                match self
                    .attach(serial, &view.package, &page.socket, &view)
                    .await
                {
                    Ok(fresh) => {
                        page = fresh;
                        answer = page
                            .attached
                            .read(view.bounds, MAX_WEB_ELEMENTS, limit)
                            .await;
                    }
                    Err(why) => {
                        notes.push(native_only_note(&view.package, Failed::Attached, &why));
                        continue;
                    }
                }
            }
            match answer {
                Ok(read) => {
                    if let Ok(mut url) = page.url.lock() {
                        url.clone_from(&read.content.url);
                    }
                    if read.near_viewport {
                        notes.push(format!(
                            "the page in the WebView of `{}` is large ({} elements): the {} \
                             within a screen of what it shows are listed, read from its DOM \
                             rather than its accessibility tree",
                            view.package,
                            read.left_out + read.content.nodes.len(),
                            read.content.nodes.len()
                        ));
                    } else if read.left_out > 0 {
                        notes.push(format!(
                            "the page in the WebView of `{}` has {} more elements than the \
                             {MAX_WEB_ELEMENTS} listed (in document order)",
                            view.package, read.left_out
                        ));
                    }
                    contents.push(read.content);
                }
                Err(e) => {
                    tracing::info!(%serial, package = %view.package, error = %e, "web page not read");
                    self.let_go(serial, &page).await;
                    notes.push(native_only_note(&view.package, Failed::Read, &e));
                }
            }
        }
        (contents, notes)
    }

    /// Finds the DevTools sockets of the apps whose WebViews have no page attached (one round
    /// trip) and attaches to their pages; a bare WebView whose app has none gets the note.
    async fn attach_missing(
        &self,
        serial: &str,
        pairs: &mut [(WebViewNode, Option<Arc<Page>>)],
        notes: &mut Vec<String>,
    ) {
        let packages = pairs
            .iter()
            .filter(|(_, p)| p.is_none())
            .map(|(v, _)| v.package.clone())
            .collect();
        let Ok(out) = self
            .shell_any(serial, &script(&packages), QUICK_TIMEOUT)
            .await
        else {
            return;
        };
        let text = out.stdout_text();
        let sockets = devtools_sockets(&text);
        let pids = pids(&text);
        for (view, page) in pairs.iter_mut().filter(|(_, p)| p.is_none()) {
            let pid = pids
                .iter()
                .find(|(p, _)| *p == view.package)
                .and_then(|(_, pid)| pid.as_deref());
            let Some(socket) = socket_of(&sockets, &view.package, pid) else {
                if view.bare && !notes.iter().any(|n| n.contains(&view.package)) {
                    notes.push(closed_note(&view.package));
                }
                continue;
            };
            match self.attach(serial, &view.package, &socket, view).await {
                Ok(p) => *page = Some(p),
                Err(why) => notes.push(native_only_note(&view.package, Failed::Attached, &why)),
            }
        }
    }

    /// Forwards a host port to `socket`, attaches to the page the WebView shows, and keeps it
    /// for the reads after this one.
    async fn attach(
        &self,
        serial: &str,
        package: &str,
        socket: &str,
        view: &WebViewNode,
    ) -> std::result::Result<Arc<Page>, String> {
        let host_port = self
            .forward_abstract(serial, socket)
            .await
            .map_err(|e| e.message)?;
        let base = format!("http://127.0.0.1:{host_port}");
        match Attached::open(&self.web.http, &base, view.bounds, self.web_limit()).await {
            Ok(attached) => {
                tracing::info!(%serial, %package, %socket, url = %attached.target.url, "web page attached");
                let url = Arc::new(std::sync::Mutex::new(attached.target.url.clone()));
                let mut page = Page {
                    package: package.to_string(),
                    socket: socket.to_string(),
                    host_port,
                    attached,
                    url,
                    listener: None,
                };
                self.web.listen(serial, &mut page);
                let page = Arc::new(page);
                self.web.keep(serial, page.clone());
                Ok(page)
            }
            Err(e) => {
                self.remove_forward(serial, host_port).await;
                Err(e.to_string())
            }
        }
    }

    /// `adb forward tcp:0 localabstract:NAME`: the host port adb chose.
    async fn forward_abstract(&self, serial: &str, socket: &str) -> Result<u16> {
        let out = self
            .run(
                self.adb_for(serial)?
                    .args(["forward", "tcp:0", &format!("localabstract:{socket}")])
                    .timeout(QUICK_TIMEOUT),
            )
            .await?;
        out.stdout_text().trim().parse().map_err(|_| {
            crate::error::Error::new(
                crate::error::ErrorCode::CommandFailed,
                format!(
                    "adb forward did not say its port: {}",
                    out.stdout_text().trim()
                ),
            )
        })
    }

    async fn remove_forward(&self, serial: &str, host_port: u16) {
        if let Ok(cmd) = self.adb_for(serial) {
            let cmd = cmd
                .args(["forward", "--remove", &format!("tcp:{host_port}")])
                .timeout(QUICK_TIMEOUT);
            let _ = self.run(cmd).await;
        }
    }

    async fn unforward(&self, serial: &str, page: &Page) {
        self.remove_forward(serial, page.host_port).await;
    }

    /// Lets go of a kept page that cannot serve this screen: forgotten, its forward removed
    /// (once, whoever let go of it first).
    async fn let_go(&self, serial: &str, page: &Arc<Page>) {
        if self.web.forget(serial, page) {
            self.unforward(serial, page).await;
        }
    }

    /// Reads the pages of the WebViews of `source` into it, with their notes.
    pub(crate) async fn add_web(&self, serial: &str, source: &mut crate::backend::UiSource) {
        let (web, notes) = self.read_web(serial, &source.text).await;
        source.web = web;
        source.notes.extend(notes);
    }

    /// Lets go of the pages of `serial` (or of every device): connections closed, forwards
    /// removed.
    pub(crate) async fn let_go_of_pages(&self, serial: Option<&str>) {
        for (serial, page) in self.web.forget_all(serial) {
            self.unforward(&serial, &page).await;
        }
    }
}

#[async_trait::async_trait]
impl crate::backend::Web for AdbBackend {
    /// The DOM nodes the CSS selector matches in the attached pages of the device.
    async fn css_nodes(&self, device: &crate::device::Device, css: &str) -> Result<Vec<u64>> {
        let serial = device.udid.as_str();
        let (live, _) = self.web.live(serial);
        let mut found = Vec::new();
        for page in live {
            match page.attached.css(css, self.web_limit()).await {
                Ok(nodes) => found.extend(nodes),
                Err(crate::web::WebError::Cdp(crate::web::cdp::CdpError::Refused {
                    message,
                    ..
                })) => {
                    return Err(crate::error::Error::new(
                        crate::error::ErrorCode::BadRequest,
                        format!("the page refused the CSS selector `{css}`: {message}"),
                    ))
                }
                Err(e) => tracing::info!(%serial, error = %e, "CSS selector not matched"),
            }
        }
        Ok(found)
    }

    fn page_events(&self, device: &crate::device::Device) -> Vec<crate::web::events::PageEvent> {
        self.web.take_events(&device.udid)
    }
}
