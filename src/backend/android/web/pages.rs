//! The pages each device's WebViews show that mobilectl is attached to: the DevTools socket
//! forwarded to a host port (`adb forward tcp:0 localabstract:NAME`, as `chrome://inspect`
//! does), the page's WebSocket kept open between reads, so a read of a screen already attached
//! costs three protocol calls and no device round trip. A page whose connection ended is
//! forgotten (its forward removed) at its next read; a device's pages go when it is released.
//! What an attached page logs (console messages, uncaught errors) is kept per device, bounded,
//! until the device's log takes it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast::error::RecvError;

use crate::exec::HttpClient;
use crate::web::events::PageEvent;
use crate::web::Attached;

/// Page events kept per device until its log takes them.
const EVENTS_KEPT: usize = 1000;

type Events = Arc<Mutex<HashMap<String, VecDeque<PageEvent>>>>;

/// One attached page.
#[derive(Debug)]
pub struct Page {
    /// The app whose WebView shows it.
    pub package: String,
    /// The abstract socket it was reached through (`webview_devtools_remote_4242`).
    pub socket: String,
    /// The host end of that socket's forward.
    pub host_port: u16,
    /// The page.
    pub attached: Attached,
    /// Its URL at its last read (what its log entries say).
    pub url: Arc<Mutex<String>>,
    /// The task keeping what the page logs.
    pub listener: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Page {
    fn drop(&mut self) {
        if let Some(l) = &self.listener {
            l.abort();
        }
    }
}

/// Every device's attached pages.
#[derive(Debug, Default)]
pub struct AttachedPages {
    by_serial: Mutex<HashMap<String, Vec<Arc<Page>>>>,
    events: Events,
    /// The HTTP runner that asks the sockets for their pages.
    pub http: HttpClient,
}

impl AttachedPages {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Arc<Page>>>> {
        self.by_serial.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The pages of `serial` whose connection is still open; those that ended are taken out
    /// and answered second, for their forwards to be removed.
    pub fn live(&self, serial: &str) -> (Vec<Arc<Page>>, Vec<Arc<Page>>) {
        let mut all = self.lock();
        let pages = all.entry(serial.to_string()).or_default();
        let (live, ended): (Vec<_>, Vec<_>) =
            pages.drain(..).partition(|p| p.attached.ended().is_none());
        *pages = live.clone();
        (live, ended)
    }

    /// Starts keeping what `page` of `serial` logs (console messages, uncaught errors).
    pub fn listen(&self, serial: &str, page: &mut Page) {
        let mut rx = page.attached.events();
        let events = self.events.clone();
        let (serial, package, url) = (serial.to_string(), page.package.clone(), page.url.clone());
        page.listener = Some(tokio::spawn(async move {
            loop {
                let event = match rx.recv().await {
                    Ok(e) => e,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => break,
                };
                let at = url.lock().map(|u| u.clone()).unwrap_or_default();
                let Some(e) = PageEvent::of(&event, &package, &at) else {
                    continue;
                };
                let mut all = events.lock().unwrap_or_else(|e| e.into_inner());
                let kept = all.entry(serial.clone()).or_default();
                kept.push_back(e);
                while kept.len() > EVENTS_KEPT {
                    kept.pop_front();
                }
            }
        }));
    }

    /// Takes what the pages of `serial` logged since the last time.
    pub fn take_events(&self, serial: &str) -> Vec<PageEvent> {
        let mut all = self.events.lock().unwrap_or_else(|e| e.into_inner());
        all.remove(serial).map(Vec::from).unwrap_or_default()
    }

    /// Keeps a newly attached page.
    pub fn keep(&self, serial: &str, page: Arc<Page>) {
        self.lock()
            .entry(serial.to_string())
            .or_default()
            .push(page);
    }

    /// Forgets one page (after a failed read); answers whether it was kept.
    pub fn forget(&self, serial: &str, page: &Arc<Page>) -> bool {
        let mut all = self.lock();
        let Some(pages) = all.get_mut(serial) else {
            return false;
        };
        let before = pages.len();
        pages.retain(|p| !Arc::ptr_eq(p, page));
        before != pages.len()
    }

    /// Forgets every page of `serial` (or of every device), answering them for their
    /// forwards to be removed.
    pub fn forget_all(&self, serial: Option<&str>) -> Vec<(String, Arc<Page>)> {
        let mut all = self.lock();
        let serials: Vec<String> = match serial {
            Some(s) => vec![s.to_string()],
            None => all.keys().cloned().collect(),
        };
        serials
            .into_iter()
            .flat_map(|s| {
                all.remove(&s)
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |p| (s.clone(), p))
            })
            .collect()
    }
}
