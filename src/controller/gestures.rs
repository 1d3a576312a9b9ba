//! Two-finger gestures — a pinch and a rotation — on a target (ref, point, selector, grid
//! cell), run as an action (the device's lock, the target checked, the answer an action's).
//! The numbers are checked before anything runs; the fingers start a quarter of the
//! element's smaller side from its centre (100 units around a point, 20..200 at most), and
//! a platform without simultaneous touches answers 501 (never two swipes in a row).

use super::DeviceController;
use crate::api::wire::act::{ActionResult, ActionTarget, Target};
use crate::backend::concern;
use crate::device::{check_multi_touch, MultiTouch};
use crate::error::Result;

impl DeviceController {
    /// A pinch (`scale`) or a rotation (`degrees`) around the target.
    pub async fn multi_touch(
        &self,
        udid: Option<&str>,
        target: &Target,
        pinch: bool,
        scale: Option<f64>,
        degrees: Option<f64>,
    ) -> Result<ActionResult> {
        check_multi_touch(pinch, scale, degrees)?;
        let kind = if pinch { "pinch" } else { "rotate" };
        let mut action = self.begin(udid, kind).await?;
        let resolved = self.aim(&mut action, target).await?;
        let radius = resolved
            .bounds
            .map_or(100.0, |b| (b.w.min(b.h) / 4.0).clamp(20.0, 200.0));
        let gesture = match (scale, degrees) {
            (Some(scale), _) if pinch => MultiTouch::Pinch { scale, radius },
            (_, Some(degrees)) => MultiTouch::Rotate { degrees, radius },
            _ => MultiTouch::Pinch { scale: 1.0, radius },
        };
        self.cap(&action.device, concern::MultiTouchInput)?
            .multi_touch(&action.device, resolved.point(), gesture)
            .await?;
        let target = ActionTarget::of(target, &resolved);
        self.finish(action, Some(target), None).await
    }
}
