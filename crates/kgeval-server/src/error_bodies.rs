//! Refusals that come from the router's layers and axum's extractors rather than from a
//! handler — the body limit's 413, the request time limit's 408, a method a route does not
//! take (405), a path that is not UTF-8 once decoded (400), a form that does not parse (415,
//! 422) — are plain text or empty. This layer gives them the documented bodies: on `/api/…`
//! the JSON `{"status": …, "error": …}` every handler answers with, elsewhere the pages'
//! message page. An answer that already is JSON or HTML is left as it is.

use std::sync::Arc;

use axum::body::to_bytes;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use crate::app::App;
use crate::refusal::Refusal;

/// The longest plain body read to be quoted in the message.
const QUOTED: usize = 1024;

/// The layer's function (`axum::middleware::from_fn_with_state`).
pub async fn documented(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let method = request.method().clone();
    let response = next.run(request).await;
    let code = response.status();
    if !(code.is_client_error() || code.is_server_error()) || is_documented(response.headers()) {
        return response;
    }
    let allow = response.headers().get(header::ALLOW).cloned();
    let text = to_bytes(response.into_body(), QUOTED)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .unwrap_or_default();
    let refusal = refusal(&app, code, &method, allow.as_ref().and_then(|a| a.to_str().ok()), &text);
    let mut answer = if api { refusal.json() } else { crate::pages::message(&app, &refusal) };
    if let Some(allow) = allow {
        answer.headers_mut().insert(header::ALLOW, allow);
    }
    answer
}

/// Whether a response is JSON or HTML already.
fn is_documented(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json") || t.starts_with("text/html"))
}

/// The refusal a plain answer `code` (its body `text`) stands for.
fn refusal(app: &App, code: StatusCode, method: &Method, allow: Option<&str>, text: &str) -> Refusal {
    let quoted = |what: &str| {
        if text.is_empty() {
            what.to_owned()
        } else {
            format!("{what} ({text})")
        }
    };
    match code {
        StatusCode::BAD_REQUEST => Refusal::new(code, "bad_request", quoted("found a malformed request")),
        // The router adds `Allow` after this layer has run (the methods the route takes).
        StatusCode::METHOD_NOT_ALLOWED => Refusal::new(
            code,
            "method_not_allowed",
            format!("found method {method}, expected {}", allow.unwrap_or("one of the methods in the Allow header")),
        ),
        StatusCode::REQUEST_TIMEOUT => Refusal::new(
            code,
            "timeout",
            format!(
                "found a request not answered within {} s (the scoring time limit plus 30 s), expected a shorter one",
                app.campaign.time_limit + 30.0
            ),
        ),
        StatusCode::PAYLOAD_TOO_LARGE => {
            Refusal::new(code, "too_large", crate::refusal::over_the_limit(app.campaign.max_upload))
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            Refusal::new(code, "unsupported_media_type", quoted("found a body of another type"))
        }
        StatusCode::UNPROCESSABLE_ENTITY => Refusal::new(code, "invalid", quoted("found a body that does not parse")),
        _ if code.is_server_error() => {
            tracing::error!("{code} without a body: {text}");
            Refusal::new(code, "error", "the server failed; the organisers have the log")
        }
        _ => Refusal::new(code, "refused", quoted(&format!("found a request refused with {code}"))),
    }
}
