//! What a script worker and its parent say, one JSON object per line: the parent sends
//! [`ToWorker`], the worker answers [`FromWorker`]. An evaluation is one [`Eval`]; while it runs
//! the worker may ask for HTTP requests ([`HttpCall`]), each answered by one [`HttpReply`]
//! before the evaluation goes on; it ends with [`FromWorker::Done`] or [`FromWorker::Failed`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A line from the parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Evaluate code.
    Eval(Eval),
    /// The answer to the worker's last [`FromWorker::Http`].
    HttpReply(HttpReply),
}

/// One evaluation: a `runScript` file, an `evalScript`, or the inside of a `${…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Eval {
    /// The JavaScript.
    pub code: String,
    /// What messages call it: the script's file, or the `${…}` as written.
    pub name: String,
    /// Variables the code sees as globals (the flow's env in scope, a `runScript`'s own
    /// `env`): set before it runs, and those of the last evaluation not named here removed.
    pub env: BTreeMap<String, String>,
    /// `maestro.platform`: `android` or `ios`.
    pub platform: String,
    /// `maestro.copiedText`: what `copyTextFrom` kept last (none: not set).
    pub copied_text: Option<String>,
    /// How many bytes the evaluation may allocate beyond what the worker held when it began.
    pub memory_bytes: u64,
}

/// The answer to an [`HttpCall`]: a response, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum HttpReply {
    /// The server answered (any status).
    Response(HttpResponse),
    /// No response: refused (a host the run does not allow), unreachable, timed out. The
    /// script sees it thrown as an `Error` with this message.
    Refused {
        /// Why, in words for the flow's author.
        error: String,
    },
}

/// A response, as Maestro's scripts see it (`response.ok`, `.status`, `.body`, `.headers`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The body, as text (UTF-8, invalid bytes replaced).
    pub body: String,
    /// The headers, names in lower case (a repeated one: its values joined with `, `).
    pub headers: BTreeMap<String, String>,
}

/// A line from the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The running code asks for an HTTP request; the next line from the parent is its reply.
    Http(HttpCall),
    /// The evaluation ended.
    Done {
        /// Its completion value, as JavaScript's `String(value)` writes it (`undefined`,
        /// `null`, `3`, `true`, `[object Object]`…).
        value: String,
        /// What it wrote with `console.log` (and `.info`, `.warn`, `.error`), a line each.
        console: Vec<String>,
    },
    /// The evaluation threw, or went over a limit of the engine (loop iterations, recursion).
    Failed {
        /// The error as the flow's author should read it: its name, message, and where.
        message: String,
        /// What it wrote with `console.log` before it failed.
        console: Vec<String>,
    },
}

/// An HTTP request a script makes (`http.get`, `.post`, `.put`, `.delete`, `.request`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HttpCall {
    /// The method, upper case (`GET`…).
    pub method: String,
    /// The URL, as the script gave it.
    pub url: String,
    /// The request's headers, as given.
    pub headers: BTreeMap<String, String>,
    /// The body, when one is given.
    pub body: Option<String>,
}
