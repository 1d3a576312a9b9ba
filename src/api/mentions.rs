//! Routes mentioned in the server's words. A hint is written for HTTP callers ("check it
//! with GET /api/v1/doctor", "… /accept or /dismiss"); [`routes`] finds each mention of a path
//! of the table (with its method word when there is one, a bare `/dismiss` right after a route
//! read relative to it) and lets the caller say what to call the operation instead: the CLI
//! its command, MCP its tool. [`operation_at`] is the table's operation at a route.

use super::{operations, Operation};

const METHODS: [&str; 4] = ["GET", "POST", "PUT", "DELETE"];

fn is_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"/-_.{}".contains(&b)
}

/// The operation on `path` with `method` (without one: the path's `GET`, else its first).
pub fn operation_at(method: Option<&str>, path: &str) -> Option<Operation> {
    let ops = operations();
    let on_path = || ops.iter().filter(|o| o.path == path);
    match method {
        Some(m) => on_path().find(|o| o.method.as_str() == m),
        None => on_path()
            .find(|o| o.method.as_str() == "GET")
            .or_else(|| on_path().next()),
    }
    .cloned()
}

/// `text` with each route mention that `name` names (given the method word, if any, and the
/// path) replaced by that name in backticks, its method word dropped; other mentions are left
/// as written.
pub fn routes(text: &str, name: impl Fn(Option<&str>, &str) -> Option<String>) -> String {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    // The last route named, for relative mentions (`… /accept or /dismiss`).
    let mut last: Option<String> = None;
    while i < bytes.len() {
        let starts_word = i == 0 || !is_path_byte(bytes[i - 1]);
        if bytes[i] == b'/' && starts_word {
            let end = (i..bytes.len())
                .find(|&j| !is_path_byte(bytes[j]))
                .unwrap_or(bytes.len());
            // A trailing `.` ends the sentence, not the path.
            let end = if text[i..end].ends_with('.') && end > i + 1 {
                end - 1
            } else {
                end
            };
            let path = &text[i..end];
            // The method word just before, if any.
            let before = out.trim_end_matches(' ');
            let method = METHODS
                .iter()
                .find(|m| {
                    before.ends_with(*m)
                        && !before[..before.len() - m.len()]
                            .ends_with(|c: char| c.is_ascii_alphanumeric())
                })
                .copied();
            let relative = last.as_deref().and_then(|l| {
                let parent = &l[..l.rfind('/')?];
                let candidate = format!("{parent}{path}");
                name(method, &candidate).map(|c| (candidate, c))
            });
            let found = name(method, path)
                .map(|c| (path.to_string(), c))
                .or(relative);
            if let Some((full, named)) = found {
                if let Some(m) = method {
                    out.truncate(before.len() - m.len());
                }
                out.push('`');
                out.push_str(&named);
                out.push('`');
                last = Some(full);
                i = end;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_name(method: Option<&str>, path: &str) -> Option<String> {
        operation_at(method, path).map(|o| o.name.to_string())
    }

    #[test]
    fn a_route_is_named_by_its_operation() {
        assert_eq!(
            routes("check it with GET /api/v1/doctor.", by_name),
            "check it with `doctor`."
        );
        // The method picks among the operations of one path.
        assert_eq!(
            routes("PUT /api/v1/device/active", by_name),
            "`set_active_device`"
        );
        // Relative to the route before it.
        assert_eq!(
            routes("POST /api/v1/device/alert/accept or /dismiss", by_name),
            "`alert_accept` or `alert_dismiss`"
        );
        // Not a route of the table, or not named: left as written.
        assert_eq!(
            routes("see /tmp/x and /openapi.json", by_name),
            "see /tmp/x and /openapi.json"
        );
    }
}
