//! The server's state: the campaign, the database, the blob folder, each task's scorer
//! version, the scored baselines, the worker processes uploads are scored in, and the last
//! leaderboard of each task and phase.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use std::io::Read as _;
use std::time::Duration;

use kgeval::campaign::ServedTask;
use sha2::{Digest as _, Sha256};

use crate::blobs::Blobs;
use crate::board::Row;
use crate::clock::Clock;
use crate::config::Campaign;
use crate::rate::RateLimit;
use crate::store::{Score, Store};
use crate::token::hex;
use crate::worker::{Launch, Outcome, Request, Workers};
use crate::Error;

/// The name an upload has in error messages (`upload:3:7: …`).
pub const UPLOAD_NAME: &str = "upload";

/// Everything a request handler reads.
pub struct App {
    /// The campaign.
    pub campaign: Campaign,
    /// The database (one connection; used on blocking threads only).
    pub store: Mutex<Store>,
    /// The submissions' bytes.
    pub blobs: Blobs,
    /// Each task's scorer version.
    pub scorers: HashMap<String, String>,
    /// The baselines, scored at start.
    pub baselines: Vec<ScoredBaseline>,
    /// The scoring workers: every upload is scored in one of these processes.
    pub workers: Arc<Workers>,
    /// The clock every check of a phase, a limit or a date reads (a rehearsal's with `--now`).
    pub clock: Clock,
    /// One lock per (team, task): a team's uploads to a task are checked against the limits,
    /// scored and stored one after the other, so a limit is exact under concurrency.
    pub team_locks: Mutex<TeamLocks>,
    /// The last leaderboard computed for each (task, phase), with what it was computed from.
    pub boards: Mutex<HashMap<(String, String), CachedBoard>>,
    /// Bumped after every submission this server stores: a leaderboard computed at the same
    /// count is still current (`--rescore` is the only other writer: it runs with the server
    /// stopped, or is followed by a restart, since the rows it adds — of this server's scorer
    /// version too, for a `failed` upload scored again — would not be seen before).
    pub generation: AtomicU64,
    /// Each team's request rate.
    pub rate: RateLimit,
    /// The registration attempts (`/register`), every client together.
    pub registrations: RateLimit,
    /// The rows of uploads waiting for the next group commit.
    pub commits: crate::commit::Queue,
}

/// What a leaderboard is a function of: the task, the phase, the scorer version and the
/// counted submissions (their scores under a scorer version never change: rows are only
/// added; the baselines are scored once at start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardKey {
    /// The task.
    pub task: String,
    /// The phase.
    pub phase: String,
    /// The scorer version.
    pub scorer: String,
    /// The counted submissions' ids, in leaderboard order.
    pub counted: Vec<i64>,
}

/// A leaderboard kept with its key and the [`App::generation`] it was computed at: its
/// marked rows and how the marks were decided.
pub type CachedBoard = (BoardKey, u64, Arc<(Vec<Row>, String)>);

/// The upload lock of each (team id, task).
pub type TeamLocks = HashMap<(i64, String), Arc<tokio::sync::Mutex<()>>>;

/// A baseline with its score.
#[derive(Debug, Clone)]
pub struct ScoredBaseline {
    /// Its task.
    pub task: String,
    /// Its name.
    pub name: String,
    /// Its score.
    pub score: Score,
}

/// Where the database goes by default: beside the campaign file, `STEM.sqlite`.
#[must_use]
pub fn default_db(campaign: &Path) -> PathBuf {
    let stem = campaign.file_stem().map_or_else(|| "campaign".into(), |s| s.to_string_lossy().into_owned());
    campaign.with_file_name(format!("{stem}.sqlite"))
}

/// The blob folder of a database: `DB.blobs` beside it.
#[must_use]
pub fn blob_dir(db: &Path) -> PathBuf {
    let mut name = db.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(".blobs");
    db.with_file_name(name)
}

impl App {
    /// Opens the database, computes every scorer version, starts the scoring workers (`launch`
    /// starts one; each reads every task's gold and checks every primary metric) and scores
    /// the baselines on them; `clock` is the time it runs on.
    ///
    /// # Errors
    /// [`Error::Campaign`] for a gold that cannot be read, a primary metric the task has no
    /// headline of, a baseline that does not score; [`Error::Database`], [`Error::Io`] (a
    /// worker cannot start).
    pub async fn open(campaign: Campaign, db: &Path, launch: Launch, clock: Clock) -> Result<App, Error> {
        let store = Store::open(db)?;
        let blobs = Blobs::open(&blob_dir(db))?;
        let mut scorers = HashMap::new();
        for task in &campaign.served.tasks {
            scorers.insert(task.name.clone(), scorer_version(task)?);
        }
        // The workers read (and parse) the gold, once each: the server itself never does.
        let workers = Workers::start(launch, campaign.workers, campaign.memory_limit, scorers.clone()).await?;
        let limit = Duration::from_secs_f64(campaign.time_limit);
        let mut baselines = Vec::new();
        for baseline in &campaign.baselines {
            let Some(task) = campaign.served.task(&baseline.task) else { continue };
            let (name, bytes) = baseline.bytes(task)?;
            let request = Request { task: task.name.clone(), system: baseline.name.clone(), name, organiser: true };
            let score = match workers.score(&request, &bytes, limit).await {
                Outcome::Scored { score } => score,
                Outcome::Invalid { message, .. } | Outcome::Failed { message } | Outcome::Stopped { message, .. } => {
                    return Err(Error::Campaign(format!(
                        "baseline {} of task {}: {message}",
                        baseline.name, task.name
                    )));
                }
            };
            baselines.push(ScoredBaseline { task: task.name.clone(), name: baseline.name.clone(), score });
        }
        Ok(App {
            store: Mutex::new(store),
            blobs,
            scorers,
            baselines,
            workers,
            clock,
            team_locks: Mutex::new(HashMap::new()),
            boards: Mutex::new(HashMap::new()),
            generation: AtomicU64::new(0),
            rate: RateLimit::new(campaign.requests_per_minute),
            registrations: RateLimit::new(crate::pages::REGISTRATIONS_PER_MINUTE),
            commits: Mutex::new(Vec::new()),
            campaign,
        })
    }

    /// Records every baseline's score (its row under the current scorer version, unless the
    /// latest one holds the same score), for `--rescore`'s diff.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn record_baselines(&self, now: i64) -> Result<(), Error> {
        let mut store = self.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for baseline in &self.baselines {
            store.record_baseline(&baseline.task, &baseline.name, &baseline.score, now)?;
        }
        Ok(())
    }

    /// The scorer version of `task`.
    #[must_use]
    pub fn scorer(&self, task: &str) -> String {
        self.scorers.get(task).cloned().unwrap_or_default()
    }

    /// The lock of `team`'s uploads to `task`.
    #[must_use]
    pub fn team_lock(&self, team: i64, task: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.team_locks.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(locks.entry((team, task.to_owned())).or_default())
    }

    /// The lock of `team`'s file downloads: one at a time, so a team's slow readers cannot hold
    /// many copies of a large file in the server (kept in the upload locks' map under a key no
    /// task has: task names hold no `/`).
    #[must_use]
    pub fn download_lock(&self, team: i64) -> Arc<tokio::sync::Mutex<()>> {
        self.team_lock(team, "/download")
    }

    /// The leaderboard kept for `task` and `phase` under `scorer` if no submission was stored
    /// since it was computed.
    #[must_use]
    pub fn current_board(&self, task: &str, phase: &str, scorer: &str) -> Option<(Vec<Row>, String)> {
        let boards = self.boards.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (key, generation, board) = boards.get(&(task.to_owned(), phase.to_owned()))?;
        (key.scorer == scorer && *generation == self.generation.load(Ordering::SeqCst))
            .then(|| (board.0.clone(), board.1.clone()))
    }

    /// The leaderboard kept for `key`, if the last one computed for its task and phase had
    /// this key; it is then current at `generation`.
    #[must_use]
    pub fn cached_board(&self, key: &BoardKey, generation: u64) -> Option<(Vec<Row>, String)> {
        let mut boards = self.boards.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (kept, at, board) = boards.get_mut(&(key.task.clone(), key.phase.clone()))?;
        if kept != key {
            return None;
        }
        *at = (*at).max(generation);
        Some((board.0.clone(), board.1.clone()))
    }

    /// Keeps the leaderboard `rows` (marked as `significance` says) of `key`, computed at
    /// `generation`, replacing the one of the same task and phase.
    pub fn keep_board(&self, key: BoardKey, generation: u64, rows: &[Row], significance: &str) {
        let mut boards = self.boards.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let slot = (key.task.clone(), key.phase.clone());
        boards.insert(slot, (key, generation, Arc::new((rows.to_vec(), significance.to_owned()))));
    }

    /// Runs `f` on the database, on a blocking thread.
    ///
    /// # Errors
    /// `f`'s error; [`Error::Io`] when the blocking thread stopped.
    pub async fn db<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce(&mut Store) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        let app = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let mut store = app.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            f(&mut store)
        })
        .await
        .map_err(|e| Error::Io(format!("a database thread stopped: {e}")))?
    }
}

/// kgeval's version and a hash of the task's options and every gold byte it reads:
/// `kgeval 0.0.0+0123456789abcdef`.
///
/// # Errors
/// [`Error::Campaign`] when a gold file cannot be read.
pub fn scorer_version(task: &ServedTask) -> Result<String, Error> {
    let mut hasher = Sha256::new();
    hasher.update(format!("{:?}\n", task.task).as_bytes());
    for path in task.task.input_paths() {
        let cannot = |e: &dyn std::fmt::Display| {
            Error::Campaign(format!("task {}: {}: cannot read: {e}", task.name, path.display()))
        };
        // Streamed: a large gold is never held whole for its hash.
        let mut file = std::fs::File::open(&path).map_err(|e| cannot(&e))?;
        let length = file.metadata().map_err(|e| cannot(&e))?.len();
        hasher.update(length.to_le_bytes());
        let mut buffer = vec![0_u8; 1 << 20];
        let mut read = 0_u64;
        loop {
            let n = file.read(&mut buffer).map_err(|e| cannot(&e))?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
            read += n as u64;
        }
        if read != length {
            return Err(cannot(&"the file changed while it was read"));
        }
    }
    let digest = hex(&hasher.finalize());
    Ok(format!("kgeval {}+{}", env!("CARGO_PKG_VERSION"), &digest[..16]))
}

/// An error and its causes on one line.
#[must_use]
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        line.push_str(": ");
        line.push_str(&cause.to_string());
        source = cause.source();
    }
    line
}
