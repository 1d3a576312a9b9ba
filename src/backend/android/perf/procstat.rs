//! `/proc/<pid>/stat` and `/proc/<pid>/task/*/stat` lines: CPU ticks (utime + stime) of a
//! process and of each of its threads, and the thread count; the CPU share between two
//! readings. The name (comm) may hold spaces and parentheses, so fields are read after the
//! line's last `)`.

use std::time::Duration;

use crate::perf::{cpu_percent, round2, CpuReading};

/// Clock ticks a second on Android (`sysconf(_SC_CLK_TCK)`), unless a device says otherwise.
pub const CLK_TCK: u32 = 100;

/// One `stat` line of a process or thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStat {
    /// Process or thread id.
    pub id: u32,
    /// Its name (comm), without the parentheses.
    pub name: String,
    /// Its state letter (`R`, `S`, `D`, …).
    pub state: char,
    /// Ticks in user mode.
    pub utime: u64,
    /// Ticks in kernel mode.
    pub stime: u64,
    /// The process's thread count (`num_threads`).
    pub threads: u32,
}

impl TaskStat {
    /// Ticks used in all: user + kernel.
    pub fn ticks(&self) -> u64 {
        self.utime + self.stime
    }
}

/// Reads one `stat` line; `None` when it is not one.
pub fn parse_stat_line(line: &str) -> Option<TaskStat> {
    let (head, rest) = line.trim().rsplit_once(')')?;
    let (id, name) = head.split_once(" (")?;
    // After the name: state (field 3), …, utime (14), stime (15), …, num_threads (20).
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    Some(TaskStat {
        id: id.trim().parse().ok()?,
        name: name.to_string(),
        state,
        utime: fields.get(11)?.parse().ok()?,
        stime: fields.get(12)?.parse().ok()?,
        threads: fields.get(17)?.parse().ok()?,
    })
}

/// Reads every `stat` line of `text` (`cat /proc/PID/task/*/stat`), leaving out others.
pub fn parse_task_stats(text: &str) -> Vec<TaskStat> {
    text.lines().filter_map(parse_stat_line).collect()
}

/// CPU of a process between two readings `elapsed` apart, in percent of one core. `None`
/// when the two are not the same process (it restarted) or the window is empty.
pub fn process_cpu(
    before: &TaskStat,
    after: &TaskStat,
    elapsed: Duration,
    clk_tck: u32,
) -> Option<CpuReading> {
    if before.id != after.id || after.ticks() < before.ticks() {
        return None;
    }
    let percent = cpu_percent(
        after.ticks() - before.ticks(),
        elapsed.as_secs_f64(),
        clk_tck,
    )?;
    Some(CpuReading {
        percent: round2(percent),
        window_ms: elapsed.as_millis() as u64,
    })
}

/// The CPU of each thread present in both readings, in percent of one core, busiest first.
pub fn thread_cpu(
    before: &[TaskStat],
    after: &[TaskStat],
    elapsed: Duration,
    clk_tck: u32,
) -> Vec<(u32, String, f64)> {
    let mut out: Vec<(u32, String, f64)> = after
        .iter()
        .filter_map(|a| {
            let b = before.iter().find(|b| b.id == a.id)?;
            let ticks = a.ticks().checked_sub(b.ticks())?;
            let p = cpu_percent(ticks, elapsed.as_secs_f64(), clk_tck)?;
            Some((a.id, a.name.clone(), round2(p)))
        })
        .collect();
    out.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::android::perf::fixture;

    const SAMPLE: &str = "android_perf/proc_pid_task_stat_rn_app_sample1_flashlight.txt";

    #[test]
    fn task_stats_of_a_react_native_app() {
        let tasks = parse_task_stats(&fixture(SAMPLE));
        assert_eq!(tasks.len(), 42);
        let main = &tasks[0];
        assert_eq!(
            (main.id, main.name.as_str(), main.state),
            (21455, "com.example", 'S')
        );
        assert_eq!((main.utime, main.stime, main.threads), (3089, 1079, 42));
        let js = tasks.iter().find(|t| t.name == "mqt_js").unwrap();
        assert_eq!((js.id, js.ticks()), (21637, 903 + 98));
        // Names with spaces and slashes.
        let jit = tasks.iter().find(|t| t.id == 21463).unwrap();
        assert_eq!((jit.name.as_str(), jit.ticks()), ("Jit thread pool", 249));
        assert!(tasks.iter().any(|t| t.name == "alhost:8097/..."));
        assert!(tasks.iter().all(|t| t.threads == 42));
    }

    #[test]
    fn names_with_parentheses_read_from_the_last_one() {
        let t = parse_stat_line("77 (a) b (c)) R 1 1 0 0 -1 0 0 0 0 0 12 34 0 0 20 0 5 0").unwrap();
        assert_eq!(
            (t.name.as_str(), t.state, t.utime, t.stime, t.threads),
            ("a) b (c)", 'R', 12, 34, 5)
        );
        for bad in [
            "",
            "garbage",
            "12 (x) S 1 2",
            "x (y) S 1 1 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 5 0",
        ] {
            assert_eq!(parse_stat_line(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn cpu_between_two_readings() {
        let before = parse_task_stats(&fixture(SAMPLE));
        // The same threads 2 s later, the JS thread 150 ticks and RenderThread 50 ticks busier.
        let after: Vec<TaskStat> = before
            .iter()
            .map(|t| match t.name.as_str() {
                "mqt_js" => TaskStat {
                    utime: t.utime + 150,
                    ..t.clone()
                },
                "RenderThread" => TaskStat {
                    stime: t.stime + 50,
                    ..t.clone()
                },
                _ => t.clone(),
            })
            .collect();
        let two = Duration::from_secs(2);
        let threads = thread_cpu(&before, &after, two, CLK_TCK);
        assert_eq!(threads[0], (21637, "mqt_js".to_string(), 75.0));
        assert_eq!(threads[1], (21598, "RenderThread".to_string(), 25.0));
        assert_eq!(threads[2].2, 0.0);
        let main_after = TaskStat {
            utime: before[0].utime + 200,
            ..before[0].clone()
        };
        let cpu = process_cpu(&before[0], &main_after, two, CLK_TCK).unwrap();
        assert_eq!((cpu.percent, cpu.window_ms), (100.0, 2000));
        // Another process under the same name, or fewer ticks: no reading.
        let other = TaskStat {
            id: 1,
            ..main_after.clone()
        };
        assert_eq!(process_cpu(&before[0], &other, two, CLK_TCK), None);
        assert_eq!(process_cpu(&main_after, &before[0], two, CLK_TCK), None);
        assert_eq!(
            process_cpu(&before[0], &main_after, Duration::ZERO, CLK_TCK),
            None
        );
    }
}
