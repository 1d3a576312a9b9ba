//! Snapshots: one native dump turned into the canonical tree, analysed, and kept per device.
//! Concurrent requests share one in-flight dump: a request that arrives while a dump runs waits
//! for the device's command lock and then takes the snapshot that completed after it arrived.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;

use super::slot::DeviceSlot;
use super::DeviceController;
use crate::backend::concern;
use crate::backend::UiSource;
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};
use crate::ui::{self, ViewOptions};

/// One read of a device's screen.
#[derive(Debug)]
pub struct Snapshot {
    /// `s1`, `s2`… per device.
    pub id: String,
    /// RFC 3339 time of the dump's completion.
    pub taken_at: String,
    /// The device read.
    pub device: Device,
    /// The tool that produced the dump (`uiautomator`, `axe`, `idb`).
    pub tool: &'static str,
    /// The focused window/activity when the backend reported it.
    pub activity: Option<String>,
    /// The parsed dump, every element in document order.
    pub tree: ui::Tree,
    /// The full analysis (all listed elements, refs, alert, keyboard, fingerprint).
    pub screen: ui::Screen,
    /// When the dump completed (for sharing it with requests that arrived before).
    pub completed: Instant,
    /// How long the dump took on the device.
    pub dump_ms: u64,
    /// What the reader said about this read (a fast path replaced by the one-shot tool).
    pub notes: Vec<String>,
}

impl Snapshot {
    /// The foreground app: from the focused activity, else from the tree.
    pub fn app(&self) -> Option<String> {
        self.activity
            .as_deref()
            .and_then(|a| a.split('/').next())
            .map(str::to_string)
            .or_else(|| self.screen.foreground.clone())
    }

    /// The screen viewed with `opts`: the kept analysis for the default view, else a new
    /// analysis of the same tree (the refs stay the same).
    pub fn view(&self, opts: &ViewOptions) -> Cow<'_, ui::Screen> {
        if *opts == ViewOptions::default() {
            return Cow::Borrowed(&self.screen);
        }
        Cow::Owned(ui::analyze(&self.tree, Some(&self.screen.refs), opts))
    }
}

impl DeviceController {
    /// A snapshot of the device: shares a dump in flight, else takes a new one.
    pub async fn snapshot(&self, device: &Device) -> Result<Arc<Snapshot>> {
        let mut on = self.on(device.clone(), false).await?;
        let arrived = Instant::now();
        on.hold().await;
        if let Some(shared) = on.slot.completed_after(arrived) {
            return Ok(shared);
        }
        self.dump_locked(device, &on.slot).await
    }

    /// The snapshot kept from the last read when nothing touched the device since (an
    /// action's own read after it), else a new one.
    pub async fn kept_or_snapshot(&self, device: &Device) -> Result<Arc<Snapshot>> {
        let mut on = self.on(device.clone(), false).await?;
        on.hold().await;
        self.fresh_or_dump_locked(device, &on.slot).await
    }

    /// The kept snapshot when no action ran since; else a new one. Caller holds the lock.
    pub(super) async fn fresh_or_dump_locked(
        &self,
        device: &Device,
        session: &DeviceSlot,
    ) -> Result<Arc<Snapshot>> {
        match session.fresh() {
            Some(s) => Ok(s),
            None => self.dump_locked(device, session).await,
        }
    }

    /// Takes a new snapshot. The caller holds the device's command lock.
    pub(super) async fn dump_locked(
        &self,
        device: &Device,
        session: &DeviceSlot,
    ) -> Result<Arc<Snapshot>> {
        let started = Instant::now();
        let source = self.cap(device, concern::Screen)?.dump_ui(device).await?;
        self.keep(device, session, source, started.elapsed()).await
    }

    /// Turns a dump into the device's latest snapshot: parsed, analysed with the refs of the
    /// previous one, stored. `took` is how long the device took to give it.
    pub(super) async fn keep(
        &self,
        device: &Device,
        session: &DeviceSlot,
        source: UiSource,
        took: std::time::Duration,
    ) -> Result<Arc<Snapshot>> {
        let backend = self.backend(device)?;
        let dump_ms = took.as_millis() as u64;
        let parsing = Instant::now();
        let mut tree = ui::parse_any(&source.text).map_err(|e| {
            Error::new(
                ErrorCode::CommandFailed,
                format!("the {} dump could not be read: {e}", source.tool),
            )
            .with_details(json!({
                "tool": source.tool,
                "head": source.text.chars().take(300).collect::<String>(),
            }))
        })?;
        if !(tree.screen.w > 0.0 && tree.screen.h > 0.0) {
            // The dump does not say how big the screen is: the device may.
            let geometry = match backend.screen() {
                Some(screen) => screen.screen_geometry(device).await,
                None => None,
            };
            if let Some(g) = geometry {
                tree.screen = ui::Size {
                    w: g.width,
                    h: g.height,
                };
            }
        }
        ui::web::graft(&mut tree, source.web);
        // What the screen's pages logged goes to the device's log as it is read, when that log
        // is followed already (a logs request takes it in any case).
        if let Some(logs) = self.logs.get(&device.udid) {
            super::logs::absorb_page_events(backend, device, &logs);
        }
        let previous = session.last();
        let screen = ui::analyze(
            &tree,
            previous.as_ref().map(|p| &p.screen.refs),
            &ViewOptions::default(),
        );
        crate::exec::timing::record("parse", parsing.elapsed());
        let snapshot = Arc::new(Snapshot {
            id: format!("s{}", session.next_seq()),
            taken_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            device: device.clone(),
            tool: source.tool,
            activity: source.foreground,
            notes: source.notes,
            tree,
            screen,
            completed: Instant::now(),
            dump_ms,
        });
        session.store(snapshot.clone());
        Ok(snapshot)
    }
}
