//! The visual diff: the screen now against a baseline, as changed regions in the unit taps use
//! (`crate::image::diff` does the pixel work), and `expect` with `kind: screen_matches` on top.
//!
//! Baselines: an uploaded PNG; `previous`, the screenshot this caller's slot kept from before
//! the latest action (every screenshot the server takes is kept, so no action pays for a
//! screencap); or a saved run artifact, read through the [`BaselineSource`] seam (the default
//! one answers 501 until run artifacts are wired in: [`DeviceController::set_baseline_source`]).
//! A baseline that cannot be used is refused before the device is asked for anything, except
//! a `previous` one of another shape (the device rotated), found when compared.
//!
//! Masks: the request's rectangles, and by default the status bar: its band from the kept
//! snapshot's tree (`crate::ui::fingerprint::status_bar_rect`), else a share of the screen's
//! height ([`FALLBACK_STATUS_BAR_PIXELS`] of a screen tapped in pixels,
//! [`FALLBACK_STATUS_BAR_POINTS`] in points). No UI dump is made for it: a diff costs one
//! screencap.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::json;

use super::reach::Reach;
use super::DeviceController;
use crate::api::wire::diff::{
    Area, BaselineInfo, BaselineKind, BaselineSpec, DiffRegion, DiffResult, MaskSource,
    StatusBarMask, MAX_BASELINE_BYTES,
};
use crate::api::wire::logs::BundleImage;
use crate::api::wire::verify::{ExpectResult, Expectation};
use crate::error::{Error, ErrorCode, Op, Result, Step};
use crate::image::diff::{self as pixels, DiffError, DiffOptions, PxRect};
use crate::ui::{CoordinateSpace, Size};

/// Status bar height when the tree does not give it, as a share of the screen's height, on a
/// screen tapped in pixels (Android: 24 dp is 63 px of a 2400 px, 420 dpi screen; 84 px with a
/// camera cutout, 3.5%).
pub const FALLBACK_STATUS_BAR_PIXELS: f64 = 0.035;
/// The same on a screen tapped in points (iOS: 20 pt of 568 up to 54 pt of 852 with the
/// Dynamic Island, 6.3%; the band the fingerprint ignores too).
pub const FALLBACK_STATUS_BAR_POINTS: f64 = 0.065;
/// How often `screen_matches` compares again while it waits.
const EXPECT_POLL: Duration = Duration::from_millis(300);

/// Reads a baseline file (an artifact's path), refusing one larger than the uploads allowed.
pub fn read_baseline_file(path: &Path) -> Result<Vec<u8>> {
    let len = std::fs::metadata(path)
        .map_err(|e| Error::new(ErrorCode::NotFound, format!("{}: {e}", path.display())))?
        .len();
    if len > MAX_BASELINE_BYTES as u64 {
        return Err(unusable(format!(
            "the baseline file is larger than {} MiB",
            MAX_BASELINE_BYTES >> 20
        )));
    }
    std::fs::read(path)
        .map_err(|e| Error::new(ErrorCode::NotFound, format!("{}: {e}", path.display())))
}

fn unusable(message: String) -> Error {
    Error::new(ErrorCode::BaselineUnusable, message)
        .with_hint("compare with a PNG screenshot of this screen (same aspect ratio)")
}

fn diff_error(e: DiffError) -> Error {
    let details = match &e {
        DiffError::Shape { baseline, screen } => Some(json!({
            "baseline": format!("{}x{}", baseline.0, baseline.1),
            "screen": format!("{}x{}", screen.0, screen.1),
        })),
        _ => None,
    };
    let err = unusable(e.to_string());
    match details {
        Some(d) => err.with_details(d),
        None => err,
    }
}

/// A diff as a request asks for it.
#[derive(Debug, Clone)]
pub struct DiffSpec {
    /// What the current screen is compared with.
    pub baseline: BaselineSpec,
    /// Areas not compared, in tap units.
    pub mask: Vec<Area>,
    /// Leave the status bar (clock, battery) out of the comparison.
    pub mask_status_bar: bool,
    /// A pixel changed when a channel differs by more than this (0..255).
    pub channel_threshold: u8,
    /// Answer the outlined image too.
    pub save: bool,
}

/// A baseline whose bytes are at hand.
struct Resolved {
    png: Arc<Vec<u8>>,
    info: BaselineInfo,
}

fn info(source: BaselineKind) -> BaselineInfo {
    BaselineInfo {
        source,
        taken_at: None,
        before_last_action: None,
        scaled_from: None,
    }
}

/// Checks the PNG signature and header of an uploaded or saved baseline, before the device
/// is asked for anything.
fn check_png(png: &[u8]) -> Result<()> {
    if png.len() > MAX_BASELINE_BYTES {
        return Err(unusable(format!(
            "the baseline is larger than {} MiB",
            MAX_BASELINE_BYTES >> 20
        )));
    }
    if !png.starts_with(b"\x89PNG\r\n\x1a\n") || crate::image::png_dimensions(png).is_none() {
        // The decoder says why in the same words as a later failure would.
        return Err(diff_error(pixels::decode_png(png).err().unwrap_or_else(
            || DiffError::NotPng("its header is unreadable".into()),
        )));
    }
    Ok(())
}

/// `v` rounded to 6 decimals (a share), so answers stay short.
fn share(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

impl DeviceController {
    /// The bytes of a baseline that does not come from the device's slot.
    async fn resolve_baseline(&self, spec: &BaselineSpec) -> Result<Option<Resolved>> {
        let (png, kind) = match spec {
            BaselineSpec::Previous => return Ok(None),
            BaselineSpec::Png(png) => (png.clone(), BaselineKind::Png),
            BaselineSpec::Artifact { run, name } => {
                // Looked up in the run's index (never joined as a path), then read capped.
                let (path, _) = self.runs().artifact(run, name)?;
                let png = tokio::task::spawn_blocking(move || read_baseline_file(&path))
                    .await
                    .map_err(|e| Error::internal(format!("artifact read failed: {e}")))??;
                (png, BaselineKind::Artifact)
            }
        };
        check_png(&png)?;
        Ok(Some(Resolved {
            png: Arc::new(png),
            info: info(kind),
        }))
    }

    /// Compares the screen now with `spec.baseline`.
    pub async fn screenshot_diff(&self, udid: Option<&str>, spec: DiffSpec) -> Result<DiffResult> {
        let resolved = self.resolve_baseline(&spec.baseline).await?;
        self.diff_with(udid, resolved, &spec).await.map(|(r, _)| r)
    }

    /// The diff against `resolved` (`None`: the slot's `previous`), with the baseline used.
    async fn diff_with(
        &self,
        udid: Option<&str>,
        resolved: Option<Resolved>,
        spec: &DiffSpec,
    ) -> Result<(DiffResult, Resolved)> {
        let (device, session, _) = self.reach(udid, Reach::Read).await?.into_parts();
        // The previous screenshot is picked and the new one taken under one hold, so no
        // other request of this caller keeps a screenshot in between.
        let (shot, baseline) = session
            .holding(async {
                let baseline = match resolved {
                    Some(r) => r,
                    None => previous_baseline(&session)?,
                };
                let shot = self.screenshot(Some(&device.udid)).await?;
                Ok::<_, Error>((shot, baseline))
            })
            .await?;
        // Tap units per screenshot pixel: unknown (iOS without a UI tool) → pixels.
        let (k, space) = match shot.px_per_tap {
            Some(k) if k > 0.0 => (k, shot.coordinate_space),
            _ => (1.0, CoordinateSpace::Pixels),
        };
        let snapshot = shot.snapshot.clone().or_else(|| session.last());
        let bar = match (
            spec.mask_status_bar,
            &snapshot,
            space == shot.coordinate_space,
        ) {
            (false, _, _) => None,
            (true, Some(s), true) => Some(
                crate::ui::fingerprint::status_bar_rect(&s.screen.elements, s.screen.screen)
                    .map(|r| (Some(r), MaskSource::UiTree))
                    .unwrap_or((None, MaskSource::Fallback)),
            ),
            (true, _, _) => Some((None, MaskSource::Fallback)),
        };
        // The share fits the device (its tap unit), whatever unit the answer is in.
        let fallback = match shot.coordinate_space {
            CoordinateSpace::Pixels => FALLBACK_STATUS_BAR_PIXELS,
            CoordinateSpace::Points => FALLBACK_STATUS_BAR_POINTS,
        };
        let masks = spec.mask.clone();
        let (threshold, save) = (spec.channel_threshold, spec.save);
        let (now_png, base_png) = (shot.png.clone(), baseline.png.clone());

        let _slot = crate::image::WORK_SLOTS
            .acquire()
            .await
            .map_err(|e| Error::internal(format!("image slots closed: {e}")))?;
        let work = move || -> Result<Compared> {
            let now = pixels::decode_png(&now_png).map_err(|e| {
                Error::new(
                    ErrorCode::CommandFailed,
                    format!("the device's screenshot: {e}"),
                )
                .with_hint("the device returned an unreadable screenshot; retry")
            })?;
            let (w, h) = now.dimensions();
            let base = pixels::decode_png(&base_png).map_err(diff_error)?;
            let base_size = base.dimensions();
            let base = pixels::fit(base, (w, h)).map_err(diff_error)?;
            // Tap units → pixels, rounded outwards.
            let px = |a: &Area| PxRect {
                x: (a.x * k).floor() as u32,
                y: (a.y * k).floor() as u32,
                w: ((a.x + a.width) * k).ceil() as u32 - (a.x * k).floor() as u32,
                h: ((a.y + a.height) * k).ceil() as u32 - (a.y * k).floor() as u32,
            };
            let mut opts = DiffOptions {
                channel_threshold: threshold,
                masks: masks.iter().map(px).collect(),
                ..DiffOptions::default()
            };
            let status_bar = bar.map(|(rect, source)| {
                let area = match rect {
                    Some(r) => Area {
                        x: r.x,
                        y: r.y,
                        width: r.w,
                        height: r.h,
                    },
                    None => Area {
                        x: 0.0,
                        y: 0.0,
                        width: f64::from(w) / k,
                        height: (f64::from(h) * fallback / k).round(),
                    },
                };
                opts.masks.push(px(&area));
                StatusBarMask { area, source }
            });
            let outcome = pixels::diff(&base, &now, &opts);
            drop((base, now));
            let image = match save {
                false => None,
                true => Some(outlined(&now_png, &outcome)?),
            };
            Ok(Compared {
                outcome,
                size: (w, h),
                scaled_from: (base_size != (w, h)).then_some(base_size),
                status_bar,
                image,
            })
        };
        let compared = tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| Error::internal(format!("diff task failed: {e}")))??;
        let mut info = baseline.info.clone();
        info.scaled_from = compared.scaled_from.map(|(w, h)| format!("{w}x{h}"));
        // Pixels → tap units, rounded outwards.
        let area = |r: &PxRect| {
            let (x0, y0) = ((f64::from(r.x) / k).floor(), (f64::from(r.y) / k).floor());
            let x1 = (f64::from(r.right()) / k).ceil();
            let y1 = (f64::from(r.bottom()) / k).ceil();
            Area {
                x: x0,
                y: y0,
                width: x1 - x0,
                height: y1 - y0,
            }
        };
        let o = &compared.outcome;
        let result = DiffResult {
            udid: device.udid.clone(),
            taken_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            coordinate_space: space,
            screen: Size {
                w: f64::from(compared.size.0) / k,
                h: f64::from(compared.size.1) / k,
            },
            changed_share: share(o.changed_share()),
            regions: o
                .regions
                .iter()
                .map(|r| DiffRegion {
                    area: area(&r.rect),
                    changed_share: share(r.changed_share()),
                })
                .collect(),
            regions_omitted: (o.omitted > 0).then_some(o.omitted),
            baseline: info,
            status_bar: compared.status_bar,
            image: compared.image,
        };
        Ok((result, baseline))
    }

    /// Judges an expectation: `screen_matches` by diffs (again every 300 ms until it holds or
    /// `timeout_ms` passes), `accessible` by an audit, the others on one read of the screen.
    pub async fn expect(
        &self,
        udid: Option<&str>,
        expectation: &Expectation,
    ) -> Result<ExpectResult> {
        if let Expectation::Accessible { baseline, fail_on } = expectation {
            return self
                .expect_accessible(udid, baseline.clone(), *fail_on)
                .await;
        }
        let Expectation::ScreenMatches {
            baseline,
            tolerance,
            mask,
            mask_status_bar,
            timeout_ms,
        } = expectation
        else {
            let snapshot = self.current(udid).await?;
            let expectation = self.bind_expectation(&snapshot.device, expectation).await?;
            return Ok(super::verify::expect_on(&snapshot, &expectation));
        };
        let spec = DiffSpec {
            baseline: baseline.spec()?,
            mask: mask.clone(),
            mask_status_bar: *mask_status_bar,
            channel_threshold: pixels::DEFAULT_CHANNEL_THRESHOLD,
            save: false,
        };
        let timeout = Duration::from_millis(*timeout_ms);
        let started = Instant::now();
        let mut resolved = self.resolve_baseline(&spec.baseline).await?;
        let mut polls = 0u32;
        loop {
            let (r, used) = self.diff_with(udid, resolved.take(), &spec).await?;
            polls += 1;
            let ok = r.changed_share <= *tolerance;
            if ok || started.elapsed() >= timeout {
                let code = ErrorCode::ScreenMismatch;
                let mut observed = json!({
                    "changed_share": r.changed_share,
                    "tolerance": tolerance,
                    "regions": r.regions,
                    "coordinate_space": r.coordinate_space,
                    "baseline": r.baseline,
                    "polls": polls,
                });
                if let Some(n) = r.regions_omitted {
                    observed["regions_omitted"] = json!(n);
                }
                return Ok(ExpectResult {
                    success: ok,
                    failure_code: (!ok).then_some(code),
                    retryable: (!ok).then_some(code.retryable()),
                    observed,
                    snapshot_id: None,
                });
            }
            // The same baseline every time (a `previous` one is not picked again).
            resolved = Some(used);
            tokio::time::sleep(EXPECT_POLL.min(timeout.saturating_sub(started.elapsed()))).await;
        }
    }
}

/// The image work's answer.
struct Compared {
    outcome: pixels::DiffOutcome,
    size: (u32, u32),
    scaled_from: Option<(u32, u32)>,
    status_bar: Option<StatusBarMask>,
    image: Option<BundleImage>,
}

/// The baseline `{"previous": true}` names: the screenshot this caller took before its last
/// action, kept in its slot.
fn previous_baseline(session: &super::DeviceSlot) -> Result<Resolved> {
    let p = session.previous_shot().ok_or_else(|| {
        Error::new(
            ErrorCode::NotFound,
            "mobilectl took no screenshot of this device for this caller \
             yet: there is no previous screen to compare with",
        )
        .with_next(
            "take a screenshot before acting ({0}), act, then diff ({1})",
            [
                Step::call(Op::Screenshot),
                Step::call_with(Op::ScreenshotDiff, json!({"baseline": {"previous": true}})),
            ],
        )
    })?;
    Ok(Resolved {
        png: p.shot.png.clone(),
        info: BaselineInfo {
            taken_at: Some(p.shot.taken_at.clone()),
            before_last_action: Some(p.before_last_action),
            ..info(BaselineKind::Previous)
        },
    })
}

/// The screenshot `png` with each changed region of `outcome` outlined and numbered.
fn outlined(png: &[u8], outcome: &pixels::DiffOutcome) -> Result<BundleImage> {
    let boxes: Vec<crate::image::RefBox> = outcome
        .regions
        .iter()
        .enumerate()
        .map(|(i, r)| crate::image::RefBox {
            label: format!("{}", i + 1),
            x: f64::from(r.rect.x),
            y: f64::from(r.rect.y),
            w: f64::from(r.rect.w),
            h: f64::from(r.rect.h),
        })
        .collect();
    let r = crate::image::annotate(png, &boxes, None, &crate::image::RenderOptions::default())
        .map_err(|e| Error::internal(format!("outlining the regions: {e}")))?;
    Ok(BundleImage {
        content_type: r.content_type.to_string(),
        width: r.size.0,
        height: r.size.1,
        base64: base64::engine::general_purpose::STANDARD.encode(&r.bytes),
    })
}
