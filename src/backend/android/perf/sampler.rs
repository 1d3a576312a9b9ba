//! The Android backend's [`Perf`]: one sample of an app is one `adb shell` running
//! [`sample_script`], read by [`read_sample`] into the platform-free [`PerfSample`].

use std::time::Duration;

use async_trait::async_trait;

use super::procstat::CLK_TCK;
use super::sample::{read_sample, sample_script, Sample};
use crate::backend::android::AdbBackend;
use crate::backend::Perf;
use crate::device::Device;
use crate::error::Result;
use crate::perf::{MeasuredOn, PerfSample, SampleAsk};

/// Time limit of one sample (`dumpsys meminfo` of a large app takes a second or two).
const SAMPLE_TIMEOUT: Duration = Duration::from_secs(20);

/// A frame's budget at 60 Hz, ms: frames computed here from timestamps count as janky over it.
const FRAME_BUDGET_MS: f64 = 1000.0 / 60.0;

#[async_trait]
impl Perf for AdbBackend {
    async fn perf_sample(&self, device: &Device, app: &str, ask: SampleAsk) -> Result<PerfSample> {
        let script = sample_script(app, ask)?;
        let out = self
            .shell_any(&device.udid, &script, SAMPLE_TIMEOUT)
            .await?;
        read_sample(&out.stdout_text(), app).map(platform_free)
    }
}

/// A sample read from the device, in platform-free terms: CPU time from the process's ticks,
/// the device's uptime as its clock, frames from the best stats gfxinfo printed.
pub fn platform_free(sample: Sample) -> PerfSample {
    PerfSample {
        pid: sample.pid,
        clock_s: sample.uptime_s,
        cpu_time_s: sample
            .process
            .as_ref()
            .map(|p| p.ticks() as f64 / f64::from(CLK_TCK)),
        threads: sample.threads,
        memory: sample.memory,
        frames: sample.gfxinfo.as_ref().and_then(|g| {
            let mut stats = g.frame_stats(FRAME_BUDGET_MS)?;
            stats.longest_ms = g
                .frames
                .iter()
                .map(|f| crate::perf::round2(f.duration_ms()))
                .max_by(f64::total_cmp);
            Some(stats)
        }),
        measured_on: MeasuredOn::Device,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::android::perf::fixture;

    #[test]
    fn a_recorded_sample_reads_as_cpu_time_memory_and_frames() {
        let tasks = fixture("android_perf/proc_pid_task_stat_rn_app_sample1_flashlight.txt");
        let meminfo = fixture("android_perf/meminfo_android4.4_droidmonitor.txt");
        let gfxinfo = fixture("android_perf/gfxinfo_chrome_api23_janky_90th_droidmonitor.txt");
        let main = tasks.lines().next().unwrap();
        let pid = main.split_whitespace().next().unwrap();
        let m = |s: super::super::sample::Section| s.marker();
        use super::super::sample::Section::*;
        let out = format!(
            "{}\n{pid}\n{}\n5000.25 100.00\n{}\n{main}\n{}\n{tasks}\n{}\n{meminfo}\n{}\n{gfxinfo}\n__MOBILECTL_PERF_END__\n",
            m(Pid), m(Uptime), m(Stat), m(Tasks), m(Meminfo), m(Gfxinfo)
        );
        // The recordings name their apps as their committers left them.
        let s = platform_free(read_sample(&out, "com.android.chrome").unwrap());
        assert_eq!(s.pid.to_string(), pid);
        assert_eq!(s.clock_s, Some(5000.25));
        let stat = super::super::procstat::parse_stat_line(main).unwrap();
        assert_eq!(s.cpu_time_s, Some(stat.ticks() as f64 / 100.0));
        assert_eq!(s.threads, Some(tasks.lines().count() as u32));
        assert!(s.memory.and_then(|m| m.pss_total_kib).is_some());
        assert!(s.frames.is_some_and(|f| f.frames > 0));
        assert_eq!(s.measured_on, MeasuredOn::Device);
    }
}
