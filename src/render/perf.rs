//! App performance as text: a reading in one line (CPU, memory, threads, frames), what the
//! platform did not give said once at the end; a window's start in one line, its end as the
//! summary's figures and where its files are.

use serde_json::Value;

use super::s;

/// `perf`: `com.example (pid 4242): CPU 12.5% of a core over 500 ms · 45.2 MB PSS (Java
/// 10.1 MB, native 8.3 MB, graphics 4 MB) · 23 threads · 120 frames, 8.3% janky, p50 8 ms,
/// p90 14 ms, p99 30 ms`.
pub fn now(v: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(cpu) = v.get("cpu") {
        parts.push(format!(
            "CPU {}% of a core over {} ms",
            num(&cpu["percent"]),
            num(&cpu["window_ms"])
        ));
    }
    if let Some(m) = v.get("memory") {
        parts.push(memory(m));
    }
    if let Some(t) = v.get("threads").and_then(Value::as_u64) {
        parts.push(format!("{t} threads"));
    }
    if let Some(f) = v.get("frames") {
        parts.push(frames(f));
    }
    if let Some(missing) = v.get("missing").and_then(Value::as_array) {
        let names: Vec<&str> = missing.iter().filter_map(Value::as_str).collect();
        parts.push(format!("no {} on this platform", names.join(", ")));
    }
    format!(
        "{} (pid {}): {}",
        s(&v["app"]),
        num(&v["pid"]),
        parts.join(" · ")
    )
}

/// `45.2 MB PSS (Java 10.1 MB, native 8.3 MB, graphics 4 MB)`, or the resident set and
/// footprint where those are the figures.
fn memory(m: &Value) -> String {
    let kib = |k: &str| m.get(k).and_then(Value::as_u64);
    let head = match (
        kib("pss_total_kib"),
        kib("footprint_kib"),
        kib("resident_kib"),
    ) {
        (Some(p), _, _) => format!("{} PSS", mb(p)),
        (None, Some(f), _) => format!("{} footprint", mb(f)),
        (None, None, Some(r)) => format!("{} resident", mb(r)),
        _ => "memory not given".into(),
    };
    let parts: Vec<String> = [
        ("Java", "java_heap_kib"),
        ("native", "native_heap_kib"),
        ("graphics", "graphics_kib"),
    ]
    .iter()
    .filter_map(|(name, key)| kib(key).map(|v| format!("{name} {}", mb(v))))
    .chain(
        kib("pss_total_kib")
            .or(kib("footprint_kib"))
            .and(kib("resident_kib"))
            .map(|r| format!("resident {}", mb(r))),
    )
    .collect();
    match parts.is_empty() {
        true => head,
        false => format!("{head} ({})", parts.join(", ")),
    }
}

/// `120 frames, 8.3% janky, p50 8 ms, p90 14 ms, p99 30 ms`.
fn frames(f: &Value) -> String {
    let mut out = format!("{} frames", num(&f["frames"]));
    if let Some(j) = f.get("janky_percent") {
        out += &format!(", {}% janky", num(j));
    }
    for p in ["p50", "p90", "p99"] {
        if let Some(ms) = f.get(format!("{p}_ms")) {
            out += &format!(", {p} {} ms", num(ms));
        }
    }
    out
}

/// `perf_start` and `perf_stop`: a window sampling, or what it measured.
pub fn window(v: &Value) -> String {
    let head = format!("{} · {} on {}", s(&v["id"]), s(&v["app"]), s(&v["udid"]));
    let Some(sum) = v.get("summary") else {
        return format!(
            "{head} · sampling every {} ms · stops by itself after {} s",
            num(&v["interval_ms"]),
            num(&v["max_s"])
        );
    };
    let seconds = sum["duration_ms"].as_u64().unwrap_or(0) as f64 / 1000.0;
    let sampling = v["state"] == "sampling";
    let how = match sampling {
        true => format!("so far, sampling every {} ms", num(&v["interval_ms"])),
        false => format!("stopped by {}", s(&v["stopped_by"]).replace('_', " ")),
    };
    let mut lines = vec![format!(
        "{head} · {} samples over {seconds:.1} s · {how}",
        num(&sum["samples"])
    )];
    if let Some(c) = sum.get("cpu_percent") {
        lines.push(format!(
            "CPU median {}% of a core ({}–{}%)",
            num(&c["median"]),
            num(&c["min"]),
            num(&c["max"])
        ));
    }
    if let Some(m) = sum.get("memory_kib") {
        let kib = |k: &str| m[k].as_f64().unwrap_or(0.0) as u64;
        let delta = m["delta"].as_f64().unwrap_or(0.0);
        let sign = if delta < 0.0 { "-" } else { "+" };
        lines.push(format!(
            "memory {} → {} ({sign}{}), peak {}",
            mb(kib("first")),
            mb(kib("last")),
            mb(delta.abs() as u64),
            mb(kib("max"))
        ));
    }
    if let Some(f) = sum.get("frames") {
        let mut line = format!(
            "{} frames, {}% janky",
            num(&f["frames"]),
            num(&f["janky_percent"])
        );
        if let Some(p) = f.get("worst_p90_ms") {
            line += &format!(", worst interval p90 {} ms", num(p));
        }
        lines.push(line);
    }
    if let Some(n) = v["failed_samples"].as_u64().filter(|n| *n > 0) {
        lines.push(format!("{n} samples failed: {}", s(&v["last_error"])));
    }
    match v.get("files") {
        _ if sampling => {}
        Some(f) => lines.push(format!(
            "files in run {}: {}, {}, {}",
            s(&v["run"]),
            s(&f["png"]),
            s(&f["svg"]),
            s(&f["series"])
        )),
        None => lines.push(format!("files not saved: {}", s(&v["error"]))),
    }
    lines.join("\n")
}

/// What an action cost the app, on the action's line: ` · 42 frames, 9.52% janky, longest
/// 31 ms, CPU 38% of a core`.
pub fn cost(p: &Value) -> String {
    if let Some(e) = p["error"].as_str() {
        return format!(" · not measured after it: {e}");
    }
    let mut parts = Vec::new();
    if let Some(f) = p.get("frames") {
        let mut frames = format!("{} frames", num(f));
        if let Some(j) = p.get("janky_percent") {
            frames += &format!(", {}% janky", num(j));
        }
        parts.push(frames);
    }
    if let Some(l) = p.get("longest_frame_ms") {
        parts.push(format!("longest {} ms", num(l)));
    }
    if let Some(c) = p.get("cpu") {
        parts.push(format!("CPU {}% of a core", num(&c["percent"])));
    }
    match parts.is_empty() {
        true => String::new(),
        false => format!(" · {}", parts.join(", ")),
    }
}

/// KiB as MB with one decimal (`45.2 MB`).
fn mb(kib: u64) -> String {
    format!("{:.1} MB", kib as f64 / 1024.0)
}

/// A JSON number as written (`12.5`, `500`), or `?`.
fn num(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        _ => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_reading_is_one_line() {
        let v = json!({"udid": "emulator-5554", "app": "com.example", "pid": 4242,
            "cpu": {"percent": 12.5, "window_ms": 500},
            "memory": {"pss_total_kib": 46285, "java_heap_kib": 10342, "native_heap_kib": 8499,
                "graphics_kib": 4096, "source": "app_summary"},
            "threads": 23,
            "frames": {"frames": 120, "janky_percent": 8.33, "p50_ms": 8, "p90_ms": 14,
                "p99_ms": 30, "source": "summary"},
            "measured_on": "device", "cost": {"samples": 2, "took_ms": 640}});
        assert_eq!(
            now(&v),
            "com.example (pid 4242): CPU 12.5% of a core over 500 ms · 45.2 MB PSS (Java 10.1 MB, \
             native 8.3 MB, graphics 4.0 MB) · 23 threads · 120 frames, 8.33% janky, p50 8 ms, \
             p90 14 ms, p99 30 ms"
        );
    }

    #[test]
    fn a_window_says_its_start_then_its_figures_and_files() {
        let started = json!({"id": "perf-1", "app": "com.example", "udid": "emulator-5554",
            "state": "sampling", "interval_ms": 500, "max_s": 600, "failed_samples": 0});
        assert_eq!(
            window(&started),
            "perf-1 · com.example on emulator-5554 · sampling every 500 ms · stops by itself after 600 s"
        );
        let stopped = json!({"id": "perf-1", "app": "com.example", "udid": "emulator-5554",
            "state": "finished", "run": "20261127-210000-abcdef", "stopped_by": "max_s",
            "failed_samples": 1, "last_error": "`com.example` is not running",
            "summary": {"samples": 24, "duration_ms": 12000, "points": 24, "samples_per_point": 1,
                "cpu_percent": {"min": 3, "median": 12.5, "max": 80, "first": 3, "last": 10, "delta": 7},
                "memory_kib": {"min": 46285, "median": 48000, "max": 54000, "first": 46285,
                    "last": 53350, "delta": 7065},
                "frames": {"frames": 1234, "janky_frames": 100, "janky_percent": 8.1,
                    "worst_p90_ms": 24}},
            "files": {"png": "perf-1.png", "svg": "perf-1.svg", "series": "perf-1.json"}});
        assert_eq!(
            window(&stopped),
            "perf-1 · com.example on emulator-5554 · 24 samples over 12.0 s · stopped by max s\n\
             CPU median 12.5% of a core (3–80%)\n\
             memory 45.2 MB → 52.1 MB (+6.9 MB), peak 52.7 MB\n\
             1234 frames, 8.1% janky, worst interval p90 24 ms\n\
             1 samples failed: `com.example` is not running\n\
             files in run 20261127-210000-abcdef: perf-1.png, perf-1.svg, perf-1.json"
        );
    }

    #[test]
    fn an_actions_cost_rides_on_its_line() {
        let p = json!({"app": "a.b", "frames": 42, "janky_frames": 4, "janky_percent": 9.52,
            "longest_frame_ms": 31.5, "cpu": {"percent": 38, "window_ms": 420}});
        assert_eq!(
            cost(&p),
            " · 42 frames, 9.52% janky, longest 31.5 ms, CPU 38% of a core"
        );
        let failed = json!({"app": "a.b", "error": "`a.b` is not running"});
        assert_eq!(
            cost(&failed),
            " · not measured after it: `a.b` is not running"
        );
    }

    #[test]
    fn a_host_reading_says_what_it_lacks() {
        let v = json!({"app": "com.example.ios", "pid": 901,
            "cpu": {"percent": 99.1, "window_ms": 500},
            "memory": {"resident_kib": 204800, "footprint_kib": 153600, "source": "process"},
            "missing": ["threads", "frames"], "measured_on": "host"});
        assert_eq!(
            now(&v),
            "com.example.ios (pid 901): CPU 99.1% of a core over 500 ms · 150.0 MB footprint \
             (resident 200.0 MB) · no threads, frames on this platform"
        );
    }
}
