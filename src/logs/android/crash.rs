//! Finds crashes and ANRs in a stream of logcat entries, as they come. A crash is a block of
//! lines from one thread: `AndroidRuntime`'s `FATAL EXCEPTION` (process, pid, exception, the
//! `Caused by:` chain and frames), a native tombstone logged by `DEBUG` (`*** *** ***` …),
//! libc's `Fatal signal` line (merged with the tombstone that follows it), and
//! `ActivityManager`'s `ANR in <package>` (pid, reason). A block ends when its thread logs
//! something else, after many lines of other threads, or on [`Detector::flush`] (the stream
//! went quiet).
//!
//! Not crashes: `WindowManager: ANR in Window{…}` (the input notice that precedes the real
//! ANR), `crash_dump` collecting native backtraces for ANR traces, and libc's `crash_dump
//! helper failed`.

use super::tombstone;
use crate::logs::crash::{Crash, CrashKind, CrashSource, TOP_FRAMES};
use crate::logs::entry::{Level, LogEntry};

/// Lines of other threads after which an open block is taken as complete.
const FOREIGN_LIMIT: usize = 256;
/// Longest block (a tombstone with memory maps; an ANR with its CPU table).
const BLOCK_LIMIT: usize = 2_000;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Java,
    Native,
    Anr,
}

struct Block {
    kind: Kind,
    pid: Option<u32>,
    tid: Option<u32>,
    tag: String,
    time_ms: Option<i64>,
    first_seq: u64,
    lines: Vec<String>,
    foreign: usize,
}

/// The crash detector of one log stream.
#[derive(Default)]
pub struct Detector {
    open: Vec<Block>,
    /// libc `Fatal signal` crashes waiting for their tombstone.
    signals: Vec<(Crash, usize)>,
}

fn opens(e: &LogEntry) -> Option<Kind> {
    let m = e.message.trim_start();
    match e.tag.as_str() {
        "AndroidRuntime" if m.starts_with("FATAL EXCEPTION") => Some(Kind::Java),
        "ActivityManager" if e.level >= Level::Error && m.starts_with("ANR in ") => Some(Kind::Anr),
        "DEBUG" | "crash_dump32" | "crash_dump64" | "tombstoned" if tombstone::is_start(m) => {
            Some(Kind::Native)
        }
        _ => None,
    }
}

impl Detector {
    /// Takes the next entry; crashes it completes go to `out`.
    pub fn push(&mut self, e: &LogEntry, out: &mut Vec<Crash>) {
        let mut i = 0;
        while i < self.open.len() {
            let b = &mut self.open[i];
            let same_thread = b.pid == e.pid && b.tid == e.tid;
            if same_thread && b.tag == e.tag && opens(e).is_none() {
                b.lines.push(e.message.clone());
                let done = b.lines.len() >= BLOCK_LIMIT
                    || (b.kind == Kind::Native && e.message.contains("Tombstone written to"));
                if done {
                    let b = self.open.remove(i);
                    self.finish(b, out);
                    continue;
                }
                return;
            }
            b.foreign += 1;
            if same_thread || b.foreign > FOREIGN_LIMIT {
                let b = self.open.remove(i);
                self.finish(b, out);
                continue;
            }
            i += 1;
        }
        if let Some(kind) = opens(e) {
            self.open.push(Block {
                kind,
                pid: e.pid,
                tid: e.tid,
                tag: e.tag.clone(),
                time_ms: e.time_ms,
                first_seq: e.seq,
                lines: vec![e.message.clone()],
                foreign: 0,
            });
        } else if e.tag == "libc" && e.level == Level::Fatal {
            if let Some(mut c) = tombstone::fatal_signal(&e.message) {
                c.time_ms = e.time_ms;
                c.first_seq = Some(e.seq);
                self.signals.push((c.with_id(), 0));
            }
        }
        self.age_signals(out);
    }

    /// Whether a crash block is open (a crash may be reported by the next lines or a flush).
    pub fn is_open(&self) -> bool {
        !self.open.is_empty() || !self.signals.is_empty()
    }

    /// The stream went quiet or ended: every open block is complete.
    pub fn flush(&mut self, out: &mut Vec<Crash>) {
        for b in std::mem::take(&mut self.open) {
            self.finish(b, out);
        }
        out.extend(self.signals.drain(..).map(|(c, _)| c));
    }

    fn age_signals(&mut self, out: &mut Vec<Crash>) {
        let mut kept = Vec::new();
        for (c, age) in self.signals.drain(..) {
            if age + 1 > FOREIGN_LIMIT {
                out.push(c);
            } else {
                kept.push((c, age + 1));
            }
        }
        self.signals = kept;
    }

    fn finish(&mut self, b: Block, out: &mut Vec<Crash>) {
        let text = b.lines.join("\n");
        let mut c = match b.kind {
            Kind::Java => java(&text),
            Kind::Anr => anr(&text),
            Kind::Native => tombstone::parse(&text, CrashSource::Logcat),
        };
        c.pid = c.pid.or(b.pid);
        c.first_seq = Some(b.first_seq);
        if b.kind == Kind::Native {
            // The libc line that announced it, if one did: its time and seq; one crash.
            if let Some(k) = self.signals.iter().position(|(s, _)| s.pid == c.pid) {
                let (signal, _) = self.signals.remove(k);
                c.time_ms = signal.time_ms.or(b.time_ms);
                c.first_seq = signal.first_seq;
                c.message = c.message.or(signal.message);
                c.app = c.app.or(signal.app);
                c.text = format!("{}\n{}", signal.text, c.text);
            }
        }
        if c.time_ms.is_none() || b.kind != Kind::Native {
            c.time_ms = b.time_ms;
        }
        out.push(c.with_id());
    }
}

/// `Process: com.example, PID: 4314`
fn process_line(l: &str) -> Option<(String, Option<u32>)> {
    let rest = l.strip_prefix("Process: ")?;
    let (name, pid) = match rest.split_once(", PID: ") {
        Some((n, p)) => (n, p.trim().parse().ok()),
        None => (rest, None),
    };
    Some((name.trim().to_string(), pid))
}

/// `java.lang.IllegalStateException: message` → (class, message).
fn exception_line(l: &str) -> (String, Option<String>) {
    match l.split_once(": ") {
        Some((class, msg)) if !class.contains(' ') => (class.to_string(), Some(msg.to_string())),
        _ => match l.strip_suffix(':') {
            Some(class) if !class.contains(' ') => (class.to_string(), None),
            _ if !l.contains(' ') => (l.to_string(), None),
            _ => (String::new(), Some(l.to_string())),
        },
    }
}

/// A frame line: `at pkg.Class.method(File.java:12)` or a native/Unity `#00 …`.
fn frame(l: &str) -> Option<String> {
    if let Some(f) = l.strip_prefix("at ") {
        return Some(f.trim().to_string());
    }
    if l.starts_with('#') {
        return tombstone::short_frame(l);
    }
    None
}

/// Reads a `FATAL EXCEPTION` block.
pub fn java(text: &str) -> Crash {
    let mut c = Crash::new(CrashKind::JavaCrash, CrashSource::Logcat, text.to_string());
    let mut seen_exception = false;
    let mut in_first_trace = true;
    for raw in text.lines().skip(1) {
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if c.app.is_none() && c.process.is_none() {
            if let Some((name, pid)) = process_line(l) {
                if tombstone::looks_like_package(&name) {
                    c.app = Some(name.split(':').next().unwrap_or(&name).to_string());
                    if name.contains(':') {
                        c.process = Some(name);
                    }
                } else {
                    c.process = Some(name);
                }
                c.pid = pid;
                continue;
            }
        }
        if let Some(f) = frame(l) {
            if in_first_trace && c.frames.len() < TOP_FRAMES {
                c.frames.push(f);
            }
            continue;
        }
        if let Some(cause) = l.strip_prefix("Caused by: ") {
            in_first_trace = false;
            // The root cause is the last one, but a binder call's `RemoteException: Remote
            // stack trace:` only carries the server's frames.
            if !cause.ends_with("Remote stack trace:") {
                c.cause = Some(cause.to_string());
            }
            continue;
        }
        if l.starts_with("...") || l.starts_with("Suppressed: ") {
            in_first_trace = false;
            continue;
        }
        if !seen_exception && !l.starts_with("pid: ") {
            seen_exception = true;
            let (class, msg) = exception_line(l);
            c.exception = (!class.is_empty()).then_some(class);
            c.message = msg;
        }
    }
    if c.cause
        .as_deref()
        .is_some_and(|cause| c.message.as_deref().is_some_and(|m| m.ends_with(cause)))
    {
        // `RuntimeException: …: java.lang.SecurityException: x` already says its cause.
        c.cause = None;
    }
    c.with_id()
}

/// Reads an `ANR in …` block.
pub fn anr(text: &str) -> Crash {
    let mut c = Crash::new(CrashKind::Anr, CrashSource::Logcat, text.to_string());
    let mut lines = text.lines();
    if let Some(first) = lines.next() {
        let rest = first.trim().trim_start_matches("ANR in ").trim();
        let name = rest.split(' ').next().unwrap_or(rest);
        if tombstone::looks_like_package(name) {
            c.app = Some(name.split(':').next().unwrap_or(name).to_string());
        } else {
            c.process = Some(name.to_string());
        }
    }
    for l in lines {
        let l = l.trim();
        if let Some(p) = l.strip_prefix("PID: ") {
            c.pid = p.trim().parse().ok();
        } else if let Some(r) = l.strip_prefix("Reason: ") {
            c.message = Some(r.trim().to_string());
        }
    }
    c.exception = None;
    c.with_id()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, pid: u32, tid: u32, level: Level, tag: &str, msg: &str) -> LogEntry {
        LogEntry {
            seq,
            time_ms: Some(1000 + seq as i64),
            pid: Some(pid),
            tid: Some(tid),
            level,
            tag: tag.into(),
            message: msg.into(),
            process: None,
        }
    }

    fn run(entries: &[LogEntry]) -> Vec<Crash> {
        let mut d = Detector::default();
        let mut out = Vec::new();
        for e in entries {
            d.push(e, &mut out);
        }
        d.flush(&mut out);
        out
    }

    #[test]
    fn a_java_crash_ends_when_its_thread_logs_something_else() {
        let msgs = [
            "FATAL EXCEPTION: main",
            "Process: com.mobilectl.demo, PID: 4301",
            "java.lang.IllegalStateException: CRASH button tapped",
            "\tat com.mobilectl.demo.DetailActivity.onClick(DetailActivity.kt:57)",
            "\tat android.view.View.performClick(View.java:7659)",
        ];
        let mut es: Vec<LogEntry> = msgs
            .iter()
            .enumerate()
            .map(|(i, m)| entry(i as u64 + 1, 4301, 4301, Level::Error, "AndroidRuntime", m))
            .collect();
        // Another process in between does not end it.
        es.insert(2, entry(50, 580, 612, Level::Info, "ActivityManager", "x"));
        let mut d = Detector::default();
        let mut out = Vec::new();
        for e in &es {
            d.push(e, &mut out);
        }
        assert!(out.is_empty());
        d.push(
            &entry(
                9,
                4301,
                4301,
                Level::Info,
                "Process",
                "Sending signal. PID: 4301 SIG: 9",
            ),
            &mut out,
        );
        assert_eq!(out.len(), 1);
        let c = &out[0];
        assert_eq!(c.kind, CrashKind::JavaCrash);
        assert_eq!(
            (c.app.as_deref(), c.pid),
            (Some("com.mobilectl.demo"), Some(4301))
        );
        assert_eq!(
            c.exception.as_deref(),
            Some("java.lang.IllegalStateException")
        );
        assert_eq!(c.message.as_deref(), Some("CRASH button tapped"));
        assert_eq!(c.frames.len(), 2);
        assert_eq!((c.first_seq, c.time_ms), (Some(1), Some(1001)));
    }

    #[test]
    fn anr_blocks_and_their_notices() {
        let es = [
            entry(
                1,
                1437,
                1651,
                Level::Info,
                "WindowManager",
                "ANR in Window{a17b2c3 u0 com.x/com.x.Main}. Reason: …",
            ),
            entry(
                2,
                1437,
                26441,
                Level::Error,
                "ActivityManager",
                "ANR in com.x (com.x/.Main)",
            ),
            entry(
                3,
                1437,
                26441,
                Level::Error,
                "ActivityManager",
                "PID: 24598",
            ),
            entry(
                4,
                1437,
                26441,
                Level::Error,
                "ActivityManager",
                "Reason: Input dispatching timed out (… Waited 10007ms for MotionEvent)",
            ),
        ];
        let out = run(&es);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].kind, CrashKind::Anr);
        assert_eq!(
            (out[0].app.as_deref(), out[0].pid),
            (Some("com.x"), Some(24598))
        );
        assert!(out[0]
            .message
            .as_deref()
            .unwrap()
            .starts_with("Input dispatching timed out"));
        assert!(out[0]
            .summary()
            .contains("is not responding: Input dispatching"));
    }

    #[test]
    fn a_fatal_signal_and_its_tombstone_are_one_crash() {
        let es = [
            entry(1, 1200, 1234, Level::Fatal, "libc", "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 1234 (RenderThread), pid 1200 (com.example.app)"),
            entry(2, 1300, 1300, Level::Fatal, "DEBUG", "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***"),
            entry(3, 1300, 1300, Level::Fatal, "DEBUG", "pid: 1200, tid: 1234, name: RenderThread  >>> com.example.app <<<"),
            entry(4, 1300, 1300, Level::Fatal, "DEBUG", "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0"),
            entry(5, 1300, 1300, Level::Fatal, "DEBUG", "backtrace:"),
            entry(6, 1300, 1300, Level::Fatal, "DEBUG", "      #00 pc 0000000000012345  /data/app/x/lib/arm64/libapp.so (render+12)"),
            entry(7, 1300, 1300, Level::Fatal, "DEBUG", "Tombstone written to: /data/tombstones/tombstone_03"),
        ];
        let out = run(&es);
        assert_eq!(out.len(), 1, "{out:?}");
        let c = &out[0];
        assert_eq!(c.kind, CrashKind::NativeCrash);
        assert_eq!(
            (c.app.as_deref(), c.pid, c.first_seq),
            (Some("com.example.app"), Some(1200), Some(1))
        );
        assert_eq!(c.frames, ["#00 render+12 (libapp.so)"]);
        assert_eq!(c.message.as_deref(), Some("fault addr 0x0"));
        // A failed crash_dump helper is no crash.
        assert!(run(&[entry(
            1,
            616,
            616,
            Level::Fatal,
            "libc",
            "crash_dump helper failed to exec, or was killed"
        )])
        .is_empty());
    }
}
