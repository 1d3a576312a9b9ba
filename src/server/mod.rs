//! HTTP layer: router, error envelope, security middleware, OpenAPI assembly.
