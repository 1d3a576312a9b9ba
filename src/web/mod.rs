//! Web content inside apps, read over the Chrome DevTools Protocol (CDP): what a debuggable
//! WebView or Chrome serves on its DevTools socket once the platform's backend has made it
//! reachable on a host port (Android: `adb forward tcp:0 localabstract:…`). Platform-free:
//! [`targets`] picks the page a WebView shows from the socket's `/json/list`, [`cdp`] is the
//! protocol's client (requests by id over one WebSocket, events kept), [`page`] turns a page's
//! accessibility tree and layout into canonical elements, and [`Attached`] ties them together
//! for one page: attach once, read many times, see when the page is gone.

mod attached;
pub mod cdp;
pub mod events;
pub mod page;
pub mod targets;
pub mod viewport;

pub use attached::{Attached, WebError};
