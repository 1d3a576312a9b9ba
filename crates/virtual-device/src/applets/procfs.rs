//! `cat` of the device's own `/proc`: `/proc/uptime` (the device clock and its 8 cores' idle
//! time), and for each of its processes ([`super::proc_table`]) `/proc/PID/{stat,status,
//! cmdline,comm}` and `/proc/PID/task/TID/{stat,status,comm}` in the kernel's formats (`stat`:
//! 52 fields, the name in parentheses, CPU in ticks of 1/100 s, the thread count in field 20,
//! the start in ticks since boot). A pid the device does not have: `No such file or
//! directory`, as Android answers; other `/proc` files (`/proc/meminfo`, `/proc/self/…`) stay
//! the host's, as before. `/proc/net/unix` lists the device's abstract sockets — what its
//! processes listen on ([`crate::sockets`]: a WebView's `webview_devtools_remote_PID`) — in
//! the kernel's format, `@NAME` as the path.
//!
//! `cat` becomes the device's only when an operand is one of these files and the rest are
//! plain files (read from the device's `/`, in order) with no option but `-u`; any other `cat`
//! is the host's.
//!
//! The shell expands `/proc/$p/task/*/stat` against the host's file system before `cat`
//! runs: where the host has no process `$p` (always on a Mac) `cat` gets the pattern itself;
//! where it has one, it gets that process's thread paths. Both mean "every thread of `$p`":
//! the thread paths of one device process and file are answered with all its threads, once,
//! when one of them is a pattern or exists on the host (only the host's expansion gives
//! those). Other thread paths are answered one by one (a thread the process does not have: no
//! such file). Left ambiguous: an explicit `cat /proc/P/task/T/stat` whose path also exists
//! on the host lists every thread of the device's process P.

use std::collections::BTreeSet;
use std::path::Path;

use super::proc_table::{processes, uptime_cs, ProcView, ThreadView};
use super::AppletResult;
use crate::sandbox::Sandbox;
use crate::state::ZYGOTE_PID;
use crate::Device;

const NET_UNIX: &str = "/proc/net/unix";

/// `/proc/net/unix` of a device whose abstract sockets are `names`: the kernel's header, then
/// a listening stream socket per name (`Flags` `00010000` = listening, `Type` 1 = stream,
/// `St` 01 = unconnected), inodes made up and distinct.
pub fn net_unix(names: &[String]) -> String {
    let mut out = String::from("Num       RefCount Protocol Flags    Type St Inode Path\n");
    for (i, name) in names.iter().enumerate() {
        out += &format!(
            "0000000000000000: 00000002 00000000 00010000 0001 01 {} @{name}\n",
            40_000 + i
        );
    }
    out
}

/// A `/proc` path the device answers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ProcPath<'a> {
    Uptime,
    NetUnix,
    /// `/proc/PID[/task[/TID]][/FILE]`: `task` is `Some(TID)` under `task/` (`None` for the
    /// task folder itself), `file` empty for a folder.
    Pid {
        pid: &'a str,
        task: Option<Option<&'a str>>,
        file: &'a str,
    },
    Missing,
}

fn is_pid(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `arg` is a `/proc` path the device answers.
pub fn owns(arg: &str) -> bool {
    arg == "/proc/uptime"
        || arg == NET_UNIX
        || arg
            .strip_prefix("/proc/")
            .and_then(|r| r.split('/').next())
            .is_some_and(is_pid)
}

/// Whether the device answers this `cat` itself (see the module's doc).
pub fn takes(args: &[String]) -> bool {
    args.iter().any(|a| owns(a)) && args.iter().all(|a| a == "-u" || !a.starts_with('-'))
}

fn parse(arg: &str) -> ProcPath<'_> {
    if arg == "/proc/uptime" {
        return ProcPath::Uptime;
    }
    if arg == NET_UNIX {
        return ProcPath::NetUnix;
    }
    let Some(rest) = arg.strip_prefix("/proc/") else {
        return ProcPath::Missing;
    };
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    match parts[..] {
        [pid] => ProcPath::Pid {
            pid,
            task: None,
            file: "",
        },
        [pid, "task"] => ProcPath::Pid {
            pid,
            task: Some(None),
            file: "",
        },
        [pid, "task", tid] => ProcPath::Pid {
            pid,
            task: Some(Some(tid)),
            file: "",
        },
        [pid, "task", tid, file] => ProcPath::Pid {
            pid,
            task: Some(Some(tid)),
            file,
        },
        [pid, file] => ProcPath::Pid {
            pid,
            task: None,
            file,
        },
        _ => ProcPath::Missing,
    }
}

/// The (pid, file) groups of thread paths of device processes that stand for every thread
/// (see the module's doc).
fn globbed<'a>(procs: &[ProcView], args: &'a [String]) -> BTreeSet<(&'a str, &'a str)> {
    let mut groups: Vec<((&str, &str), Vec<&str>)> = Vec::new();
    for a in args {
        if let ProcPath::Pid {
            pid,
            task: Some(Some(tid)),
            file,
        } = parse(a)
        {
            match groups.iter_mut().find(|(k, _)| *k == (pid, file)) {
                Some((_, tids)) => tids.push(tid),
                None => groups.push(((pid, file), vec![tid])),
            }
        }
    }
    groups
        .into_iter()
        .filter(|((pid, _), tids)| {
            procs.iter().any(|p| p.pid.to_string() == *pid)
                && tids.iter().any(|t| {
                    t.contains(['*', '?', '['])
                        || Path::new(&format!("/proc/{pid}/task/{t}")).exists()
                })
        })
        .map(|(k, _)| k)
        .collect()
}

/// `cat` of operands at least one of which is the device's `/proc` (see [`takes`]).
pub fn cat(dev: &Device, args: &[String]) -> AppletResult {
    let (procs, uptime) = {
        let st = dev.state();
        let now = st.uptime_ns();
        (processes(&st, now), uptime_cs(&st, now))
    };
    let sockets = net_unix(&dev.sockets.abstract_names());
    answer(&procs, uptime, &sockets, &dev.sandbox, args)
}

/// `cat` of `args` on a device with processes `procs`, up and idle `uptime` (hundredths of a
/// second), its other files in `sandbox`.
fn answer(
    procs: &[ProcView],
    (up, idle): (u64, u64),
    net_unix: &str,
    sandbox: &Sandbox,
    args: &[String],
) -> AppletResult {
    let globs = globbed(procs, args);
    let mut done: BTreeSet<(&str, &str)> = BTreeSet::new();
    let (mut out, mut err) = (Vec::<u8>::new(), String::new());
    let missing = |a: &str| format!("cat: {a}: No such file or directory\n");
    for a in args.iter().filter(|a| *a != "-u") {
        if !owns(a) {
            match sandbox.translate_arg(a).map(std::fs::read) {
                Some(Ok(bytes)) => out.extend(bytes),
                Some(Err(e)) if e.kind() == std::io::ErrorKind::IsADirectory => {
                    err += &format!("cat: {a}: Is a directory\n")
                }
                Some(Err(e)) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                    err += &format!("cat: {a}: Permission denied\n")
                }
                _ => err += &missing(a),
            }
            continue;
        }
        let (pid, task, file) = match parse(a) {
            ProcPath::Uptime => {
                out.extend(
                    format!(
                        "{}.{:02} {}.{:02}\n",
                        up / 100,
                        up % 100,
                        idle / 100,
                        idle % 100
                    )
                    .bytes(),
                );
                continue;
            }
            ProcPath::NetUnix => {
                out.extend(net_unix.bytes());
                continue;
            }
            ProcPath::Pid { pid, task, file } => (pid, task, file),
            ProcPath::Missing => {
                err += &missing(a);
                continue;
            }
        };
        let Some(p) = procs.iter().find(|p| p.pid.to_string() == pid) else {
            err += &missing(a);
            continue;
        };
        let threads: Vec<&ThreadView> = match task {
            None => vec![&p.threads[0]],
            Some(None) => Vec::new(),
            Some(Some(_)) if globs.contains(&(pid, file)) => {
                if !done.insert((pid, file)) {
                    continue;
                }
                p.threads.iter().collect()
            }
            Some(Some(tid)) => p
                .threads
                .iter()
                .filter(|t| t.tid.to_string() == tid)
                .collect(),
        };
        if task == Some(None) || file.is_empty() && !threads.is_empty() {
            err += &format!("cat: {a}: Is a directory\n");
            continue;
        }
        let whole = task.is_none();
        let mut text = String::new();
        for t in &threads {
            match file {
                "stat" => text += &stat_line(p, t, whole),
                "status" => text += &status(p, t, whole),
                "comm" => text += &format!("{}\n", t.comm),
                "cmdline" => text += &format!("{}\0", p.name),
                _ => break,
            }
        }
        if text.is_empty() {
            err += &missing(a);
        } else {
            out.extend(text.bytes());
        }
    }
    AppletResult::Output {
        code: if err.is_empty() { 0 } else { 1 },
        stdout: out,
        stderr: err.into_bytes(),
    }
}

const TICK_NS: u64 = 10_000_000;

/// The process's (or with `!whole` the thread's) CPU: (user, system) ns.
fn cpu(p: &ProcView, t: &ThreadView, whole: bool) -> (u64, u64) {
    if whole {
        let user = p.threads.iter().map(|t| t.user_ns).sum();
        (user, p.threads.iter().map(|t| t.sys_ns).sum())
    } else {
        (t.user_ns, t.sys_ns)
    }
}

fn vsize(p: &ProcView) -> u64 {
    let rss = p.memory.total().rss * 1024;
    let v = if p.ppid == 0 {
        rss * 4
    } else {
        14_000_000_000 + rss * 6
    };
    v / 4096 * 4096
}

/// A `stat` line: the process's (`whole`, CPU of all its threads) or one thread's.
fn stat_line(p: &ProcView, t: &ThreadView, whole: bool) -> String {
    let (user, sys) = cpu(p, t, whole);
    let main = t.tid == p.pid;
    let state = if p.running && main { 'R' } else { 'S' };
    let pgrp = match p.ppid {
        0 => 0,
        ZYGOTE_PID => ZYGOTE_PID,
        _ => p.pid,
    };
    let minflt = (user + sys) / 1_000_000 + 40;
    // Fields 1-22: ids, state, parent, group, flags, faults, ticks, priority, threads, start.
    let head = format!(
        "{} ({}) {state} {} {pgrp} 0 0 -1 {} {minflt} 0 {} 0 {} {} 0 0 {} {} {} 0 {}",
        t.tid,
        t.comm,
        p.ppid,
        if main { 1_077_952_832 } else { 1_077_952_576 },
        minflt / 200,
        user / TICK_NS,
        sys / TICK_NS,
        20 + t.nice,
        t.nice,
        p.threads.len(),
        (if whole { p.started_ns } else { t.started_ns }) / TICK_NS,
    );
    // 23-52: memory, then addresses and signals as an unprivileged reader sees them, the
    // exit signal, the CPU last run on, and zeros.
    format!(
        "{head} {} {} {} 1 1 0 0 0 0 4612 1 1073776376 0 0 0 {} {} 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
        vsize(p),
        p.memory.total().rss / 4,
        u64::MAX,
        if main { 17 } else { -1 },
        t.tid % 8,
    )
}

/// A `status` file: the process's or one thread's.
fn status(p: &ProcView, t: &ThreadView, whole: bool) -> String {
    let (user, sys) = cpu(p, t, whole);
    let rss = p.memory.total().rss;
    let (anon, shmem) = (rss * 40 / 100, rss * 5 / 100);
    let kb = |v: u64| format!("{v:>8} kB");
    let vm = vsize(p) / 1024;
    let state = if p.running && t.tid == p.pid {
        "R (running)"
    } else {
        "S (sleeping)"
    };
    let ids = |id: u32| format!("{id}\t{id}\t{id}\t{id}");
    let groups = if p.uid >= 10_000 {
        format!("3003 9997 {} {}", p.uid % 100_000 + 10_000, p.uid + 40_000)
    } else {
        "3002 3003".to_string()
    };
    let lines = [
        ("Name", t.comm.clone()),
        ("Umask", "0077".into()),
        ("State", state.into()),
        ("Tgid", p.pid.to_string()),
        ("Ngid", "0".into()),
        ("Pid", t.tid.to_string()),
        ("PPid", p.ppid.to_string()),
        ("TracerPid", "0".into()),
        ("Uid", ids(p.uid)),
        ("Gid", ids(p.uid)),
        ("FDSize", "128".into()),
        ("Groups", format!("{groups} ")),
        ("VmPeak", kb(vm + 65_536)),
        ("VmSize", kb(vm)),
        ("VmLck", kb(0)),
        ("VmPin", kb(0)),
        ("VmHWM", kb(rss + rss / 20)),
        ("VmRSS", kb(rss)),
        ("RssAnon", kb(anon)),
        ("RssFile", kb(rss - anon - shmem)),
        ("RssShmem", kb(shmem)),
        ("VmData", kb(vm / 12)),
        ("VmStk", kb(8_192)),
        ("VmExe", kb(28)),
        ("VmLib", kb(rss * 2)),
        ("VmPTE", kb(rss / 60)),
        ("VmSwap", kb(0)),
        ("CoreDumping", "0".into()),
        ("THP_enabled", "1".into()),
        ("Threads", p.threads.len().to_string()),
        ("SigQ", "0/25782".into()),
        ("SigPnd", "0000000000000000".into()),
        ("ShdPnd", "0000000000000000".into()),
        ("SigBlk", "0000000080001204".into()),
        ("SigIgn", "0000000000000001".into()),
        ("SigCgt", "0000006e400084f8".into()),
        ("CapInh", "0000000000000000".into()),
        ("CapPrm", "0000000000000000".into()),
        ("CapEff", "0000000000000000".into()),
        ("CapBnd", "0000000000000000".into()),
        ("CapAmb", "0000000000000000".into()),
        ("NoNewPrivs", "0".into()),
        ("Seccomp", "2".into()),
        ("Seccomp_filters", "1".into()),
        ("Speculation_Store_Bypass", "thread vulnerable".into()),
        ("SpeculationIndirectBranch", "conditional enabled".into()),
        ("Cpus_allowed", "ff".into()),
        ("Cpus_allowed_list", "0-7".into()),
        ("Mems_allowed", "1".into()),
        ("Mems_allowed_list", "0".into()),
        (
            "voluntary_ctxt_switches",
            ((user + sys) / 1_000_000 + 120).to_string(),
        ),
        (
            "nonvoluntary_ctxt_switches",
            ((user + sys) / 20_000_000 + 3).to_string(),
        ),
    ];
    lines.iter().map(|(k, v)| format!("{k}:\t{v}\n")).collect()
}

#[cfg(test)]
#[path = "procfs_tests.rs"]
mod tests;
