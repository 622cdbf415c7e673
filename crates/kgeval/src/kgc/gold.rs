//! A KGC task's splits, options' files and judgments read once, to evaluate many system
//! outputs against: what a server scoring one upload after another keeps.

use kgeval_model::Diagnostic;

use super::{envelope, observe, KgcTask, Prepared, SystemOutput};
use crate::gold_names::GoldNames;
use crate::{system_names, Error, Evaluation, Progress, SystemInput};

/// Everything of a [`KgcTask`] but its systems' outputs, as read: the test split, the
/// filters, the options' files and the judgments.
///
/// ```
/// use kgeval::kgc::KgcTask;
/// let task = KgcTask::new("../../testdata/kgc/mini/test.txt")
///     .filter("../../testdata/kgc/mini/train.txt")
///     .ranks("mini=../../testdata/kgc/mini/ranks.tsv");
/// let gold = task.read_gold()?;
/// let once = task.run_with_gold(&gold, &kgeval::NoProgress)?;
/// assert_eq!(once.headline("mini", "micro_mrr"), task.run(&kgeval::NoProgress)?.headline("mini", "micro_mrr"));
/// # Ok::<(), kgeval::Error>(())
/// ```
pub struct KgcGold(Prepared);

impl std::fmt::Debug for KgcGold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KgcGold").field("test", &self.0.splits.test.file.name).finish_non_exhaustive()
    }
}

impl KgcTask {
    /// Reads the splits, the options' files and the judgments as [`KgcTask::run`] does, for
    /// [`KgcTask::run_with_gold`].
    ///
    /// # Errors
    /// Invalid options; an input that cannot be read or is malformed.
    pub fn read_gold(&self) -> Result<KgcGold, Error> {
        self.read_gold_named(GoldNames::Files)
    }

    /// [`KgcTask::read_gold`], the splits, the entity list and the judgments named `names`
    /// (hidden: `the gold's test split`, `the gold's filter split N`, …) in what scoring
    /// against them says.
    pub(crate) fn read_gold_named(&self, names: GoldNames) -> Result<KgcGold, Error> {
        self.check_options()?;
        let mut prepared = self.prepare()?;
        let splits = &mut prepared.splits;
        splits.test.file.name = names.name_of(&splits.test.file.name, "test split");
        for (i, filter) in splits.filters.iter_mut().enumerate() {
            filter.name = names.name_of(&filter.name, &format!("filter split {}", i + 1));
        }
        if let Some((name, _)) = &mut splits.entity_list {
            *name = names.name_of(name, "entity list");
        }
        if let Some((_, name)) = &mut prepared.judgments {
            *name = names.name_of(name, "judgments");
        }
        Ok(KgcGold(prepared))
    }

    /// [`KgcTask::run`] against the inputs of [`KgcTask::read_gold`] (of a task with the same
    /// splits and options): only the systems' outputs are read. The results, warnings and
    /// errors are those of `run`.
    ///
    /// # Errors
    /// As [`KgcTask::run`], but for reading the splits, options' files and judgments.
    pub fn run_with_gold(&self, gold: &KgcGold, progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.check_options()?;
        let outputs = self.system_outputs()?;
        let inputs: Vec<SystemInput> = outputs.iter().map(|o| o.system().clone()).collect();
        let names = system_names(&inputs)?;
        self.evaluate_prepared(&gold.0, &outputs, &names, progress)
    }

    /// Every system output (named `names`) evaluated against `prepared`, in one envelope.
    pub(super) fn evaluate_prepared(
        &self,
        prepared: &Prepared,
        outputs: &[SystemOutput<'_>],
        names: &[String],
        progress: &dyn Progress,
    ) -> Result<Evaluation, Error> {
        let mut evaluations = Vec::with_capacity(outputs.len());
        for (output, name) in outputs.iter().zip(names) {
            let mut warnings: Vec<Diagnostic> = Vec::new();
            let observed = observe(&prepared.data(), output, self, &mut warnings, progress)?;
            evaluations.push(prepared.finish(self, name, &output.system().input.to_string(), observed, warnings)?);
        }
        envelope(evaluations)
    }
}
