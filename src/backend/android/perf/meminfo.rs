//! `dumpsys meminfo PKG`: the App Summary (Android 6+: Java Heap, Native Heap, Code, Stack,
//! Graphics, TOTAL PSS), else the per-category table's PSS (TOTAL, Native/Dalvik Heap rows).
//! The table's columns differ across versions (4.3: Pss / Shared Dirty / Private Dirty; 4.4:
//! Pss Total / Private Dirty / Private Clean / Swapped Dirty; 11: … SwapPss Dirty / Rss Total),
//! so the PSS column is found by its header.

use super::{leading_u64, no_process, not_running, unrecognised};
use crate::error::Result;
use crate::perf::{MemoryReading, MemorySource};

/// What `dumpsys meminfo` printed about one process.
#[derive(Debug, Clone, PartialEq)]
pub struct Meminfo {
    /// The process (`** MEMINFO in pid N [name] **`).
    pub pid: Option<u32>,
    /// Its name, as printed.
    pub process: Option<String>,
    /// The memory figures.
    pub memory: MemoryReading,
}

const HEADER: &str = "** MEMINFO in pid ";

/// Reads `dumpsys meminfo` of `package` (its first process when several are listed). A `No
/// process found` answer is the app not running.
pub fn parse_meminfo(text: &str, package: &str) -> Result<Meminfo> {
    if no_process(text).is_some() {
        return Err(not_running(package));
    }
    let Some(start) = text.find(HEADER) else {
        return Err(unrecognised("dumpsys meminfo", text));
    };
    let block = &text[start + HEADER.len()..];
    let block = block.find(HEADER).map_or(block, |end| &block[..end]);
    let first = block.lines().next().unwrap_or_default();
    let pid = leading_u64(first).and_then(|p| u32::try_from(p).ok());
    let process = first
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .map(|(n, _)| n.to_string());
    let memory = app_summary(block)
        .map(|mut summary| {
            let table = table(block);
            if summary.pss_total_kib.is_none() {
                summary.pss_total_kib = table.pss_total_kib;
            }
            summary
        })
        .unwrap_or_else(|| table(block));
    Ok(Meminfo {
        pid,
        process,
        memory,
    })
}

/// The App Summary's PSS column, when printed.
fn app_summary(block: &str) -> Option<MemoryReading> {
    let at = block.find("App Summary")?;
    let mut m = MemoryReading::new(MemorySource::AppSummary);
    for line in block[at..].lines().skip(1).map(str::trim) {
        if line == "Objects" || line == "SQL" {
            break;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let v = leading_u64(rest);
        match key.trim() {
            "Java Heap" => m.java_heap_kib = v,
            "Native Heap" => m.native_heap_kib = v,
            "Code" => m.code_kib = v,
            "Stack" => m.stack_kib = v,
            "Graphics" => m.graphics_kib = v,
            // `TOTAL PSS:` (Android 10+), `TOTAL:` (6-9).
            "TOTAL PSS" | "TOTAL" => m.pss_total_kib = v,
            _ => {}
        }
    }
    Some(m)
}

/// The table's PSS: TOTAL, the heaps' rows, and graphics as Android's summary counts it (the
/// `Graphics` row, or `Gfx dev` + `EGL mtrack` + `GL mtrack`).
fn table(block: &str) -> MemoryReading {
    let rows = pss_rows(block);
    let row = |names: &[&str]| {
        rows.iter()
            .find(|(label, _)| names.contains(&label.as_str()))
            .map(|(_, v)| *v)
    };
    let graphics: Vec<u64> = ["Graphics", "Gfx dev", "EGL mtrack", "GL mtrack"]
        .iter()
        .filter_map(|n| row(&[n]))
        .collect();
    MemoryReading {
        pss_total_kib: row(&["TOTAL"]),
        java_heap_kib: row(&["Dalvik Heap", "Dalvik"]),
        native_heap_kib: row(&["Native Heap", "Native"]),
        graphics_kib: (!graphics.is_empty()).then(|| graphics.iter().sum()),
        ..MemoryReading::new(MemorySource::Table)
    }
}

/// Each table row's label and PSS, the PSS column found by the two header lines above the
/// dashes (`Pss` over `Total`, or `Pss` alone).
fn pss_rows(block: &str) -> Vec<(String, u64)> {
    let lines: Vec<&str> = block.lines().collect();
    let Some(dashes) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("------"))
    else {
        return Vec::new();
    };
    if dashes < 2 {
        return Vec::new();
    }
    let columns = column_names(lines[dashes - 2], lines[dashes - 1]);
    let Some(pss) = columns.iter().position(|c| c == "Pss Total" || c == "Pss") else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for line in &lines[dashes + 1..] {
        if line.trim().is_empty() {
            break;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first_number) = words.iter().position(|w| w.parse::<u64>().is_ok()) else {
            continue;
        };
        let values: Vec<Option<u64>> = words[first_number..]
            .iter()
            .map(|w| w.parse().ok())
            .collect();
        if let Some(Some(v)) = values.get(pss) {
            rows.push((words[..first_number].join(" "), *v));
        }
    }
    rows
}

/// The names of the columns of a two-line, right-aligned header: each lower word, after the
/// upper word ending at the same place when there is one (`Shared` over `Dirty`).
fn column_names(upper: &str, lower: &str) -> Vec<String> {
    let upper = words_by_end(upper);
    words_by_end(lower)
        .into_iter()
        .map(|(end, word)| match upper.iter().find(|(e, _)| *e == end) {
            Some((_, over)) => format!("{over} {word}"),
            None => word.to_string(),
        })
        .collect()
}

/// The words of `line` with the (byte) offset where each ends.
fn words_by_end(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((i, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
#[path = "meminfo_tests.rs"]
mod tests;
