//! The handlers, one module per resource. Each is a plain async function of the state and its
//! input, bound by name to its operation of the table (`crate::api`) in its module's
//! `bindings()`; [`bindings`] collects them all.

pub mod actions;
pub mod alerts;
pub mod apps;
pub mod batch;
pub mod connect;
pub mod devices;
pub mod features;
pub mod flows;
pub mod logs;
pub mod proxy;
pub mod proxy_rules;
pub mod recording;
pub mod runs;
pub mod screenshot;
pub mod service;
pub mod sessions;
pub mod simulator;
pub mod system;
pub mod ui;
pub mod verify;

use super::bind::Binding;
use crate::error::{Error, Result};

/// A listing's `limit`: `default` when not given, at most `max` (and whether the asked number
/// was lowered to it); 0 is refused.
pub(crate) fn limit(asked: Option<u32>, default: usize, max: usize) -> Result<(usize, bool)> {
    match asked {
        None => Ok((default, false)),
        Some(0) => Err(Error::validation("`limit` must be at least 1")
            .with_hint(format!("give 1 to {max}, or leave it out for {default}"))),
        Some(n) if n as usize > max => Ok((max, true)),
        Some(n) => Ok((n as usize, false)),
    }
}

/// Every handler, bound to its operation.
pub fn bindings() -> Vec<Binding> {
    [
        service::bindings(),
        devices::bindings(),
        sessions::bindings(),
        connect::bindings(),
        simulator::bindings(),
        apps::bindings(),
        ui::bindings(),
        screenshot::bindings(),
        recording::bindings(),
        actions::bindings(),
        batch::bindings(),
        flows::bindings(),
        verify::bindings(),
        alerts::bindings(),
        system::bindings(),
        features::bindings(),
        proxy::bindings(),
        proxy_rules::bindings(),
        logs::bindings(),
        runs::bindings(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_has_a_default_a_cap_and_no_zero() {
        assert_eq!(limit(None, 20, 200).unwrap(), (20, false));
        assert_eq!(limit(Some(7), 20, 200).unwrap(), (7, false));
        assert_eq!(limit(Some(5000), 20, 200).unwrap(), (200, true));
        let zero = limit(Some(0), 20, 200).unwrap_err();
        assert_eq!(zero.code, crate::error::ErrorCode::ValidationFailed);
        assert_eq!(
            zero.hint.as_deref(),
            Some("give 1 to 200, or leave it out for 20")
        );
    }
}
