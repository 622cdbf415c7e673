//! A task's gold alignments read once, to score many systems against: what a server scoring
//! one upload after another keeps instead of reading and parsing the references for each.

use kgeval_model::Interner;

use super::memory::MemoryPair;
use super::run::{load_gold, GoldPair};
use super::AlignTask;
use crate::{Error, Evaluation, Progress};

/// Every pair's reference, secondary reference, exclusion, ontologies and baseline of an
/// [`AlignTask`] as read, with the terms they hold; each scoring reads its systems into a copy
/// of the terms.
///
/// ```
/// use kgeval::align::{AlignPair, AlignTask};
/// let pair = AlignPair::new("../../testdata/diso/brick-smartenv/Rplus.rdf")
///     .system("team=../../testdata/diso/brick-smartenv/Rapprox.rdf");
/// let task = AlignTask::new(vec![pair]);
/// let gold = task.read_gold()?;
/// let once = task.run_with_gold(&gold, &kgeval::NoProgress)?;
/// assert_eq!(once.headline("team", "f1"), task.run(&kgeval::NoProgress)?.headline("team", "f1"));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Clone)]
pub struct AlignGold {
    pairs: Vec<GoldPair>,
    interner: Interner,
}

impl std::fmt::Debug for AlignGold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.pairs.iter().map(|p| p.name.as_str()).collect();
        f.debug_struct("AlignGold").field("pairs", &names).finish_non_exhaustive()
    }
}

impl AlignTask {
    /// Reads every pair's gold (reference, secondary reference, exclusion, ontologies,
    /// baseline) as [`AlignTask::run`] does, for [`AlignTask::run_with_gold`].
    ///
    /// # Errors
    /// An input that cannot be read or is malformed; an empty reference.
    pub fn read_gold(&self) -> Result<AlignGold, Error> {
        let options = self.read_options();
        let mut interner = Interner::new();
        let mut pairs = Vec::with_capacity(self.pairs.len());
        for pair in &self.pairs {
            pairs.push(load_gold(&MemoryPair::from(pair), &options, &mut interner)?);
        }
        Ok(AlignGold { pairs, interner })
    }

    /// [`AlignTask::run`] against the gold of [`AlignTask::read_gold`] (of a task with the
    /// same pairs and options): only the systems are read. The scores, warnings and errors are
    /// those of `run` (term ids aside: every pair's gold is read before the systems).
    ///
    /// # Errors
    /// As [`AlignTask::run`], but for reading the gold; pairs other than the gold's.
    pub fn run_with_gold(&self, gold: &AlignGold, progress: &dyn Progress) -> Result<Evaluation, Error> {
        let pairs: Vec<MemoryPair> = self.pairs.iter().map(MemoryPair::from).collect();
        self.run_pairs_with_gold(&pairs, &gold.pairs, &gold.interner, progress)
    }
}
