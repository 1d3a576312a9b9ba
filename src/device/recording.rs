//! Screen recording as the backends see it: the options a recording starts with
//! ([`RecordingOptions`], checked before anything reaches a device) and the running recorder
//! a backend hands back ([`ScreenRecorder`]), which the controller stops once — on request,
//! at its time limit, when its session ends or when the server shuts down.

use async_trait::async_trait;

use crate::error::{Error, Result};

/// Default longest recording, seconds.
pub const DEFAULT_MAX_S: u32 = 300;
/// The most `max_s` may be, seconds.
pub const MAX_MAX_S: u32 = 1800;

/// How a recording is made.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordingOptions {
    /// Frame size in pixels (`WIDTHxHEIGHT`, both even); `None`: the screen's.
    pub size: Option<(u32, u32)>,
    /// Frame size as a share of the screen's (0.1..=1), when `size` is not given.
    pub scale: Option<f64>,
    /// Encoder bit rate, bits per second.
    pub bit_rate: Option<u64>,
}

impl RecordingOptions {
    /// Checks the options' ranges (what a platform supports is its backend's to say).
    pub fn check(&self) -> Result<()> {
        if self.size.is_some() && self.scale.is_some() {
            return Err(Error::validation("give `size` or `scale`, not both"));
        }
        if let Some((w, h)) = self.size {
            if !(16..=4096).contains(&w) || !(16..=4096).contains(&h) || w % 2 == 1 || h % 2 == 1 {
                return Err(Error::validation(format!(
                    "`size` {w}x{h}: width and height must be even, 16 to 4096"
                ))
                .with_hint("e.g. \"size\": \"540x1200\", or \"scale\": 0.5"));
            }
        }
        if let Some(s) = self.scale {
            if !(0.1..=1.0).contains(&s) {
                return Err(Error::validation(format!("`scale` {s} is outside 0.1..=1")));
            }
        }
        if let Some(b) = self.bit_rate {
            if !(100_000..=100_000_000).contains(&b) {
                return Err(Error::validation(format!(
                    "`bit_rate` {b} is outside 100000..=100000000 bits per second"
                )));
            }
        }
        Ok(())
    }

    /// The frame size for a screen of `screen` pixels: `size`, else the screen scaled by
    /// `scale` and rounded down to even numbers.
    pub fn frame_size(&self, screen: (u32, u32)) -> Option<(u32, u32)> {
        if let Some(size) = self.size {
            return Some(size);
        }
        let s = self.scale?;
        let even = |v: u32| ((f64::from(v) * s) as u32 / 2 * 2).max(16);
        Some((even(screen.0), even(screen.1)))
    }
}

/// Parses `WIDTHxHEIGHT`.
pub fn parse_size(text: &str) -> Result<(u32, u32)> {
    text.trim()
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)))
        .ok_or_else(|| {
            Error::validation(format!("`size` \"{text}\" is not WIDTHxHEIGHT"))
                .with_hint("e.g. \"540x1200\"")
        })
}

/// A recording a backend started. Its file is complete only after [`ScreenRecorder::finish`].
#[async_trait]
pub trait ScreenRecorder: Send + Sync {
    /// Stops the recording if it still runs and finalises the MP4 at the destination it was
    /// started with (joining segments where the platform records in several).
    async fn finish(self: Box<Self>) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked_before_any_device_sees_them() {
        assert!(RecordingOptions::default().check().is_ok());
        let ok = RecordingOptions {
            size: Some((540, 1200)),
            bit_rate: Some(4_000_000),
            ..Default::default()
        };
        assert!(ok.check().is_ok());
        for bad in [
            RecordingOptions {
                size: Some((541, 1200)),
                ..Default::default()
            },
            RecordingOptions {
                size: Some((8, 8)),
                ..Default::default()
            },
            RecordingOptions {
                scale: Some(0.0),
                ..Default::default()
            },
            RecordingOptions {
                scale: Some(1.5),
                ..Default::default()
            },
            RecordingOptions {
                bit_rate: Some(10),
                ..Default::default()
            },
            RecordingOptions {
                size: Some((540, 1200)),
                scale: Some(0.5),
                ..Default::default()
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn scale_gives_even_frame_sizes() {
        let half = RecordingOptions {
            scale: Some(0.5),
            ..Default::default()
        };
        assert_eq!(half.frame_size((1080, 2400)), Some((540, 1200)));
        let third = RecordingOptions {
            scale: Some(0.333),
            ..Default::default()
        };
        assert_eq!(third.frame_size((1080, 2400)), Some((358, 798)));
        assert_eq!(RecordingOptions::default().frame_size((1080, 2400)), None);
        assert_eq!(parse_size("540x1200").unwrap(), (540, 1200));
        assert!(parse_size("540").is_err());
    }
}
