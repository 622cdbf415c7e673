#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod access;
pub mod api;
pub mod app;
pub mod auth;
pub mod blobs;
pub mod board;
pub mod clock;
pub mod commit;
pub mod config;
pub mod desk;
pub mod error_bodies;
pub mod export;
pub mod listen;
pub mod multipart;
pub mod pages;
pub mod rate;
pub mod refusal;
pub mod rescore;
pub mod routes;
pub mod store;
pub mod submit;
pub mod team_name;
pub mod token;
pub mod units;
pub mod worker;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use app::{default_db, App};
use clock::Clock;
pub use config::Campaign;

/// Why the server could not start or a command failed; one line each.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The campaign file or its data (`FILE:LINE:COL: …`).
    #[error("{0}")]
    Campaign(String),
    /// An error of the facade (a located manifest error, a gold that cannot be read).
    #[error(transparent)]
    Facade(#[from] kgeval::Error),
    /// The database.
    #[error("database: {0}")]
    Database(String),
    /// A file or the network.
    #[error("{0}")]
    Io(String),
    /// A command used wrongly (a team name taken).
    #[error("{0}")]
    Usage(String),
}

/// Where the database is: `db`, else beside the campaign file.
#[must_use]
pub fn db_path(campaign: &Path, db: Option<&Path>) -> PathBuf {
    db.map_or_else(|| default_db(campaign), Path::to_path_buf)
}

/// Adds a team (an organiser when `organiser`) to the campaign's database and returns its
/// token (shown once: only its hash is stored).
///
/// # Errors
/// The campaign file is invalid; the database cannot be opened; the name is invalid
/// ([`team_name::check`]: empty, over 100 characters, with a control, invisible or
/// text-direction character) or taken under its key ([`team_name::key`]: `team a` is
/// `Team A`).
pub fn add_team(campaign: &Path, db: Option<&Path>, name: &str, organiser: bool) -> Result<String, Error> {
    Campaign::read(campaign)?;
    let name = team_name::check(name)?;
    let mut store = store::Store::open(&db_path(campaign, db))?;
    store.add_team(name, organiser, clock::now())
}

/// Revokes the token of the team named `name` in the campaign's database: refused from now on,
/// by a running server too (its submissions stay).
///
/// # Errors
/// The campaign file is invalid; the database cannot be opened; no team has the name, or its
/// token is revoked already.
pub fn revoke_team(campaign: &Path, db: Option<&Path>, name: &str) -> Result<(), Error> {
    Campaign::read(campaign)?;
    store::Store::open(&db_path(campaign, db))?.revoke_team(name, clock::now())
}

/// Gives the team named `name` a new token and returns it (shown once): the old one is refused
/// from now on, by a running server too; a revoked team is restored.
///
/// # Errors
/// The campaign file is invalid; the database cannot be opened; no team has the name.
pub fn rotate_token(campaign: &Path, db: Option<&Path>, name: &str) -> Result<String, Error> {
    Campaign::read(campaign)?;
    store::Store::open(&db_path(campaign, db))?.rotate_token(name)
}

/// Reads the campaign, opens the database (and checks that it and the blob folder can be
/// written), starts the scoring workers (`launch` starts one), scores the baselines on them
/// (and records their scores), binds `listen`, calls `ready` with the bound address and
/// where the campaign stands ([`status_line`]), and serves ([`listen::serve`]) until Ctrl-C or SIGTERM; then returns within
/// [`listen::SHUTDOWN_GRACE`] plus [`RUNTIME_STOP`], whatever the clients and the workers do.
///
/// # Errors
/// Any error of [`App::open`]; the database or the blob folder cannot be written; the
/// baselines' scores cannot be recorded; the address cannot be bound.
pub fn serve(
    campaign: &Path,
    db: Option<&Path>,
    listen: SocketAddr,
    launch: worker::Launch,
    clock: Clock,
    ready: impl FnOnce(SocketAddr, &str),
) -> Result<(), Error> {
    let config = Campaign::read(campaign)?;
    let db = db_path(campaign, db);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Io(format!("cannot start the runtime: {e}")))?;
    let served = runtime.block_on(async {
        let app = Arc::new(App::open(config, &db, launch, clock).await?);
        check_writable(&app, &db)?;
        app.record_baselines(app.clock.now())?;
        let limits = app.campaign.connections;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| Error::Io(format!("cannot listen on {listen}: {e}")))?;
        let bound = listener.local_addr().map_err(|e| Error::Io(e.to_string()))?;
        ready(bound, &status_line(&app.campaign, app.clock));
        listen::serve(listener, routes::router(Arc::clone(&app)), limits, shutdown()).await;
        Ok(())
    });
    // The server has stopped accepting and its connections are closed (at most
    // `listen::SHUTDOWN_GRACE` after the signal). The runtime gives its tasks `RUNTIME_STOP`;
    // what still runs is dropped, and a worker process whose scoring is dropped is killed
    // with it (the others exit on their own once the server is gone).
    runtime.shutdown_timeout(RUNTIME_STOP);
    served
}

/// Where `campaign` stands by `clock` ([`Campaign::status_at`]), after `rehearsal (the clock
/// started at TIME): ` on a rehearsal's clock.
#[must_use]
pub fn status_line(campaign: &Campaign, clock: Clock) -> String {
    let status = campaign.status_at(clock.now());
    match clock.started_at() {
        Some(start) => format!("rehearsal (the clock started at {}): {status}", clock::format(start)),
        None => status,
    }
}

/// How long the runtime's tasks may take to stop once the server has closed its connections.
pub const RUNTIME_STOP: std::time::Duration = std::time::Duration::from_secs(1);

/// Checks that the database and the blob folder can be written, so that a server that
/// cannot store an upload does not start.
///
/// # Errors
/// [`Error::Database`] or [`Error::Io`], one line naming the path.
fn check_writable(app: &App, db: &Path) -> Result<(), Error> {
    app.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner).check_writable(db)?;
    app.blobs.check_writable()
}

/// Starts the scoring workers of `campaign` as [`App::open`] does, on a runtime of its own,
/// and runs `f` with the app on `clock` (for `--rescore` and `--export`).
///
/// # Errors
/// Any error of [`App::open`] or of `f`.
pub fn with_app<T>(
    campaign: &Path,
    db: Option<&Path>,
    launch: worker::Launch,
    clock: Clock,
    f: impl AsyncFnOnce(Arc<App>) -> Result<T, Error>,
) -> Result<T, Error> {
    let config = Campaign::read(campaign)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Io(format!("cannot start the runtime: {e}")))?;
    let result = runtime.block_on(async move {
        let app = Arc::new(App::open(config, &db_path(campaign, db), launch, clock).await?);
        f(app).await
    });
    runtime.shutdown_timeout(RUNTIME_STOP);
    result
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
