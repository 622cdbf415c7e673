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
pub mod export;
pub mod multipart;
pub mod pages;
pub mod rate;
pub mod refusal;
pub mod rescore;
pub mod routes;
pub mod store;
pub mod submit;
pub mod token;
pub mod worker;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use app::{default_db, App};
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
/// The campaign file is invalid; the database cannot be opened; the name is empty, has
/// control characters, is longer than 100 characters or is taken.
pub fn add_team(campaign: &Path, db: Option<&Path>, name: &str, organiser: bool) -> Result<String, Error> {
    Campaign::read(campaign)?;
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
        return Err(Error::Usage(format!(
            "found team name {}, expected 1 to 100 characters without control characters",
            kgeval::Input::path(name).name().escape_debug()
        )));
    }
    let store = store::Store::open(&db_path(campaign, db))?;
    store.add_team(name, organiser, clock::now())
}

/// How long the server waits, once asked to stop, for the requests under way: then it exits
/// whatever they do (its workers with it).
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Reads the campaign, opens the database, starts the scoring workers (`launch` starts one),
/// scores the baselines (and records their scores), binds `listen`, calls `ready` with the
/// bound address, and serves until Ctrl-C or SIGTERM; then it stops within
/// [`SHUTDOWN_GRACE`] and a second.
///
/// # Errors
/// Any error of [`App::open`]; the baselines' scores cannot be recorded; the address cannot
/// be bound.
pub fn serve(
    campaign: &Path,
    db: Option<&Path>,
    listen: SocketAddr,
    launch: worker::Launch,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    let config = Campaign::read(campaign)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Io(format!("cannot start the runtime: {e}")))?;
    let served = runtime.block_on(async move {
        let app = Arc::new(App::open(config, &db_path(campaign, db), launch).await?);
        app.record_baselines(clock::now())?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| Error::Io(format!("cannot listen on {listen}: {e}")))?;
        let bound = listener.local_addr().map_err(|e| Error::Io(e.to_string()))?;
        ready(bound);
        let stop = Arc::new(tokio::sync::Notify::new());
        let asked = Arc::clone(&stop);
        let server = axum::serve(listener, routes::router(app)).with_graceful_shutdown(async move {
            asked.notified().await;
        });
        tokio::select! {
            served = server => served.map_err(|e| Error::Io(format!("serving: {e}"))),
            () = async {
                shutdown().await;
                stop.notify_waiters();
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            } => Ok(()),
        }
    });
    // Whatever still runs (a request under way, a worker being replaced) is dropped: its
    // worker process is killed with it.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// Starts the scoring workers of `campaign` as [`App::open`] does, on a runtime of its own,
/// and runs `f` with the app (for `--rescore` and `--export`).
///
/// # Errors
/// Any error of [`App::open`] or of `f`.
pub fn with_app<T>(
    campaign: &Path,
    db: Option<&Path>,
    launch: worker::Launch,
    f: impl AsyncFnOnce(Arc<App>) -> Result<T, Error>,
) -> Result<T, Error> {
    let config = Campaign::read(campaign)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Io(format!("cannot start the runtime: {e}")))?;
    let result = runtime.block_on(async move {
        let app = Arc::new(App::open(config, &db_path(campaign, db), launch).await?);
        f(app).await
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
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
