//! Whether one UI read of a Simulator shows a launched app's first screen, as a pure function of
//! the AXe `describe-ui` or idb `ui describe-all --json` output.
//!
//! The first screen is a read whose front application is the launched app and holds at least
//! one element of its own. What this relies on, as the recorded outputs show it
//! (`fixtures/ios_axe`, `fixtures/ios_idb`):
//! - both print the front application first, an element of `type` `Application` (role
//!   `AXApplication`) labelled with the app's display name (`Contacts`, `Calendar`, `Tuist`,
//!   `LINE Dev`); SpringBoard's home screen is an application labelled `" "` (idb, iOS 18.4);
//!   neither names the bundle id, so the app is recognised by its name (`simctl listapps`'s
//!   `CFBundleDisplayName`, else `CFBundleName`) or by its process;
//! - AXe nests the app's elements in `children`; idb lists them flat after the application;
//! - AXe 1.8 gives every element the `pid` of its process (`"pid": 81282`); status-bar elements
//!   of another process (`"synthesized": true` in sim-use's AXe trees) carry that process's pid,
//!   so they are not the app's own.
//!
//! An application in front with nothing of its own is the app starting (the system shows its
//! launch image, which is no element of the app's).

use serde_json::Value;

/// The app a launch waits for: its process (from `simctl launch`) and its display name, each
/// when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Awaited<'a> {
    /// The pid `simctl launch` printed.
    pub pid: Option<u32>,
    /// The name its application element is labelled with.
    pub name: Option<&'a str>,
}

impl Awaited<'_> {
    /// Whether a read can tell this app from another one at all.
    pub fn recognisable(&self) -> bool {
        self.pid.is_some() || self.name.is_some_and(|n| !n.trim().is_empty())
    }
}

/// What one read shows of the awaited app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Front {
    /// Not a list of accessibility elements with an application among them.
    Unreadable,
    /// Another application is in front: its label (`None`: blank, as SpringBoard's home).
    Other {
        /// The label of the application in front.
        label: Option<String>,
    },
    /// The app is in front without an element of its own yet.
    Starting,
    /// The app is in front with elements of its own: its first screen.
    FirstScreen {
        /// How many elements of its own the read holds.
        elements: usize,
    },
}

/// Reads `text` (AXe or idb output) for the app `app`.
pub fn front(text: &str, app: &Awaited<'_>) -> Front {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return Front::Unreadable;
    };
    let nodes = match &value {
        Value::Array(a) => a.as_slice(),
        Value::Object(_) => std::slice::from_ref(&value),
        _ => return Front::Unreadable,
    };
    let Some(at) = nodes.iter().position(is_application) else {
        return Front::Unreadable;
    };
    let root = &nodes[at];
    let label = root
        .get("AXLabel")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|l| !l.is_empty());
    let root_pid = pid_of(root);
    let by_pid = app.pid.is_some() && root_pid == app.pid;
    let by_name = match (app.name.map(str::trim), label) {
        (Some(name), Some(label)) => !name.is_empty() && name.eq_ignore_ascii_case(label),
        _ => false,
    };
    if !(by_pid || by_name) {
        return Front::Other {
            label: label.map(str::to_string),
        };
    }
    // Its elements: nested under it (AXe), else listed after it up to the next application
    // (idb).
    let mut stack: Vec<&Value> = children(root).iter().collect();
    stack.extend(
        nodes[at + 1..]
            .iter()
            .take_while(|n| !is_application(n))
            .filter(|_| children(root).is_empty()),
    );
    let mut elements = 0;
    while let Some(node) = stack.pop() {
        if !node.is_object() {
            continue;
        }
        // An element of another process (a status bar laid over it) is not the app's.
        let theirs = matches!((root_pid, pid_of(node)), (Some(a), Some(b)) if a != b);
        if !theirs {
            elements += 1;
        }
        stack.extend(children(node));
    }
    match elements {
        0 => Front::Starting,
        elements => Front::FirstScreen { elements },
    }
}

fn is_application(node: &Value) -> bool {
    node.get("type").and_then(Value::as_str) == Some("Application")
        || node.get("role").and_then(Value::as_str) == Some("AXApplication")
}

fn pid_of(node: &Value) -> Option<u32> {
    node.get("pid")
        .and_then(Value::as_u64)
        .and_then(|p| u32::try_from(p).ok())
}

fn children(node: &Value) -> &[Value] {
    node.get("children")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(rel: &str) -> String {
        let path = format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    const AXE_CONTACTS: &str =
        "ios_axe/axe_describe_ui_contacts_search_subtree_ios18.5_axe1.8_reformatted.json";
    const AXE_LINE: &str = "ios_axe/simuse_describe_ui_raw_line_app_no_keyboard_ja_402x874.json";
    const IDB_HOME: &str =
        "ios_idb/idb_describe_all_json_springboard_home_iphone_430x932_ios18.4.json";
    const IDB_CONTACTS: &str = "ios_idb/idb_describe_all_trimmed_contacts_393x852.json";

    fn named(name: &str) -> Awaited<'_> {
        Awaited {
            pid: None,
            name: Some(name),
        }
    }

    fn pid(pid: u32) -> Awaited<'static> {
        Awaited {
            pid: Some(pid),
            name: None,
        }
    }

    #[test]
    fn an_axe_read_of_the_app_is_its_first_screen_by_name_or_by_process() {
        let text = recorded(AXE_CONTACTS);
        // The search field and its two buttons, nested under the application.
        let shown = Front::FirstScreen { elements: 3 };
        assert_eq!(front(&text, &named("Contacts")), shown);
        assert_eq!(front(&text, &named(" contacts ")), shown);
        assert_eq!(front(&text, &pid(81282)), shown);
        // Another process with another name: another app is in front.
        let other = Front::Other {
            label: Some("Contacts".into()),
        };
        assert_eq!(front(&text, &pid(81283)), other);
        assert_eq!(front(&text, &named("Calendar")), other);
        // Either one recognises it.
        let either = Awaited {
            pid: Some(1),
            name: Some("Contacts"),
        };
        assert_eq!(front(&text, &either), shown);
    }

    #[test]
    fn an_idb_read_lists_the_app_flat_and_the_home_screen_is_no_app() {
        let text = recorded(IDB_CONTACTS);
        assert_eq!(
            front(&text, &named("Contacts")),
            Front::FirstScreen { elements: 2 }
        );
        // idb names no process: a pid alone does not recognise the app.
        assert_eq!(
            front(&text, &pid(81282)),
            Front::Other {
                label: Some("Contacts".into())
            }
        );
        // SpringBoard's home: an application labelled " ", its icons after it.
        let home = recorded(IDB_HOME);
        assert_eq!(
            front(&home, &named("Contacts")),
            Front::Other { label: None }
        );
        assert_eq!(front(&home, &named(" ")), Front::Other { label: None });
    }

    #[test]
    fn elements_of_another_process_are_not_the_apps_own() {
        let text = recorded(AXE_LINE);
        let v: Value = serde_json::from_str(&text).unwrap();
        let app = &v[0];
        let all = children(app).len();
        let others: Vec<Value> = children(app)
            .iter()
            .filter(|c| pid_of(c) != Some(29539))
            .cloned()
            .collect();
        // The recorded status bar: five elements of process 4187.
        assert_eq!(others.len(), 5);
        let Front::FirstScreen { elements } = front(&text, &named("LINE Dev")) else {
            panic!("no first screen");
        };
        assert!(elements >= all - 5, "{elements} of {all}");
        let mut descendants = 0;
        let mut stack: Vec<&Value> = children(app).iter().collect();
        while let Some(n) = stack.pop() {
            descendants += usize::from(pid_of(n) == Some(29539));
            stack.extend(children(n));
        }
        assert_eq!(elements, descendants);
        // The same application with only the status bar laid over it: still starting.
        let mut starting = app.clone();
        starting["children"] = Value::Array(others);
        let starting = Value::Array(vec![starting]).to_string();
        assert_eq!(front(&starting, &pid(29539)), Front::Starting);
        assert_eq!(front(&starting, &named("LINE Dev")), Front::Starting);
    }

    #[test]
    fn the_application_alone_is_the_app_starting() {
        // The recorded idb read cut to its application element, as a read shows the app
        // before it has drawn anything of its own.
        let v: Value = serde_json::from_str(&recorded(IDB_CONTACTS)).unwrap();
        let alone = Value::Array(vec![v[0].clone()]).to_string();
        assert_eq!(front(&alone, &named("Contacts")), Front::Starting);
        // The recorded AXe application without its children.
        let mut v: Value = serde_json::from_str(&recorded(AXE_CONTACTS)).unwrap();
        v[0]["children"] = Value::Array(vec![]);
        assert_eq!(front(&v.to_string(), &pid(81282)), Front::Starting);
    }

    #[test]
    fn what_is_not_a_tree_with_an_application_is_unreadable() {
        let button = recorded("ios_idb/idb_describe_point_compact_settings_general_docs.json");
        for text in ["", "not json", "{}", "[]", "42", &button] {
            assert_eq!(front(text, &named("Settings")), Front::Unreadable, "{text}");
        }
    }

    #[test]
    fn an_app_is_recognisable_by_a_pid_or_a_name() {
        assert!(pid(1).recognisable());
        assert!(named("Contacts").recognisable());
        assert!(!named(" ").recognisable());
        assert!(!Awaited {
            pid: None,
            name: None
        }
        .recognisable());
    }
}
