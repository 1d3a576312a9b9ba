//! The accessibility audit of the screen now: one read and one screenshot under the device's
//! command lock ([`DeviceController::audit_shot`]), the rules of [`crate::audit`] on a blocking
//! thread, Apple's own audit merged in where WebDriverAgent runs it, and, against a saved audit,
//! only the findings that are new. `expect` with `kind: accessible` is this audit judged at a
//! severity.

use serde_json::json;

use super::DeviceController;
use crate::api::wire::audit::{AuditBaseline, AuditResult};
use crate::api::wire::verify::ExpectResult;
use crate::audit::{self as a11y, Audit, AuditError, Severity};
use crate::error::{Error, ErrorCode, Result};

/// What an audit is asked for beyond the device.
#[derive(Debug, Default)]
pub struct AuditAsk {
    /// Android dpi for sizes in dp (default: the device's).
    pub density: Option<f64>,
    /// A saved audit: only findings new against it are answered.
    pub baseline: Option<Audit>,
    /// Answer `fails` at this severity.
    pub fail_on: Option<Severity>,
    /// Draw the findings on the screenshot.
    pub annotate: bool,
}

/// How many of the failing findings an expectation's `observed` lists.
const LISTED: usize = 10;

impl DeviceController {
    /// Audits the screen now.
    pub async fn audit(&self, udid: Option<&str>, ask: AuditAsk) -> Result<AuditResult> {
        let (shot, device_density, platform) = self.audit_shot(udid).await?;
        let density = ask.density.or(device_density);
        let Some(snapshot) = shot.snapshot.clone() else {
            return Err(Error::internal("an audit's shot carries its snapshot"));
        };
        let (annotate, before, png) = (ask.annotate, ask.baseline, shot.png);
        // Decoding, measuring and drawing are CPU work: on a blocking thread, within the bound
        // on concurrent image work.
        let _slot = crate::image::WORK_SLOTS
            .acquire()
            .await
            .map_err(|e| Error::internal(e.to_string()))?;
        let work = tokio::task::spawn_blocking(move || -> std::result::Result<_, AuditError> {
            let pixels = a11y::picture::decode(&png)?;
            let mut found = a11y::audit(&a11y::Input {
                screen: &snapshot.screen,
                screenshot: Some(&pixels),
                density,
            })?;
            match platform {
                Some(Ok(issues)) => a11y::apple::merge(&mut found, &snapshot.screen, &issues),
                Some(Err(e)) => found.skipped.push(format!(
                    "apple-audit: WebDriverAgent's audit failed: {}",
                    e.message
                )),
                None => {}
            }
            let baseline = before.map(|b| {
                let now = found.findings.len();
                found = a11y::baseline::new_findings(&found, &b);
                AuditBaseline {
                    known: b.findings.len(),
                    unchanged: now - found.findings.len(),
                }
            });
            let image = match annotate {
                true => {
                    use base64::Engine as _;
                    let drawn = a11y::picture::png(&a11y::picture::annotate(&found, &pixels)?)?;
                    Some(base64::engine::general_purpose::STANDARD.encode(drawn))
                }
                false => None,
            };
            Ok((found, baseline, image))
        });
        let (found, baseline, image) = work
            .await
            .map_err(|e| Error::internal(format!("the audit stopped: {e}")))?
            .map_err(|e| match e {
                AuditError::Density(_) => Error::validation(e.to_string()),
                other => Error::new(ErrorCode::CommandFailed, other.to_string()).with_hint(
                    "read the screen again: it may have turned or changed between the dump and \
                     the screenshot",
                ),
            })?;
        Ok(AuditResult {
            snapshot_id: shot
                .snapshot
                .as_ref()
                .map(|s| s.id.clone())
                .unwrap_or_default(),
            device: shot.device,
            fails: ask.fail_on.map(|l| found.fails(l)),
            audit: found,
            baseline,
            image,
        })
    }

    /// `expect` with `kind: accessible`: no finding at or above `fail_on`, or none that
    /// `baseline` did not have.
    pub(super) async fn expect_accessible(
        &self,
        udid: Option<&str>,
        baseline: Option<Audit>,
        fail_on: Severity,
    ) -> Result<ExpectResult> {
        let ask = AuditAsk {
            baseline,
            fail_on: Some(fail_on),
            ..AuditAsk::default()
        };
        let done = self.audit(udid, ask).await?;
        let failing: Vec<_> = done
            .audit
            .findings
            .iter()
            .filter(|f| f.severity >= fail_on)
            .collect();
        let success = failing.is_empty();
        let code = ErrorCode::AccessibilityFindings;
        let mut observed = json!({
            "fail_on": fail_on,
            "failing": failing.len(),
            "findings": failing.iter().take(LISTED).map(|f| json!({
                "rule": f.rule,
                "severity": f.severity,
                "ref": f.r#ref,
                "role": f.role,
                "name": f.name,
            })).collect::<Vec<_>>(),
            "counts": done.audit.counts,
        });
        if let Some(b) = &done.baseline {
            observed["baseline"] = json!(b);
        }
        Ok(ExpectResult {
            success,
            failure_code: (!success).then_some(code),
            retryable: (!success).then_some(code.retryable()),
            observed,
            snapshot_id: Some(done.snapshot_id),
        })
    }
}
