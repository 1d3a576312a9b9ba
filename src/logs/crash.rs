//! Crashes and ANRs as mobilectl reports them, whatever found them (a logcat block, a
//! tombstone, an iOS crash report): a stable id (a hash of what identifies the event, so the
//! same crash read twice keeps its id), a one-paragraph summary fit for an agent, the top
//! frames, and the full text; plus the bounded store a device keeps them in.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::Serialize;
use utoipa::ToSchema;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CrashKind {
    /// An uncaught Java/Kotlin exception (`FATAL EXCEPTION`).
    JavaCrash,
    /// A native crash: a fatal signal (tombstone).
    NativeCrash,
    /// Application Not Responding.
    Anr,
    /// An iOS crash report (`.ips` or `.crash`).
    IosCrash,
    /// An uncaught JavaScript error of a page inside the app (a WebView's): the app runs on.
    PageError,
}

impl CrashKind {
    /// Whether the app stops (or stops answering) with it: a page's error does not, so it is
    /// not an action's crash.
    pub fn ends_the_app(self) -> bool {
        self != CrashKind::PageError
    }

    fn verb(self) -> &'static str {
        match self {
            CrashKind::JavaCrash => "crashed with",
            CrashKind::NativeCrash => "died of",
            CrashKind::Anr => "is not responding:",
            CrashKind::IosCrash => "crashed with",
            CrashKind::PageError => "had an uncaught error in a web page:",
        }
    }
}

/// Where a crash was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CrashSource {
    /// A crash block in the device's logcat.
    Logcat,
    /// An Android tombstone file.
    Tombstone,
    /// An iOS JSON crash report (`.ips`).
    Ips,
    /// An iOS text crash report (`.crash`).
    CrashReport,
    /// A page's DevTools (an uncaught error of a WebView's page).
    Devtools,
}

/// A crash or an ANR.
#[derive(Debug, Clone, PartialEq)]
pub struct Crash {
    /// Stable id: a hash of what identifies the event, the same each time it is read.
    pub id: String,
    /// What happened.
    pub kind: CrashKind,
    /// Where it was read.
    pub source: CrashSource,
    /// When it happened (Unix ms, device clock), when known.
    pub time_ms: Option<i64>,
    /// The app (package or bundle id), when known.
    pub app: Option<String>,
    /// The process name, when it differs from the app or the app is unknown.
    pub process: Option<String>,
    /// The process id, when known.
    pub pid: Option<u32>,
    /// Exception class, signal, or exception type.
    pub exception: Option<String>,
    /// Exception message, fault address, ANR reason.
    pub message: Option<String>,
    /// The root cause (`Caused by:`), when it differs from the exception.
    pub cause: Option<String>,
    /// Top frames, innermost first.
    pub frames: Vec<String>,
    /// The full text.
    pub text: String,
    /// Position in the device's log ring of its first line (logcat crashes).
    pub first_seq: Option<u64>,
    /// The simulator a crash report names (iOS), when it names one.
    pub udid: Option<String>,
}

/// Frames kept per crash.
pub const TOP_FRAMES: usize = 8;
/// Longest summary.
const SUMMARY_MAX: usize = 600;

impl Crash {
    /// A crash of `kind` read from `text`; its id is made from the identifying parts.
    pub fn new(kind: CrashKind, source: CrashSource, text: String) -> Crash {
        Crash {
            id: String::new(),
            kind,
            source,
            time_ms: None,
            app: None,
            process: None,
            pid: None,
            exception: None,
            message: None,
            cause: None,
            frames: Vec::new(),
            text,
            first_seq: None,
            udid: None,
        }
        .with_id()
    }

    /// Recomputes the id from what identifies the event (kind, time, pid, exception,
    /// message): not from where or how often it was read.
    pub fn with_id(mut self) -> Crash {
        let mut h = blake3::Hasher::new();
        h.update(format!("{:?}", self.kind).as_bytes());
        h.update(&self.time_ms.unwrap_or(0).to_le_bytes());
        h.update(&self.pid.unwrap_or(0).to_le_bytes());
        for part in [&self.app, &self.exception, &self.message] {
            h.update(part.as_deref().unwrap_or("").as_bytes());
            h.update(&[0]);
        }
        if self.exception.is_none() && self.message.is_none() {
            h.update(self.text.lines().next().unwrap_or("").as_bytes());
        }
        self.id = format!("c{}", &h.finalize().to_hex()[..12]);
        self
    }

    /// One paragraph for an agent: who, what, where.
    pub fn summary(&self) -> String {
        let who = match (&self.app, &self.process) {
            (Some(a), _) => a.clone(),
            (None, Some(p)) => p.clone(),
            (None, None) => "a process".into(),
        };
        let mut s = who;
        if let Some(pid) = self.pid {
            s += &format!(" (pid {pid})");
        }
        s += " ";
        s += self.kind.verb();
        let message = self.message.as_deref().map(|m| m.trim_end_matches('.'));
        match (&self.exception, message) {
            (Some(e), Some(m)) if !m.is_empty() => s += &format!(" {e}: {m}"),
            (Some(e), _) => s += &format!(" {e}"),
            (None, Some(m)) => s += &format!(" {m}"),
            (None, None) => s += " an unknown error",
        }
        if let Some(c) = &self.cause {
            s += &format!("; caused by {c}");
        }
        let app_frame = self.app.as_deref().and_then(|a| {
            let prefix: String = a.split('.').take(2).collect::<Vec<_>>().join(".");
            self.frames
                .iter()
                .find(|f| !prefix.is_empty() && f.contains(&prefix))
        });
        match (app_frame, self.frames.first()) {
            (Some(f), Some(top)) if f != top => {
                s += &format!(". Top frame: {top}; first app frame: {f}")
            }
            (_, Some(top)) => s += &format!(". Top frame: {top}"),
            _ => {}
        }
        s.push('.');
        if s.chars().count() > SUMMARY_MAX {
            s = s.chars().take(SUMMARY_MAX - 1).collect::<String>() + "…";
        }
        s
    }

    /// Whether the crash is of `app` (its package, bundle id or process name).
    pub fn is_of(&self, app: &str) -> bool {
        self.app.as_deref() == Some(app)
            || self
                .process
                .as_deref()
                .is_some_and(|p| p == app || p.split(':').next() == Some(app))
    }
}

/// The crashes of one device, newest last, bounded, without duplicates.
pub struct CrashStore {
    inner: Mutex<VecDeque<Crash>>,
    max: usize,
}

impl CrashStore {
    /// An empty store keeping at most `max` crashes (at least one), dropping the oldest.
    pub fn new(max: usize) -> Self {
        CrashStore {
            inner: Mutex::new(VecDeque::new()),
            max: max.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Crash>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a crash; one already known (same id) is kept, with the longer text. True when
    /// it was new.
    pub fn add(&self, crash: Crash) -> bool {
        let mut v = self.lock();
        if let Some(known) = v.iter_mut().find(|c| c.id == crash.id) {
            if crash.text.len() > known.text.len() {
                let seq = known.first_seq.or(crash.first_seq);
                *known = crash;
                known.first_seq = seq;
            }
            return false;
        }
        v.push_back(crash);
        while v.len() > self.max {
            v.pop_front();
        }
        true
    }

    /// The crash with this id, if it is still kept.
    pub fn get(&self, id: &str) -> Option<Crash> {
        self.lock().iter().find(|c| c.id == id).cloned()
    }

    /// Every crash matching `keep`, oldest first.
    pub fn matching(&self, keep: impl Fn(&Crash) -> bool) -> Vec<Crash> {
        self.lock().iter().filter(|c| keep(c)).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn java() -> Crash {
        let mut c = Crash::new(
            CrashKind::JavaCrash,
            CrashSource::Logcat,
            "FATAL EXCEPTION: main".into(),
        );
        c.app = Some("com.example.app".into());
        c.pid = Some(42);
        c.time_ms = Some(1000);
        c.exception = Some("java.lang.IllegalStateException".into());
        c.message = Some("boom".into());
        c.frames = vec![
            "android.view.View.performClick(View.java:7659)".into(),
            "com.example.app.Main.onClick(Main.kt:5)".into(),
        ];
        c.with_id()
    }

    #[test]
    fn ids_are_stable_and_summaries_say_what_and_where() {
        let a = java();
        let mut b = java();
        b.text.push_str("\n\tat more");
        assert_eq!(
            a.id,
            b.clone().with_id().id,
            "the same crash read longer keeps its id"
        );
        assert!(a.id.starts_with('c') && a.id.len() == 13);
        let s = a.summary();
        assert!(
            s.starts_with(
                "com.example.app (pid 42) crashed with java.lang.IllegalStateException: boom"
            ),
            "{s}"
        );
        assert!(
            s.contains("first app frame: com.example.app.Main.onClick"),
            "{s}"
        );
        assert!(a.is_of("com.example.app") && !a.is_of("com.other"));
    }

    #[test]
    fn the_store_is_bounded_and_deduplicates() {
        let store = CrashStore::new(2);
        let a = java();
        assert!(store.add(a.clone()));
        let mut longer = a.clone();
        longer.text += "\nmore";
        assert!(!store.add(longer));
        assert!(store.get(&a.id).unwrap().text.ends_with("more"));
        for t in 0..3 {
            let mut c = java();
            c.time_ms = Some(t);
            store.add(c.with_id());
        }
        assert_eq!(store.matching(|_| true).len(), 2);
    }
}
