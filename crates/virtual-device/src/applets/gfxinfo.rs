//! `dumpsys gfxinfo [PKG|PID] [framestats] [reset]` as Android 12+ prints it: the process's
//! frame summary since its last reset (Stats since, frames, janky frames and the legacy
//! count, 50th–99th percentiles, the slow-frame reasons, HISTOGRAM, the GPU percentiles and
//! histogram), caches, pipeline, then per window its name and, with `framestats`, its own
//! summary and the `---PROFILEDATA---` rows of its last 120 frames; then the view hierarchy.
//! `reset` clears the counters and the frames after printing them. The app's frames come from
//! what it does ([`crate::state::perf`]); the system's apps drew nothing since they started.
//! A name or pid without a process: `No process found for: X`.

use super::proc_table::{find, processes, ProcView};
use super::AppletResult;
use crate::state::frames::{Frames, COLUMNS, JANK_TYPES};
use crate::state::DeviceState;
use crate::Device;

/// `dumpsys gfxinfo …`.
pub fn dumpsys(dev: &Device, args: &[String]) -> AppletResult {
    answer(&mut dev.state(), args)
}

fn answer(st: &mut DeviceState, args: &[String]) -> AppletResult {
    let now = st.uptime_ns();
    let framestats = args.iter().any(|a| a == "framestats");
    let reset = args.iter().any(|a| a == "reset");
    let which = args
        .iter()
        .find(|a| !a.starts_with('-') && *a != "framestats" && *a != "reset");
    let targets: Vec<ProcView> = match which {
        Some(w) => match find(st, now, w) {
            Some(p) => vec![p],
            None => return AppletResult::ok(format!("No process found for: {w}\n")),
        },
        None => processes(st, now).into_iter().filter(|p| p.app).collect(),
    };
    let ms = now / 1_000_000;
    let mut out =
        format!("Applications Graphics Acceleration Info:\nUptime: {ms} Realtime: {ms}\n");
    for p in &targets {
        out += &render(st, p, framestats);
    }
    if reset {
        if let Some(p) = targets.iter().find(|p| p.pid == st.perf.pid && st.running) {
            debug_assert_eq!(p.name, st.app.spec.package);
            st.perf.frames.reset(now);
        }
    }
    AppletResult::ok(out)
}

/// A window's name: `pkg/pkg.Activity` for the app's current screen, the launcher's or the
/// keyboard's own.
fn window(st: &DeviceState, p: &ProcView) -> String {
    if p.name == st.app.spec.package {
        let comp = st.app.component(&st.screen);
        comp.replacen("/.", &format!("/{}.", p.name), 1)
    } else {
        format!("{}/{}.Main", p.name, p.name)
    }
}

/// A stable `@hash` for a window, as ViewRootImpl prints its identity hash.
fn hash(name: &str) -> String {
    let h = name.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format!("{:x}", h & 0x0fff_ffff)
}

/// The summary Android's ProfileData prints.
fn summary(f: &Frames) -> String {
    let pct = |n: u32| {
        if f.total == 0 {
            0.0
        } else {
            f64::from(n) / f64::from(f.total) * 100.0
        }
    };
    let mut s = format!(
        "\nStats since: {}ns\nTotal frames rendered: {}\nJanky frames: {} ({:.2}%)\nJanky frames (legacy): {} ({:.2}%)",
        f.since_ns,
        f.total,
        f.janky,
        pct(f.janky),
        f.janky_legacy,
        pct(f.janky_legacy)
    );
    for p in [50, 90, 95, 99] {
        s += &format!("\n{p}th percentile: {}ms", f.percentile(p));
    }
    for (name, n) in JANK_TYPES.iter().zip(f.jank_types) {
        s += &format!("\nNumber {name}: {n}");
    }
    s += "\nHISTOGRAM:";
    for (ms, n) in f.histogram() {
        s += &format!(" {ms}ms={n}");
    }
    for p in [50, 90, 95, 99] {
        s += &format!("\n{p}th gpu percentile: {}ms", f.gpu_percentile(p));
    }
    s += "\nGPU HISTOGRAM:";
    for (ms, n) in f.gpu_histogram() {
        s += &format!(" {ms}ms={n}");
    }
    s + "\n"
}

fn render(st: &DeviceState, p: &ProcView, framestats: bool) -> String {
    let is_app = st.running && p.pid == st.perf.pid;
    let idle = Frames::new(p.started_ns);
    let frames = if is_app { &st.perf.frames } else { &idle };
    let (views, visible) = if is_app {
        (st.app_views(), st.foreground)
    } else {
        (40, p.name == crate::state::LAUNCHER_PKG && !st.foreground)
    };
    let name = window(st, p);
    let root = format!("{name}/android.view.ViewRootImpl@{}", hash(&name));
    let textures_kb = p
        .memory
        .rows
        .iter()
        .find(|r| r.label == "Gfx dev")
        .map_or(0, |r| r.pss);
    let gpu_bytes = textures_kb * 1024 + 3 * 1_048_576;
    let mut out = format!("\n** Graphics info for pid {} [{}] **\n", p.pid, p.name);
    out += &summary(frames);
    out += "Font Cache (CPU):\n  Size: 185.28 kB \n  Glyph Count: 61 \n";
    out += "CPU Caches:\nGPU Caches:\n  Other:\n    Buffer Object: 48.00 KB (1 entry)\n";
    out += &format!(
        "  Image:\n    Texture: {:.2} MB ({} entries)\n",
        textures_kb as f64 / 1024.0,
        4 + views / 4
    );
    out +=
        "  Scratch:\n    Buffer Object: 64.00 KB (2 entries)\n    Texture: 3.00 MB (2 entries)\n";
    out += "Other Caches:\n                         Current / Maximum\n";
    out += "  Layers Total           0.00 KB (numLayers = 0)\n";
    out += &format!(
        "Total GPU memory usage:\n  {gpu_bytes} bytes, {:.2} MB ({:.2} MB is purgeable)\n\n\n",
        gpu_bytes as f64 / 1_048_576.0,
        3.0
    );
    out += "Pipeline=Skia (OpenGL)\n\nLayout Cache Info:\n  Usage: 35/5000 entries\n";
    out += "  Hit ratio: 114/149 (0.765101)\nProfile data in ms:\n\n";
    out += &format!("\t{root} (visibility={})\n", if visible { 0 } else { 8 });
    if framestats {
        out += &format!("Window: {name}");
        out += &summary(frames);
        out += "\n\n---PROFILEDATA---\n";
        out += &COLUMNS.map(|c| format!("{c},")).concat();
        for f in frames.recent() {
            out += "\n";
            out += &f.columns.map(|v| format!("{v},")).concat();
        }
        out += "\n---PROFILEDATA---\n\n";
    }
    let kb = views as f64 * 1.73;
    out +=
        &format!("View hierarchy:\n\n  {root}\n  {views} views, {kb:.2} kB of render nodes\n\n\n");
    out += &format!(
        "Total ViewRootImpl   : 1\nTotal attached Views : {views}\nTotal RenderNode     : {kb:.2} kB (used) / {:.2} MB (capacity)\n\n",
        1.2
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::App;

    fn gfxinfo(st: &mut DeviceState, args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match answer(st, &args) {
            AppletResult::Output {
                code: 0, stdout, ..
            } => String::from_utf8(stdout).unwrap(),
            _ => panic!("dumpsys gfxinfo failed"),
        }
    }

    fn total(out: &str) -> u32 {
        out.lines()
            .find_map(|l| l.strip_prefix("Total frames rendered: "))
            .unwrap()
            .parse()
            .unwrap()
    }

    /// The `framestats` rows: (header, rows).
    fn profiledata(out: &str) -> (String, Vec<String>) {
        let block = out.split("---PROFILEDATA---\n").nth(1).unwrap();
        let mut lines = block.lines();
        let header = lines.next().unwrap().to_string();
        (header, lines.map(String::from).collect())
    }

    #[test]
    fn frames_move_with_the_app_and_reset_clears_them() {
        let mut st = DeviceState::new(App::demo().unwrap());
        assert!(st.show_screen("list"));
        let pkg = "com.mobilectl.demo";
        let out = gfxinfo(&mut st, &[pkg, "framestats"]);
        let pid = st.process.pid;
        for line in [
            "Applications Graphics Acceleration Info:".to_string(),
            format!("** Graphics info for pid {pid} [{pkg}] **"),
            format!("Window: {pkg}/{pkg}.InboxActivity"),
            "Pipeline=Skia (OpenGL)".into(),
        ] {
            assert!(out.lines().any(|l| l == line), "{line:?} in\n{out}");
        }
        for start in [
            "Stats since: ",
            "Janky frames: ",
            "Janky frames (legacy): ",
            "50th percentile: ",
            "99th percentile: ",
            "Number Missed Vsync: ",
            "Number Slow UI thread: ",
            "Number Frame deadline missed: ",
            "HISTOGRAM: 5ms=",
            "GPU HISTOGRAM: 1ms=",
        ] {
            assert!(
                out.lines().any(|l| l.starts_with(start)),
                "{start} in\n{out}"
            );
        }
        let started = total(&out);
        assert!(
            started > 10,
            "the start and the screen drew frames: {started}"
        );
        let (header, rows) = profiledata(&out);
        assert_eq!(header, COLUMNS.map(|c| format!("{c},")).concat());
        assert_eq!(rows.len() as u32, started.min(120));
        assert!(rows.iter().all(|r| r.split(',').count() == 24));
        // A swipe over the list draws many frames, some janky.
        st.swipe((540, 1800), (540, 600), 300);
        let out = gfxinfo(&mut st, &[pkg, "framestats", "reset"]);
        let scrolled = total(&out);
        assert!(scrolled >= started + 60, "{started} → {scrolled}");
        assert_eq!(
            profiledata(&out).1.len() as u32,
            scrolled.min(120),
            "the last 120 frames"
        );
        // `reset` printed them, then cleared them.
        let out = gfxinfo(&mut st, &[pkg, "framestats"]);
        assert_eq!(total(&out), 0);
        assert!(profiledata(&out).1.is_empty());
        assert!(out.contains("Janky frames: 0 (0.00%)"));
        assert!(
            out.contains("50th percentile: 4950ms"),
            "Android's figure for no frames"
        );
        // Without a process.
        st.force_stop();
        assert_eq!(
            gfxinfo(&mut st, &[pkg]),
            format!("No process found for: {pkg}\n")
        );
        assert_eq!(
            gfxinfo(&mut st, &["com.absent", "framestats"]),
            "No process found for: com.absent\n"
        );
    }
}
