//! `screenrecord`: records what the device shows into an H.264 MP4, as Android's does.
//!
//! The device renders its screen ten times a second (only when it changed; an unchanged
//! frame is sent again) and pipes raw RGBA frames to the host's `ffmpeg` (libx264), which
//! writes the MP4 at the device path. Frames are paced by the wall clock, so the file's
//! duration is the time recorded. The recording ends, finalised, at `--time-limit` (default
//! and maximum: the device's limit, 180 s as on most Android versions; control
//! `screenrecord-limit S` lowers it for tests), when the client is sent SIGINT, SIGHUP or
//! SIGTERM (it closes its end of the socket; see `cli.rs`), or when the client is gone.
//!
//! `pkill [-SIGNAL] [-f] [-x] PATTERN` signals running recorders (the only long-lived
//! programs the device tracks) by name, or by whole command line with `-f`.

use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use image::RgbaImage;
use tokio::io::AsyncWriteExt;

use super::AppletResult;
use crate::uixml::Hierarchy;
use crate::Device;

/// Frames per second written to the encoder.
pub const FPS: u32 = 10;
/// The longest recording most Android versions allow per file.
pub const DEFAULT_LIMIT_S: u64 = 180;
/// Android's default bit rate (Android 10 and later).
const DEFAULT_BIT_RATE: u64 = 20_000_000;

const USAGE: &str = "Usage: screenrecord [options] <filename>\n\n\
Records the device's display to a .mp4 file.\n\n\
Options:\n\
--size WIDTHxHEIGHT\n    Set the video size, e.g. \"1280x720\".  Default is the device's main\n    display resolution (if supported), 1280x720 if not.\n\
--bit-rate RATE\n    Set the video bit rate, in bits per second.  Value may be specified as\n    bits or megabits, e.g. '4000000' is equivalent to '4M'.  Default 20Mbps.\n\
--time-limit TIME\n    Set the maximum recording time, in seconds.  Default / maximum is 180.\n\
--verbose\n    Display interesting information on stdout.\n\
--help\n    Show this message.\n\n\
Recording continues until Ctrl-C is hit or the time limit is reached.\n";

/// What a `screenrecord` command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub path: String,
    pub time_limit: Duration,
    pub size: Option<(u32, u32)>,
    pub bit_rate: u64,
    pub verbose: bool,
}

/// The live recorders: (client pid, argv), for `pkill`.
#[derive(Default)]
pub struct Recorders {
    live: Mutex<Vec<(u32, Vec<String>)>>,
    /// Longest recording allowed, seconds.
    limit_s: AtomicU64,
}

impl Recorders {
    pub fn new() -> Self {
        Recorders {
            live: Mutex::new(Vec::new()),
            limit_s: AtomicU64::new(DEFAULT_LIMIT_S),
        }
    }

    pub fn limit_s(&self) -> u64 {
        self.limit_s.load(Ordering::Relaxed)
    }

    pub fn set_limit_s(&self, s: u64) {
        self.limit_s.store(s.max(1), Ordering::Relaxed);
    }

    fn list(&self) -> std::sync::MutexGuard<'_, Vec<(u32, Vec<String>)>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a recorder until the guard drops.
    pub fn register(&self, pid: u32, argv: Vec<String>) -> Registered<'_> {
        self.list().push((pid, argv));
        Registered {
            recorders: self,
            pid,
        }
    }
}

pub struct Registered<'a> {
    recorders: &'a Recorders,
    pid: u32,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.recorders.list().retain(|(p, _)| *p != self.pid);
    }
}

/// Parses `screenrecord`'s arguments (after the program name) against the device's limit.
/// `Err` is what the program prints and its exit code.
pub fn parse(args: &[String], limit_s: u64) -> Result<Options, (i32, String)> {
    let mut path = None;
    let mut time_limit = limit_s;
    let mut size = None;
    let mut bit_rate = DEFAULT_BIT_RATE;
    let mut verbose = false;
    let mut it = args.iter();
    let value =
        |it: &mut std::slice::Iter<'_, String>, opt: &str| -> Result<String, (i32, String)> {
            it.next().cloned().ok_or_else(|| {
                (
                    2,
                    format!("screenrecord: option '{opt}' requires an argument\n{USAGE}"),
                )
            })
        };
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let arg = |it: &mut std::slice::Iter<'_, String>| match &inline {
            Some(v) => Ok(v.clone()),
            None => value(it, name),
        };
        match name {
            "--help" => return Err((0, USAGE.to_string())),
            "--verbose" => verbose = true,
            "--bugreport" | "--rotate" => {}
            "--time-limit" => {
                let v = arg(&mut it)?;
                let n: u64 = v
                    .parse()
                    .map_err(|_| (2, format!("Invalid time limit '{v}'\n")))?;
                if n == 0 || n > limit_s {
                    return Err((
                        2,
                        format!("Time limit {n}s outside acceptable range [1,{limit_s}]\n"),
                    ));
                }
                time_limit = n;
            }
            "--size" => {
                let v = arg(&mut it)?;
                let parsed = v
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
                    .filter(|&(w, h)| w >= 2 && h >= 2 && w <= 4096 && h <= 4096);
                match parsed {
                    Some((w, h)) if w % 2 == 0 && h % 2 == 0 => size = Some((w, h)),
                    Some(_) => {
                        return Err((
                            2,
                            format!("Invalid size '{v}': width and height must be even\n"),
                        ))
                    }
                    None => {
                        return Err((2, format!("Invalid size '{v}', must be width x height\n")))
                    }
                }
            }
            "--bit-rate" => {
                let v = arg(&mut it)?;
                bit_rate =
                    parse_bit_rate(&v).ok_or_else(|| (2, format!("Invalid bit rate '{v}'\n")))?;
            }
            "--output-format" => {
                let v = arg(&mut it)?;
                if v != "mp4" {
                    return Err((
                        2,
                        format!(
                            "screenrecord: output format '{v}' is not supported by this device\n"
                        ),
                    ));
                }
            }
            "--display-id" => {
                arg(&mut it)?;
            }
            s if s.starts_with('-') => {
                return Err((
                    2,
                    format!("screenrecord: unrecognized option '{s}'\n{USAGE}"),
                ))
            }
            s => {
                if path.is_some() {
                    return Err((
                        2,
                        format!("Must specify output file (see --help).\n{USAGE}"),
                    ));
                }
                path = Some(s.to_string());
            }
        }
    }
    let Some(path) = path else {
        return Err((
            2,
            format!("Must specify output file (see --help).\n{USAGE}"),
        ));
    };
    if !path.ends_with(".mp4") {
        return Err((
            2,
            format!("screenrecord: output file '{path}' should end in .mp4\n"),
        ));
    }
    Ok(Options {
        path,
        time_limit: Duration::from_secs(time_limit),
        size,
        bit_rate,
        verbose,
    })
}

/// `4000000`, `4M`, `500K`.
fn parse_bit_rate(v: &str) -> Option<u64> {
    let (digits, scale) = match v.chars().last()? {
        'M' | 'm' => (&v[..v.len() - 1], 1_000_000),
        'K' | 'k' => (&v[..v.len() - 1], 1_000),
        _ => (v, 1),
    };
    let n: u64 = digits.parse().ok()?;
    let rate = n.checked_mul(scale)?;
    (100_000..=200_000_000).contains(&rate).then_some(rate)
}

/// What `--verbose` prints before the first frame (Android's words), else nothing.
pub fn banner(dev: &Device, opts: &Options) -> String {
    if !opts.verbose {
        return String::new();
    }
    let (sw, sh) = dev.state().screen_size();
    let (w, h) = opts.size.unwrap_or((sw, sh));
    format!(
        "Display is {sw}x{sh} @60.00fps (orientation=ROTATION_0), layerStack=0\n\
         Configuring recorder for {w}x{h} video/avc at {:.2}Mbps\n\
         Content area is {w}x{h} at offset x=0 y=0\n",
        opts.bit_rate as f64 / 1e6
    )
}

/// Records until `stop` resolves or the time limit; returns the exit code and stderr.
pub async fn record(
    dev: &Device,
    opts: &Options,
    stop: impl std::future::Future<Output = ()>,
) -> (i32, String) {
    let Some(ffmpeg) = dev.sandbox.real_program("ffmpeg") else {
        return (
            1,
            "screenrecord: the virtual device encodes with the host's ffmpeg, which is not installed\n".into(),
        );
    };
    let (screen, first) = {
        let st = dev.state();
        (st.screen_size(), st.current())
    };
    let (w, h) = opts.size.unwrap_or(screen);
    let Some(out) = dev.sandbox.host_path(&opts.path) else {
        return (
            1,
            format!(
                "screenrecord: unable to open '{}': No such file or directory\n",
                opts.path
            ),
        );
    };
    let mut child = match tokio::process::Command::new(ffmpeg)
        .args([
            "-hide_banner",
            "-loglevel",
            "error",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgba",
        ])
        .args(["-s", &format!("{w}x{h}"), "-r", &FPS.to_string(), "-i", "-"])
        .args([
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-tune",
            "zerolatency",
        ])
        .args(["-pix_fmt", "yuv420p", "-b:v", &opts.bit_rate.to_string()])
        .args(["-movflags", "+faststart", "-y"])
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return (1, format!("screenrecord: cannot start the encoder: {e}\n")),
    };
    let Some(mut stdin) = child.stdin.take() else {
        return (1, "screenrecord: encoder has no input\n".into());
    };
    let started = Instant::now();
    let mut frame = frame_of(first.clone(), screen, (w, h)).await;
    let mut shown = (first, screen);
    let mut written: u64 = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(1000 / FPS as u64));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let deadline = tokio::time::sleep(opts.time_limit);
    tokio::pin!(stop, deadline);
    let mut broken = false;
    loop {
        tokio::select! {
            _ = &mut stop => break,
            _ = &mut deadline => break,
            _ = tick.tick() => {
                let now = {
                    let st = dev.state();
                    (st.current(), st.screen_size())
                };
                if now != shown {
                    frame = frame_of(now.0.clone(), now.1, (w, h)).await;
                    shown = now;
                }
                // Frame k covers [k/FPS, (k+1)/FPS): write those whose time has come.
                let due = (started.elapsed().as_secs_f64() * FPS as f64).round() as u64;
                if written < due {
                    if stdin.write_all(&frame).await.is_err() {
                        broken = true;
                        break;
                    }
                    written += 1;
                }
            }
        }
    }
    // The screen as it is at the stop (it may have changed while the last frame rendered),
    // then the frames the wall clock says are still owed (a stop between two ticks); the last
    // frame is always the screen at the stop.
    let now = {
        let st = dev.state();
        (st.current(), st.screen_size())
    };
    if now != shown {
        frame = frame_of(now.0, now.1, (w, h)).await;
    }
    let owed = ((started
        .elapsed()
        .as_secs_f64()
        .min(opts.time_limit.as_secs_f64())
        * FPS as f64)
        .round() as u64)
        .max(written + 1);
    while !broken && written < owed {
        if stdin.write_all(&frame).await.is_err() {
            broken = true;
        }
        written += 1;
    }
    drop(stdin);
    let ended = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output()).await;
    match ended {
        Ok(Ok(o)) if o.status.success() && !broken => (0, String::new()),
        Ok(Ok(o)) => (
            1,
            format!(
                "screenrecord: encoder failed: {}\n",
                String::from_utf8_lossy(&o.stderr).trim()
            ),
        ),
        Ok(Err(e)) => (1, format!("screenrecord: encoder: {e}\n")),
        Err(_) => (1, "screenrecord: encoder did not finish\n".into()),
    }
}

/// Renders a screen as raw RGBA bytes at the recording's size (letterboxing is not done:
/// a rotated screen is stretched into the frame, as a fixed-size encoder would).
async fn frame_of(h: Hierarchy, screen: (u32, u32), size: (u32, u32)) -> Vec<u8> {
    tokio::task::spawn_blocking(move || {
        let img: RgbaImage = crate::render::draw(&h, screen.0, screen.1);
        let img = if (img.width(), img.height()) == size {
            img
        } else {
            image::imageops::resize(&img, size.0, size.1, image::imageops::FilterType::Triangle)
        };
        img.into_raw()
    })
    .await
    .unwrap_or_else(|_| vec![0; (size.0 * size.1 * 4) as usize])
}

/// `pkill [-SIGNAL|-l SIGNAL] [-f] [-x] PATTERN`: signals the device's recorders.
pub fn pkill(dev: &Device, args: &[String]) -> AppletResult {
    let mut signal = libc::SIGTERM;
    let mut full = false;
    let mut exact = false;
    let mut pattern = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-f" => full = true,
            "-x" => exact = true,
            "-l" => match it.next().and_then(|s| signal_number(s)) {
                Some(s) => signal = s,
                None => return AppletResult::fail(1, "pkill: bad signal\n"),
            },
            s if s.starts_with('-') => match signal_number(&s[1..]) {
                Some(n) => signal = n,
                None => return AppletResult::fail(1, format!("pkill: Unknown option '{s}'\n")),
            },
            s => pattern = Some(s.to_string()),
        }
    }
    let Some(pattern) = pattern else {
        return AppletResult::fail(1, "pkill: Need 1 argument\n");
    };
    let targets: Vec<u32> = dev
        .recorders
        .list()
        .iter()
        .filter(|(_, argv)| {
            let subject = if full {
                argv.join(" ")
            } else {
                argv[0].clone()
            };
            if exact {
                subject == pattern
            } else {
                subject.contains(&pattern)
            }
        })
        .map(|(pid, _)| *pid)
        .collect();
    for pid in &targets {
        // SAFETY: kill(2) with a pid a live recorder client registered; no memory is touched.
        unsafe {
            libc::kill(*pid as i32, signal);
        }
    }
    AppletResult::Output {
        code: if targets.is_empty() { 1 } else { 0 },
        stdout: Vec::new(),
        stderr: Vec::new(),
    }
}

fn signal_number(s: &str) -> Option<i32> {
    if let Ok(n) = s.parse::<i32>() {
        return (1..=64).contains(&n).then_some(n);
    }
    let name = s.strip_prefix("SIG").unwrap_or(s);
    Some(match name {
        "HUP" => libc::SIGHUP,
        "INT" => libc::SIGINT,
        "QUIT" => libc::SIGQUIT,
        "KILL" => libc::SIGKILL,
        "TERM" => libc::SIGTERM,
        "USR1" => libc::SIGUSR1,
        "USR2" => libc::SIGUSR2,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_as_android_reads_them() {
        let o = parse(
            &args("--time-limit 5 --size 540x1200 --bit-rate 4M /sdcard/a.mp4"),
            180,
        )
        .unwrap();
        assert_eq!(o.path, "/sdcard/a.mp4");
        assert_eq!(o.time_limit, Duration::from_secs(5));
        assert_eq!(o.size, Some((540, 1200)));
        assert_eq!(o.bit_rate, 4_000_000);
        let o = parse(&args("--time-limit=7 /sdcard/b.mp4"), 180).unwrap();
        assert_eq!(o.time_limit, Duration::from_secs(7));
        assert_eq!(
            parse(&args("/sdcard/c.mp4"), 180).unwrap().time_limit,
            Duration::from_secs(180)
        );
        assert_eq!(
            parse(&args("/sdcard/c.mp4"), 3).unwrap().time_limit,
            Duration::from_secs(3)
        );
    }

    #[test]
    fn bad_options_are_refused_with_androids_words() {
        for (line, says) in [
            (
                "--time-limit 181 /sdcard/a.mp4",
                "outside acceptable range [1,180]",
            ),
            ("--time-limit 0 /sdcard/a.mp4", "outside acceptable range"),
            ("--time-limit x /sdcard/a.mp4", "Invalid time limit"),
            ("--size 12 /sdcard/a.mp4", "must be width x height"),
            ("--size 541x1200 /sdcard/a.mp4", "must be even"),
            ("--bit-rate lots /sdcard/a.mp4", "Invalid bit rate"),
            ("--time-limit", "requires an argument"),
            ("", "Must specify output file"),
            ("/sdcard/a.png", "should end in .mp4"),
            ("--output-format h264 -", "not supported"),
        ] {
            let (code, text) = parse(&args(line), 180).unwrap_err();
            assert_eq!(code, 2, "{line}");
            assert!(text.contains(says), "{line}: {text}");
        }
        assert_eq!(parse(&args("--help"), 180).unwrap_err().0, 0);
    }

    #[test]
    fn signals_by_number_and_name() {
        assert_eq!(signal_number("2"), Some(libc::SIGINT));
        assert_eq!(signal_number("INT"), Some(libc::SIGINT));
        assert_eq!(signal_number("SIGHUP"), Some(libc::SIGHUP));
        assert_eq!(signal_number("NOPE"), None);
        assert_eq!(signal_number("99"), None);
    }
}
