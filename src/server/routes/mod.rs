//! The handlers, one module per resource. Each is a plain async function of the state and its
//! input; [`binding`] gives each operation ([`Op`]) its handler, in one exhaustive match, so
//! an operation without a handler does not compile.

pub mod actions;
pub mod alerts;
pub mod apps;
pub mod batch;
pub mod build;
pub mod connect;
pub mod devices;
pub mod features;
pub mod flows;
pub mod logs;
pub mod perf;
pub mod proxy;
pub mod proxy_rules;
pub mod recording;
pub mod runs;
pub mod screenshot;
pub mod service;
pub mod sessions;
pub mod simulator;
pub mod system;
pub mod ui;
pub mod verify;

use super::bind::{body, plain, query, Binding};
use crate::error::Op;
use crate::error::{Error, Result};

/// The app a request names in `field`, else its session's default app.
pub(crate) fn app_or_session(given: Option<&str>, field: &str) -> Result<String> {
    if let Some(app) = given.filter(|a| !a.is_empty()) {
        return Ok(app.to_string());
    }
    crate::controller::current_session()
        .and_then(|s| s.app.clone())
        .ok_or_else(|| {
            Error::validation(format!("`{field}` is missing"))
                .with_next(
                    "name the app (`com.example.app`), or start the session with {0} to make it the default",
                    [crate::error::Step::field_of(Op::CreateSession, "app")],
                )
        })
}

/// A listing's `limit`: `default` when not given, at most `max` (and whether the asked number
/// was lowered to it); 0 is refused.
pub(crate) fn limit(asked: Option<u32>, default: usize, max: usize) -> Result<(usize, bool)> {
    match asked {
        None => Ok((default, false)),
        Some(0) => Err(Error::validation("`limit` must be at least 1")
            .with_hint(format!("give 1 to {max}, or leave it out for {default}"))),
        Some(n) if n as usize > max => Ok((max, true)),
        Some(n) => Ok((n as usize, false)),
    }
}

/// The handler of each operation, made into its binding by the shape of its input.
pub fn binding(op: Op) -> Binding {
    match op {
        Op::Health => plain(service::health),
        Op::Doctor => plain(service::doctor),
        Op::ListDevices => query(devices::list),
        Op::GetDevice => query(devices::get_device),
        Op::GetActiveDevice => plain(devices::get_active),
        Op::SetActiveDevice => body(devices::put_active),
        Op::Boot => body(devices::boot),
        Op::Shutdown => body(devices::shutdown),
        Op::CreateSession => body(sessions::create),
        Op::ListSessions => plain(sessions::list),
        Op::GetSession => query(sessions::get),
        Op::EndSession => query(sessions::end),
        Op::SessionInfo => plain(sessions::mine),
        Op::ReleaseDevice => plain(sessions::release),
        Op::ConnectDevice => body(connect::connect),
        Op::Erase => body(simulator::erase),
        Op::InstallHelper => body(devices::install_helper),
        Op::InstallApp => body(apps::install),
        Op::LaunchApp => body(apps::launch),
        Op::TerminateApp => body(apps::terminate),
        Op::ResetApp => body(apps::reset),
        Op::ResetKeychain => body(apps::reset_keychain),
        Op::ListApps => query(apps::list),
        Op::OpenUrl => body(apps::open_url),
        Op::BuildApp => body(build::build_app),
        Op::BuildAppStream => body(build::build_app_stream),
        Op::ListBuilds => plain(build::list_builds),
        Op::CancelBuild => body(build::cancel_build),
        Op::Snapshot => query(ui::ui),
        Op::ScreenSummary => query(ui::screen_summary),
        Op::Find => query(ui::find),
        Op::Screenshot => query(screenshot::screenshot),
        Op::ScreenshotAnnotated => query(screenshot::annotated),
        Op::ScreenshotDiff => body(screenshot::diff),
        Op::Audit => body(ui::audit),
        Op::RecordingStart => body(recording::start),
        Op::RecordingStop => body(recording::stop),
        Op::ListRecordings => plain(recording::list),
        Op::GetRecording => query(recording::get),
        Op::DeleteRecording => query(recording::delete),
        Op::Tap => body(actions::tap),
        Op::TapElement => body(actions::tap_element),
        Op::LongPress => body(actions::long_press),
        Op::Swipe => body(actions::swipe),
        Op::Scroll => body(actions::scroll),
        Op::ScrollTo => body(actions::scroll_to),
        Op::TypeText => body(actions::type_text),
        Op::Press => body(actions::press),
        Op::HideKeyboard => body(actions::hide_keyboard),
        Op::MultiTouch => body(features::multi_touch),
        Op::Batch => body(batch::batch),
        Op::FlowRun => body(flows::flow_run),
        Op::FlowRunStream => body(flows::flow_run_stream),
        Op::FlowTest => body(flows::flow_test),
        Op::FlowTestStream => body(flows::flow_test_stream),
        Op::FlowRecordStart => body(flows::record_start),
        Op::FlowRecordStop => body(flows::record_stop),
        Op::Wait => body(verify::wait),
        Op::Expect => body(verify::expect),
        Op::WaitForChange => body(verify::wait_for_change),
        Op::AlertAccept => body(alerts::accept),
        Op::AlertDismiss => body(alerts::dismiss),
        Op::SetLocation => body(system::location),
        Op::SetPermission => body(system::permission),
        Op::StatusBar => body(simulator::status_bar),
        Op::GetClipboard => query(features::get_clipboard),
        Op::SetClipboard => body(features::set_clipboard),
        Op::GetOrientation => query(features::get_orientation),
        Op::SetOrientation => body(features::set_orientation),
        Op::SendIntent => body(features::send_intent),
        Op::PushFile => body(features::push_file),
        Op::PullFile => body(features::pull_file),
        Op::AddMedia => body(features::add_media),
        Op::PostNotification => body(features::post_notification),
        Op::ListNotifications => query(features::list_notifications),
        Op::Biometric => body(features::biometric),
        Op::SetAirplaneMode => body(features::airplane_mode),
        Op::ProxyStart => body(proxy::start),
        Op::ProxyStop => body(proxy::stop),
        Op::ProxyStatus => plain(proxy::status),
        Op::ProxyCa => plain(proxy::ca_pem),
        Op::ProxyAttach => body(proxy::attach),
        Op::ProxyDetach => body(proxy::detach),
        Op::ListFlows => query(proxy::list),
        Op::GetFlow => query(proxy::get),
        Op::StreamFlows => query(proxy::stream),
        Op::GetFlowSummary => query(proxy::summary),
        Op::ClearFlows => plain(proxy::clear),
        Op::ExportHar => plain(proxy_rules::har),
        Op::AddProxyRule => body(proxy_rules::add),
        Op::ListProxyRules => plain(proxy_rules::list),
        Op::DeleteProxyRule => query(proxy_rules::delete),
        Op::ClearProxyRules => plain(proxy_rules::clear),
        Op::ProxyRulesFromHar => body(proxy_rules::from_har),
        Op::SetProxyConditions => body(proxy_rules::set_conditions),
        Op::ClearProxyConditions => plain(proxy_rules::clear_conditions),
        Op::TailLogs => query(logs::tail),
        Op::StreamLogs => query(logs::stream),
        Op::ListCrashes => query(logs::crashes),
        Op::GetCrash => query(logs::crash),
        Op::DebugBundle => query(logs::bundle),
        Op::Perf => query(perf::now),
        Op::PerfStart => body(perf::start),
        Op::PerfStop => body(perf::stop),
        Op::ListRuns => query(runs::list_runs),
        Op::GetRun => query(runs::get_run),
        Op::GetArtifact => query(runs::get_artifact),
        Op::DeleteRun => query(runs::delete_run),
        Op::Gc => body(runs::gc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_has_a_default_a_cap_and_no_zero() {
        assert_eq!(limit(None, 20, 200).unwrap(), (20, false));
        assert_eq!(limit(Some(7), 20, 200).unwrap(), (7, false));
        assert_eq!(limit(Some(5000), 20, 200).unwrap(), (200, true));
        let zero = limit(Some(0), 20, 200).unwrap_err();
        assert_eq!(zero.code, crate::error::ErrorCode::ValidationFailed);
        assert_eq!(
            zero.hint.as_deref(),
            Some("give 1 to 200, or leave it out for 20")
        );
    }
}
