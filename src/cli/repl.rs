//! `mobilectl repl`: an interactive shell with the CLI's grammar (`snapshot`, `tap @e4`,
//! `type @e1 alice`), line editing and history (rustyline; the history kept in the state
//! folder, `repl_history`), and completion of commands, their flags and the refs of the last
//! snapshot shown. Each line runs as the command line would, in a child `mobilectl` with the
//! shell's options (server, token, session, device), so Ctrl-C stops that command and not the
//! shell, and a command behaves exactly as it does outside. The child tells the shell the refs
//! of a snapshot it printed through a file ([`REFS_VAR`]). Ctrl-C on the prompt clears the
//! line; Ctrl-D or `exit` leaves.

use std::path::{Path, PathBuf};

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};

use super::GlobalArgs;
use crate::client::exit;

/// The variable naming the file a child writes the refs of a snapshot it printed into.
pub const REFS_VAR: &str = "MOBILECTL_REPL_REFS";

/// The most lines the history keeps.
const HISTORY_SIZE: usize = 1000;

/// Commands that do not run inside the shell.
const NOT_HERE: &[&str] = &["repl", "serve", "mcp", "virtual-device", "completions"];

/// The refs a snapshot's text shows, with what each line says before its ref:
/// `button "LOG IN" [e4]` gives (`e4`, `button "LOG IN"`).
pub fn refs_in(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(open) = line.find(" [e") else {
            continue;
        };
        let rest = &line[open + 2..];
        let Some(close) = rest.find(']') else {
            continue;
        };
        let r = &rest[..close];
        if r.len() > 1 && r[1..].bytes().all(|b| b.is_ascii_digit()) {
            out.push((r.to_string(), line[..open].trim().to_string()));
        }
    }
    out
}

/// When this process runs under the shell, keeps the refs of a snapshot it printed (`text`
/// makes its text) for the shell's completion; a failure to write is no failure of the command.
pub fn remember_refs(op: &str, text: impl FnOnce() -> String) {
    if op != "snapshot" {
        return;
    }
    let Some(path) = std::env::var_os(REFS_VAR) else {
        return;
    };
    let lines: Vec<String> = refs_in(&text())
        .into_iter()
        .map(|(r, what)| format!("{r}\t{what}"))
        .collect();
    let _ = std::fs::write(path, lines.join("\n"));
}

/// What the shell completes from: the command tree and the last refs.
struct Completion {
    command: clap::Command,
    refs: Vec<(String, String)>,
}

impl Completion {
    /// The subcommand the words before the cursor reach (`app` for `app la|`), and whether
    /// every word so far named one.
    fn reached(&self, words: &[&str]) -> (&clap::Command, bool) {
        let mut at = &self.command;
        for w in words {
            match at.find_subcommand(w) {
                Some(c) => at = c,
                None => return (at, false),
            }
        }
        (at, true)
    }

    /// The candidates for the word `word` after `before`.
    fn candidates(&self, before: &[&str], word: &str) -> Vec<Pair> {
        if let Some(prefix) = word.strip_prefix('@') {
            return self
                .refs
                .iter()
                .filter(|(r, _)| r.starts_with(prefix))
                .map(|(r, what)| Pair {
                    display: format!("@{r}  {what}"),
                    replacement: format!("@{r}"),
                })
                .collect();
        }
        let (cmd, all_commands) = self.reached(before);
        let mut out: Vec<Pair> = Vec::new();
        if word.starts_with('-') {
            for a in cmd.get_arguments() {
                if let Some(l) = a.get_long().map(|l| format!("--{l}")) {
                    if l.starts_with(word) && !a.is_hide_set() {
                        out.push(Pair {
                            display: l.clone(),
                            replacement: l,
                        });
                    }
                }
            }
        } else if all_commands {
            for c in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
                let name = c.get_name();
                if name.starts_with(word) && (!before.is_empty() || !NOT_HERE.contains(&name)) {
                    out.push(Pair {
                        display: name.to_string(),
                        replacement: name.to_string(),
                    });
                }
            }
        }
        out.sort_by(|a, b| a.replacement.cmp(&b.replacement));
        out
    }
}

impl Completer for Completion {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let head = &line[..pos];
        let start = head.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let before: Vec<&str> = head[..start].split_whitespace().collect();
        Ok((start, self.candidates(&before, &head[start..])))
    }
}

impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Helper for Completion {}

/// Runs the shell until Ctrl-D or `exit`; its exit code.
pub fn run(g: &GlobalArgs) -> i32 {
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .auto_add_history(false)
        .max_history_size(HISTORY_SIZE)
        .map(|b| b.build());
    let mut editor: Editor<Completion, FileHistory> = match config.and_then(Editor::with_config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("mobilectl: the shell cannot start: {e}");
            return exit::FAILED;
        }
    };
    editor.set_helper(Some(Completion {
        command: super::command(),
        refs: Vec::new(),
    }));
    let history = crate::host_dirs::state_dir().join("repl_history");
    if let Some(dir) = history.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = editor.load_history(&history);
    let refs = match tempfile::NamedTempFile::new() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("mobilectl: the shell cannot start: {e}");
            return exit::FAILED;
        }
    };
    println!(
        "mobilectl {}: the CLI's commands, one a line (`snapshot`, `tap @e4`, `help`); Tab completes \
         commands, flags and the last snapshot's refs; Ctrl-D or `exit` leaves.",
        env!("CARGO_PKG_VERSION")
    );
    loop {
        let line = match editor.readline("mobilectl> ") {
            Ok(l) => l,
            // Ctrl-C on the prompt: a new line.
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => return exit::OK,
            Err(e) => {
                eprintln!("mobilectl: {e}");
                return exit::FAILED;
            }
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if editor.add_history_entry(line).unwrap_or(false) {
            let _ = editor.append_history(&history);
        }
        if matches!(line, "exit" | "quit") {
            return exit::OK;
        }
        let Some(words) = shlex::split(line) else {
            eprintln!("mobilectl: unbalanced quotes");
            continue;
        };
        if let Some(w) = words.first().filter(|w| NOT_HERE.contains(&w.as_str())) {
            eprintln!("mobilectl: `{w}` does not run inside the shell");
            continue;
        }
        let words = if words.first().is_some_and(|w| w == "help") {
            vec!["--help".to_string()]
        } else {
            words
        };
        let _ = std::fs::write(refs.path(), "");
        run_line(&words, g, refs.path());
        let told = std::fs::read_to_string(refs.path()).unwrap_or_default();
        if !told.is_empty() {
            if let Some(h) = editor.helper_mut() {
                h.refs = told
                    .lines()
                    .filter_map(|l| l.split_once('\t'))
                    .map(|(r, w)| (r.to_string(), w.to_string()))
                    .collect();
            }
        }
    }
}

/// Runs one line as a child `mobilectl` with the shell's options; the shell ignores Ctrl-C
/// meanwhile (the terminal sends it to the child, which stops).
fn run_line(words: &[String], g: &GlobalArgs, refs: &Path) {
    let me = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mobilectl"));
    let mut cmd = std::process::Command::new(me);
    cmd.args(words)
        .env("MOBILECTL_URL", &g.url)
        .env(REFS_VAR, refs);
    for (var, value) in [
        ("MOBILECTL_TOKEN", &g.token),
        ("MOBILECTL_UDID", &g.udid),
        ("MOBILECTL_SESSION", &g.session),
    ] {
        if let Some(v) = value {
            cmd.env(var, v);
        }
    }
    let has = |flag: &str| words.iter().any(|w| w == flag);
    if g.json && !has("--json") {
        cmd.arg("--json");
    }
    if g.no_autostart && !has("--no-autostart") {
        cmd.arg("--no-autostart");
    }
    // Ignored from before the child starts (a Ctrl-C typed meanwhile must not end the shell);
    // the child starts with the default disposition, so Ctrl-C stops it.
    let _ignoring = IgnoreInterrupts::new();
    // SAFETY: between fork and exec only signal(2), async-signal-safe, runs.
    #[cfg(unix)]
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    match cmd.spawn() {
        Ok(mut child) => {
            let _ = child.wait();
        }
        Err(e) => eprintln!("mobilectl: cannot run the command: {e}"),
    }
}

/// Ignores SIGINT while it lives (Unix): a Ctrl-C meant for the running command does not end
/// the shell.
struct IgnoreInterrupts {
    #[cfg(unix)]
    previous: libc::sighandler_t,
}

impl IgnoreInterrupts {
    fn new() -> Self {
        IgnoreInterrupts {
            // SAFETY: replacing SIGINT's disposition by SIG_IGN; restored on drop.
            #[cfg(unix)]
            previous: unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) },
        }
    }
}

impl Drop for IgnoreInterrupts {
    fn drop(&mut self) {
        // SAFETY: restoring the disposition `new` replaced.
        #[cfg(unix)]
        unsafe {
            libc::signal(libc::SIGINT, self.previous);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_are_read_from_a_snapshots_lines() {
        let text = "screen com.mobilectl.demo/.Login · 3 refs\n  textbox \"Email\" [e1] = \"\"\n  \
                    button \"LOG IN\" [e2]\n  \"Welcome [back]\"\n  image [e10] focused\n";
        assert_eq!(
            refs_in(text),
            vec![
                ("e1".to_string(), "textbox \"Email\"".to_string()),
                ("e2".to_string(), "button \"LOG IN\"".to_string()),
                ("e10".to_string(), "image".to_string()),
            ]
        );
    }

    #[test]
    fn completion_knows_commands_flags_and_refs() {
        let c = Completion {
            command: crate::cli::command(),
            refs: vec![
                ("e1".into(), "textbox \"Email\"".into()),
                ("e12".into(), "button \"OK\"".into()),
            ],
        };
        let words = |before: &[&str], w: &str| -> Vec<String> {
            c.candidates(before, w)
                .into_iter()
                .map(|p| p.replacement)
                .collect()
        };
        assert!(words(&[], "snap").contains(&"snapshot".to_string()));
        assert!(!words(&[], "").contains(&"serve".to_string()));
        assert!(words(&["app"], "la").contains(&"launch".to_string()));
        assert_eq!(words(&["tap"], "@e1"), vec!["@e1", "@e12"]);
        assert!(words(&["app", "launch"], "--rel").contains(&"--relaunch".to_string()));
        // Past a word that is no command, nothing is offered but refs and flags.
        assert!(words(&["tap", "@e1"], "x").is_empty());
    }
}
