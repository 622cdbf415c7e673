//! `POST /api/tasks/{task}/submissions`: authenticate, find the task open in the current
//! phase, check the team's limits, read the body (at most the campaign's `max_upload`),
//! score it on the bounded pool under the time limit, store the bytes (fsynced) and then the
//! row (one transaction), and only then answer.
//!
//! | answer | when | counted |
//! |---|---|---|
//! | 201 `scored` (or `received` in a `feedback = "none"` phase) | scored | yes |
//! | 422 `invalid` + the reader's `upload:LINE:COL: …` line | malformed or unfitting | no |
//! | 500 `failed` | the scorer failed or ran out of time | no |
//! | 401 / 404 / 413 / 429 (+ `reset`, `Retry-After`) | refused before scoring; nothing stored | — |

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use kgeval::Input;
use serde_json::json;

use crate::api::{internal, refusal, submission_json, team, unauthorized};
use crate::app::{chain, score, App, UPLOAD_NAME};
use crate::store::{NewSubmission, Score, Submission};
use crate::{clock, Error};

/// The longest system name.
pub const MAX_SYSTEM_NAME: usize = 100;

/// The handler.
pub async fn submit(
    State(app): State<Arc<App>>,
    Path(task_name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let max = app.campaign.max_upload;
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > max) {
        return too_large(max);
    }
    let checked = match check(&app, &task_name, &query, &headers).await {
        Ok(checked) => checked,
        Err(refused) => {
            // Read (and drop) the body before refusing, so that a client that sends it all
            // before reading the answer gets the answer, not a reset connection.
            let _ = to_bytes(body, usize::try_from(max).unwrap_or(usize::MAX)).await;
            return refused;
        }
    };
    let Checked { team, task, phase, system, now, _guard } = checked;
    let Ok(bytes) = to_bytes(body, usize::try_from(max).unwrap_or(usize::MAX)).await else {
        return too_large(max);
    };
    let scorer = app.scorer(&task.name);
    let outcome = score_on_pool(&app, &task, &system, bytes.to_vec(), &scorer).await;
    let (status, error, score) = match outcome {
        Scored::Yes(score) => ("scored", None, Some(score)),
        Scored::Invalid(message) => ("invalid", Some(message), None),
        Scored::Failed(message) => ("failed", Some(message), None),
    };
    let stored =
        store(&app, bytes.to_vec(), team.id, &task.name, &phase.name, &system, status, error, score, now).await;
    let submission = match stored {
        Ok(submission) => submission,
        Err(e) => return internal(&e),
    };
    let body = submission_json(&submission, phase.feedback);
    let code = match status {
        "scored" => StatusCode::CREATED,
        "invalid" => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let mut response = (code, Json(body)).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/api/submissions/{}", submission.id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// An upload that passed the checks before its body is read; `_guard` holds the team's lock
/// on the task until the upload is stored.
struct Checked {
    team: crate::store::Team,
    task: kgeval::campaign::ServedTask,
    phase: crate::config::Phase,
    system: String,
    now: i64,
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

/// The token (401), the task open in the current phase (404), the system's name (400) and
/// the team's limits (429).
async fn check(
    app: &Arc<App>,
    task_name: &str,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
) -> Result<Checked, Response> {
    let Some(team) = team(app, headers).await? else { return Err(unauthorized()) };
    let now = clock::now();
    let phase = app.campaign.phase_at(now).cloned();
    let Some(task) = app.campaign.served.task(task_name).cloned() else {
        return Err(refusal(StatusCode::NOT_FOUND, "not_found", "found no such task"));
    };
    let Some(phase) = phase.filter(|p| task.open_in(&p.name)) else {
        return Err(refusal(StatusCode::NOT_FOUND, "not_found", "found the task closed: no phase of it is open now"));
    };
    let system = query.get("system").map_or_else(|| team.name.clone(), |s| s.trim().to_owned());
    if system.is_empty() || system.chars().count() > MAX_SYSTEM_NAME || system.chars().any(char::is_control) {
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            "bad_request",
            &format!("found a system name that is empty, has control characters or is longer than {MAX_SYSTEM_NAME}"),
        ));
    }
    // One upload of a team to a task at a time: the limit check and the insert see each other.
    let guard = app.team_lock(team.id, &task.name).lock_owned().await;
    let (team_id, task_key, phase_key) = (team.id, task.name.clone(), phase.name.clone());
    let day = clock::day_start(now);
    let (today, total) = app
        .db(move |store| {
            Ok((
                store.counted_since(team_id, &task_key, &phase_key, day)?,
                store.counted_since(team_id, &task_key, &phase_key, i64::MIN)?,
            ))
        })
        .await
        .map_err(|e| internal(&e))?;
    if let Some(limit) = phase.limit.total.filter(|&l| total >= l) {
        return Err(limited(
            &format!("found {total} counted uploads in phase {}, the limit is {limit}", phase.name),
            None,
        ));
    }
    if let Some(limit) = phase.limit.per_day.filter(|&l| today >= l) {
        let reset = (day + clock::DAY).min(phase.until);
        return Err(limited(
            &format!("found {today} counted uploads today (UTC), the limit is {limit} a day"),
            Some(reset),
        ));
    }
    Ok(Checked { team, task, phase, system, now, _guard: guard })
}

/// What scoring an upload gave.
enum Scored {
    Yes(Score),
    Invalid(String),
    Failed(String),
}

/// Scores on a blocking thread once a permit of the pool is free, under the time limit.
async fn score_on_pool(
    app: &Arc<App>,
    task: &kgeval::campaign::ServedTask,
    system: &str,
    bytes: Vec<u8>,
    scorer: &str,
) -> Scored {
    let Ok(permit) = Arc::clone(&app.pool).acquire_owned().await else {
        return Scored::Failed("the scoring pool is closed".to_owned());
    };
    let (task, system, scorer) = (task.clone(), system.to_owned(), scorer.to_owned());
    let handle = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        score(&task, &system, Input::from_bytes(UPLOAD_NAME, bytes), &scorer)
    });
    let limit = app.campaign.time_limit;
    match tokio::time::timeout(Duration::from_secs_f64(limit), handle).await {
        Err(_) => Scored::Failed(format!("scoring took longer than {limit} s")),
        Ok(Err(e)) => Scored::Failed(format!("the scorer stopped: {e}")),
        Ok(Ok(Ok(score))) => Scored::Yes(score),
        Ok(Ok(Err(e))) => {
            let line = chain(&e);
            // The upload's own problem names it (`upload:3:7: …`, `run upload: …`); anything
            // else (a gold file gone) is the server's.
            if let Some(located) = located(&e) {
                Scored::Invalid(located)
            } else if line.contains(UPLOAD_NAME) || matches!(e, kgeval::Error::Invalid(_)) {
                Scored::Invalid(line)
            } else {
                tracing::error!("scoring failed: {line}");
                Scored::Failed("the scorer failed; the organisers have the log".to_owned())
            }
        }
    }
}

/// The reader's own line when the error (or a cause) is one located in the upload
/// (`upload:LINE:COL: …`), without the context around it.
fn located(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let prefix = format!("{UPLOAD_NAME}:");
    while let Some(e) = cause {
        let text = e.to_string();
        if text.starts_with(&prefix) {
            return Some(text);
        }
        cause = e.source();
    }
    None
}

/// Stores the bytes durably, then the row (and its score) in one transaction.
#[allow(clippy::too_many_arguments)]
async fn store(
    app: &Arc<App>,
    bytes: Vec<u8>,
    team: i64,
    task: &str,
    phase: &str,
    system: &str,
    status: &'static str,
    error: Option<String>,
    score: Option<Score>,
    now: i64,
) -> Result<Submission, Error> {
    let app2 = Arc::clone(app);
    let (task, phase, system) = (task.to_owned(), phase.to_owned(), system.to_owned());
    app.db(move |store| {
        let sha256 = app2.blobs.put(&bytes)?;
        let new = NewSubmission {
            team,
            task: &task,
            phase: &phase,
            system: &system,
            sha256: &sha256,
            size: bytes.len() as u64,
            status,
            error: error.as_deref(),
            created: now,
        };
        let id = store.insert(&new, score.as_ref())?;
        store.submission(id, &app2.scorer(&task))?.ok_or_else(|| Error::Database(format!("submission {id} vanished")))
    })
    .await
}

fn too_large(max: u64) -> Response {
    refusal(StatusCode::PAYLOAD_TOO_LARGE, "too_large", &format!("found an upload over the limit of {max} bytes"))
}

fn limited(message: &str, reset: Option<i64>) -> Response {
    let body = json!({
        "status": "limited",
        "error": message,
        "reset": reset.map(clock::format),
    });
    let mut response = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
    if let Some(seconds) = reset.map(|r| (r - clock::now()).max(0)) {
        if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
    }
    response
}
