//! Maestro's `travel`: the device's location moved along `points` at `speed` meters per
//! second, as a journey would: set at the first point, then along each leg at most once a
//! second (the great-circle distance over the speed is the leg's time), ending on its last
//! point. Pure: the stops and the waits before each; the runner sets them.

use std::time::Duration;

/// The Earth's mean radius, in meters (what the distance of a leg is measured on).
const EARTH_RADIUS_M: f64 = 6_371_000.0;
/// Most stops on one leg (a long leg's stops come further apart than a second).
pub const MAX_STOPS_PER_LEG: usize = 600;

/// A point on the Earth: degrees north and east.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    /// Degrees north (−90 to 90).
    pub latitude: f64,
    /// Degrees east (−180 to 180).
    pub longitude: f64,
}

/// `"lat, lon"` as Maestro writes a travel point.
pub fn point(text: &str) -> Result<GeoPoint, String> {
    let bad = || format!("`{text}` is not a point `latitude, longitude` (degrees)");
    let (lat, lon) = text.split_once(',').ok_or_else(bad)?;
    let (latitude, longitude): (f64, f64) = (
        lat.trim().parse().map_err(|_| bad())?,
        lon.trim().parse().map_err(|_| bad())?,
    );
    if !(-90.0..=90.0).contains(&latitude) || !(-180.0..=180.0).contains(&longitude) {
        return Err(format!(
            "`{text}`: latitude is −90 to 90 and longitude −180 to 180 degrees"
        ));
    }
    Ok(GeoPoint {
        latitude,
        longitude,
    })
}

/// A speed in meters per second: a number above 0.
pub fn speed(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .ok_or_else(|| format!("`speed` is meters per second, above 0, not `{text}`"))
}

/// The great-circle distance between two points, in meters (haversine).
pub fn distance_m(a: GeoPoint, b: GeoPoint) -> f64 {
    let (la1, la2) = (a.latitude.to_radians(), b.latitude.to_radians());
    let dla = la2 - la1;
    let dlo = (b.longitude - a.longitude).to_radians();
    let h = (dla / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlo / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().asin()
}

/// Each stop of the journey and the wait before it: the first point at once, then each leg's
/// stops evenly in distance and time.
pub fn stops(points: &[GeoPoint], speed_mps: f64) -> Vec<(Duration, GeoPoint)> {
    let Some(first) = points.first() else {
        return vec![];
    };
    let mut out = vec![(Duration::ZERO, *first)];
    for leg in points.windows(2) {
        let (a, b) = (leg[0], leg[1]);
        let secs = distance_m(a, b) / speed_mps;
        let n = (secs.ceil() as usize).clamp(1, MAX_STOPS_PER_LEG);
        let wait = Duration::from_secs_f64(secs / n as f64);
        for i in 1..=n {
            let f = i as f64 / n as f64;
            out.push((
                wait,
                GeoPoint {
                    latitude: a.latitude + (b.latitude - a.latitude) * f,
                    longitude: a.longitude + (b.longitude - a.longitude) * f,
                },
            ));
        }
    }
    out
}

/// The journey's whole time.
pub fn duration(stops: &[(Duration, GeoPoint)]) -> Duration {
    stops.iter().map(|(w, _)| *w).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_speeds_and_distances() {
        let p = point(" 0.1 , -0.25").expect("point");
        assert_eq!((p.latitude, p.longitude), (0.1, -0.25));
        for bad in ["0.1", "a,b", "91,0", "0,181", ""] {
            assert!(point(bad).is_err(), "{bad}");
        }
        assert_eq!(speed("7900").expect("speed"), 7900.0);
        for bad in ["0", "-3", "fast", "NaN", "inf"] {
            assert!(speed(bad).is_err(), "{bad}");
        }
        let at = |latitude, longitude| GeoPoint {
            latitude,
            longitude,
        };
        // A tenth of a degree along the equator or a meridian is about 11.12 km.
        let (o, east) = (at(0.0, 0.0), at(0.0, 0.1));
        assert!(
            (distance_m(o, east) - 11_119.5).abs() < 1.0,
            "{}",
            distance_m(o, east)
        );
        // Paris to Berlin, about 878 km.
        let (paris, berlin) = (at(48.8566, 2.3522), at(52.52, 13.405));
        assert!((distance_m(paris, berlin) / 1000.0 - 878.0).abs() < 3.0);
    }

    #[test]
    fn a_journey_stops_once_a_second_and_takes_distance_over_speed() {
        // Maestro's own example: a square of 0.1° sides at orbital speed.
        let pts: Vec<GeoPoint> = ["0.0,0.0", "0.1,0.0", "0.1,0.1", "0.0,0.1"]
            .iter()
            .map(|p| point(p).expect("point"))
            .collect();
        let s = stops(&pts, 7900.0);
        // Each ~11.1 km leg takes ~1.41 s: two stops a leg, after the first point.
        assert_eq!(s.len(), 1 + 3 * 2);
        assert_eq!(s[0], (Duration::ZERO, pts[0]));
        assert_eq!(s.last().map(|(_, p)| *p), Some(pts[3]));
        let total = duration(&s).as_secs_f64();
        let want: f64 = pts
            .windows(2)
            .map(|l| distance_m(l[0], l[1]) / 7900.0)
            .sum();
        assert!((total - want).abs() < 1e-6, "{total} vs {want}");
        // A walk across a city caps its stops per leg.
        let walk = stops(&[pts[0], pts[2]], 1.0);
        assert_eq!(walk.len(), 1 + MAX_STOPS_PER_LEG);
        assert!(stops(&[], 1.0).is_empty());
        assert_eq!(stops(&pts[..1], 1.0).len(), 1);
    }
}
