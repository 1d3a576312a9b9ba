//! Every integration test in one binary (ripgrep's layout): one link instead of one per
//! file, and `common` compiled once. A test that changes process-wide state (environment
//! variables such as `TZ`) keeps a binary of its own: `ios_logs`.

// They drive the virtual Android device and stand-in tools written as shell scripts: Unix
// hosts only. On Windows the product's own unit tests run; these are compiled out.
#![cfg(unix)]

mod common;

mod adb_connect;
mod android_e2e;
mod android_faults;
mod android_helper;
mod android_logs;
mod android_perf_device;
mod android_routes;
mod android_screenshots;
mod android_typing;
mod android_verify;
mod android_web;
mod audit_screens;
mod batch;
mod build;
mod cli;
mod device_features;
mod devices;
mod flow_scripts;
mod flows;
mod grid;
mod http_api;
mod ios_e2e;
mod ios_perf;
mod ios_simctl;
mod ios_startup;
mod ios_ui_backend;
mod layout;
mod listen;
mod log_fixtures;
mod mcp;
mod openapi_drift;
mod operations;
mod packaging;
mod perf_fixtures;
mod perf_window;
mod proxy;
mod proxy_attach;
mod proxy_rules;
mod readme;
mod recording;
mod registry;
mod round_trips;
mod runs;
mod screen_diff;
mod serve_cli;
mod sessions;
mod storm;
mod ui_fixtures;
mod virtual_android_device;
mod wda;
mod wda_devicectl;
