//! An upload, whichever front door it came through (the API's `POST
//! /api/tasks/{task}/submissions` or the pages' form): find the task open in the current
//! phase, check the team's limits, read the body (at most the campaign's `max_upload`; the
//! file itself, or `multipart/form-data` with one part per pair and an optional `name`),
//! score it in a worker process under the time and memory limits while its bytes are stored (fsynced),
//! then commit the row (one transaction), and only then answer.
//!
//! | answer | when | counted |
//! |---|---|---|
//! | 201 `scored` (or `received` in a `feedback = "none"` phase) | scored | yes |
//! | 422 `invalid` + the reader's `upload:LINE:COL: …` line (`PAIR:LINE:COL: …` for a pair's part) | malformed or unfitting | no |
//! | 422 `invalid`, nothing stored | a form without a file, or with parts for a task of one file | no |
//! | 422 `failed` + `out of time: …` / `out of memory: …` | its worker was stopped: the time or memory limit | yes |
//! | 500 `failed` | the scorer failed | no |
//! | 401 / 404 / 413 / 429 (+ `reset`, `Retry-After`) | refused before scoring; nothing stored | — |

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::StatusCode;

use crate::app::{App, UPLOAD_NAME};
use crate::commit::Row;
use crate::config::Feedback;
use crate::refusal::{limited, too_large, Refusal};
use crate::store::Submission;
use crate::worker::{Outcome, Request};
use crate::{clock, multipart, Error};

/// The longest system name.
pub const MAX_SYSTEM_NAME: usize = 100;

/// An upload stored: the submission, what its phase lets the team see, and the HTTP code
/// (201 scored, 422 invalid, 500 failed).
pub struct Accepted {
    /// The stored submission.
    pub submission: Submission,
    /// Its phase's feedback.
    pub feedback: Feedback,
    /// 201, 422 or 500.
    pub code: StatusCode,
}

/// Scores `bytes` as checked while storing them (fsynced, outside the database's lock), then
/// commits the row, and only then returns. The bytes are shared, never copied: 32 concurrent
/// 5 MB uploads hold one copy each. A crash between the two leaves a blob no row names, of an
/// upload that was never acknowledged.
///
/// # Errors
/// 413 over `max_upload`; 500 when the bytes or the row cannot be stored.
pub async fn accept(app: &Arc<App>, checked: Checked, bytes: Bytes) -> Result<Accepted, Refusal> {
    // On a task of its own: a client that hangs up does not stop the scoring or the storing
    // (a runaway it started is recorded and counted all the same).
    let app = Arc::clone(app);
    tokio::spawn(async move { accept_now(&app, checked, bytes).await })
        .await
        .unwrap_or_else(|e| Err(Refusal::internal(&Error::Io(format!("an upload's task stopped: {e}")))))
}

/// [`accept`] on the calling task.
async fn accept_now(app: &Arc<App>, checked: Checked, bytes: Bytes) -> Result<Accepted, Refusal> {
    if bytes.len() as u64 > app.campaign.max_upload {
        return Err(too_large(app.campaign.max_upload));
    }
    let Checked { team, task, phase, system, now, _guard } = checked;
    let (blobs, shared) = (app.blobs.clone(), bytes.clone());
    let put = async move {
        tokio::task::spawn_blocking(move || blobs.put(&shared))
            .await
            .map_err(|e| Error::Io(format!("a blob thread stopped: {e}")))?
    };
    let (put, outcome) = tokio::join!(put, score_in_worker(app, &task, &system, &bytes));
    let sha256 = put.map_err(|e| Refusal::internal(&e))?;
    let mut concerns_gold = false;
    let (status, error, score, stopped) = match outcome {
        Outcome::Scored { score } => ("scored", None, Some(score), None),
        Outcome::Invalid { message, concerns_gold: gold } => {
            concerns_gold = gold;
            ("invalid", Some(message), None, None)
        }
        Outcome::Failed { message } => ("failed", Some(message), None, None),
        Outcome::Stopped { stop, message } => ("failed", Some(message), None, Some(stop)),
    };
    let size = bytes.len() as u64;
    let row = Row {
        team: team.id,
        task: task.name,
        phase: phase.name,
        system,
        sha256,
        size,
        status,
        error,
        score,
        stopped,
        concerns_gold,
        created: now,
    };
    let submission = store(app, row).await.map_err(|e| Refusal::internal(&e))?;
    let code = match (status, stopped) {
        ("scored", _) => StatusCode::CREATED,
        // Stopped for its time or memory: the upload's doing, not the server's.
        ("invalid", _) | (_, Some(_)) => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    Ok(Accepted { submission, feedback: phase.feedback, code })
}

/// An upload that passed the checks before its body is read; `_guard` holds the team's lock
/// on the task until the upload is stored.
pub struct Checked {
    team: crate::store::Team,
    task: kgeval::campaign::ServedTask,
    phase: crate::config::Phase,
    system: String,
    now: i64,
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

/// Checks an upload of `team` to `task_name` before its bytes are read: the task open in the
/// current phase (404), the system's name (400; default: the team's name) and the team's
/// limits (429). Holds the team's lock on the task from here until the upload is stored.
///
/// # Errors
/// The refusal.
pub async fn check(
    app: &Arc<App>,
    team: crate::store::Team,
    task_name: &str,
    system: Option<&str>,
) -> Result<Checked, Refusal> {
    let now = app.clock.now();
    let phase = app.campaign.phase_at(now).cloned();
    let Some(task) = app.campaign.served.task(task_name).cloned() else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "not_found", "found no such task"));
    };
    let Some(phase) = phase.filter(|p| task.open_in(&p.name)) else {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "found the task closed: no phase of it is open now",
        ));
    };
    let system = system_name(&team, system)?;
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
        .map_err(|e| Refusal::internal(&e))?;
    if let Some(limit) = phase.limit.total.filter(|&l| total >= l) {
        return Err(limited(
            format!("found {total} counted uploads in phase {}, the limit is {limit}", phase.name),
            None,
            now,
        ));
    }
    if let Some(limit) = phase.limit.per_day.filter(|&l| today >= l) {
        let reset = (day + clock::DAY).min(phase.until);
        return Err(limited(
            format!("found {today} counted uploads today (UTC), the limit is {limit} a day"),
            Some(reset),
            now,
        ));
    }
    Ok(Checked { team, task, phase, system, now, _guard: guard })
}

/// The system's name of an upload: `given` trimmed, else the team's name.
fn system_name(team: &crate::store::Team, given: Option<&str>) -> Result<String, Refusal> {
    let system = given.map(str::trim).filter(|s| !s.is_empty()).map_or_else(|| team.name.clone(), str::to_owned);
    if system.chars().count() > MAX_SYSTEM_NAME || system.chars().any(char::is_control) {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("found a system name with control characters or longer than {MAX_SYSTEM_NAME}"),
        ));
    }
    Ok(system)
}

impl Checked {
    /// The task the upload goes to.
    #[must_use]
    pub fn task(&self) -> &kgeval::campaign::ServedTask {
        &self.task
    }

    /// Names the system `system` when given (a form's field read with the body).
    ///
    /// # Errors
    /// 400 for a name with control characters or over [`MAX_SYSTEM_NAME`] characters.
    pub fn rename(&mut self, system: Option<&str>) -> Result<(), Refusal> {
        if system.is_some_and(|s| !s.trim().is_empty()) {
            self.system = system_name(&self.team, system)?;
        }
        Ok(())
    }
}

/// The text of a form's field `name` (trimmed; `None` when missing or blank).
#[must_use]
pub fn field(parts: &[multipart::Part], name: &str) -> Option<String> {
    parts
        .iter()
        .find(|p| p.name == name)
        .map(|p| String::from_utf8_lossy(&p.body).trim().to_owned())
        .filter(|t| !t.is_empty())
}

/// The upload a form carries besides its `fields`: a part named `file` (one file, whatever
/// the task), else the parts named by the task's pairs, stored as the facade bundles them;
/// parts that do not fit the pairs (a part of no pair, a pair missing or twice) are stored as
/// they came, for the scorer to record them as invalid with the reason. Empty parts (a
/// browser's file input left empty) are left out.
///
/// # Errors
/// 422 `invalid` (nothing stored, nothing counted): no file; several parts for a task whose
/// upload is one file.
pub fn form_file(
    task: &kgeval::campaign::ServedTask,
    parts: Vec<multipart::Part>,
    fields: &[&str],
) -> Result<Bytes, Refusal> {
    let invalid = |message: String| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", message);
    let files: Vec<multipart::Part> =
        parts.into_iter().filter(|p| !fields.contains(&p.name.as_str()) && !p.body.is_empty()).collect();
    if let Some(file) = files.iter().position(|p| p.name == "file") {
        if files.len() == 1 {
            return Ok(files.into_iter().nth(file).map(|p| Bytes::from(p.body)).unwrap_or_default());
        }
    }
    let pairs = task.pair_names();
    match files.as_slice() {
        [] => {
            let expected =
                if pairs.is_empty() { "a file".to_owned() } else { format!("one per pair: {}", pairs.join(", ")) };
            Err(invalid(format!("found no file (or only empty ones), expected {expected}")))
        }
        [_] if pairs.is_empty() => Ok(files.into_iter().next().map(|p| Bytes::from(p.body)).unwrap_or_default()),
        _ => {
            let named: Vec<(String, Arc<[u8]>)> = files.into_iter().map(|p| (p.name, Arc::from(p.body))).collect();
            match task.bundle(&named) {
                Ok(bytes) => Ok(Bytes::from_owner(bytes)),
                // Parts that do not fit the pairs are an invalid upload like any other: stored
                // as they came, the scorer finds them invalid (with this line) and they are
                // recorded, not counted.
                Err(_) if !pairs.is_empty() => {
                    let parts: Vec<(&str, &[u8])> = named.iter().map(|(n, b)| (n.as_str(), &b[..])).collect();
                    Ok(Bytes::from(kgeval::campaign::encode_parts(&parts)))
                }
                Err(e) => Err(invalid(e.to_string())),
            }
        }
    }
}

/// Scores `bytes` in a worker process once one is free, under the time limit.
async fn score_in_worker(app: &Arc<App>, task: &kgeval::campaign::ServedTask, system: &str, bytes: &[u8]) -> Outcome {
    let request =
        Request { task: task.name.clone(), system: system.to_owned(), name: UPLOAD_NAME.to_owned(), organiser: false };
    app.workers.score(&request, bytes, Duration::from_secs_f64(app.campaign.time_limit)).await
}

/// Commits the row of an upload whose bytes are stored (and its score) — in one transaction
/// with the rows of the uploads that finished meanwhile — and reads it back.
async fn store(app: &Arc<App>, row: Row) -> Result<Submission, Error> {
    let scorer = app.scorer(&row.task);
    let id = crate::commit::commit(app, row).await?;
    app.db(move |store| {
        store.submission(id, &scorer)?.ok_or_else(|| Error::Database(format!("submission {id} vanished")))
    })
    .await
}
