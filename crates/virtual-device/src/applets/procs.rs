//! Process stand-ins: `ps` (toybox's: `-A` for every process, `-o PID,NAME,…` for columns,
//! `-p PID`), `pidof NAME…`, and `log [-p PRIORITY] [-t TAG] MESSAGE…` (writes a line to the
//! main buffer, from the shell's pid, as Android's `log` does).

use super::AppletResult;
use crate::log::Buffer;
use crate::Device;

/// The pid of `sh` running device commands, as far as the log is concerned.
const SHELL_PID: u32 = 9001;

pub fn ps(dev: &Device, args: &[String]) -> AppletResult {
    let mut columns: Vec<String> = Vec::new();
    let mut only: Option<Vec<u32>> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-A" | "-e" => {}
            "-o" => {
                let Some(list) = it.next() else {
                    return AppletResult::fail(1, "ps: Missing argument to -o\n");
                };
                columns.extend(list.split(',').map(|c| c.trim().to_ascii_uppercase()));
            }
            "-p" => {
                let Some(list) = it.next() else {
                    return AppletResult::fail(1, "ps: Missing argument to -p\n");
                };
                only = Some(list.split(',').filter_map(|p| p.parse().ok()).collect());
            }
            other => return AppletResult::fail(1, format!("ps: Unknown option '{other}'\n")),
        }
    }
    if columns.is_empty() {
        columns = [
            "USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME",
        ]
        .map(String::from)
        .to_vec();
    }
    let procs = dev.state().processes();
    let cell = |col: &str, pid: u32, name: &str| -> Option<String> {
        Some(match col {
            "PID" => format!("{pid:>5}"),
            "PPID" => format!("{:>5}", if pid == 1 { 0 } else { 1 }),
            "NAME" | "CMD" | "CMDLINE" | "ARGS" => name.to_string(),
            "USER" => format!("{:<8}", if pid < 1000 { "system" } else { "u0_a123" }),
            "VSZ" => format!("{:>8}", 10_937_576),
            "RSS" => format!("{:>6}", 98_304),
            "WCHAN" => format!("{:<16}", "do_epoll_wait"),
            "ADDR" => "0".into(),
            "S" => "S".into(),
            _ => return None,
        })
    };
    if let Some(bad) = columns.iter().find(|c| cell(c, 1, "").is_none()) {
        return AppletResult::fail(1, format!("ps: bad -o {bad}\n"));
    }
    let mut out = columns
        .iter()
        .map(|c| match c.as_str() {
            "PID" | "PPID" => format!("{c:>5}"),
            _ => c.clone(),
        })
        .collect::<Vec<_>>()
        .join(" ");
    out.push('\n');
    for (pid, name) in procs {
        if only.as_ref().is_some_and(|o| !o.contains(&pid)) {
            continue;
        }
        let row: Vec<String> = columns.iter().filter_map(|c| cell(c, pid, &name)).collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    AppletResult::ok(out)
}

pub fn pidof(dev: &Device, args: &[String]) -> AppletResult {
    let procs = dev.state().processes();
    let pids: Vec<String> = procs
        .iter()
        .filter(|(_, n)| args.iter().any(|a| a == n))
        .map(|(p, _)| p.to_string())
        .collect();
    if pids.is_empty() {
        return AppletResult::fail(1, "");
    }
    AppletResult::ok(format!("{}\n", pids.join(" ")))
}

pub fn log(dev: &Device, args: &[String]) -> AppletResult {
    let mut level = 'I';
    let mut tag = "log".to_string();
    let mut words = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" => match it.next().and_then(|p| p.chars().next()) {
                Some(p) if "vdiwefVDIWEF".contains(p) => level = p.to_ascii_uppercase(),
                _ => return AppletResult::fail(1, "log: -p takes v, d, i, w, e or f\n"),
            },
            "-t" => match it.next() {
                Some(t) => tag = t.clone(),
                None => return AppletResult::fail(1, "log: -t takes a tag\n"),
            },
            w => words.push(w.to_string()),
        }
    }
    let msg = words.join(" ");
    dev.state()
        .log
        .push(Buffer::Main, SHELL_PID, SHELL_PID, level, &tag, &msg);
    AppletResult::ok("")
}
