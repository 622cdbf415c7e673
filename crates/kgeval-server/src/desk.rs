//! The organiser's desk in the API, and what the pages' desk and participant's view share:
//! every submission under a filter (`GET /api/submissions?task=&phase=&team=`, JSON and CSV;
//! organisers read every team's, a team its own, as its phases' feedback allows), a
//! submission's bytes as uploaded (`GET /api/submissions/{id}/file`, a multi-pair upload's
//! part with `?part=PAIR`), the teams (`GET /api/teams`, organisers) and the uploads a team
//! has left.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use kgeval::csv_field;
use serde_json::{json, Value};

use crate::access::{feedback_for, visible_submission};
use crate::api::submission_json;
use crate::app::App;
use crate::auth::counted_viewer;
use crate::config::Feedback;
use crate::refusal::{internal, unauthorized, Refusal};
use crate::store::{Listing, Submission, Team, TeamOverview};
use crate::{clock, Error};

/// The desk's API routes (the layers are added once, by [`crate::routes::router`]).
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/submissions", get(|s, q, h| submissions_answer(s, q, h, false)))
        .route("/api/submissions.csv", get(|s, q, h| submissions_answer(s, q, h, true)))
        .route("/api/submissions/{id}/file", get(file))
        .route("/api/submissions/{id}/items.csv", get(items_csv))
        .route("/api/teams", get(teams))
}

/// The submissions `viewer` asked for with `query` (`task`, `phase`, `team`: each a name,
/// empty or absent for any), newest first, each with what `viewer` may see of it. A team reads
/// its own only (asking for another team's is 403); an organiser every team's.
///
/// # Errors
/// 404 for a task, phase or team that does not exist; 403; 500.
pub async fn listing(
    app: &Arc<App>,
    viewer: &Team,
    query: &HashMap<String, String>,
) -> Result<Vec<(Submission, Feedback)>, Refusal> {
    let asked = |key: &str| query.get(key).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let not_found = |message: String| Refusal::new(StatusCode::NOT_FOUND, "not_found", message);
    let task = asked("task");
    if let Some(task) = task.as_deref().filter(|t| app.campaign.served.task(t).is_none()) {
        return Err(not_found(format!("found no task named {task:?}")));
    }
    let phase = asked("phase");
    if let Some(phase) = phase.as_deref().filter(|p| app.campaign.phase(p).is_none()) {
        return Err(not_found(format!("found no phase named {phase:?}")));
    }
    let team = match asked("team") {
        Some(name) if !viewer.organiser => {
            if crate::team_name::key(&name) != crate::team_name::key(&viewer.name) {
                return Err(Refusal::new(
                    StatusCode::FORBIDDEN,
                    "forbidden",
                    "found another team's name, expected yours: a team reads its own submissions",
                ));
            }
            Some(viewer.id)
        }
        Some(name) => {
            let key = name.clone();
            match app.db(move |store| store.team_id(&key)).await.map_err(|e| Refusal::internal(&e))? {
                Some(id) => Some(id),
                None => return Err(not_found(format!("found no team named {name:?}"))),
            }
        }
        None if viewer.organiser => None,
        None => Some(viewer.id),
    };
    let tasks: Vec<(String, String)> = app
        .campaign
        .served
        .tasks
        .iter()
        .filter(|t| task.as_deref().is_none_or(|name| t.name == name))
        .map(|t| (t.name.clone(), app.scorer(&t.name)))
        .collect();
    let filter = Listing { task, phase, team };
    let mut rows = app
        .db(move |store| {
            let mut rows = Vec::new();
            for (task, scorer) in &tasks {
                rows.extend(store.listing(task, &filter, scorer)?);
            }
            Ok(rows)
        })
        .await
        .map_err(|e| Refusal::internal(&e))?;
    rows.sort_by_key(|s| std::cmp::Reverse(s.id));
    rows.truncate(crate::store::LISTING_LIMIT as usize);
    Ok(rows
        .into_iter()
        .map(|s| {
            let feedback = feedback_for(app, viewer, &s);
            (s, feedback)
        })
        .collect())
}

/// A row of a listing as JSON: [`submission_json`] without per-item values, with the team
/// and the primary metric's value (when the feedback shows scores).
#[must_use]
pub fn listing_json(submission: &Submission, feedback: Feedback) -> Value {
    let mut row = submission_json(submission, feedback);
    if let Value::Object(map) = &mut row {
        map.remove("items");
        map.insert("team".into(), json!(submission.team_name));
        if let Some(score) = submission.score.as_ref().filter(|_| feedback != Feedback::None) {
            map.insert("value".into(), json!(score.value));
        }
        if let Some(stopped) = &submission.stopped {
            map.insert("stopped".into(), json!(stopped));
        }
    }
    row
}

/// The columns of `/api/submissions.csv`.
pub const CSV_COLUMNS: &str = "id,received,team,task,phase,system,status,primary,value,size,sha256,error";

/// A listing as CSV ([`CSV_COLUMNS`]; every text field defused as kgeval's CSVs are).
#[must_use]
pub fn listing_csv(rows: &[(Submission, Feedback)]) -> String {
    let mut out = format!("{CSV_COLUMNS}\n");
    for (submission, feedback) in rows {
        let row = listing_json(submission, *feedback);
        let text = |key: &str| csv_field(row[key].as_str().unwrap_or_default());
        let value = row["value"].as_f64().map(|v| v.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{value},{},{},{}\n",
            submission.id,
            text("received"),
            text("team"),
            text("task"),
            text("phase"),
            text("system"),
            text("status"),
            text("primary"),
            submission.size,
            text("sha256"),
            text("error"),
        ));
    }
    out
}

async fn submissions_answer(
    State(app): State<Arc<App>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    as_csv: bool,
) -> Response {
    let viewer = match counted_viewer(&app, &headers).await {
        Ok(Some(viewer)) => viewer,
        Ok(None) => return unauthorized(),
        Err(refused) => return refused,
    };
    let rows = match listing(&app, &viewer, &query).await {
        Ok(rows) => rows,
        Err(refused) => return refused.json(),
    };
    if as_csv {
        return ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], listing_csv(&rows)).into_response();
    }
    let rows: Vec<Value> = rows.iter().map(|(s, feedback)| listing_json(s, *feedback)).collect();
    Json(json!({ "submissions": rows })).into_response()
}

/// `GET /api/submissions/{id}/file[?part=PAIR]`: the bytes as uploaded, for their team or an
/// organiser (404 for anyone else, as for no such submission).
async fn file(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let viewer = match counted_viewer(&app, &headers).await {
        Ok(Some(viewer)) => viewer,
        Ok(None) => return unauthorized(),
        Err(refused) => return refused,
    };
    let submission = match visible_submission(&app, &viewer, &id).await {
        Ok(Some((submission, _))) => submission,
        Ok(None) => {
            return Refusal::new(StatusCode::NOT_FOUND, "not_found", "found no submission of yours with this id").json()
        }
        Err(e) => return internal(&e),
    };
    // One download of a team's at a time: the bytes are held until the client has read them.
    let Ok(permit) = app.download_lock(viewer.id).try_lock_owned() else {
        let message = "found a download of yours in progress, expected one at a time";
        return Refusal { retry: Some(1), ..Refusal::new(StatusCode::TOO_MANY_REQUESTS, "limited", message) }.json();
    };
    let sha256 = submission.sha256.clone();
    let stored = app.clone();
    let bytes = match tokio::task::spawn_blocking(move || stored.blobs.get(&sha256)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => return internal(&e),
        Err(e) => return internal(&Error::Io(format!("a reading thread stopped: {e}"))),
    };
    let (name, bytes) = match query.get("part") {
        None => (format!("submission-{}", submission.id), bytes),
        Some(part) => {
            let found = kgeval::campaign::decode_parts(&bytes)
                .and_then(|parts| parts.into_iter().find(|(name, _)| name == part));
            let Some((name, bytes)) = found else {
                let message = format!("found no part named {part:?} in submission {}", submission.id);
                return Refusal::new(StatusCode::NOT_FOUND, "not_found", message).json();
            };
            (format!("submission-{}-{}", submission.id, file_name(&name)), bytes)
        }
    };
    // The lock is released when the body is dropped: sent, or its client gone.
    let body = HeldFile { rest: axum::body::Bytes::from(bytes), _held: permit };
    let mut response = axum::body::Body::new(body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/octet-stream"));
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The size of the chunks a download is sent in: the connection asks for the next one only as
/// its client reads, so the download lock is held until the last one left.
const DOWNLOAD_CHUNK: usize = 64 << 10;

/// A downloaded file's bytes sent chunk by chunk, holding its team's download lock until the
/// body is dropped (all sent, or the client gone).
struct HeldFile {
    rest: axum::body::Bytes,
    _held: tokio::sync::OwnedMutexGuard<()>,
}

impl http_body::Body for HeldFile {
    type Data = axum::body::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        if self.rest.is_empty() {
            return std::task::Poll::Ready(None);
        }
        let length = self.rest.len().min(DOWNLOAD_CHUNK);
        std::task::Poll::Ready(Some(Ok(http_body::Frame::data(self.rest.split_to(length)))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.rest.len() as u64)
    }
}

/// `name` with every character but ASCII letters, digits, `.`, `_` and `-` made `_`: a
/// download's file name.
fn file_name(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' }).collect()
}

/// An item and its value of each metric of an [`item_table`] (`None`: no value).
pub type ItemRow = (String, Vec<Option<f64>>);

/// The labels of `task`'s items (a QALD question's text by its id), as the workers read them
/// from the gold; empty for a task without.
#[must_use]
pub fn labels_of<'a>(app: &'a App, task: &str) -> HashMap<&'a str, &'a str> {
    app.workers
        .labels
        .get(task)
        .map_or_else(HashMap::new, |labels| labels.iter().map(|(item, text)| (item.as_str(), text.as_str())).collect())
}

/// A score's per-item values (`[[item, metric, value], …]`) as a table: the metrics in the
/// order they first appear, and per item (in the order items first appear) its value of each.
#[must_use]
pub fn item_table(items: &str) -> (Vec<String>, Vec<ItemRow>) {
    let mut metrics: Vec<String> = Vec::new();
    let mut rows: Vec<ItemRow> = Vec::new();
    let mut row_of: HashMap<String, usize> = HashMap::new();
    for (item, metric, value) in crate::board::parse_items(items) {
        let column = match metrics.iter().position(|m| *m == metric) {
            Some(column) => column,
            None => {
                metrics.push(metric);
                metrics.len() - 1
            }
        };
        let row = *row_of.entry(item.clone()).or_insert_with(|| {
            rows.push((item, Vec::new()));
            rows.len() - 1
        });
        let values = &mut rows[row].1;
        if values.len() <= column {
            values.resize(column + 1, None);
        }
        values[column] = Some(value);
    }
    for (_, values) in &mut rows {
        values.resize(metrics.len(), None);
    }
    (metrics, rows)
}

/// `GET /api/submissions/{id}/items.csv`: the per-item values, an item a row (`item,METRIC,…`),
/// for its team when the phase's feedback shows them, and for organisers.
async fn items_csv(State(app): State<Arc<App>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let viewer = match counted_viewer(&app, &headers).await {
        Ok(Some(viewer)) => viewer,
        Ok(None) => return unauthorized(),
        Err(refused) => return refused,
    };
    let submission = match visible_submission(&app, &viewer, &id).await {
        Ok(Some((submission, Feedback::Items))) => submission,
        Ok(Some(_)) => {
            let message = "found a phase whose feedback shows no per-item values";
            return Refusal::new(StatusCode::FORBIDDEN, "forbidden", message).json();
        }
        Ok(None) => {
            return Refusal::new(StatusCode::NOT_FOUND, "not_found", "found no submission of yours with this id").json()
        }
        Err(e) => return internal(&e),
    };
    let Some(score) = &submission.score else {
        return Refusal::new(StatusCode::NOT_FOUND, "not_found", "found no score of this submission").json();
    };
    let (metrics, rows) = item_table(&score.items);
    let labels = labels_of(&app, &submission.task);
    let mut out = String::from(if labels.is_empty() { "item" } else { "item,question" });
    for metric in &metrics {
        out.push(',');
        out.push_str(&csv_field(metric));
    }
    out.push('\n');
    for (item, values) in rows {
        out.push_str(&csv_field(&item));
        if !labels.is_empty() {
            out.push(',');
            out.push_str(&csv_field(labels.get(item.as_str()).copied().unwrap_or_default()));
        }
        for value in values {
            out.push(',');
            out.push_str(&value.map(|v| v.to_string()).unwrap_or_default());
        }
        out.push('\n');
    }
    let mut response = ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], out).into_response();
    let disposition = format!("attachment; filename=\"submission-{}-items.csv\"", submission.id);
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

/// A team of the desk's list as JSON.
#[must_use]
pub fn team_json(team: &TeamOverview) -> Value {
    json!({
        "name": team.name,
        "organiser": team.organiser,
        "added": clock::format(team.created),
        "revoked": team.revoked.map(clock::format),
        "submissions": team.submissions,
        "last_upload": team.last_upload.map(clock::format),
    })
}

/// `GET /api/teams`: every team, for organisers.
async fn teams(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let viewer = match counted_viewer(&app, &headers).await {
        Ok(Some(viewer)) => viewer,
        Ok(None) => return unauthorized(),
        Err(refused) => return refused,
    };
    if !viewer.organiser {
        return Refusal::new(StatusCode::FORBIDDEN, "forbidden", "found a team's token, expected an organiser's")
            .json();
    }
    match app.db(|store| store.teams_overview()).await {
        Ok(teams) => Json(json!({ "teams": teams.iter().map(team_json).collect::<Vec<_>>() })).into_response(),
        Err(e) => internal(&e),
    }
}

/// What a team may still upload to a task in the phase open now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadsLeft {
    /// The task.
    pub task: String,
    /// The open phase.
    pub phase: String,
    /// Uploads left today (UTC), when the phase has a daily limit.
    pub today: Option<u32>,
    /// Uploads left in the phase, when it has a total limit.
    pub total: Option<u32>,
}

/// What `team` may still upload to each task open now (counted as the limits count).
///
/// # Errors
/// [`Error::Database`].
pub async fn uploads_left(app: &Arc<App>, team: i64) -> Result<Vec<UploadsLeft>, Error> {
    let now = app.clock.now();
    let Some(phase) = app.campaign.phase_at(now).cloned() else { return Ok(Vec::new()) };
    let tasks: Vec<String> =
        app.campaign.served.tasks.iter().filter(|t| t.open_in(&phase.name)).map(|t| t.name.clone()).collect();
    let day = clock::day_start(now);
    app.db(move |store| {
        let mut left = Vec::new();
        for task in tasks {
            let today = phase
                .limit
                .per_day
                .map(|limit| store.counted_since(team, &task, &phase.name, day).map(|n| limit.saturating_sub(n)))
                .transpose()?;
            let total = phase
                .limit
                .total
                .map(|limit| store.counted_since(team, &task, &phase.name, i64::MIN).map(|n| limit.saturating_sub(n)))
                .transpose()?;
            left.push(UploadsLeft { task, phase: phase.name.clone(), today, total });
        }
        Ok(left)
    })
    .await
}
