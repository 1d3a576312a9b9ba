//! Web content inside apps ([`crate::device::Capability::Web`]): the pages of the screen's
//! WebViews, read over the DevTools Protocol into the canonical tree with every snapshot (see
//! `crate::backend::android::web`), and matched by CSS selectors here.

use async_trait::async_trait;

use crate::device::Device;
use crate::error::Result;

/// CSS selectors on the pages of a device's screen.
#[async_trait]
pub trait Web: Send + Sync {
    /// The DOM nodes (the protocol's `backendNodeId`s, as web elements carry them in
    /// [`crate::ui::Element::dom`]) that `css` matches in the pages the device's last read
    /// attached to; none when no page is attached. A selector the page refuses is a 400.
    async fn css_nodes(&self, device: &Device, css: &str) -> Result<Vec<u64>>;

    /// What the device's attached pages logged (console messages, uncaught errors) since the
    /// last call: taken, so each event reaches the device's log once.
    fn page_events(&self, device: &Device) -> Vec<crate::web::events::PageEvent>;
}
