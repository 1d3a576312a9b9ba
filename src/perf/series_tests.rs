use super::*;

fn tick(i: u64) -> Tick {
    Tick {
        t_ms: i * 100,
        cpu_percent: Some((i % 10) as f64 * 10.0),
        memory_kib: Some(50_000 + i),
        threads: Some(20),
        frames: Some(6),
        janky_frames: Some(u64::from(i.is_multiple_of(3))),
        frame_p90_ms: Some(if i == 7_777 { 250.0 } else { 12.0 }),
    }
}

#[test]
fn a_short_window_keeps_every_sample() {
    let mut s = Series::new(100);
    for i in 0..10 {
        s.push(&tick(i));
    }
    assert_eq!(s.points().len(), 10);
    let sum = s.summary();
    assert_eq!(
        (sum.samples, sum.points, sum.samples_per_point),
        (10, 10, 1)
    );
    let cpu = sum.cpu_percent.unwrap();
    assert_eq!(
        (cpu.min, cpu.max, cpu.first, cpu.last),
        (0.0, 90.0, 0.0, 90.0)
    );
    assert_eq!(cpu.median, 40.0);
    let mem = sum.memory_kib.unwrap();
    assert_eq!((mem.first, mem.last, mem.delta), (50_000.0, 50_009.0, 9.0));
    let f = sum.frames.unwrap();
    assert_eq!((f.frames, f.janky_frames), (60, 4));
    assert_eq!(f.janky_percent, 6.67);
}

#[test]
fn ten_thousand_samples_stay_bounded_and_lose_nothing_silently() {
    let mut s = Series::new(DEFAULT_CAP);
    for i in 0..10_000 {
        s.push(&tick(i));
    }
    let sum = s.summary();
    assert!(s.points().len() < DEFAULT_CAP, "{}", s.points().len());
    assert!(sum.samples_per_point > 1);
    assert_eq!(sum.samples, 10_000);
    // Every sample is in some point.
    let held: u64 = s.points().iter().map(|p| u64::from(p.samples)).sum();
    assert_eq!(held, 10_000);
    // Frames are summed, not sampled; the peak memory and the one bad interval survive.
    let frames: u64 = s.points().iter().filter_map(|p| p.frames).sum();
    assert_eq!((frames, sum.frames.unwrap().frames), (60_000, 60_000));
    assert_eq!(sum.frames.unwrap().worst_p90_ms, Some(250.0));
    let peak = s.points().iter().filter_map(|p| p.memory_kib).max();
    assert_eq!(peak, Some(50_000 + 9_999));
    assert_eq!(sum.memory_kib.unwrap().max, 59_999.0);
    assert_eq!(s.points().last().unwrap().t_ms, 999_900);
    // The mean CPU of the merged points is the mean of every sample (45%).
    let weighted: f64 = s
        .points()
        .iter()
        .map(|p| p.cpu_percent.unwrap() * f64::from(p.samples))
        .sum::<f64>()
        / 10_000.0;
    assert!((weighted - 45.0).abs() < 0.5, "{weighted}");
}

#[test]
fn figures_a_platform_lacks_stay_absent() {
    let mut s = Series::new(10);
    for i in 0..25 {
        s.push(&Tick {
            t_ms: i * 500,
            cpu_percent: Some(5.0),
            memory_kib: Some(1_000),
            ..Tick::default()
        });
    }
    let sum = s.summary();
    assert!(sum.frames.is_none() && sum.threads.is_none());
    assert!(s.points().iter().all(|p| p.frames.is_none()));
    assert_eq!(sum.cpu_percent.unwrap().median, 5.0);
}
