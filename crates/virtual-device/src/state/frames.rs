//! The app's frames as Android's renderer (hwui) keeps them: each frame's timestamps (the 23
//! `framestats` columns of Android 12+), the last 120 of them, and the counters `dumpsys
//! gfxinfo` summarises since the last reset — frames, janky frames (the frame's GPU work done
//! after its deadline), legacy janky frames (longer than a vsync interval), the slow-frame
//! reasons of janky frames, and the frame-time and GPU histograms with Android's buckets (1 ms
//! up to 32 ms, 2 ms to 48, 4 ms to 133, then 50 ms steps from 150 to 4950).
//!
//! Frames are laid on the 60 Hz vsync grid of the device clock, one after the other: a frame
//! asked for at `now` starts at the first vsync not before `now` nor before the vsync after
//! the previous frame ended.

use std::collections::VecDeque;

/// The vsync interval at 60 Hz, ns, as Android prints it (`FrameInterval`).
pub const INTERVAL_NS: u64 = 16_666_666;
/// How many frames `framestats` keeps.
const RECENT: usize = 120;
const MS: u64 = 1_000_000;

/// The frame-time buckets: 57 up to 133 ms, then 97 slow ones of 50 ms from 150 ms.
const BUCKETS: usize = 57;
const SLOW_BUCKETS: usize = 97;
const GPU_BUCKETS: usize = 26;

/// The slow-frame reasons, in the order Android prints them (`Number …:`).
pub const JANK_TYPES: [&str; 7] = [
    "Missed Vsync",
    "High input latency",
    "Slow UI thread",
    "Slow bitmap uploads",
    "Slow issue draw commands",
    "Frame deadline missed",
    "Frame deadline missed (legacy)",
];
const MISSED_VSYNC: usize = 0;
const HIGH_INPUT_LATENCY: usize = 1;
const SLOW_UI: usize = 2;
const SLOW_UPLOADS: usize = 3;
const SLOW_DRAW: usize = 4;
const DEADLINE: usize = 5;
const DEADLINE_LEGACY: usize = 6;

/// What one frame costs: main-thread time (input, animation, layout, draw), upload time,
/// RenderThread time, GPU time, how late the main thread started it, and its flags (1: the
/// window's layout changed, as on a window's first frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameCost {
    pub ui_ns: u64,
    pub sync_ns: u64,
    pub render_ns: u64,
    pub gpu_ns: u64,
    pub late_ns: u64,
    pub flags: u64,
    /// Whether the frame answers an input event.
    pub input: bool,
}

impl FrameCost {
    /// A frame whose main thread takes `ui_ms` and RenderThread `render_ms` (hundredths of a
    /// millisecond, to stay in integers).
    pub fn of(ui_cms: u64, render_cms: u64) -> FrameCost {
        FrameCost {
            ui_ns: ui_cms * MS / 100,
            sync_ns: 250_000,
            render_ns: render_cms * MS / 100,
            gpu_ns: 1_800_000 + render_cms * MS / 400,
            late_ns: 0,
            flags: 0,
            input: false,
        }
    }
}

/// One drawn frame: the `framestats` columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub columns: [u64; 23],
}

/// The `framestats` header (Android 12+), without the trailing comma.
pub const COLUMNS: [&str; 23] = [
    "Flags",
    "FrameTimelineVsyncId",
    "IntendedVsync",
    "Vsync",
    "InputEventId",
    "HandleInputStart",
    "AnimationStart",
    "PerformTraversalsStart",
    "DrawStart",
    "FrameDeadline",
    "FrameInterval",
    "FrameStartTime",
    "SyncQueued",
    "SyncStart",
    "IssueDrawCommandsStart",
    "SwapBuffers",
    "FrameCompleted",
    "DequeueBufferDuration",
    "QueueBufferDuration",
    "GpuCompleted",
    "SwapBuffersCompleted",
    "DisplayPresentTime",
    "CommandSubmissionCompleted",
];

impl Frame {
    fn at(&self, name: &str) -> u64 {
        COLUMNS
            .iter()
            .position(|c| *c == name)
            .map_or(0, |i| self.columns[i])
    }

    /// From the intended vsync to the frame's completion, ns.
    pub fn duration_ns(&self) -> u64 {
        self.at("FrameCompleted") - self.at("IntendedVsync")
    }

    /// The frame drawn from `intended` (a vsync) at `cost`.
    fn draw(intended: u64, cost: &FrameCost, vsync_id: u64, input_id: u64) -> Frame {
        let vsync = intended + cost.late_ns;
        let input_start = vsync + 120_000;
        let animation = input_start + cost.ui_ns * 8 / 100;
        let traversals = animation + cost.ui_ns * 7 / 100;
        let draw = traversals + cost.ui_ns * 35 / 100;
        let queued = draw + cost.ui_ns * 50 / 100;
        let sync = queued + 60_000;
        let issue = sync + cost.sync_ns;
        let completed = issue + cost.render_ns.max(400_000);
        let swap = completed - 300_000;
        Frame {
            columns: [
                cost.flags,
                vsync_id,
                intended,
                vsync,
                if cost.input { input_id } else { 0 },
                input_start,
                animation,
                traversals,
                draw,
                intended + INTERVAL_NS,
                INTERVAL_NS,
                vsync,
                queued,
                sync,
                issue,
                swap,
                completed,
                38_000,
                84_000,
                swap + cost.gpu_ns,
                swap + 150_000,
                0,
                swap + 90_000,
            ],
        }
    }
}

/// The frames since the last reset, and the last 120 drawn.
#[derive(Debug, Clone)]
pub struct Frames {
    /// When the counters started (process start or the last reset), device clock ns.
    pub since_ns: u64,
    pub total: u32,
    pub janky: u32,
    pub janky_legacy: u32,
    counts: [u32; BUCKETS],
    slow: [u32; SLOW_BUCKETS],
    gpu: [u32; GPU_BUCKETS],
    pub jank_types: [u32; 7],
    swap_deadline: u64,
    recent: VecDeque<Frame>,
    next_vsync: u64,
    next_id: u64,
}

impl Frames {
    pub fn new(now_ns: u64) -> Frames {
        Frames {
            since_ns: now_ns,
            total: 0,
            janky: 0,
            janky_legacy: 0,
            counts: [0; BUCKETS],
            slow: [0; SLOW_BUCKETS],
            gpu: [0; GPU_BUCKETS],
            jank_types: [0; 7],
            swap_deadline: 0,
            recent: VecDeque::new(),
            next_vsync: 0,
            next_id: 1_000,
        }
    }

    /// Draws frames of the given costs from `now_ns` on, one per vsync (a long frame takes
    /// the vsyncs it overran). Returns the RenderThread time they took, ns.
    pub fn draw(&mut self, now_ns: u64, costs: &[FrameCost]) -> u64 {
        let mut render = 0;
        for cost in costs {
            let intended = now_ns.max(self.next_vsync).div_ceil(INTERVAL_NS) * INTERVAL_NS;
            self.next_id += 1;
            let frame = Frame::draw(intended, cost, self.next_id, self.next_id * 7 + 3);
            let took = frame.duration_ns().max(1);
            self.next_vsync = intended + took.div_ceil(INTERVAL_NS) * INTERVAL_NS;
            render += cost.render_ns + cost.sync_ns;
            self.report(&frame);
            if self.recent.len() == RECENT {
                self.recent.pop_front();
            }
            self.recent.push_back(frame);
        }
        render
    }

    /// Counts a frame as hwui's jank tracker does.
    fn report(&mut self, f: &Frame) {
        let total = f.duration_ns();
        self.total += 1;
        let ms = (total / MS) as u32;
        match bucket(ms) {
            Some(i) => self.counts[i] += 1,
            None => {
                let i = (ms.saturating_sub(150) / 50) as usize;
                self.slow[i.min(SLOW_BUCKETS - 1)] += 1;
            }
        }
        let gpu_ms = (f.at("GpuCompleted") - f.at("SwapBuffers")) / MS;
        self.gpu[(gpu_ms as usize).min(GPU_BUCKETS - 1)] += 1;
        if total > INTERVAL_NS {
            self.janky_legacy += 1;
        }
        // The legacy deadline: a swap per vsync, from the first frame of a streak.
        let intended = f.at("IntendedVsync");
        let triple_buffered = self.swap_deadline > intended;
        self.swap_deadline = (self.swap_deadline + INTERVAL_NS).max(intended + INTERVAL_NS);
        if f.at("FrameCompleted") >= self.swap_deadline {
            self.jank_types[DEADLINE_LEGACY] += 1;
            let jitter = f.at("FrameCompleted") - f.at("Vsync");
            self.swap_deadline = f.at("FrameCompleted") - jitter % INTERVAL_NS + INTERVAL_NS;
        } else if triple_buffered {
            self.jank_types[HIGH_INPUT_LATENCY] += 1;
        }
        // Janky: the GPU finished after the frame's deadline; then why.
        if f.at("GpuCompleted") < f.at("FrameDeadline") {
            return;
        }
        self.janky += 1;
        self.jank_types[DEADLINE] += 1;
        let span = |a: &str, b: &str| f.at(b) - f.at(a);
        let reasons = [
            (MISSED_VSYNC, span("IntendedVsync", "Vsync"), 1),
            (SLOW_UI, span("Vsync", "SyncStart"), INTERVAL_NS / 2),
            (
                SLOW_UPLOADS,
                span("SyncStart", "IssueDrawCommandsStart"),
                INTERVAL_NS / 5,
            ),
            (
                SLOW_DRAW,
                span("IssueDrawCommandsStart", "FrameCompleted"),
                INTERVAL_NS * 3 / 4,
            ),
        ];
        for (kind, delta, threshold) in reasons {
            // Over 10 s it is an ANR, not a slow frame.
            if delta >= threshold && delta < 10_000 * MS {
                self.jank_types[kind] += 1;
            }
        }
    }

    /// Clears the counters and the recent frames (`dumpsys gfxinfo PKG reset`).
    pub fn reset(&mut self, now_ns: u64) {
        let (next_vsync, next_id) = (self.next_vsync, self.next_id);
        *self = Frames::new(now_ns);
        self.next_vsync = next_vsync;
        self.next_id = next_id;
    }

    /// The last frames drawn (at most 120), oldest first.
    pub fn recent(&self) -> impl Iterator<Item = &Frame> {
        self.recent.iter()
    }

    /// The frame time under which `percentile` % of the frames fall, ms (Android's buckets;
    /// without frames, as Android, the last one: 4950).
    pub fn percentile(&self, percentile: u32) -> u32 {
        let pos = percentile * self.total / 100;
        let mut remaining = i64::from(self.total - pos);
        for (i, n) in self.slow.iter().enumerate().rev() {
            remaining -= i64::from(*n);
            if remaining <= 0 {
                return 150 + 50 * i as u32;
            }
        }
        for (i, n) in self.counts.iter().enumerate().rev() {
            remaining -= i64::from(*n);
            if remaining <= 0 {
                return bucket_ms(i);
            }
        }
        0
    }

    /// The GPU time under which `percentile` % of the frames fall, ms.
    pub fn gpu_percentile(&self, percentile: u32) -> u32 {
        let total: u32 = self.gpu.iter().sum();
        let mut remaining = i64::from(total - percentile * total / 100);
        for (i, n) in self.gpu.iter().enumerate().rev() {
            remaining -= i64::from(*n);
            if remaining <= 0 {
                return gpu_bucket_ms(i);
            }
        }
        0
    }

    /// `(ms, frames)` of every frame-time bucket, as `HISTOGRAM:` lists them.
    pub fn histogram(&self) -> Vec<(u32, u32)> {
        let fast = self
            .counts
            .iter()
            .enumerate()
            .map(|(i, n)| (bucket_ms(i), *n));
        let slow = self
            .slow
            .iter()
            .enumerate()
            .map(|(i, n)| (150 + 50 * i as u32, *n));
        fast.chain(slow).collect()
    }

    /// `(ms, frames)` of every GPU bucket, as `GPU HISTOGRAM:` lists them.
    pub fn gpu_histogram(&self) -> Vec<(u32, u32)> {
        self.gpu
            .iter()
            .enumerate()
            .map(|(i, n)| (gpu_bucket_ms(i), *n))
            .collect()
    }
}

/// The fast bucket of a frame of `ms` (`None`: a slow one).
fn bucket(ms: u32) -> Option<usize> {
    if ms <= 5 {
        return Some(0);
    }
    let mut i = ms;
    if i > 48 {
        i = (i - 48) / 2 + 48;
    }
    if i > 32 {
        i = (i - 32) / 2 + 32;
    }
    let i = (i - 5) as usize;
    (i < BUCKETS && ms < 150).then_some(i)
}

/// The time a fast bucket stands for, ms.
fn bucket_ms(i: usize) -> u32 {
    let mut ms = i as u32 + 5;
    if ms > 32 {
        ms += ms - 32;
    }
    if ms > 48 {
        ms += ms - 48 + 1;
    }
    ms
}

fn gpu_bucket_ms(i: usize) -> u32 {
    if i == GPU_BUCKETS - 1 {
        4950
    } else {
        i as u32 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_androids() {
        let ms: Vec<u32> = (0..BUCKETS).map(bucket_ms).collect();
        assert_eq!(&ms[..4], &[5, 6, 7, 8]);
        assert_eq!(ms[27], 32);
        assert_eq!((ms[28], ms[29]), (34, 36));
        assert_eq!(ms[BUCKETS - 1], 133);
        // Every frame time lands in the bucket around it (Android labels its 4 ms buckets
        // near their middle), and the buckets only grow.
        for t in 5..134 {
            let b = bucket(t).unwrap();
            let label = bucket_ms(b) as i64;
            assert!(
                (i64::from(t) - label).abs() <= 4,
                "{t} ms in the {label} ms bucket"
            );
            assert!(bucket(t + 1).is_none_or(|n| n >= b));
        }
        assert_eq!(bucket(149), None);
        assert_eq!(bucket(4), Some(0));
    }

    #[test]
    fn frames_follow_the_vsync_grid_and_count_jank() {
        let mut f = Frames::new(5 * MS);
        let smooth = FrameCost::of(500, 300);
        let slow_ui = FrameCost::of(2_400, 400);
        f.draw(5 * MS, &[smooth, smooth, slow_ui, smooth]);
        let frames: Vec<&Frame> = f.recent().collect();
        assert_eq!(frames.len(), 4);
        let starts: Vec<u64> = frames.iter().map(|x| x.at("IntendedVsync")).collect();
        assert_eq!(starts[0], INTERVAL_NS, "the first vsync after now");
        assert_eq!(starts[1], 2 * INTERVAL_NS);
        // The slow frame overran a vsync: the next one starts two intervals later.
        assert_eq!(starts[3], starts[2] + 2 * INTERVAL_NS);
        assert_eq!((f.total, f.janky, f.janky_legacy), (4, 1, 1));
        assert_eq!(f.jank_types[SLOW_UI], 1);
        assert_eq!(f.jank_types[SLOW_DRAW], 0);
        assert!(f.percentile(50) <= 9, "{}", f.percentile(50));
        assert!(f.percentile(99) >= 26, "{}", f.percentile(99));
        assert_eq!(f.histogram().iter().map(|(_, n)| n).sum::<u32>(), 4);
        assert_eq!(f.histogram().len(), BUCKETS + SLOW_BUCKETS);
        // Columns in order, each timestamp at or after the one it follows.
        for fr in &frames {
            let c = &fr.columns;
            assert!(c[2] <= c[3] && c[3] <= c[5] && c[5] <= c[8] && c[8] <= c[12]);
            assert!(c[12] <= c[13] && c[13] <= c[14] && c[14] <= c[15] && c[15] <= c[16]);
        }
        f.reset(90 * MS);
        assert_eq!((f.total, f.recent().count(), f.since_ns), (0, 0, 90 * MS));
        // Without frames Android prints its no-data figure at every percentile.
        assert_eq!((f.percentile(50), f.gpu_percentile(99)), (4950, 4950));
        f.draw(0, &[smooth]);
        assert!(f.recent().next().unwrap().at("IntendedVsync") > starts[3]);
    }
}
