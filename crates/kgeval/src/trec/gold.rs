//! A task's qrels read once, to evaluate many runs against: what a server scoring one
//! upload after another keeps instead of reading and parsing the qrels for each.

use std::sync::Arc;

use kgeval_formats::Read;
use kgeval_model::trec::Qrels;
use kgeval_model::Diagnostic;

use super::{open_run_read, TrecTask};
use crate::gold_names::GoldNames;
use crate::{Error, Evaluation, Progress};

/// The qrels of a [`TrecTask`] as read, with the reader's warnings and the name the
/// evaluation gives them; cheap to clone (the judgments are shared).
///
/// ```
/// use kgeval::trec::TrecTask;
/// let task = TrecTask::new("../../testdata/trec_eval/test/qrels.test")
///     .run_file("bm25=../../testdata/trec_eval/test/results.test")
///     .measure("map");
/// let gold = task.read_gold()?;
/// let once = task.run_with_gold(&gold, &kgeval::NoProgress)?;
/// assert_eq!(once.headline("bm25", "map"), task.run(&kgeval::NoProgress)?.headline("bm25", "map"));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct TrecGold {
    pub(super) qrels: Arc<Qrels>,
    pub(super) warnings: Vec<Diagnostic>,
    pub(super) name: String,
}

impl TrecGold {
    /// The judgments.
    #[must_use]
    pub fn qrels(&self) -> &Qrels {
        &self.qrels
    }
}

impl TrecTask {
    /// Reads the task's qrels as [`TrecTask::run`] does (text, or with feature `arrow` a
    /// Parquet or IPC table by its extension or content), for [`TrecTask::run_with_gold`].
    ///
    /// # Errors
    /// The qrels cannot be read or are malformed.
    pub fn read_gold(&self) -> Result<TrecGold, Error> {
        self.read_gold_named(GoldNames::Files)
    }

    /// [`TrecTask::read_gold`], the qrels named `names` in what scoring against them says.
    pub(crate) fn read_gold_named(&self, names: GoldNames) -> Result<TrecGold, Error> {
        let Read { value, warnings } = super::load_qrels(&self.qrels)?;
        Ok(TrecGold { qrels: Arc::new(value), warnings, name: names.name(&self.qrels, "") })
    }

    /// [`TrecTask::run`] against qrels already read ([`TrecTask::read_gold`] of a task with
    /// the same qrels): the task's `qrels` input is not read again. The results, notes,
    /// warnings and errors are those of `run`.
    ///
    /// # Errors
    /// As [`TrecTask::run`], but for reading the qrels.
    pub fn run_with_gold(&self, gold: &TrecGold, progress: &dyn Progress) -> Result<Evaluation, Error> {
        let names = self.check_runs()?;
        let first_run = open_run_read(&self.runs[0].input)?;
        self.evaluate_opened(gold, names, first_run, progress)
    }
}
