//! Every route of the server, composed once: the API's ([`crate::api::routes`]) and the
//! pages' ([`crate::pages::routes`]), under one set of layers — the body limit, the request time
//! limit, the security headers and request tracing.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use axum::Router;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::app::App;
use crate::refusal::refusal;

/// The routes, with the body limit (the largest upload, plus room for a form's fields), a
/// request time limit (the scoring limit plus a margin), the documented bodies of the
/// refusals those layers and axum's extractors answer with ([`crate::error_bodies`]), the
/// security headers and request tracing.
pub fn router(app: Arc<App>) -> Router {
    let body_limit = usize::try_from(app.campaign.max_upload).unwrap_or(usize::MAX).saturating_add(64 << 10);
    let timeout = Duration::from_secs_f64(app.campaign.time_limit + 30.0);
    Router::new()
        .merge(crate::api::routes())
        .merge(crate::desk::routes())
        .merge(crate::pages::routes())
        .fallback(|| async { refusal(StatusCode::NOT_FOUND, "not_found", "found no such route") })
        .layer(DefaultBodyLimit::disable())
        .layer(RequestBodyLimitLayer::new(body_limit))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, timeout))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&app), crate::error_bodies::documented))
        .layer(axum::middleware::map_response(security_headers))
        .layer(TraceLayer::new_for_http())
        .with_state(app)
}

/// The Content-Security-Policy of every answer: nothing but this site's own stylesheet; no
/// script at all, no frame, forms posted only here.
pub const CSP: &str =
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Adds the CSP, `X-Content-Type-Options: nosniff` and `Referrer-Policy: same-origin` (no
/// `Referer` to another site; this server's own forms keep their `Origin`, which
/// `no-referrer` would make `null`, and the pages' forgery check reads it).
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    response
}
