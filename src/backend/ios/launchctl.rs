//! A Simulator's jobs as its launchd lists them (`xcrun simctl spawn UDID launchctl list`), read
//! as pure functions over the text: rows of `PID Status Label` (tab-separated under a header),
//! `-` for a job loaded but not running, and an app's job labelled
//! `UIKitApplication:BUNDLE_ID[instance][role]`. The pid is the app's process on the Mac: a
//! Simulator's processes are the host's.

/// The prefix of an app's job label.
pub const APP_LABEL_PREFIX: &str = "UIKitApplication:";

/// One row of `launchctl list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job<'a> {
    /// Its process, when it runs (`-` in the listing: loaded, not running).
    pub pid: Option<u32>,
    /// Its label.
    pub label: &'a str,
}

impl<'a> Job<'a> {
    /// The bundle id of an app's job (`UIKitApplication:com.example.app[1a2b][rb-legacy]` →
    /// `com.example.app`); `None` for any other job.
    pub fn app(&self) -> Option<&'a str> {
        let rest = self.label.strip_prefix(APP_LABEL_PREFIX)?;
        let id = rest.split('[').next().unwrap_or(rest);
        (!id.is_empty()).then_some(id)
    }
}

/// The rows of a `launchctl list` output, in order: lines of a pid (or `-`), a status and a
/// label, separated by tabs (or spaces). The header and any line of another shape are left out.
pub fn parse_jobs(text: &str) -> Vec<Job<'_>> {
    text.lines().filter_map(parse_row).collect()
}

fn parse_row(line: &str) -> Option<Job<'_>> {
    let line = line.trim();
    let (pid, rest) = line.split_once(char::is_whitespace)?;
    let (status, label) = rest.trim_start().split_once(char::is_whitespace)?;
    let label = label.trim();
    let status_ok = status == "-" || status.parse::<i64>().is_ok();
    if !status_ok || label.is_empty() {
        return None;
    }
    let pid = match pid {
        "-" => None,
        p => Some(p.parse::<u32>().ok().filter(|&p| p > 0)?),
    };
    Some(Job { pid, label })
}

/// The process of the app `bundle_id` among `jobs`: the first of its jobs with a pid (bundle
/// ids compared without case, as iOS does). `None` when it is not running.
pub fn app_pid(jobs: &[Job<'_>], bundle_id: &str) -> Option<u32> {
    jobs.iter()
        .filter(|j| j.app().is_some_and(|id| id.eq_ignore_ascii_case(bundle_id)))
        .find_map(|j| j.pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded() -> String {
        let path = format!(
            "{}/fixtures/ios_simctl/simctl_spawn_launchctl_list_mobilesafari_xcode11.4.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn a_recorded_listing_reads_as_jobs_and_finds_the_running_app() {
        let text = recorded();
        let jobs = parse_jobs(&text);
        // Every line but the header is a job.
        assert_eq!(jobs.len(), text.lines().count() - 1);
        assert_eq!(
            jobs[0],
            Job {
                pid: None,
                label: "com.apple.progressd"
            }
        );
        assert_eq!(jobs[1].pid, Some(22109));
        let apps: Vec<&str> = jobs.iter().filter_map(Job::app).collect();
        assert_eq!(apps, ["com.apple.mobilesafari"]);
        assert_eq!(app_pid(&jobs, "com.apple.mobilesafari"), Some(22076));
        assert_eq!(app_pid(&jobs, "com.apple.MobileSafari"), Some(22076));
        // A daemon's label is no app, a prefix of the bundle id is another app.
        assert_eq!(app_pid(&jobs, "com.apple.homed"), None);
        assert_eq!(app_pid(&jobs, "com.apple.mobile"), None);
        assert_eq!(app_pid(&jobs, "com.example.absent"), None);
    }

    #[test]
    fn an_app_loaded_but_not_running_has_no_pid() {
        let text = "PID\tStatus\tLabel\n\
                    -\t0\tUIKitApplication:com.example.app[77aa][rb-legacy]\n\
                    9120\t-9\tUIKitApplication:com.example.other[0c3d][rb-legacy]\n";
        let jobs = parse_jobs(text);
        assert_eq!(jobs.len(), 2);
        assert_eq!(app_pid(&jobs, "com.example.app"), None);
        assert_eq!(app_pid(&jobs, "com.example.other"), Some(9120));
    }

    #[test]
    fn rows_of_other_shapes_are_left_out() {
        let text = "PID Status Label\n\
                    0\t0\tUIKitApplication:com.example.zero[1]\n\
                    12 0 UIKitApplication:com.example.spaces[0x1a2b]\n\
                    x\t0\tcom.example.bad-pid\n\
                    13\tok\tcom.example.bad-status\n\
                    14\t0\n\
                    \n";
        // Pid 0 is no process; the header, a bad pid or status and a row without a label are
        // no jobs.
        let jobs = parse_jobs(text);
        assert_eq!(
            jobs,
            [Job {
                pid: Some(12),
                label: "UIKitApplication:com.example.spaces[0x1a2b]"
            }]
        );
        assert_eq!(app_pid(&jobs, "com.example.spaces"), Some(12));
        assert!(parse_jobs("").is_empty());
        assert_eq!(
            Job {
                pid: Some(1),
                label: "UIKitApplication:[1]"
            }
            .app(),
            None
        );
    }
}
