//! Native crashes: the tombstone debuggerd writes (`*** *** ***` then `pid: P, tid: T, name: N
//! >>> process <<<`, `signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0`, an optional
//! `Abort message`, and `backtrace:` frames `#00 pc 000… /path/lib.so (symbol+off)`), read
//! from a tombstone file or from the `DEBUG` lines logcat shows of it; and libc's one-line
//! `Fatal signal 11 (SIGSEGV), code 1, fault addr 0x0 in tid T (name), pid P (process)`.

use crate::logs::crash::{Crash, CrashKind, CrashSource, TOP_FRAMES};

/// Whether a line opens a tombstone.
pub fn is_start(line: &str) -> bool {
    line.trim_start().starts_with("*** *** ***")
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let i = s.find(open)? + open.len();
    let j = s[i..].find(close)? + i;
    Some(s[i..j].trim())
}

/// `signal 6 (SIGABRT), code -1 (SI_QUEUE), fault addr --------` → (`SIGABRT`, number, the
/// fault address).
fn signal(line: &str) -> Option<(String, u32, Option<String>)> {
    let rest = line.trim().strip_prefix("signal ")?;
    let num: u32 = rest.split_whitespace().next()?.parse().ok()?;
    let name = between(rest, "(", ")").unwrap_or("").to_string();
    let fault = rest
        .split_once("fault addr ")
        .map(|(_, a)| a.split_whitespace().next().unwrap_or("").to_string());
    Some((name, num, fault))
}

/// A backtrace line `#00 pc 00000000000741dc  /apex/…/libc.so (abort+156) (BuildId: …)` in
/// short: `#00 abort+156 (libc.so)`.
pub fn short_frame(line: &str) -> Option<String> {
    let l = line.trim();
    let rest = l.strip_prefix('#')?;
    let (n, rest) = rest.split_once(' ')?;
    if !n.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let Some(rest) = rest.trim_start().strip_prefix("pc ") else {
        // Not a native frame (Unity/mono `#00 Method () <0x4c>`): kept as written.
        return Some(format!("#{n} {}", rest.trim()));
    };
    let mut parts = rest.split_whitespace();
    let _pc = parts.next()?;
    let path = parts.next().unwrap_or("");
    let lib = path.rsplit('/').next().unwrap_or(path);
    // The symbol: the first parenthesised group that is not `(offset …)` or `(BuildId: …)`.
    let symbol = rest
        .split('(')
        .skip(1)
        .filter_map(|p| p.rsplit_once(')').map(|(s, _)| s))
        .find(|s| !s.starts_with("offset ") && !s.starts_with("BuildId") && !s.is_empty());
    Some(match symbol {
        Some(sym) => format!("#{n} {sym} ({lib})"),
        None => format!("#{n} {lib}"),
    })
}

/// Reads a tombstone (file text, or the messages of logcat's `DEBUG` lines).
pub fn parse(text: &str, source: CrashSource) -> Crash {
    let mut c = Crash::new(CrashKind::NativeCrash, source, text.to_string());
    let mut in_backtrace = false;
    let mut fault = None;
    for line in text.lines() {
        let l = line.trim();
        if c.pid.is_none() && l.starts_with("pid: ") {
            c.pid = between(l, "pid: ", ",").and_then(|p| p.parse().ok());
            let process = between(l, ">>> ", " <<<").map(str::to_string);
            c.app = process.clone().filter(|p| looks_like_package(p));
            c.process = process.or_else(|| l.split("name: ").nth(1).map(|n| n.trim().to_string()));
        } else if c.exception.is_none() && l.starts_with("signal ") {
            if let Some((name, num, f)) = signal(l) {
                c.exception = Some(if name.is_empty() {
                    format!("signal {num}")
                } else {
                    format!("signal {num} ({name})")
                });
                fault = f;
            }
        } else if l.starts_with("Abort message:") && c.cause.is_none() {
            let msg = l["Abort message:".len()..].trim().trim_matches('\'');
            c.cause = Some(format!("abort: {msg}"));
        } else if l == "backtrace:" {
            in_backtrace = c.frames.is_empty();
        } else if in_backtrace {
            match short_frame(l) {
                Some(f) if c.frames.len() < TOP_FRAMES => c.frames.push(f),
                Some(_) => {}
                None if l.is_empty() || l.ends_with("total frames") => {}
                None => in_backtrace = false,
            }
        } else if c.time_ms.is_none() && l.starts_with("Timestamp: ") {
            c.time_ms = timestamp(&l["Timestamp: ".len()..]);
        }
    }
    c.message = fault.map(|f| format!("fault addr {f}"));
    c.with_id()
}

/// `2025-10-21 09:28:36.352115447-0600` → Unix ms.
fn timestamp(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date_time, zone) = s.split_at(s.len().checked_sub(5)?);
    let dt = chrono::NaiveDateTime::parse_from_str(date_time, "%Y-%m-%d %H:%M:%S%.f").ok()?;
    let sign = if zone.starts_with('-') { -1 } else { 1 };
    let h: i64 = zone.get(1..3)?.parse().ok()?;
    let m: i64 = zone.get(3..5)?.parse().ok()?;
    Some(dt.and_utc().timestamp_millis() - sign * (h * 3600 + m * 60) * 1000)
}

/// libc's `Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 1234
/// (RenderThread), pid 1200 (com.example.app)`.
pub fn fatal_signal(message: &str) -> Option<Crash> {
    let rest = message.trim().strip_prefix("Fatal signal ")?;
    let num: u32 = rest.split_whitespace().next()?.parse().ok()?;
    let name = between(rest, "(", ")").unwrap_or("");
    let mut c = Crash::new(
        CrashKind::NativeCrash,
        CrashSource::Logcat,
        message.to_string(),
    );
    c.exception = Some(if name.is_empty() {
        format!("signal {num}")
    } else {
        format!("signal {num} ({name})")
    });
    let fault = rest
        .split_once("fault addr ")
        .and_then(|(_, a)| a.split_whitespace().next());
    c.message = fault.map(|f| format!("fault addr {f}"));
    if let Some((_, after)) = rest.rsplit_once(", pid ") {
        c.pid = after.split_whitespace().next().and_then(|p| p.parse().ok());
        let process = between(after, "(", ")").map(str::to_string);
        c.app = process.clone().filter(|p| looks_like_package(p));
        c.process = process;
    }
    Some(c.with_id())
}

/// `com.example.app` or `com.example.app:remote`: a package (and not `/system/bin/x`).
pub fn looks_like_package(name: &str) -> bool {
    let base = name.split(':').next().unwrap_or(name);
    base.contains('.')
        && !base.starts_with('.')
        && base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_in_short() {
        assert_eq!(
            short_frame("      #00 pc 00000000000741dc  /apex/com.android.runtime/lib64/bionic/libc.so (abort+156) (BuildId: 8dc8)").unwrap(),
            "#00 abort+156 (libc.so)"
        );
        assert_eq!(
            short_frame("#09 pc 00000000007ce708  /data/app/x/base.apk (offset 0xf4000) (Java_com_x_create+116)").unwrap(),
            "#09 Java_com_x_create+116 (base.apk)"
        );
        assert_eq!(
            short_frame("#03 pc 0000000000001234  /system/lib64/libfoo.so").unwrap(),
            "#03 libfoo.so"
        );
        assert!(short_frame("x0  0000000000000000").is_none());
    }

    #[test]
    fn libc_fatal_signal() {
        let c = fatal_signal("Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 1234 (RenderThread), pid 1200 (com.example.app)").unwrap();
        assert_eq!(c.exception.as_deref(), Some("signal 11 (SIGSEGV)"));
        assert_eq!(c.message.as_deref(), Some("fault addr 0x0"));
        assert_eq!(
            (c.pid, c.app.as_deref()),
            (Some(1200), Some("com.example.app"))
        );
        assert!(fatal_signal("crash_dump helper failed to exec, or was killed").is_none());
    }

    #[test]
    fn package_names() {
        assert!(looks_like_package("com.sec.android.app.shealth:remote"));
        assert!(!looks_like_package("/system/bin/surfaceflinger"));
        assert!(!looks_like_package("system_server"));
    }
}
