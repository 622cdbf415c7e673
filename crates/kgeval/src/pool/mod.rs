//! `pool`: TREC-style pooling (seed 004 §3) — build a depth-d pool from several runs and write
//! its judgment template, ingest completed judgments (positives per depth), and evaluate a
//! depth series (labels = original ∪ judged positives up to depth d, for d = 0..=D) with the
//! Kendall tau of each depth's system ordering.

mod build;
mod series;

use std::path::Path;

use kgeval_formats::kgc::{read_judgments, read_pool_depths};
use kgeval_formats::Input;
use kgeval_meta::pool::summarize_judgments;
use kgeval_model::kgc::KgcVocabulary;
/// The deepest pool a depth, a flag or a pool-depth file may ask for.
pub use kgeval_model::meta::pool::MAX_POOL_DEPTH;
use kgeval_model::meta::pool::{BuiltPool, DepthSeries, PoolSummary};
use kgeval_report::{OutputFormat, RenderOptions};
use serde::Deserialize;

use crate::inputs::one_or_many;
use crate::{Error, Progress, SystemInput, Warning};

/// What `kgeval pool` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PoolAction {
    /// Build the depth-d pool of the runs and its judgment template.
    Build,
    /// Count the positives completed judgments add per pool depth.
    Ingest,
    /// Evaluate every system at pool depths 0..=D and compare the orderings.
    Series,
}

/// A pooling job: plain data, defaults decided here.
///
/// Every depth is at most [`MAX_POOL_DEPTH`] (checked for `depth` and where a pool-depth file
/// is read).
///
/// - `build`: `runs` (TREC runs; KGC runs over aggregated questions when `queries` is given,
///   with `test` and `filters` for the known answers) with `depth` (default 10, kgc-sparsity's);
///   what is already judged comes from `qrels` (TREC) or `judgments` (KGC, `s p o {Y,N}`);
///   `trivial_filter` marks head questions on 1-1 / 1-N and tail questions on 1-1 / N-1
///   relations negative (categories as `kgeval kgc` counts them: on `categories_from`, default
///   the first filter file, threshold `category_threshold`).
/// - `ingest`: `judgments` and `pool_depths` → positives per depth up to `depth` (default: the
///   largest depth of the pool file).
/// - `series`: `test`, `filters`, `runs` and / or `scores` (with `entities`) over the question
///   list `queries`, `judgments`, `pool_depths`, `depth`
///   (D, default the largest pool depth), `ir_measures` (default `kgeval kgc`'s), `against`
///   (the reference ordering of the Kendall table, default depth 0).
///
/// ```
/// use kgeval::pool::{PoolAction, PoolResult, PoolTask};
/// let dir = "../../testdata/kgc/kgc-sparsity/data/FB-Test-S-C";
/// let mut task = PoolTask::new(PoolAction::Ingest);
/// task.judgments = Some(format!("{dir}/annotations.txt.gz").into());
/// task.pool_depths = Some(format!("{dir}/supplementary/pooling_depth.txt.gz").into());
/// let PoolResult::Ingest(summary) = task.run(&kgeval::NoProgress)?.result else { unreachable!() };
/// assert_eq!(summary.depths[1].cumulative, 287);
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolTask {
    /// `build`, `ingest` or `series`.
    pub action: PoolAction,
    /// The runs, `NAME=PATH` or `PATH` (TREC `qid Q0 docno rank score tag` lines).
    #[serde(default, alias = "run", deserialize_with = "one_or_many")]
    pub runs: Vec<SystemInput>,
    /// Build: the pool depth (default 10). Ingest and series: the largest depth (default: the
    /// largest of the pool-depth file).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Series: systems given as dense `.npy` score matrices (`NAME=PATH`, files), one row per
    /// line of `queries`, one column per entity of `entities`.
    #[serde(default, deserialize_with = "one_or_many")]
    pub scores: Vec<SystemInput>,
    /// Series with `scores`: the entity list (the matrices' columns).
    #[serde(default)]
    pub entities: Option<Input>,
    /// TREC qrels: what is already judged (build).
    #[serde(default)]
    pub qrels: Option<Input>,
    /// The questions of KGC runs (`qid<TAB>entity<TAB>relation`): the runs are KGC runs.
    #[serde(default)]
    pub queries: Option<Input>,
    /// The KGC test split (known answers in build; the original labels in series).
    #[serde(default)]
    pub test: Option<Input>,
    /// KGC filter splits (train, valid): known answers.
    #[serde(default, alias = "filter", deserialize_with = "one_or_many")]
    pub filters: Vec<Input>,
    /// KGC judgments `s p o {Y,N}` (blank = N with a warning).
    #[serde(default)]
    pub judgments: Option<Input>,
    /// KGC pool depths `s p o depth` (kgc-sparsity `pooling_depth.txt`).
    #[serde(default)]
    pub pool_depths: Option<Input>,
    /// Build, KGC: mark the questions of the trivial-triple filter negative.
    #[serde(default)]
    pub trivial_filter: bool,
    /// Triple files the relation categories are counted on (default: the first filter).
    #[serde(default, deserialize_with = "one_or_many")]
    pub categories_from: Vec<Input>,
    /// A side is "many" iff its average exceeds this (default 1.5, as `kgeval kgc`).
    #[serde(default = "default_threshold")]
    pub category_threshold: f64,
    /// Series: the trec_eval measures of each KGC evaluation (default: `kgeval kgc`'s).
    #[serde(default)]
    pub ir_measures: Option<Vec<String>>,
    /// Series: the reference ordering, a wide system × metric CSV (kgc-sparsity
    /// `evaluation.csv`; a `Depth` column pairs depths); default: the series' depth 0.
    #[serde(default)]
    pub against: Option<Input>,
}

fn default_threshold() -> f64 {
    1.5
}

/// The default pool depth of `build` (kgc-sparsity pooled the top 10).
pub const DEFAULT_POOL_DEPTH: u32 = 10;

/// What a [`PoolTask`] returns.
#[derive(Debug, Clone)]
pub struct PoolOutcome {
    /// Reader and evaluation warnings, scoped.
    pub warnings: Vec<Warning>,
    /// The action's result.
    pub result: PoolResult,
}

/// The result of each action.
#[derive(Debug, Clone)]
pub enum PoolResult {
    /// `build`: the pool and its template; `kgc` says whether it is a KGC pool.
    Build {
        /// The pool and its template lines.
        built: BuiltPool,
        /// KGC triples (`s p o depth`) rather than TREC documents.
        kgc: bool,
    },
    /// `ingest`: positives per depth.
    Ingest(PoolSummary),
    /// `series`: the depth series and its Kendall table.
    Series(DepthSeries),
}

impl PoolOutcome {
    /// Renders the result as `kgeval pool` prints it: `build` text is the judgment template
    /// (see [`kgeval_report::render_pool`]).
    #[must_use]
    pub fn render(&self, format: OutputFormat, options: &RenderOptions) -> String {
        match &self.result {
            PoolResult::Build { built, kgc } => kgeval_report::render_pool(built, *kgc, format, options),
            PoolResult::Ingest(summary) => kgeval_report::render_pool_summary(summary, format, options),
            PoolResult::Series(series) => kgeval_report::render_depth_series(series, format, options),
        }
    }

    /// The KGC annotation template of a `build` (`s p o` then an empty label, or `N` for the
    /// trivial-triple filter's); `None` for other actions and TREC pools.
    #[must_use]
    pub fn annotation_template(&self) -> Option<String> {
        match &self.result {
            PoolResult::Build { built, kgc: true } => Some(kgeval_report::annotation_template(built)),
            _ => None,
        }
    }
}

impl PoolTask {
    /// A task with every input unset and the defaults.
    #[must_use]
    pub fn new(action: PoolAction) -> Self {
        PoolTask {
            action,
            runs: Vec::new(),
            scores: Vec::new(),
            entities: None,
            depth: None,
            qrels: None,
            queries: None,
            test: None,
            filters: Vec::new(),
            judgments: None,
            pool_depths: None,
            trivial_filter: false,
            categories_from: Vec::new(),
            category_threshold: default_threshold(),
            ir_measures: None,
            against: None,
        }
    }

    /// The same task with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        let one = |i: &Option<Input>| i.as_ref().map(|i| i.resolved(base));
        PoolTask {
            runs: self.runs.iter().map(|r| r.resolved(base)).collect(),
            scores: self.scores.iter().map(|r| r.resolved(base)).collect(),
            entities: one(&self.entities),
            qrels: one(&self.qrels),
            queries: one(&self.queries),
            test: one(&self.test),
            filters: self.filters.iter().map(|i| i.resolved(base)).collect(),
            judgments: one(&self.judgments),
            pool_depths: one(&self.pool_depths),
            categories_from: self.categories_from.iter().map(|i| i.resolved(base)).collect(),
            against: one(&self.against),
            ..self.clone()
        }
    }

    /// Runs the action.
    ///
    /// # Errors
    /// A missing or malformed input (`FILE:LINE:COL`), depth 0, inputs that do not fit the
    /// action (a TREC pool with `judgments`, a series without `runs`), a failing evaluation.
    pub fn run(&self, progress: &dyn Progress) -> Result<PoolOutcome, Error> {
        if self.depth == Some(0) {
            return Err(Error::invalid("--depth: expected a positive pool depth, found 0"));
        }
        if let Some(depth) = self.depth.filter(|&d| d > MAX_POOL_DEPTH) {
            let flag = if self.action == PoolAction::Build { "--depth" } else { "--max-depth" };
            return Err(Error::invalid(format!(
                "{flag}: found {depth}, expected a pool depth from 1 to {MAX_POOL_DEPTH}"
            )));
        }
        if !self.category_threshold.is_finite() {
            return Err(Error::invalid(format!(
                "--category-threshold: expected a finite number, found {}",
                self.category_threshold
            )));
        }
        if (!self.scores.is_empty() || self.entities.is_some()) && self.action != PoolAction::Series {
            return Err(Error::invalid("--scores / --entities: expected `pool series`"));
        }
        if self.against.is_some() && self.action != PoolAction::Series {
            return Err(Error::invalid(
                "--against: expected `pool series` (the reference ordering of its Kendall table)",
            ));
        }
        let mut warnings = Vec::new();
        let result = match self.action {
            PoolAction::Build => build::build(self, &mut warnings)?,
            PoolAction::Ingest => PoolResult::Ingest(self.ingest(&mut warnings)?),
            PoolAction::Series => PoolResult::Series(series::series(self, &mut warnings, progress)?),
        };
        Ok(PoolOutcome { warnings, result })
    }

    /// The test split of pool depth `depth` of a series, as text: `test`, then every pooled
    /// triple of `pool_depths` whose first judgment in `judgments` is `Y`, with depth ≤
    /// `depth`, that `test` lacks (judgment-file order). What `series` evaluates at `depth`.
    ///
    /// # Errors
    /// A missing or malformed input.
    pub fn series_split(&self, depth: u32) -> Result<String, Error> {
        let test = self.required(&self.test, "test")?;
        let judged = self.required(&self.judgments, "judgments")?;
        let depths = self.required(&self.pool_depths, "pool-depths")?;
        let labels = series::DepthLabels::read(test, judged, depths, Some(depth), &mut Vec::new())?;
        Ok(String::from_utf8_lossy(&labels.split(depth)).into_owned())
    }

    fn required<'a>(&self, input: &'a Option<Input>, flag: &str) -> Result<&'a Input, Error> {
        let action = match self.action {
            PoolAction::Build => "build",
            PoolAction::Ingest => "ingest",
            PoolAction::Series => "series",
        };
        input.as_ref().ok_or_else(|| Error::invalid(format!("pool {action}: expected --{flag} FILE")))
    }

    fn ingest(&self, warnings: &mut Vec<Warning>) -> Result<PoolSummary, Error> {
        let judged = self.required(&self.judgments, "judgments")?;
        let depths = self.required(&self.pool_depths, "pool-depths")?;
        let mut vocabulary = KgcVocabulary::open();
        let (judgments, pool) = read_labels(judged, depths, &mut vocabulary, warnings)?;
        let max = self.depth.unwrap_or_else(|| pool.iter().map(|p| p.depth).max().unwrap_or(0));
        summarize_judgments(&judgments, &pool, max).map_err(|e| Error::invalid(format!("pool ingest: {e}")))
    }
}

/// Reads judgments and pool depths with one vocabulary; the judgments' warnings are scoped by
/// their file.
pub(crate) fn read_labels(
    judgments: &Input,
    depths: &Input,
    vocabulary: &mut KgcVocabulary,
    warnings: &mut Vec<Warning>,
) -> Result<(Vec<kgeval_model::kgc::Judgment>, Vec<kgeval_model::kgc::PooledTriple>), Error> {
    let opened = judgments.open()?;
    let read = read_judgments(opened.bytes(), opened.name(), vocabulary)?;
    let scope = format!("judgments {}", opened.name());
    warnings.extend(read.warnings.into_iter().map(|diagnostic| Warning { scope: scope.clone(), diagnostic }));
    let opened = depths.open()?;
    let pool = read_pool_depths(opened.bytes(), opened.name(), vocabulary)?;
    Ok((read.judgments, pool))
}
