//! What a caller should do about each error code: one line per code, matched exhaustively so
//! a new code cannot be added without saying what to do about it. The troubleshooting text
//! (the error-code table of docs/agents.md and the MCP resource `mobilectl://troubleshooting`)
//! is made from these lines and [`ErrorCode::meaning`].

use super::ErrorCode::{self, *};

impl ErrorCode {
    /// What to do next when this code comes back.
    pub fn advice(self) -> &'static str {
        match self {
            BadRequest => "fix the request as the message says; the route's schema is in /openapi.json",
            ValidationFailed => "follow the hint: it names the field and a valid example",
            RouteNotFound => "check the path against the route table (GET /openapi.json)",
            MethodNotAllowed => "use the method the route table gives for this path",
            UnsupportedMediaType => "send the body as JSON with `Content-Type: application/json`",
            PayloadTooLarge => "send a smaller body (the limit is in the message)",
            UriTooLong => "shorten the query; move long values into a JSON body",
            HeadersTooLarge => "send fewer or shorter headers",
            RequestTimeout => "send the whole body promptly, then retry",
            Unauthorized => "send `Authorization: Bearer TOKEN` (the server's `--token` or `MOBILECTL_TOKEN`)",
            ForbiddenHost => "call the server by 127.0.0.1 or localhost, or start it with `--allow-host`",
            NoDevice => "list devices (`list_devices`), start or connect one, then pass its `udid`",
            AmbiguousDevice => "pass one candidate's `udid` (listed with the error), or choose the active device with `set_active_device`",
            DeviceOffline => "check `adb devices` or `xcrun simctl list`; reconnect or boot the device, then retry",
            ToolMissing => "install the tool named in the message (`doctor` says where it was looked for)",
            UnsupportedOnPlatform => "this platform cannot do it; the hint names what would make it possible",
            ElementNotFound => "take a new snapshot and pick the element again; `find` searches by text",
            AmbiguousTarget => "act on one candidate's ref (listed with the error), or narrow the selector (id, role) or add `index`",
            StaleReference => "the screen was read again since that ref: take a new snapshot and use its refs",
            SessionNotFound => "start a session (POST /api/v1/sessions; an MCP connection makes its own), or drop the session header",
            SessionForbidden => "send the `secret` that creating the session answered (`Mobilectl-Session: SECRET`); an id or a name only names a session",
            SessionExpired => "the session idled past its TTL and its lease is gone: start a new one (a longer `ttl_s` keeps it)",
            DeviceLeased => "another session holds this device: act on a free one (named in details), or queue with `wait_ms`",
            NoFreeDevice => "every matching device is leased: retry with `wait_ms` to queue, or loosen the match",
            SessionDeviceMismatch => "leave `udid` out in a session (requests go to its device), or start a session for the other device",
            SessionNameTaken => "use the live session of that name, end it, or choose another name",
            RecordingActive => "stop it first (`recording_stop`), or keep it: it ends by itself at `max_s`",
            NotRecording => "start one with `recording_start`; `recordings` lists the finished ones",
            PerfWindowActive => "stop it first (`perf_stop`), or keep it: it ends by itself at `max_s`",
            NoPerfWindow => "start one with `perf_start`; `perf` reads the app once",
            ElementNotInteractable => "wait until it is enabled, or act on another element",
            ElementObscured => "hide the keyboard or close what covers it, then retry",
            AlertBlocking => "answer the alert first (`alert_accept` / `alert_dismiss`)",
            NoAlert => "nothing to answer: take a snapshot to see the screen",
            ElementVisible => "wait for it to go (`wait` with condition `gone`), or check the flow",
            TextMismatch => "read the element's text in details; wait or act until it changes",
            NoFocusedField => "tap a text field first, or pass a target to `type_text`",
            ElementNotEditable => "target a text field (role textbox)",
            AppCrashed => "read the crash (`list_crashes`, `get_crash`), relaunch the app",
            AppNotResponding => "wait and retry, or terminate and relaunch the app; `list_crashes` has the ANR",
            NavigationNoChange => "the action had no visible effect: snapshot, check the target, retry",
            ScreenMismatch => "read the changed share and regions in `observed`; wait (`timeout_ms`) or act until it matches, or raise `tolerance`",
            AccessibilityFindings => "read the findings in `observed` (or `audit` the screen for each one's fix); fix them, or expect against the last accepted audit (`audit_baseline`)",
            BaselineUnusable => "send a PNG screenshot of this screen (same aspect ratio), or use `{\"previous\": true}`",
            UnsupportedText => "type simpler text, or install the ADB Keyboard IME on Android",
            NotFound => "check the name (app id, file, flow, crash id) against its listing",
            Timeout => "retry; if it persists the device is slow or stuck: check it with `doctor`",
            CommandFailed => "read the tool's stderr in details; fix the cause and retry",
            Busy => "retry shortly",
            DeviceUnreachable => "check that WebDriverAgent (or the device) is running and reachable, then retry",
            PortInUse => "choose another port, or stop the program holding it",
            Forbidden => "the server's setup refuses it; the message names the option that allows it",
            RunNotFound => "list the runs (`list_runs`); old ones are deleted by GC (MOBILECTL_GC_* say how long they stay)",
            ArtifactNotFound => "use a name that `get_run` lists for that run",
            RunLive => "end its session first (`end_session`); the server's own run ends when the server stops",
            Unknown => "retry; report it with the message if it repeats",
            Internal => "a mobilectl bug: report it with the server's log",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_meaning_and_advice() {
        for code in ErrorCode::ALL {
            assert!(!code.meaning().is_empty(), "{code:?}");
            assert!(!code.meaning().starts_with(' '), "{code:?}");
            assert!(!code.advice().is_empty(), "{code:?}");
        }
    }
}
