//! The device's Unix socket (`vd.sock` in the sandbox folder; its path is in the startup line
//! and in `MOBILECTL_VD_SOCKET` inside device commands). One request per connection:
//!
//! - request: a JSON line — `{"kind":"applet","argv":[…],"stdin_len":N}` or
//!   `{"kind":"control","args":[…]}` — then N raw stdin bytes;
//! - response: a JSON line — `{"code":C,"stdout_len":N,"stderr_len":M}` then the raw bytes, or
//!   `{"exec":"/usr/bin/cat","args":[…]}` telling an applet client to exec a host utility, or
//!   `{"stream":true}` then stdout bytes as they are produced (`logcat` following the log)
//!   until the client closes its end.
//!
//! Control commands (`mobilectl virtual-device control --socket S …`): `latency MS`,
//! `fail-dumps N`, `screen NAME`, `drop`, `offline on|off`, `state` (JSON: screen, foreground, running,
//! focused, keyboard, package, activity, fail_dumps_left), `journal` (its path), `flood N`
//! (every `logcat` following the log prints N more lines at full speed), `anr-timeout MS`
//! (how long input may wait for a blocked main thread before the ANR), `freeze-ms MS` (how
//! long the app's main thread blocks on `@freeze`), `crash-on-launch on|off` (the app throws
//! in `onCreate` whenever it is started), `app-pid N` (the pid the app's next start takes,
//! later starts the ones after it), `log-buffers main,system` (the buffers the device
//! has, as on an old device without `crash`), `screenrecord-limit S` (the longest
//! `screenrecord` allowed per file; 180 by default), `uia2 garbage|hang|die|normal` (the
//! UiAutomator2 server stand-in answers 200 with a body that is not JSON, accepts requests and
//! never answers, dies now — connections dropped, its `am instrument -w` prints the crash —
//! or behaves again; see [`crate::uia2`]), and the WebView's Chromium (see
//! `web::control`): `web debug on|off` (the app's WebView debugging; on by default),
//! `web kill` (Chromium dies now), `web eval JS` (the value as JSON), `web big N` (a page of
//! about N elements), `web page login`. `screen NAME` answers once a WebView's Chromium that
//! the screen starts listens (or failed to start). Controls run on a blocking thread.
//!
//! A recording `screenrecord` is answered `{"record":true}`, then, once it stopped (the
//! client closed its end, or the time limit), `{"code":C,"stderr":"…"}`.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream as StdUnixStream;
use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixListener;

use super::applets::{self, AppletResult};
use super::log::Buffer;
use super::uia2::instrument::{Outcome, Waiting};
use super::Device;

pub async fn serve(dev: Arc<Device>, listener: UnixListener) {
    loop {
        match listener.accept().await {
            Ok((sock, _)) => {
                let dev = dev.clone();
                tokio::spawn(async move {
                    let _ = handle(dev, sock).await;
                });
            }
            // Out of file descriptors: wait for some to come back, never stop listening.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
}

async fn handle(dev: Arc<Device>, sock: tokio::net::UnixStream) -> std::io::Result<()> {
    let (rd, mut wr) = sock.into_split();
    let mut rd = tokio::io::BufReader::new(rd);
    let mut line = String::new();
    rd.read_line(&mut line).await?;
    let req: Value = serde_json::from_str(&line).map_err(std::io::Error::other)?;
    let stdin_len = req["stdin_len"].as_u64().unwrap_or(0) as usize;
    let mut stdin = vec![0u8; stdin_len.min(512 * 1024 * 1024)];
    rd.read_exact(&mut stdin).await?;
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|s| s.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let result = match req["kind"].as_str() {
        Some("applet") => {
            let argv = strings(&req["argv"]);
            if let Some(args) = crate::uia2::instrument::args_of(&argv) {
                dev.journal.argv(&argv);
                match crate::uia2::instrument::start(&dev, args).await {
                    Outcome::Done(r) => return write_result(wr, r).await,
                    Outcome::Wait(w) => return instrument_wait(w, rd, wr).await,
                }
            }
            if let Some(opts) = recording(&dev, &argv) {
                dev.journal.argv(&argv);
                if dev.sandbox.real_program("ffmpeg").is_none() {
                    let text = "screenrecord: the virtual device encodes with the host's ffmpeg, which is not installed\n";
                    let head = json!({"code": 1, "stdout_len": 0, "stderr_len": text.len()});
                    wr.write_all(format!("{head}\n{text}").as_bytes()).await?;
                    return wr.shutdown().await;
                }
                let head =
                    json!({"record": true, "stdout": applets::screenrecord::banner(&dev, &opts)});
                wr.write_all(format!("{head}\n").as_bytes()).await?;
                let pid = req["pid"].as_u64().unwrap_or(0) as u32;
                let (code, stderr) = {
                    let _live = dev.recorders.register(pid, argv.clone());
                    // The client closes its end when it is signalled (or dies): stop then.
                    let stop = async move {
                        let mut sink = [0u8; 64];
                        while matches!(rd.read(&mut sink).await, Ok(n) if n > 0) {}
                    };
                    applets::screenrecord::record(&dev, &opts, stop).await
                };
                let trailer = json!({"code": code, "stderr": stderr, "stdout": if opts.verbose && code == 0 { "Stopping encoder and muxer\n" } else { "" }}).to_string();
                wr.write_all(format!("{trailer}\n").as_bytes()).await?;
                return wr.shutdown().await;
            }
            if let Some(opts) = applets::follow_options(&dev, &argv) {
                wr.write_all(b"{\"stream\":true}\n").await?;
                applets::follow_log(dev, &argv, opts, rd, wr).await;
                return Ok(());
            }
            let dev = dev.clone();
            tokio::task::spawn_blocking(move || applets::run(&dev, &argv, stdin))
                .await
                .map_err(std::io::Error::other)?
        }
        Some("control") => {
            // Some controls wait (for the WebView's Chromium): never on the runtime's threads.
            let args = strings(&req["args"]);
            let dev = dev.clone();
            tokio::task::spawn_blocking(move || control(&dev, &args))
                .await
                .map_err(std::io::Error::other)?
        }
        _ => AppletResult::fail(2, "unknown request kind\n"),
    };
    write_result(wr, result).await
}

/// `am instrument -w`: streams what `am` prints until the instrumentation's run ends (or the
/// client is gone: its shell closed; the run goes on without it).
async fn instrument_wait(
    w: Waiting,
    mut rd: tokio::io::BufReader<tokio::net::unix::OwnedReadHalf>,
    mut wr: tokio::net::unix::OwnedWriteHalf,
) -> std::io::Result<()> {
    wr.write_all(b"{\"stream\":true}\n").await?;
    wr.write_all(w.head.as_bytes()).await?;
    let gone = async move {
        let mut sink = [0u8; 64];
        while matches!(rd.read(&mut sink).await, Ok(n) if n > 0) {}
    };
    tokio::select! {
        tail = w.tail() => wr.write_all(tail.as_bytes()).await?,
        _ = gone => {}
    }
    wr.shutdown().await
}

/// Writes an applet's answer: the JSON header line, then stdout and stderr.
async fn write_result(
    mut wr: tokio::net::unix::OwnedWriteHalf,
    result: AppletResult,
) -> std::io::Result<()> {
    let mut out = Vec::new();
    match result {
        AppletResult::Output {
            code,
            stdout,
            stderr,
        } => {
            out.extend(
                json!({"code": code, "stdout_len": stdout.len(), "stderr_len": stderr.len()})
                    .to_string()
                    .bytes(),
            );
            out.push(b'\n');
            out.extend(stdout);
            out.extend(stderr);
        }
        AppletResult::Exec { program, args } => {
            out.extend(
                json!({"exec": program.to_string_lossy(), "args": args})
                    .to_string()
                    .bytes(),
            );
            out.push(b'\n');
        }
    }
    wr.write_all(&out).await?;
    wr.shutdown().await
}

/// The options of a `screenrecord` that records (answered as a stream), or `None` for one
/// [`applets::run`] answers (help, bad options).
fn recording(dev: &Device, argv: &[String]) -> Option<applets::screenrecord::Options> {
    if argv.first().map(String::as_str) != Some("screenrecord") {
        return None;
    }
    applets::screenrecord::parse(&argv[1..], dev.recorders.limit_s()).ok()
}

fn control(dev: &Device, args: &[String]) -> AppletResult {
    let r = control_once(dev, args);
    crate::web::reconcile(dev);
    r
}

fn control_once(dev: &Device, args: &[String]) -> AppletResult {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    match a[..] {
        ["web", ref rest @ ..] => crate::web::control::run(dev, rest),
        ["latency", ms] => match ms.parse() {
            Ok(ms) => {
                dev.faults.set_latency_ms(ms);
                AppletResult::ok("ok\n")
            }
            Err(_) => AppletResult::fail(2, "latency needs milliseconds\n"),
        },
        ["fail-dumps", n] => match n.parse() {
            Ok(n) => {
                dev.faults.set_fail_dumps(n);
                AppletResult::ok("ok\n")
            }
            Err(_) => AppletResult::fail(2, "fail-dumps needs a count\n"),
        },
        ["drop"] => {
            dev.drop_connections();
            AppletResult::ok("ok\n")
        }
        ["offline", v @ ("on" | "off")] => {
            dev.set_offline(v == "on");
            AppletResult::ok("ok\n")
        }
        ["screenrecord-limit", s] => match s.parse::<u64>() {
            Ok(s) if s > 0 => {
                dev.recorders.set_limit_s(s);
                AppletResult::ok("ok\n")
            }
            _ => AppletResult::fail(2, "screenrecord-limit needs seconds (1 or more)\n"),
        },
        ["uia2", mode] => {
            use crate::uia2::{self, Fault};
            match mode {
                "normal" => dev.uia2.set_fault(Fault::Normal),
                "garbage" => dev.uia2.set_fault(Fault::Garbage),
                "hang" => dev.uia2.set_fault(Fault::Hang),
                "die" => uia2::die(dev),
                _ => return AppletResult::fail(2, "uia2 takes normal | garbage | hang | die\n"),
            }
            AppletResult::ok("ok\n")
        }
        ["state"] => AppletResult::ok(format!("{}\n", dev.state_json())),
        ["screen", name] => {
            let shown = dev.state().show_screen(name);
            if shown {
                // A WebView's Chromium starts with its screen: answer once it listens.
                crate::web::reconcile(dev);
                dev.web.wait_settled();
                AppletResult::ok("ok\n")
            } else {
                AppletResult::fail(2, "no such screen in the app\n")
            }
        }
        ["journal"] => AppletResult::ok(format!("{}\n", dev.journal.path().display())),
        ["flood", n] => match n.parse::<u64>() {
            Ok(n) => {
                dev.flood.send_modify(|total| *total += n);
                AppletResult::ok("ok\n")
            }
            Err(_) => AppletResult::fail(2, "flood needs a line count\n"),
        },
        ["anr-timeout", ms] => match ms.parse() {
            Ok(ms) => {
                dev.state().process.anr_timeout_ms = ms;
                AppletResult::ok("ok\n")
            }
            Err(_) => AppletResult::fail(2, "anr-timeout needs milliseconds\n"),
        },
        ["freeze-ms", ms] => match ms.parse() {
            Ok(ms) => {
                dev.state().process.freeze_ms = ms;
                AppletResult::ok("ok\n")
            }
            Err(_) => AppletResult::fail(2, "freeze-ms needs milliseconds\n"),
        },
        ["app-pid", pid] => match pid.parse() {
            Ok(pid) if !applets::system_ids().contains(&pid) && dev.state().set_next_app_pid(pid) => {
                AppletResult::ok("ok\n")
            }
            _ => AppletResult::fail(2, "app-pid needs a pid no device process holds\n"),
        },
        ["crash-on-launch", on] if matches!(on, "on" | "off") => {
            dev.state().process.crash_on_launch = on == "on";
            AppletResult::ok("ok\n")
        }
        ["log-buffers", list] => {
            let buffers: Option<Vec<Buffer>> = list.split(',').map(Buffer::from_name).collect();
            match buffers {
                Some(b) if !b.is_empty() => {
                    dev.state().log.available = b;
                    AppletResult::ok("ok\n")
                }
                _ => AppletResult::fail(2, "log-buffers takes main,system,crash\n"),
            }
        }
        _ => AppletResult::fail(
            2,
            "usage: latency MS | fail-dumps N | drop | offline on|off | state | journal | flood N | anr-timeout MS | freeze-ms MS | crash-on-launch on|off | app-pid N | log-buffers LIST | uia2 normal|garbage|hang|die | web debug on|off | web kill | web eval JS | web big N | web page login\n",
        ),
    }
}

/// Client side (blocking, no runtime): sends one request and reads the response's header;
/// the rest is left in the reader. The connection stays open both ways, so that a device
/// streaming to us (`{"stream":true}`) learns we are gone when this process ends.
pub fn send(
    socket: &Path,
    header: &Value,
    body: &[u8],
) -> std::io::Result<(Value, BufReader<StdUnixStream>)> {
    send_on(StdUnixStream::connect(socket)?, header, body)
}

/// [`send`] on a connection already made.
pub fn send_on(
    mut s: StdUnixStream,
    header: &Value,
    body: &[u8],
) -> std::io::Result<(Value, BufReader<StdUnixStream>)> {
    let mut msg = header.to_string().into_bytes();
    msg.push(b'\n');
    msg.extend_from_slice(body);
    s.write_all(&msg)?;
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let head: Value = serde_json::from_str(&line).map_err(std::io::Error::other)?;
    Ok((head, r))
}

/// Sends one request; returns the header and the whole body.
pub fn request(socket: &Path, header: &Value, body: &[u8]) -> std::io::Result<(Value, Vec<u8>)> {
    let (head, mut r) = send(socket, header, body)?;
    let mut rest = Vec::new();
    r.read_to_end(&mut rest)?;
    Ok((head, rest))
}

/// Sends a control command; returns (exit code, stdout, stderr).
pub fn control_request(socket: &Path, args: &[String]) -> std::io::Result<(i32, Vec<u8>, Vec<u8>)> {
    let (head, body) = request(socket, &json!({"kind": "control", "args": args}), &[])?;
    let n = head["stdout_len"].as_u64().unwrap_or(0) as usize;
    let n = n.min(body.len());
    Ok((
        head["code"].as_i64().unwrap_or(1) as i32,
        body[..n].to_vec(),
        body[n..].to_vec(),
    ))
}
