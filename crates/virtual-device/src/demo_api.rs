//! The demo app's calls to its API, as an app on a phone makes them behind `proxy attach`: a
//! transition with `http` (the demo's LOG IN) sends its request to the API whose base URL is
//! the device setting `global mobilectl_demo_api` (`http://127.0.0.1:8080`), through the
//! device's proxy setting (`global http_proxy`, `127.0.0.1:PORT`), which only reaches the host
//! over the device's `adb reverse` forward of that port. The transition then goes on on a 2xx
//! answer and to its `fail_to` screen otherwise (an error status, or no answer), and the app
//! logs which. Without both settings the app calls nothing (the login moves on as always).
//!
//! The call is made once the input that fired it is handled, without the state's lock (the
//! tunnel and other commands go on meanwhile), bounded by [`TIMEOUT`].

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use crate::app::HttpStep;
use crate::state::DeviceState;
use crate::Device;

/// The setting naming the API's base URL.
pub const API_SETTING: &str = "mobilectl_demo_api";
/// The longest a call may take (connecting, sending, the answer).
pub const TIMEOUT: Duration = Duration::from_secs(10);

fn setting<'a>(st: &'a DeviceState, key: &str) -> Option<&'a str> {
    st.settings
        .get(&("global".to_string(), key.to_string()))
        .map(String::as_str)
        .filter(|v| !v.is_empty() && *v != "null")
}

fn api(st: &DeviceState) -> Option<String> {
    setting(st, API_SETTING)
        .filter(|v| v.starts_with("http://"))
        .map(str::to_string)
}

/// The device-local port of the proxy setting (`127.0.0.1:P` or `localhost:P`; `:0` is none).
fn proxy_port(st: &DeviceState) -> Option<u16> {
    let (host, port) = setting(st, "http_proxy")?.rsplit_once(':')?;
    let port: u16 = port.parse().ok().filter(|p| *p != 0)?;
    matches!(host, "127.0.0.1" | "localhost").then_some(port)
}

/// Whether the app calls its API: both settings are there.
pub fn configured(st: &DeviceState) -> bool {
    api(st).is_some() && proxy_port(st).is_some()
}

/// Makes the call a transition is waiting for, if any, and finishes the transition.
pub(crate) fn settle(dev: &Device) {
    let (step, to, api, port) = {
        let mut st = dev.state();
        let Some((step, to)) = st.pending_http.take() else {
            return;
        };
        let (api, port) = (api(&st), proxy_port(&st));
        (step, to, api, port)
    };
    let outcome = match (api, port) {
        (Some(api), Some(port)) => call(dev, &api, port, &step),
        _ => Err("the API or the proxy setting went away".into()),
    };
    dev.state().finish_http(&step, &to, outcome);
}

/// The request through the device's proxy; answers the status.
fn call(dev: &Device, api: &str, port: u16, step: &HttpStep) -> Result<u16, String> {
    let host_port = dev
        .reverse
        .host_port(&format!("tcp:{port}"))
        .ok_or_else(|| {
            format!(
                "java.net.ConnectException: failed to connect to /127.0.0.1:{port} (ECONNREFUSED)"
            )
        })?;
    let addr = SocketAddr::from(([127, 0, 0, 1], host_port));
    let mut s = TcpStream::connect_timeout(&addr, TIMEOUT).map_err(|e| e.to_string())?;
    let _ = s.set_read_timeout(Some(TIMEOUT));
    let _ = s.set_write_timeout(Some(TIMEOUT));
    let url = format!("{}{}", api.trim_end_matches('/'), step.path);
    let authority = api
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or("");
    let body = step.body.clone().unwrap_or_default();
    let request = format!(
        "{} {url} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: MobilectlDemo/1.0 (Linux; Android 14)\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        step.method,
        body.len()
    );
    s.write_all(request.as_bytes())
        .map_err(|e| format!("java.net.SocketException: {e}"))?;
    // The whole answer (bounded), so that the exchange ends as an app's would.
    let mut answer = Vec::new();
    let _ = s.take(1 << 20).read_to_end(&mut answer);
    let head = String::from_utf8_lossy(&answer[..answer.len().min(64)]).into_owned();
    let status = head
        .strip_prefix("HTTP/1.")
        .and_then(|r| r.get(2..5))
        .and_then(|c| c.parse::<u16>().ok());
    status.ok_or_else(|| {
        if answer.is_empty() {
            "java.io.EOFException: \\n not found: limit=0 content=…".to_string()
        } else {
            format!("java.net.ProtocolException: unexpected status line: {head}")
        }
    })
}
