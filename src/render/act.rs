//! The answers of actions as text: one line per action — what was done, to what, whether it
//! worked and what typing read back — then, when the action observed the screen, the lines
//! that changed; a batch is a numbered line per step.

use serde_json::Value;

use super::s;

/// An action's answer (`tap`, `type_text`, `swipe`, `press`, `alert_accept`…):
/// `type e1 ok · read back "alice"`, then what changed.
pub fn action(v: &Value) -> String {
    let r = &v["target"];
    let mut line = s(&v["action_type"]).to_string();
    match (r["ref"].as_str(), r["x"].as_f64(), r["y"].as_f64()) {
        (Some(rf), _, _) => line += &format!(" {rf}"),
        // A point is the target only when no element was.
        (None, Some(x), Some(y)) => line += &format!(" ({x},{y})"),
        _ => {}
    }
    if let Some(n) = r["name"].as_str().filter(|n| !n.is_empty()) {
        line += &format!(" {n:?}");
    }
    if v["success"] == true {
        line += " ok";
    } else {
        line += " FAILED";
        if let Some(c) = v["failure_code"].as_str() {
            line += &format!(" {c}");
        }
        if let Some(id) = v["details"]["crash"]["id"].as_str() {
            line += &format!(
                " ({})",
                super::call(crate::error::Op::GetCrash, &[("id", id)])
            );
        }
    }
    // What typing left in the field, when it was read back.
    let d = &v["details"];
    if let Some(read) = d["readback"].as_str() {
        line += &format!(" · read back {read:?}");
        if d["matched"] == false {
            line += " (not what was typed)";
        }
    }
    // An action that changed nothing says so (a scroll at the end of its content).
    if d["moved"] == false {
        line += " · nothing moved (the end of the content?)";
    }
    if let Some(t) = v["timing_ms"].as_u64() {
        line += &format!(" · {t} ms");
    }
    if let Some(p) = v.get("perf") {
        line += &super::perf::cost(p);
    }
    if let Some(c) = v.get("changes") {
        line += &screen_change(c);
        line += &changes(c);
    }
    line
}

/// What an observed action did to the whole screen, on its line: ` · new screen in X` (X the
/// app in front when it changed), or ` · app → X` when the app changed under the same screen.
fn screen_change(c: &Value) -> String {
    match (c["replaced"] == true, c["app"].as_str()) {
        (true, Some(app)) => format!(" · new screen in {app}"),
        (true, None) => " · new screen".to_string(),
        (false, Some(app)) => format!(" · app → {app}"),
        (false, None) => String::new(),
    }
}

/// A batch: a numbered line per step (its own readable answer, or its error), then the
/// receipt and the outcome.
pub fn batch(v: &Value) -> String {
    let steps = v["steps"].as_array().map_or(&[][..], Vec::as_slice);
    let mut lines = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let answer = &step["answer"];
        let said = match answer["error"]["code"].as_str() {
            Some(code) => std::iter::once(format!(
                "{} FAILED {code}: {}",
                s(&step["op"]),
                s(&answer["error"]["message"])
            ))
            .chain(super::errors::candidates(&answer["error"]["details"]))
            .collect::<Vec<_>>()
            .join("\n"),
            None => super::text(s(&step["op"]), answer),
        };
        lines.push(format!("{i} {}", said.replace('\n', "\n  ")));
    }
    if let Some(r) = v.get("receipt") {
        let mut line = "receipt".to_string();
        if let Some(c) = r.get("changes") {
            line += &screen_change(c);
            // Under the receipt's line, as a step's own lines are under its number.
            line += &changes(c).replace('\n', "\n  ");
        }
        lines.push(line);
    }
    lines.push(match v["stopped_at"].as_u64() {
        Some(i) if v["timed_out"] == true => format!("batch FAILED: out of time before step {i}"),
        Some(i) => format!("batch FAILED at step {i}"),
        None if v["success"] == true => format!("batch ok ({} steps)", steps.len()),
        None => "batch FAILED (went on after failures)".to_string(),
    });
    lines.join("\n")
}

/// The lines of an observed action's `changes`, under its line: `+` appeared, `-` gone,
/// `~` changed; on a new screen its lines as they read, unmarked (they all appeared).
fn changes(c: &Value) -> String {
    let mut out = String::new();
    let replaced = c["replaced"] == true;
    let mut list = |mark: &str, key: &str| {
        for l in c[key].as_array().into_iter().flatten() {
            match replaced {
                true => out += &format!("\n{}", s(l)),
                false => out += &format!("\n{mark} {}", s(l)),
            }
        }
    };
    list("+", "appeared");
    list("-", "disappeared");
    list("~", "changed");
    if out.is_empty() && !replaced && c["app"].is_null() {
        out += "\n(no change)";
    }
    out
}
