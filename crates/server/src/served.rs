//! The one list of routes a router and `/openapi.json` are both built from: [`served!`] turns each handler
//! named into a [`Route`] (its `#[utoipa::path]` path item and the handler), and [`router`] serves each route at
//! the path and methods of its path item, and nothing else.
//!
//! Owns the route list's mechanics only. Must not know any route (the lists are `lib.rs`'s and
//! `metrics.rs`'s) nor the document (`openapi.rs` merges the same path items).

use axum::routing::{MethodFilter, MethodRouter};
use axum::Router;
use utoipa::openapi::path::PathItem;

/// One entry of a route list: a handler's path item and the handler itself.
pub(crate) struct Route<S> {
    /// The handler's `#[utoipa::path]`: one path item, with the operation of each method it is served at.
    pub(crate) doc: utoipa::openapi::OpenApi,
    /// Adds the handler to a path's method router for the methods given.
    add: fn(MethodRouter<S>, MethodFilter) -> MethodRouter<S>,
}

impl<S> Route<S> {
    /// The route of `handler`, documented by `doc` (its own `#[utoipa::path]`; [`served!`] pairs them).
    pub(crate) fn new(
        doc: utoipa::openapi::OpenApi,
        add: fn(MethodRouter<S>, MethodFilter) -> MethodRouter<S>,
    ) -> Self {
        Route { doc, add }
    }
}

/// The [`Route`]s of the handlers named, each with its `#[utoipa::path]` (state type first:
/// `served![Arc<AppState>; quote, admin::reserves]`). The one list a router and the document read.
macro_rules! served {
    ($state:ty; $($($segment:ident)::+),+ $(,)?) => {
        vec![$({
            // The handler's path item, as utoipa's derive reads it (with the schemas its bodies reach).
            #[derive(utoipa::OpenApi)]
            #[openapi(paths($($segment)::+))]
            struct One;
            $crate::served::Route::<$state>::new(
                <One as utoipa::OpenApi>::openapi(),
                |methods, filter| methods.on(filter, $($segment)::+),
            )
        }),+]
    };
}
pub(crate) use served;

/// The methods a path item has an operation for (`None`: none axum serves).
fn methods(item: &PathItem) -> Option<MethodFilter> {
    let operations = [
        (&item.get, MethodFilter::GET),
        (&item.post, MethodFilter::POST),
        (&item.put, MethodFilter::PUT),
        (&item.delete, MethodFilter::DELETE),
        (&item.patch, MethodFilter::PATCH),
        (&item.head, MethodFilter::HEAD),
        (&item.options, MethodFilter::OPTIONS),
        (&item.trace, MethodFilter::TRACE),
    ];
    operations
        .into_iter()
        .filter(|(operation, _)| operation.is_some())
        .map(|(_, filter)| filter)
        .reduce(MethodFilter::or)
}

/// A router serving each route at the path and methods of its path item, and nothing else.
pub(crate) fn router<S: Clone + Send + Sync + 'static>(routes: Vec<Route<S>>) -> Router<S> {
    let mut router = Router::new();
    for route in routes {
        for (path, item) in &route.doc.paths.paths {
            if let Some(filter) = methods(item) {
                router = router.route(path, (route.add)(MethodRouter::new(), filter));
            }
        }
    }
    router
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{header, Request, StatusCode};
    use tower::ServiceExt;

    #[utoipa::path(method(get, post), path = "/both", responses((status = 200, description = "Either")))]
    async fn both() -> &'static str {
        "both"
    }

    #[utoipa::path(put, path = "/items/{id}", params(("id" = String, Path)),
        responses((status = 204, description = "Stored")))]
    async fn item() -> StatusCode {
        StatusCode::NO_CONTENT
    }

    /// The status and `Allow` header of `method path` through `router`.
    async fn answer(router: Router, method: &str, path: &str) -> (StatusCode, String) {
        let request = Request::builder().method(method).uri(path).body(Body::empty()).unwrap();
        let response = router.oneshot(request).await.unwrap();
        let allow = response.headers().get(header::ALLOW).map(|v| v.to_str().unwrap().to_string());
        (response.status(), allow.unwrap_or_default())
    }

    #[tokio::test]
    async fn a_route_is_served_at_the_path_and_methods_of_its_path_item_only() {
        let router = router::<()>(served![(); both, item]);
        assert_eq!(answer(router.clone(), "GET", "/both").await.0, StatusCode::OK);
        assert_eq!(answer(router.clone(), "POST", "/both").await.0, StatusCode::OK);
        assert_eq!(
            answer(router.clone(), "PUT", "/both").await,
            (StatusCode::METHOD_NOT_ALLOWED, "GET,HEAD,POST".into())
        );
        assert_eq!(answer(router.clone(), "PUT", "/items/7").await.0, StatusCode::NO_CONTENT);
        assert_eq!(answer(router.clone(), "GET", "/items/7").await, (StatusCode::METHOD_NOT_ALLOWED, "PUT".into()));
        assert_eq!(answer(router, "GET", "/items").await.0, StatusCode::NOT_FOUND);
    }
}
