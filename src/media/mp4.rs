//! MP4 facts and segment joining, on the `mp4` crate.
//!
//! [`concat`] copies the H.264 samples of each segment, in order, into one video track,
//! shifting each segment's times by the duration of those before it (converted to the first
//! segment's timescale), so players and `ffprobe` see one recording. A segment whose encoder
//! reordered frames less than the one before (no B-frames) is placed later by the difference,
//! so no frame shows at a time another already has. Segments of one device
//! normally share their parameter sets (SPS/PPS); a segment whose sets differ gets them
//! in-band, in front of its first sample, which decoders accept. Only the first video track
//! is kept (screen recordings have no audio).

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;

use mp4::{
    AvcConfig, Bytes, MediaConfig, MediaType, Mp4Config, Mp4Reader, Mp4Sample, Mp4Writer,
    TrackConfig, TrackType,
};

use crate::error::{Error, ErrorCode, Result};

/// What a video file holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VideoInfo {
    /// Seconds, from the video track's samples.
    pub duration_s: f64,
    /// Frame width in pixels.
    pub width: u32,
    /// Frame height in pixels.
    pub height: u32,
    /// Frames (samples) in the video track.
    pub frames: u32,
}

fn unreadable(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::CommandFailed,
        format!("`{}` is not a readable MP4: {why}", path.display()),
    )
    .with_hint("the recorder may have been killed before it finalised the file")
}

fn open(path: &Path) -> Result<Mp4Reader<BufReader<File>>> {
    let file = File::open(path).map_err(|e| unreadable(path, e))?;
    let size = file.metadata().map_err(|e| unreadable(path, e))?.len();
    Mp4Reader::read_header(BufReader::new(file), size).map_err(|e| unreadable(path, e))
}

/// The first H.264 video track's id.
fn video_track(r: &Mp4Reader<BufReader<File>>, path: &Path) -> Result<u32> {
    let mut ids: Vec<u32> = r
        .tracks()
        .iter()
        .filter(|(_, t)| matches!(t.track_type(), Ok(TrackType::Video)))
        .map(|(id, _)| *id)
        .collect();
    ids.sort_unstable();
    ids.first()
        .copied()
        .ok_or_else(|| unreadable(path, "no video track"))
}

/// Duration, frame size and frame count of an MP4's video track.
pub fn probe(path: &Path) -> Result<VideoInfo> {
    let r = open(path)?;
    let id = video_track(&r, path)?;
    let t = &r.tracks()[&id];
    Ok(VideoInfo {
        duration_s: t.duration().as_secs_f64(),
        width: u32::from(t.width()),
        height: u32::from(t.height()),
        frames: t.sample_count(),
    })
}

/// Joins `segments` (in order) into one MP4 at `out`; answers its facts. Each segment comes
/// with the second it started at on the recording's clock (the first at 0), when known: a
/// gap between one segment's end and the next one's start is filled by showing the earlier
/// segment's last frame for longer, so the file's timeline stays the wall clock's. Without
/// start times, segments follow each other. One segment is copied as it is.
pub fn concat<P: AsRef<Path>>(segments: &[(P, Option<f64>)], out: &Path) -> Result<VideoInfo> {
    let Some(first) = segments.first().map(|(p, _)| p.as_ref()) else {
        return Err(Error::internal("no segment to join"));
    };
    if segments.len() == 1 {
        std::fs::copy(first, out)
            .map_err(|e| Error::internal(format!("copying a segment: {e}")))?;
        return probe(out);
    }
    let written = (|| -> std::result::Result<(), JoinError> {
        let mut writer: Option<(Mp4Writer<BufWriter<File>>, u32, AvcConfig)> = None;
        let mut offset: u64 = 0;
        // The end of the presentation written so far (the latest frame's time plus its
        // duration): a segment never shows a frame before it.
        let mut presented_end: u64 = 0;
        // The previous segment's last sample, written once the next start is known.
        let mut held: Option<Mp4Sample> = None;
        for (path, start_s) in segments.iter().map(|(p, s)| (p.as_ref(), *s)) {
            let mut r = open(path).map_err(JoinError::Ours)?;
            let id = video_track(&r, path).map_err(JoinError::Ours)?;
            let (scale, sps, pps, width, height, count) = {
                let t = &r.tracks()[&id];
                if !matches!(t.media_type(), Ok(MediaType::H264)) {
                    return Err(JoinError::Ours(unreadable(path, "the video is not H.264")));
                }
                (
                    t.timescale(),
                    t.sequence_parameter_set().map_err(JoinError::Mp4)?.to_vec(),
                    t.picture_parameter_set().map_err(JoinError::Mp4)?.to_vec(),
                    t.width(),
                    t.height(),
                    t.sample_count(),
                )
            };
            let (w, target_scale, config) = match &mut writer {
                Some((w, s, c)) => (w, *s, c.clone()),
                None => {
                    let file = File::create(out).map_err(|e| {
                        JoinError::Ours(Error::internal(format!("{}: {e}", out.display())))
                    })?;
                    let config = AvcConfig {
                        width,
                        height,
                        seq_param_set: sps.clone(),
                        pic_param_set: pps.clone(),
                    };
                    let mut w = Mp4Writer::write_start(
                        BufWriter::new(file),
                        &Mp4Config {
                            major_brand: "isom".parse().map_err(JoinError::Mp4)?,
                            minor_version: 512,
                            compatible_brands: ["isom", "iso2", "avc1", "mp41"]
                                .iter()
                                .map(|b| b.parse())
                                .collect::<std::result::Result<_, _>>()
                                .map_err(JoinError::Mp4)?,
                            timescale: 1000,
                        },
                    )
                    .map_err(JoinError::Mp4)?;
                    w.add_track(&TrackConfig {
                        track_type: TrackType::Video,
                        timescale: scale,
                        language: "und".into(),
                        media_conf: MediaConfig::AvcConfig(config.clone()),
                    })
                    .map_err(JoinError::Mp4)?;
                    let (w, s, c) = writer.insert((w, scale, config));
                    (w, *s, c.clone())
                }
            };
            let rescale = |t: u64| t * u64::from(target_scale) / u64::from(scale.max(1));
            // Where this segment starts: its start time, unless that is before the end of
            // what was written (clocks disagree by a few ms); and never so early that its
            // first frame shows before the last one written. Segments may differ in the
            // encoder's frame reordering (a short one may have no B-frames), so a frame's
            // time is its decode time plus its own delay, which differs between segments.
            let mut at = start_s
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map_or(0, |start| (start * f64::from(target_scale)) as u64);
            let shown_first = earliest_presentation(&mut r, id, count)
                .map_err(JoinError::Mp4)?
                .map_or(0, rescale);
            at = at.max(presented_end.saturating_sub(shown_first));
            if at > offset {
                if let Some(last) = held.as_mut() {
                    last.duration += (at - offset) as u32;
                }
                offset = at;
            }
            if let Some(last) = held.take() {
                w.write_sample(1, &last).map_err(JoinError::Mp4)?;
            }
            let in_band = (sps != config.seq_param_set || pps != config.pic_param_set)
                .then(|| parameter_sets(&sps, &pps));
            let mut end = 0u64;
            for n in 1..=count {
                let Some(s) = r.read_sample(id, n).map_err(JoinError::Mp4)? else {
                    continue;
                };
                let bytes = match (&in_band, n) {
                    (Some(sets), 1) => {
                        let mut b = sets.clone();
                        b.extend_from_slice(&s.bytes);
                        Bytes::from(b)
                    }
                    _ => s.bytes,
                };
                let start = rescale(s.start_time);
                let duration = rescale(u64::from(s.duration)) as u32;
                end = end.max(start + u64::from(duration));
                let rendering_offset = rescale(s.rendering_offset.max(0) as u64);
                presented_end =
                    presented_end.max(offset + start + rendering_offset + u64::from(duration));
                let sample = Mp4Sample {
                    start_time: offset + start,
                    duration,
                    rendering_offset: rendering_offset as i32,
                    is_sync: s.is_sync,
                    bytes,
                };
                if let Some(previous) = held.replace(sample) {
                    w.write_sample(1, &previous).map_err(JoinError::Mp4)?;
                }
            }
            offset += end;
        }
        if let (Some((w, _, _)), Some(last)) = (writer.as_mut(), held.take()) {
            w.write_sample(1, &last).map_err(JoinError::Mp4)?;
        }
        if let Some((mut w, _, _)) = writer {
            w.write_end().map_err(JoinError::Mp4)?;
            use std::io::Write;
            w.into_writer()
                .flush()
                .map_err(|e| JoinError::Ours(Error::internal(format!("{}: {e}", out.display()))))?;
        }
        Ok(())
    })();
    match written {
        Ok(()) => probe(out),
        Err(JoinError::Ours(e)) => Err(e),
        Err(JoinError::Mp4(e)) => Err(Error::internal(format!(
            "joining the recording's segments: {e}"
        ))),
    }
}

/// How many samples in decode order can hold a segment's first frame in presentation order:
/// far more than an encoder reorders (x264's deepest B-pyramid delays by a few frames).
const REORDER_WINDOW: u32 = 32;

/// The earliest presentation time (decode time plus composition offset) among the first
/// samples of track `id`, in its timescale; `None` for a track without samples.
fn earliest_presentation(
    r: &mut Mp4Reader<BufReader<File>>,
    id: u32,
    count: u32,
) -> std::result::Result<Option<u64>, mp4::Error> {
    let mut earliest: Option<u64> = None;
    for n in 1..=count.min(REORDER_WINDOW) {
        if let Some(s) = r.read_sample(id, n)? {
            let shown = s.start_time + s.rendering_offset.max(0) as u64;
            earliest = Some(earliest.map_or(shown, |e| e.min(shown)));
        }
    }
    Ok(earliest)
}

enum JoinError {
    Ours(Error),
    Mp4(mp4::Error),
}

/// SPS and PPS as length-prefixed NAL units, as an MP4 sample carries them.
fn parameter_sets(sps: &[u8], pps: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + sps.len() + pps.len());
    for nal in [sps, pps] {
        out.extend_from_slice(&(nal.len() as u32).to_be_bytes());
        out.extend_from_slice(nal);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::media::{decodes_cleanly, ffprobe_duration};

    /// An H.264 MP4 of `seconds` made by Debian's ffmpeg (the test command installs it).
    fn clip(dir: &Path, name: &str, seconds: f64, size: &str) -> std::path::PathBuf {
        clip_with(dir, name, seconds, size, &[])
    }

    /// [`clip`] with more encoder options (`-bf 0`: no B-frames, so no reordering delay).
    fn clip_with(
        dir: &Path,
        name: &str,
        seconds: f64,
        size: &str,
        options: &[&str],
    ) -> std::path::PathBuf {
        let out = dir.join(name);
        let status = std::process::Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
            .arg(format!("testsrc=size={size}:rate=10"))
            .args([
                "-t",
                &seconds.to_string(),
                "-c:v",
                "libx264",
                "-pix_fmt",
                "yuv420p",
                "-y",
            ])
            .args(options)
            .arg(&out)
            .status()
            .expect("ffmpeg (apt-get install ffmpeg)");
        assert!(status.success());
        out
    }

    #[test]
    fn probe_reads_duration_size_and_frames() {
        let dir = tempfile::tempdir().unwrap();
        let a = clip(dir.path(), "a.mp4", 2.0, "320x240");
        let info = probe(&a).unwrap();
        assert_eq!((info.width, info.height), (320, 240));
        assert_eq!(info.frames, 20);
        assert!((info.duration_s - 2.0).abs() < 0.05, "{info:?}");
    }

    #[test]
    fn segments_join_into_one_file_ffprobe_reads() {
        let dir = tempfile::tempdir().unwrap();
        let a = clip(dir.path(), "a.mp4", 2.0, "320x240");
        let b = clip(dir.path(), "b.mp4", 1.5, "320x240");
        let c = clip(dir.path(), "c.mp4", 1.0, "320x240");
        let out = dir.path().join("all.mp4");
        let info = concat(&[(&a, None), (&b, None), (&c, None)], &out).unwrap();
        assert_eq!(info.frames, 45);
        assert!((info.duration_s - 4.5).abs() < 0.05, "{info:?}");
        assert!((ffprobe_duration(&out) - 4.5).abs() < 0.1);
        // Every frame decodes.
        decodes_cleanly(&out);
    }

    #[test]
    fn segments_of_different_reordering_delays_decode_cleanly() {
        // One device's segments need not share the encoder's frame reordering: a short one
        // may have no B-frames. Their frames must still come out in order, none twice.
        let dir = tempfile::tempdir().unwrap();
        let reordered = clip(dir.path(), "a.mp4", 2.0, "320x240");
        let plain = clip_with(dir.path(), "b.mp4", 1.0, "320x240", &["-bf", "0"]);
        let out = dir.path().join("all.mp4");
        for order in [[&reordered, &plain], [&plain, &reordered]] {
            let info = concat(&[(order[0], None), (order[1], None)], &out).unwrap();
            assert_eq!(info.frames, 30);
            decodes_cleanly(&out);
            // 3 s, and at most the difference of the reordering delays (two frames) more.
            let d = ffprobe_duration(&out);
            assert!((2.95..=3.25).contains(&d), "{d}");
        }
    }

    #[test]
    fn gaps_between_segments_keep_the_wall_clocks_timeline() {
        let dir = tempfile::tempdir().unwrap();
        let a = clip(dir.path(), "a.mp4", 2.0, "320x240");
        let b = clip(dir.path(), "b.mp4", 2.0, "320x240");
        let out = dir.path().join("all.mp4");
        // The second segment started 0.5 s after the first ended.
        let info = concat(&[(&a, Some(0.0)), (&b, Some(2.5))], &out).unwrap();
        assert_eq!(info.frames, 40);
        assert!((info.duration_s - 4.5).abs() < 0.05, "{info:?}");
        assert!((ffprobe_duration(&out) - 4.5).abs() < 0.1);
        // A start time before the end of what came first does not overlap it.
        let info = concat(&[(&a, Some(0.0)), (&b, Some(1.0))], &out).unwrap();
        assert!((info.duration_s - 4.0).abs() < 0.05, "{info:?}");
    }

    #[test]
    fn a_truncated_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let a = clip(dir.path(), "a.mp4", 1.0, "160x120");
        let bytes = std::fs::read(&a).unwrap();
        let cut = dir.path().join("cut.mp4");
        std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
        let e = probe(&cut).unwrap_err();
        assert_eq!(e.code, ErrorCode::CommandFailed);
        assert!(e.message.contains("not a readable MP4"), "{}", e.message);
    }
}
