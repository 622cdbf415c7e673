//! `kgc`: knowledge-graph completion — micro and macro metrics of one system's ranks, dense
//! scores or TREC run on a test split, with PyKEEN / LibKGE / kgc-sparsity conventions.

mod bounds;
mod gold;
mod mapped;
mod memory;
mod read;
mod sensitivity;
mod shards;

use std::path::Path;

use kgeval_formats::kgc::{read_judgments, read_pool_depths, read_ranks, write_queries, ReadJudgments};
use kgeval_formats::Input;
use kgeval_metrics::kgc::{evaluate_kgc, judgment_qrels, judgments_up_to_depth, KgcData, KgcInput, KgcOptions};
use kgeval_metrics::ranking::RowOptions;
use kgeval_model::kgc::conventions::{JudgmentsSource, KgcSources, SystemSource};
use kgeval_model::kgc::results::KgcEvaluation;
use kgeval_model::kgc::{AnswerObservation, FilterScope, KnownAnswers};
use kgeval_model::metric_names::metric_info;
use kgeval_model::ranking::{NanPolicy, TiePolicy, Tolerance};
use kgeval_model::trec::{MeasureRequest, MeasureSet, Run};
use kgeval_model::{Diagnostic, ScoreTable};
use serde::Deserialize;

use crate::evaluation::{canonical_table, system_warnings};
use crate::inputs::{by_name, one_or_many};
pub use gold::KgcGold;
pub use mapped::{IdRows, MappedEvaluation, MappedKgc, PYKEEN_KS, PYKEEN_METRICS, RANK_TYPES};
pub use memory::{ScoreEvaluator, ScoreRows, ScoreValues};
pub use sensitivity::SENSITIVITY_METRICS;
pub use shards::{ShardAccumulator, ShardEvaluation, SHARD_POLICIES};

use crate::{system_names, Conventions, Error, Evaluation, Family, FamilyResult, Progress, SystemInput};

/// A KGC evaluation: the test split, the filter files, and the output of one system or of
/// several side by side.
///
/// Each system's output is one of `ranks` (per-answer ranks), `scores` (a dense `.npy` score
/// matrix, one row per line of `questions`; needs `entities`), or `run` (a TREC top-k run
/// over the questions of `queries`). Each field holds one system or several, each `PATH` or
/// `NAME=PATH` (default name: the file stem without `.gz`); `-` reads ranks or a run from
/// stdin. Every system is evaluated on the same splits (read once), in the order ranks,
/// scores, runs; names must be unique.
///
/// As a manifest row: `family = "kgc"`, `test`, `filters` (or `filter`), the systems
/// (`ranks = "a.tsv"` or `scores = ["TransE=a.npy", "RotatE=b.npy"]`, an item also
/// `{ name = "…", path = "…" }`), and the options below under their field names (`ties = "rounded-mean"`,
/// `tie_tolerance = "1e-5,1e-4"`, `k = [1, 10]`, `relation_weights = "triples:FILE"` …).
///
/// ```
/// use kgeval::kgc::KgcTask;
/// let task = KgcTask::new("../../testdata/kgc/mini/test.txt")
///     .filter("../../testdata/kgc/mini/train.txt")
///     .ranks("mini=../../testdata/kgc/mini/ranks.tsv");
/// let evaluation = task.run(&kgeval::NoProgress)?;
/// assert_eq!(evaluation.systems, ["mini"]);
/// // Every head question's answer is ranked first in PyKEEN's fixture.
/// let kgeval::FamilyResult::Kgc(results) = &evaluation.result else { unreachable!() };
/// assert_eq!(results[0].micro[1].summary.mrr, 1.0);
/// assert_eq!(evaluation.headline("mini", "micro_mrr"), Some(results[0].micro[0].summary.mrr));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KgcTask {
    /// The evaluated split: `head<TAB>relation<TAB>tail` lines.
    pub test: Input,
    /// Splits whose triples are known answers (train, valid), removed from every ranking.
    #[serde(default, alias = "filter", deserialize_with = "one_or_many")]
    pub filters: Vec<Input>,
    /// The entity list (the columns of `scores`); default: the entities of the triple files.
    #[serde(default)]
    pub entities: Option<Input>,
    /// Per-answer ranks (`head relation tail side rank [n_greater n_equal num_candidates]`), one file per system.
    #[serde(default, deserialize_with = "one_or_many")]
    pub ranks: Vec<SystemInput>,
    /// Dense score matrices `.npy` (files), one per system, one row per line of `questions`.
    #[serde(default, deserialize_with = "one_or_many")]
    pub scores: Vec<SystemInput>,
    /// The questions of the `scores` rows (`qid<TAB>entity<TAB>relation`).
    #[serde(default)]
    pub questions: Option<Input>,
    /// TREC top-k runs over the aggregated questions, one per system.
    #[serde(default, deserialize_with = "one_or_many")]
    pub run: Vec<SystemInput>,
    /// The questions of the `run` qids.
    #[serde(default)]
    pub queries: Option<Input>,
    /// The rank inside a score tie: `optimistic`, `pessimistic`, `realistic` (default; the
    /// mean, PyKEEN's default) or `rounded-mean` (LibKGE).
    #[serde(default = "default_ties", deserialize_with = "ties")]
    pub ties: TiePolicy,
    /// Scores tie when |s − t| ≤ atol + rtol·|t| (`"atol,rtol"`); default: exact ties, except
    /// LibKGE's 1e-5,1e-4 under `rounded-mean` ([`KgcTask::tolerance`]).
    #[serde(default, deserialize_with = "tolerance")]
    pub tie_tolerance: Option<Tolerance>,
    /// NaN scores: `error` (default) or `worst`.
    #[serde(default, deserialize_with = "nan")]
    pub nan: NanPolicy,
    /// Cut-offs of Hits@k (default 1, 3, 10).
    #[serde(default = "default_ks", alias = "ks")]
    pub k: Vec<u32>,
    /// Relation weights of the weighted micro metrics (`uniform`, `triples:FILE`, FILE).
    #[serde(default)]
    pub relation_weights: Option<RelationWeights>,
    /// Triple files the relation categories are counted on (default: the first filter).
    #[serde(default, deserialize_with = "one_or_many")]
    pub categories_from: Vec<Input>,
    /// A side is "many" iff its average exceeds this (default 1.5).
    #[serde(default = "default_threshold")]
    pub category_threshold: f64,
    /// "many" iff the average reaches the threshold (≥ instead of >).
    #[serde(default)]
    pub category_inclusive: bool,
    /// Judgments `s p o {Y,N}` as the qrels of the IR measures (needs `run`).
    #[serde(default)]
    pub judgments: Option<Input>,
    /// Pool depths `s p o depth`: with `max_depth`, only judgments of pooled triples up to it.
    #[serde(default)]
    pub pool_depths: Option<Input>,
    /// The pool depth of the series point.
    #[serde(default)]
    pub max_depth: Option<u32>,
    /// trec_eval measures of the macro IR list (default `map_cut.20`, `ndcg_cut.20`; empty:
    /// none).
    #[serde(default = "default_ir_measure_names")]
    pub ir_measures: Vec<String>,
    /// Fill the per-item score table (every question and answer): a third of the time on
    /// FB15k-237, so off by default.
    #[serde(default)]
    pub per_item: bool,
}

/// Where the weights of the weighted micro metrics come from; deserialises from `uniform`,
/// `triples:FILE` or `FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelationWeights {
    /// Weight 1 per relation of the test split.
    Uniform,
    /// The number of triples per relation in a triple file (e.g. another test set).
    Triples(Input),
    /// A `relation<TAB>weight` file.
    File(Input),
}

impl RelationWeights {
    /// `uniform`, `triples:FILE` or `FILE`.
    #[must_use]
    pub fn parse(spec: &str) -> Self {
        match spec {
            "uniform" => RelationWeights::Uniform,
            _ => match spec.strip_prefix("triples:") {
                Some(path) => RelationWeights::Triples(Input::path(path)),
                None => RelationWeights::File(Input::path(spec)),
            },
        }
    }

    fn resolved(&self, base: &Path) -> Self {
        match self {
            RelationWeights::Uniform => RelationWeights::Uniform,
            RelationWeights::Triples(input) => RelationWeights::Triples(input.resolved(base)),
            RelationWeights::File(input) => RelationWeights::File(input.resolved(base)),
        }
    }
}

impl<'de> Deserialize<'de> for RelationWeights {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(RelationWeights::parse(&String::deserialize(deserializer)?))
    }
}

/// One system's output, with the question list it needs.
enum SystemOutput<'a> {
    Ranks(&'a SystemInput),
    Scores(&'a SystemInput, &'a Input),
    Run(&'a SystemInput, &'a Input),
}

impl SystemOutput<'_> {
    /// The system's input.
    fn system(&self) -> &SystemInput {
        match self {
            SystemOutput::Ranks(s) | SystemOutput::Scores(s, _) | SystemOutput::Run(s, _) => s,
        }
    }
}

/// The macro IR measures `names` ask for (empty names skipped; none: an empty set).
///
/// # Errors
/// [`Error::Invalid`] naming the first measure that names nothing known.
fn ir_measure_set(names: &[String]) -> Result<MeasureSet, Error> {
    let requests = names
        .iter()
        .filter(|m| !m.is_empty())
        .map(|m| MeasureRequest::parse(m))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::invalid(format!("--ir-measures: {e}")))?;
    Ok(if requests.is_empty() { MeasureSet::default() } else { MeasureSet::from_requests(&requests) })
}

fn default_ties() -> TiePolicy {
    TiePolicy::Realistic
}

fn default_ks() -> Vec<u32> {
    vec![1, 3, 10]
}

fn default_threshold() -> f64 {
    1.5
}

fn default_ir_measure_names() -> Vec<String> {
    vec!["map_cut.20".to_owned(), "ndcg_cut.20".to_owned()]
}

fn ties<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<TiePolicy, D::Error> {
    by_name(deserializer, KgcTask::tie_policy, "optimistic, pessimistic, realistic or rounded-mean")
}

fn nan<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<NanPolicy, D::Error> {
    by_name(deserializer, NanPolicy::from_name, "error or worst")
}

fn tolerance<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Tolerance>, D::Error> {
    by_name(deserializer, Tolerance::parse, "`atol,rtol`, two finite numbers ≥ 0").map(Some)
}

impl KgcTask {
    /// A task on `test` with the default options, no filter file and no system output yet.
    #[must_use]
    pub fn new(test: impl Into<Input>) -> Self {
        KgcTask {
            test: test.into(),
            filters: Vec::new(),
            entities: None,
            ranks: Vec::new(),
            scores: Vec::new(),
            questions: None,
            run: Vec::new(),
            queries: None,
            ties: default_ties(),
            tie_tolerance: None,
            nan: NanPolicy::Error,
            k: default_ks(),
            relation_weights: None,
            categories_from: Vec::new(),
            category_threshold: default_threshold(),
            category_inclusive: false,
            judgments: None,
            pool_depths: None,
            max_depth: None,
            ir_measures: default_ir_measure_names(),
            per_item: false,
        }
    }

    /// Adds a filter file.
    #[must_use]
    pub fn filter(mut self, input: impl Into<Input>) -> Self {
        self.filters.push(input.into());
        self
    }

    /// Adds a system's per-answer ranks (`PATH` or `NAME=PATH`).
    #[must_use]
    pub fn ranks(mut self, spec: &str) -> Self {
        self.ranks.push(SystemInput::parse(spec));
        self
    }

    /// The tie policy by its KGC name (`realistic`, `rounded-mean` …); `None` for an order
    /// policy or an unknown name.
    #[must_use]
    pub fn tie_policy(name: &str) -> Option<TiePolicy> {
        TiePolicy::from_name(name).filter(|p| !p.is_order())
    }

    /// The score tolerance in force: `tie_tolerance`, else LibKGE's under `rounded-mean`,
    /// else exact ties.
    #[must_use]
    pub fn tolerance(&self) -> Option<Tolerance> {
        self.tie_tolerance.or((self.ties == TiePolicy::RoundedMean).then_some(Tolerance::LIBKGE))
    }

    /// Whether a system output is given (without one, only [`KgcTask::questions_text`] works).
    #[must_use]
    pub fn has_system(&self) -> bool {
        !(self.ranks.is_empty() && self.scores.is_empty() && self.run.is_empty())
    }

    /// The same task with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        let one = |i: &Option<Input>| i.as_ref().map(|i| i.resolved(base));
        let system = |s: &[SystemInput]| s.iter().map(|s| s.resolved(base)).collect();
        KgcTask {
            test: self.test.resolved(base),
            filters: self.filters.iter().map(|i| i.resolved(base)).collect(),
            entities: one(&self.entities),
            ranks: system(&self.ranks),
            scores: system(&self.scores),
            questions: one(&self.questions),
            run: system(&self.run),
            queries: one(&self.queries),
            relation_weights: self.relation_weights.as_ref().map(|w| w.resolved(base)),
            categories_from: self.categories_from.iter().map(|i| i.resolved(base)).collect(),
            judgments: one(&self.judgments),
            pool_depths: one(&self.pool_depths),
            ..self.clone()
        }
    }

    /// The test split's questions with kgc-sparsity's ids and layout (its
    /// `trec_queries.txt`): the list `questions` / `queries` expect.
    ///
    /// # Errors
    /// Invalid options; a triple file that cannot be read or is malformed.
    pub fn questions_text(&self) -> Result<String, Error> {
        self.check_options()?;
        let splits = read::splits(self)?;
        Ok(write_queries(&splits.test.questions, &splits.vocabulary))
    }

    fn check_options(&self) -> Result<(), Error> {
        if self.k.contains(&0) {
            return Err(Error::invalid("--k: expected positive cut-offs, found 0"));
        }
        if !self.category_threshold.is_finite() {
            return Err(Error::invalid(format!(
                "--category-threshold: expected a finite number, found {}",
                self.category_threshold
            )));
        }
        Ok(())
    }

    /// Every system's output, ranks first, then scores, then runs.
    fn system_outputs(&self) -> Result<Vec<SystemOutput<'_>>, Error> {
        if !self.has_system() {
            return Err(Error::invalid(
                "expected an input: --ranks FILE, --scores FILE with --questions and --entities, or --run FILE with --queries",
            ));
        }
        let mut outputs: Vec<SystemOutput<'_>> = self.ranks.iter().map(SystemOutput::Ranks).collect();
        if !self.scores.is_empty() {
            let (Some(questions), Some(_)) = (&self.questions, &self.entities) else {
                return Err(Error::invalid("--scores: expected --questions and --entities as well"));
            };
            outputs.extend(self.scores.iter().map(|s| SystemOutput::Scores(s, questions)));
        }
        if !self.run.is_empty() {
            let Some(queries) = &self.queries else {
                return Err(Error::invalid("--run: expected --queries as well"));
            };
            outputs.extend(self.run.iter().map(|r| SystemOutput::Run(r, queries)));
        }
        Ok(outputs)
    }

    fn options(&self, splits: &mut read::Splits) -> Result<KgcOptions, Error> {
        let ir_measures = ir_measure_set(&self.ir_measures)?;
        let weights = match &self.relation_weights {
            Some(spec) => Some(read::weights(spec, splits)?),
            None => None,
        };
        let categories = read::categories(self, splits)?;
        Ok(KgcOptions {
            ties: self.ties,
            ks: self.k.clone(),
            ir_measures,
            weights,
            categories,
            per_item: self.per_item,
        })
    }

    /// Reads the inputs and evaluates every system, side by side (the splits read once).
    ///
    /// # Errors
    /// An input that cannot be read or is malformed; no system output; two systems of one
    /// name; options
    /// that do not fit (k = 0, judgments without a run, a run retrieving a document twice).
    pub fn run(&self, progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.evaluate(progress, false).map(|(evaluation, _)| evaluation)
    }

    /// [`run`](Self::run), and the test split's question list as
    /// [`questions_text`](Self::questions_text) writes it, from the same read of the splits.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_with_questions(&self, progress: &dyn Progress) -> Result<(Evaluation, String), Error> {
        let (evaluation, questions) = self.evaluate(progress, true)?;
        Ok((evaluation, questions.unwrap_or_default()))
    }

    /// The evaluation and, when asked, the question list.
    fn evaluate(&self, progress: &dyn Progress, with_questions: bool) -> Result<(Evaluation, Option<String>), Error> {
        self.check_options()?;
        let outputs = self.system_outputs()?;
        let inputs: Vec<SystemInput> = outputs.iter().map(|o| o.system().clone()).collect();
        let names = system_names(&inputs)?;
        let prepared = self.prepare()?;
        let questions_text =
            with_questions.then(|| write_queries(&prepared.splits.test.questions, &prepared.splits.vocabulary));
        Ok((self.evaluate_prepared(&prepared, &outputs, &names, progress)?, questions_text))
    }

    /// Reads the splits, the options' files and the judgments: everything but the system's
    /// output.
    fn prepare(&self) -> Result<Prepared, Error> {
        let mut splits = read::splits(self)?;
        let options = self.options(&mut splits)?;
        let judgments = match &self.judgments {
            Some(input) => {
                let opened = input.open()?;
                let mut read = read_judgments(opened.bytes(), opened.name(), &mut splits.vocabulary)?;
                if let (Some(depths), Some(depth)) = (&self.pool_depths, self.max_depth) {
                    let opened = depths.open()?;
                    let pool = read_pool_depths(opened.bytes(), opened.name(), &mut splits.vocabulary)?;
                    read.judgments = judgments_up_to_depth(&read.judgments, &pool, depth);
                }
                Some((read, input.name()))
            }
            None => None,
        };
        let questions = &splits.test.questions;
        let filters = KnownAnswers::of_questions(questions, splits.filters.iter().flat_map(|f| &f.triples));
        let known = filters.with_answers_of(questions);
        Ok(Prepared { splits, options, judgments, filters, known })
    }
}

/// The splits, options, judgments and known answers of one evaluation: all of it but the
/// system's output, read once (by `run`, or kept by a [`ScoreEvaluator`] across batches).
struct Prepared {
    splits: read::Splits,
    options: KgcOptions,
    judgments: Option<(ReadJudgments, String)>,
    filters: KnownAnswers,
    known: KnownAnswers,
}

impl Prepared {
    /// The fixed inputs, borrowed.
    fn data(&self) -> KgcData<'_> {
        KgcData {
            vocabulary: &self.splits.vocabulary,
            test: &self.splits.test,
            filters: &self.filters,
            known: &self.known,
        }
    }

    /// Evaluates the observed output of system `name` (`input` names it in errors), its
    /// warnings `warnings` first.
    fn finish(
        &self,
        task: &KgcTask,
        name: &str,
        input: &str,
        observed: Observed,
        mut warnings: Vec<Diagnostic>,
    ) -> Result<KgcEvaluation, Error> {
        let data = self.data();
        let qrels = match (&self.judgments, &observed.run) {
            (Some(_), None) => {
                return Err(Error::invalid(
                    "--judgments: expected --run (the IR list derived from ranks has no judged non-answers)",
                ))
            }
            (Some((read, file)), Some(_)) => {
                let qrels = judgment_qrels(&data, &read.judgments, file);
                warnings.extend(read.warnings.iter().cloned());
                warnings.extend(qrels.warnings);
                Some(qrels.qrels)
            }
            (None, _) => None,
        };
        if observed.run.is_none() {
            let depth = self.options.ir_measures.depth_needed();
            let places = bounds::longest_rank_list(&observed.observations, &data.test.questions, depth);
            bounds::derived_list_within(input, places, &self.options.ir_measures)?;
        }
        let kgc_input = KgcInput {
            observations: &observed.observations,
            scope: observed.scope,
            ir_run: observed.run.as_ref(),
            ir_qrels: qrels.as_ref(),
        };
        let mut evaluation = evaluate_kgc(&data, &kgc_input, &self.options, name)
            .map_err(|e| Error::invalid(format!("{input}: {e}")))?;
        evaluation.conventions.sources = KgcSources {
            test: self.splits.test.file.name.clone(),
            filters: self.splits.filters.iter().map(|f| f.name.clone()).collect(),
            entity_list: self.splits.entity_list.clone(),
            system: observed.source,
            judgments: self
                .judgments
                .as_ref()
                .map(|(_, file)| JudgmentsSource { file: file.clone(), max_depth: task.max_depth }),
        };
        warnings.append(&mut evaluation.warnings);
        evaluation.warnings = warnings;
        Ok(evaluation)
    }
}

/// What the system gave, as observations.
struct Observed {
    observations: Vec<AnswerObservation>,
    scope: FilterScope,
    /// The filtered run (run input): the list of the IR measures.
    run: Option<Run>,
    /// The input as the conventions name it.
    source: SystemSource,
}

fn observe(
    data: &KgcData<'_>,
    output: &SystemOutput<'_>,
    task: &KgcTask,
    warnings: &mut Vec<Diagnostic>,
    progress: &dyn Progress,
) -> Result<Observed, Error> {
    Ok(match output {
        SystemOutput::Ranks(ranks) => {
            let opened = ranks.input.open()?;
            let read = read_ranks(opened.bytes(), opened.name(), data.test, data.vocabulary)?;
            warnings.extend(read.warnings);
            let source = SystemSource::Ranks { file: ranks.input.name(), filter: read.scope_names };
            Observed { observations: read.observations, scope: read.scope, run: None, source }
        }
        SystemOutput::Scores(scores, questions) => {
            let tolerance = task.tolerance();
            let row_options = RowOptions { tolerance, nan: task.nan };
            let observations =
                read::score_observations(data, &scores.input, questions, row_options, warnings, progress)?;
            let source =
                SystemSource::Scores { file: scores.input.name(), rows: questions.name(), tolerance, nan: task.nan };
            Observed { observations, scope: FilterScope::Known, run: None, source }
        }
        SystemOutput::Run(run, queries) => {
            let read = read::run_observations(data, &run.input, queries, warnings)?;
            let source = SystemSource::Run { file: run.input.name(), questions: queries.name() };
            Observed { observations: read.observations, scope: FilterScope::Filters, run: Some(read.filtered), source }
        }
    })
}

/// The envelope of one or more systems (in order): their warnings, the canonical table with
/// every scope value of `both` as a headline under its JSON name (`micro_mrr`,
/// `macro_hits@10`, `map_cut_20`, …); the conventions are the first system's (the options
/// are shared, only the system's source differs).
fn envelope(evaluations: Vec<KgcEvaluation>) -> Result<Evaluation, Error> {
    let Some(first) = evaluations.first() else {
        return Err(Error::invalid("kgc: expected at least one system output, found none"));
    };
    let conventions = Conventions::Kgc(Box::new(first.conventions.clone()));
    let mut table = canonical_table(evaluations.iter().map(|e| &e.score_table))?;
    for evaluation in &evaluations {
        fill_headlines(&mut table, evaluation);
    }
    let warnings = system_warnings(evaluations.iter().map(|e| (e.system.as_str(), e.warnings.as_slice())));
    Ok(Evaluation {
        family: Family::Kgc,
        systems: evaluations.iter().map(|e| e.system.clone()).collect(),
        conventions,
        warnings,
        table,
        result: FamilyResult::Kgc(evaluations),
    })
}

/// Every value of the `both` scope as a headline. The IR measures (`map_cut_20`) have
/// per-question values under the same name; every other name is aggregate-only, its
/// direction from the vocabulary (`*_mr`, `*_amr`: lower is better).
fn fill_headlines(table: &mut ScoreTable, evaluation: &KgcEvaluation) {
    let system = table.system(&evaluation.system);
    let Some((_, values)) = evaluation.scope_values().into_iter().next() else { return };
    for (name, value) in values {
        let per_item = evaluation.macro_scores.ir.iter().any(|(ir, _)| *ir == name);
        let metric =
            if per_item { table.metric(&name) } else { table.metric_with_info(&name, metric_info(&name).aggregate()) };
        table.set_headline(system, metric, value);
    }
}
