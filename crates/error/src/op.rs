//! Every operation of the product, by name: [`Op`], one variant each, in the order the
//! documentation lists them. The product's table has one entry per variant and its server one
//! handler per variant (an exhaustive `match`, so the compiler holds the two together), and a
//! hint names the operation to call next by it, so no hint can name an operation that does not
//! exist.

macro_rules! ops {
    ($($v:ident = $n:literal,)*) => {
        /// An operation, by the name the API gives it (its OpenAPI `operationId`, its MCP tool).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op {
            $(
                #[allow(missing_docs)]
                $v,
            )*
        }

        impl Op {
            /// Every operation, in the documentation's order.
            pub const ALL: &'static [Op] = &[$(Op::$v),*];

            /// The operation's name (`list_devices`, `tap`…).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Op::$v => $n,)*
                }
            }

            /// The operation of this name, if there is one.
            pub fn named(name: &str) -> Option<Op> {
                match name {
                    $($n => Some(Op::$v),)*
                    _ => None,
                }
            }
        }
    };
}

ops! {
    Health = "health",
    Doctor = "doctor",
    ListDevices = "list_devices",
    GetDevice = "get_device",
    GetActiveDevice = "get_active_device",
    SetActiveDevice = "set_active_device",
    Boot = "boot",
    Shutdown = "shutdown",
    CreateSession = "create_session",
    ListSessions = "list_sessions",
    GetSession = "get_session",
    EndSession = "end_session",
    SessionInfo = "session_info",
    ReleaseDevice = "release_device",
    ConnectDevice = "connect_device",
    Erase = "erase",
    InstallHelper = "install_helper",
    InstallApp = "install_app",
    LaunchApp = "launch_app",
    TerminateApp = "terminate_app",
    ResetApp = "reset_app",
    ResetKeychain = "reset_keychain",
    ListApps = "list_apps",
    OpenUrl = "open_url",
    BuildApp = "build_app",
    BuildAppStream = "build_app_stream",
    ListBuilds = "list_builds",
    CancelBuild = "cancel_build",
    Snapshot = "snapshot",
    ScreenSummary = "screen_summary",
    Find = "find",
    Screenshot = "screenshot",
    ScreenshotAnnotated = "screenshot_annotated",
    ScreenshotDiff = "screenshot_diff",
    Audit = "audit",
    RecordingStart = "recording_start",
    RecordingStop = "recording_stop",
    ListRecordings = "list_recordings",
    GetRecording = "get_recording",
    DeleteRecording = "delete_recording",
    Tap = "tap",
    TapElement = "tap_element",
    LongPress = "long_press",
    Swipe = "swipe",
    Scroll = "scroll",
    ScrollTo = "scroll_to",
    TypeText = "type_text",
    Press = "press",
    HideKeyboard = "hide_keyboard",
    MultiTouch = "multi_touch",
    Batch = "batch",
    FlowRun = "flow_run",
    FlowRunStream = "flow_run_stream",
    FlowTest = "flow_test",
    FlowTestStream = "flow_test_stream",
    FlowRecordStart = "flow_record_start",
    FlowRecordStop = "flow_record_stop",
    Wait = "wait",
    Expect = "expect",
    WaitForChange = "wait_for_change",
    AlertAccept = "alert_accept",
    AlertDismiss = "alert_dismiss",
    SetLocation = "set_location",
    SetPermission = "set_permission",
    StatusBar = "status_bar",
    GetClipboard = "get_clipboard",
    SetClipboard = "set_clipboard",
    GetOrientation = "get_orientation",
    SetOrientation = "set_orientation",
    SendIntent = "send_intent",
    PushFile = "push_file",
    PullFile = "pull_file",
    AddMedia = "add_media",
    PostNotification = "post_notification",
    ListNotifications = "list_notifications",
    Biometric = "biometric",
    SetAirplaneMode = "set_airplane_mode",
    ProxyStart = "proxy_start",
    ProxyStop = "proxy_stop",
    ProxyStatus = "proxy_status",
    ProxyCa = "proxy_ca",
    ProxyAttach = "proxy_attach",
    ProxyDetach = "proxy_detach",
    ListFlows = "list_flows",
    GetFlow = "get_flow",
    StreamFlows = "stream_flows",
    GetFlowSummary = "get_flow_summary",
    ClearFlows = "clear_flows",
    ExportHar = "export_har",
    AddProxyRule = "add_proxy_rule",
    ListProxyRules = "list_proxy_rules",
    DeleteProxyRule = "delete_proxy_rule",
    ClearProxyRules = "clear_proxy_rules",
    ProxyRulesFromHar = "proxy_rules_from_har",
    SetProxyConditions = "set_proxy_conditions",
    ClearProxyConditions = "clear_proxy_conditions",
    TailLogs = "tail_logs",
    StreamLogs = "stream_logs",
    ListCrashes = "list_crashes",
    GetCrash = "get_crash",
    DebugBundle = "debug_bundle",
    Perf = "perf",
    PerfStart = "perf_start",
    PerfStop = "perf_stop",
    ListRuns = "list_runs",
    GetRun = "get_run",
    GetArtifact = "get_artifact",
    DeleteRun = "delete_run",
    Gc = "gc",
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Op;

    #[test]
    fn names_are_unique_and_found_again() {
        let mut seen = std::collections::HashSet::new();
        for op in Op::ALL {
            assert!(seen.insert(op.name()), "{op:?}");
            assert_eq!(Op::named(op.name()), Some(*op));
        }
        assert_eq!(Op::named("no_such_operation"), None);
    }
}
