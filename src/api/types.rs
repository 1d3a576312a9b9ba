//! The types that cross the wire, as the table names them: each with its identity (a
//! [`TypeId`], so the handler bound to an operation can be checked against the table) and the
//! function that gives its schema (OpenAPI), its query parameters, or its strict body check.

use std::any::TypeId;
use std::fmt;

use serde::de::DeserializeOwned;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{IntoParams, ToSchema};

use super::strict::{Shape, StrictJson};
use crate::error::Result;

/// Schemas collected for the document's `components`, by name.
pub type Schemas = Vec<(String, RefOr<Schema>)>;

/// Registers `T` and what it references; returns a reference to `T`.
pub fn schema_ref<T: ToSchema>(schemas: &mut Schemas) -> RefOr<Schema> {
    T::schemas(schemas);
    let name = T::name().to_string();
    if !schemas.iter().any(|(n, _)| *n == name) {
        schemas.push((name.clone(), T::schema()));
    }
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name(name))
}

/// A JSON type of the API: a request body or an answer.
#[derive(Clone, Copy)]
pub struct WireType {
    type_id: fn() -> TypeId,
    type_name: fn() -> &'static str,
    schema: fn(&mut Schemas) -> RefOr<Schema>,
}

impl WireType {
    /// The wire type `T`.
    pub fn of<T: ToSchema + 'static>() -> Self {
        WireType {
            type_id: TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
            schema: schema_ref::<T>,
        }
    }

    /// Registers the type's schema (and what it references); returns a reference to it.
    pub fn register(&self, schemas: &mut Schemas) -> RefOr<Schema> {
        (self.schema)(schemas)
    }
}

/// Query parameters of the API, from one type.
#[derive(Clone, Copy)]
pub struct Params {
    type_id: fn() -> TypeId,
    type_name: fn() -> &'static str,
    params: fn() -> Vec<Parameter>,
}

impl Params {
    /// The query parameters of `T`.
    pub fn of<T: IntoParams + 'static>() -> Self {
        Params {
            type_id: TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
            params: query_params::<T>,
        }
    }

    /// The parameters, all in the query (the OpenAPI assembly moves path ones to the path).
    pub fn list(&self) -> Vec<Parameter> {
        (self.params)()
    }
}

fn query_params<T: IntoParams>() -> Vec<Parameter> {
    T::into_params(|| Some(ParameterIn::Query))
}

/// A JSON request body: its type and its strict check.
#[derive(Clone, Copy)]
pub struct Body {
    /// The body's JSON type.
    pub ty: WireType,
    check: fn(&[u8]) -> Result<()>,
}

impl Body {
    /// The body type `T`, checked strictly (unknown fields refused).
    pub fn of<T: ToSchema + DeserializeOwned + 'static>() -> Self {
        Body {
            ty: WireType::of::<T>(),
            check: check_body::<T>,
        }
    }

    /// Parses `body` as this type strictly, as its route would, without running anything:
    /// the refusal the route would answer, or nothing.
    pub fn check(&self, body: &[u8]) -> Result<()> {
        (self.check)(body)
    }

    /// Registers the body's schema; returns a reference to it.
    pub fn register(&self, schemas: &mut Schemas) -> RefOr<Schema> {
        self.ty.register(schemas)
    }
}

fn check_body<T: ToSchema + DeserializeOwned>(body: &[u8]) -> Result<()> {
    StrictJson::parse::<T>(body, &Shape::of::<T>()).map(drop)
}

macro_rules! identity {
    ($t:ty) => {
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                (self.type_id)() == (other.type_id)()
            }
        }

        impl Eq for $t {}

        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str((self.type_name)())
            }
        }
    };
}

identity!(WireType);
identity!(Params);

impl PartialEq for Body {
    fn eq(&self, other: &Self) -> bool {
        self.ty == other.ty
    }
}

impl Eq for Body {}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.ty.fmt(f)
    }
}
