//! The device's `/proc` files: their formats, what is the device's and what the host's, and
//! the thread pattern as the shell hands it over — the pattern itself, or the host's own
//! thread paths when the host has a process of the same pid (made here by giving the app the
//! pid of a live host process).

use super::*;
use crate::app::App;
use crate::state::perf::BOOT_NS;
use crate::state::DeviceState;

fn device() -> (DeviceState, Sandbox) {
    let sb = Sandbox::create(Path::new("/bin/true"), Path::new("/usr/bin/mksh")).unwrap();
    (DeviceState::new(App::demo().unwrap()), sb)
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// `cat ARGS` on the device: (exit code, stdout, stderr).
fn cat(st: &DeviceState, sb: &Sandbox, args: &[String]) -> (i32, String, String) {
    let now = st.uptime_ns();
    match answer(&processes(st, now), uptime_cs(st, now), "", sb, args) {
        AppletResult::Output {
            code,
            stdout,
            stderr,
        } => (
            code,
            String::from_utf8(stdout).unwrap(),
            String::from_utf8(stderr).unwrap(),
        ),
        AppletResult::Exec { .. } => panic!("not answered"),
    }
}

/// The fields of a `stat` line, numbered as `man proc` numbers them (1: pid, 2: comm).
fn fields(line: &str) -> Vec<String> {
    let (head, rest) = line.rsplit_once(')').unwrap();
    let (pid, name) = head.split_once(" (").unwrap();
    let mut v = vec![String::new(), pid.to_string(), name.to_string()];
    v.extend(rest.split_whitespace().map(String::from));
    v
}

#[test]
fn stat_and_uptime_in_the_kernels_format() {
    let (st, sb) = device();
    let pid = st.process.pid;
    let (code, out, err) = cat(
        &st,
        &sb,
        &strings(&[&format!("/proc/{pid}/stat"), "/proc/uptime"]),
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let mut lines = out.lines();
    let f = fields(lines.next().unwrap());
    assert_eq!(f.len(), 53, "52 fields: {f:?}");
    assert_eq!(
        (f[1].as_str(), f[2].as_str(), f[3].as_str()),
        (pid.to_string().as_str(), ".mobilectl.demo", "S")
    );
    assert_eq!(f[4], ZYGOTE_PID.to_string(), "forked by zygote");
    let (utime, stime): (u64, u64) = (f[14].parse().unwrap(), f[15].parse().unwrap());
    assert!(
        utime >= 40 && stime >= 10,
        "a cold start's ticks: {utime} {stime}"
    );
    assert_eq!(f[20], "15", "threads");
    let start: u64 = f[22].parse().unwrap();
    assert!(start >= BOOT_NS / TICK_NS, "started after boot: {start}");
    let uptime = lines.next().unwrap();
    let (up, idle) = uptime.split_once(' ').unwrap();
    for v in [up, idle] {
        let (whole, cents) = v.split_once('.').unwrap();
        assert!(whole.parse::<u64>().is_ok() && cents.len() == 2, "{uptime}");
    }
    let up: f64 = up.parse().unwrap();
    assert!(up * 100.0 >= start as f64);
    // A pid the device does not have, a folder, a file it does not keep.
    let (code, out, err) = cat(
        &st,
        &sb,
        &strings(&[
            "/proc/999999/stat",
            &format!("/proc/{pid}"),
            &format!("/proc/{pid}/task"),
            &format!("/proc/{pid}/maps"),
            "/proc/uptime",
        ]),
    );
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "cat: /proc/999999/stat: No such file or directory\ncat: /proc/{pid}: Is a directory\n\
             cat: /proc/{pid}/task: Is a directory\ncat: /proc/{pid}/maps: No such file or directory\n"
        )
    );
    assert_eq!(out.lines().count(), 1, "the uptime still printed");
}

#[test]
fn status_comm_and_cmdline_of_a_process_and_a_thread() {
    let (st, sb) = device();
    let pid = st.process.pid;
    let rt = st
        .perf
        .threads
        .iter()
        .find(|t| t.comm == "RenderThread")
        .unwrap()
        .tid;
    let (code, out, _) = cat(
        &st,
        &sb,
        &strings(&[
            &format!("/proc/{pid}/status"),
            &format!("/proc/{pid}/task/{rt}/status"),
            &format!("/proc/{pid}/task/{rt}/comm"),
            &format!("/proc/{pid}/cmdline"),
        ]),
    );
    assert_eq!(code, 0);
    for line in [
        "Name:\t.mobilectl.demo".to_string(),
        format!("Tgid:\t{pid}"),
        format!("PPid:\t{ZYGOTE_PID}"),
        "Uid:\t10123\t10123\t10123\t10123".into(),
        "Threads:\t15".into(),
        "Name:\tRenderThread".into(),
        format!("Pid:\t{rt}"),
        "RenderThread".into(),
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} in\n{out}");
    }
    let rss = out.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap();
    let kib: u64 = rss.trim().trim_end_matches(" kB").trim().parse().unwrap();
    assert!(kib > 50_000, "{kib}");
    assert!(out.ends_with("com.mobilectl.demo\0"));
}

#[test]
fn only_the_devices_own_proc_files_make_cat_the_devices() {
    let takes_ = |a: &[&str]| takes(&strings(a));
    assert!(takes_(&["/proc/uptime"]));
    assert!(takes_(&["/proc/4301/task/*/stat"]));
    assert!(takes_(&["-u", "/proc/4301/stat", "/sdcard/x"]));
    for host in [
        &["/proc/meminfo"][..],
        &["/proc/self/stat"],
        &["/sdcard/a.txt"],
        &["-v", "/proc/uptime"],
        &["-", "/proc/uptime"],
    ] {
        assert!(!takes_(host), "{host:?}");
    }
    // Plain files among them are read from the device's `/`, in order.
    let (st, sb) = device();
    std::fs::write(sb.root.join("sdcard/note.txt"), "hello\n").unwrap();
    let (code, out, err) = cat(
        &st,
        &sb,
        &strings(&["/sdcard/note.txt", "/proc/uptime", "/sdcard/none.txt"]),
    );
    assert_eq!(code, 1);
    assert!(
        out.starts_with("hello\n") && out.lines().count() == 2,
        "{out}"
    );
    assert_eq!(err, "cat: /sdcard/none.txt: No such file or directory\n");
}

/// The threads `cat` printed: (tid, name, num_threads).
fn threads_of(out: &str) -> Vec<(u32, String, String)> {
    out.lines()
        .map(|l| {
            let f = fields(l);
            (f[1].parse().unwrap(), f[2].clone(), f[20].clone())
        })
        .collect()
}

fn device_threads(st: &DeviceState) -> Vec<u32> {
    st.perf.threads.iter().map(|t| t.tid).collect()
}

#[test]
fn the_thread_pattern_lists_every_thread_once_and_tids_one_by_one() {
    let (st, sb) = device();
    let pid = st.process.pid;
    // The pattern as the shell passes it when the host has no process of that pid.
    let (code, out, _) = cat(&st, &sb, &strings(&[&format!("/proc/{pid}/task/*/stat")]));
    assert_eq!(code, 0);
    let listed = threads_of(&out);
    assert_eq!(
        listed.iter().map(|t| t.0).collect::<Vec<_>>(),
        device_threads(&st)
    );
    assert!(listed.iter().all(|t| t.2 == "15"));
    assert!(listed.iter().any(|t| t.1 == "RenderThread"));
    // Thread ids: one each; one the process does not have is no such file.
    let tids = device_threads(&st);
    let (code, out, err) = cat(
        &st,
        &sb,
        &strings(&[
            &format!("/proc/{pid}/task/{}/stat", tids[3]),
            &format!("/proc/{pid}/task/{}/stat", tids[1]),
            &format!("/proc/{pid}/task/7/stat"),
        ]),
    );
    assert_eq!(code, 1);
    let listed: Vec<u32> = threads_of(&out).iter().map(|t| t.0).collect();
    assert_eq!(listed, [tids[3], tids[1]]);
    assert_eq!(
        err,
        format!("cat: /proc/{pid}/task/7/stat: No such file or directory\n")
    );
    // A pid the device does not have: the pattern is no such file.
    let (code, _, err) = cat(&st, &sb, &strings(&["/proc/999999/task/*/stat"]));
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "cat: /proc/999999/task/*/stat: No such file or directory\n"
        )
    );
}

/// What the device's shell (mksh; any POSIX shell expands alike) hands `cat` for
/// `/proc/PID/task/*/stat` on this host.
fn expanded(pid: u32) -> Vec<String> {
    let script = format!("for a in /proc/{pid}/task/*/stat; do echo \"$a\"; done");
    let shell = crate::sandbox::find_host_program("mksh").unwrap_or_else(|| "/bin/sh".into());
    let out = std::process::Command::new(shell)
        .args(["-c", &script])
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// The app given the pid of a live host process: the shell expands the pattern to the
/// host's threads of that pid (on Linux; a Mac has no `/proc` and passes the pattern), and
/// the device still lists its own threads, once.
#[test]
fn the_thread_pattern_expanded_by_the_host_lists_the_devices_threads() {
    // A host process with one thread (its only path is the device's main thread's), and this
    // test's own process, with several.
    let mut sleeper = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    for host_pid in [sleeper.id(), std::process::id()] {
        let (mut st, sb) = device();
        if !st.set_next_app_pid(host_pid) {
            continue; // A pid of the device's own processes: nothing to test with it.
        }
        st.force_stop();
        st.launch(None);
        assert_eq!(st.process.pid, host_pid);
        let args = expanded(host_pid);
        if Path::new("/proc").join(host_pid.to_string()).exists() {
            assert!(!args[0].contains('*'), "the host expanded it: {args:?}");
        }
        let (code, out, err) = cat(&st, &sb, &args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
        let listed: Vec<u32> = threads_of(&out).iter().map(|t| t.0).collect();
        assert_eq!(listed, device_threads(&st), "{args:?}");
    }
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
}
