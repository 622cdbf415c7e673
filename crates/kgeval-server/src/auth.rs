//! Who sends a request: a team's bearer token (the API), its cookie or the form's token field
//! (the pages) — each checked against the stored hashes — and its request rate. Both front
//! doors sign teams in here.

use std::sync::Arc;

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;

use crate::app::App;
use crate::pages::COOKIE;
use crate::refusal::{internal, unauthorized, Refusal};
use crate::store::Team;

/// The bearer token of a request, if any.
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned()).filter(|t| !t.is_empty())
}

/// The team of a request's bearer token, if any, without taking from its request rate:
/// `Ok(None)` without a token, 401 for a wrong one.
pub async fn bearer_team(app: &Arc<App>, headers: &HeaderMap) -> Result<Option<Team>, Response> {
    let Some(token) = bearer(headers) else { return Ok(None) };
    match app.db(move |store| store.authenticate(&token)).await {
        Ok(Some(team)) => Ok(Some(team)),
        Ok(None) => Err(unauthorized()),
        Err(e) => Err(internal(&e)),
    }
}

/// The team of a request's token: `Ok(None)` without a token, 401 for a wrong one, 429 (with
/// `Retry-After`) for a team over its request rate.
pub async fn team(app: &Arc<App>, headers: &HeaderMap) -> Result<Option<Team>, Response> {
    let team = bearer_team(app, headers).await?;
    if let Some(team) = &team {
        take_rate(app, team).map_err(|refused| refused.json())?;
    }
    Ok(team)
}

/// The token of the request's cookie (the pages' sign-in), if any.
pub fn cookie_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('=').map(str::to_owned))
        .filter(|t| !t.is_empty())
}

/// The team a token belongs to (`None` for a wrong one or a database error, logged).
pub async fn authenticate(app: &Arc<App>, token: String) -> Option<Team> {
    match app.db(move |store| store.authenticate(&token)).await {
        Ok(team) => team,
        Err(e) => {
            tracing::error!("{e}");
            None
        }
    }
}

/// Who is looking: the bearer token's team (taking from its rate), else the cookie's; a wrong
/// token or a stale cookie is no one.
pub async fn viewer(app: &Arc<App>, headers: &HeaderMap) -> Option<Team> {
    match team(app, headers).await {
        Ok(Some(team)) => return Some(team),
        Ok(None) => {}
        Err(_) => return None,
    }
    authenticate(app, cookie_token(headers)?).await
}

/// Who sends a request, as [`viewer`] finds it, its request taken from its team's rate
/// whichever way it signed in: `Ok(None)` for no one, 401 for a wrong bearer token, 429 over
/// the rate.
///
/// # Errors
/// The answer refusing the request.
pub async fn counted_viewer(app: &Arc<App>, headers: &HeaderMap) -> Result<Option<Team>, Response> {
    if let Some(team) = team(app, headers).await? {
        return Ok(Some(team));
    }
    let Some(token) = cookie_token(headers) else { return Ok(None) };
    let Some(team) = authenticate(app, token).await else { return Ok(None) };
    take_rate(app, &team).map_err(|refused| refused.json())?;
    Ok(Some(team))
}

/// Takes one request of `team` from its rate (whichever way it signed in: a bearer token, the
/// pages' cookie or the upload form's token field).
///
/// # Errors
/// 429 `rate_limited`, with the seconds until the next request is allowed.
pub fn take_rate(app: &App, team: &Team) -> Result<(), Refusal> {
    app.rate.take(team.id, std::time::Instant::now()).map_err(|wait| {
        let message = format!(
            "found more than {} requests a minute from this team, expected at most that many",
            app.campaign.requests_per_minute
        );
        Refusal { retry: Some(wait), ..Refusal::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message) }
    })
}
