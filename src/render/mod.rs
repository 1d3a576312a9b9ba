//! Answers as compact text, one renderer per operation, given with its output type in the
//! operation table (`crate::api::Operation::told`): what the CLI prints, and what an MCP tool result says to the model (the
//! answer's JSON rides along there as `structuredContent`). Pure code: JSON in, text out; a
//! call an answer names (what to do next) is a [`Step`] worded in the voice of the front end
//! that renders ([`in_voice`]: the CLI's command, MCP's tool), so no front end reads it back.
//!
//! - [`act`]: actions (one line each, then what changed) and batches;
//! - [`audit`]: the accessibility audit, a summary line then one line a finding;
//! - [`verify`]: waits, expectations, waits for a change;
//! - [`inspect`]: the snapshot, its tree under a short header;
//! - [`devices`]: devices, apps, outcomes, the doctor, the summary, find;
//! - [`build`]: app builds, their diagnostics and progress;
//! - [`sessions`]: sessions and leases;
//! - [`logs`]: log entries, pages, crashes, the debug bundle;
//! - [`flows`]: the recording proxy's flows, summary and status;
//! - [`rules`]: the proxy's rules and link conditions, and the HAR export.
//! - [`recordings`]: screen recordings.
//! - [`maestro`]: a Maestro flow run, step by step.
//! - [`runs`]: runs, their artifacts, GC's plan.
//! - [`perf`]: an app's performance.
//! - [`errors`]: the candidates an error names.

pub mod act;
pub mod audit;
pub mod build;
pub mod devices;
pub mod errors;
pub mod features;
pub mod flows;
pub mod inspect;
pub mod logs;
pub mod maestro;
pub mod perf;
pub mod recordings;
pub mod rules;
pub mod runs;
pub mod sessions;
pub mod verify;

use std::cell::Cell;

use serde_json::{json, Value};

use crate::error::{Op, Step};

/// Turns an operation's JSON answer into text.
pub type Renderer = fn(&Value) -> String;

/// The renderer of operation `op`, if it has one: the one its table entry gives with its
/// output type (`crate::api::Operation::told`).
pub fn renderer(op: &str) -> Option<Renderer> {
    crate::api::find(op).and_then(|o| o.told)
}

/// `op`'s answer as text: its renderer's, or pretty JSON for an operation without one.
pub fn text(op: &str, answer: &Value) -> String {
    match renderer(op) {
        Some(render) => render(answer),
        None => serde_json::to_string_pretty(answer).unwrap_or_default(),
    }
}

/// How a front end words a call an answer names ([`call`]): the CLI as its command line, MCP
/// as its tool. The same wording as its error hints' steps.
pub type Voice = fn(&Step) -> String;

thread_local! {
    /// The voice the renderers on this thread speak in ([`in_voice`]); none: [`neutral`].
    static VOICE: Cell<Option<Voice>> = const { Cell::new(None) };
}

/// What `f` renders, its calls worded by `voice` (renderers are plain synchronous functions,
/// so the voice is theirs for the call and no longer).
pub fn in_voice<T>(voice: Voice, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Voice>);
    impl Drop for Restore {
        fn drop(&mut self) {
            VOICE.set(self.0);
        }
    }
    let _restore = Restore(VOICE.replace(Some(voice)));
    f()
}

/// `op`'s answer as text, its calls worded by `voice`.
pub fn text_in(voice: Voice, op: &str, answer: &Value) -> String {
    in_voice(voice, || text(op, answer))
}

/// An operation to call next, as a value the front end that renders words
/// ([`in_voice`]): `mobilectl crashes c0123` on the command line; without a voice, as a tool
/// call reads ([`neutral`]).
pub(crate) fn call(op: Op, args: &[(&str, &str)]) -> String {
    let args = args.iter().map(|(k, v)| (k.to_string(), json!(v)));
    let step = Step::call_with(op, Value::Object(args.collect()));
    match VOICE.get() {
        Some(voice) => voice(&step),
        None => neutral(&step),
    }
}

/// A call as a tool call reads: `` `get_crash id=c0123` ``.
fn neutral(step: &Step) -> String {
    let Step::Call { op, args } = step else {
        return String::new();
    };
    let mut out = format!("`{op}");
    for (k, v) in args {
        out += &format!(" {k}={}", v.as_str().unwrap_or_default());
    }
    out + "`"
}

/// A JSON string's text, or nothing.
pub(crate) fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// The first 8 characters of a fingerprint.
pub(crate) fn short(fp: &Value) -> String {
    fp.as_str()
        .map_or("?".into(), |f| f.chars().take(8).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{operations, Output};
    use serde_json::json;

    #[test]
    fn a_launch_says_its_time_and_the_kind_of_start_android_measured() {
        let cold = json!({"success": true, "bundle_id": "com.app", "launch_time_ms": 312,
            "startup": {"launch_state": "COLD", "total_time_ms": 312, "complete": true},
            "device": {"udid": "emulator-5554"}});
        assert_eq!(
            devices::done(&cold),
            "ok · com.app · launched in 312 ms (cold start) · emulator-5554"
        );
        let repeated = json!({"success": true, "bundle_id": "com.app", "launch_time_ms": 330,
            "starts": {"times_ms": [312, 330, 301], "median_ms": 312, "min_ms": 301,
                "max_ms": 330, "measured_by": "platform"}});
        assert_eq!(
            devices::done(&repeated),
            "ok · com.app · launched in 330 ms · 3 starts: median 312 ms (301–330 ms)"
        );
        let timed_here = json!({"success": true, "bundle_id": "com.app", "launch_time_ms": 90});
        assert_eq!(
            devices::done(&timed_here),
            "ok · com.app · launched in 90 ms"
        );
    }

    #[test]
    fn a_simulator_launch_says_its_first_screen_and_who_measured_it() {
        let shown = json!({"success": true, "bundle_id": "com.app", "launch_time_ms": 812,
            "startup": {"measured_by": "mobilectl", "status": "ok", "total_time_ms": 812,
                "wait_time_ms": 230, "earliest_ms": 640, "reads": 4, "complete": true},
            "starts": {"times_ms": [812, 790, 840], "median_ms": 812, "min_ms": 790,
                "max_ms": 840, "measured_by": "mobilectl"}});
        assert_eq!(
            devices::done(&shown),
            "ok · com.app · first screen after 812 ms (measured by mobilectl, not before \
             640 ms) · 3 starts to the first screen: median 812 ms (790–840 ms)"
        );
        let never = json!({"success": true, "bundle_id": "com.app", "launch_time_ms": 230,
            "startup": {"measured_by": "mobilectl", "status": "timeout", "wait_time_ms": 230,
                "earliest_ms": 14900, "reads": 40, "complete": false,
                "warning": "no first screen within 15000 ms; last seen: `Tuist` in front"},
            "starts": {"times_ms": [230], "median_ms": 230, "min_ms": 230, "max_ms": 230,
                "measured_by": "launch_command"}});
        assert_eq!(
            devices::done(&never),
            "ok · com.app · launched in 230 ms · no first screen within 15000 ms; last seen: \
             `Tuist` in front · 1 start: median 230 ms (230–230 ms, the launch \
             command's own time)"
        );
    }

    #[test]
    fn every_json_answer_and_stream_is_told_and_files_are_not() {
        // The table's builder takes the renderer with a JSON output type; this checks the
        // lookup by name finds it.
        for op in operations() {
            let has = renderer(op.name).is_some();
            let wants = match op.output {
                Output::Json(_)
                | Output::JsonOrText(_)
                | Output::JsonOrBytes(_)
                | Output::EventStream(_) => true,
                Output::Image | Output::File(_) => false,
            };
            assert_eq!(
                has, wants,
                "{}: renderer {has}, JSON answer {wants}",
                op.name
            );
        }
    }

    #[test]
    fn action_results_are_one_line() {
        let v = json!({"action_type": "tap", "success": true,
            "target": {"ref": "e4", "x": 540, "y": 1290, "name": "LOG IN"},
            "fingerprint_before": "87d1aaaaaaaa", "udid": "x", "timing_ms": 12});
        assert_eq!(text("tap", &v), "tap e4 \"LOG IN\" ok · 12 ms");
        // A scroll that moved nothing says so.
        let still = json!({"action_type": "scroll", "success": true, "udid": "x",
            "details": {"direction": "up", "moved": false}});
        assert_eq!(
            text("scroll", &still),
            "scroll ok · nothing moved (the end of the content?)"
        );
        // A point is said when it was the target.
        let point = json!({"action_type": "tap", "success": true,
            "target": {"x": 540, "y": 1290}, "udid": "x"});
        assert_eq!(text("tap", &point), "tap (540,1290) ok");
        // With observe, what changed follows the line.
        let observed = json!({"action_type": "tap", "success": true,
            "target": {"ref": "e4", "x": 540, "y": 1290},
            "fingerprint_after": "99aabbccdd",
            "changes": {"appeared": ["! alert buttons: e9", "button \"Allow\" [e9]"],
                        "replaced": true, "gone": 7, "app": "com.b"},
            "udid": "x", "timing_ms": 30});
        // A new screen's lines read as they are (all of them appeared).
        assert_eq!(
            text("tap", &observed),
            "tap e4 ok · 30 ms · new screen in com.b\n! alert buttons: e9\nbutton \"Allow\" [e9]"
        );
        let same_app = json!({"action_type": "tap", "success": true, "target": {"ref": "e2"},
            "changes": {"appeared": ["\"Saved\""], "disappeared": ["\"Draft\""],
                        "changed": ["textbox \"x\" [e1]"]}});
        assert_eq!(
            text("tap", &same_app),
            "tap e2 ok\n+ \"Saved\"\n- \"Draft\"\n~ textbox \"x\" [e1]"
        );
        let other_app = json!({"action_type": "press", "success": true,
            "changes": {"app": "com.c", "appeared": ["\"Home\""]}});
        assert_eq!(
            text("press", &other_app),
            "press ok · app → com.c\n+ \"Home\""
        );
        // A crash names the call that shows it (the CLI prints it as its command).
        let crashed = json!({"action_type": "tap", "success": false, "target": {"ref": "e3"},
            "failure_code": "APP_CRASHED", "details": {"crash": {"id": "c0123"}}});
        assert_eq!(
            text("tap", &crashed),
            "tap e3 FAILED APP_CRASHED (`get_crash id=c0123`)"
        );
        let unchanged = json!({"action_type": "press", "success": true, "changes": {},
            "udid": "x", "timing_ms": 3});
        assert_eq!(text("press", &unchanged), "press ok · 3 ms\n(no change)");
        let typed = json!({"action_type": "type", "success": true,
            "target": {"ref": "e1"}, "details": {"matched": true, "readback": "alice"}});
        assert_eq!(
            text("type_text", &typed),
            "type e1 ok · read back \"alice\""
        );
        let mistyped = json!({"action_type": "type", "success": false,
            "failure_code": "TEXT_MISMATCH", "timing_ms": 5,
            "details": {"matched": false, "readback": "alic"}});
        assert_eq!(
            text("type_text", &mistyped),
            "type FAILED TEXT_MISMATCH · read back \"alic\" (not what was typed) · 5 ms"
        );
    }

    #[test]
    fn a_batch_renders_each_step_by_its_operation() {
        let v = json!({"udid": "x", "success": true, "steps": [
            {"op": "type_text", "answer": {"action_type": "type", "success": true,
                "target": {"ref": "e1"}, "details": {"matched": true, "readback": "a"}}},
            {"op": "wait", "answer": {"status": "success", "elapsed_ms": 3, "polls": 1,
                "matched": {"ref": "e9", "role": "button", "name": "Allow"}}},
            {"op": "tap", "answer": {"error": {"code": "ELEMENT_NOT_FOUND", "message": "no"}}}],
            "receipt": {"fingerprint_after": "aaaabbbbcccc", "changes": {"appeared": ["\"x\""]}}});
        assert_eq!(
            text("batch", &v),
            "0 type e1 ok · read back \"a\"\n\
             1 wait success after 3 ms (1 polls) · @e9 button \"Allow\"\n\
             2 tap FAILED ELEMENT_NOT_FOUND: no\n\
             receipt\n  + \"x\"\n\
             batch ok (3 steps)"
        );
    }

    #[test]
    fn a_search_without_a_match_says_so_before_its_look_alikes() {
        let m = |r: &str, kind: &str, score: f64| json!({"ref": r, "role": "button", "name": "Order #1005", "kind": kind, "score": score});
        let found =
            json!({"snapshot_id": "s", "found": true, "matches": [m("e3", "contains", 0.8)]});
        assert_eq!(
            devices::matches(&found),
            "@e3 button \"Order #1005\" (contains 0.80)"
        );
        let fuzzy =
            json!({"snapshot_id": "s", "found": false, "matches": [m("e5", "fuzzy", 0.55)]});
        assert_eq!(
            devices::matches(&fuzzy),
            "no match; look-alikes:\n@e5 button \"Order #1005\" (fuzzy 0.55)"
        );
        let none = json!({"snapshot_id": "s", "found": false, "matches": []});
        assert_eq!(devices::matches(&none), "no match");
    }

    #[test]
    fn change_and_health_lines() {
        let v = json!({"status": "changed", "fingerprint_before": "aaaaaaaaaa",
            "fingerprint_after": "bbbbbbbbbb", "elapsed_ms": 40, "polls": 2, "snapshot_id": "s"});
        assert_eq!(
            text("wait_for_change", &v),
            "changed after 40 ms (2 polls) · fp aaaaaaaa→bbbbbbbb"
        );
        let h = json!({"status": "ok", "version": "0.1.0", "api_protocol_version": 1});
        assert_eq!(text("health", &h), "ok · mobilectl 0.1.0 · API protocol 1");
    }

    #[test]
    fn device_and_doctor_lines_name_every_backend() {
        let list = json!({"devices": [], "tools": {
            "android": {"available": true},
            "ios": {"available": false, "reason": "`xcrun` was not found"},
            "wda": {"available": false, "reason": "no endpoint"}}});
        assert_eq!(
            text("list_devices", &list),
            "no devices\n(ios not listed: `xcrun` was not found)\n(wda not listed: no endpoint)"
        );
        let doctor = json!({"overall": "degraded", "android": "ready", "ios": "degraded",
            "wda": "degraded", "tools": [], "checks": [
                {"backend": "wda", "name": "WebDriverAgent", "target": "http://127.0.0.1:8100",
                 "ok": true, "version": "9.3.0", "detail": "iOS 17.5"},
                {"backend": "wda", "name": "devicectl", "target": "xcrun devicectl",
                 "ok": false, "remediation": "install Xcode"}]});
        assert_eq!(
            text("doctor", &doctor),
            "overall: degraded (android: ready, ios: degraded, wda: degraded)\n  \
             ok       WebDriverAgent  http://127.0.0.1:8100  9.3.0 · iOS 17.5\n  \
             failing  devicectl  xcrun devicectl\n           → install Xcode"
        );
    }

    #[test]
    fn an_operation_without_a_renderer_is_pretty_json() {
        assert_eq!(text("screenshot", &json!({"a": 1})), "{\n  \"a\": 1\n}");
    }
}
