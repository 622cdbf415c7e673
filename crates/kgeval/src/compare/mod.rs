//! `compare`: does system A really beat system B? Paired significance over any family's
//! per-item scores, or the ranking agreement of two result sets (`against`).
//!
//! The task reads score tables (kgeval JSON with `per_item`, trec_eval `-q` output, a long
//! CSV, or — for agreement only — a wide system × metric CSV), or evaluates qrels and runs
//! in-process like `ranx compare`, and hands one metric at a time to `kgeval-meta`.

mod agree;
mod inputs;
mod memory;
mod options;
mod published;
mod run;
mod sensitivity;

use std::path::Path;

use kgeval_formats::Input;
use serde::{Deserialize, Deserializer};

use crate::inputs::{by_name, one_or_many};
use crate::kgc::KgcTask;
use crate::SystemInput;

pub use kgeval_formats::meta::detect::MetaInputFormat;
pub use kgeval_meta::MissingPolicy;
pub use kgeval_model::meta::agreement::TauVariant;
pub use kgeval_model::meta::compare::{CompareConventions, CompareResult, MetricComparison, PublishedPower};
pub use kgeval_model::meta::sensitivity::{Sensitivity, SubsetSource};
pub use kgeval_model::meta::significance::{Correction, SignificanceTest};
use kgeval_model::trec::Ties;
pub use memory::NamedTable;
pub use options::{CompareMode, OptionError, COMPARE_OPTIONS, MAX_ITERATIONS, MAX_RATIOS, MAX_REPEATS, MIN_RBO_P};
pub use published::PVALUES_FORMAT;
pub use run::{CompareEvaluation, EVALUATION_FORMAT, MIN_TEST_ITEMS, MISSING_VALUES, PARTIAL_METRICS, TOO_FEW_ITEMS};

/// Iterations of the paired bootstrap (and of the confidence intervals) unless given.
pub const DEFAULT_BOOTSTRAP_ITERATIONS: usize = kgeval_meta::significance::DEFAULT_BOOTSTRAP_ITERATIONS;
/// Iterations of the randomisation tests (Fisher, Tukey HSD) unless given.
pub const DEFAULT_RANDOMISATION_ITERATIONS: usize = kgeval_meta::significance::DEFAULT_RANDOMISATION_ITERATIONS;

/// A comparison of systems: score tables (or qrels and runs), the metrics, the test and its
/// options; with `against`, the ranking agreement of two result sets instead.
///
/// Defaults (decided here, nowhere else): paired t test, Holm correction, α = 0.05,
/// B = 1000 for the bootstrap and 10,000 for Fisher and Tukey HSD, seed 42, Kendall tau-b,
/// RBO p = 0.9, a missing value is an error, metrics = the inputs' headline metrics with a
/// direction (else every metric with per-item values), formats told by content.
///
/// As a manifest row: `inputs` (or `input`, each `PATH` or `NAME=PATH`), or `qrels` with
/// `runs`; optional `metrics`, `test`, `correction`, `alpha`, `iterations`, `seed`,
/// `intervals`, `tau`, `rbo_p`, `against`, `missing`, `input_format`; for data sensitivity
/// `sensitivity = true`, `ratios`, `repeats`, `subsets`, and for KGC `ranks` with a `[kgc]`
/// table (`test`, `filters`, options); for the discriminative power of published p-value
/// matrices `pvalues` (each `PATH` or `NAME=PATH`) with optional `metrics` and `alpha`.
///
/// ```
/// use kgeval::compare::CompareTask;
/// let task = CompareTask::new().input("A=a.json").input("B=b.json").metric("map");
/// assert_eq!(task.alpha, 0.05);
/// assert_eq!(task.iterations(), 0); // the paired t test draws nothing
/// let task: CompareTask = kgeval::from_json(r#"{"inputs": ["a.json"], "test": "tukey"}"#, "t.json")?;
/// assert_eq!(task.iterations(), 10_000);
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareTask {
    /// Score tables: per-item JSON (one or several systems each), trec_eval `-q` output (one
    /// run each, named `NAME=PATH` or by the file stem), long CSV, or one wide CSV.
    #[serde(default, alias = "input", deserialize_with = "one_or_many")]
    pub inputs: Vec<SystemInput>,
    /// Qrels to evaluate `runs` against in-process (instead of `inputs`).
    #[serde(default)]
    pub qrels: Option<Input>,
    /// TREC runs (`NAME=PATH`), evaluated against `qrels` with `kgeval trec`'s engine.
    #[serde(default, alias = "run", deserialize_with = "one_or_many")]
    pub runs: Vec<SystemInput>,
    /// With `qrels`: how the runs' tied scores are valued (`kgeval trec --ties`: `trec`, the
    /// default, `expected`, `optimistic`, `pessimistic`); the per-topic tables compared are
    /// that policy's.
    #[serde(default, deserialize_with = "ties")]
    pub ties: Ties,
    /// The metrics to compare (canonical names or aliases; with `qrels`, `kgeval trec -m`
    /// measures such as `map`, `ndcg_cut.10`, `P.5,10`); empty: the default set.
    #[serde(default, alias = "metric", deserialize_with = "one_or_many")]
    pub metrics: Vec<String>,
    /// The paired test (`t`, `wilcoxon`, `bootstrap`, `fisher`, `tukey`).
    #[serde(default, deserialize_with = "test")]
    pub test: SignificanceTest,
    /// The multiplicity correction over the pairs of a metric (`holm`, `bonferroni`, `none`).
    #[serde(default, deserialize_with = "correction")]
    pub correction: Correction,
    /// The significance level.
    #[serde(default = "alpha")]
    pub alpha: f64,
    /// Iterations B of the randomised test; default 1000 (bootstrap) or 10,000 (Fisher,
    /// Tukey HSD).
    #[serde(default)]
    pub iterations: Option<usize>,
    /// The seed of every random draw.
    #[serde(default = "seed")]
    pub seed: u64,
    /// Percentile bootstrap confidence intervals of every system's mean.
    #[serde(default)]
    pub intervals: bool,
    /// The Kendall tau variant shown (`a`, `b`, `c`).
    #[serde(default, deserialize_with = "tau")]
    pub tau: TauVariant,
    /// Rank-biased overlap's persistence.
    #[serde(default = "rbo_p")]
    pub rbo_p: f64,
    /// Another result set: compare the system orderings of `inputs` with it, per metric and
    /// group (ranking agreement instead of significance).
    #[serde(default, deserialize_with = "one_or_many")]
    pub against: Vec<SystemInput>,
    /// A (system, item) without a value: `error` (default), `zero`, `drop` the item.
    #[serde(default, deserialize_with = "missing")]
    pub missing: MissingPolicy,
    /// The format of every input (`per-item-json`, `trec-eval`, `long-csv`, `wide-csv`);
    /// default: told by each file's content.
    #[serde(default, deserialize_with = "input_format")]
    pub input_format: Option<MetaInputFormat>,
    /// Data sensitivity (seed 004 §5.1) instead of significance: Kendall's tau between the
    /// system ordering on subsets of the items (KGC: of the test triples) and on all of them.
    #[serde(default)]
    pub sensitivity: bool,
    /// The subset ratios of the sensitivity curve (default 1, 5, 10, 20, …, 90, 95 %).
    #[serde(default = "ratios")]
    pub ratios: Vec<f64>,
    /// Random subsets per ratio (default 50).
    #[serde(default = "repeats")]
    pub repeats: usize,
    /// Subsets given as an index file (one subset of 0-based item indices per line) instead
    /// of random ones.
    #[serde(default)]
    pub subsets: Option<Input>,
    /// KGC sensitivity: the split and filters (a `kgc` task without a system) on which the
    /// `ranks` are re-evaluated per subset of test triples.
    #[serde(default)]
    pub kgc: Option<Box<KgcTask>>,
    /// KGC sensitivity: per-answer rank files, `NAME=PATH` (with `kgc`).
    #[serde(default, deserialize_with = "one_or_many")]
    pub ranks: Vec<SystemInput>,
    /// Published p-value matrices (kgc-sparsity's `discriminative_power.csv`: one row per
    /// system pair, one column per metric), `PATH` or `NAME=PATH`: their discriminative power
    /// at `alpha` instead of a test (the p-values are taken as published).
    #[serde(default, deserialize_with = "one_or_many")]
    pub pvalues: Vec<SystemInput>,
}

fn ratios() -> Vec<f64> {
    match SubsetSource::seed_004() {
        SubsetSource::Random { ratios, .. } => ratios,
        SubsetSource::Given(_) => Vec::new(),
    }
}

fn repeats() -> usize {
    match SubsetSource::seed_004() {
        SubsetSource::Random { repeats, .. } => repeats,
        SubsetSource::Given(_) => 0,
    }
}

const fn alpha() -> f64 {
    0.05
}

const fn seed() -> u64 {
    42
}

const fn rbo_p() -> f64 {
    0.9
}

fn test<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SignificanceTest, D::Error> {
    by_name(deserializer, SignificanceTest::from_name, "t, wilcoxon, bootstrap, fisher or tukey")
}

fn correction<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Correction, D::Error> {
    by_name(deserializer, Correction::from_name, "holm, bonferroni or none")
}

fn ties<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Ties, D::Error> {
    by_name(deserializer, Ties::from_name, "trec, expected, optimistic, pessimistic or range")
}

fn tau<'de, D: Deserializer<'de>>(deserializer: D) -> Result<TauVariant, D::Error> {
    by_name(deserializer, TauVariant::from_name, "a, b or c")
}

fn missing<'de, D: Deserializer<'de>>(deserializer: D) -> Result<MissingPolicy, D::Error> {
    by_name(deserializer, MissingPolicy::from_name, "error, zero or drop")
}

fn input_format<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<MetaInputFormat>, D::Error> {
    by_name(deserializer, MetaInputFormat::from_name, "per-item-json, trec-eval, long-csv or wide-csv").map(Some)
}

impl Default for CompareTask {
    fn default() -> Self {
        Self::new()
    }
}

impl CompareTask {
    /// A task with the default options and no input yet.
    #[must_use]
    pub fn new() -> Self {
        CompareTask {
            inputs: Vec::new(),
            qrels: None,
            runs: Vec::new(),
            ties: Ties::default(),
            metrics: Vec::new(),
            test: SignificanceTest::default(),
            correction: Correction::default(),
            alpha: alpha(),
            iterations: None,
            seed: seed(),
            intervals: false,
            tau: TauVariant::default(),
            rbo_p: rbo_p(),
            against: Vec::new(),
            missing: MissingPolicy::default(),
            input_format: None,
            sensitivity: false,
            ratios: ratios(),
            repeats: repeats(),
            subsets: None,
            kgc: None,
            ranks: Vec::new(),
            pvalues: Vec::new(),
        }
    }

    /// Adds an input (`PATH` or `NAME=PATH`, `-` for standard input).
    #[must_use]
    pub fn input(mut self, spec: &str) -> Self {
        self.inputs.push(SystemInput::parse(spec));
        self
    }

    /// Adds a metric to compare.
    #[must_use]
    pub fn metric(mut self, metric: &str) -> Self {
        self.metrics.push(metric.to_owned());
        self
    }

    /// The iterations B the test (and the intervals) will draw: the given number, else the
    /// test's default; 0 when nothing is drawn (t and Wilcoxon without intervals).
    #[must_use]
    pub fn iterations(&self) -> usize {
        match (self.iterations, self.test) {
            (Some(b), _) => b,
            (None, SignificanceTest::Fisher | SignificanceTest::TukeyHsd) => DEFAULT_RANDOMISATION_ITERATIONS,
            (None, SignificanceTest::Bootstrap) => DEFAULT_BOOTSTRAP_ITERATIONS,
            (None, _) if self.intervals => DEFAULT_BOOTSTRAP_ITERATIONS,
            (None, _) => 0,
        }
    }

    /// The same task with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        CompareTask {
            inputs: self.inputs.iter().map(|s| s.resolved(base)).collect(),
            qrels: self.qrels.as_ref().map(|q| q.resolved(base)),
            runs: self.runs.iter().map(|s| s.resolved(base)).collect(),
            against: self.against.iter().map(|s| s.resolved(base)).collect(),
            subsets: self.subsets.as_ref().map(|s| s.resolved(base)),
            kgc: self.kgc.as_ref().map(|k| Box::new(k.resolved(base))),
            ranks: self.ranks.iter().map(|s| s.resolved(base)).collect(),
            pvalues: self.pvalues.iter().map(|s| s.resolved(base)).collect(),
            ..self.clone()
        }
    }
}

/// The test's name in a sentence (`paired t test`, `Wilcoxon signed-rank test`).
#[must_use]
pub(crate) fn test_name(test: SignificanceTest) -> &'static str {
    match test {
        SignificanceTest::PairedT => "paired t test",
        SignificanceTest::Wilcoxon => "Wilcoxon signed-rank test",
        SignificanceTest::Bootstrap => "paired bootstrap test",
        SignificanceTest::Fisher => "Fisher's randomisation test",
        SignificanceTest::TukeyHsd => "randomised Tukey HSD",
    }
}
