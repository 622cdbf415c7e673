//! The HTTP API: routes, authentication, and every handler but the upload's
//! ([`crate::submit`]). Answers are JSON (`{"status": …, "error": …}` for refusals), the
//! leaderboard also CSV.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::app::{App, BoardKey};
use crate::board::{csv, leaderboard, mark};
use crate::config::{Feedback, Phase};
use crate::store::{Submission, Team};
use crate::submit::Refusal;
use crate::{clock, Error};

/// The routes, with the body limit (the largest upload, plus room for a form's fields), a
/// request time limit (the scoring limit plus a margin), the documented bodies of the
/// refusals those layers and axum's extractors answer with ([`crate::error_bodies`]), the
/// security headers and request tracing.
pub fn router(app: Arc<App>) -> Router {
    let body_limit = usize::try_from(app.campaign.max_upload).unwrap_or(usize::MAX).saturating_add(64 << 10);
    let timeout = Duration::from_secs_f64(app.campaign.time_limit + 30.0);
    Router::new()
        .route("/api/health", get(health))
        .route("/api/tasks/{task}/submissions", post(crate::submit::submit))
        .route("/api/submissions/{id}", get(submission))
        .route(
            "/api/tasks/{task}/leaderboard",
            get(|State(app), Path(task), Query(query), headers| leaderboard_answer(app, task, query, headers, false)),
        )
        .route(
            "/api/tasks/{task}/leaderboard.csv",
            get(|State(app), Path(task), Query(query), headers| leaderboard_answer(app, task, query, headers, true)),
        )
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

/// A JSON refusal: `{"status": STATUS, "error": MESSAGE}`.
pub fn refusal(code: StatusCode, status: &str, message: &str) -> Response {
    (code, Json(json!({ "status": status, "error": message }))).into_response()
}

/// A server-side failure as a 500 (the message is logged, not sent).
pub fn internal(error: &Error) -> Response {
    tracing::error!("{error}");
    refusal(StatusCode::INTERNAL_SERVER_ERROR, "error", "the server failed; the organisers have the log")
}

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

/// 401 with its challenge.
pub fn unauthorized() -> Response {
    let mut response =
        refusal(StatusCode::UNAUTHORIZED, "unauthorized", "expected Authorization: Bearer TOKEN with a team's token");
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

async fn health(State(app): State<Arc<App>>) -> Response {
    let now = clock::now();
    let phase = app.campaign.phase_at(now).map(|p| p.name.clone());
    Json(json!({ "status": "ok", "title": app.campaign.served.title, "phase": phase, "now": clock::format(now) }))
        .into_response()
}

/// What a team may see of one of its submissions, as its phase's feedback allows.
pub fn submission_json(submission: &Submission, feedback: Feedback) -> serde_json::Value {
    let status = match submission.status.as_str() {
        "scored" if feedback == Feedback::None => "received",
        other => other,
    };
    let mut out = json!({
        "id": submission.id,
        "status": status,
        "task": submission.task,
        "phase": submission.phase,
        "system": submission.system,
        "sha256": submission.sha256,
        "size": submission.size,
        "received": clock::format(submission.created),
    });
    if let Some(error) = &submission.error {
        out["error"] = json!(error);
    }
    if let Some(score) = submission.score.as_ref().filter(|_| feedback != Feedback::None) {
        out["scorer"] = json!(score.scorer);
        out["primary"] = json!(score.metric);
        out["scores"] = serde_json::from_str(&score.headlines).unwrap_or_default();
        if feedback == Feedback::Items {
            out["items"] = serde_json::from_str(&score.items).unwrap_or_default();
        }
    }
    out
}

async fn submission(State(app): State<Arc<App>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let team = match team(&app, &headers).await {
        Ok(Some(team)) => team,
        Ok(None) => return unauthorized(),
        Err(response) => return response,
    };
    match visible_submission(&app, &team, &id).await {
        Ok(Some((s, feedback))) => Json(submission_json(&s, feedback)).into_response(),
        Ok(None) => refusal(StatusCode::NOT_FOUND, "not_found", "found no submission of yours with this id"),
        Err(e) => internal(&e),
    }
}

/// The submission `id` (as written in the URL) with its score under its task's scorer and
/// what `viewer` may see of it, if it is `viewer`'s (or `viewer` is an organiser); `None` for
/// another team's, a missing one or a malformed id alike.
///
/// # Errors
/// [`Error::Database`].
pub async fn visible_submission(
    app: &Arc<App>,
    viewer: &Team,
    id: &str,
) -> Result<Option<(Submission, Feedback)>, Error> {
    let Ok(id) = id.parse::<i64>() else { return Ok(None) };
    let app2 = Arc::clone(app);
    let found = app
        .db(move |store| {
            let Some(head) = store.submission(id, "")? else { return Ok(None) };
            store.submission(id, &app2.scorer(&head.task))
        })
        .await?;
    Ok(found.filter(|s| s.team == viewer.id || viewer.organiser).map(|s| {
        let feedback = feedback_for(app, viewer, &s);
        (s, feedback)
    }))
}

/// What `viewer` may see of `submission`: everything for an organiser, else what its phase's
/// feedback allows.
#[must_use]
pub fn feedback_for(app: &App, viewer: &Team, submission: &Submission) -> Feedback {
    if viewer.organiser {
        Feedback::Items
    } else {
        app.campaign.phase(&submission.phase).map_or(Feedback::None, |p| p.feedback)
    }
}

/// A task's leaderboard in one phase, marked with the significance letters and tiers.
pub struct Board {
    /// The phase.
    pub phase: Phase,
    /// The rows, best first.
    pub rows: Vec<crate::board::Row>,
    /// How the significance marks were decided, or why no test ran.
    pub significance: String,
}

/// The leaderboard of `task` in the phase `query` names (else the task's phase open now, else
/// its last one that started), after the visibility check (`viewer`: the request's team).
///
/// # Errors
/// 404 (no such task or phase), 403 (hidden, and `viewer` is no organiser), 500.
pub async fn board(app: &Arc<App>, task: &str, phase: Option<&str>, viewer: Option<&Team>) -> Result<Board, Refusal> {
    let Some(served) = app.campaign.served.task(task) else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "not_found", "found no such task"));
    };
    let now = clock::now();
    // Asked for by name, else the task's phase open now, else its last one that started.
    let phase = match phase {
        Some(name) => app.campaign.phase(name),
        None => app.campaign.phases.iter().rev().find(|p| p.from <= now && served.open_in(&p.name)),
    };
    let Some(phase) = phase.filter(|p| served.open_in(&p.name)).cloned() else {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "found no phase of this task with a leaderboard (none has started)",
        ));
    };
    if !phase.public_at(now) && !viewer.is_some_and(|t| t.organiser) {
        return Err(Refusal::new(
            StatusCode::FORBIDDEN,
            "hidden",
            format!("the leaderboard of phase {} is hidden", phase.name),
        ));
    }
    // Nothing stored since the last leaderboard of this task and phase: it is current.
    // Otherwise, which submissions count (a cheap query, no per-item values): the marked rows
    // of that set are computed once and kept (`App::boards`).
    let generation = app.generation.load(std::sync::atomic::Ordering::SeqCst);
    if let Some((rows, significance)) = app.current_board(task, &phase.name, &app.scorer(task)) {
        return Ok(Board { phase, rows, significance });
    }
    let (task_name, phase_name, scorer) = (task.to_owned(), phase.name.clone(), app.scorer(task));
    let heads = app
        .db(move |store| store.scored_heads(&task_name, &phase_name, &scorer))
        .await
        .map_err(|e| Refusal::internal(&e))?;
    let counted: Vec<i64> = leaderboard(&heads, &[], phase.counts).iter().filter_map(|r| r.submission).collect();
    let key = BoardKey { task: task.to_owned(), phase: phase.name.clone(), scorer: app.scorer(task), counted };
    if let Some((rows, significance)) = app.cached_board(&key, generation) {
        return Ok(Board { phase, rows, significance });
    }
    let (ids, scorer) = (key.counted.clone(), key.scorer.clone());
    let scored = app
        .db(move |store| {
            let mut full = Vec::with_capacity(ids.len());
            for id in ids {
                full.extend(store.submission(id, &scorer)?);
            }
            Ok(full)
        })
        .await
        .map_err(|e| Refusal::internal(&e))?;
    let baselines: Vec<_> = app.baselines.iter().filter(|b| b.task == task).collect();
    let mut rows = leaderboard(&scored, &baselines, phase.counts);
    let significance = mark(served, &mut rows);
    app.keep_board(key, generation, &rows, &significance);
    Ok(Board { phase, rows, significance })
}

/// The leaderboard a request asks for: the token's team decides whether a hidden phase shows.
async fn requested_board(
    app: &Arc<App>,
    task: &str,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
) -> Result<Board, Response> {
    let viewer = team(app, headers).await?;
    board(app, task, query.get("phase").map(String::as_str), viewer.as_ref()).await.map_err(|r| r.json())
}

/// `GET /api/tasks/{task}/leaderboard` (JSON) and `….csv` (`csv`: the rows as CSV).
async fn leaderboard_answer(
    app: Arc<App>,
    task: String,
    query: HashMap<String, String>,
    headers: HeaderMap,
    as_csv: bool,
) -> Response {
    let board = match requested_board(&app, &task, &query, &headers).await {
        Ok(board) => board,
        Err(response) => return response,
    };
    if as_csv {
        return ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], csv(&board.rows)).into_response();
    }
    Json(json!({
        "task": task,
        "phase": board.phase.name,
        "counts": board.phase.counts,
        "primary": app.campaign.served.task(&task).map(|t| t.primary.clone()),
        "scorer": app.scorer(&task),
        "significance": board.significance,
        "rows": board.rows,
    }))
    .into_response()
}
