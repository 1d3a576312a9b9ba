//! A device's clock, as needed to read its log: Android's `threadtime` prints local wall time
//! without a year or zone (`06-17 16:23:18.481`), so the year and the UTC offset come from the
//! device (`date`), and its distance to the host's clock (`skew`) turns device times into host
//! times when an action's window is checked.

use super::entry::days_from_civil;

/// A wall time as a log prints it, the year maybe left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    /// The year; None when the log leaves it out (the device's clock supplies it).
    pub year: Option<i32>,
    /// Month, 1 to 12.
    pub month: u32,
    /// Day of the month, 1 to 31.
    pub day: u32,
    /// Hour, 0 to 23.
    pub hour: u32,
    /// Minute, 0 to 59.
    pub minute: u32,
    /// Second, 0 to 59 (60 on a leap second).
    pub second: u32,
    /// Millisecond, 0 to 999.
    pub milli: u32,
}

impl LocalTime {
    /// `MM-DD hh:mm:ss.mmm` without a year.
    pub fn md(month: u32, day: u32, hour: u32, minute: u32, second: u32, milli: u32) -> Self {
        LocalTime {
            year: None,
            month,
            day,
            hour,
            minute,
            second,
            milli,
        }
    }
}

/// What is known of a device's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceClock {
    /// The device's UTC offset, in seconds east.
    pub utc_offset_s: i32,
    /// The device's current year (local).
    pub year: i32,
    /// Device time when this was read (Unix ms).
    pub now_ms: i64,
    /// Device time − host time, in ms.
    pub skew_ms: i64,
}

impl DeviceClock {
    /// A clock in UTC at `now_ms`, no skew (parsing files; simulators share the host's clock).
    pub fn utc(now_ms: i64) -> DeviceClock {
        let year = chrono::DateTime::from_timestamp_millis(now_ms)
            .map_or(1970, |t| chrono::Datelike::year(&t));
        DeviceClock {
            utc_offset_s: 0,
            year,
            now_ms,
            skew_ms: 0,
        }
    }

    /// The host's clock now (its local offset).
    pub fn host() -> DeviceClock {
        let now = chrono::Local::now();
        DeviceClock {
            utc_offset_s: now.offset().local_minus_utc(),
            year: chrono::Datelike::year(&now),
            now_ms: now.timestamp_millis(),
            skew_ms: 0,
        }
    }

    /// Reads `date '+%Y %z %s.%N'` (toybox prints `%N` literally on some versions: then the
    /// seconds are used) against the host time it was read at.
    pub fn from_date_output(out: &str, host_now_ms: i64) -> Option<DeviceClock> {
        let mut it = out.split_whitespace();
        let year: i32 = it.next()?.parse().ok()?;
        let z = it.next()?;
        let (sign, hm) = match z.as_bytes().first()? {
            b'+' => (1, &z[1..]),
            b'-' => (-1, &z[1..]),
            _ => return None,
        };
        let hm = hm.replace(':', "");
        if hm.len() != 4 || !hm.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let offset =
            sign * (hm[..2].parse::<i32>().ok()? * 3600 + hm[2..].parse::<i32>().ok()? * 60);
        let epoch = it.next()?;
        let (secs, frac) = epoch.split_once('.').unwrap_or((epoch, ""));
        let secs: i64 = secs.parse().ok()?;
        let ms = if frac.len() >= 3 && frac.bytes().take(3).all(|b| b.is_ascii_digit()) {
            frac[..3].parse::<i64>().ok()?
        } else {
            0
        };
        let now_ms = secs * 1000 + ms;
        Some(DeviceClock {
            utc_offset_s: offset,
            year,
            now_ms,
            skew_ms: now_ms - host_now_ms,
        })
    }

    /// Unix ms of a local wall time in the device's zone. Without a year: the device's
    /// current year, or the one before when that would put the time in the future (a log read
    /// in January holds December's lines).
    pub fn to_unix_ms(&self, t: LocalTime) -> i64 {
        let at = |year: i32| {
            let days = days_from_civil(i64::from(year), t.month, t.day);
            let secs = i64::from(t.hour * 3600 + t.minute * 60 + t.second);
            (days * 86_400 + secs - i64::from(self.utc_offset_s)) * 1000 + i64::from(t.milli)
        };
        match t.year {
            Some(y) => at(y),
            None => {
                let this_year = at(self.year);
                if this_year > self.now_ms + 2 * 86_400_000 {
                    at(self.year - 1)
                } else {
                    this_year
                }
            }
        }
    }

    /// The host time of a device time.
    pub fn to_host_ms(&self, device_ms: i64) -> i64 {
        device_ms - self.skew_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_output() {
        let c =
            DeviceClock::from_date_output("2025 +0200 1750000000.123456789\n", 1_750_000_000_000)
                .unwrap();
        assert_eq!((c.year, c.utc_offset_s, c.skew_ms), (2025, 7200, 123));
        let c = DeviceClock::from_date_output("2025 -0530 1750000000.N", 0).unwrap();
        assert_eq!((c.utc_offset_s, c.now_ms), (-19_800, 1_750_000_000_000));
        assert!(DeviceClock::from_date_output("garbage", 0).is_none());
    }

    #[test]
    fn local_times_and_the_year_before() {
        // 2023-11-14 22:13:20 UTC, the device two hours east.
        let c = DeviceClock {
            utc_offset_s: 7200,
            year: 2023,
            now_ms: 1_700_000_000_000,
            skew_ms: 0,
        };
        assert_eq!(
            c.to_unix_ms(LocalTime::md(11, 15, 0, 13, 20, 5)),
            1_700_000_000_005
        );
        // A December line read in early January belongs to the year before.
        let jan = DeviceClock {
            year: 2024,
            now_ms: 1_704_153_600_000, // 2024-01-02
            ..c
        };
        assert!(jan.to_unix_ms(LocalTime::md(12, 31, 23, 0, 0, 0)) < jan.now_ms);
    }
}
