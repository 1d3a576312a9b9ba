//! What each Maestro command that holds no steps does (those that do are the runner's,
//! `super::run`). Most are operation calls whose arguments come from the step alone: those are
//! rows of [`Runner::operation_calls`], each naming its operation of the product's table by its
//! [`Op`] and run through the host (`Runner::op`), as the CLI and MCP call them. The rest read the screen first (find where to tap, scroll until something shows, wait
//! for an animation to end) or save files, and are methods of their own below.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::model::*;
use super::run::{Runner, R};
use super::select::{self, Screen};
use crate::host::Host;
use crate::launch::LaunchValue;
use mobilectl_error::Op;

/// How long a selector is looked for (Maestro's default lookup).
const FIND_MS: u64 = 7_000;
/// Default of `extendedWaitUntil` and `waitForAnimationToEnd`.
const WAIT_MS: u64 = 10_000;
/// Most scrolls of one `scrollUntilVisible`.
const MAX_SCROLLS: u32 = 20;
/// Characters `eraseText` deletes by default (Maestro's 50).
const ERASE_DEFAULT: u32 = 50;
/// Most characters one `eraseText` deletes.
const ERASE_MAX: u32 = 1000;

/// One call of an operation of the table: which, and its arguments (the device is added).
#[derive(Debug, Clone, PartialEq)]
pub struct OpCall {
    /// The operation.
    pub op: Op,
    /// Its arguments, as its input takes them.
    pub args: Value,
}

fn call(op: Op, args: Value) -> OpCall {
    OpCall { op, args }
}

/// The product's orientation for one of Maestro's `setOrientation` values.
/// A `set_permission` call for each of Maestro's `permissions` (`allow`, `deny`, `unset`).
fn permission_calls(app: &str, permissions: &[(String, String)]) -> Vec<OpCall> {
    permissions
        .iter()
        .map(|(permission, action)| {
            let action = match action.as_str() {
                "allow" => "grant",
                "deny" => "revoke",
                _ => "reset",
            };
            call(
                Op::SetPermission,
                json!({ "bundle_id": app, "permission": permission, "action": action }),
            )
        })
        .collect()
}

/// Whether one of Maestro's `setAirplaneMode` values turns airplane mode on.
pub(crate) fn maestro_airplane(v: &str) -> Result<bool, String> {
    match v.trim() {
        "enabled" => Ok(true),
        "disabled" => Ok(false),
        other => Err(format!(
            "`{other}` is not an airplane mode: enabled or disabled"
        )),
    }
}

pub(crate) fn maestro_orientation(o: &str) -> Result<&'static str, String> {
    Ok(match o.trim() {
        "PORTRAIT" => "portrait",
        "LANDSCAPE_LEFT" => "landscape",
        "LANDSCAPE_RIGHT" => "landscape_reverse",
        "UPSIDE_DOWN" => "portrait_reverse",
        other => {
            return Err(format!(
                "`{other}` is not an orientation: PORTRAIT, LANDSCAPE_LEFT, LANDSCAPE_RIGHT or \
                 UPSIDE_DOWN"
            ))
        }
    })
}

impl<H: Host> Runner<H> {
    /// Runs a command that holds no steps; `Ok(Some(why))` when it was skipped.
    pub(super) async fn command(&mut self, step: &Step) -> R<Option<String>> {
        // iOS has no airplane mode; Maestro passes these steps there without effect.
        let airplane = matches!(
            step.command,
            Command::SetAirplaneMode(_) | Command::ToggleAirplaneMode
        );
        if airplane && self.host.platform() == "ios" {
            return Ok(Some(
                "skipped: iOS has no airplane mode (Maestro passes the step without effect)".into(),
            ));
        }
        if let Some(calls) = self.operation_calls(&step.command)? {
            for c in calls {
                self.op(c.op, c.args).await?;
            }
            return Ok(None);
        }
        match &step.command {
            Command::Tap {
                selector,
                long,
                retry_if_no_change,
                taps,
                delay_ms,
            } => {
                let times = (*taps, Duration::from_millis(*delay_ms));
                self.tap(selector, *long, *retry_if_no_change, times)
                    .await?
            }
            Command::ScrollUntilVisible {
                element,
                direction,
                timeout_ms,
            } => {
                self.scroll_until_visible(element, *direction, timeout_ms)
                    .await?
            }
            Command::Swipe {
                direction,
                start,
                end,
                from,
                duration_ms,
            } => {
                let args = self
                    .swipe_args(*direction, start, end, from, duration_ms)
                    .await?;
                self.op(Op::Swipe, args).await?;
            }
            Command::AssertVisible(s) => {
                let sel = self.fill_sel(s)?;
                self.locate(&sel, FIND_MS).await?;
            }
            Command::AssertNotVisible(s) => {
                let sel = self.fill_sel(s)?;
                self.until_gone(&sel, FIND_MS).await?;
            }
            Command::ExtendedWaitUntil {
                visible,
                not_visible,
                timeout_ms,
            } => {
                let t = self.ms(timeout_ms, WAIT_MS)?;
                if let Some(s) = visible {
                    let sel = self.fill_sel(s)?;
                    self.locate(&sel, t).await?;
                }
                if let Some(s) = not_visible {
                    let sel = self.fill_sel(s)?;
                    self.until_gone(&sel, t).await?;
                }
            }
            Command::WaitForAnimationToEnd { timeout_ms } => {
                self.until_still(self.ms(timeout_ms, WAIT_MS)?).await?
            }
            Command::TakeScreenshot(name) => self.take_screenshot(name).await?,
            Command::StartRecording(name) => self.start_recording(name).await?,
            Command::StopRecording => self.stop_recording().await?,
            Command::CopyTextFrom(s) => self.copy_text_from(s).await?,
            Command::Travel { points, speed } => self.travel(points, speed).await?,
            Command::RunScript {
                file,
                code,
                env,
                when,
            } => {
                if let Some(c) = when {
                    if let Some(skip) = self.unmet(c).await? {
                        return Ok(Some(skip));
                    }
                }
                let env = env
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.fill(v)?)))
                    .collect::<R<Vec<_>>>()?;
                self.script(code, file, env).await?;
            }
            Command::AddMedia(media) => {
                for m in media {
                    self.host.add_media(&m.name, &m.bytes).await?;
                }
            }
            Command::EvalScript(code) => {
                self.script(code, &format!("evalScript ${{{code}}}"), vec![])
                    .await?;
            }
            Command::AssertTrue(condition) => {
                let value = self.fill(condition)?;
                if !super::vars::truthy(&value) {
                    return Err(format!("`{condition}` is `{value}`, not true"));
                }
            }
            _ => return Err(format!("`{}` holds steps: the runner runs it", step.name)),
        }
        Ok(None)
    }

    /// The operation calls of a command whose arguments come from the step alone (its
    /// variables filled in), in order; none for a command that reads the screen or holds steps.
    pub fn operation_calls(&self, command: &Command) -> R<Option<Vec<OpCall>>> {
        Ok(Some(match command {
            Command::LaunchApp {
                app_id,
                clear_state,
                clear_keychain,
                stop_app,
                arguments,
                permissions,
            } => {
                let app = self.app(app_id)?;
                let mut calls = Vec::new();
                if *clear_state {
                    calls.push(call(Op::ResetApp, json!({ "bundle_id": app })));
                }
                calls.extend(permission_calls(&app, permissions));
                let mut extras = serde_json::Map::new();
                for (name, value) in arguments {
                    let value = match value {
                        LaunchValue::Text(t) => LaunchValue::Text(self.fill(t)?),
                        other => other.clone(),
                    };
                    extras.insert(name.clone(), json!(value));
                }
                calls.push(call(
                    Op::LaunchApp,
                    json!({
                        "bundle_id": app,
                        "relaunch": *stop_app || *clear_state,
                        "clear_keychain": clear_keychain,
                        "extras": extras,
                    }),
                ));
                calls
            }
            Command::ClearKeychain => vec![call(Op::ResetKeychain, json!({}))],
            Command::SetPermissions {
                app_id,
                permissions,
            } => permission_calls(&self.app(app_id)?, permissions),
            Command::StopApp(a) | Command::KillApp(a) => {
                vec![call(Op::TerminateApp, json!({ "bundle_id": self.app(a)? }))]
            }
            Command::ClearState(a) => {
                vec![call(Op::ResetApp, json!({ "bundle_id": self.app(a)? }))]
            }
            Command::InputText(t) => vec![call(Op::TypeText, json!({ "text": self.fill(t)? }))],
            Command::PasteText => {
                let text = self
                    .copied
                    .clone()
                    .ok_or("nothing was copied: `copyTextFrom` first")?;
                vec![call(Op::TypeText, json!({ "text": text }))]
            }
            Command::InputRandom { kind, length } => {
                let length = match length {
                    None => crate::random::DEFAULT_LENGTH,
                    Some(l) => {
                        let l = self.fill(l)?;
                        l.trim()
                            .parse::<usize>()
                            .ok()
                            .filter(|n| (1..=crate::random::MAX_LENGTH).contains(n))
                            .ok_or_else(|| {
                                format!("`length` is 1 to {}, not `{l}`", crate::random::MAX_LENGTH)
                            })?
                    }
                };
                let text = crate::random::value(*kind, length);
                vec![call(Op::TypeText, json!({ "text": text }))]
            }
            Command::SetOrientation(o) => {
                let orientation = maestro_orientation(&self.fill(o)?)?;
                vec![call(
                    Op::SetOrientation,
                    json!({ "orientation": orientation }),
                )]
            }
            Command::SetAirplaneMode(v) => {
                let enabled = maestro_airplane(&self.fill(v)?)?;
                vec![call(Op::SetAirplaneMode, json!({ "enabled": enabled }))]
            }
            Command::ToggleAirplaneMode => vec![call(Op::SetAirplaneMode, json!({}))],
            Command::EraseText(n) => {
                let n = match n {
                    None => ERASE_DEFAULT,
                    Some(n) => self
                        .fill(n)?
                        .trim()
                        .parse()
                        .map_err(|_| format!("`{n}` is not a number"))?,
                };
                let delete = call(Op::Press, json!({ "key": "delete" }));
                vec![delete; n.min(ERASE_MAX) as usize]
            }
            Command::PressKey(k) => {
                let key = maestro_key(&self.fill(k)?)?;
                vec![call(Op::Press, json!({ "key": key }))]
            }
            Command::Back => vec![call(Op::Press, json!({ "key": "back" }))],
            Command::HideKeyboard => vec![call(Op::HideKeyboard, json!({}))],
            Command::Scroll => vec![call(Op::Scroll, json!({ "direction": "down" }))],
            Command::OpenLink(l) => vec![call(Op::OpenUrl, json!({ "url": self.fill(l)? }))],
            Command::SetLocation {
                latitude,
                longitude,
            } => {
                let num = |v: &str| -> R<f64> {
                    self.fill(v)?
                        .trim()
                        .parse()
                        .map_err(|_| format!("`{v}` is not a number"))
                };
                let args = json!({ "latitude": num(latitude)?, "longitude": num(longitude)? });
                vec![call(Op::SetLocation, args)]
            }
            _ => return Ok(None),
        }))
    }

    /// `tapOn`, `doubleTapOn` and `longPressOn`: where the selector is, then `times.0` taps
    /// there `times.1` apart (again, with `retryTapIfNoChange`, when the screen did not
    /// change).
    async fn tap(
        &self,
        selector: &Selector,
        long: bool,
        retry_if_no_change: bool,
        times: (u32, Duration),
    ) -> R<()> {
        let sel = self.fill_sel(selector)?;
        let (x, y) = self.locate(&sel, FIND_MS).await?;
        let op = if long { Op::LongPress } else { Op::Tap };
        let before = match retry_if_no_change {
            true => Some(self.read().await?.fingerprint().to_string()),
            false => None,
        };
        for i in 0..times.0 {
            if i > 0 {
                tokio::time::sleep(times.1).await;
            }
            self.op(op, json!({ "x": x, "y": y })).await?;
        }
        if let Some(before) = before {
            if self.read().await?.fingerprint() == before {
                self.op(op, json!({ "x": x, "y": y })).await?;
            }
        }
        Ok(())
    }

    /// `scrollUntilVisible`: reads, and scrolls until the element shows or the time is up.
    async fn scroll_until_visible(
        &self,
        element: &Selector,
        direction: Direction,
        timeout_ms: &Option<String>,
    ) -> R<()> {
        let sel = self.fill_sel(element)?;
        let until = Instant::now() + Duration::from_millis(self.ms(timeout_ms, 20_000)?);
        let mut scrolls = 0;
        loop {
            let screen = self.read().await?;
            if !select::pick(&*screen, &sel)?.is_empty() {
                return Ok(());
            }
            if scrolls >= MAX_SCROLLS || Instant::now() >= until {
                return Err(format!(
                    "{} is not visible after {scrolls} scrolls",
                    sel.describe()
                ));
            }
            self.op(Op::Scroll, json!({ "direction": direction.wire() }))
                .await?;
            scrolls += 1;
        }
    }

    /// The `swipe` operation's arguments for Maestro's forms: two points (percentages of the
    /// screen or pixels), an element and a direction, or a bare direction (from the middle).
    async fn swipe_args(
        &self,
        direction: Option<Direction>,
        start: &Option<String>,
        end: &Option<String>,
        from: &Option<Selector>,
        duration_ms: &Option<String>,
    ) -> R<Value> {
        let mut args = json!({});
        if let Some(d) = duration_ms {
            args["duration_ms"] = json!(self.ms(&Some(d.clone()), 400)?);
        }
        match (start, end, from) {
            (Some(s), Some(e), _) => {
                let size = self.read().await?.size();
                let px = |p: &str| -> R<Value> {
                    let (x, y) = select::to_pixels(select::point(p)?, size);
                    Ok(json!({ "x": x, "y": y }))
                };
                args["from"] = px(&self.fill(s)?)?;
                args["to"] = px(&self.fill(e)?)?;
            }
            (_, _, Some(sel)) => {
                let sel = self.fill_sel(sel)?;
                let (x, y) = self.locate(&sel, FIND_MS).await?;
                args["x"] = json!(x);
                args["y"] = json!(y);
                args["direction"] = json!(direction.unwrap_or(Direction::Up).wire());
            }
            _ => {
                // Maestro's bare direction: a swipe across the screen from its middle.
                let (w, h) = self.read().await?.size();
                args["x"] = json!((w / 2.0).round() as i64);
                args["y"] = json!((h / 2.0).round() as i64);
                args["direction"] = json!(direction.unwrap_or(Direction::Up).wire());
            }
        }
        Ok(args)
    }

    /// `waitForAnimationToEnd`: reads until two reads in a row agree, for up to `ms`.
    async fn until_still(&self, ms: u64) -> R<()> {
        let until = Instant::now() + Duration::from_millis(ms);
        let mut last = self.read().await?.fingerprint().to_string();
        loop {
            let now = self.read().await?.fingerprint().to_string();
            if now == last || Instant::now() >= until {
                return Ok(());
            }
            last = now;
        }
    }

    /// `takeScreenshot`: the screen as `NAME.png` among the artifacts.
    async fn take_screenshot(&self, name: &str) -> R<()> {
        let name = self.fill(name)?;
        let png = self.host.screenshot().await?;
        self.write(&format!("{}.png", safe_name(&name)), &png)
    }

    /// `startRecording`: a screen recording, saved as `NAME.mp4` when it stops.
    async fn start_recording(&mut self, name: &str) -> R<()> {
        let name = safe_name(&self.fill(name)?);
        self.host.start_recording(&name).await?;
        self.recording = Some(name);
        Ok(())
    }

    /// `travel`: each stop of the journey set in turn, after its wait; refused before the first
    /// when the journey would outlast the run.
    async fn travel(&self, points: &[String], speed: &str) -> R<()> {
        let speed = crate::travel::speed(&self.fill(speed)?)?;
        let points = points
            .iter()
            .map(|p| crate::travel::point(&self.fill(p)?))
            .collect::<R<Vec<_>>>()?;
        let stops = crate::travel::stops(&points, speed);
        let takes = crate::travel::duration(&stops);
        let left = self.deadline.saturating_duration_since(Instant::now());
        if takes > left {
            return Err(format!(
                "the journey takes {:.1} s at {speed} m/s, more than the {:.1} s the run has left",
                takes.as_secs_f64(),
                left.as_secs_f64()
            ));
        }
        for (wait, at) in stops {
            tokio::time::sleep(wait).await;
            let args = json!({ "latitude": at.latitude, "longitude": at.longitude });
            self.op(Op::SetLocation, args).await?;
        }
        Ok(())
    }

    /// `copyTextFrom`: the element's text (else its name, else its description), kept for
    /// `pasteText` and `${maestro.copiedText}`.
    async fn copy_text_from(&mut self, s: &Selector) -> R<()> {
        let sel = self.fill_sel(s)?;
        let snap = self.wait_for(&sel, FIND_MS).await?;
        let i = select::pick(&*snap, &sel)?.first().copied().ok_or("gone")?;
        let e = snap.node(i);
        let text = e.text.or(e.name).or(e.desc).unwrap_or_default().to_string();
        self.copied = Some(text);
        Ok(())
    }
}
/// Maestro's key names to the API's.
fn maestro_key(k: &str) -> R<String> {
    let key = k.trim().to_ascii_lowercase().replace([' ', '-'], "_");
    Ok(match key.as_str() {
        "backspace" => "delete".into(),
        "remote_dpad_up" => "dpad_up".into(),
        "remote_dpad_down" => "dpad_down".into(),
        "remote_dpad_left" => "dpad_left".into(),
        "remote_dpad_right" => "dpad_right".into(),
        "remote_dpad_center" => "dpad_center".into(),
        "enter" | "home" | "back" | "tab" | "escape" | "space" | "volume_up" | "volume_down"
        | "power" | "lock" | "search" | "menu" => key,
        _ => return Err(format!("the key `{k}` is not one this runner presses")),
    })
}

/// A file name from a flow (`takeScreenshot: a/b` → `a_b`).
fn safe_name(s: &str) -> String {
    let n: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    n.trim_start_matches('.')
        .chars()
        .take(100)
        .collect::<String>()
        .trim_end_matches(".png")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::Fake;
    use crate::select::tests::{at, Made};

    fn runner(host: &Fake) -> Runner<&Fake> {
        let mut r = Runner::new(
            host,
            vec![("USER".into(), "alice".into())],
            Duration::from_secs(60),
        );
        r.app_id = Some("com.example.app".into());
        r.copied = Some("copied text".into());
        r
    }

    /// Each row's operations and arguments, variables filled in (the product checks each
    /// against its table of operations).
    #[test]
    fn rows_name_their_operations_with_arguments_from_the_step() {
        let flow = "appId: com.example.app\n---\n\
            - launchApp:\n    clearState: true\n    permissions: { notifications: allow, camera: deny }\n    arguments:\n      user: ${USER}\n      n: 3\n\
            - stopApp\n- killApp\n- clearState\n- inputText: hi ${USER}\n- pasteText\n\
            - eraseText: 3\n- pressKey: Enter\n- back\n- hideKeyboard\n- scroll\n\
            - openLink: https://example.com\n- setLocation: { latitude: 48.85, longitude: 2.35 }\n\
            - setAirplaneMode: enabled\n- setAirplaneMode: { value: disabled, label: off }\n\
            - toggleAirplaneMode\n\
            - setPermissions: { appId: other.app, permissions: { location: unset } }\n\
            - clearKeychain\n";
        let parsed = crate::load::parse_text(flow, &[("USER".into(), "alice".into())]);
        assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
        let host = Fake::default();
        let r = runner(&host);
        let mut seen = Vec::new();
        for step in &parsed.flow.steps {
            let calls = r
                .operation_calls(&step.command)
                .unwrap_or_else(|e| panic!("{}: {e}", step.name))
                .unwrap_or_else(|| panic!("{} is not a row", step.name));
            assert!(!calls.is_empty(), "{}", step.name);
            seen.extend(calls.into_iter().map(|c| (c.op, c.args)));
        }
        let ops: Vec<Op> = seen.iter().map(|(op, _)| *op).collect();
        assert_eq!(
            ops[..4],
            [
                Op::ResetApp,
                Op::SetPermission,
                Op::SetPermission,
                Op::LaunchApp
            ]
        );
        assert_eq!(
            seen[1].1,
            json!({"bundle_id": "com.example.app", "permission": "notifications", "action": "grant"})
        );
        let launch = &seen[3].1;
        assert_eq!(launch["bundle_id"], "com.example.app");
        assert_eq!(launch["relaunch"], true);
        assert_eq!(launch["extras"], json!({"user": "alice", "n": 3}));
        assert!(seen.contains(&(Op::TypeText, json!({"text": "hi alice"}))));
        assert!(seen.contains(&(Op::TypeText, json!({"text": "copied text"}))));
        assert_eq!(
            ops.iter().filter(|o| **o == Op::Press).count(),
            3 + 1 + 1,
            "eraseText: 3, Enter, back"
        );
        assert!(seen.contains(&(Op::Press, json!({"key": "enter"}))));
        assert!(seen.contains(&(
            Op::SetLocation,
            json!({"latitude": 48.85, "longitude": 2.35})
        )));
        let airplane: Vec<&Value> = seen
            .iter()
            .filter(|(op, _)| *op == Op::SetAirplaneMode)
            .map(|(_, args)| args)
            .collect();
        assert_eq!(
            airplane,
            [
                &json!({"enabled": true}),
                &json!({"enabled": false}),
                &json!({})
            ],
            "enabled, disabled, then a toggle"
        );
        assert_eq!(seen.last(), Some(&(Op::ResetKeychain, json!({}))));
        assert_eq!(
            seen[seen.len() - 2..][0..1].first(),
            Some(&(
                Op::SetPermission,
                json!({"bundle_id": "other.app", "permission": "location", "action": "reset"})
            ))
        );
        assert!(host.ops().is_empty(), "making rows calls nothing");
    }

    /// `setAirplaneMode`'s value may come from a variable, checked when the step runs; on
    /// iOS, which has none, both commands are skipped as Maestro passes them.
    #[tokio::test]
    async fn airplane_mode_takes_variables_and_is_skipped_on_ios() {
        let flow = "appId: com.x\n---\n- setAirplaneMode: ${AIR}\n- toggleAirplaneMode\n";
        let env = vec![("AIR".into(), "enabled".into())];
        let parsed = crate::load::parse_text(flow, &env);
        assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
        let host = Fake::default();
        let result = Runner::new(&host, env, Duration::from_secs(60))
            .run(&parsed.flow)
            .await;
        assert!(result.success, "{:?}", result.steps);
        let calls = host.calls.lock().unwrap().clone();
        assert_eq!(
            calls,
            [
                (Op::SetAirplaneMode, json!({"enabled": true})),
                (Op::SetAirplaneMode, json!({}))
            ]
        );

        let wrong = vec![("AIR".into(), "on".into())];
        let host = Fake::default();
        let result = Runner::new(&host, wrong, Duration::from_secs(60))
            .run(&parsed.flow)
            .await;
        assert!(!result.success);
        let error = result.steps[0].error.clone().unwrap_or_default();
        assert!(error.contains("`on` is not an airplane mode"), "{error}");
        // (The failure's files were read: a snapshot, the log.)
        assert!(
            !host.ops().contains(&Op::SetAirplaneMode),
            "{:?}",
            host.ops()
        );

        let host = Fake {
            ios: true,
            ..Fake::default()
        };
        let env = vec![("AIR".into(), "enabled".into())];
        let result = Runner::new(&host, env, Duration::from_secs(60))
            .run(&parsed.flow)
            .await;
        assert!(result.success, "{:?}", result.steps);
        use crate::wire::FlowStepStatus::Skipped;
        assert!(
            result.steps.iter().all(|s| s.status == Skipped),
            "{:?}",
            result.steps
        );
        assert!(host.ops().is_empty(), "{:?}", host.ops());
    }

    #[test]
    fn commands_that_read_the_screen_are_not_rows() {
        let flow = "appId: a.b\n---\n- tapOn: OK\n- assertVisible: OK\n- swipe: { direction: UP }\n- takeScreenshot: s\n";
        let parsed = crate::load::parse_text(flow, &[]);
        assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
        let host = Fake::default();
        let r = runner(&host);
        for step in &parsed.flow.steps {
            assert_eq!(r.operation_calls(&step.command), Ok(None), "{}", step.name);
        }
    }

    /// A run through the host alone: a tap where the selector matched, a row's operation, a
    /// screenshot kept; then a failed assertion keeps the failure's files and stops the flow.
    #[tokio::test]
    async fn a_run_calls_reads_and_keeps_through_its_host() {
        let screen = Made {
            nodes: vec![at("LOG IN", Some("com.x:id/login"), 100.0, 200.0)],
            fingerprint: "a".into(),
        };
        let host = Fake::reading(vec![screen]);
        let flow = "appId: com.x\n---\n- tapOn: LOG IN\n- inputText: ${USER}\n\
            - takeScreenshot: after/login\n- copyTextFrom: {id: login}\n- inputText: ${maestro.copiedText}\n\
            - assertVisible: {text: Welcome, optional: true}\n- back\n";
        let parsed = crate::load::parse_text(flow, &[("USER".into(), "bob".into())]);
        assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
        let mut r = Runner::new(
            &host,
            vec![("USER".into(), "bob".into())],
            Duration::from_secs(60),
        );
        // The optional assertion looks for 7 s by default: a deadline cuts it short.
        r.deadline = Instant::now() + Duration::from_millis(100);
        let result = r.run(&parsed.flow).await;
        let calls = host.calls.lock().unwrap().clone();
        assert_eq!(calls[0], (Op::Tap, json!({"x": 150, "y": 225})));
        assert_eq!(calls[1], (Op::TypeText, json!({"text": "bob"})));
        assert_eq!(calls[2], (Op::TypeText, json!({"text": "LOG IN"})));
        let statuses: Vec<_> = result.steps.iter().map(|s| s.status).collect();
        use crate::wire::FlowStepStatus::*;
        assert_eq!(statuses[..5], [Passed, Passed, Passed, Passed, Passed]);
        assert_eq!(statuses[5], Warned, "{:?}", result.steps[5]);
        assert_eq!(result.udid, "emulator-5554");
        let kept = host.kept();
        assert!(kept.contains(&"after_login.png".to_string()), "{kept:?}");
        // `back` ran after the deadline: failed, and the failure's files kept.
        assert!(!result.success);
        assert_eq!(result.failed_step, Some(6), "{:?}", result.steps);
        // Once, for the failed step.
        for name in ["failure.png", "tree.txt", "log.json", "steps.json"] {
            let times = kept.iter().filter(|k| *k == name).count();
            assert_eq!(times, 1, "{name}: {kept:?}");
        }
        assert_eq!(result.artifacts.as_deref(), Some("/runs/artifacts"));
    }

    /// `travel` sets each stop after its wait (on the test clock, paused), and a journey that
    /// would outlast the run fails before the first stop.
    #[tokio::test(start_paused = true)]
    async fn travel_sets_each_stop_after_its_wait() {
        let host = Fake::default();
        let flow = "appId: com.x\n---\n- travel:\n    points: [\"0.0,0.0\", \"${LAT},0.0\"]\n    speed: ${SPEED}\n";
        let env = vec![
            ("LAT".into(), "0.1".into()),
            ("SPEED".into(), "2000".into()),
        ];
        let parsed = crate::load::parse_text(flow, &env);
        assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
        let r = Runner::new(&host, env.clone(), Duration::from_secs(60));
        let started = tokio::time::Instant::now();
        let result = r.run(&parsed.flow).await;
        assert!(result.success, "{:?}", result.steps);
        // 11.1 km at 2 km/s: 5.56 s, in six stops after the first.
        let took = started.elapsed().as_secs_f64();
        assert!((took - 5.56).abs() < 0.01, "{took}");
        let calls = host.calls.lock().unwrap().clone();
        assert_eq!(calls.len(), 7, "{calls:?}");
        assert!(calls.iter().all(|(op, _)| *op == Op::SetLocation));
        assert_eq!(calls[0].1, json!({"latitude": 0.0, "longitude": 0.0}));
        assert_eq!(calls[6].1, json!({"latitude": 0.1, "longitude": 0.0}));

        let host = Fake::default();
        let slow = vec![("LAT".into(), "0.1".into()), ("SPEED".into(), "1".into())];
        let r = Runner::new(&host, slow, Duration::from_secs(60));
        let result = r.run(&parsed.flow).await;
        assert!(!result.success);
        let error = result.steps[0].error.clone().unwrap_or_default();
        assert!(error.contains("more than the"), "{error}");
        assert!(!host.ops().contains(&Op::SetLocation), "{:?}", host.ops());
    }
}
