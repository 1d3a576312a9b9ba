//! The screen's rotation: Android's `Surface.ROTATION_*` (0..3) from the settings, as the
//! window manager applies them — `user_rotation` while auto-rotate is off
//! (`accelerometer_rotation` 0); with auto-rotate on, the sensor, and this device is held
//! upright. A landscape rotation (1, 3) swaps the screen's width and height and the app is
//! laid out again for it: every bound is scaled from the upright layout (x by H/W, y by W/H),
//! taps are mapped back through the inverse, and the dump states the rotation
//! (`<hierarchy rotation="1">`). `wm size` stays the physical (upright) size, as on Android.

use super::DeviceState;
use crate::uixml::{Hierarchy, Node};

impl DeviceState {
    /// The rotation in effect (0..3).
    pub fn rotation(&self) -> u8 {
        let get = |key: &str| {
            self.settings
                .get(&("system".to_string(), key.to_string()))
                .map(String::as_str)
        };
        if get("accelerometer_rotation") == Some("0") {
            get("user_rotation")
                .and_then(|r| r.trim().parse::<u8>().ok())
                .filter(|r| *r < 4)
                .unwrap_or(0)
        } else {
            0
        }
    }

    fn landscape(&self) -> bool {
        self.rotation() % 2 == 1
    }

    /// The screen's size as shown (width, height): swapped in landscape.
    pub fn screen_size(&self) -> (u32, u32) {
        let (w, h) = self.app.size;
        if self.landscape() {
            (h, w)
        } else {
            (w, h)
        }
    }

    /// A point on the shown screen, in the upright layout's coordinates.
    pub(super) fn to_portrait(&self, x: i32, y: i32) -> (i32, i32) {
        if !self.landscape() {
            return (x, y);
        }
        let (w, h) = (self.app.size.0 as i64, self.app.size.1 as i64);
        ((x as i64 * w / h) as i32, (y as i64 * h / w) as i32)
    }

    /// The current screen as shown: the upright layout, laid out again for the rotation.
    pub fn current(&self) -> Hierarchy {
        let mut h = self.portrait();
        h.rotation = self.rotation().to_string();
        if self.landscape() {
            let (w, hh) = (self.app.size.0 as i64, self.app.size.1 as i64);
            for root in h.roots.iter_mut() {
                relayout(root, hh, w);
            }
        }
        h
    }
}

/// Scales a node's bounds (and its children's) from upright to landscape: x by `num/den`,
/// y by `den/num` (`num` the upright height, `den` its width).
fn relayout(node: &mut Node, num: i64, den: i64) {
    let b = node.bounds();
    let x = |v: i32| (v as i64 * num / den) as i32;
    let y = |v: i32| (v as i64 * den / num) as i32;
    node.set(
        "bounds",
        &format!("[{},{}][{},{}]", x(b.x1), y(b.y1), x(b.x2), y(b.y2)),
    );
    for child in &mut node.children {
        relayout(child, num, den);
    }
}

#[cfg(test)]
mod tests {
    use crate::app::App;
    use crate::state::DeviceState;

    fn lock(s: &mut DeviceState, r: &str) {
        s.settings.insert(
            ("system".into(), "accelerometer_rotation".into()),
            "0".into(),
        );
        s.settings
            .insert(("system".into(), "user_rotation".into()), r.into());
    }

    #[test]
    fn a_locked_landscape_rotation_swaps_the_screen_and_taps_follow_it() {
        let mut s = DeviceState::new(App::demo().unwrap());
        s.settings
            .insert(("system".into(), "user_rotation".into()), "1".into());
        assert_eq!(s.rotation(), 0, "auto-rotate on: the sensor says upright");
        lock(&mut s, "1");
        assert_eq!(s.rotation(), 1);
        assert_eq!(s.screen_size(), (2400, 1080));
        let h = s.current();
        assert_eq!(h.rotation, "1");
        let user = h
            .walk()
            .into_iter()
            .find(|(_, n)| n.get("resource-id") == "com.mobilectl.demo:id/username")
            .map(|(_, n)| n.bounds())
            .unwrap();
        assert!(user.x2 > 1080, "laid out across the wide screen: {user:?}");
        s.tap((user.x1 + user.x2) / 2, (user.y1 + user.y2) / 2, false);
        assert!(s.focused.is_some(), "the tap reached the field");
        lock(&mut s, "2");
        assert_eq!(s.screen_size(), (1080, 2400));
    }
}
