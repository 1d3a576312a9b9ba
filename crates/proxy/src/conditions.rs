//! Conditions of the whole device link, applied to every request through the proxy (before
//! the rules): a named profile (`offline`, `2g`, `3g`, `lte`, `wifi-lossy`) or explicit
//! latency, jitter, bandwidth down/up and loss. `offline` closes every connection without an
//! answer (and refuses tunnels); latency (± jitter) is added before each request goes on;
//! bandwidth paces both bodies; loss closes that share of requests' connections without an
//! answer (what an app sees of a link that drops).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use mobilectl_error::{Error, Op, Result, Step};

/// A named link profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum Profile {
    /// No link: every connection is closed without an answer, tunnels are refused.
    #[serde(rename = "offline")]
    Offline,
    /// EDGE: 250 kbit/s down, 50 up, 300 ms.
    #[serde(rename = "2g")]
    TwoG,
    /// 780 kbit/s down, 330 up, 100 ms.
    #[serde(rename = "3g")]
    ThreeG,
    /// 20 Mbit/s down, 10 up, 40 ms.
    #[serde(rename = "lte")]
    Lte,
    /// 10 Mbit/s down, 5 up, 20 ms ± 40, 5 % loss.
    #[serde(rename = "wifi-lossy")]
    WifiLossy,
}

/// Set the link's conditions: a profile, and/or explicit values (which override the
/// profile's).
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConditionsRequest {
    pub profile: Option<Profile>,
    pub latency_ms: Option<u64>,
    pub jitter_ms: Option<u64>,
    pub down_kbps: Option<u64>,
    pub up_kbps: Option<u64>,
    pub loss_percent: Option<f64>,
}

/// The link's conditions, as applied.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LinkConditions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    pub offline: bool,
    pub latency_ms: u64,
    pub jitter_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub down_kbps: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up_kbps: Option<u64>,
    pub loss_percent: f64,
    pub since: String,
}

/// The longest latency or jitter accepted.
const MAX_LATENCY_MS: u64 = 60_000;

impl LinkConditions {
    /// Checks a request and makes the conditions it asks.
    pub fn from_request(r: &ConditionsRequest) -> Result<LinkConditions> {
        let (latency, jitter, down, up, loss) = match r.profile {
            None => (0, 0, None, None, 0.0),
            Some(Profile::Offline) => (0, 0, None, None, 0.0),
            Some(Profile::TwoG) => (300, 0, Some(250), Some(50), 0.0),
            Some(Profile::ThreeG) => (100, 0, Some(780), Some(330), 0.0),
            Some(Profile::Lte) => (40, 0, Some(20_000), Some(10_000), 0.0),
            Some(Profile::WifiLossy) => (20, 40, Some(10_000), Some(5_000), 5.0),
        };
        let c = LinkConditions {
            profile: r.profile,
            offline: r.profile == Some(Profile::Offline),
            latency_ms: r.latency_ms.unwrap_or(latency),
            jitter_ms: r.jitter_ms.unwrap_or(jitter),
            down_kbps: r.down_kbps.or(down),
            up_kbps: r.up_kbps.or(up),
            loss_percent: r.loss_percent.unwrap_or(loss),
            since: crate::flow::rfc3339(chrono::Utc::now()),
        };
        let field = |f: &str, m: String| Error::validation(m).with_details(json!({ "field": f }));
        if c.latency_ms > MAX_LATENCY_MS || c.jitter_ms > MAX_LATENCY_MS {
            return Err(field(
                "latency_ms",
                format!("latency and jitter are at most {MAX_LATENCY_MS} ms"),
            ));
        }
        if c.down_kbps == Some(0) || c.up_kbps == Some(0) {
            return Err(field(
                "down_kbps",
                "a bandwidth is above 0 (for no link at all: profile offline)".into(),
            ));
        }
        if !(0.0..=100.0).contains(&c.loss_percent) || c.loss_percent.is_nan() {
            return Err(field("loss_percent", "`loss_percent` is 0 to 100".into()));
        }
        let nothing = !c.offline
            && c.latency_ms == 0
            && c.jitter_ms == 0
            && c.down_kbps.is_none()
            && c.up_kbps.is_none()
            && c.loss_percent == 0.0;
        if nothing {
            return Err(
                Error::validation("these conditions change nothing").with_next(
                    "give a {0} (offline, 2g, 3g, lte, wifi-lossy) or values; DELETE clears them",
                    [Step::field_of(Op::SetProxyConditions, "profile")],
                ),
            );
        }
        Ok(c)
    }

    /// The latency of one request (with its jitter drawn).
    pub fn latency(&self) -> Duration {
        let base = self.latency_ms as i64;
        let j = self.jitter_ms as i64;
        let ms = if j == 0 {
            base
        } else {
            base + (random() % (2 * j as u64 + 1)) as i64 - j
        };
        Duration::from_millis(ms.max(0) as u64)
    }

    /// Whether this request is lost.
    pub fn lost(&self) -> bool {
        self.loss_percent > 0.0 && (random() % 10_000) as f64 / 100.0 < self.loss_percent
    }

    /// The answer bodies' pace in bytes per second (at least 1); `None`: unlimited.
    pub fn down_bytes_per_sec(&self) -> Option<u64> {
        self.down_kbps.map(|k| (k * 1000 / 8).max(1))
    }

    /// The request bodies' pace in bytes per second (at least 1); `None`: unlimited.
    pub fn up_bytes_per_sec(&self) -> Option<u64> {
        self.up_kbps.map(|k| (k * 1000 / 8).max(1))
    }
}

/// The conditions in force, if any, and the session that set them (`None`: set outside any).
#[derive(Debug, Default)]
pub struct ConditionsSlot(RwLock<Held>);

#[derive(Debug, Default)]
struct Held {
    conditions: Option<Arc<LinkConditions>>,
    owner: Option<String>,
}

impl ConditionsSlot {
    /// The conditions in force; `None` when the link is left as it is.
    pub fn get(&self) -> Option<Arc<LinkConditions>> {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .conditions
            .clone()
    }

    /// The session that set the conditions in force, if a session did.
    pub fn owner(&self) -> Option<String> {
        let held = self.0.read().unwrap_or_else(|e| e.into_inner());
        held.conditions.as_ref().and(held.owner.clone())
    }

    /// Puts `c` in force (`None` clears them); answers the conditions it replaced.
    pub fn set(&self, c: Option<LinkConditions>) -> Option<Arc<LinkConditions>> {
        self.set_by(c, None)
    }

    /// Puts `c` in force as set by the session `owner`; answers the conditions it replaced.
    pub fn set_by(
        &self,
        c: Option<LinkConditions>,
        owner: Option<String>,
    ) -> Option<Arc<LinkConditions>> {
        let mut held = self.0.write().unwrap_or_else(|e| e.into_inner());
        held.owner = owner.filter(|_| c.is_some());
        std::mem::replace(&mut held.conditions, c.map(Arc::new))
    }

    /// Lifts the conditions a session set that is no longer live; whether it did.
    pub fn forget_sessions(&self, live: impl Fn(&str) -> bool) -> bool {
        let mut held = self.0.write().unwrap_or_else(|e| e.into_inner());
        if held.owner.as_deref().is_some_and(|o| !live(o)) {
            *held = Held::default();
            return true;
        }
        false
    }
}

/// A cheap random number (xorshift, seeded from the clock): jitter and loss need no more.
fn random() -> u64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let mut x = STATE.load(Ordering::Relaxed);
    if x == 0 {
        x = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9e37_79b9_7f4a_7c15, |d| d.as_nanos() as u64)
            | 1;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    STATE.store(x, Ordering::Relaxed);
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_and_explicit_values() {
        let c = LinkConditions::from_request(&ConditionsRequest {
            profile: Some(Profile::ThreeG),
            latency_ms: Some(7),
            ..Default::default()
        })
        .unwrap();
        assert_eq!((c.latency_ms, c.down_kbps), (7, Some(780)));
        assert_eq!(c.down_bytes_per_sec(), Some(97_500));
        assert!(LinkConditions::from_request(&ConditionsRequest::default()).is_err());
        assert!(LinkConditions::from_request(&ConditionsRequest {
            loss_percent: Some(101.0),
            ..Default::default()
        })
        .is_err());
        let lossy = LinkConditions::from_request(&ConditionsRequest {
            profile: Some(Profile::WifiLossy),
            ..Default::default()
        })
        .unwrap();
        for _ in 0..100 {
            let l = lossy.latency().as_millis();
            assert!(l <= 60, "{l}");
        }
        let lost = (0..10_000).filter(|_| lossy.lost()).count();
        assert!((300..700).contains(&lost), "{lost}");
    }
}
