//! The loop a script worker runs: [`ToWorker`] lines in, [`FromWorker`] lines out, one
//! [`Engine`] for the whole loop (so `output` lives as long as the worker).
//!
//! For each [`ToWorker::Eval`] the worker sets the memory budget ([`MemoryLimit`]), runs the
//! engine, and writes [`FromWorker::Done`] or [`FromWorker::Failed`]. While the code runs, each
//! `http.*` call is a [`FromWorker::Http`] line, and the next line read must be its
//! [`ToWorker::HttpReply`]. A line that is not a request (not JSON, not one of [`ToWorker`], an
//! `http_reply` with no call waiting, longer than [`MAX_LINE_BYTES`]) is answered with a
//! [`FromWorker::Failed`] saying so, and the loop goes on; blank lines are skipped. The end of
//! the input ends the loop. Every line written is flushed at once.

use std::io::{self, BufRead, Write};

use crate::engine::Engine;
use crate::wire::{Eval, FromWorker, HttpCall, HttpReply, ToWorker};

/// The longest line the worker reads (bytes, without its line break): a longer one is read to
/// its end and dropped, and answered with a [`FromWorker::Failed`].
pub const MAX_LINE_BYTES: usize = 32 << 20;

/// The process's allocator, as the worker sees it: how much is allocated, and a bound past
/// which allocating fails (and the process aborts, which the parent reports).
pub trait MemoryLimit {
    /// Bytes allocated now.
    fn allocated(&self) -> u64;
    /// Sets the bound on [`allocated`](MemoryLimit::allocated) (`None`: no bound).
    fn set_limit(&self, bytes: Option<u64>);
}

/// No bound, for tests and for callers without a counting allocator.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoLimit;

impl MemoryLimit for NoLimit {
    fn allocated(&self) -> u64 {
        0
    }

    fn set_limit(&self, _bytes: Option<u64>) {}
}

/// Runs the worker's loop over `input` and `output` until `input` ends (`Ok`), or reading or
/// writing fails (that error). Before each evaluation the memory bound is what is allocated
/// then plus the evaluation's `memory_bytes`; after it, none.
pub fn serve(input: impl BufRead, output: impl Write, limit: &dyn MemoryLimit) -> io::Result<()> {
    serve_with(input, output, limit, &mut Engine::new(), MAX_LINE_BYTES)
}

fn serve_with(
    mut input: impl BufRead,
    mut output: impl Write,
    limit: &dyn MemoryLimit,
    engine: &mut Engine,
    max_line: usize,
) -> io::Result<()> {
    loop {
        let request = match read_line(&mut input, max_line)? {
            Line::End => return Ok(()),
            Line::TooLong(length) => Err(too_long(length, max_line)),
            Line::Text(text) if text.trim_ascii().is_empty() => continue,
            Line::Text(text) => serde_json::from_slice::<ToWorker>(&text).map_err(|err| {
                format!("mobilectl's script worker: the line is not a request: {err}")
            }),
        };
        let answer = match request {
            Ok(ToWorker::Eval(eval)) => {
                evaluate(engine, &eval, &mut input, &mut output, limit, max_line)?
            }
            Ok(ToWorker::HttpReply(_)) => failed(
                "mobilectl's script worker: an http_reply line came while no http call was waiting"
                    .to_owned(),
            ),
            Err(message) => failed(message),
        };
        write_line(&mut output, &answer)?;
    }
}

/// Runs one evaluation with the memory bound set; its `http.*` calls are lines out and in.
fn evaluate(
    engine: &mut Engine,
    eval: &Eval,
    input: &mut impl BufRead,
    output: &mut impl Write,
    limit: &dyn MemoryLimit,
    max_line: usize,
) -> io::Result<FromWorker> {
    let mut broken: Option<io::Error> = None;
    let mut input_ended = false;
    let mut http = |call: HttpCall| -> HttpReply {
        let refused = |error: String| HttpReply::Refused { error };
        if broken.is_some() || input_ended {
            return refused("http: mobilectl's script worker lost its parent".to_owned());
        }
        if let Err(err) = write_line(output, &FromWorker::Http(call)) {
            let message =
                format!("http: mobilectl's script worker could not write to its parent: {err}");
            broken = Some(err);
            return refused(message);
        }
        match read_line(input, max_line) {
            Ok(Line::Text(text)) => match serde_json::from_slice::<ToWorker>(&text) {
                Ok(ToWorker::HttpReply(reply)) => reply,
                Ok(ToWorker::Eval(_)) => refused(
                    "http: mobilectl's script worker got an eval line where the http call's reply should be"
                        .to_owned(),
                ),
                Err(err) => refused(format!(
                    "http: mobilectl's script worker got a line that is not the http call's reply: {err}"
                )),
            },
            Ok(Line::TooLong(length)) => refused(format!("http: {}", too_long(length, max_line))),
            Ok(Line::End) => {
                input_ended = true;
                refused(
                    "http: mobilectl's script worker lost its parent (its input ended) before the reply"
                        .to_owned(),
                )
            }
            Err(err) => {
                let message = format!("http: mobilectl's script worker could not read the reply: {err}");
                broken = Some(err);
                refused(message)
            }
        }
    };
    limit.set_limit(Some(limit.allocated().saturating_add(eval.memory_bytes)));
    let answer = engine.eval(eval, &mut http);
    limit.set_limit(None);
    match broken {
        Some(err) => Err(err),
        None => Ok(answer),
    }
}

fn failed(message: String) -> FromWorker {
    FromWorker::Failed {
        message,
        console: Vec::new(),
    }
}

fn too_long(length: usize, max_line: usize) -> String {
    format!("mobilectl's script worker: a line of {length} bytes is longer than the {max_line} it reads")
}

fn write_line(output: &mut impl Write, message: &FromWorker) -> io::Result<()> {
    serde_json::to_writer(&mut *output, message)?;
    output.write_all(b"\n")?;
    output.flush()
}

/// A line read with a bound.
enum Line {
    /// The input ended before any byte of a line.
    End,
    /// A line, without its line break (the last one may have none).
    Text(Vec<u8>),
    /// A line longer than the bound, read to its end and dropped: its length.
    TooLong(usize),
}

/// Reads one line, keeping at most `max` bytes of it.
fn read_line(input: &mut impl BufRead, max: usize) -> io::Result<Line> {
    let mut text = Vec::new();
    let mut length = 0usize;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            if length == 0 {
                return Ok(Line::End);
            }
            break;
        }
        let (part, used, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], at + 1, true),
            None => (available, available.len(), false),
        };
        length = length.saturating_add(part.len());
        if length <= max {
            text.extend_from_slice(part);
        } else {
            text = Vec::new();
        }
        input.consume(used);
        if ended {
            break;
        }
    }
    if length > max {
        return Ok(Line::TooLong(length));
    }
    Ok(Line::Text(text))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::io::Cursor;

    use super::*;
    use crate::wire::HttpResponse;

    fn eval_line(code: &str, memory_bytes: u64) -> String {
        let eval = Eval {
            code: code.to_owned(),
            name: "flow.js".to_owned(),
            env: [("USER".to_owned(), "ann".to_owned())].into(),
            platform: "ios".to_owned(),
            copied_text: Some("copied".to_owned()),
            memory_bytes,
        };
        serde_json::to_string(&ToWorker::Eval(eval)).unwrap()
    }

    fn reply_line(reply: HttpReply) -> String {
        serde_json::to_string(&ToWorker::HttpReply(reply)).unwrap()
    }

    /// Runs the loop over `lines` (each ended by a line break), answers its output lines.
    fn run(lines: &[String], max_line: usize) -> Vec<FromWorker> {
        let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let mut output = Vec::new();
        serve_with(
            Cursor::new(input),
            &mut output,
            &NoLimit,
            &mut Engine::new(),
            max_line,
        )
        .unwrap();
        parse_output(&output)
    }

    fn parse_output(output: &[u8]) -> Vec<FromWorker> {
        let text = std::str::from_utf8(output).unwrap();
        assert!(text.is_empty() || text.ends_with('\n'), "{text:?}");
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn done(value: &str) -> FromWorker {
        FromWorker::Done {
            value: value.to_owned(),
            console: vec![],
        }
    }

    fn failed_message(answer: &FromWorker) -> &str {
        match answer {
            FromWorker::Failed { message, .. } => message,
            other => panic!("not failed: {other:?}"),
        }
    }

    #[test]
    fn evaluations_http_round_trips_garbage_and_the_end_of_input() {
        let headers: BTreeMap<String, String> = [("x-id".to_owned(), "7".to_owned())].into();
        let lines = [
            eval_line("console.log('hi ' + USER); output.token = 'secret'; maestro.platform + ' ' + maestro.copiedText", 1 << 20),
            eval_line(
                "const r = http.post('https://api.test/login', {headers: {'Content-Type': 'text/plain'}, body: output.token});\n\
                 output.id = r.headers['x-id']; [r.ok, r.status, r.body].join(' ')",
                1 << 20,
            ),
            reply_line(HttpReply::Response(HttpResponse { status: 201, body: "made".to_owned(), headers })),
            "this is not json".to_owned(),
            r#"{"type":"something_else"}"#.to_owned(),
            String::new(),
            "   ".to_owned(),
            eval_line("try { http.get('https://blocked.test/') } catch (e) { 'caught: ' + e.message }", 1 << 20),
            reply_line(HttpReply::Refused { error: "blocked.test is not allowed".to_owned() }),
            eval_line("output.id + ' ' + output.token", 1 << 20),
        ];
        let answers = run(&lines, MAX_LINE_BYTES);
        assert_eq!(answers.len(), 8, "{answers:#?}");
        assert_eq!(
            answers[0],
            FromWorker::Done {
                value: "ios copied".to_owned(),
                console: vec!["hi ann".to_owned()]
            }
        );
        assert_eq!(
            answers[1],
            FromWorker::Http(HttpCall {
                method: "POST".to_owned(),
                url: "https://api.test/login".to_owned(),
                headers: [("Content-Type".to_owned(), "text/plain".to_owned())].into(),
                body: Some("secret".to_owned()),
            })
        );
        assert_eq!(answers[2], done("true 201 made"));
        assert!(
            failed_message(&answers[3]).contains("the line is not a request"),
            "{answers:?}"
        );
        assert!(
            failed_message(&answers[4]).contains("the line is not a request"),
            "{answers:?}"
        );
        assert!(
            matches!(&answers[5], FromWorker::Http(call) if call.url == "https://blocked.test/")
        );
        assert_eq!(answers[6], done("caught: blocked.test is not allowed"));
        assert_eq!(answers[7], done("7 secret"));
    }

    #[test]
    fn output_lives_as_long_as_the_loop() {
        let lines = [
            eval_line("output.a = 1; 'set'", 1 << 20),
            eval_line("this is not json", 1 << 20),
            eval_line("output.a + 1", 1 << 20),
        ];
        let answers = run(&lines, MAX_LINE_BYTES);
        assert_eq!(answers[0], done("set"));
        assert!(
            failed_message(&answers[1]).starts_with("SyntaxError"),
            "{answers:?}"
        );
        assert_eq!(answers[2], done("2"));
    }

    #[test]
    fn an_http_reply_with_no_call_waiting_is_refused() {
        let lines = [
            reply_line(HttpReply::Refused {
                error: "x".to_owned(),
            }),
            eval_line("1", 0),
        ];
        let answers = run(&lines, MAX_LINE_BYTES);
        assert!(
            failed_message(&answers[0]).contains("no http call was waiting"),
            "{answers:?}"
        );
        assert_eq!(answers[1], done("1"));
    }

    #[test]
    fn a_line_too_long_is_refused_and_the_loop_goes_on() {
        let long = eval_line(&format!("'{}'", "x".repeat(5000)), 0);
        let lines = [long, eval_line("'short'", 0)];
        let answers = run(&lines, 1000);
        let message = failed_message(&answers[0]);
        assert!(message.contains("longer than the 1000"), "{message}");
        assert_eq!(answers[1], done("short"));
        // A reply too long is refused to the script.
        let lines = [
            eval_line("try { http.get('u') } catch (e) { e.message }", 0),
            "x".repeat(2000),
        ];
        let answers = run(&lines, 1000);
        assert!(matches!(&answers[0], FromWorker::Http(_)));
        let FromWorker::Done { value, .. } = &answers[1] else {
            panic!("{answers:?}")
        };
        assert!(value.contains("longer than the 1000"), "{value}");
    }

    #[test]
    fn a_wrong_line_where_a_reply_should_be_is_thrown_to_the_script() {
        let lines = [
            eval_line("try { http.get('u') } catch (e) { e.message }", 0),
            eval_line("1", 0),
            eval_line("http.get('v')", 0),
            "garbage".to_owned(),
        ];
        let answers = run(&lines, MAX_LINE_BYTES);
        assert_eq!(answers.len(), 4, "{answers:?}");
        let FromWorker::Done { value, .. } = &answers[1] else {
            panic!("{answers:?}")
        };
        assert!(
            value.contains("an eval line where the http call's reply should be"),
            "{value}"
        );
        let message = failed_message(&answers[3]);
        assert!(
            message.starts_with("Error: http: mobilectl's script worker got a line that is not"),
            "{message}"
        );
        assert!(
            message.ends_with("(in flow.js, line 1, col 9)"),
            "{message}"
        );
    }

    #[test]
    fn the_input_ending_during_a_call_fails_it_and_ends_the_loop() {
        let lines = [eval_line(
            "let first; try { http.get('u') } catch (e) { first = e.message }\n\
             try { http.get('v') } catch (e) { first + ' / ' + e.message }",
            0,
        )];
        let answers = run(&lines, MAX_LINE_BYTES);
        // One call goes out; the second is refused without a line.
        assert_eq!(answers.len(), 2, "{answers:?}");
        let FromWorker::Done { value, .. } = &answers[1] else {
            panic!("{answers:?}")
        };
        assert_eq!(
            value,
            "http: mobilectl's script worker lost its parent (its input ended) before the reply / \
             http: mobilectl's script worker lost its parent"
        );
    }

    #[test]
    fn the_last_line_needs_no_line_break_and_an_empty_input_is_fine() {
        let mut output = Vec::new();
        serve(Cursor::new(eval_line("6 * 7", 0)), &mut output, &NoLimit).unwrap();
        assert_eq!(parse_output(&output), [done("42")]);
        let mut output = Vec::new();
        serve(Cursor::new(""), &mut output, &NoLimit).unwrap();
        assert!(output.is_empty());
    }

    /// Records what the worker sets.
    struct Recorder {
        allocated: u64,
        limits: RefCell<Vec<Option<u64>>>,
    }

    impl MemoryLimit for Recorder {
        fn allocated(&self) -> u64 {
            self.allocated
        }

        fn set_limit(&self, bytes: Option<u64>) {
            self.limits.borrow_mut().push(bytes);
        }
    }

    #[test]
    fn each_evaluation_runs_under_its_memory_budget() {
        let recorder = Recorder {
            allocated: 5_000,
            limits: RefCell::new(Vec::new()),
        };
        let input = format!(
            "{}\nnot json\n{}\n",
            eval_line("1", 1_000),
            eval_line("2", u64::MAX)
        );
        let mut output = Vec::new();
        serve(Cursor::new(input), &mut output, &recorder).unwrap();
        assert_eq!(
            recorder.limits.into_inner(),
            [Some(6_000), None, Some(u64::MAX), None]
        );
        assert_eq!(parse_output(&output).len(), 3);
    }

    /// A writer that records what was flushed, line by line.
    #[derive(Default)]
    struct Flushes {
        pending: Vec<u8>,
        flushed: Vec<String>,
    }

    impl Write for &mut Flushes {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.pending.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            self.flushed
                .push(String::from_utf8(std::mem::take(&mut self.pending)).unwrap());
            Ok(())
        }
    }

    #[test]
    fn every_line_is_flushed_as_it_is_written() {
        let input = format!(
            "{}\n{}\n",
            eval_line("http.get('u').status", 0),
            reply_line(HttpReply::Refused {
                error: "no".to_owned(),
            })
        );
        let mut flushes = Flushes::default();
        serve(Cursor::new(input), &mut flushes, &NoLimit).unwrap();
        assert!(flushes.pending.is_empty());
        assert_eq!(flushes.flushed.len(), 2, "{:?}", flushes.flushed);
        assert!(flushes
            .flushed
            .iter()
            .all(|line| line.ends_with('\n') && line.matches('\n').count() == 1));
        assert!(
            flushes.flushed[0].starts_with(r#"{"type":"http""#),
            "{:?}",
            flushes.flushed
        );
        assert!(
            flushes.flushed[1].starts_with(r#"{"type":"failed""#),
            "{:?}",
            flushes.flushed
        );
    }

    /// An output that fails.
    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_output_ends_the_loop_with_its_error() {
        let input = format!("{}\n", eval_line("1", 0));
        let err = serve(Cursor::new(input.clone()), Broken, &NoLimit).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        let input = format!("{}\n", eval_line("http.get('u')", 0));
        let err = serve(Cursor::new(input), Broken, &NoLimit).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn read_line_is_bounded() {
        let mut input = Cursor::new(b"ab\n\nlong line\nend".to_vec());
        let mut next = || match read_line(&mut input, 4).unwrap() {
            Line::End => "END".to_owned(),
            Line::Text(text) => String::from_utf8(text).unwrap(),
            Line::TooLong(length) => format!("TOO LONG {length}"),
        };
        assert_eq!(
            [next(), next(), next(), next(), next()],
            ["ab", "", "TOO LONG 9", "end", "END"]
        );
    }
}
