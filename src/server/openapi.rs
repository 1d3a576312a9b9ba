//! The OpenAPI 3.1 document: paths and schemas come from the handlers' own `#[utoipa::path]`
//! descriptions; this module adds the document's info, tags and the bearer security scheme.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{InfoBuilder, OpenApi};
use utoipa::IntoResponses;

use super::error::ErrorEnvelope;

/// The error answers every route may give (the envelope of DESIGN.md).
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum ApiErrors {
    /// The caller's mistake or a device-side condition: see `error.code` and `error.hint`.
    #[response(status = "4XX")]
    Client(#[to_schema] ErrorEnvelope),
    /// A tool failed, timed out or is missing; or an internal error.
    #[response(status = "5XX")]
    Server(ErrorEnvelope),
}

/// Adds what no handler knows: info, security scheme.
pub(super) fn finish(mut spec: OpenApi) -> OpenApi {
    spec.info = InfoBuilder::new()
        .title("mobilectl")
        .version(env!("CARGO_PKG_VERSION"))
        .description(Some(
            "Inspect and drive phones over HTTP: iOS Simulators (simctl + AXe or idb) and \
             Android devices and emulators (adb). Read the screen as a compact tree with element \
             refs (e1..eN), act on refs, then verify. Errors are always \
             `{\"error\": {code, message, retryable, hint, details}}`.",
        ))
        .build();
    let components = spec.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some(
                    "Required when the server was started with --token or MOBILECTL_TOKEN",
                ))
                .build(),
        ),
    );
    // Either no authentication (loopback default) or the bearer token.
    spec.security = Some(vec![
        SecurityRequirement::default(),
        SecurityRequirement::new("bearer", Vec::<String>::new()),
    ]);
    spec
}

/// The complete OpenAPI document of the server.
pub fn openapi() -> OpenApi {
    finish(super::routes::all().split_for_parts().1)
}

/// The document as pretty JSON, as checked in at `openapi/openapi.json`.
pub fn openapi_json() -> String {
    let mut s = openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
