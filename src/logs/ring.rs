//! A device's log in memory: a ring bounded by entry count and bytes (oldest dropped first,
//! and counted), numbered by arrival so a cursor (`epoch-seq`) says exactly where a reader
//! is. Readers page forward from a cursor or take the newest entries; a reader whose cursor
//! fell behind the oldest entry learns how many it missed. A watch channel wakes streams when
//! entries arrive.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::watch;

use super::entry::LogEntry;

/// How much a ring keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingLimits {
    /// Most entries kept (at least 1); 100,000 by default.
    pub max_entries: usize,
    /// Most bytes kept, counted by [`LogEntry::cost`] (at least 1024); 32 MiB by default.
    pub max_bytes: usize,
}

impl Default for RingLimits {
    fn default() -> Self {
        RingLimits {
            max_entries: 100_000,
            max_bytes: 32 * 1024 * 1024,
        }
    }
}

/// A position in one ring: entries after `seq` come next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// The ring's epoch: a number drawn when it was made, so another ring's cursor does not fit.
    pub epoch: u32,
    /// The sequence number of the last entry considered (0: before the first).
    pub seq: u64,
}

impl Cursor {
    /// The form readers see (SSE ids, `cursor` fields): `EPOCH-SEQ`.
    pub fn to_text(self) -> String {
        format!("{:08x}-{}", self.epoch, self.seq)
    }

    /// Reads [`Cursor::to_text`]'s form.
    pub fn parse(s: &str) -> Option<Cursor> {
        let (epoch, seq) = s.trim().split_once('-')?;
        if epoch.len() != 8 {
            return None;
        }
        Some(Cursor {
            epoch: u32::from_str_radix(epoch, 16).ok()?,
            seq: seq.parse().ok()?,
        })
    }
}

/// What a read found.
#[derive(Debug, Default)]
pub struct Page {
    /// The matching entries, oldest first, at most the limit.
    pub entries: Vec<LogEntry>,
    /// Entries after the cursor that were dropped from the ring before this read.
    pub missed: u64,
    /// Continue after this sequence number (everything up to it was considered).
    pub next_seq: u64,
    /// More matching entries follow (the limit was reached).
    pub more: bool,
}

/// Counts of a ring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RingStats {
    /// Entries kept.
    pub entries: usize,
    /// Bytes they are counted for ([`LogEntry::cost`]).
    pub bytes: usize,
    /// Entries dropped to keep within the limits, since the ring was made.
    pub dropped: u64,
    /// The newest entry's sequence number (0: none yet).
    pub newest_seq: u64,
}

struct Inner {
    entries: VecDeque<LogEntry>,
    bytes: usize,
    next_seq: u64,
    dropped: u64,
}

impl Inner {
    fn oldest_seq(&self) -> u64 {
        self.entries.front().map_or(self.next_seq, |e| e.seq)
    }
}

/// The ring.
pub struct LogRing {
    epoch: u32,
    limits: RingLimits,
    inner: Mutex<Inner>,
    newest: watch::Sender<u64>,
}

impl LogRing {
    /// An empty ring with these limits (raised to their minimums) and a fresh epoch.
    pub fn new(limits: RingLimits) -> Self {
        // Cursors of another ring (another device, an earlier server) must not fit this one.
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos() ^ (d.as_secs() as u32).rotate_left(13))
            .unwrap_or(1)
            ^ (std::process::id() << 8);
        LogRing {
            epoch,
            limits: RingLimits {
                max_entries: limits.max_entries.max(1),
                max_bytes: limits.max_bytes.max(1024),
            },
            inner: Mutex::new(Inner {
                entries: VecDeque::new(),
                bytes: 0,
                next_seq: 1,
                dropped: 0,
            }),
            newest: watch::channel(0).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The ring's epoch, which its cursors carry.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The limits in force (after raising to the minimums).
    pub fn limits(&self) -> RingLimits {
        self.limits
    }

    /// A cursor of this ring at `seq`.
    pub fn cursor(&self, seq: u64) -> Cursor {
        Cursor {
            epoch: self.epoch,
            seq,
        }
    }

    /// Stores entries, numbering them; `each` sees every entry once numbered. The oldest
    /// are dropped beyond the limits.
    pub fn push(&self, entries: Vec<LogEntry>, mut each: impl FnMut(&LogEntry)) {
        if entries.is_empty() {
            return;
        }
        let newest = {
            let mut g = self.lock();
            for mut e in entries {
                e.seq = g.next_seq;
                g.next_seq += 1;
                g.bytes += e.cost();
                each(&e);
                g.entries.push_back(e);
            }
            while g.entries.len() > self.limits.max_entries
                || (g.bytes > self.limits.max_bytes && g.entries.len() > 1)
            {
                if let Some(old) = g.entries.pop_front() {
                    g.bytes -= old.cost();
                    g.dropped += 1;
                }
            }
            g.next_seq - 1
        };
        self.newest.send_replace(newest);
    }

    /// The ring's counts now.
    pub fn stats(&self) -> RingStats {
        let g = self.lock();
        RingStats {
            entries: g.entries.len(),
            bytes: g.bytes,
            dropped: g.dropped,
            newest_seq: g.next_seq - 1,
        }
    }

    /// Wakes when entries are stored (its value: the newest sequence number).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.newest.subscribe()
    }

    /// How many readers wait on [`Self::subscribe`] now (streams that are open).
    pub fn subscribers(&self) -> usize {
        self.newest.receiver_count()
    }

    /// Matching entries after `seq`, oldest first, at most `limit`.
    pub fn after(&self, seq: u64, limit: usize, keep: impl Fn(&LogEntry) -> bool) -> Page {
        let g = self.lock();
        let oldest = g.oldest_seq();
        let missed = oldest.saturating_sub(seq + 1);
        let start = (seq + 1).saturating_sub(oldest) as usize;
        let mut page = Page {
            missed,
            next_seq: g.next_seq - 1,
            ..Page::default()
        };
        for e in g.entries.range(start.min(g.entries.len())..) {
            if !keep(e) {
                continue;
            }
            if page.entries.len() == limit {
                page.more = true;
                break;
            }
            page.next_seq = e.seq;
            page.entries.push(e.clone());
        }
        if !page.more {
            page.next_seq = (g.next_seq - 1).max(seq);
        }
        page
    }

    /// The time of the oldest entry that has one.
    pub fn oldest_time(&self) -> Option<i64> {
        self.lock().entries.iter().find_map(|e| e.time_ms)
    }

    /// Whether the ring holds the line `target` (same time and fingerprint) or a later one:
    /// a reader that saw the device's newest line has caught up with the device.
    pub fn has_reached(&self, target: &LogEntry) -> bool {
        let Some(t) = target.time_ms else {
            return false;
        };
        let print = target.fingerprint();
        let g = self.lock();
        for e in g.entries.iter().rev().take(100_000) {
            match e.time_ms {
                Some(m) if m > t => return true,
                Some(m) if m == t && e.fingerprint() == print => return true,
                // Lines of several buffers may be a little out of order.
                Some(m) if m < t - 5_000 => return false,
                _ => {}
            }
        }
        false
    }

    /// The newest `limit` matching entries, oldest first.
    pub fn tail(&self, limit: usize, keep: impl Fn(&LogEntry) -> bool) -> Page {
        let g = self.lock();
        let mut entries = Vec::new();
        let mut more = false;
        for e in g.entries.iter().rev() {
            if !keep(e) {
                continue;
            }
            if entries.len() == limit {
                more = true;
                break;
            }
            entries.push(e.clone());
        }
        entries.reverse();
        Page {
            entries,
            missed: 0,
            next_seq: g.next_seq - 1,
            more,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::entry::Level;

    fn e(msg: &str) -> LogEntry {
        LogEntry {
            seq: 0,
            time_ms: Some(1),
            pid: Some(1),
            tid: Some(1),
            level: Level::Info,
            tag: "T".into(),
            message: msg.into(),
            process: None,
        }
    }

    #[test]
    fn bounded_by_count_and_bytes_with_drops_counted() {
        let ring = LogRing::new(RingLimits {
            max_entries: 3,
            max_bytes: 1 << 20,
        });
        let v: Vec<LogEntry> = (0..5).map(|i| e(&i.to_string())).collect();
        let mut seqs = Vec::new();
        ring.push(v, |e| seqs.push(e.seq));
        assert_eq!(seqs, [1, 2, 3, 4, 5]);
        let s = ring.stats();
        assert_eq!((s.entries, s.dropped, s.newest_seq), (3, 2, 5));
        let small = LogRing::new(RingLimits {
            max_entries: 1000,
            max_bytes: 2048,
        });
        let big: Vec<LogEntry> = (0..10).map(|_| e(&"x".repeat(500))).collect();
        small.push(big, |_| {});
        let s = small.stats();
        assert!(s.bytes <= 2048 && s.entries == 3 && s.dropped == 7, "{s:?}");
    }

    #[test]
    fn paging_from_a_cursor_and_missed_entries() {
        let ring = LogRing::new(RingLimits {
            max_entries: 4,
            max_bytes: 1 << 20,
        });
        let v: Vec<LogEntry> = (1..=6).map(|i| e(&i.to_string())).collect();
        ring.push(v, |_| {}); // keeps 3..=6
        let p = ring.after(0, 10, |_| true);
        assert_eq!((p.missed, p.entries.len(), p.next_seq), (2, 4, 6));
        let p = ring.after(3, 2, |_| true);
        assert_eq!(
            (p.entries[0].seq, p.entries[1].seq, p.more, p.next_seq),
            (4, 5, true, 5)
        );
        let p = ring.after(6, 10, |_| true);
        assert!(p.entries.is_empty() && !p.more && p.next_seq == 6);
        let p = ring.after(0, 10, |x| x.message == "5");
        assert_eq!((p.entries.len(), p.next_seq), (1, 6));
        let t = ring.tail(2, |_| true);
        assert_eq!((t.entries[0].seq, t.entries[1].seq, t.more), (5, 6, true));
    }

    #[test]
    fn reaching_a_line() {
        let ring = LogRing::new(RingLimits::default());
        let mut a = e("a");
        a.time_ms = Some(100);
        let mut b = e("b");
        b.time_ms = Some(100);
        ring.push(vec![a.clone()], |_| {});
        assert!(ring.has_reached(&a));
        assert!(!ring.has_reached(&b), "same time, another line");
        let mut later = e("c");
        later.time_ms = Some(101);
        ring.push(vec![later], |_| {});
        assert!(ring.has_reached(&b));
    }

    #[test]
    fn cursors_round_trip() {
        let ring = LogRing::new(RingLimits::default());
        let c = ring.cursor(42);
        assert_eq!(Cursor::parse(&c.to_text()), Some(c));
        assert_eq!(Cursor::parse("nonsense"), None);
        assert_eq!(Cursor::parse("0000000g-1"), None);
    }
}
