//! The HTTP API: its routes and handlers. Answers are JSON (`{"status": …, "error": …}` for
//! refusals, [`crate::refusal`]), the leaderboard also CSV. An upload is checked, scored and
//! stored by [`crate::submit`], as the pages' form is.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use crate::access::{board, visible_submission, Board};
use crate::app::App;
use crate::auth::team;
use crate::board::csv;
use crate::config::Feedback;
use crate::refusal::{internal, refusal, too_large, unauthorized, Refusal};
use crate::store::Submission;
use crate::submit::{accept, check, field, form_file, Checked};
use crate::{clock, multipart};

/// The API's routes (the layers are added once, by [`crate::routes::router`]).
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/tasks/{task}/submissions", post(upload))
        .route("/api/submissions/{id}", get(submission))
        .route(
            "/api/tasks/{task}/leaderboard",
            get(|State(app), Path(task), Query(query), headers| leaderboard_answer(app, task, query, headers, false)),
        )
        .route(
            "/api/tasks/{task}/leaderboard.csv",
            get(|State(app), Path(task), Query(query), headers| leaderboard_answer(app, task, query, headers, true)),
        )
}

async fn health(State(app): State<Arc<App>>) -> Response {
    let now = app.clock.now();
    let phase = app.campaign.phase_at(now).map(|p| p.name.clone());
    Json(json!({
        "status": "ok",
        "title": app.campaign.served.title,
        "phase": phase,
        "now": clock::format(now),
        "rehearsal": app.clock.is_rehearsal(),
    }))
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
    if let Some(error) = submission.visible_error(feedback) {
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

/// The API's handler: the token, the task and the limits are checked before the body is read.
pub async fn upload(
    State(app): State<Arc<App>>,
    Path(task_name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let max = app.campaign.max_upload;
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > max) {
        return too_large(max).json();
    }
    let checked = match team(&app, &headers).await {
        Ok(Some(team)) => check(&app, team, &task_name, query.get("system").map(String::as_str)).await,
        Ok(None) => Err(Refusal::new(StatusCode::UNAUTHORIZED, "unauthorized", "no token")),
        Err(response) => return drain_then(body, max, response).await,
    };
    let checked = match checked {
        Ok(checked) => checked,
        Err(refused) => return drain_then(body, max, refused.json()).await,
    };
    // The body and the form's part headers: the router's body limit allows the upload limit
    // plus 64 KiB; the upload itself (the parts' bytes) is held to the limit in `accept`.
    let limit = usize::try_from(max).unwrap_or(usize::MAX).saturating_add(64 << 10);
    let Ok(body) = to_bytes(body, limit).await else {
        return too_large(max).json();
    };
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let bytes = match multipart::boundary(content_type) {
        Some(boundary) => {
            // One part per pair, and an optional `name` part naming the system.
            let parts = match multipart::parse(&body, &boundary) {
                Ok(parts) => parts,
                Err(e) => return Refusal::new(StatusCode::BAD_REQUEST, "bad_request", e.to_string()).json(),
            };
            drop(body); // the parts hold their bytes
            let mut checked = checked;
            let named = field(&parts, "name");
            let file = checked.rename(named.as_deref()).and_then(|()| form_file(checked.task(), parts, &["name"]));
            match file {
                Ok(file) => return answer(&app, checked, file).await,
                Err(refused) => return refused.json(),
            }
        }
        None if body.len() as u64 > max => return too_large(max).json(),
        // The body itself, never copied: the buffer the blob writer and the worker's pipe
        // share (one copy each of 32 waiting uploads).
        None => body,
    };
    answer(&app, checked, bytes).await
}

/// Stores and scores an upload, and answers as the API does (201 + `Location`, 422, 500, or
/// the refusal).
async fn answer(app: &Arc<App>, checked: Checked, bytes: Bytes) -> Response {
    match accept(app, checked, bytes).await {
        Ok(accepted) => {
            let body = submission_json(&accepted.submission, accepted.feedback);
            let mut response = (accepted.code, Json(body)).into_response();
            if let Ok(location) = HeaderValue::from_str(&format!("/api/submissions/{}", accepted.submission.id)) {
                response.headers_mut().insert(header::LOCATION, location);
            }
            response
        }
        Err(refused) => refused.json(),
    }
}

/// Reads and drops the body before refusing, so that a client that sends it all before
/// reading the answer gets the answer, not a reset connection. Frame by frame: nothing of a
/// refused body is held (512 clients without a token sending `max_upload` bytes each would
/// otherwise hold 512 × `max_upload`), and past `max` bytes the reading stops.
async fn drain_then(mut body: Body, max: u64, response: Response) -> Response {
    use http_body_util::BodyExt as _;
    let mut read = 0_u64;
    while let Some(Ok(frame)) = body.frame().await {
        read += frame.data_ref().map_or(0, |data| data.len() as u64);
        if read > max {
            break;
        }
    }
    response
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
        "primary": app.campaign.served.task(&task).map(kgeval::campaign::ServedTask::primary_name),
        "scorer": app.scorer(&task),
        "significance": board.significance,
        "rows": board.rows,
    }))
    .into_response()
}
