//! Suites: the flows of a folder that Maestro's workspace `config.yaml` (or `config.yml`)
//! selects, in the order it runs them. Its `flows` globs, relative to the folder (default
//! `*`: the folder's own flow files, not its sub-folders'; `**` reaches into them; a glob
//! climbing out of the folder is refused); `includeTags` and `excludeTags`, with those given on
//! the command line (a flow runs when it has one of the included tags, if any are named, and
//! none of the excluded); `executionOrder`: `flowsOrder` (flows by name, run first, in that
//! order) and `continueOnFailure` (default true). Keys for Maestro's cloud are ignored.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::load;
use super::wire::{FlowRunResult, SuiteFlow, SuiteFlowStatus, SuiteResult};
use super::yaml::{self, Node};

/// The names a workspace's config goes by, in the order looked for.
const CONFIG_FILES: [&str; 2] = ["config.yaml", "config.yml"];

/// Most flow files a suite runs.
pub const MAX_FLOWS: usize = 1000;
/// Most entries (files and folders) looked at under a suite's folder.
pub const MAX_ENTRIES: usize = 20_000;

/// What a workspace's `config.yaml` says of the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Globs of the flow files to run, relative to the folder.
    pub flows: Vec<String>,
    /// Run only flows with one of these tags (none: every flow).
    pub include_tags: Vec<String>,
    /// Never run flows with one of these tags.
    pub exclude_tags: Vec<String>,
    /// Flows by name run first, in this order.
    pub flows_order: Vec<String>,
    /// Run the flows after a failed one (Maestro's default, true).
    pub continue_on_failure: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            flows: vec!["*".into()],
            include_tags: vec![],
            exclude_tags: vec![],
            flows_order: vec![],
            continue_on_failure: true,
        }
    }
}

/// One flow of a suite: its file, its name (the header's, else the file's stem), its tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The flow file, relative to the suite's folder (`/` between folders).
    pub file: String,
    /// What reports and `flowsOrder` call it.
    pub name: String,
    /// Its header's `tags`.
    pub tags: Vec<String>,
}

/// The flows a suite runs, in order, and those its tags left out.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The flows to run, in order.
    pub flows: Vec<Planned>,
    /// The flow files the globs matched and the tags left out.
    pub left_out: Vec<Planned>,
    /// Run the flows after a failed one.
    pub continue_on_failure: bool,
}

/// The workspace config of `dir` (`config.yaml`, else `config.yml`; none: the defaults).
pub fn config_of(dir: &Path) -> Result<Config, String> {
    for name in CONFIG_FILES {
        let path = dir.join(name);
        if path.is_file() {
            let text = load::read(&path)?;
            return parse_config(&text).map_err(|e| format!("{}: {e}", path.display()));
        }
    }
    Ok(Config::default())
}

/// A workspace config's text.
pub fn parse_config(text: &str) -> Result<Config, String> {
    let docs = yaml::parse(text).map_err(|e| format!("line {}: {}", e.line, e.message))?;
    let mut c = Config::default();
    let Some(root) = docs.first().filter(|d| !d.is_null()) else {
        return Ok(c);
    };
    let pairs = root
        .map()
        .ok_or_else(|| format!("a config is a map, not {}", root.kind()))?;
    let list = |n: &Node, key: &str| {
        super::parse::string_list(n).map_err(|e| format!("line {}: `{key}`: {e}", n.line))
    };
    for (k, v) in pairs {
        match k.str().unwrap_or_default() {
            "flows" => c.flows = list(v, "flows")?,
            "includeTags" => c.include_tags = list(v, "includeTags")?,
            "excludeTags" => c.exclude_tags = list(v, "excludeTags")?,
            "executionOrder" => {
                if let Some(order) = v.get("flowsOrder") {
                    c.flows_order = list(order, "flowsOrder")?;
                }
                if let Some(go_on) = v.get("continueOnFailure") {
                    c.continue_on_failure = go_on.bool().ok_or_else(|| {
                        format!("line {}: `continueOnFailure` is true or false", go_on.line)
                    })?;
                }
            }
            // Settings of Maestro's cloud and its own runner (appStartup, appSize,
            // disableRetries, platform, notifications…): nothing to do here.
            _ => {}
        }
    }
    for g in &c.flows {
        if g.starts_with('/') || g.split(['/', '\\']).any(|part| part == "..") {
            return Err(format!(
                "the glob `{g}` reaches outside the suite's folder: globs are relative to it"
            ));
        }
    }
    globs(&c.flows)?;
    Ok(c)
}

/// The flows of `dir` that `config` selects, with the tags given on the command line added to
/// its own, in the order they run.
pub fn plan(
    dir: &Path,
    config: &Config,
    include: &[String],
    exclude: &[String],
) -> Result<Plan, String> {
    let paths = files_under(dir)?
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(dir).unwrap_or(f);
            rel.to_string_lossy().replace('\\', "/")
        })
        .collect();
    select(
        paths,
        |rel| load::read(&dir.join(rel)).ok(),
        config,
        include,
        exclude,
    )
    .map_err(|e| format!("{}: {e}", dir.display()))
}

/// A suite's folder as [`plan_posted`] takes it: its flow files and its `config.yaml`, by path
/// relative to it (bounded as [`plan`] is; each file at most a flow's size).
pub fn folder_files(dir: &Path) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut out = std::collections::BTreeMap::new();
    for f in files_under(dir)? {
        let rel = f.strip_prefix(dir).unwrap_or(&f);
        out.insert(rel.to_string_lossy().replace('\\', "/"), load::read(&f)?);
    }
    for name in CONFIG_FILES {
        let path = dir.join(name);
        if path.is_file() {
            out.insert(name.to_string(), load::read(&path)?);
        }
    }
    Ok(out)
}

/// The flows of a posted suite: its files by path relative to its folder (a `config.yaml`
/// among them is the workspace config, not a flow).
pub fn plan_posted(
    files: &std::collections::BTreeMap<String, String>,
    include: &[String],
    exclude: &[String],
) -> Result<Plan, String> {
    let config = match CONFIG_FILES.iter().find_map(|name| files.get(*name)) {
        Some(text) => parse_config(text).map_err(|e| format!("config.yaml: {e}"))?,
        None => Config::default(),
    };
    let mut paths: Vec<String> = files
        .keys()
        .filter(|k| load::is_flow_name(Path::new(k)))
        .cloned()
        .collect();
    paths.sort();
    select(
        paths,
        |rel| files.get(rel).cloned(),
        &config,
        include,
        exclude,
    )
}

/// Selects and orders `paths` (relative, sorted), reading a flow's header with `text_of`.
fn select(
    paths: Vec<String>,
    text_of: impl Fn(&str) -> Option<String>,
    config: &Config,
    include: &[String],
    exclude: &[String],
) -> Result<Plan, String> {
    let globs = globs(&config.flows)?;
    let matched: Vec<String> = paths.into_iter().filter(|p| globs.is_match(p)).collect();
    if matched.len() > MAX_FLOWS {
        return Err(format!(
            "the globs {:?} match {} flow files; a suite runs at most {MAX_FLOWS}",
            config.flows,
            matched.len()
        ));
    }
    let found = matched.len();
    let include: Vec<&String> = config.include_tags.iter().chain(include).collect();
    let exclude: Vec<&String> = config.exclude_tags.iter().chain(exclude).collect();
    let (mut flows, mut left_out) = (vec![], vec![]);
    for file in matched {
        let planned = header_of(&file, text_of(&file).as_deref());
        let wanted = include.is_empty() || planned.tags.iter().any(|t| include.contains(&t));
        let unwanted = planned.tags.iter().any(|t| exclude.contains(&t));
        match wanted && !unwanted {
            true => flows.push(planned),
            false => left_out.push(planned),
        }
    }
    if flows.is_empty() {
        return Err(format!(
            "no flow to run: the globs {:?} matched {found} flow files, and the tags left out {}",
            config.flows,
            left_out.len()
        ));
    }
    // `flowsOrder` first, in its order; the rest as found (sorted by path).
    let mut first = vec![];
    for name in &config.flows_order {
        let at = flows.iter().position(|f| &f.name == name).ok_or_else(|| {
            format!(
                "`executionOrder.flowsOrder` names `{name}`, which is not a flow this suite runs"
            )
        })?;
        first.push(flows.remove(at));
    }
    first.append(&mut flows);
    Ok(Plan {
        flows: first,
        left_out,
        continue_on_failure: config.continue_on_failure,
    })
}

/// How one planned flow ended, for [`result`].
#[derive(Debug, Clone)]
pub enum Outcome {
    /// It ran: its result.
    Ran(FlowRunResult),
    /// It was refused: why.
    Invalid(String),
    /// An earlier failure stopped the suite.
    NotRun,
}

/// The suite's result: each planned flow with its outcome (`outcomes` in the plan's order).
pub fn result(plan: &Plan, outcomes: Vec<Outcome>) -> SuiteResult {
    let mut outcomes = outcomes.into_iter();
    let flows = plan
        .flows
        .iter()
        .map(|f| flow(f, outcomes.next().unwrap_or(Outcome::NotRun)))
        .collect();
    tally(plan, flows)
}

/// One planned flow as the suite's result tells it, with its outcome: what a streamed suite
/// sends as each flow ends.
pub fn flow(f: &Planned, outcome: Outcome) -> SuiteFlow {
    let mut flow = SuiteFlow {
        file: f.file.clone(),
        name: f.name.clone(),
        tags: f.tags.clone(),
        status: SuiteFlowStatus::NotRun,
        udid: None,
        duration_ms: None,
        artifacts: None,
        error: None,
    };
    match outcome {
        Outcome::Ran(r) => {
            flow.status = match r.success {
                true => SuiteFlowStatus::Passed,
                false => SuiteFlowStatus::Failed,
            };
            flow.duration_ms = Some(r.duration_ms);
            flow.udid = Some(r.udid.clone());
            flow.error = r
                .failed_step
                .and_then(|i| r.steps.get(i))
                .and_then(|s| s.error.clone());
            flow.artifacts = r.artifacts;
        }
        Outcome::Invalid(why) => {
            flow.status = SuiteFlowStatus::Invalid;
            flow.error = Some(why);
        }
        Outcome::NotRun => {}
    }
    flow
}

/// The suite's result from each of its flows as [`flow`] told it (in the plan's order): the
/// counts, and the files the plan's tags left out.
pub fn tally(plan: &Plan, flows: Vec<SuiteFlow>) -> SuiteResult {
    let count = |s: SuiteFlowStatus| flows.iter().filter(|f| f.status == s).count();
    SuiteResult {
        success: flows.iter().all(|f| f.status == SuiteFlowStatus::Passed),
        passed: count(SuiteFlowStatus::Passed),
        failed: count(SuiteFlowStatus::Failed),
        invalid: count(SuiteFlowStatus::Invalid),
        not_run: count(SuiteFlowStatus::NotRun),
        left_out: plan.left_out.iter().map(|f| f.file.clone()).collect(),
        flows,
    }
}

fn globs(patterns: &[String]) -> Result<GlobSet, String> {
    let mut set = GlobSetBuilder::new();
    for p in patterns {
        // `dir/*` also names the flows of `dir` when written `dir/` or `dir`.
        let p = p.trim_end_matches('/');
        let glob = GlobBuilder::new(p)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("`{p}` is not a glob: {e}"))?;
        set.add(glob);
        if !p.contains(['*', '?', '[', '{']) {
            let dir = GlobBuilder::new(&format!("{p}/*"))
                .literal_separator(true)
                .build()
                .map_err(|e| format!("`{p}` is not a glob: {e}"))?;
            set.add(dir);
        }
    }
    set.build().map_err(|e| e.to_string())
}

/// The flow files under `dir` (not the workspace config), sorted; refused past
/// [`MAX_ENTRIES`] entries.
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a folder", dir.display()));
    }
    let (mut out, mut dirs, mut seen) = (vec![], vec![dir.to_path_buf()], 0usize);
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for e in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(format!(
                    "{} holds more than {MAX_ENTRIES} files and folders: give the suite's own folder",
                    dir.display()
                ));
            }
            let Ok(kind) = e.file_type() else { continue };
            let p = e.path();
            if kind.is_dir() {
                dirs.push(p);
            } else if kind.is_file() && load::is_flow_name(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A flow file's name and tags, from its header alone (a file that does not parse is still
/// planned: its run reports why).
fn header_of(file: &str, text: Option<&str>) -> Planned {
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let header = text
        .and_then(|text| yaml::parse(text).ok())
        .filter(|docs| docs.len() > 1)
        .and_then(|docs| docs.into_iter().next());
    let name = header
        .as_ref()
        .and_then(|h| h.get("name"))
        .and_then(Node::str)
        .map(str::to_string)
        .unwrap_or(stem);
    let tags = header
        .as_ref()
        .and_then(|h| h.get("tags"))
        .and_then(|t| super::parse::string_list(t).ok())
        .unwrap_or_default();
    Planned {
        file: file.to_string(),
        name,
        tags,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
        std::fs::write(p, text).expect("write");
    }

    fn names(p: &Plan) -> Vec<&str> {
        p.flows.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn globs_tags_and_order_select_the_flows_as_maestro_does() {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = tmp.path();
        write(d, "login.yaml", "name: Login\ntags: [smoke]\n---\n- back\n");
        write(d, "cart.yaml", "tags:\n  - slow\n---\n- back\n");
        write(d, "plain.yml", "- back\n");
        write(d, "tests/deep/checkout.yaml", "tags: smoke\n---\n- back\n");
        write(d, "helpers/util.yaml", "tags: [util]\n---\n- back\n");
        // Default: the folder's own flows only, sorted by path.
        let p = plan(d, &Config::default(), &[], &[]).expect("plan");
        assert_eq!(names(&p), ["cart", "Login", "plain"]);
        // `**` reaches into sub-folders; tags from the config and the command line add up.
        let c = parse_config("flows:\n  - '**'\nexcludeTags: [util]\n").expect("config");
        let p = plan(d, &c, &[], &["slow".to_string()]).expect("plan");
        assert_eq!(names(&p), ["Login", "plain", "checkout"]);
        assert_eq!(p.left_out.len(), 2);
        let p = plan(d, &c, &["smoke".to_string()], &[]).expect("plan");
        assert_eq!(names(&p), ["Login", "checkout"]);
        // A folder named alone is its flows; flowsOrder runs first, in its order.
        let c = parse_config(
            "flows: [tests/deep/, '*.yaml']\nexecutionOrder:\n  continueOnFailure: false\n  flowsOrder: [checkout, cart]\n",
        )
        .expect("config");
        let p = plan(d, &c, &[], &[]).expect("plan");
        assert_eq!(names(&p), ["checkout", "cart", "Login"]);
        assert!(!p.continue_on_failure);
        // The Rocket.Chat workspace's own config reads.
        let c = parse_config(
            "appId: chat.rocket.reactnative\nflows:\n  - tests/**\nexcludeTags:\n  - 'util'\n",
        )
        .expect("config");
        assert_eq!(
            (c.flows, c.exclude_tags),
            (vec!["tests/**".to_string()], vec!["util".to_string()])
        );
    }

    #[test]
    fn bad_suites_are_clear_errors() {
        let tmp = tempfile::tempdir().expect("tmp");
        let d = tmp.path();
        write(d, "a.yaml", "- back\n");
        for (config, want) in [
            ("flows: ['../**']\n", "reaches outside the suite's folder"),
            ("flows: ['/etc/*']\n", "reaches outside the suite's folder"),
            ("flows: ['[']\n", "is not a glob"),
            (
                "executionOrder: {continueOnFailure: maybe}\n",
                "true or false",
            ),
            ("flows: {a: 1}\n", "a list of strings"),
            ("- 1\n", "a config is a map"),
        ] {
            let e = parse_config(config).map(|_| ()).expect_err(config);
            assert!(e.contains(want), "{config}: {e}");
        }
        let c = parse_config("executionOrder: {flowsOrder: [nope]}\n").expect("config");
        let e = plan(d, &c, &[], &[]).expect_err("unknown name");
        assert!(e.contains("names `nope`"), "{e}");
        let e = plan(d, &Config::default(), &["none".into()], &[]).expect_err("nothing");
        assert!(e.contains("no flow"), "{e}");
        let e = plan(&d.join("a.yaml"), &Config::default(), &[], &[]).expect_err("a file");
        assert!(e.contains("is not a folder"), "{e}");
    }

    #[test]
    fn a_posted_suite_plans_as_its_folder_would() {
        let files: std::collections::BTreeMap<String, String> = [
            ("config.yaml", "flows: ['**']\nexcludeTags: [util]\n"),
            ("login.yaml", "name: Login\ntags: [smoke]\n---\n- back\n"),
            ("helpers/util.yaml", "tags: [util]\n---\n- back\n"),
            ("tests/cart.yml", "- back\n"),
            ("notes.txt", "not a flow"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let p = plan_posted(&files, &[], &[]).expect("plan");
        assert_eq!(names(&p), ["Login", "cart"]);
        assert_eq!(p.flows[1].file, "tests/cart.yml");
        assert_eq!(p.left_out[0].file, "helpers/util.yaml");
        let mut bad = files.clone();
        bad.insert("config.yaml".into(), "flows: ['../*']\n".into());
        let e = plan_posted(&bad, &[], &[]).expect_err("escape");
        assert!(
            e.starts_with("config.yaml: ") && e.contains("outside"),
            "{e}"
        );
    }

    #[test]
    fn a_folder_of_too_many_files_is_refused_before_any_is_read() {
        let tmp = tempfile::tempdir().expect("tmp");
        for i in 0..=MAX_ENTRIES {
            std::fs::write(tmp.path().join(format!("f{i}.txt")), "").expect("write");
        }
        let e = plan(tmp.path(), &Config::default(), &[], &[]).expect_err("too many");
        assert!(e.contains("more than 20000"), "{e}");
    }
}
