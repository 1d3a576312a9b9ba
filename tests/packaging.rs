//! Packaging facts, checked on the files since no Docker engine runs here: `Dockerfile.lint`
//! pins its toolchain to an exact release, runs the test command's lint steps
//! (`scripts/lint.sh`), keeps `target/` and `.git` out of its build context, and copies every
//! manifest of the workspace into its dependency layer, whose stub sources make a workspace
//! cargo loads. And the workspace's `rust-version` is no lower than what any locked dependency
//! needs on the platforms the product builds for.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The platforms the product builds for: a dependency that only one of them uses counts.
/// (Not every platform cargo knows: `cfg(loom)` or wasm-only dependencies do not.)
const PLATFORMS: &[&str] = &[
    "x86_64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "aarch64-apple-darwin",
    "x86_64-apple-darwin",
    "x86_64-pc-windows-msvc",
    "x86_64-pc-windows-gnu",
];

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// `cargo ARGS` in `dir`, its stdout (the test fails with its stderr if it fails).
fn cargo_out(dir: &Path, args: &[&str]) -> String {
    let out = cargo().args(args).current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `1.89`, `1.88.0`, `1.95.0` as comparable numbers (a missing patch is 0).
fn version(s: &str) -> Option<(u64, u64, u64)> {
    let mut parts = s.split('.').map(|p| p.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next()??;
    let patch = parts.next().unwrap_or(Some(0))?;
    parts.next().is_none().then_some((major, minor, patch))
}

/// The `rust-version` of the workspace: the one its members share.
fn declared_rust_version(metadata: &serde_json::Value) -> (u64, u64, u64) {
    let members: BTreeSet<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let declared: BTreeSet<(String, Option<&str>)> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| members.contains(p["id"].as_str().unwrap()))
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["rust_version"].as_str(),
            )
        })
        .collect();
    let versions: BTreeSet<Option<&str>> = declared.iter().map(|(_, v)| *v).collect();
    assert_eq!(
        versions.len(),
        1,
        "every crate of the workspace declares one rust-version (`rust-version.workspace = true`): {declared:?}"
    );
    let v = versions.into_iter().next().unwrap();
    v.and_then(version)
        .unwrap_or_else(|| panic!("no rust-version in the workspace: {declared:?}"))
}

#[test]
fn locked_dependencies_need_no_newer_rust_than_the_workspace_declares() {
    let mut args = vec!["metadata", "--locked", "--format-version", "1"];
    for p in PLATFORMS {
        args.extend(["--filter-platform", p]);
    }
    // Not `--offline`: a machine that never built for the other platforms has not downloaded
    // their crates yet (cargo does, once); with all of them there, this reads no network.
    let metadata: serde_json::Value =
        serde_json::from_str(&cargo_out(Path::new(ROOT), &args)).unwrap();
    let declared = declared_rust_version(&metadata);
    let packages = metadata["packages"].as_array().unwrap();
    let with_version: Vec<(String, (u64, u64, u64))> = packages
        .iter()
        .filter_map(|p| {
            let v = p["rust_version"].as_str()?;
            let name = format!("{} {}", p["name"].as_str()?, p["version"].as_str()?);
            let v = version(v).unwrap_or_else(|| panic!("{name}: `{v}`"));
            Some((name, v))
        })
        .collect();
    // Most crates of crates.io say what they need: a reading that finds none read nothing.
    assert!(
        with_version.len() > packages.len() / 2,
        "{} of {} packages with a rust-version",
        with_version.len(),
        packages.len()
    );
    let above: Vec<String> = with_version
        .iter()
        .filter(|(_, v)| *v > declared)
        .map(|(name, (a, b, c))| format!("{name} needs Rust {a}.{b}.{c}"))
        .collect();
    assert!(
        above.is_empty(),
        "the workspace declares rust-version {}.{} (Cargo.toml, [workspace.package]), but the \
         locked dependencies need more: {}; raise it to what they need",
        declared.0,
        declared.1,
        above.join(", ")
    );
}

/// A Dockerfile's instructions: keyword (upper case) and its arguments, continuation lines
/// joined, comments and blank lines left out.
fn instructions(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_empty()) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                let (keyword, args) = current.split_once(char::is_whitespace).unwrap();
                out.push((keyword.to_uppercase(), args.trim().to_string()));
                current.clear();
            }
        }
    }
    out
}

fn dockerfile() -> Vec<(String, String)> {
    instructions(&read("Dockerfile.lint"))
}

/// Where the instructions copy the whole build context (`COPY . .`): what comes before is the
/// dependency layer.
fn tree_copy(instructions: &[(String, String)]) -> usize {
    instructions
        .iter()
        .position(|(k, a)| k == "COPY" && a.split_whitespace().collect::<Vec<_>>() == [".", "."])
        .expect("Dockerfile.lint copies the tree (`COPY . .`)")
}

/// The commands of a shell line (split at `&&`, `||`, `;`), each without the variable
/// assignments before it.
fn commands(line: &str) -> Vec<String> {
    line.split("&&")
        .flat_map(|s| s.split("||"))
        .flat_map(|s| s.split(';'))
        .map(|c| {
            c.split_whitespace()
                .skip_while(|w| w.contains('=') && !w.starts_with('-'))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn the_lint_image_pins_an_exact_toolchain_release() {
    let declared = declared_rust_version(&workspace_metadata());
    let froms: Vec<String> = dockerfile()
        .into_iter()
        .filter(|(k, _)| k == "FROM")
        .map(|(_, a)| a.split_whitespace().next().unwrap().to_string())
        .collect();
    assert!(!froms.is_empty(), "Dockerfile.lint has no FROM");
    for image in froms {
        let (name, tag) = image
            .rsplit_once('/')
            .map_or(image.as_str(), |(_, last)| last)
            .split_once(':')
            .unwrap_or_else(|| panic!("`{image}`: no tag, so whatever is latest"));
        assert_eq!(name, "rust", "`{image}`: the toolchain image");
        let release = tag.split('-').next().unwrap();
        let v = version(release)
            .filter(|_| release.split('.').count() == 3)
            .unwrap_or_else(|| {
                panic!("`{image}`: `{release}` is not an exact release (major.minor.patch)")
            });
        assert!(
            v >= declared,
            "`{image}` is older than the workspace's rust-version {declared:?}"
        );
    }
}

#[test]
fn the_lint_image_runs_the_lint_steps_of_the_test_command() {
    let lint_all = |c: &String| c == "scripts/lint.sh";
    let steps = dockerfile();
    let after_tree = &steps[tree_copy(&steps)..];
    assert!(
        after_tree
            .iter()
            .any(|(k, a)| k == "RUN" && commands(a).iter().any(lint_all)),
        "Dockerfile.lint runs `scripts/lint.sh` (every step) on the copied tree"
    );
    // The test command runs the same lints: fmt as the lint step; clippy while it builds the
    // tests (the host's libraries, binaries and tests, in the clippy environment, which the
    // tests run in too) and for macOS, every target and without default features, in the cross
    // checks (the host's clippy step would check every dependency once more).
    let lint = read("scripts/lint.sh");
    let every_step: Vec<&str> = lint
        .lines()
        .find_map(|l| l.strip_prefix("STEPS=("))
        .and_then(|l| l.strip_suffix(')'))
        .expect("scripts/lint.sh lists its STEPS")
        .split_whitespace()
        .collect();
    let test_sh = read("scripts/test.sh");
    let cross = read("scripts/cross_check.sh");
    let clippy_env = test_sh
        .find("\n. scripts/clippy_env.sh\n")
        .expect("scripts/test.sh sources the clippy environment");
    let clippy_build = clippy_env
        + test_sh[clippy_env..]
            .find("\ncargo test --workspace --lib --bins --tests --locked --no-run")
            .expect("scripts/test.sh builds its tests in the clippy environment");
    let test_run = test_sh
        .find("\ncargo test --workspace --lib --bins --tests --locked -- ")
        .expect("scripts/test.sh runs its tests");
    assert!(
        clippy_build < test_run,
        "the tests run on the build clippy linted, in its environment"
    );
    for step in [
        "clippy --target \"$t\" --workspace --all-targets --all-features --locked \\\n    -- -D warnings",
        "clippy --target \"$t\" --no-default-features --lib --bins --bench ui_pipeline \\\n      --locked -- -D warnings",
    ] {
        assert!(cross.contains(step), "scripts/cross_check.sh runs `{step}`");
    }
    // Those two are the steps `clippy` and `no_default_features`, run that way; the others are
    // run as scripts/lint.sh steps.
    let mut run: Vec<String> = vec!["clippy".into(), "no_default_features".into()];
    for c in test_sh.lines().flat_map(commands) {
        let words: Vec<&str> = c.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| *w == "scripts/lint.sh") else {
            continue;
        };
        match &words[at + 1..] {
            [] => run.extend(every_step.iter().map(|s| s.to_string())),
            named => run.extend(named.iter().map(|s| s.to_string())),
        }
    }
    for step in &every_step {
        assert!(
            run.iter().any(|r| r == step),
            "scripts/test.sh runs the lint step `{step}` (it ran {run:?})"
        );
    }
    // The steps users of the image expect, the build without the virtual device included.
    for step in [
        "cargo fmt --all -- --check",
        "cargo clippy --workspace --all-targets --all-features --locked -- -D warnings",
        "cargo check --no-default-features --lib --bins --bench ui_pipeline --locked",
    ] {
        assert!(lint.contains(step), "scripts/lint.sh runs `{step}`");
    }
}

/// What scripts/clippy_env.sh sets makes a build lint as `cargo clippy -- -D warnings` does: a
/// one-file crate that compiles cleanly fails under it with clippy's own lint (not rustc's).
#[test]
fn the_clippy_environment_denies_clippy_lints_in_a_build() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"lintme\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn twice(x: u32) -> u32 {\n    return x * 2;\n}\n",
    )
    .unwrap();
    let env_script = format!("{}/scripts/clippy_env.sh", env!("CARGO_MANIFEST_DIR"));
    let build = |with_clippy: bool| {
        let line = if with_clippy {
            format!(". '{env_script}' && cargo build --offline -q")
        } else {
            "cargo build --offline -q".to_string()
        };
        std::process::Command::new("bash")
            .args(["-c", &line])
            .current_dir(dir.path())
            .env("CARGO_TARGET_DIR", dir.path().join("target"))
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CLIPPY_ARGS")
            .env_remove("RUSTC_WRAPPER")
            .output()
            .unwrap()
    };
    let plain = build(false);
    assert!(
        plain.status.success(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let linted = build(true);
    let said = String::from_utf8_lossy(&linted.stderr);
    assert!(!linted.status.success(), "{said}");
    assert!(said.contains("clippy::needless_return"), "{said}");
}

#[test]
fn the_build_context_leaves_out_target_and_git() {
    let ignore = read(".dockerignore");
    let patterns: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    for (dir, forms) in [
        ("target", &["target", "/target", "target/", "**/target"][..]),
        (".git", &[".git", "/.git", ".git/"][..]),
    ] {
        assert!(
            patterns.iter().any(|p| forms.contains(p)),
            ".dockerignore leaves out {dir}: {patterns:?}"
        );
        assert!(
            !patterns
                .iter()
                .any(|p| p.starts_with('!') && p.trim_start_matches(['!', '/']).starts_with(dir)),
            ".dockerignore lets part of {dir} back in: {patterns:?}"
        );
    }
}

/// What the dependency layer's COPY instructions bring in: (source, where it lands), both
/// relative to the workspace (the image's WORKDIR).
fn dependency_layer_copies() -> Vec<(String, String)> {
    let steps = dockerfile();
    let mut out = Vec::new();
    for (keyword, args) in &steps[..tree_copy(&steps)] {
        if keyword != "COPY" {
            continue;
        }
        let words: Vec<&str> = args
            .split_whitespace()
            .filter(|w| !w.starts_with("--"))
            .collect();
        let (dest, sources) = words.split_last().unwrap();
        let dest = dest.trim_start_matches("./");
        for source in sources {
            let landed = if dest.is_empty() || dest.ends_with('/') {
                let base = Path::new(source).file_name().unwrap().to_str().unwrap();
                format!("{dest}{base}")
            } else {
                dest.to_string()
            };
            out.push((source.trim_start_matches("./").to_string(), landed));
        }
    }
    out
}

/// `cargo metadata --no-deps` of the workspace.
fn workspace_metadata() -> serde_json::Value {
    serde_json::from_str(&cargo_out(
        Path::new(ROOT),
        &[
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ],
    ))
    .unwrap()
}

/// The workspace's manifests, relative to its root: its members' and every `crates/*/`.
fn workspace_manifests() -> BTreeSet<String> {
    let metadata: serde_json::Value = workspace_metadata();
    let mut out: BTreeSet<String> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let path = PathBuf::from(p["manifest_path"].as_str().unwrap());
            let rel = path.strip_prefix(ROOT).unwrap().to_str().unwrap();
            rel.to_string()
        })
        .collect();
    for entry in std::fs::read_dir(Path::new(ROOT).join("crates")).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        if manifest.is_file() {
            let rel = manifest.strip_prefix(ROOT).unwrap().to_str().unwrap();
            out.insert(rel.to_string());
        }
    }
    out
}

#[test]
fn the_dependency_layer_copies_every_manifest_of_the_workspace() {
    let copies = dependency_layer_copies();
    let mut wanted = workspace_manifests();
    assert!(wanted.len() >= 3, "{wanted:?}");
    wanted.insert("Cargo.lock".to_string());
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|m| !copies.iter().any(|(s, landed)| s == *m && landed == *m))
        .collect();
    assert!(
        missing.is_empty(),
        "Dockerfile.lint's dependency layer (before `COPY . .`) does not copy {missing:?} to \
         where it belongs (it copies {copies:?})"
    );
}

#[test]
fn the_dependency_layer_is_a_workspace_cargo_loads() {
    // What the layer has before its build: the files it copies, then the stubs.
    let layer = tempfile::tempdir().unwrap();
    for (source, landed) in dependency_layer_copies() {
        let to = layer.path().join(&landed);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(ROOT).join(&source), &to)
            .unwrap_or_else(|e| panic!("{source}: {e}"));
    }
    let stubs = Command::new("bash")
        .arg("scripts/stub_sources.sh")
        .current_dir(layer.path())
        .output()
        .expect("bash");
    assert!(
        stubs.status.success(),
        "scripts/stub_sources.sh in the layer: {}",
        String::from_utf8_lossy(&stubs.stderr)
    );
    let written: Vec<String> = String::from_utf8(stubs.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    for file in &written {
        assert!(
            layer.path().join(file).is_file(),
            "stub {file} listed but not written"
        );
    }
    // Cargo loads the stubbed workspace and resolves it from the lock file as it is (for this
    // host, whose dependencies the tests' build has downloaded).
    cargo_out(
        layer.path(),
        &["tree", "--locked", "--offline", "--depth", "0"],
    );
    // Each stub stands where a target of the real workspace is, so the sources copied after
    // the build leave none behind.
    let metadata: serde_json::Value = workspace_metadata();
    let real: BTreeSet<String> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["targets"].as_array().unwrap())
        .map(|t| {
            let path = PathBuf::from(t["src_path"].as_str().unwrap());
            path.strip_prefix(ROOT)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let written: BTreeSet<String> = written.into_iter().collect();
    let stray: Vec<&String> = written.difference(&real).collect();
    assert!(
        stray.is_empty(),
        "stubs where the workspace has no target: {stray:?}"
    );
}

/// The flows interpreter's crate reaches the product only through the trait it defines: it
/// depends on no part of the product but the error crate, and on no HTTP server or client
/// (Cargo keeps it from naming the product; this keeps the server's stack out of it).
#[test]
fn the_flows_crate_depends_on_no_server() {
    let metadata = workspace_metadata();
    let flows = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "mobilectl-flows")
        .expect("the workspace has mobilectl-flows");
    let deps: Vec<&str> = flows["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"].is_null())
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(deps.contains(&"mobilectl-error"), "{deps:?}");
    let server = [
        "axum",
        "hyper",
        "hyper-util",
        "tower",
        "reqwest",
        "rmcp",
        "utoipa-axum",
    ];
    let named: Vec<&&str> = deps
        .iter()
        .filter(|d| (d.starts_with("mobilectl") && **d != "mobilectl-error") || server.contains(d))
        .collect();
    assert!(named.is_empty(), "mobilectl-flows depends on {named:?}");
}
