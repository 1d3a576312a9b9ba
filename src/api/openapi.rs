//! The OpenAPI 3.1 document, made from the operation table: one path item per path, each
//! operation with its `operationId` (the table's name), parameters or body schema, the content
//! types it really answers, and the error codes it can answer grouped under their status
//! (also listed, machine-readably, in `x-error-codes`). Every schema a `$ref` names is in
//! `components`.

use std::collections::BTreeMap;

use serde_json::json;
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::path::{
    HttpMethod as DocMethod, OperationBuilder, Parameter, ParameterIn, Paths,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ComponentsBuilder, ObjectBuilder, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Required, ResponseBuilder,
    ResponsesBuilder,
};

use super::errors::ALWAYS;
use super::operation::{HttpMethod, Input, Operation, Output};
use super::types::{schema_ref, Schemas};
use super::wire::error::ErrorEnvelope;
use crate::error::ErrorCode;

/// The groups of operations, in order, with what they hold.
pub const TAGS: &[(&str, &str)] = &[
    (
        "service",
        "The server itself: liveness, versions, tool checks.",
    ),
    (
        "devices",
        "Listing devices, the active device, boot, shutdown, erase.",
    ),
    (
        "apps",
        "Install, launch, stop, reset and list apps; open URLs.",
    ),
    (
        "inspect",
        "Read the screen: snapshot with refs, summary, search, screenshots.",
    ),
    (
        "act",
        "Act on refs, points or selectors: tap, type, swipe, scroll, press.",
    ),
    ("verify", "Wait for and assert outcomes; answer alerts."),
    (
        "recordings",
        "Screen recordings: MP4 video of the screen, one recording per device at a time.",
    ),
    (
        "system",
        "Simulated location, permissions, the simulator status bar.",
    ),
    (
        "logs",
        "The device's log, crashes and ANRs, and a debug bundle of everything at once.",
    ),
    (
        "perf",
        "An app's performance: CPU, memory, threads and frames now, and windows sampled over time with plots.",
    ),
    (
        "sessions",
        "Sessions and device leases: many callers on one server, none acting on another's device.",
    ),
    (
        "flows",
        "Maestro flows: run a flow's YAML on a device, step by step, with a report.",
    ),
    (
        "network",
        "Network capture: a recording HTTP(S) proxy the device is pointed at, and its flows.",
    ),
    (
        "runs",
        "Runs: each session's trace and artifacts (failure screenshots and trees, bundles, flow reports), and their garbage collection.",
    ),
];

/// The complete document for these operations.
pub fn document(ops: &[Operation]) -> OpenApi {
    let mut schemas = Schemas::new();
    let envelope = schema_ref::<ErrorEnvelope>(&mut schemas);
    let mut paths = Paths::new();
    for op in ops {
        paths.add_path_operation(
            op.path,
            vec![doc_method(op.method)],
            operation(op, &envelope, &mut schemas),
        );
    }
    let mut components = ComponentsBuilder::new().security_scheme(
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
    let mut seen = BTreeMap::new();
    for (name, schema) in schemas {
        seen.entry(name).or_insert(schema);
    }
    for (name, schema) in seen {
        components = components.schema(name, schema);
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("mobilectl")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "Inspect and drive phones over HTTP: iOS Simulators (simctl + AXe or idb) and \
                     Android devices and emulators (adb). Read the screen as a compact tree with \
                     element refs (e1..eN), act on refs, then verify. Errors are always \
                     `{\"error\": {code, message, retryable, hint, details}}`; each operation \
                     lists the codes it can answer under their status and in `x-error-codes`.",
                ))
                .build(),
        )
        .paths(paths)
        .components(Some(components.build()))
        .tags(Some(
            TAGS.iter()
                .map(|(name, what)| {
                    TagBuilder::new()
                        .name(*name)
                        .description(Some(*what))
                        .build()
                })
                .collect::<Vec<_>>(),
        ))
        // Either no authentication (loopback default) or the bearer token.
        .security(Some(vec![
            SecurityRequirement::default(),
            SecurityRequirement::new("bearer", Vec::<String>::new()),
        ]))
        .build()
}

fn doc_method(m: HttpMethod) -> DocMethod {
    match m {
        HttpMethod::Get => DocMethod::Get,
        HttpMethod::Post => DocMethod::Post,
        HttpMethod::Put => DocMethod::Put,
        HttpMethod::Delete => DocMethod::Delete,
    }
}

/// The codes an operation can answer: its own, then the ones every request can.
pub fn error_codes(op: &Operation) -> Vec<ErrorCode> {
    let mut codes = op.errors.clone();
    for c in ALWAYS {
        let body_only = matches!(
            c,
            ErrorCode::UnsupportedMediaType | ErrorCode::PayloadTooLarge
        );
        if body_only && !matches!(op.input, Input::Body(_)) {
            continue;
        }
        if !codes.contains(c) {
            codes.push(*c);
        }
    }
    if op.path == "/health" {
        // Liveness answers before any check.
        codes.retain(|c| *c == ErrorCode::Internal);
    }
    codes
}

fn operation(
    op: &Operation,
    envelope: &utoipa::openapi::RefOr<utoipa::openapi::Schema>,
    schemas: &mut Schemas,
) -> utoipa::openapi::path::Operation {
    let mut b = OperationBuilder::new()
        .operation_id(Some(op.name))
        .summary(Some(op.summary))
        .tag(op.tag);
    if !op.description.is_empty() {
        b = b.description(Some(op.description));
    }
    let mut parameters = match op.input {
        Input::Query(params) => in_path(op.path, params.list()),
        _ => Vec::new(),
    };
    if in_sessions(op) {
        parameters.push(session_header());
    }
    if !parameters.is_empty() {
        b = b.parameters(Some(parameters));
    }
    match op.input {
        Input::None | Input::Query(_) => {}
        Input::Body(schema) => {
            b = b.request_body(Some(
                RequestBodyBuilder::new()
                    .required(Some(Required::True))
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(schema.register(schemas)))
                            .build(),
                    )
                    .build(),
            ))
        }
    }
    let mut responses = ResponsesBuilder::new().response("200", success(&op.output, schemas));
    let codes = error_codes(op);
    let mut by_status: BTreeMap<u16, Vec<ErrorCode>> = BTreeMap::new();
    for c in &codes {
        by_status.entry(c.status()).or_default().push(*c);
    }
    for (status, cs) in by_status {
        let names: Vec<String> = cs.iter().map(|c| format!("`{}`", c.as_str())).collect();
        responses = responses.response(
            status.to_string(),
            ResponseBuilder::new()
                .description(format!("Error envelope with `code` {}", names.join(", ")))
                .content(
                    "application/json",
                    ContentBuilder::new().schema(Some(envelope.clone())).build(),
                ),
        );
    }
    let names: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
    b.responses(responses.build())
        .extensions(Some(
            ExtensionsBuilder::new()
                .add("x-error-codes", json!(names))
                .build(),
        ))
        .build()
}

/// Whether requests of `op` may run in a session: all but liveness, which answers before any
/// check, and starting a session, which is never done inside another (a client that sends
/// its session on every request can start it again when the server forgot it).
pub fn in_sessions(op: &Operation) -> bool {
    op.path != "/health" && op.name != "create_session"
}

/// The `Mobilectl-Session` header every operation in sessions takes.
fn session_header() -> Parameter {
    utoipa::openapi::path::ParameterBuilder::new()
        .name("Mobilectl-Session")
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some(
            "The session the request runs in: the `secret` POST /api/v1/sessions answered (a \
             session's id or name only names it). The request goes to the session's device, \
             and only the session may act on a device it leases. Where a header cannot be set, \
             `session` in the query or the JSON body does the same.",
        ))
        .schema(Some(
            utoipa::openapi::ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::Type::String),
        ))
        .build()
}

/// Parameters named as `{name}` in `path` are path parameters (always required); the rest
/// stay query parameters. One input type holds both, so a handler reads them alike.
fn in_path(path: &str, mut params: Vec<Parameter>) -> Vec<Parameter> {
    for p in &mut params {
        if path.contains(&format!("{{{}}}", p.name)) {
            p.parameter_in = ParameterIn::Path;
            p.required = Required::True;
        }
    }
    params
}

fn success(output: &Output, schemas: &mut Schemas) -> utoipa::openapi::Response {
    let binary = || {
        ContentBuilder::new()
            .schema(Some(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .content_media_type("application/octet-stream")
                    .build(),
            ))
            .build()
    };
    match output {
        Output::Json(schema) => ResponseBuilder::new()
            .description("Success")
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(schema.register(schemas)))
                    .build(),
            )
            .build(),
        Output::JsonOrText(schema) => ResponseBuilder::new()
            .description("JSON by default; the compact text with `format=text`")
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(schema.register(schemas)))
                    .build(),
            )
            .content(
                "text/plain",
                ContentBuilder::new()
                    .schema(Some(ObjectBuilder::new().schema_type(Type::String).build()))
                    .build(),
            )
            .build(),
        Output::Image => ResponseBuilder::new()
            .description("PNG by default; JPEG with `format=jpeg`")
            .content("image/png", binary())
            .content("image/jpeg", binary())
            .build(),
        Output::File(types) => types
            .iter()
            .fold(ResponseBuilder::new().description("The file"), |b, t| {
                b.content(
                    *t,
                    ContentBuilder::new()
                        .schema(Some(ObjectBuilder::new().schema_type(Type::String).build()))
                        .build(),
                )
            })
            .build(),
        Output::EventStream(schema) => {
            let item = match schema.register(schemas) {
                utoipa::openapi::RefOr::Ref(r) => r.ref_location,
                utoipa::openapi::RefOr::T(_) => "an object".to_string(),
            };
            ResponseBuilder::new()
                .description(format!(
                    "Server-Sent Events until the client disconnects: each event has an `id` \
                     (send it back as `Last-Event-ID` to resume) and JSON `data` of `{item}`; \
                     comment lines are heartbeats"
                ))
                .content(
                    "text/event-stream",
                    ContentBuilder::new().schema(Some(sse_event(&item))).build(),
                )
                .build()
        }
        Output::JsonOrBytes(schema) => ResponseBuilder::new()
            .description(format!(
                "JSON by default; with `{}` set, the raw bytes in their own content type",
                Output::BYTES_SWITCH
            ))
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(schema.register(schemas)))
                    .build(),
            )
            .content("*/*", binary())
            .build(),
    }
}

/// The schema of one Server-Sent Event as a client parses it: its `data` (a JSON text of
/// `item`), and its `event` name and `id` when it has them.
fn sse_event(item: &str) -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let text = |what: &str| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(what.to_string()))
    };
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("event", text("The event's name."))
        .property("id", text("The event's id."))
        .property(
            "data",
            text(&format!("JSON of `{item}`.")).content_media_type("application/json"),
        )
        .required("data")
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::openapi::path::ParameterBuilder;

    #[test]
    fn parameters_named_in_the_path_are_path_parameters() {
        let p = |name: &str| {
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Query)
                .required(Required::False)
                .build()
        };
        let params = in_path("/api/v1/logs/crashes/{id}", vec![p("id"), p("udid")]);
        let json = serde_json::to_value(&params).unwrap();
        assert_eq!(json[0]["in"], "path");
        assert_eq!(json[0]["required"], true);
        assert_eq!(json[1]["in"], "query");
        assert_eq!(json[1]["required"], false);
    }
}
