//! `openapi/openapi.json` must be exactly what the code generates (`mobilectl openapi`).

#[test]
fn checked_in_spec_matches_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    let generated = mobilectl::api::openapi_json();
    assert!(
        checked_in == generated,
        "openapi/openapi.json is out of date: run `cargo run -- openapi > openapi/openapi.json`"
    );
}
