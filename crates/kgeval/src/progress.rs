//! Progress of long work, reported to whatever the front end shows (a terminal bar, nothing).

/// Receives the progress of a running [`Task`](crate::Task): stages of counted steps.
///
/// The CLI implements it with an indicatif bar on a terminal (silent when piped); the library
/// default is [`NoProgress`]. Methods may be called from several threads at once (rows of a
/// score matrix are ranked in parallel).
pub trait Progress: Sync {
    /// A stage of `total` steps begins; `what` names the steps (`score rows`, `reading AML`).
    fn start(&self, what: &str, total: u64);
    /// `steps` more steps of the current stage are done.
    fn advance(&self, steps: u64);
    /// The current stage is over.
    fn finish(&self);
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _what: &str, _total: u64) {}
    fn advance(&self, _steps: u64) {}
    fn finish(&self) {}
}
