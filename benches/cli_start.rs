//! What starting the command line costs: every `mobilectl` command (and every server, MCP
//! bridge and flow worker) parses its command line first, whose commands are partly made from
//! the operation table at run time (`mobilectl::cli::derived`). Times `mobilectl --version`
//! (nothing after the parse) and `mobilectl call --help` as processes of the built binary:
//! wall time and the CPU time the process used, the median of 30 runs each. Run with `cargo
//! bench --bench cli_start` (release) or `cargo bench --profile dev --bench cli_start` (the
//! debug binary the tests start hundreds of times); under `cargo test` it only builds.

use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 30;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// CPU seconds the finished children of this process have used so far (user and system).
#[cfg(unix)]
fn children_cpu() -> f64 {
    // SAFETY: rusage is plain integers, for which all zeroes is a value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes the struct it is given and reads nothing else.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

#[cfg(not(unix))]
fn children_cpu() -> f64 {
    f64::NAN
}

/// Median wall and CPU milliseconds of `mobilectl ARGS`.
fn time(args: &[&str]) -> (f64, f64) {
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let before = children_cpu();
        let t = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_mobilectl"))
            .args(args)
            .stdout(Stdio::null())
            .status()
            .expect("mobilectl starts");
        wall.push(t.elapsed().as_secs_f64() * 1000.0);
        cpu.push((children_cpu() - before) * 1000.0);
        assert!(status.success(), "mobilectl {args:?}: {status}");
    }
    (median(wall), median(cpu))
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("cli_start: skipped (run with cargo bench)");
        return;
    }
    println!("| command | wall (median of {RUNS}) | CPU |");
    println!("|---|---|---|");
    for args in [&["--version"][..], &["call", "--help"]] {
        let (wall, cpu) = time(args);
        println!(
            "| `mobilectl {}` | {wall:.1} ms | {cpu:.1} ms |",
            args.join(" ")
        );
    }
}
