//! MCP progress notifications for tool calls that take a while (waits, flows, recordings): when
//! the client passes a `progressToken` with a call, `notifications/progress` goes out every
//! [`PERIOD`] until the answer, counting the seconds so far (out of the call's `timeout_ms`
//! when it has one). The API answers each call once, so the time waited is what there is to
//! tell; it also keeps clients that reset their timeout on progress from giving up on a long
//! wait. A call answered within the first period sends none.

use std::future::Future;
use std::time::Duration;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;

/// How often progress is told.
pub const PERIOD: Duration = Duration::from_secs(1);

/// Where to send progress: the client and the token of its call.
pub struct Reporter {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    /// The call's own limit in seconds, when its arguments give one.
    total_s: Option<f64>,
    /// What is running, for the message: the operation's name.
    what: String,
}

impl Reporter {
    /// A reporter for a call of `what` with `args`, sending to `peer` under `token`.
    pub fn new(
        peer: Peer<RoleServer>,
        token: ProgressToken,
        what: &str,
        args: Option<&rmcp::model::JsonObject>,
    ) -> Self {
        Reporter {
            peer,
            token,
            total_s: total_seconds(args),
            what: what.to_string(),
        }
    }

    /// Runs `work` to its end, telling progress every [`PERIOD`] meanwhile.
    pub async fn around<T>(self, work: impl Future<Output = T>) -> T {
        let mut work = std::pin::pin!(work);
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + PERIOD, PERIOD);
        let mut elapsed = 0u64;
        loop {
            tokio::select! {
                biased;
                done = &mut work => return done,
                _ = ticks.tick() => {
                    elapsed += PERIOD.as_secs().max(1);
                    let note = self.note(elapsed);
                    // A client gone away is the call's concern, not progress's.
                    let _ = self.peer.notify_progress(note).await;
                }
            }
        }
    }

    fn note(&self, elapsed_s: u64) -> ProgressNotificationParam {
        let mut p = ProgressNotificationParam::new(self.token.clone(), elapsed_s as f64);
        let message = match self.total_s {
            Some(total) => {
                p = p.with_total(total);
                format!("{}: {elapsed_s} s of at most {total} s", self.what)
            }
            None => format!("{}: {elapsed_s} s", self.what),
        };
        p.with_message(message)
    }
}

/// A call's own limit, from its `timeout_ms` argument (a `call`'s inner arguments count).
fn total_seconds(args: Option<&rmcp::model::JsonObject>) -> Option<f64> {
    let args = args?;
    let ms = args
        .get("timeout_ms")
        .or_else(|| args.get("arguments").and_then(|a| a.get("timeout_ms")))
        .and_then(Value::as_f64)?;
    (ms > 0.0).then_some(ms / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_total_is_the_calls_own_timeout() {
        let a = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(
            total_seconds(Some(&a(json!({"timeout_ms": 2500})))),
            Some(2.5)
        );
        assert_eq!(
            total_seconds(Some(&a(
                json!({"operation": "wait", "arguments": {"timeout_ms": 4000}})
            ))),
            Some(4.0)
        );
        assert_eq!(total_seconds(Some(&a(json!({"timeout_ms": 0})))), None);
        assert_eq!(total_seconds(Some(&a(json!({"text": "x"})))), None);
        assert_eq!(total_seconds(None), None);
    }
}
