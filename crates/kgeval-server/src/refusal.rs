//! The answers a request is refused with: [`Refusal`] (the HTTP code, the JSON `status`, one
//! line for the team, and for a limit when it resets), and the JSON bodies both front doors
//! share (`{"status": …, "error": …}`), with 401's challenge.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use crate::{clock, Error};

/// Why an upload was refused (or failed on the server): the HTTP code, the JSON `status`, a
/// one-line message and, for the daily limit, when it resets. The API answers it as JSON, the
/// pages as HTML.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// The HTTP status code.
    pub code: StatusCode,
    /// `unauthorized`, `forbidden`, `not_found`, `bad_request`, `too_large`, `limited` or `error`.
    pub status: &'static str,
    /// One line for the team.
    pub message: String,
    /// When the daily limit resets (Unix seconds).
    pub reset: Option<i64>,
    /// Seconds until the request rate or the daily limit allows another request
    /// (`Retry-After`).
    pub retry: Option<u64>,
}

impl Refusal {
    /// A refusal without a reset time.
    #[must_use]
    pub fn new(code: StatusCode, status: &'static str, message: impl Into<String>) -> Refusal {
        Refusal { code, status, message: message.into(), reset: None, retry: None }
    }

    /// A failure of the server (logged; the team reads only that it failed).
    #[must_use]
    pub fn internal(error: &Error) -> Refusal {
        tracing::error!("{error}");
        Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "error", "the server failed; the organisers have the log")
    }

    /// The JSON answer (`{"status", "error", "reset"}`, `Retry-After` with a reset).
    #[must_use]
    pub fn json(&self) -> Response {
        if self.code == StatusCode::UNAUTHORIZED {
            return unauthorized();
        }
        let mut body = json!({ "status": self.status, "error": self.message });
        if self.status == "limited" {
            body["reset"] = json!(self.reset.map(clock::format));
        }
        let mut response = (self.code, Json(body)).into_response();
        self.retry_after(&mut response);
        response
    }

    /// Adds `Retry-After` (seconds) to `response` when the refusal has a reset or a wait.
    pub fn retry_after(&self, response: &mut Response) {
        if let Some(value) = self.retry.and_then(|s| HeaderValue::from_str(&s.to_string()).ok()) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
    }
}

/// A JSON refusal: `{"status": STATUS, "error": MESSAGE}`.
pub fn refusal(code: StatusCode, status: &str, message: &str) -> Response {
    (code, Json(json!({ "status": status, "error": message }))).into_response()
}

/// A server-side failure as a 500 (the message is logged, not sent).
pub fn internal(error: &Error) -> Response {
    tracing::error!("{error}");
    refusal(StatusCode::INTERNAL_SERVER_ERROR, "error", "the server failed; the organisers have the log")
}

/// 401 with its challenge.
pub fn unauthorized() -> Response {
    let mut response =
        refusal(StatusCode::UNAUTHORIZED, "unauthorized", "expected Authorization: Bearer TOKEN with a team's token");
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// 413: an upload over the limit of `max` bytes.
pub(crate) fn too_large(max: u64) -> Refusal {
    Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", over_the_limit(max))
}

/// `found an upload over the limit of 10 MB (10000000 bytes)`.
#[must_use]
pub fn over_the_limit(max: u64) -> String {
    format!("found an upload over the limit of {} ({max} bytes)", crate::units::size(max))
}

/// 429: a limit of the phase reached, resetting at `reset` (`now` is the server's clock).
pub(crate) fn limited(message: String, reset: Option<i64>, now: i64) -> Refusal {
    let retry = reset.map(|reset| u64::try_from(reset - now).unwrap_or(0));
    Refusal { reset, retry, ..Refusal::new(StatusCode::TOO_MANY_REQUESTS, "limited", message) }
}
