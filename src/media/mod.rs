//! Video files the product makes: reading an MP4's facts (duration, frame size, frames) and
//! joining the MP4 segments of one recording into one file, without re-encoding
//! ([`mp4`]). Screen recordings come back from devices as MP4 (Android's `screenrecord`, the
//! Simulator's `recordVideo`); this is what the host does with them.

mod mp4;

pub use mp4::{concat, probe, VideoInfo};
