//! `mobilectl audit`: the accessibility audit of the screen now (the `audit` operation), or of
//! a saved dump and screenshot offline (`--from-file DUMP [--screenshot PNG]`, no server), in
//! text, JSON, SARIF 2.1.0 or JUnit; `--baseline FILE` keeps the findings new against a saved
//! audit (its JSON) and `--fail-on SEVERITY` exits 1 when one is at or above it; `--annotate
//! FILE.png` writes the screenshot with each finding's box.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use clap::Args;
use serde_json::{json, Value};

use crate::audit::{self, Audit, Severity};
use crate::client::exit;

/// Flags of `audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Audit a saved UI dump instead of the screen now (no server).
    #[arg(long, value_name = "DUMP")]
    pub from_file: Option<PathBuf>,
    /// With --from-file: the screenshot taken with the dump, for the contrast rules.
    #[arg(long, value_name = "PNG", requires = "from_file")]
    pub screenshot: Option<PathBuf>,
    /// Android screen density in dpi (`adb shell wm density`), for touch target sizes in dp.
    /// The server reads it from the device when not given.
    #[arg(long, value_name = "DPI")]
    pub density: Option<f64>,
    /// A saved audit (the JSON of `audit --format json`): report only the findings new
    /// against it.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Exit 1 when a (new) finding is at or above this severity: info, warning, error.
    #[arg(long, value_name = "SEVERITY", value_parser = ["info", "warning", "error"])]
    pub fail_on: Option<String>,
    /// text (one line a finding), json, sarif (SARIF 2.1.0) or junit.
    #[arg(long, value_parser = ["text", "json", "sarif", "junit"])]
    pub format: Option<String>,
    /// Write the screenshot with each finding's box and rule drawn on it to this PNG.
    #[arg(long, value_name = "FILE.png")]
    pub annotate: Option<PathBuf>,
}

impl AuditArgs {
    fn fail_on(&self) -> Option<Severity> {
        self.fail_on.as_deref().and_then(Severity::parse)
    }

    fn format(&self, json_flag: bool) -> &str {
        match (self.format.as_deref(), json_flag) {
            (Some(f), _) => f,
            (None, true) => "json",
            (None, false) => "text",
        }
    }
}

fn fail(msg: String, code: i32) -> i32 {
    eprintln!("mobilectl: {msg}");
    code
}

/// A saved audit file's JSON, or why it is not one.
pub(super) fn read_baseline(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not a saved audit (the JSON of an audit): {e}",
            path.display()
        )
    })?;
    audit::baseline::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(v)
}

/// The request body of the `audit` operation for these flags.
pub fn body(a: &AuditArgs) -> Result<Value, String> {
    let baseline = a.baseline.as_deref().map(read_baseline).transpose()?;
    Ok(json!({
        "density": a.density,
        "baseline": baseline,
        "fail_on": a.fail_on,
        "annotate": a.annotate.is_some().then_some(true),
    }))
}

/// Prints an audit's answer (its JSON as the server gave it, or the offline one) in the
/// chosen format, writes the picture, and answers the exit code.
pub fn finish(v: &Value, a: &AuditArgs, json_flag: bool, artifact: &str) -> i32 {
    if let (Some(path), Some(b64)) = (a.annotate.as_deref(), v["image"].as_str()) {
        let written = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| e.to_string())
            .and_then(|png| std::fs::write(path, png).map_err(|e| e.to_string()));
        if let Err(e) = written {
            return fail(
                format!("cannot write {}: {e}", path.display()),
                exit::FAILED,
            );
        }
    }
    let mut shown = v.clone();
    if let Some(o) = shown.as_object_mut() {
        o.remove("image");
    }
    let parsed: Option<Audit> = serde_json::from_value(shown.clone()).ok();
    let level = a.fail_on().unwrap_or(Severity::Error);
    let out = match (a.format(json_flag), &parsed) {
        ("json", _) => serde_json::to_string_pretty(&shown).unwrap_or_default(),
        ("sarif", Some(p)) => audit::sarif::to_sarif(p, artifact),
        ("junit", Some(p)) => audit::junit::to_junit(p, artifact, level),
        _ => crate::render::audit::audit(&shown),
    };
    println!("{}", out.trim_end());
    if a.annotate.is_some() && v["image"].is_null() {
        eprintln!("mobilectl: no picture drawn (no screenshot)");
    }
    match (a.fail_on(), &parsed) {
        (Some(l), Some(p)) if p.fails(l) => exit::FAILED,
        _ => exit::OK,
    }
}

/// `audit --from-file`: audits a saved dump (and screenshot) without a server.
pub fn run_offline(dump: &Path, a: &AuditArgs, json_flag: bool) -> i32 {
    let text = match std::fs::read(dump) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => return fail(format!("cannot read {}: {e}", dump.display()), exit::USAGE),
    };
    let tree = match crate::ui::parse_any(&text) {
        Ok(t) => t,
        Err(e) => {
            return fail(
                format!("{}: not a UI dump I can read: {e}", dump.display()),
                exit::FAILED,
            )
        }
    };
    let screen = crate::ui::analyze_owned(tree, None, &crate::ui::ViewOptions::default());
    let pixels = match a.screenshot.as_deref().map(|p| {
        std::fs::read(p)
            .map_err(|e| format!("cannot read {}: {e}", p.display()))
            .and_then(|b| audit::picture::decode(&b).map_err(|e| format!("{}: {e}", p.display())))
    }) {
        Some(Err(e)) => return fail(e, exit::USAGE),
        Some(Ok(img)) => Some(img),
        None => None,
    };
    let baseline = match a.baseline.as_deref().map(read_baseline).transpose() {
        Ok(b) => b,
        Err(e) => return fail(e, exit::USAGE),
    };
    let result = audit::audit(&audit::Input {
        screen: &screen,
        screenshot: pixels.as_ref(),
        density: a.density,
    });
    let mut found = match result {
        Ok(r) => r,
        Err(e) => return fail(format!("{}: {e}", dump.display()), exit::FAILED),
    };
    if let Some(b) = baseline.and_then(|b| serde_json::from_value::<Audit>(b).ok()) {
        found = audit::baseline::new_findings(&found, &b);
    }
    let mut v = serde_json::to_value(&found).unwrap_or_default();
    if a.baseline.is_some() {
        v["baseline"] = json!({ "path": a.baseline.as_deref().map(|p| p.display().to_string()) });
    }
    if let (Some(_), Some(img)) = (a.annotate.as_deref(), pixels.as_ref()) {
        match audit::picture::annotate(&found, img).and_then(|p| audit::picture::png(&p)) {
            Ok(png) => v["image"] = json!(base64::engine::general_purpose::STANDARD.encode(png)),
            Err(e) => return fail(e.to_string(), exit::FAILED),
        }
    }
    finish(&v, a, json_flag, &dump.display().to_string())
}
