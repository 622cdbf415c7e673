//! `/register`: with `[serve] registration = "invite"`, a team registers itself with a name and
//! the campaign's invite code; the page shows its token once and signs the browser in. At most
//! [`REGISTRATIONS_PER_MINUTE`] attempts a minute, every client together; a closed
//! registration is 404.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Form;
use serde_json::json;
use sha2::{Digest as _, Sha256};

use super::{cross_site, forged, page, refused, set_cookie, viewer};
use crate::app::App;
use crate::config::Registration;
use crate::refusal::Refusal;
use crate::token::same_hash;
use crate::Error;

/// Registration attempts a minute, every client together (a burst of as many).
pub const REGISTRATIONS_PER_MINUTE: u32 = 10;

/// The invite code, when registration is open.
fn invite_code(app: &App) -> Option<&str> {
    match &app.campaign.registration {
        Registration::Invite { code } => Some(code),
        Registration::Closed => None,
    }
}

/// The 404 page of a closed registration.
fn closed(app: &App, viewer: Option<&crate::store::Team>) -> Response {
    let refusal = Refusal::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "found registration closed: the organisers add the teams and give each its token",
    );
    refused(app, viewer, &refusal, "/login")
}

/// `GET /register`.
pub(super) async fn register_page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let viewer = viewer(&app, &headers).await;
    if invite_code(&app).is_none() {
        return closed(&app, viewer.as_ref());
    }
    page(&app, viewer.as_ref(), StatusCode::OK, "register.html", json!({}))
}

/// `POST /register` (`name`, `code`): 201 with the token, or the form again with the reason
/// (400 a name refused, 403 a wrong code, 429 too many attempts).
pub(super) async fn register(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    if cross_site(&headers) {
        return forged(&app);
    }
    let Some(code) = invite_code(&app).map(str::to_owned) else { return closed(&app, None) };
    let name = form.get("name").map(|n| n.trim().to_owned()).unwrap_or_default();
    let again = |status: StatusCode, message: &str| {
        page(&app, None, status, "register.html", json!({ "message": message, "name": name }))
    };
    if let Err(wait) = app.registrations.take(0, std::time::Instant::now()) {
        let message = format!("found too many registrations in the last minute: try again in {wait} seconds");
        return again(StatusCode::TOO_MANY_REQUESTS, &message);
    }
    let given = form.get("code").map(|c| c.trim()).unwrap_or_default();
    if !same_hash(&Sha256::digest(given.as_bytes()), &Sha256::digest(code.as_bytes())) {
        return again(StatusCode::FORBIDDEN, "found a wrong invite code");
    }
    let now = app.clock.now();
    let added = {
        let name = name.clone();
        app.db(move |store| store.add_team(&name, false, now)).await
    };
    match added {
        Ok(token) => {
            tracing::info!("team {name:?} registered");
            let team = crate::auth::authenticate(&app, token.clone()).await;
            let context = json!({ "token": token, "name": name });
            let mut response = page(&app, team.as_ref(), StatusCode::CREATED, "register.html", context);
            set_cookie(&mut response, Some(&token));
            response
        }
        Err(Error::Usage(message)) => again(StatusCode::BAD_REQUEST, &message),
        Err(e) => refused(&app, None, &Refusal::internal(&e), "/register"),
    }
}
