//! `flow check`: each flow file of a file or folder parsed and validated, sub-flows included,
//! without a device: runnable, or its refusals with file and line; and the share of the
//! commands met that the runner supports, by occurrence.

use std::path::Path;

use serde::Serialize;

use super::load;

/// One file's verdict.
#[derive(Debug, Serialize)]
pub struct FileCheck {
    /// The file's path, as found.
    pub file: String,
    /// No refusal: the flow can run.
    pub runnable: bool,
    /// Top-level steps (sub-flows count as one).
    pub steps: usize,
    /// Every refusal, first one first: `file:line: `command`: why`.
    pub refusals: Vec<String>,
    /// What may fail only when it runs, in the same form (a variable nothing here sets).
    pub warnings: Vec<String>,
}

/// A check of one or more files.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    /// Each file's verdict, in the order checked.
    pub files: Vec<FileCheck>,
    /// Commands written in the files checked (each once), and how many are supported with
    /// the arguments they have.
    pub commands: usize,
    /// Of `commands`, those supported with their arguments.
    pub supported: usize,
}

impl CheckReport {
    /// Every file can run.
    pub fn ok(&self) -> bool {
        self.files.iter().all(|f| f.runnable)
    }

    /// Supported commands over all commands met, in percent.
    pub fn share(&self) -> f64 {
        match self.commands {
            0 => 100.0,
            n => 100.0 * self.supported as f64 / n as f64,
        }
    }

    /// The report as text: a line per file, its first refusal, and the share.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for f in &self.files {
            let more = |n: usize| match n {
                0 | 1 => String::new(),
                n => format!(" (+{} more)", n - 1),
            };
            match f.refusals.first() {
                None => {
                    out += &format!("ok    {} ({} steps)\n", f.file, f.steps);
                    if let Some(w) = f.warnings.first() {
                        out += &format!("      warning: {w}{}\n", more(f.warnings.len()));
                    }
                }
                Some(r) => {
                    out += &format!("FAIL  {}\n      {r}{}\n", f.file, more(f.refusals.len()));
                }
            }
        }
        let runnable = self.files.iter().filter(|f| f.runnable).count();
        let warned = self.files.iter().filter(|f| !f.warnings.is_empty()).count();
        out += &format!(
            "{runnable}/{} files runnable ({warned} with warnings); {}/{} commands supported ({:.1} %)\n",
            self.files.len(),
            self.supported,
            self.commands,
            self.share()
        );
        out
    }
}

/// Checks `path` (a flow file or a folder of them) with the variables `env` set. Sub-flows
/// stay inside the folder given, or for a file its workspace ([`load::workspace_of`]).
pub fn check(path: &Path, env: &[(String, String)]) -> Result<CheckReport, String> {
    let mut report = CheckReport {
        files: vec![],
        commands: 0,
        supported: 0,
    };
    let root = match path.is_dir() {
        true => path.to_path_buf(),
        false => load::workspace_of(path),
    };
    for file in load::flow_files(path)? {
        let parsed = load::parse_file(&file, &root, env);
        // Each file's own commands, once (its sub-flows are files of their own).
        let own = parsed.commands.iter().filter(|(_, _, f)| *f == parsed.top);
        let (all, ok) = own.fold((0, 0), |(a, o), (_, s, _)| (a + 1, o + usize::from(*s)));
        report.commands += all;
        report.supported += ok;
        report.files.push(FileCheck {
            file: file.display().to_string(),
            runnable: parsed.refusals.is_empty(),
            steps: parsed.flow.steps.len(),
            refusals: parsed.refusals.iter().map(ToString::to_string).collect(),
            warnings: parsed.warnings.iter().map(ToString::to_string).collect(),
        });
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).expect("write");
    }

    #[test]
    fn sub_flows_cycles_missing_files_and_escapes() {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = tmp.path().join("flows");
        std::fs::create_dir(&d).expect("dir");
        write(&d, "a.yaml", "- runFlow: b.yaml\n");
        write(&d, "b.yaml", "- runFlow: {file: a.yaml}\n");
        write(&d, "missing.yaml", "- runFlow: nope.yaml\n");
        write(tmp.path(), "secret.yaml", "- back\n");
        write(&d, "escape.yaml", "- runFlow: ../secret.yaml\n");
        write(&d, "env.yaml", "appId: x\n---\n- inputText: ${WHO}\n- runFlow: {env: {N: 1}, commands: [{inputText: '${N}'}]}\n");
        write(
            &d,
            "good.yaml",
            "appId: x\n---\n- runFlow: {file: sub.yml, env: {W: 2}}\n",
        );
        write(&d, "sub.yml", "- inputText: ${W}\n");
        let r = check(&d, &[]).expect("check");
        let by = |name: &str| r.files.iter().find(|f| f.file.ends_with(name)).expect(name);
        assert!(
            by("a.yaml").refusals[0].contains("cycle"),
            "{:?}",
            by("a.yaml")
        );
        assert!(
            by("missing.yaml").refusals[0].contains("cannot be read"),
            "{:?}",
            by("missing.yaml")
        );
        assert!(
            by("escape.yaml").refusals[0].contains("outside the flow's folder"),
            "{:?}",
            by("escape.yaml")
        );
        // A variable nothing sets is a warning: CI may give it when the flow runs.
        let env = by("env.yaml");
        assert!(env.runnable && env.refusals.is_empty(), "{env:?}");
        assert_eq!(env.warnings.len(), 1, "{env:?}");
        assert!(env.warnings[0].contains("`${WHO}` is not set"), "{env:?}");
        assert!(
            env.warnings[0].contains("env.yaml:3: `inputText`"),
            "{env:?}"
        );
        assert!(r.text().contains("warning: "), "{}", r.text());
        assert!(by("good.yaml").runnable, "{:?}", by("good.yaml"));
        let r = check(&d.join("env.yaml"), &[("WHO".into(), "me".into())]).expect("check");
        assert!(r.ok() && r.files[0].warnings.is_empty(), "{}", r.text());
        let r = check(&d.join("escape.yaml"), &[]).expect("check");
        assert!(
            r.text().contains("outside the flow's folder"),
            "{}",
            r.text()
        );
    }
}
