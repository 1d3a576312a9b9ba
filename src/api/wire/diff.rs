//! Wire types of the visual diff (`POST /api/v1/device/screenshot/diff`) and of the baseline
//! that `expect` with `kind: screen_matches` shares with it.
//!
//! Every rectangle here (`mask`, `regions`, `status_bar`) is in the unit taps use on the device
//! (`coordinate_space`: pixels on Android, points on iOS), like element bounds; the answer says
//! which. The baseline image itself is in screenshot pixels.

use base64::Engine;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::logs::BundleImage;
use crate::error::{Error, ErrorCode, Result};
use crate::ui::{CoordinateSpace, Size};

/// Largest baseline PNG accepted, decoded (the route takes a body of its base64 and a little
/// more: [`BASELINE_BODY_LIMIT`]).
pub const MAX_BASELINE_BYTES: usize = 20 << 20;
/// Body limit of the routes that take a baseline: a base64 PNG of [`MAX_BASELINE_BYTES`] and
/// the rest of the request.
pub const BASELINE_BODY_LIMIT: usize = MAX_BASELINE_BYTES / 3 * 4 + (1 << 20);
/// Most masks a request may give.
pub const MAX_MASKS: usize = 64;
/// Default `tolerance` of `screen_matches`: the share of pixels that may change.
pub const DEFAULT_TOLERANCE: f64 = 0.001;

/// A saved run artifact (a screenshot a run kept).
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactRef {
    pub run: String,
    pub name: String,
}

/// What to compare the screen with: exactly one of `png`, `previous`, `artifact`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// PNG as base64, at most 20 MiB.
    pub png: Option<String>,
    /// `true`: the screenshot before the last action.
    pub previous: Option<bool>,
    /// A saved run artifact.
    pub artifact: Option<ArtifactRef>,
}

/// A baseline as the controller takes it.
#[derive(Debug, Clone, PartialEq)]
pub enum BaselineSpec {
    /// Uploaded PNG bytes (not yet decoded).
    Png(Vec<u8>),
    /// The caller's screenshot before the last action.
    Previous,
    /// A saved run artifact.
    Artifact {
        /// The run's id.
        run: String,
        /// The artifact's name within the run.
        name: String,
    },
}

impl Baseline {
    /// The one form given, the PNG's base64 decoded; refused when none or several are given.
    pub fn spec(&self) -> Result<BaselineSpec> {
        let forms = [
            self.png.is_some(),
            self.previous.is_some(),
            self.artifact.is_some(),
        ];
        let example = "`{\"previous\": true}`, `{\"png\": \"<base64>\"}` or \
                       `{\"artifact\": {\"run\": \"ID\", \"name\": \"NAME\"}}`";
        if forms.iter().filter(|g| **g).count() != 1 {
            return Err(Error::validation(
                "`baseline` takes exactly one of `png`, `previous`, `artifact`",
            )
            .with_hint(format!("for example {example}")));
        }
        if let Some(b64) = &self.png {
            return decode_png_field(b64).map(BaselineSpec::Png);
        }
        if let Some(a) = &self.artifact {
            if a.run.trim().is_empty() || a.name.trim().is_empty() {
                return Err(Error::validation(
                    "`baseline.artifact` needs a `run` and a `name`",
                ));
            }
            return Ok(BaselineSpec::Artifact {
                run: a.run.clone(),
                name: a.name.clone(),
            });
        }
        match self.previous {
            Some(true) => Ok(BaselineSpec::Previous),
            _ => Err(Error::validation("`baseline.previous` can only be `true`")
                .with_hint(format!("for example {example}"))),
        }
    }
}

/// The bytes of `baseline.png`: base64 (standard alphabet, padded or not, line breaks
/// ignored), within [`MAX_BASELINE_BYTES`]. Whether they are a PNG is checked when decoded.
fn decode_png_field(b64: &str) -> Result<Vec<u8>> {
    let unusable = |m: String| {
        Error::new(ErrorCode::BaselineUnusable, m)
            .with_hint("send the PNG file's bytes in base64 (`base64 -w0 shot.png`)")
    };
    let text = b64
        .strip_prefix("data:image/png;base64,")
        .unwrap_or(b64)
        .trim();
    if text.len() > MAX_BASELINE_BYTES / 3 * 4 + 4 {
        return Err(unusable(format!(
            "`baseline.png` is larger than {} MiB",
            MAX_BASELINE_BYTES >> 20
        )));
    }
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine
        .decode(compact.as_bytes())
        .map_err(|e| unusable(format!("`baseline.png` is not base64: {e}")))
}

/// A rectangle on the screen, in the unit taps use (`coordinate_space`).
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Area {
    #[serde(serialize_with = "crate::ui::model::number")]
    pub x: f64,
    #[serde(serialize_with = "crate::ui::model::number")]
    pub y: f64,
    #[serde(serialize_with = "crate::ui::model::number")]
    pub width: f64,
    #[serde(serialize_with = "crate::ui::model::number")]
    pub height: f64,
}

/// Checks the masks of a request: at most [`MAX_MASKS`], finite, not negative, not empty.
pub fn check_masks(masks: &[Area]) -> Result<()> {
    if masks.len() > MAX_MASKS {
        return Err(Error::validation(format!(
            "`mask` takes at most {MAX_MASKS} rectangles"
        )));
    }
    for (i, m) in masks.iter().enumerate() {
        let finite = [m.x, m.y, m.width, m.height].iter().all(|v| v.is_finite());
        if !finite || m.x < 0.0 || m.y < 0.0 || m.width <= 0.0 || m.height <= 0.0 {
            return Err(Error::validation(format!(
                "`mask[{i}]` is not a rectangle on the screen: x and y at least 0, width and \
                 height above 0"
            ))
            .with_hint("for example {\"x\": 0, \"y\": 0, \"width\": 1080, \"height\": 84}"));
        }
    }
    Ok(())
}

/// Compare the screen now with a baseline.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffRequest {
    pub udid: Option<String>,
    pub baseline: Baseline,
    /// Areas not compared (tap units).
    pub mask: Option<Vec<Area>>,
    /// Default true.
    pub mask_status_bar: Option<bool>,
    /// Channel change a pixel may show unchanged (default 16).
    #[schema(minimum = 0, maximum = 255)]
    pub channel_threshold: Option<u8>,
    /// Also answer the outlined screen (`image`, base64 PNG).
    #[serde(default)]
    pub save: bool,
}

/// Where the baseline came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BaselineKind {
    /// A PNG sent with the request.
    Png,
    /// The screenshot taken before the last action.
    Previous,
    /// A saved run artifact.
    Artifact,
}

/// The baseline a diff compared with.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BaselineInfo {
    pub source: BaselineKind,
    /// When the kept screenshot (`previous`) was taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taken_at: Option<String>,
    /// `previous`: false when no screenshot precedes the latest action (the latest was used).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_last_action: Option<bool>,
    /// The baseline's size in pixels when it was scaled to the screen's (`540x1200`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaled_from: Option<String>,
}

/// One changed area.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DiffRegion {
    #[serde(flatten)]
    pub area: Area,
    /// Share of the area's pixels that changed.
    pub changed_share: f64,
}

/// How the status bar was found: the UI tree's element, or a share of the screen's height.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MaskSource {
    /// The status bar element of the UI tree.
    UiTree,
    /// A share of the screen's height (no such element).
    Fallback,
}

/// The status bar left out of a diff.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct StatusBarMask {
    #[serde(flatten)]
    pub area: Area,
    pub source: MaskSource,
}

/// What changed on the screen since the baseline.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Serialize, ToSchema)]
pub struct DiffResult {
    pub udid: String,
    /// When the screen was taken.
    pub taken_at: String,
    /// `pixels` (Android) or `points` (iOS): the unit of `regions`, `status_bar` and `screen`.
    pub coordinate_space: CoordinateSpace,
    pub screen: Size,
    /// Share of the compared (unmasked) pixels that changed, 0–1, noise left out.
    pub changed_share: f64,
    /// The changed areas, merged, top to bottom (at most 50).
    pub regions: Vec<DiffRegion>,
    /// Smaller regions left out beyond 50.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regions_omitted: Option<usize>,
    pub baseline: BaselineInfo,
    /// The status bar, when it was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_bar: Option<StatusBarMask>,
    /// With `save`: the screen with each region outlined and numbered in reading order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<BundleImage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baseline(v: serde_json::Value) -> Result<BaselineSpec> {
        serde_json::from_value::<Baseline>(v).unwrap().spec()
    }

    #[test]
    fn a_baseline_is_exactly_one_form() {
        use serde_json::json;
        assert_eq!(
            baseline(json!({"previous": true})).unwrap(),
            BaselineSpec::Previous
        );
        assert_eq!(
            baseline(json!({"png": "iVBORw0KGgo="})).unwrap(),
            BaselineSpec::Png(b"\x89PNG\r\n\x1a\n".to_vec())
        );
        // Unpadded, wrapped, with a data URL prefix.
        assert_eq!(
            baseline(json!({"png": "data:image/png;base64,iVBORw0\nKGgo"})).unwrap(),
            BaselineSpec::Png(b"\x89PNG\r\n\x1a\n".to_vec())
        );
        assert_eq!(
            baseline(json!({"artifact": {"run": "r1", "name": "home.png"}})).unwrap(),
            BaselineSpec::Artifact {
                run: "r1".into(),
                name: "home.png".into()
            }
        );
        for bad in [
            json!({}),
            json!({"previous": true, "png": "AA=="}),
            json!({"previous": false}),
            json!({"artifact": {"run": "", "name": "x"}}),
        ] {
            let e = baseline(bad.clone()).unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationFailed, "{bad}");
        }
        let e = baseline(json!({"png": "not base64!"})).unwrap_err();
        assert_eq!(e.code, ErrorCode::BaselineUnusable);
        assert!(e.message.contains("base64"), "{}", e.message);
    }

    #[test]
    fn masks_are_rectangles_on_the_screen() {
        let m = |x, y, width, height| Area {
            x,
            y,
            width,
            height,
        };
        check_masks(&[m(0.0, 0.0, 1080.0, 84.0)]).unwrap();
        for bad in [
            m(-1.0, 0.0, 10.0, 10.0),
            m(0.0, 0.0, 0.0, 10.0),
            m(0.0, 0.0, f64::NAN, 10.0),
        ] {
            let e = check_masks(&[bad]).unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationFailed);
            assert!(e.message.contains("mask[0]"));
        }
        assert!(check_masks(&vec![m(0.0, 0.0, 1.0, 1.0); MAX_MASKS + 1]).is_err());
    }
}
