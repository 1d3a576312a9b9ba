//! iOS Simulator logs: `log stream|show --style ndjson` lines ([`ndjson`]) and crash reports,
//! `.ips` and `.crash` ([`report`]).

pub mod ndjson;
pub mod report;
