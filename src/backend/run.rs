//! How backends run their tools and reach their devices: through [`crate::exec`], with the
//! tool's location from the [`Toolbox`], and the runners' failures (process or HTTP) turned
//! into the product's error codes.

use std::ffi::OsString;
use std::time::Duration;

use serde_json::json;

use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::exec::{Command, ExecError, HttpError, Output, Tool, Toolbox};

/// The `TOOL_MISSING` error for `tool`, with its install hint.
pub fn tool_missing(tool: Tool) -> Error {
    Error::new(
        ErrorCode::ToolMissing,
        format!("`{}` was not found", tool.name()),
    )
    .with_hint(tool.install_hint())
    .with_details(json!({ "tool": tool.name(), "env_override": tool.env_override() }))
}

/// A command for `tool`, or `TOOL_MISSING` when the tool is not installed.
pub fn tool_command(tools: &Toolbox, tool: Tool) -> Result<Command> {
    tools
        .path(tool)
        .map(Command::new)
        .ok_or_else(|| tool_missing(tool))
}

/// Maps a runner failure to the product's error.
pub fn exec_error(tool: Tool, err: ExecError) -> Error {
    match err {
        ExecError::NotFound { .. } => tool_missing(tool),
        ExecError::Timeout { argv, timeout } => Error::new(
            ErrorCode::Timeout,
            format!(
                "`{argv}` did not answer within {} ms and was stopped",
                timeout.as_millis()
            ),
        )
        .with_next(
            "the device may be busy or hung; retry, or check it with {0}",
            [Step::call(Op::Doctor)],
        ),
        ExecError::Busy { argv, why } => {
            Error::new(ErrorCode::Busy, format!("`{argv}` could not start: {why}")).with_hint(
                "the server is running as many device commands as it allows; retry shortly",
            )
        }
        ExecError::Io { argv, source } => {
            Error::internal(format!("could not run `{argv}`: {source}"))
        }
    }
}

/// Maps an HTTP runner failure to the product's error, as [`exec_error`] does for processes:
/// no answer in time is `TIMEOUT`, no connection `DEVICE_UNREACHABLE`, an answer outside 2xx
/// `COMMAND_FAILED` with its status and body (a backend that knows its server's error format
/// translates [`HttpError::Status`] itself first).
pub fn http_error(err: HttpError) -> Error {
    match err {
        HttpError::Timeout { request, timeout } => Error::new(
            ErrorCode::Timeout,
            format!(
                "`{request}` got no answer within {} ms",
                timeout.as_millis()
            ),
        )
        .with_next("the device may be busy or hung; retry, or check it with {0}", [Step::call(Op::Doctor)]),
        HttpError::Unreachable { request, why, .. } => Error::new(
            ErrorCode::DeviceUnreachable,
            format!("`{request}`: {why}"),
        )
        .with_hint("check that the device is connected and its server (WebDriverAgent) is running at that address, then retry"),
        HttpError::Status {
            request,
            status,
            body,
        } => Error::new(
            ErrorCode::CommandFailed,
            format!("`{request}` answered {status}: {}", first_line(&body)),
        )
        .with_details(json!({ "status": status, "body": truncate(&body, 4000) })),
        HttpError::Busy { request, why } => Error::new(
            ErrorCode::Busy,
            format!("`{request}` could not start: {why}"),
        )
        .with_hint("the server is running as many device commands as it allows; retry shortly"),
        HttpError::Invalid { request, why } => Error::internal(format!("`{request}`: {why}")),
    }
}

/// Runs `tool` with `args` and returns its output whatever its exit status.
pub async fn run_tool<I, S>(
    tools: &Toolbox,
    tool: Tool,
    args: I,
    timeout: Duration,
) -> Result<Output>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    tool_command(tools, tool)?
        .args(args)
        .timeout(timeout)
        .run()
        .await
        .map_err(|e| exec_error(tool, e))
}

/// The `COMMAND_FAILED` error for a command that exited non-zero, carrying its words.
pub fn command_failed(tool: Tool, what: &str, out: &Output) -> Error {
    let stderr = out.stderr_text();
    let stdout = out.stdout_text();
    let words = if stderr.trim().is_empty() {
        &stdout
    } else {
        &stderr
    };
    Error::new(
        ErrorCode::CommandFailed,
        format!("{what} failed: {}", first_line(words)),
    )
    .with_details(json!({
        "tool": tool.name(),
        "exit_code": out.code,
        "stderr": truncate(&stderr, 4000),
        "stdout": truncate(&stdout, 4000),
    }))
}

fn first_line(s: &str) -> &str {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no output")
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(e: HttpError) -> (ErrorCode, Error) {
        let err = http_error(e);
        (err.code, err)
    }

    #[test]
    fn http_failures_map_like_process_failures() {
        let request = "GET http://127.0.0.1:8100/status".to_string();
        let (code, _) = code_of(HttpError::Timeout {
            request: request.clone(),
            timeout: Duration::from_secs(3),
        });
        assert_eq!(code, ErrorCode::Timeout);
        let (code, err) = code_of(HttpError::Unreachable {
            request: request.clone(),
            why: "cannot connect (connection refused)".into(),
            connected: false,
        });
        assert_eq!(code, ErrorCode::DeviceUnreachable);
        assert!(code.retryable() && code.status() == 503);
        assert!(err.message.contains("127.0.0.1:8100"), "{}", err.message);
        let (code, err) = code_of(HttpError::Status {
            request: request.clone(),
            status: 500,
            body: "{\"value\": {\"error\": \"unknown error\"}}".into(),
        });
        assert_eq!(code, ErrorCode::CommandFailed);
        let details = err.details.unwrap();
        assert_eq!(details["status"], 500);
        assert!(details["body"].as_str().unwrap().contains("unknown error"));
        let (code, _) = code_of(HttpError::Busy {
            request: request.clone(),
            why: "full".into(),
        });
        assert_eq!(code, ErrorCode::Busy);
        let (code, _) = code_of(HttpError::Invalid {
            request,
            why: "not a URL".into(),
        });
        assert_eq!(code, ErrorCode::Internal);
    }
}
