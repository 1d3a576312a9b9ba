//! The answers of verifications as text: a wait, an expectation, a wait for the screen to
//! change.

use serde_json::Value;

use super::{s, short};

/// `wait`: `wait success after 40 ms (2 polls) · @e9 button "Allow"`.
pub fn wait(v: &Value) -> String {
    let mut line = format!(
        "wait {} after {} ms ({} polls)",
        s(&v["status"]),
        v["elapsed_ms"],
        v["polls"]
    );
    let m = &v["matched"];
    if !m.is_null() {
        if let Some(r) = m["ref"].as_str() {
            line += &format!(" · @{r}");
        }
        line += &format!(" {} {:?}", s(&m["role"]), s(&m["name"]));
    } else if v["status"] == "timeout" {
        line += &format!(" · observed {}", v["observed"]);
    }
    line
}

/// `expect`: `expect ok`, or what was observed instead.
pub fn expect(v: &Value) -> String {
    let ok = v["success"] == true;
    let mut line = format!("expect {}", if ok { "ok" } else { "FAILED" });
    if !ok {
        line += &format!(" · observed {}", v["observed"]);
    }
    line
}

/// `wait_for_change`: `changed after 40 ms (2 polls) · fp aaaaaaaa→bbbbbbbb`.
pub fn change(v: &Value) -> String {
    format!(
        "{} after {} ms ({} polls) · fp {}→{}",
        s(&v["status"]),
        v["elapsed_ms"],
        v["polls"],
        short(&v["fingerprint_before"]),
        short(&v["fingerprint_after"])
    )
}
