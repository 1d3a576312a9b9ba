//! `dumpsys meminfo [PKG|PID]` as Android 10+ prints it: the per-category table (Pss Total,
//! Private Dirty/Clean, SwapPss Dirty, Rss Total, and the heaps' Size/Alloc/Free), the App
//! Summary derived from it as Android derives it (Java Heap = Dalvik Heap + .art private;
//! Code = the mapped code files' private; Graphics = Gfx dev + EGL/GL mtrack; Private Other
//! and System the rest), Objects and SQL. The app's figures grow with the screens it inflated
//! and the list rows it loaded ([`crate::state::perf`]); the system's processes keep theirs.
//! A name or pid without a process: `No process found for: X`; without one, the system's
//! total PSS by process.

use super::proc_table::{find, processes, ProcView};
use super::AppletResult;
use crate::state::perf::Loaded;
use crate::state::DeviceState;
use crate::Device;

/// One row of the table, KiB: Pss Total, Private Dirty, Private Clean, SwapPss Dirty, Rss
/// Total, and Heap Size/Alloc/Free for the heaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub label: &'static str,
    pub pss: u64,
    pub private_dirty: u64,
    pub private_clean: u64,
    pub swap: u64,
    pub rss: u64,
    pub heap: Option<(u64, u64, u64)>,
}

/// The table of one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub rows: Vec<Row>,
}

/// Rows loaded beyond this many are recycled: the memory stops growing.
const MAX_ROWS: u64 = 1_500;

fn row(label: &'static str, pss: u64, dirty_pct: u64, clean_pct: u64, rss_pct: u64) -> Row {
    Row {
        label,
        pss,
        private_dirty: pss * dirty_pct / 100,
        private_clean: pss * clean_pct / 100,
        swap: 0,
        rss: pss * rss_pct / 100,
        heap: None,
    }
}

impl Table {
    /// The table of a process holding `loaded`, at `pct` % of the app's size.
    pub fn of(loaded: Loaded, pct: u64) -> Table {
        let s = loaded.screens.max(1);
        let r = loaded.rows.min(MAX_ROWS);
        let native = 11_800 + 650 * s + 9 * r;
        let dalvik = 4_300 + 820 * s + 17 * r;
        let mut rows = vec![
            Row {
                heap: Some((native * 13 / 10, native * 11 / 10, native * 2 / 10)),
                ..row("Native Heap", native, 99, 0, 113)
            },
            Row {
                heap: Some((dalvik * 2, dalvik, dalvik)),
                ..row("Dalvik Heap", dalvik, 99, 0, 140)
            },
            row("Dalvik Other", 1_900 + 120 * s + r, 60, 0, 160),
            row("Stack", 1_060, 100, 0, 100),
            row("Ashmem", 18, 0, 0, 2_600),
            row("Gfx dev", 2_900 + 380 * s + 6 * r, 100, 0, 100),
            row("Other dev", 16, 0, 75, 2_300),
            row(".so mmap", 4_100 + 40 * s, 3, 65, 400),
            row(".jar mmap", 1_600, 0, 30, 600),
            row(".apk mmap", 290 + 20 * s, 0, 40, 500),
            row(".ttf mmap", 120, 0, 30, 580),
            row(".dex mmap", 2_600 + 60 * s, 95, 0, 120),
            row(".oat mmap", 70, 0, 0, 2_700),
            row(".art mmap", 4_800 + 30 * s, 85, 9, 200),
            row("Other mmap", 55, 15, 36, 1_200),
            // The window's three buffers (1080 × 2400 × 4 bytes each), then textures.
            row("EGL mtrack", 30_375 + 12 * r, 100, 0, 100),
            row("GL mtrack", 900 + 25 * s + 2 * r, 100, 0, 100),
            row("Unknown", 380 + 10 * s, 80, 10, 140),
        ];
        for r in rows.iter_mut() {
            let scale = |v: u64| v * pct / 100;
            r.pss = scale(r.pss);
            r.private_dirty = scale(r.private_dirty);
            r.private_clean = scale(r.private_clean);
            r.rss = scale(r.rss);
            r.heap = r.heap.map(|(a, b, c)| (scale(a), scale(b), scale(c)));
        }
        Table { rows }
    }

    fn get(&self, label: &str) -> Row {
        self.rows
            .iter()
            .find(|r| r.label == label)
            .copied()
            .unwrap_or(row("", 0, 0, 0, 0))
    }

    /// The TOTAL row.
    pub fn total(&self) -> Row {
        let sum = |f: fn(&Row) -> u64| self.rows.iter().map(f).sum::<u64>();
        let heap = |f: fn(&(u64, u64, u64)) -> u64| {
            self.rows
                .iter()
                .filter_map(|r| r.heap.as_ref())
                .map(f)
                .sum()
        };
        Row {
            label: "TOTAL",
            pss: sum(|r| r.pss) + sum(|r| r.swap),
            private_dirty: sum(|r| r.private_dirty),
            private_clean: sum(|r| r.private_clean),
            swap: sum(|r| r.swap),
            rss: sum(|r| r.rss),
            heap: Some((heap(|h| h.0), heap(|h| h.1), heap(|h| h.2))),
        }
    }

    /// The App Summary: (label, PSS, RSS) of Java Heap, Native Heap, Code, Stack, Graphics,
    /// Private Other, System (no RSS) and Unknown (RSS only).
    pub fn summary(&self) -> Vec<(&'static str, Option<u64>, Option<u64>)> {
        let private = |r: Row| r.private_dirty + r.private_clean;
        let sum = |labels: &[&str], f: &dyn Fn(Row) -> u64| {
            labels.iter().map(|l| f(self.get(l))).sum::<u64>()
        };
        let code = [
            ".so mmap",
            ".jar mmap",
            ".apk mmap",
            ".ttf mmap",
            ".dex mmap",
            ".oat mmap",
        ];
        let gfx = ["Gfx dev", "EGL mtrack", "GL mtrack"];
        let java = (
            sum(&["Dalvik Heap"], &|r| r.private_dirty) + private(self.get(".art mmap")),
            sum(&["Dalvik Heap", ".art mmap"], &|r| r.rss),
        );
        let native = (
            self.get("Native Heap").private_dirty,
            self.get("Native Heap").rss,
        );
        let code = (sum(&code, &private), sum(&code, &|r| r.rss));
        let stack = (self.get("Stack").private_dirty, self.get("Stack").rss);
        let graphics = (sum(&gfx, &private), sum(&gfx, &|r| r.rss));
        let total = self.total();
        let known = [java, native, code, stack, graphics];
        let other = private(total) - known.iter().map(|k| k.0).sum::<u64>();
        let system = total.pss - private(total) - total.swap;
        let unknown_rss = total.rss - known.iter().map(|k| k.1).sum::<u64>();
        vec![
            ("Java Heap:", Some(java.0), Some(java.1)),
            ("Native Heap:", Some(native.0), Some(native.1)),
            ("Code:", Some(code.0), Some(code.1)),
            ("Stack:", Some(stack.0), Some(stack.1)),
            ("Graphics:", Some(graphics.0), Some(graphics.1)),
            ("Private Other:", Some(other), None),
            ("System:", Some(system), None),
            ("Unknown:", None, Some(unknown_rss)),
        ]
    }
}

/// `dumpsys meminfo [options] [PKG|PID]`.
pub fn dumpsys(dev: &Device, args: &[String]) -> AppletResult {
    answer(&dev.state(), args)
}

fn answer(st: &DeviceState, args: &[String]) -> AppletResult {
    let now = st.uptime_ns();
    let ms = now / 1_000_000;
    let header =
        format!("Applications Memory Usage (in Kilobytes):\nUptime: {ms} Realtime: {ms}\n\n");
    let Some(which) = args.iter().find(|a| !a.starts_with('-')) else {
        let mut all = processes(st, now);
        all.sort_by_key(|p| std::cmp::Reverse(p.memory.total().pss));
        let mut out = header + "Total PSS by process:\n";
        for p in &all {
            let kib = p.memory.total().pss;
            out += &format!("{:>11}K: {} (pid {})\n", thousands(kib), p.name, p.pid);
        }
        return AppletResult::ok(out);
    };
    match find(st, now, which) {
        Some(p) => {
            let views = if p.name == st.app.spec.package {
                (st.app_views(), st.app_activities())
            } else {
                (40, 1)
            };
            AppletResult::ok(header + &render(&p, views))
        }
        None => AppletResult::ok(format!("No process found for: {which}\n")),
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The block of one process; `views`: (views of its window, activities alive).
pub fn render(p: &ProcView, views: (usize, usize)) -> String {
    let mut out = format!("** MEMINFO in pid {} [{}] **\n", p.pid, p.name);
    let line = |cells: [&str; 9]| {
        let mut l = format!("{:>13}", cells[0]);
        for c in &cells[1..] {
            l += &format!(" {c:>8}");
        }
        l + "\n"
    };
    out += &line([
        "", "Pss", "Private", "Private", "SwapPss", "Rss", "Heap", "Heap", "Heap",
    ]);
    out += &line([
        "", "Total", "Dirty", "Clean", "Dirty", "Total", "Size", "Alloc", "Free",
    ]);
    out += &line([
        "", "------", "------", "------", "------", "------", "------", "------", "------",
    ]);
    let t = &p.memory;
    for r in t.rows.iter().chain(std::iter::once(&t.total())) {
        let n = [r.pss, r.private_dirty, r.private_clean, r.swap, r.rss].map(|v| v.to_string());
        let h = r
            .heap
            .map(|(a, b, c)| [a, b, c].map(|v| v.to_string()))
            .unwrap_or_default();
        out += &line([
            r.label, &n[0], &n[1], &n[2], &n[3], &n[4], &h[0], &h[1], &h[2],
        ]);
    }
    out += " \n App Summary\n";
    out += &format!("{:>21} {:>8} {:>21} {:>8}\n", "", "Pss(KB)", "", "Rss(KB)");
    out += &format!("{:>21} {:>8} {:>21} {:>8}\n", "", "------", "", "------");
    for (label, pss, rss) in t.summary() {
        let pss = pss.map(|v| v.to_string()).unwrap_or_default();
        out += &match rss {
            Some(rss) => format!("{label:>21} {pss:>8} {:>21} {rss:>8}\n", ""),
            None => format!("{label:>21} {pss:>8}\n"),
        };
    }
    let total = t.total();
    out += &format!(
        " \n{:>21} {:>8} {:>21} {:>8} {:>21} {:>8}\n \n",
        "TOTAL PSS:", total.pss, "TOTAL RSS:", total.rss, "TOTAL SWAP PSS:", total.swap
    );
    let pair = |a: &str, x: usize, b: &str, y: usize| format!("{a:>21} {x:>8} {b:>21} {y:>8}\n");
    let (n_views, activities) = views;
    out += " Objects\n";
    out += &pair("Views:", n_views, "ViewRootImpl:", 1);
    out += &pair("AppContexts:", 3 + activities, "Activities:", activities);
    out += &pair("Assets:", 28, "AssetManagers:", 0);
    out += &pair("Local Binders:", 17 + 2 * activities, "Proxy Binders:", 41);
    out += &pair("Parcel memory:", 6, "Parcel count:", 24);
    out += &pair("Death Recipients:", 2, "OpenSSL Sockets:", 0);
    out += &format!("{:>21} {:>8}\n", "WebViews:", 0);
    out += " \n SQL\n";
    out += &format!("{:>21} {:>8}\n", "MEMORY_USED:", 0);
    out += &pair("PAGECACHE_OVERFLOW:", 0, "MALLOC_SIZE:", 0);
    out += " \n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_adds_up_as_androids_does() {
        let t = Table::of(
            Loaded {
                screens: 3,
                rows: 40,
            },
            100,
        );
        let total = t.total();
        let s = t.summary();
        let pss: u64 = s.iter().filter_map(|(_, p, _)| *p).sum();
        assert_eq!(pss, total.pss, "the summary's PSS is the table's");
        let rss: u64 = s.iter().filter_map(|(_, _, r)| *r).sum();
        assert_eq!(rss, total.rss);
        // Tens of MB, growing with what is loaded, up to a bound.
        assert!((40_000..150_000).contains(&total.pss), "{}", total.pss);
        let more = Table::of(
            Loaded {
                screens: 3,
                rows: 400,
            },
            100,
        );
        assert!(more.total().pss > total.pss + 10_000);
        let capped = |rows| Table::of(Loaded { screens: 3, rows }, 100).total().pss;
        assert_eq!(capped(MAX_ROWS), capped(MAX_ROWS * 10));
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }
}

#[cfg(test)]
mod dump_tests {
    use super::*;
    use crate::app::App;

    fn meminfo(st: &DeviceState, args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match answer(st, &args) {
            AppletResult::Output {
                code: 0, stdout, ..
            } => String::from_utf8(stdout).unwrap(),
            _ => panic!("dumpsys meminfo failed"),
        }
    }

    fn total_pss(out: &str) -> u64 {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with("TOTAL PSS:"))
            .unwrap();
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    }

    #[test]
    fn the_apps_memory_as_android_10_prints_it_growing_as_it_loads() {
        let mut st = DeviceState::new(App::demo().unwrap());
        let pkg = "com.mobilectl.demo";
        let out = meminfo(&st, &[pkg]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "Applications Memory Usage (in Kilobytes):");
        assert_eq!(
            lines[3],
            format!("** MEMINFO in pid {} [{pkg}] **", st.process.pid)
        );
        // The header as Android aligns it (the columns end where the numbers end).
        assert_eq!(
            lines[4],
            "                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap"
        );
        assert_eq!(
            lines[5],
            "                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free"
        );
        assert!(lines[7].starts_with("  Native Heap "));
        assert!(lines.iter().any(|l| l.starts_with("        TOTAL ")));
        assert!(lines.contains(&" App Summary"));
        assert!(lines
            .iter()
            .any(|l| l.starts_with("           Java Heap: ")));
        let first = total_pss(&out);
        assert!((40_000..150_000).contains(&first), "{first}");
        // The list and a few swipes over it load rows: more memory. The pid works too.
        st.show_screen("list");
        for _ in 0..4 {
            st.swipe((540, 1800), (540, 600), 300);
        }
        let pid = st.process.pid.to_string();
        let loaded = total_pss(&meminfo(&st, &[&pid]));
        assert!(loaded > first + 3_000, "{first} → {loaded}");
        // The system's processes by PSS; an app without a process.
        let all = meminfo(&st, &[]);
        assert!(
            all.contains("Total PSS by process:") && all.contains(&format!(": {pkg} (pid {pid})"))
        );
        st.force_stop();
        assert_eq!(
            meminfo(&st, &[pkg]),
            format!("No process found for: {pkg}\n")
        );
    }
}
