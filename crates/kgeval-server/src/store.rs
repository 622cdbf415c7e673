//! The database: one SQLite file (bundled SQLite, WAL journal, `synchronous = FULL`, so a
//! committed transaction survives a crash or a power cut), schema versions applied in order
//! (`PRAGMA user_version`), every statement with bound parameters. Rows are only added: a
//! submission and its first score row go in in one transaction; a later scorer adds score
//! rows beside the old ones.
//!
//! A submission's `status` column records its upload: `scored`, `invalid` or `failed`. What
//! counts on a leaderboard is a valid submission (`scored` or `failed`: it passed validation)
//! with a score row of the scorer version asked for, so a `failed` one that `--rescore` gave
//! a score row counts from then on, without its row being changed; it is read back as
//! `scored` under that scorer (its error kept). The limits count the `status` column (and a
//! `failed` upload's `stopped` reason: a scoring stopped for its time or memory counts): as
//! counted at upload time. The baselines' scores are recorded too (`baseline_scores`, one
//! row per scorer version and score), for `--rescore`'s diff.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension as _};

use crate::Error;

mod baselines;
mod desk;
mod teams;

pub use desk::{Listing, TeamOverview, LISTING_LIMIT};

/// The schema, one migration per version, applied in order.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE teams (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_sha256 BLOB NOT NULL UNIQUE,
    organiser INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY,
    team INTEGER NOT NULL REFERENCES teams(id),
    task TEXT NOT NULL,
    phase TEXT NOT NULL,
    system TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('scored', 'invalid', 'failed')),
    error TEXT,
    created INTEGER NOT NULL
);
CREATE INDEX submissions_by_team ON submissions(team, task, phase, status, created);
CREATE INDEX submissions_by_task ON submissions(task, phase, status);
CREATE TABLE scores (
    id INTEGER PRIMARY KEY,
    submission INTEGER NOT NULL REFERENCES submissions(id),
    scorer TEXT NOT NULL,
    metric TEXT NOT NULL,
    value REAL NOT NULL,
    higher_is_better INTEGER NOT NULL,
    headlines TEXT NOT NULL,
    items TEXT NOT NULL,
    created INTEGER NOT NULL,
    UNIQUE (submission, scorer)
);
",
    "
CREATE TABLE baseline_scores (
    id INTEGER PRIMARY KEY,
    task TEXT NOT NULL,
    name TEXT NOT NULL,
    scorer TEXT NOT NULL,
    metric TEXT NOT NULL,
    value REAL NOT NULL,
    higher_is_better INTEGER NOT NULL,
    headlines TEXT NOT NULL,
    items TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE INDEX baseline_scores_by_name ON baseline_scores(task, name, scorer);
",
    // The key a team's name is unique by (`teams::NAME_KEY_VERSION`: filled in Rust for the
    // teams already there). Not a UNIQUE index: look-alike names added before are kept.
    "
ALTER TABLE teams ADD COLUMN name_key TEXT;
CREATE INDEX teams_by_name_key ON teams(name_key);
",
    // Why a failed upload's scoring was stopped (it counts against the limits), and whether
    // an invalid upload's line tells something of the gold.
    "
ALTER TABLE submissions ADD COLUMN stopped TEXT CHECK (stopped IN ('time', 'memory', 'crash'));
ALTER TABLE submissions ADD COLUMN concerns_gold INTEGER NOT NULL DEFAULT 0;
",
    // When a team's token was revoked (its token refused from then on; a new one restores it).
    "
ALTER TABLE teams ADD COLUMN revoked INTEGER;
",
];

/// An open database.
pub struct Store {
    connection: Connection,
}

/// A team (or an organiser) as the database holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    /// Its row id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Whether it may see hidden leaderboards and every submission.
    pub organiser: bool,
}

/// What a scoring produced, stored with the submission.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Score {
    /// The scorer version (kgeval's version + the hash of the task's options and gold).
    pub scorer: String,
    /// The primary metric's name.
    pub metric: String,
    /// Its value.
    pub value: f64,
    /// Whether higher is better.
    pub higher_is_better: bool,
    /// Every headline, a JSON object `{metric: value}`.
    pub headlines: String,
    /// Every per-item value, a JSON array of `[item, metric, value]`.
    pub items: String,
}

/// A new submission.
#[derive(Debug, Clone)]
pub struct NewSubmission<'a> {
    /// The team's id.
    pub team: i64,
    /// The task's name.
    pub task: &'a str,
    /// The phase's name.
    pub phase: &'a str,
    /// The system's name.
    pub system: &'a str,
    /// The bytes' SHA-256 (hex), stored before this row.
    pub sha256: &'a str,
    /// Their length.
    pub size: u64,
    /// `scored`, `invalid` or `failed`.
    pub status: &'a str,
    /// The error line of an invalid or failed upload.
    pub error: Option<&'a str>,
    /// Why a failed upload's scoring was stopped (`time`, `memory`, `crash`): it counts
    /// against the limits.
    pub stopped: Option<&'a str>,
    /// Whether the error line tells something of the gold's content.
    pub concerns_gold: bool,
    /// When it arrived (Unix seconds).
    pub created: i64,
}

/// A stored submission with its score under one scorer version, if any.
#[derive(Debug, Clone)]
pub struct Submission {
    /// Its id.
    pub id: i64,
    /// The team's id.
    pub team: i64,
    /// The team's name.
    pub team_name: String,
    /// The task.
    pub task: String,
    /// The phase.
    pub phase: String,
    /// The system's name.
    pub system: String,
    /// The bytes' SHA-256.
    pub sha256: String,
    /// Their length.
    pub size: u64,
    /// `scored`, `invalid` or `failed`: as uploaded, but `scored` for a `failed` one with a
    /// score row of the scorer version asked for (given by `--rescore`).
    pub status: String,
    /// The error line, if any (for a `failed` one scored later, why its upload failed).
    pub error: Option<String>,
    /// When it arrived (Unix seconds).
    pub created: i64,
    /// Its score under the scorer asked for.
    pub score: Option<Score>,
    /// Whether its error line tells something of the gold's content (shown to its team only
    /// in a phase with feedback).
    pub concerns_gold: bool,
    /// Why its scoring was stopped at upload (`time`, `memory`, `crash`): it counted against
    /// the limits.
    pub stopped: Option<String>,
}

impl Submission {
    /// The error line its team may see in a phase of `feedback`: in a phase without feedback,
    /// a line that tells something of the gold is replaced by a generic one.
    #[must_use]
    pub fn visible_error(&self, feedback: crate::config::Feedback) -> Option<&str> {
        match &self.error {
            Some(_) if self.concerns_gold && feedback == crate::config::Feedback::None => {
                Some(crate::worker::UNFIT_FOR_BLIND_PHASE)
            }
            error => error.as_deref(),
        }
    }
}

/// A submission's columns and its score row's (`c`, joined on the scorer asked for): the
/// status `scored` for a `failed` upload with a score row.
const SUBMISSION_COLUMNS: &str = "s.id, s.team, t.name, s.task, s.phase, s.system, s.sha256, s.size, \
     CASE WHEN s.status = 'failed' AND c.scorer IS NOT NULL THEN 'scored' ELSE s.status END, s.error, \
     s.created, c.scorer, c.metric, c.value, c.higher_is_better, c.headlines, c.items, s.concerns_gold, s.stopped";

/// [`SUBMISSION_COLUMNS`] without the headlines and per-item values (empty strings): enough
/// to tell which submissions a leaderboard counts.
const HEAD_COLUMNS: &str = "s.id, s.team, t.name, s.task, s.phase, s.system, s.sha256, s.size, \
     CASE WHEN s.status = 'failed' AND c.scorer IS NOT NULL THEN 'scored' ELSE s.status END, s.error, \
     s.created, c.scorer, c.metric, c.value, c.higher_is_better, '', '', s.concerns_gold, s.stopped";

/// The statuses of a valid upload: scored at upload, or failed there (time limit, scorer
/// error) and perhaps scored by `--rescore`. An `invalid` one never has a score row.
const VALID: &str = "s.status IN ('scored', 'failed')";

fn submission_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Submission> {
    let scorer: Option<String> = row.get(11)?;
    let score = match scorer {
        Some(scorer) => Some(Score {
            scorer,
            metric: row.get(12)?,
            value: row.get(13)?,
            higher_is_better: row.get(14)?,
            headlines: row.get(15)?,
            items: row.get(16)?,
        }),
        None => None,
    };
    Ok(Submission {
        id: row.get(0)?,
        team: row.get(1)?,
        team_name: row.get(2)?,
        task: row.get(3)?,
        phase: row.get(4)?,
        system: row.get(5)?,
        sha256: row.get(6)?,
        size: row.get(7)?,
        status: row.get(8)?,
        error: row.get(9)?,
        created: row.get(10)?,
        score,
        concerns_gold: row.get(17)?,
        stopped: row.get(18)?,
    })
}

impl Store {
    /// Opens (or creates) the database at `path` and brings its schema up to date.
    ///
    /// # Errors
    /// [`Error::Database`] when it cannot be opened, is of a newer schema, or a migration fails.
    pub fn open(path: &Path) -> Result<Store, Error> {
        let mut connection = Connection::open(path).map_err(|e| db(path, &e))?;
        connection
            .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")
            .map_err(|e| db(path, &e))?;
        connection.busy_timeout(std::time::Duration::from_secs(10)).map_err(|e| db(path, &e))?;
        let version: usize = connection.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| db(path, &e))?;
        if version > MIGRATIONS.len() {
            return Err(Error::Database(format!(
                "{}: schema version {version}, expected at most {} (a newer kgeval wrote it)",
                path.display(),
                MIGRATIONS.len()
            )));
        }
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(version) {
            let transaction = connection.transaction().map_err(|e| db(path, &e))?;
            transaction.execute_batch(migration).map_err(|e| db(path, &e))?;
            if i + 1 == teams::NAME_KEY_VERSION {
                teams::fill_name_keys(&transaction)?;
            }
            transaction.pragma_update(None, "user_version", i + 1).map_err(|e| db(path, &e))?;
            transaction.commit().map_err(|e| db(path, &e))?;
        }
        Ok(Store { connection })
    }

    /// Checks that the database can be written: a table created and rolled back (SQLite opens
    /// a file it may not write read-only, and says so only at the first write).
    ///
    /// # Errors
    /// [`Error::Database`] `PATH: cannot write: …`.
    pub fn check_writable(&mut self, path: &Path) -> Result<(), Error> {
        let cannot = |e: rusqlite::Error| Error::Database(format!("{}: cannot write: {e}", path.display()));
        let transaction = self.connection.transaction().map_err(cannot)?;
        transaction.execute_batch("CREATE TABLE main.write_check (x)").map_err(cannot)?;
        transaction.rollback().map_err(cannot)
    }

    /// How many submissions of `team` to `task` in `phase` that arrived at or after `since`
    /// were scored at upload, or stopped there for their time or memory: the limits as
    /// counted then (a `failed` upload scored later by `--rescore` does not count).
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn counted_since(&self, team: i64, task: &str, phase: &str, since: i64) -> Result<u32, Error> {
        self.connection
            .query_row(
                "SELECT COUNT(*) FROM submissions WHERE team = ?1 AND task = ?2 AND phase = ?3 \
                 AND (status = 'scored' OR stopped IS NOT NULL) AND created >= ?4",
                params![team, task, phase, since],
                |r| r.get(0),
            )
            .map_err(sql)
    }

    /// Inserts a submission and its score row, in one transaction; returns its id.
    ///
    /// # Errors
    /// [`Error::Database`]; nothing is inserted then.
    pub fn insert(&mut self, submission: &NewSubmission<'_>, score: Option<&Score>) -> Result<i64, Error> {
        let ids = self.insert_all(&[(submission.clone(), score)])?;
        ids.first().copied().ok_or_else(|| Error::Database("a row inserted without an id".to_owned()))
    }

    /// Inserts several submissions, each with its score if scored, in one transaction (one
    /// fsync of the journal for all: a group commit); their ids in order.
    ///
    /// # Errors
    /// [`Error::Database`]; nothing is inserted then.
    pub fn insert_all(&mut self, rows: &[(NewSubmission<'_>, Option<&Score>)]) -> Result<Vec<i64>, Error> {
        let transaction = self.connection.transaction().map_err(sql)?;
        let mut ids = Vec::with_capacity(rows.len());
        for (submission, score) in rows {
            transaction
                .execute(
                    "INSERT INTO submissions (team, task, phase, system, sha256, size, status, error, created, \
                     stopped, concerns_gold) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                    params![
                        submission.team,
                        submission.task,
                        submission.phase,
                        submission.system,
                        submission.sha256,
                        submission.size,
                        submission.status,
                        submission.error,
                        submission.created,
                        submission.stopped,
                        submission.concerns_gold
                    ],
                )
                .map_err(sql)?;
            let id = transaction.last_insert_rowid();
            if let Some(score) = score {
                insert_score(&transaction, id, score, submission.created)?;
            }
            ids.push(id);
        }
        transaction.commit().map_err(sql)?;
        Ok(ids)
    }

    /// The submission `id`, with its score under `scorer` if it has one.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn submission(&self, id: i64, scorer: &str) -> Result<Option<Submission>, Error> {
        let query = format!(
            "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN teams t ON t.id = s.team \
             LEFT JOIN scores c ON c.submission = s.id AND c.scorer = ?2 WHERE s.id = ?1"
        );
        self.connection.query_row(&query, params![id, scorer], submission_row).optional().map_err(sql)
    }

    /// Every valid submission to `task` in `phase` with a score under `scorer` (scored at
    /// upload or by `--rescore`), oldest first.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn scored(&self, task: &str, phase: &str, scorer: &str) -> Result<Vec<Submission>, Error> {
        self.scored_columns(SUBMISSION_COLUMNS, task, phase, scorer)
    }

    /// [`Store::scored`] reading `columns` ([`SUBMISSION_COLUMNS`] or [`HEAD_COLUMNS`]).
    fn scored_columns(&self, columns: &str, task: &str, phase: &str, scorer: &str) -> Result<Vec<Submission>, Error> {
        let query = format!(
            "SELECT {columns} FROM submissions s JOIN teams t ON t.id = s.team \
             JOIN scores c ON c.submission = s.id AND c.scorer = ?3 \
             WHERE s.task = ?1 AND s.phase = ?2 AND {VALID} ORDER BY s.id"
        );
        let mut statement = self.connection.prepare_cached(&query).map_err(sql)?;
        let rows = statement.query_map(params![task, phase, scorer], submission_row).map_err(sql)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sql)
    }
}

impl Store {
    /// [`Store::scored`] without each score's headlines and per-item values (empty): the
    /// cheap query a leaderboard request starts with.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn scored_heads(&self, task: &str, phase: &str, scorer: &str) -> Result<Vec<Submission>, Error> {
        self.scored_columns(HEAD_COLUMNS, task, phase, scorer)
    }
}

impl Store {
    /// Every valid submission to `task` (every phase; `scored` or `failed` at upload), oldest
    /// first, with its score under `scorer` if it has one.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn valid_any(&self, task: &str, scorer: &str) -> Result<Vec<Submission>, Error> {
        let query = format!(
            "SELECT {SUBMISSION_COLUMNS} FROM submissions s JOIN teams t ON t.id = s.team \
             LEFT JOIN scores c ON c.submission = s.id AND c.scorer = ?2 \
             WHERE s.task = ?1 AND {VALID} ORDER BY s.id"
        );
        let mut statement = self.connection.prepare_cached(&query).map_err(sql)?;
        let rows = statement.query_map(params![task, scorer], submission_row).map_err(sql)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sql)
    }

    /// The scorer of the latest score row of `task`, if any: the version whose leaderboard
    /// was shown last (the current one too, when a server ran with it).
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn latest_scorer(&self, task: &str) -> Result<Option<String>, Error> {
        self.connection
            .query_row(
                "SELECT c.scorer FROM scores c JOIN submissions s ON s.id = c.submission \
                 WHERE s.task = ?1 ORDER BY c.id DESC LIMIT 1",
                params![task],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql)
    }

    /// Adds score rows (`(submission, score)`) in one transaction: all or none.
    ///
    /// # Errors
    /// [`Error::Database`] (a row for a (submission, scorer) already there among them); nothing
    /// is added then.
    pub fn add_scores(&mut self, rows: &[(i64, Score)], now: i64) -> Result<(), Error> {
        let transaction = self.connection.transaction().map_err(sql)?;
        for (submission, score) in rows {
            insert_score(&transaction, *submission, score, now)?;
        }
        transaction.commit().map_err(sql)
    }
}

/// Adds the score row of `submission` inside `transaction`.
fn insert_score(
    transaction: &rusqlite::Transaction<'_>,
    submission: i64,
    score: &Score,
    created: i64,
) -> Result<(), Error> {
    transaction
        .execute(
            "INSERT INTO scores (submission, scorer, metric, value, higher_is_better, headlines, items, created) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                submission,
                score.scorer,
                score.metric,
                score.value,
                score.higher_is_better,
                score.headlines,
                score.items,
                created
            ],
        )
        .map(drop)
        .map_err(sql)
}

fn db(path: &Path, error: &rusqlite::Error) -> Error {
    Error::Database(format!("{}: {error}", path.display()))
}

// Taken by value to be `map_err(sql)`.
#[allow(clippy::needless_pass_by_value)]
pub(crate) fn sql(error: rusqlite::Error) -> Error {
    Error::Database(error.to_string())
}

#[cfg(test)]
mod tests;
