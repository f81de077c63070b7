//! `GET /openapi.json`: the OpenAPI 3.1 document of every route `tonroute serve` answers, merged from the same
//! route lists the router is built from.
//!
//! Each handler carries its own `#[utoipa::path(…)]` (method, path, parameters, statuses, body types), and the
//! handlers are listed once, with [`crate::served::served!`]: each entry is a [`crate::served::Route`], the
//! handler's path item and the handler itself. [`crate::served::router`] serves each route at the path and
//! methods its path item names, and [`document`] merges the same path items, so a route cannot be served
//! without its path item, nor documented without being served. The body schemas come from the wire types
//! (their `ToSchema` derives sit beside their serde derives), so a field renamed in a wire type is renamed here
//! too; `tests/it/openapi.rs` validates the real answers of each route against the document and checks the
//! methods each path serves against it.
//!
//! Owns the document and the error statuses each kind of route documents (the route list's mechanics are
//! `served.rs`'s). Must
//! not change how any route behaves (the handlers are the routes' own modules').

use std::collections::BTreeMap;
use std::sync::OnceLock;

use axum::http::header;
use axum::response::{IntoResponse, Response};
use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder};
use utoipa::{IntoResponses, OpenApi, ToSchema};

use tonroute_api::error::ErrorBody;
use tonroute_api::wire::AdminBatchBody;

/// The 4xx/5xx answer of every route.
const ERROR: &str = "The `{code, message}` error object (status per error code)";

/// Responses by status, as [`IntoResponses`] gives them.
type Responses = BTreeMap<String, RefOr<utoipa::openapi::Response>>;

/// One response per status, each the [`ErrorBody`] object.
fn error_responses(statuses: &[u16]) -> Responses {
    let body = Content::new(Some(Ref::from_schema_name(ErrorBody::name())));
    let response = ResponseBuilder::new().description(ERROR).content("application/json", body).build();
    statuses.iter().map(|status| (status.to_string(), RefOr::T(response.clone()))).collect()
}

/// The error statuses a route documents, one set per kind of route, named in its handler's `responses(…)`.
macro_rules! error_statuses {
    ($($(#[$doc:meta])* $name:ident = [$($status:literal),+];)+) => {$(
        $(#[$doc])*
        pub(crate) struct $name;

        impl IntoResponses for $name {
            fn responses() -> Responses {
                error_responses(&[$($status),+])
            }
        }
    )+};
}

error_statuses! {
    /// `/v4/router/quote`: the request refused, unknown assets, the budget or the limits at the edge, no
    /// route, the server overloaded or out of time.
    QuoteErrors = [400, 404, 408, 413, 415, 422, 429, 503];
    /// `/v4/router/swap`: the quote's, and 501 for a route no swap builder covers.
    SwapErrors = [400, 404, 408, 413, 415, 422, 429, 501, 503];
    /// `/v4/admin/reserves`: the batch refused (a price move past the limit included), no or a wrong token, an
    /// unknown pool, the limits at the edge.
    AdminErrors = [400, 401, 403, 404, 408, 413, 415, 429];
    /// A market route that may find nothing to answer (no such coin, pool, account or block): bad parameters,
    /// nothing found (or no market data on this server), the store failing, the market routes shed (503 with
    /// `Retry-After`).
    LookupErrors = [400, 404, 500, 503];
    /// A market listing: bad parameters, no market data on this server (404), the store failing, shed (503;
    /// nothing found is an empty page).
    ListErrors = [400, 404, 500, 503];
    /// `/affiliate/accounts/{id}`: no such account (or no market data), the store failing, shed.
    AccountErrors = [404, 500, 503];
}

/// The document's root: what is not a route's (the title, the error object, the admin route's security
/// scheme); the path items are the routes'.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "tonroute",
        description = "Exact swap routing for the TON DEXes (`/v4` router operations) and market data."
    ),
    components(schemas(ErrorBody, AdminBatchBody)),
    modifiers(&BearerAuth)
)]
struct ApiDoc;

/// The admin route's `Authorization: Bearer <token>` (`TONROUTE_ADMIN_TOKEN` / `--admin-token-file`).
struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
        doc.components
            .get_or_insert_with(Default::default)
            .add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

/// The document: the root and the path items of every route ([`super::routes`] and `GET /metrics`,
/// [`super::metrics::routes`]).
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    let app = super::routes().into_iter().map(|r| r.doc);
    for part in app.chain(super::metrics::routes().into_iter().map(|r| r.doc)) {
        doc.merge(part);
    }
    doc
}

/// The document as JSON text, built once.
pub fn document() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        // Serialising utoipa's own document types cannot fail (string keys, no non-finite floats).
        openapi().to_pretty_json().expect("the OpenAPI document serialises")
    })
}

#[utoipa::path(get, path = "/openapi.json", tag = "service",
    responses((status = 200, description = "This document", content_type = "application/json")))]
pub(crate) async fn openapi_json() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], document()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_has_the_path_item_of_every_route_and_no_other() {
        let doc: serde_json::Value = serde_json::from_str(document()).unwrap();
        let documented: Vec<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
        let app = super::super::routes().into_iter().map(|r| r.doc);
        let metrics = super::super::metrics::routes().into_iter().map(|r| r.doc);
        let mut served: Vec<String> = app.chain(metrics).flat_map(|d| d.paths.paths.into_keys()).collect();
        served.sort();
        served.dedup();
        assert_eq!(documented, served);
        assert!(served.len() >= 35, "{served:?}");
    }
}
