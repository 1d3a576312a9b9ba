//! `mobilectl grid node-config`: the Selenium Grid 4 relay-node configuration (TOML) for the
//! devices the server sees, one slot per device, each with a stereotype of `platformName`,
//! `mobilectl:kind`, `appium:udid`, `appium:deviceName`, `appium:platformVersion` and
//! `mobilectl:host` (`crate::api::wire::capabilities`). The
//! node relays each session to this server's W3C routes (`crate::server::w3c`). Devices come
//! and go: regenerate the configuration and restart (or drain) the node.

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use crate::api::wire::capabilities::name;
use crate::client::{exit, Client, ConnectOptions};

/// The `grid` subcommands.
#[derive(Debug, Subcommand)]
pub enum GridCommand {
    /// Print a Grid 4 relay node's TOML for this server's devices (one slot each).
    NodeConfig(NodeConfigArgs),
}

/// Flags of `grid node-config`.
#[derive(Debug, Args)]
pub struct NodeConfigArgs {
    /// The hub (`http://HUB:4444`).
    #[arg(long, value_name = "URL")]
    pub hub: String,
    /// Sessions each device's slot takes at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub max_sessions_per_device: u32,
    /// The node's own port.
    #[arg(long, default_value_t = 5555)]
    pub node_port: u16,
    /// Seconds without a request after which the node ends a session (and mobilectl releases
    /// its device).
    #[arg(long, default_value_t = 300)]
    pub session_timeout: u32,
    /// The URL the node reaches this server at (default: `--url`).
    #[arg(long, value_name = "URL")]
    pub relay_url: Option<String>,
    /// The hub's event bus for publishing (default: `tcp://HUB-HOST:4442`).
    #[arg(long, value_name = "URI")]
    pub publish_events: Option<String>,
    /// The hub's event bus for subscribing (default: `tcp://HUB-HOST:4443`).
    #[arg(long, value_name = "URI")]
    pub subscribe_events: Option<String>,
}

/// Runs `grid node-config` against the server `opts` names; the exit code.
pub fn run(args: NodeConfigArgs, opts: ConnectOptions) -> i32 {
    let rt = match super::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let relay = args.relay_url.clone().unwrap_or_else(|| opts.url.clone());
    let listed = rt.block_on(async {
        let c = Client::connect(&opts).await?;
        c.get("/api/v1/device/list", &[]).await
    });
    match listed {
        Ok(reply) => {
            print!("{}", node_toml(&args, &relay, &reply.value));
            exit::OK
        }
        Err(e) => super::output::error(&e, false),
    }
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The relay node's TOML for the devices of a listing.
pub fn node_toml(args: &NodeConfigArgs, relay: &str, list: &Value) -> String {
    let relay = relay.trim_end_matches('/');
    let devices: Vec<&Value> = list["devices"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| matches!(d["state"].as_str(), Some("online" | "booted")))
        .collect();
    let mut out = format!(
        "# Selenium Grid 4 relay node for mobilectl at {relay}: one slot per device ({n}).\n\
         # Devices changed? Regenerate (mobilectl grid node-config) and restart or drain the node.\n\
         [server]\nport = {port}\n\n[node]\nhub = {hub}\ndetect-drivers = false\n\
         session-timeout = {timeout}\nmax-sessions = {max}\n\n[relay]\nurl = {url}\n\
         status-endpoint = \"/status\"\nconfigs = [\n",
        n = devices.len(),
        port = args.node_port,
        hub = toml_string(&args.hub),
        timeout = args.session_timeout,
        max = (devices.len() as u32 * args.max_sessions_per_device).max(1),
        url = toml_string(relay),
    );
    for d in devices {
        let mut stereotype = json!({
            name::PLATFORM: d["platform"],
            name::KIND: d["kind"],
            name::UDID: d["udid"],
            name::DEVICE_NAME: d["name"],
            name::PLATFORM_VERSION: d["os_version"],
            name::HOST: relay,
        });
        // What a device does not say, a slot does not offer.
        if let Some(caps) = stereotype.as_object_mut() {
            caps.retain(|_, v| !v.is_null());
        }
        out += &format!(
            "  {}, {},\n",
            toml_string(&args.max_sessions_per_device.to_string()),
            toml_string(&stereotype.to_string())
        );
    }
    out += "]\n";
    let host = reqwest::Url::parse(&args.hub)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| "localhost".into());
    let publish = args
        .publish_events
        .clone()
        .unwrap_or_else(|| format!("tcp://{host}:4442"));
    let subscribe = args
        .subscribe_events
        .clone()
        .unwrap_or_else(|| format!("tcp://{host}:4443"));
    out += &format!(
        "\n[events]\npublish = {}\nsubscribe = {}\n",
        toml_string(&publish),
        toml_string(&subscribe)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_slot_per_ready_device_with_its_stereotype() {
        let args = NodeConfigArgs {
            hub: "http://hub:4444".into(),
            max_sessions_per_device: 1,
            node_port: 5555,
            session_timeout: 120,
            relay_url: None,
            publish_events: None,
            subscribe_events: None,
        };
        let list = json!({"devices": [
            {"udid": "emulator-5554", "name": "Pixel \"7\"", "platform": "android", "state": "online", "os_version": "14", "kind": "emulator"},
            {"udid": "Y", "name": "no version", "platform": "android", "state": "online", "kind": "device"},
            {"udid": "X", "name": "off", "platform": "android", "state": "offline"},
        ]});
        let toml = node_toml(&args, "http://127.0.0.1:9100/", &list);
        assert!(toml.contains("url = \"http://127.0.0.1:9100\""), "{toml}");
        assert!(toml.contains("hub = \"http://hub:4444\""), "{toml}");
        assert!(toml.contains("session-timeout = 120"), "{toml}");
        assert!(toml.contains("publish = \"tcp://hub:4442\""), "{toml}");
        assert_eq!(
            toml.matches("appium:udid").count(),
            2,
            "offline devices have no slot"
        );
        assert!(
            toml.contains(r#"\"appium:deviceName\":\"Pixel \\\"7\\\"\""#),
            "{toml}"
        );
        // A slot offers the device's kind, and nothing for what the device does not say.
        assert!(
            toml.contains(r#"\"mobilectl:kind\":\"emulator\""#),
            "{toml}"
        );
        assert_eq!(toml.matches("appium:platformVersion").count(), 1, "{toml}");
        assert!(!toml.contains("null"), "{toml}");
    }
}
