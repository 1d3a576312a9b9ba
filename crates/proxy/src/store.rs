//! The bounded store of recorded exchanges: at most `max_flows` of them and `max_bytes` of
//! what they hold; the oldest go first, and the store says how many went and up to which id.
//! Ids grow by one per stored exchange (a cursor: "after id N"); a watch channel tells
//! followers (the stream) that something new is there.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use tokio::sync::watch;
use utoipa::ToSchema;

use super::flow::Flow;

/// How much the store keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLimits {
    /// Most exchanges kept (default 2000).
    pub max_flows: usize,
    /// Most bytes kept, as [`Flow::footprint`] counts them (default 64 MiB).
    pub max_bytes: usize,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits {
            max_flows: 2000,
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

/// What the store holds and what it let go.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StoreStats {
    pub flows: usize,
    pub bytes: usize,
    pub max_flows: usize,
    pub max_bytes: usize,
    /// Exchanges evicted to stay within the limits (since the server started).
    pub evicted: u64,
    /// The newest evicted id: a reader whose cursor is below it missed some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evicted_through: Option<u64>,
    /// The id of the newest exchange recorded (0: none yet).
    pub latest_id: u64,
}

struct Inner {
    flows: VecDeque<Arc<Flow>>,
    bytes: usize,
    next_id: u64,
    evicted: u64,
    evicted_through: Option<u64>,
}

/// The recorded exchanges, oldest first, within [`StoreLimits`]; shared by the proxy that
/// records and the API that reads.
pub struct FlowStore {
    limits: StoreLimits,
    inner: Mutex<Inner>,
    latest: watch::Sender<u64>,
}

impl FlowStore {
    /// An empty store; the first id is 1.
    pub fn new(limits: StoreLimits) -> Self {
        FlowStore {
            limits,
            inner: Mutex::new(Inner {
                flows: VecDeque::new(),
                bytes: 0,
                next_id: 1,
                evicted: 0,
                evicted_through: None,
            }),
            latest: watch::channel(0).0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores an exchange under the next id (returned), evicting the oldest as needed.
    pub fn push(&self, mut flow: Flow) -> u64 {
        let id = {
            let mut s = self.lock();
            flow.id = s.next_id;
            s.next_id += 1;
            s.bytes += flow.footprint();
            s.flows.push_back(Arc::new(flow));
            // The newest always stays, even alone over the byte limit.
            while s.flows.len() > 1
                && (s.flows.len() > self.limits.max_flows || s.bytes > self.limits.max_bytes)
            {
                let Some(old) = s.flows.pop_front() else {
                    break;
                };
                s.bytes -= old.footprint();
                s.evicted += 1;
                s.evicted_through = Some(old.id);
            }
            s.next_id - 1
        };
        self.latest.send_replace(id);
        id
    }

    /// Exchange `id`; `None` when it was never stored, was evicted or cleared.
    pub fn get(&self, id: u64) -> Option<Arc<Flow>> {
        let s = self.lock();
        let first = s.flows.front()?.id;
        let i = id.checked_sub(first)? as usize;
        s.flows.get(i).filter(|f| f.id == id).cloned()
    }

    /// Every stored exchange with an id above `cursor`, oldest first.
    pub fn after(&self, cursor: u64) -> Vec<Arc<Flow>> {
        let s = self.lock();
        let skip = s.flows.partition_point(|f| f.id <= cursor);
        s.flows.iter().skip(skip).cloned().collect()
    }

    /// Forgets every stored exchange; returns how many. Ids go on growing.
    pub fn clear(&self) -> usize {
        let mut s = self.lock();
        let n = s.flows.len();
        s.flows.clear();
        s.bytes = 0;
        n
    }

    /// What the store holds now and what it let go.
    pub fn stats(&self) -> StoreStats {
        let s = self.lock();
        StoreStats {
            flows: s.flows.len(),
            bytes: s.bytes,
            max_flows: self.limits.max_flows,
            max_bytes: self.limits.max_bytes,
            evicted: s.evicted,
            evicted_through: s.evicted_through,
            latest_id: s.next_id - 1,
        }
    }

    /// Changes to the newest id.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::{Captured, Message, Timing};

    fn flow(body: usize) -> Flow {
        Flow {
            id: 0,
            started_at: chrono::Utc::now(),
            method: "GET".into(),
            url: "http://h/".into(),
            host: "h".into(),
            request: Message::default(),
            status: Some(200),
            response: Some(Message {
                headers: vec![],
                body: Captured {
                    bytes: vec![b'x'; body],
                    size: body as u64,
                },
            }),
            timing: Timing::default(),
            error: None,
            tunnel: None,
            rule_id: None,
            mocked: false,
        }
    }

    #[test]
    fn the_oldest_go_first_and_are_counted() {
        let s = FlowStore::new(StoreLimits {
            max_flows: 3,
            max_bytes: 1 << 20,
        });
        for _ in 0..5 {
            s.push(flow(10));
        }
        let st = s.stats();
        assert_eq!(
            (st.flows, st.evicted, st.evicted_through, st.latest_id),
            (3, 2, Some(2), 5)
        );
        assert!(s.get(2).is_none());
        assert_eq!(s.get(4).unwrap().id, 4);
        assert_eq!(s.after(3).iter().map(|f| f.id).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(s.after(0).len(), 3);
    }

    #[test]
    fn bytes_bound_the_store_too() {
        let one = flow(1000).footprint();
        let s = FlowStore::new(StoreLimits {
            max_flows: 100,
            max_bytes: one * 2 + 10,
        });
        for _ in 0..4 {
            s.push(flow(1000));
        }
        let st = s.stats();
        assert_eq!((st.flows, st.evicted), (2, 2));
        assert!(st.bytes <= st.max_bytes);
        // One exchange bigger than the whole store is kept, alone.
        s.push(flow(one * 3));
        assert_eq!(s.stats().flows, 1);
    }

    #[test]
    fn clearing_keeps_ids_growing_and_followers_hear_of_new_ones() {
        let s = FlowStore::new(StoreLimits::default());
        let mut rx = s.subscribe();
        s.push(flow(1));
        assert!(rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), 1);
        assert_eq!(s.clear(), 1);
        assert_eq!(s.push(flow(1)), 2);
        assert_eq!(s.stats().flows, 1);
    }
}
