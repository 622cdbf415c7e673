//! Group commit: the rows of uploads that finish while another commit is under way are
//! inserted together, in one transaction, so 32 concurrent uploads wait for a few fsyncs of
//! the journal instead of 32 in a row. Each upload is still answered only after the commit
//! that holds its row (and its bytes were fsynced before it was queued).

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

use crate::app::App;
use crate::store::{NewSubmission, Score};
use crate::Error;

/// An upload's row before it is stored: its bytes already are (by their SHA-256).
#[derive(Debug, Clone)]
pub struct Row {
    /// The team's id.
    pub team: i64,
    /// The task.
    pub task: String,
    /// The phase.
    pub phase: String,
    /// The system's name.
    pub system: String,
    /// The stored bytes' SHA-256.
    pub sha256: String,
    /// Their length.
    pub size: u64,
    /// `scored`, `invalid` or `failed`.
    pub status: &'static str,
    /// The error line of an invalid or failed upload.
    pub error: Option<String>,
    /// Its score, when scored.
    pub score: Option<Score>,
    /// Why its scoring was stopped (then it counts against the limits though `failed`).
    pub stopped: Option<crate::worker::Stop>,
    /// Whether its error line tells something of the gold's content.
    pub concerns_gold: bool,
    /// When it arrived (Unix seconds).
    pub created: i64,
}

/// The rows waiting for the next commit, each with whom to tell its id.
pub type Queue = Mutex<Vec<(Row, oneshot::Sender<Result<i64, String>>)>>;

/// Queues `row` and commits it with the rows queued meanwhile; its id once committed.
///
/// # Errors
/// [`Error::Database`] when the transaction holding it failed (then none of its rows is
/// stored); [`Error::Io`] when the database thread stopped.
pub async fn commit(app: &Arc<App>, row: Row) -> Result<i64, Error> {
    let (tell, told) = oneshot::channel();
    app.commits.lock().unwrap_or_else(PoisonError::into_inner).push((row, tell));
    // Whoever gets the database first commits every row queued by then (this one may have been
    // taken by an earlier call: its batch is then empty). The queue is taken while the
    // database is held, so batches commit in queue order.
    let shared = Arc::clone(app);
    app.db(move |store| {
        let batch = std::mem::take(&mut *shared.commits.lock().unwrap_or_else(PoisonError::into_inner));
        if batch.is_empty() {
            return Ok(());
        }
        let rows: Vec<(NewSubmission<'_>, Option<&Score>)> = batch
            .iter()
            .map(|(row, _)| {
                let new = NewSubmission {
                    team: row.team,
                    task: &row.task,
                    phase: &row.phase,
                    system: &row.system,
                    sha256: &row.sha256,
                    size: row.size,
                    status: row.status,
                    error: row.error.as_deref(),
                    stopped: row.stopped.map(crate::worker::Stop::as_str),
                    concerns_gold: row.concerns_gold,
                    created: row.created,
                };
                (new, row.score.as_ref())
            })
            .collect();
        let ids = store.insert_all(&rows).map_err(|e| e.to_string());
        if ids.is_ok() {
            shared.generation.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        for (i, (_, tell)) in batch.into_iter().enumerate() {
            let id = ids.as_ref().map(|ids| ids.get(i).copied().unwrap_or_default()).map_err(Clone::clone);
            let _ = tell.send(id);
        }
        Ok(())
    })
    .await?;
    told.await.map_err(|_| Error::Io("a commit thread stopped".to_owned()))?.map_err(Error::Database)
}
