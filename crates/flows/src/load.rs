//! Flow files on disk: reading a file or a folder of flows, sub-flows resolved against the
//! file naming them and kept inside the top flow's folder, and the checks a whole flow passes
//! before it runs: no refusal. A `${NAME}` that nothing sets (`--env`, the flow's `env`, a
//! `runFlow`'s `env`, Maestro itself) is a warning: the step that needs it fails when it runs,
//! naming the variable.

use std::path::{Path, PathBuf};

use super::model::{Command, Flow, Step};
use super::parse::{self, Loader, Parsed, Refusal};
use super::vars;
use super::yaml::MAX_FLOW_BYTES;

/// Largest photo or video one `addMedia` adds.
pub const MAX_MEDIA_BYTES: usize = 32 * 1024 * 1024;

/// Reads sub-flows from disk, inside `root` only.
pub struct Files {
    /// The folder sub-flows must stay in, canonical.
    pub root: PathBuf,
}

impl Files {
    /// The real path of `path`, resolved against `from`, when it is inside `root`.
    fn inside(&self, from: &str, path: &str) -> Result<PathBuf, String> {
        let base = Path::new(from).parent().unwrap_or(Path::new("."));
        let wanted = base.join(path);
        let outside = || {
            format!(
                "the sub-flow `{path}` is outside the flow's folder {}",
                self.root.display()
            )
        };
        if !lexical(&wanted).starts_with(&self.root) {
            return Err(outside());
        }
        let real = wanted.canonicalize().map_err(|e| {
            format!(
                "the sub-flow `{path}` ({}) cannot be read: {e}",
                wanted.display()
            )
        })?;
        match real.starts_with(&self.root) {
            true => Ok(real),
            false => Err(outside()),
        }
    }
}

impl Loader for Files {
    fn load_bytes(&self, from: &str, path: &str) -> Result<(Vec<u8>, String), String> {
        let real = self.inside(from, path)?;
        let size = std::fs::metadata(&real).map(|m| m.len()).unwrap_or(0);
        if size > MAX_MEDIA_BYTES as u64 {
            return Err(format!(
                "`{path}` is {size} bytes; a media file is at most {MAX_MEDIA_BYTES} bytes"
            ));
        }
        let bytes = std::fs::read(&real).map_err(|e| format!("`{path}`: {e}"))?;
        Ok((bytes, real.display().to_string()))
    }

    fn load(&self, from: &str, path: &str) -> Result<(String, String), String> {
        let real = self.inside(from, path)?;
        Ok((read(&real)?, real.display().to_string()))
    }
}

/// `p` with `.` and `..` resolved without reading the disk.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// No media, for posted flows without any.
static NO_MEDIA: std::collections::BTreeMap<String, Vec<u8>> = std::collections::BTreeMap::new();

/// Sub-flows (and media) given with a posted flow, by path relative to the top flow's folder.
pub struct Posted<'a> {
    /// The sub-flow and script files' texts, by path relative to the top flow's folder.
    pub files: &'a std::collections::BTreeMap<String, String>,
    /// The photos and videos `addMedia` names, by path relative to the top flow's folder.
    pub media: &'a std::collections::BTreeMap<String, Vec<u8>>,
}

impl<'a> Posted<'a> {
    /// A loader of `files`, with no media.
    pub fn new(files: &'a std::collections::BTreeMap<String, String>) -> Posted<'a> {
        Posted {
            files,
            media: &NO_MEDIA,
        }
    }

    /// The key `path` names, resolved against `from` and kept inside the posted folder.
    fn key(from: &str, path: &str) -> Result<String, String> {
        let base = Path::new(from).parent().unwrap_or(Path::new(""));
        let mut parts: Vec<String> = vec![];
        for c in base.join(path).components() {
            match c {
                std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
                std::path::Component::CurDir => {}
                std::path::Component::ParentDir if parts.pop().is_some() => {}
                _ => {
                    return Err(format!(
                        "the sub-flow `{path}` is outside the flow's folder"
                    ))
                }
            }
        }
        Ok(parts.join("/"))
    }
}

impl Loader for Posted<'_> {
    fn load_bytes(&self, from: &str, path: &str) -> Result<(Vec<u8>, String), String> {
        let key = Posted::key(from, path)?;
        match self.media.iter().find(|(k, _)| normal(k) == key) {
            Some((_, b)) if b.len() > MAX_MEDIA_BYTES => Err(format!(
                "`{key}` is more than {MAX_MEDIA_BYTES} bytes, the most a media file is"
            )),
            Some((_, b)) => Ok((b.clone(), key)),
            None => Err(format!("the media file `{key}` was not given in `media`")),
        }
    }

    fn load(&self, from: &str, path: &str) -> Result<(String, String), String> {
        let key = Posted::key(from, path)?;
        let text = self
            .files
            .iter()
            .find(|(k, _)| normal(k) == key)
            .map(|(_, v)| v.clone());
        match text {
            Some(t) if t.len() > MAX_FLOW_BYTES => Err(format!(
                "the sub-flow `{key}` is more than {MAX_FLOW_BYTES} bytes"
            )),
            Some(t) => Ok((t, key)),
            None => Err(format!("the sub-flow `{key}` was not given in `files`")),
        }
    }
}

fn normal(k: &str) -> String {
    k.split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// A file's text, refused over [`MAX_FLOW_BYTES`] before it is read whole.
pub fn read(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    if meta.len() > MAX_FLOW_BYTES as u64 {
        return Err(format!(
            "{} is {} bytes; a flow is at most {MAX_FLOW_BYTES} bytes",
            path.display(),
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// The flow files of `path`: itself, or a folder's `.yaml`/`.yml` files (sorted, recursively),
/// without Maestro's workspace `config.yaml`.
pub fn flow_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = vec![];
    let mut dirs = vec![path.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if is_flow_name(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    match out.is_empty() {
        true => Err(format!("{}: no .yaml or .yml flow files", path.display())),
        false => Ok(out),
    }
}

pub(crate) fn is_flow_name(p: &Path) -> bool {
    let ext = p.extension().and_then(|e| e.to_str()).unwrap_or_default();
    let stem = p.file_stem().and_then(|e| e.to_str()).unwrap_or_default();
    matches!(ext, "yaml" | "yml") && !stem.ends_with("config")
}

/// The folder sub-flows must stay in, for a flow file given alone: its nearest `.maestro`
/// folder (Maestro's workspace, where shared sub-flows live), else its own folder.
pub fn workspace_of(file: &Path) -> PathBuf {
    let real = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    let own = real.parent().map(Path::to_path_buf).unwrap_or_default();
    own.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".maestro"))
        .map(Path::to_path_buf)
        .unwrap_or(own)
}

/// A flow file ready to post: its path relative to `root`, its text, and the sub-flow files
/// it runs by path relative to `root`, with its warnings; or its refusals.
pub struct Bundle {
    /// The flow file's path relative to `root`.
    pub file: String,
    /// The flow file's text.
    pub text: String,
    /// The sub-flow and script files it runs: their texts, by path relative to `root`.
    pub files: std::collections::BTreeMap<String, String>,
    /// The photos and videos it adds (`addMedia`), by path relative to `root`.
    pub media: std::collections::BTreeMap<String, Vec<u8>>,
    /// What may fail when it runs ([`Parsed::warnings`]).
    pub warnings: Vec<Refusal>,
}

/// Checks a flow file as [`parse_file`] does and gathers what posting it needs.
pub fn bundle(path: &Path, root: &Path, env: &[(String, String)]) -> Result<Bundle, Vec<Refusal>> {
    let parsed = parse_file(path, root, env);
    if !parsed.refusals.is_empty() {
        return Err(parsed.refusals);
    }
    let fail = |m: String| {
        vec![Refusal {
            file: path.display().to_string(),
            line: 1,
            command: String::new(),
            message: m,
        }]
    };
    let root = root.canonicalize().map_err(|e| fail(e.to_string()))?;
    let rel = |p: &Path| -> Result<String, Vec<Refusal>> {
        let real = p.canonicalize().map_err(|e| fail(e.to_string()))?;
        let r = real
            .strip_prefix(&root)
            .map_err(|_| fail(format!("{} is outside {}", real.display(), root.display())))?;
        Ok(r.display().to_string())
    };
    let mut files = std::collections::BTreeMap::new();
    let (mut sub, mut media_files) = (vec![], vec![]);
    for steps in [
        &parsed.flow.on_start,
        &parsed.flow.steps,
        &parsed.flow.on_complete,
    ] {
        collect_files(steps, &mut sub, &mut media_files);
    }
    let top = path.canonicalize().map_err(|e| fail(e.to_string()))?;
    for f in sub {
        let p = PathBuf::from(&f);
        if p == top {
            continue;
        }
        let text = read(&p).map_err(fail)?;
        files.insert(rel(&p)?, text);
    }
    let mut media = std::collections::BTreeMap::new();
    for f in media_files {
        let p = PathBuf::from(&f);
        let bytes = std::fs::read(&p).map_err(|e| fail(format!("{f}: {e}")))?;
        media.insert(rel(&p)?, bytes);
    }
    Ok(Bundle {
        file: rel(path)?,
        text: read(path).map_err(fail)?,
        files,
        media,
        warnings: parsed.warnings,
    })
}

/// Every file the steps come from (each step knows its file), every `runFlow` and `runScript`
/// file into `out`, and every `addMedia` file into `media`.
fn collect_files(steps: &[Step], out: &mut Vec<String>, media: &mut Vec<String>) {
    for s in steps {
        let mut add = |f: &String| {
            if !out.contains(f) {
                out.push(f.clone());
            }
        };
        add(&s.file);
        match &s.command {
            Command::RunFlow { file, steps, .. } => {
                if let Some(f) = file {
                    add(f);
                }
                collect_files(steps, out, media);
            }
            Command::Repeat { steps, .. } | Command::Retry { steps, .. } => {
                collect_files(steps, out, media)
            }
            Command::RunScript { file, .. } => add(file),
            Command::AddMedia(m) => {
                for f in m {
                    if !media.contains(&f.name) {
                        media.push(f.name.clone());
                    }
                }
            }
            _ => {}
        }
    }
}

/// Parses a flow file with its sub-flows (kept inside `root`), and checks its variables
/// against `env`.
pub fn parse_file(path: &Path, root: &Path, env: &[(String, String)]) -> Parsed {
    let shown = path.display().to_string();
    let text = match read(path) {
        Ok(t) => t,
        Err(message) => return failed(&shown, message),
    };
    let (root, real) = match (root.canonicalize(), path.canonicalize()) {
        (Ok(root), Ok(real)) => (root, real),
        (Err(e), _) | (_, Err(e)) => return failed(&shown, e.to_string()),
    };
    let mut parsed = parse::parse_flow(&real.display().to_string(), &text, &Files { root });
    parsed.flow.file = shown;
    check_env(&mut parsed, env);
    parsed
}

/// Parses posted text (no sub-flow files) and checks its variables against `env`.
pub fn parse_text(text: &str, env: &[(String, String)]) -> Parsed {
    parse_posted("<flow>", text, &Default::default(), env)
}

/// Parses posted text named `file`, its sub-flows from `files`, and checks its variables.
pub fn parse_posted(
    file: &str,
    text: &str,
    files: &std::collections::BTreeMap<String, String>,
    env: &[(String, String)],
) -> Parsed {
    parse_posted_media(file, text, files, &NO_MEDIA, env)
}

/// Parses posted text named `file`, its sub-flows from `files` and the photos and videos it
/// adds from `media`, and checks its variables.
pub fn parse_posted_media(
    file: &str,
    text: &str,
    files: &std::collections::BTreeMap<String, String>,
    media: &std::collections::BTreeMap<String, Vec<u8>>,
    env: &[(String, String)],
) -> Parsed {
    let mut parsed = match files.is_empty() && media.is_empty() {
        true => parse::parse_flow(file, text, &parse::NoFiles),
        false => parse::parse_flow(file, text, &Posted { files, media }),
    };
    check_env(&mut parsed, env);
    parsed
}

fn failed(file: &str, message: String) -> Parsed {
    Parsed {
        refusals: vec![Refusal {
            file: file.to_string(),
            line: 1,
            command: String::new(),
            message,
        }],
        ..Parsed::default()
    }
}

/// Warns of every use of a variable that nothing sets.
fn check_env(parsed: &mut Parsed, given: &[(String, String)]) {
    let mut scope: Vec<String> = given.iter().map(|(k, _)| k.clone()).collect();
    scope.extend(parsed.flow.env.iter().map(|(k, _)| k.clone()));
    let mut out = vec![];
    let flow: &Flow = &parsed.flow;
    for steps in [&flow.on_start, &flow.steps, &flow.on_complete] {
        unset(steps, &mut scope, &mut out);
    }
    parsed.warnings.extend(out);
}

fn unset(steps: &[Step], scope: &mut Vec<String>, out: &mut Vec<Refusal>) {
    for s in steps {
        for v in &s.vars {
            if !scope.contains(v) && !vars::BUILTIN.contains(&v.as_str()) {
                out.push(Refusal {
                    file: s.file.clone(),
                    line: s.line,
                    command: s.name.to_string(),
                    message: vars::unset(v),
                });
            }
        }
        let (env, inner): (&[(String, String)], &[Step]) = match &s.command {
            Command::RunFlow { env, steps, .. } => (env, steps),
            Command::Repeat { steps, .. } | Command::Retry { steps, .. } => (&[], steps),
            _ => continue,
        };
        let mark = scope.len();
        scope.extend(env.iter().map(|(k, _)| k.clone()));
        unset(inner, scope, out);
        scope.truncate(mark);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_posts_its_sub_flows_and_parses_the_same_on_the_server() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = tmp.path().join(".maestro");
        std::fs::create_dir_all(ws.join("flows")).expect("flows");
        std::fs::create_dir_all(ws.join("shared")).expect("shared");
        std::fs::write(
            ws.join("flows/login.yaml"),
            "appId: x\n---\n- runFlow: ../shared/start.yaml\n- runFlow: {file: ../shared/type.yaml, env: {WHO: bob}}\n\
             - runScript: ../shared/setup.js\n- addMedia: [../shared/cat.png]\n",
        )
        .expect("login");
        std::fs::write(ws.join("shared/start.yaml"), "- launchApp\n").expect("start");
        std::fs::write(ws.join("shared/type.yaml"), "- inputText: ${WHO}\n").expect("type");
        std::fs::write(ws.join("shared/setup.js"), "output.x = 1").expect("script");
        std::fs::write(ws.join("shared/cat.png"), b"\x89PNG\xff").expect("media");
        let file = ws.join("flows/login.yaml");
        let b = match bundle(&file, &workspace_of(&file), &[]) {
            Ok(b) => b,
            Err(r) => panic!("{r:?}"),
        };
        assert_eq!(b.file, "flows/login.yaml");
        let keys: Vec<&str> = b.files.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            vec!["shared/setup.js", "shared/start.yaml", "shared/type.yaml"]
        );
        // Media go as bytes (not text: a PNG is not UTF-8).
        assert_eq!(
            b.media.get("shared/cat.png"),
            Some(&b"\x89PNG\xff".to_vec())
        );
        let p = parse_posted_media(&b.file, &b.text, &b.files, &b.media, &[]);
        assert!(p.refusals.is_empty(), "{:?}", p.refusals);
        assert_eq!(p.flow.steps.len(), 4);
        // Posted paths cannot climb out of the posted folder.
        let p = parse_posted("login.yaml", "- runFlow: ../../etc/passwd\n", &b.files, &[]);
        assert!(
            p.refusals[0].message.contains("outside the flow's folder"),
            "{:?}",
            p.refusals
        );
        let p = parse_posted("login.yaml", "- runFlow: nope.yaml\n", &b.files, &[]);
        assert!(
            p.refusals[0].message.contains("was not given in `files`"),
            "{:?}",
            p.refusals
        );
    }
}
