//! `logcat` as a device runs it: `-d` (dump and exit), `-c` (clear), `-t N|TIME` (the last N
//! lines, or those since TIME, then exit), `-T N|TIME` (the same, then follow), `-b BUF`
//! (`main`, `system`, `crash`, `all`, `default`; repeated or comma-separated; a buffer the
//! device lacks fails as on old devices), `-v FORMAT` (`threadtime` (default), `brief`, `time`,
//! `tag`, `process`, `raw`; modifiers `year`, `UTC`, `printable`, `uid` accepted), `-s`,
//! `--pid N`, and filter specs (`Tag:W`, `*:S`). TIME is `MM-DD hh:mm:ss.mmm`,
//! `YYYY-MM-DD hh:mm:ss.mmm` or `SECONDS.mmm`. Each buffer's first line is preceded by
//! `--------- beginning of BUF`.
//!
//! Without `-d`/`-t`/`-c` it follows: it prints what is selected, then each new line as it is
//! written, until the reader goes away (the adb stream closes). A follower also prints the
//! lines of a flood (`virtual-device control … flood N`): N lines at full speed, for memory
//! and throughput measurements.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::AppletResult;
use crate::log::{format_time, year_of, Buffer, DeviceLog, LogLine};
use crate::state::now_ms;
use crate::Device;

/// Where the selection starts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Start {
    /// The last N lines.
    Count(usize),
    /// Lines written at or after this time (ms).
    Since(u64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    Threadtime,
    Brief,
    Time,
    Tag,
    Process,
    Raw,
}

/// Parsed `logcat` arguments.
#[derive(Debug, Clone)]
pub struct Options {
    dump: bool,
    clear: bool,
    /// `-t`: implies `-d`.
    tail: Option<Start>,
    /// `-T`: then follow.
    from: Option<Start>,
    buffers: Vec<Buffer>,
    format: Format,
    year: bool,
    /// Per-tag minimum priority, and the default (`*`).
    specs: Vec<(String, u8)>,
    default_min: u8,
    pid: Option<u32>,
}

impl Options {
    /// Whether this invocation follows the log (prints new lines until the reader is gone).
    pub fn follows(&self) -> bool {
        !self.dump && !self.clear && self.tail.is_none()
    }
}

fn rank(level: char) -> Option<u8> {
    "VDIWEFS"
        .find(level.to_ascii_uppercase())
        .map(|i| i as u8 + 2)
}

const USAGE: &str = "Usage: logcat [options] [filterspecs]\n";

/// Parses a TIME argument (the device's clock is UTC).
fn parse_time(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some((secs, ms)) = s.split_once('.') {
        if secs.chars().all(|c| c.is_ascii_digit()) && ms.chars().all(|c| c.is_ascii_digit()) {
            let secs: u64 = secs.parse().ok()?;
            let ms: u64 = format!("{ms:0<3}")[..3].parse().ok()?;
            return Some(secs * 1000 + ms);
        }
    }
    let (date, clock) = s.split_once(' ')?;
    let parts: Vec<&str> = date.split('-').collect();
    let (y, m, d) = match parts[..] {
        [m, d] => (year_of(now_ms()), m.parse().ok()?, d.parse().ok()?),
        [y, m, d] => (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?),
        _ => return None,
    };
    let (hms, frac) = clock.split_once('.').unwrap_or((clock, "0"));
    let hms: Vec<u64> = hms
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [h, mi, sec] = hms[..] else { return None };
    let ms: u64 = format!("{frac:0<3}").get(..3)?.parse().ok()?;
    let days = days_from_civil(y, m, d)?;
    if days < 0 || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    Some(((days as u64 * 86_400) + h * 3600 + mi * 60 + sec) * 1000 + ms)
}

fn parse_start(s: &str) -> Result<Start, String> {
    if let Ok(n) = s.trim().parse::<usize>() {
        return Ok(Start::Count(n));
    }
    parse_time(s)
        .map(Start::Since)
        .ok_or_else(|| format!("logcat: -t/-T \"{s}\" not in time format\n"))
}

/// Parses `logcat`'s arguments against the device's buffers.
pub fn parse(args: &[String], available: &[Buffer]) -> Result<Options, String> {
    let mut o = Options {
        dump: false,
        clear: false,
        tail: None,
        from: None,
        buffers: Vec::new(),
        format: Format::Threadtime,
        year: false,
        specs: Vec::new(),
        default_min: 2,
        pid: None,
    };
    let mut i = 0;
    // `-v threadtime` or `-vthreadtime`: the value of an option that takes one.
    let value = |i: &mut usize, flag: &str| -> Result<String, String> {
        let a = &args[*i];
        if a.len() > flag.len() {
            return Ok(a[flag.len()..].trim_start_matches('=').to_string());
        }
        *i += 1;
        args.get(*i).cloned().ok_or_else(|| {
            format!(
                "logcat: option requires an argument -- '{}'\n{USAGE}",
                &flag[1..]
            )
        })
    };
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-d" => o.dump = true,
            "-c" => o.clear = true,
            "-s" => o.default_min = rank('S').unwrap_or(8),
            _ if a.starts_with("--pid") => {
                let v = value(&mut i, "--pid")?;
                o.pid = Some(
                    v.parse()
                        .map_err(|_| format!("logcat: --pid {v} invalid\n"))?,
                );
            }
            _ if a.starts_with("-t") => o.tail = Some(parse_start(&value(&mut i, "-t")?)?),
            _ if a.starts_with("-T") => o.from = Some(parse_start(&value(&mut i, "-T")?)?),
            _ if a.starts_with("-b") => {
                for name in value(&mut i, "-b")?.split(',') {
                    let wanted: Vec<Buffer> = match name {
                        "all" => available.to_vec(),
                        "default" => Buffer::ALL.to_vec(),
                        n => match Buffer::from_name(n) {
                            Some(b) => vec![b],
                            None if ["events", "radio", "stats", "security", "kernel"]
                                .contains(&n) =>
                            {
                                Vec::new()
                            }
                            None => {
                                return Err(format!(
                                    "logcat: Unknown buffer '{n}' listed for -b.\n"
                                ))
                            }
                        },
                    };
                    for b in wanted {
                        if !available.contains(&b) {
                            return Err(format!(
                                "Unable to open log device '/dev/log/{}': No such file or directory\n",
                                b.name()
                            ));
                        }
                        if !o.buffers.contains(&b) {
                            o.buffers.push(b);
                        }
                    }
                }
            }
            _ if a.starts_with("-v") => match value(&mut i, "-v")?.as_str() {
                "threadtime" | "long" => o.format = Format::Threadtime,
                "brief" => o.format = Format::Brief,
                "time" => o.format = Format::Time,
                "tag" => o.format = Format::Tag,
                "process" => o.format = Format::Process,
                "raw" => o.format = Format::Raw,
                "year" => o.year = true,
                "UTC" | "printable" | "uid" | "color" | "descriptive" | "usec" | "zone" => {}
                other => return Err(format!("logcat: Invalid parameter \"{other}\" to -v\n")),
            },
            _ if a.starts_with('-') && a.len() > 1 => {
                return Err(format!("logcat: invalid option -- '{}'\n{USAGE}", &a[1..]))
            }
            spec => {
                let (tag, level) = spec.rsplit_once(':').unwrap_or((spec, "V"));
                let min = level
                    .chars()
                    .next()
                    .and_then(rank)
                    .ok_or_else(|| format!("logcat: Invalid filter expression '{spec}'\n"))?;
                if tag == "*" {
                    o.default_min = min;
                } else {
                    o.specs.push((tag.to_string(), min));
                }
            }
        }
        i += 1;
    }
    if o.buffers.is_empty() {
        o.buffers = Buffer::ALL
            .into_iter()
            .filter(|b| available.contains(b))
            .collect();
    }
    Ok(o)
}

fn passes(o: &Options, l: &LogLine) -> bool {
    if !o.buffers.contains(&l.buffer) || o.pid.is_some_and(|p| p != l.pid) {
        return false;
    }
    let min = o
        .specs
        .iter()
        .find(|(t, _)| *t == l.tag)
        .map_or(o.default_min, |(_, m)| *m);
    rank(l.level).is_some_and(|r| r >= min && min <= 7)
}

/// The lines an invocation starts with: the selection and its start.
fn initial<'a>(o: &Options, log: &'a DeviceLog) -> Vec<&'a LogLine> {
    let all: Vec<&LogLine> = log.lines().filter(|l| passes(o, l)).collect();
    match o.tail.or(o.from) {
        None => all,
        Some(Start::Count(n)) => all[all.len().saturating_sub(n)..].to_vec(),
        Some(Start::Since(t)) => all.into_iter().filter(|l| l.t_ms >= t).collect(),
    }
}

/// Formats lines, with a `beginning of` marker before each buffer's first line.
struct Printer {
    format: Format,
    year: bool,
    seen: Vec<Buffer>,
}

impl Printer {
    fn new(o: &Options) -> Self {
        Printer {
            format: o.format,
            year: o.year,
            seen: Vec::new(),
        }
    }

    fn time(&self, t_ms: u64) -> String {
        let t = format_time(t_ms);
        if self.year {
            format!("{}-{t}", year_of(t_ms))
        } else {
            t
        }
    }

    fn line(&mut self, out: &mut String, l: &LogLine) {
        use std::fmt::Write;
        if !self.seen.contains(&l.buffer) {
            self.seen.push(l.buffer);
            let _ = writeln!(out, "--------- beginning of {}", l.buffer.name());
        }
        let time = self.time(l.t_ms);
        for part in l.msg.split('\n') {
            let (lv, tag, pid, tid) = (l.level, &l.tag, l.pid, l.tid);
            let _ = match self.format {
                Format::Threadtime => {
                    writeln!(out, "{time} {pid:5} {tid:5} {lv} {tag:<8}: {part}")
                }
                Format::Brief => writeln!(out, "{lv}/{tag:<8}({pid:5}): {part}"),
                Format::Time => writeln!(out, "{time} {lv}/{tag:<8}({pid:5}): {part}"),
                Format::Tag => writeln!(out, "{lv}/{tag:<8}: {part}"),
                Format::Process => writeln!(out, "{lv}({pid:5}) {part}  ({tag})"),
                Format::Raw => writeln!(out, "{part}"),
            };
        }
    }
}

/// `logcat` that ends: dump (`-d`, `-t`) or clear (`-c`). Follow mode is [`follow`].
pub fn run(dev: &Device, args: &[String]) -> AppletResult {
    let mut st = dev.state();
    let o = match parse(args, &st.log.available) {
        Ok(o) => o,
        Err(e) => return AppletResult::fail(1, e),
    };
    if o.clear {
        st.log.clear();
        return AppletResult::ok("");
    }
    let mut out = String::new();
    let mut p = Printer::new(&o);
    for l in initial(&o, &st.log) {
        p.line(&mut out, l);
    }
    AppletResult::ok(out)
}

/// Lines of a flood printed per write.
const FLOOD_BATCH: u64 = 2_000;

/// Follows the log for a reader: what is selected, then each new line, until the reader
/// closes its end (or a write fails). `argv` is journaled once the follower listens (a flood
/// asked for after the journal shows it reaches it).
pub async fn follow<R, W>(dev: Arc<Device>, argv: &[String], o: Options, mut reader: R, mut out: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut printer = Printer::new(&o);
    let mut flood = dev.flood.subscribe();
    let mut flooded = *flood.borrow_and_update();
    dev.journal.argv(argv);
    let (mut text, mut last, mut written) = {
        let st = dev.state();
        let mut text = String::new();
        for l in initial(&o, &st.log) {
            printer.line(&mut text, l);
        }
        let mut rx = st.log.watch();
        rx.borrow_and_update();
        (text, st.log.last_seq(), rx)
    };
    let mut probe = [0u8; 64];
    loop {
        if !text.is_empty() {
            if out.write_all(text.as_bytes()).await.is_err() || out.flush().await.is_err() {
                return;
            }
            text.clear();
        }
        tokio::select! {
            r = reader.read(&mut probe) => {
                // The reader never sends anything: EOF or an error means it is gone.
                if matches!(r, Ok(0) | Err(_)) {
                    return;
                }
            }
            r = written.changed() => {
                if r.is_err() {
                    return;
                }
                let st = dev.state();
                for l in st.log.after(last) {
                    if passes(&o, l) {
                        printer.line(&mut text, l);
                    }
                }
                last = st.log.last_seq();
                written.borrow_and_update();
            }
            r = flood.changed() => {
                if r.is_err() {
                    return;
                }
                let total = *flood.borrow_and_update();
                let pid = dev.state().process.pid;
                while flooded < total {
                    let n = (total - flooded).min(FLOOD_BATCH);
                    let time = printer.time(now_ms());
                    use std::fmt::Write;
                    for k in flooded..flooded + n {
                        let _ = writeln!(
                            text,
                            "{time} {pid:5} {pid:5} I FloodTest: flood line {k} the quick brown fox jumps over the lazy dog"
                        );
                    }
                    flooded += n;
                    if out.write_all(text.as_bytes()).await.is_err() {
                        return;
                    }
                    text.clear();
                }
            }
        }
    }
}

/// Days since 1970-01-01 of a civil date; `None` for a date that does not exist.
fn days_from_civil(y: i64, m: u32, d: u32) -> Option<i64> {
    let date = chrono::NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)?;
    Some(
        date.signed_duration_since(chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?)
            .num_days(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn options() {
        let o = parse(
            &args(&["-v", "threadtime", "-b", "main,crash", "-T", "5"]),
            &Buffer::ALL,
        )
        .unwrap();
        assert!(o.follows());
        assert_eq!(o.buffers, [Buffer::Main, Buffer::Crash]);
        assert_eq!(o.from, Some(Start::Count(5)));
        let o = parse(&args(&["-d", "ActivityManager:E", "*:S"]), &Buffer::ALL).unwrap();
        assert!(!o.follows());
        assert_eq!(o.default_min, 8);
        let o = parse(&args(&["-t", "01-02 03:04:05.678"]), &Buffer::ALL).unwrap();
        assert!(!o.follows());
        let Some(Start::Since(t)) = o.tail else {
            panic!()
        };
        assert!(format_time(t).starts_with("01-02 03:04:05.678"));
        assert_eq!(parse_time("1700000000.123"), Some(1_700_000_000_123));
        assert!(parse(&args(&["-b", "crash"]), &[Buffer::Main])
            .unwrap_err()
            .contains("/dev/log/crash"));
        assert!(parse(&args(&["-b", "nope"]), &Buffer::ALL).is_err());
        assert!(parse(&args(&["-x"]), &Buffer::ALL).is_err());
        assert!(parse(&args(&["-T", "yesterday"]), &Buffer::ALL).is_err());
    }

    #[test]
    fn filters_and_formats() {
        let mut log = DeviceLog::default();
        log.push(Buffer::System, 580, 612, 'I', "ActivityManager", "start");
        log.push(
            Buffer::Crash,
            4301,
            4301,
            'E',
            "AndroidRuntime",
            "FATAL EXCEPTION: main\nProcess: p",
        );
        log.push(Buffer::Main, 4301, 4301, 'D', "DemoApp", "hi");
        let o = parse(&args(&["-d", "AndroidRuntime:E", "*:S"]), &Buffer::ALL).unwrap();
        let mut out = String::new();
        let mut p = Printer::new(&o);
        for l in initial(&o, &log) {
            p.line(&mut out, l);
        }
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "--------- beginning of crash");
        assert_eq!(lines.len(), 3, "{out}");
        assert!(lines[1].ends_with(" 4301  4301 E AndroidRuntime: FATAL EXCEPTION: main"));
        assert!(lines[2].ends_with(" E AndroidRuntime: Process: p"));
        let o = parse(
            &args(&["-d", "-v", "brief", "--pid", "4301", "-t", "1"]),
            &Buffer::ALL,
        )
        .unwrap();
        let mut out = String::new();
        let mut p = Printer::new(&o);
        for l in initial(&o, &log) {
            p.line(&mut out, l);
        }
        assert_eq!(out, "--------- beginning of main\nD/DemoApp ( 4301): hi\n");
    }
}
