//! The focused window, read only when it may have changed. A read of the screen gives its
//! tree but not the activity in front; `dumpsys window` says that, at the cost of a second
//! device tool. The structure of the tree (each element's package, class and resource id, in
//! order: no text, no bounds) changes whenever another window or activity comes to the
//! front, so while a device's structure stays what it was at its last focus read, that read
//! still holds (typing, scrolling a list of alike rows, a checkbox ticked). The dump's script
//! sums the structure on the device and runs `dumpsys window` only when it differs from the
//! known one, in the same round trip ([`super::screen::dump_script`]); the resident server's
//! reads, which have no focus of their own, sum it here ([`structure`]) and ask adb only then.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use super::screen::{parse_focus, Focus};
use super::{AdbBackend, QUICK_TIMEOUT};

/// The script reading the focused window.
pub const FOCUS_SCRIPT: &str = "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'";

/// The attributes that make a tree's structure.
const STRUCTURE: [&str; 3] = [" package=\"", " class=\"", " resource-id=\""];

/// A hash of the tree's structure: the values of [`STRUCTURE`]'s attributes, in document
/// order.
pub fn structure(xml: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut rest = xml;
    while let Some((at, len)) = STRUCTURE
        .iter()
        .filter_map(|a| rest.find(a).map(|i| (i, a.len())))
        .min()
    {
        let value = &rest[at + len..];
        let end = value.find('"').unwrap_or(value.len());
        value[..end].hash(&mut h);
        rest = &value[end..];
    }
    h.finish()
}

/// A structure, as summed where it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    /// By the device's `cksum`, in the dump's script.
    Device(String),
    /// By [`structure`], of a page source.
    Host(u64),
}

/// A focus read: the structure it was read for, and the focused window it found.
type Read = (Shape, Option<String>);

/// Each device's last focus read, by serial.
#[derive(Debug, Clone, Default)]
pub struct FocusCache(Arc<Mutex<HashMap<String, Read>>>);

impl FocusCache {
    fn get(&self, serial: &str, shape: &Shape) -> Option<Option<String>> {
        let held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        held.get(serial)
            .filter(|(s, _)| s == shape)
            .map(|(_, f)| f.clone())
    }

    fn put(&self, serial: &str, shape: Shape, focus: Option<String>) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(serial.to_string(), (shape, focus));
    }

    /// The device-summed structure of `serial`'s last focus read, for the dump's script.
    pub fn device_shape(&self, serial: &str) -> Option<String> {
        let held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match held.get(serial) {
            Some((Shape::Device(s), _)) => Some(s.clone()),
            _ => None,
        }
    }

    /// The focused window after a dump: the one it read (kept with its structure), or the
    /// last one read when the structure was the known one.
    pub fn settle(&self, serial: &str, shape: Option<String>, focus: Focus) -> Option<String> {
        match (focus, shape) {
            (Focus::Read(read), Some(shape)) => {
                self.put(serial, Shape::Device(shape), read.clone());
                read
            }
            (Focus::Read(read), None) => read,
            (Focus::Unchanged, shape) => {
                let known = shape.map(Shape::Device)?;
                self.get(serial, &known).flatten()
            }
        }
    }
}

impl AdbBackend {
    /// The focused window of `serial` whose screen is `xml`: the last read when the
    /// structure is the same, else read now (none when the read fails).
    pub(crate) async fn focus_of(&self, serial: &str, xml: &str) -> Option<String> {
        let shape = Shape::Host(structure(xml));
        if let Some(focus) = self.focus.get(serial, &shape) {
            return focus;
        }
        let out = self.shell(serial, FOCUS_SCRIPT, QUICK_TIMEOUT).await.ok()?;
        let focus = parse_focus(&out.stdout_text());
        self.focus.put(serial, shape, focus.clone());
        focus
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_bounds_leave_the_structure_alone_classes_and_ids_do_not() {
        let a = r#"<node package="p" class="android.widget.EditText" resource-id="p:id/email" text="" bounds="[0,0][10,10]"/>"#;
        let typed = a.replace("text=\"\"", "text=\"ada\"");
        let moved = a.replace("[0,0][10,10]", "[0,5][10,15]");
        assert_eq!(structure(a), structure(&typed));
        assert_eq!(structure(a), structure(&moved));
        assert_ne!(
            structure(a),
            structure(&a.replace("p:id/email", "p:id/name"))
        );
        assert_ne!(structure(a), structure(&a.replace("EditText", "TextView")));
    }

    #[test]
    fn both_dump_formats_have_a_structure() {
        let appium = r#"<android.widget.FrameLayout index="0" package="p" class="android.widget.FrameLayout" text=""/>"#;
        assert_ne!(structure(appium), structure(""));
    }
}
