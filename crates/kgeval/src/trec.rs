//! `trec`: TREC runs against qrels with trec_eval's measures, definitions and output.

use std::path::Path;
use std::sync::Arc;

use kgeval_formats::trec::read_qrels_bytes;
use kgeval_formats::{Input, Read};
use kgeval_metrics::trec::{evaluate_run, record_run_into_table};
use kgeval_model::metric_names::metric_info;
use kgeval_model::trec::{
    IrEvaluation, IrOptions, MeasureFamily, MeasureRequest, MeasureSet, Qrels, QuerySet, Run, RunEvaluation, RunSource,
    TieBreak, Ties,
};
use kgeval_model::{Diagnostic, Location, ScoreTable};
use serde::Deserialize;

use crate::evaluation::canonical_table;
use crate::inputs::{by_name, one_or_many};
use crate::{system_names, Conventions, Error, Evaluation, Family, FamilyResult, Progress, SystemInput, Warning};

#[cfg(feature = "arrow")]
pub mod arrow;
mod gold;
mod interned;
mod merge;
mod opened;
mod tie_report;

/// Renders the runs' tie reports ([`TrecTask::tie_report`]): text, Markdown, JSON or CSV.
pub use kgeval_report::render_tie_report;
mod pytrec;
mod stream;

pub use gold::TrecGold;
pub use interned::{InternedRun, TopicSlot};
#[cfg(feature = "arrow")]
pub use merge::{read_partition_qrels, read_partition_run};
pub use merge::{RunAccumulator, RunPartition};
pub use pytrec::{aggregate_measure, supported_measures};
pub use stream::TopicStream;

use opened::{open_run, open_run_read, OpenedRun};

/// The code of the note that states, per run, how many topics were evaluated
/// (`note: RUN: 3 topics evaluated (intersection); …`).
pub const TOPICS_EVALUATED: &str = "topics-evaluated";

/// A trec_eval evaluation: one qrels, one or more runs, the measures and the policies.
///
/// As a manifest row: `family = "trec"`, `qrels`, `run` (or `runs = [...]`, each `PATH` or
/// `NAME=PATH`; `-` is standard input, once), and optionally `measures` (trec_eval `-m`
/// strings or aliases; default `["official"]`), `complete` (`-c`), `level` (`-l`, default 1),
/// `ndcg_level`, `max_docs` (`-M`) and `tie_break` (`docno-desc`, the default, `docno-asc`,
/// `rank`, `input`).
///
/// ```
/// use kgeval::trec::TrecTask;
/// let task = TrecTask::new("qrels.txt").run_file("bm25=runs/bm25.txt").measure("map").measure("P.10");
/// assert_eq!(task.measures, ["map", "P.10"]);
/// assert_eq!(TrecTask::new("qrels.txt").measures, ["official"]);
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrecTask {
    /// The qrels: `qid iter docno rel` per line.
    pub qrels: Input,
    /// The runs: `qid Q0 docno rank score tag` per line.
    #[serde(alias = "run", deserialize_with = "one_or_many")]
    pub runs: Vec<SystemInput>,
    /// The measures, as trec_eval's `-m` (`map`, `P.5,10`, `official`, `all_trec`) or aliases
    /// (`ndcg@10`, `mrr@10`); default `official`.
    #[serde(default = "official", alias = "measure", deserialize_with = "one_or_many")]
    pub measures: Vec<String>,
    /// Evaluate every qrels topic, topics the run lacks scoring 0 (trec_eval `-c`).
    #[serde(default)]
    pub complete: bool,
    /// Relevant iff the judgment is at least this level (trec_eval `-l`, default 1).
    #[serde(default = "one", alias = "relevance_level")]
    pub level: i64,
    /// Apply `level` to the gain measures too (ndcg, ndcg_cut, ndcg_rel, Rndcg, dcg, G, rbp);
    /// trec_eval ignores it there.
    #[serde(default)]
    pub ndcg_level: bool,
    /// Only the first N documents of each topic count, after sorting (trec_eval `-M`).
    #[serde(default)]
    pub max_docs: Option<usize>,
    /// Order of equal scores (default trec_eval's: docno descending).
    #[serde(default, deserialize_with = "tie_break")]
    pub tie_break: TieBreak,
    /// How measures are valued over tied scores: `trec` (the tie-break's order, default),
    /// `expected`, `optimistic`, `pessimistic` or `range` (expected, with the interval).
    #[serde(default, deserialize_with = "ties")]
    pub ties: Ties,
}

fn official() -> Vec<String> {
    vec!["official".to_owned()]
}

const fn one() -> i64 {
    1
}

fn tie_break<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<TieBreak, D::Error> {
    by_name(deserializer, TieBreak::from_name, "docno-desc, docno-asc, rank or input")
}

fn ties<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Ties, D::Error> {
    by_name(deserializer, Ties::from_name, "trec, expected, optimistic, pessimistic or range")
}

impl TrecTask {
    /// A task on `qrels` with the default options (`official` measures, trec_eval's
    /// policies) and no run yet.
    #[must_use]
    pub fn new(qrels: impl Into<Input>) -> Self {
        TrecTask {
            qrels: qrels.into(),
            runs: Vec::new(),
            measures: official(),
            complete: false,
            level: 1,
            ndcg_level: false,
            max_docs: None,
            tie_break: TieBreak::default(),
            ties: Ties::default(),
        }
    }

    /// Adds a run (`PATH`, `NAME=PATH`, `-` for standard input).
    #[must_use]
    pub fn run_file(mut self, spec: &str) -> Self {
        self.runs.push(SystemInput::parse(spec));
        self
    }

    /// Asks for a measure (replacing the default `official` on the first call).
    #[must_use]
    pub fn measure(mut self, measure: &str) -> Self {
        if self.measures == official() {
            self.measures.clear();
        }
        self.measures.push(measure.to_owned());
        self
    }

    /// The same task with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        TrecTask {
            qrels: self.qrels.resolved(base),
            runs: self.runs.iter().map(|r| r.resolved(base)).collect(),
            ..self.clone()
        }
    }

    /// The policies of this task.
    #[must_use]
    pub fn options(&self) -> IrOptions {
        IrOptions {
            tie_break: self.tie_break,
            ties: self.ties,
            query_set: if self.complete { QuerySet::Complete } else { QuerySet::Intersection },
            relevance_level: self.level,
            ndcg_uses_level: self.ndcg_level,
            max_docs: self.max_docs,
        }
    }

    /// Reads the qrels and each run (the qrels and the first run at the same time), evaluates
    /// every run and fills the score table: per-topic values, and every summary value as a
    /// headline under trec_eval's name.
    ///
    /// Each run gets a note ([`TOPICS_EVALUATED`], scope `run NAME`) with its topic counts.
    ///
    /// # Errors
    /// An unknown measure; no run, or `-` twice; an input that cannot be read or is malformed;
    /// two runs with one name; a run with no topic in common with the qrels (unless
    /// `complete`).
    pub fn run(&self, progress: &dyn Progress) -> Result<Evaluation, Error> {
        let names = self.check_runs()?;
        // The qrels and the first run are read at the same time (both cores).
        let (gold, first_run) = rayon::join(|| self.read_gold(), || open_run_read(&self.runs[0].input));
        self.evaluate_opened(&gold?, names, first_run?, progress)
    }

    /// The checks [`TrecTask::run`] makes before reading anything: the measures known, at
    /// least one run, standard input read once, the runs' names unique; the names.
    fn check_runs(&self) -> Result<Vec<String>, Error> {
        self.measure_set()?;
        if self.runs.is_empty() {
            return Err(Error::invalid("trec: expected at least one run"));
        }
        let stdin =
            self.runs.iter().filter(|r| r.input == Input::Stdin).count() + usize::from(self.qrels == Input::Stdin);
        if stdin > 1 {
            return Err(Error::invalid("stdin (-) can be read only once"));
        }
        run_names(&self.runs)
    }

    /// Evaluates every run against `gold`, the first one already opened.
    fn evaluate_opened(
        &self,
        gold: &TrecGold,
        names: Vec<String>,
        first_run: Read<OpenedRun>,
        progress: &dyn Progress,
    ) -> Result<Evaluation, Error> {
        let qrels = &gold.qrels;
        let mut first_run = Some(first_run);
        let mut runs = Runs::new(gold.name.clone(), self.measure_set()?, self.options());
        runs.warnings.extend(
            gold.warnings
                .iter()
                .map(|diagnostic| Warning { scope: format!("qrels {}", gold.name), diagnostic: diagnostic.clone() }),
        );
        progress.start("runs", self.runs.len() as u64);
        for (system, name) in self.runs.iter().zip(&names) {
            let Read { value: run, warnings } = match first_run.take() {
                Some(run) => run,
                None => open_run_read(&system.input)?,
            };
            runs.warnings
                .extend(warnings.into_iter().map(|diagnostic| Warning { scope: format!("run {name}"), diagnostic }));
            match run {
                OpenedRun::Text(run) => runs.add(qrels, &run, name, source_name(&system.input), Error::from)?,
                #[cfg(feature = "arrow")]
                OpenedRun::Arrow(run) => {
                    let source = source_name(&system.input);
                    check_interned(&source, &run)?;
                    runs.add(qrels, &run, name, source, |never| match never {})?;
                }
            }
            progress.advance(1);
        }
        progress.finish();
        runs.finish(names)
    }

    /// Evaluates runs held in memory against qrels held in memory, with this task's measures
    /// and policies: what a program that already has its judgments and rankings (Python
    /// dicts, data frames) runs. The task's own `qrels` and `runs` inputs are not read; `runs`
    /// are `(name, run)` pairs, and errors and notes name the qrels `qrels_name` and each run
    /// by its name.
    ///
    /// ```
    /// use kgeval::trec::TrecTask;
    /// use kgeval_model::trec::{Qrels, Run};
    /// let mut qrels = Qrels::new();
    /// qrels.topic_mut("q1").insert("d1", 1);
    /// let mut run = Run::default();
    /// run.push("q1", "d2", 2.0);
    /// run.push("q1", "d1", 1.0);
    /// let task = TrecTask::new("qrels").measure("recip_rank");
    /// let evaluation = task.run_in_memory(&qrels, "qrels", &[("bm25".to_owned(), run)])?;
    /// assert_eq!(evaluation.headline("bm25", "recip_rank"), Some(0.5));
    /// # Ok::<(), kgeval::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`TrecTask::run`]: an unknown measure, no run, two runs with one name, a run with
    /// no topic in common with the qrels (unless `complete`); a document retrieved twice for
    /// one topic; a score that is not finite (NaN, ±inf), which a run file cannot hold either.
    pub fn run_in_memory(&self, qrels: &Qrels, qrels_name: &str, runs: &[(String, Run)]) -> Result<Evaluation, Error> {
        self.evaluate_sources(qrels, qrels_name, runs, |name, run| {
            for (qid, docs) in &run.topics {
                if let Some(doc) = docs.iter().find(|d| !d.score.is_finite()) {
                    return Err(Error::invalid(format!(
                        "run {name}: topic {qid}: document {} has score {}, expected a finite score",
                        doc.docno, doc.score
                    )));
                }
            }
            Ok(())
        })
    }

    /// [`TrecTask::run_in_memory`] for runs whose document ids are interned
    /// ([`InternedRun`]): what a front end converting millions of in-memory entries builds.
    /// The results, notes and errors are those of `run_in_memory` on the same entries.
    ///
    /// ```
    /// use kgeval::trec::{InternedRun, TrecTask};
    /// use kgeval_model::trec::Qrels;
    /// let mut qrels = Qrels::new();
    /// qrels.topic_mut("q1").insert("d1", 1);
    /// let mut run = InternedRun::with_capacity(1, 2);
    /// let q1 = run.topic("q1");
    /// run.push(q1, "d2", 2.0);
    /// run.push(q1, "d1", 1.0);
    /// let task = TrecTask::new("qrels").measure("recip_rank");
    /// let evaluation = task.run_interned(&qrels, "qrels", &[("bm25".to_owned(), run)])?;
    /// assert_eq!(evaluation.headline("bm25", "recip_rank"), Some(0.5));
    /// # Ok::<(), kgeval::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`TrecTask::run_in_memory`].
    pub fn run_interned(
        &self,
        qrels: &Qrels,
        qrels_name: &str,
        runs: &[(String, InternedRun)],
    ) -> Result<Evaluation, Error> {
        self.evaluate_sources(qrels, qrels_name, runs, |name, run| check_interned(&format!("run {name}"), run))
    }

    /// A [`TopicStream`] for one run against `qrels`, with this task's measures and options:
    /// hand it the run's topics (from any thread), then evaluate it with
    /// [`TrecTask::run_streams`].
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first measure that names nothing known.
    pub fn topic_stream(&self, qrels: Arc<Qrels>) -> Result<TopicStream, Error> {
        Ok(TopicStream::new(qrels, self.measure_set()?, self.options()))
    }

    /// Evaluates runs handed over topic by topic ([`TrecTask::topic_stream`]): the results,
    /// notes and errors of [`TrecTask::run_in_memory`] on the same entries.
    ///
    /// # Errors
    /// As [`TrecTask::run_in_memory`]; also a stream made by a task with other measures or
    /// options, and a topic handed over twice.
    pub fn run_streams(&self, qrels_name: &str, runs: Vec<(String, TopicStream)>) -> Result<Evaluation, Error> {
        let measures = self.measure_set()?;
        let options = self.options();
        if runs.is_empty() {
            return Err(Error::invalid("trec: expected at least one run"));
        }
        let names = system_names(
            &runs.iter().map(|(name, _)| SystemInput::named(name.clone(), Input::path(name))).collect::<Vec<_>>(),
        )?;
        let mut evaluated = Vec::with_capacity(runs.len());
        for (name, stream) in runs {
            if stream.measures != measures || stream.options != options {
                return Err(Error::invalid(format!(
                    "run {name}: the topic stream was made by a task with other measures or options"
                )));
            }
            let qrels = Arc::clone(&stream.qrels);
            let result = stream.finish("kgeval").map_err(|e| Error::invalid(format!("run {name}: {e}")))?;
            evaluated.push((name, qrels, result));
        }
        let mut out = Runs::new(qrels_name.to_owned(), measures, options);
        for (name, qrels, result) in evaluated {
            out.push(&qrels, result, &name, name.clone())?;
        }
        out.finish(names)
    }

    /// Evaluates in-memory runs of any [`RunSource`] after `check` accepted each of them.
    fn evaluate_sources<S: RunSource>(
        &self,
        qrels: &Qrels,
        qrels_name: &str,
        runs: &[(String, S)],
        check: impl Fn(&str, &S) -> Result<(), Error>,
    ) -> Result<Evaluation, Error>
    where
        S::Error: std::fmt::Display,
    {
        let measures = self.measure_set()?;
        if runs.is_empty() {
            return Err(Error::invalid("trec: expected at least one run"));
        }
        let names = system_names(
            &runs.iter().map(|(name, _)| SystemInput::named(name.clone(), Input::path(name))).collect::<Vec<_>>(),
        )?;
        for (name, run) in runs {
            check(name, run)?;
        }
        let mut out = Runs::new(qrels_name.to_owned(), measures, self.options());
        for (name, run) in runs {
            out.add(qrels, run, name, name.clone(), |e| Error::invalid(format!("run {name}: {e}")))?;
        }
        out.finish(names)
    }

    /// Reads the task's qrels (for [`TrecTask::run_in_memory`] on qrels given as a file).
    ///
    /// # Errors
    /// The qrels cannot be read or are malformed.
    pub fn read_qrels(&self) -> Result<Qrels, Error> {
        Ok(load_qrels(&self.qrels)?.value)
    }

    /// The measures asked for, parsed (trec_eval's `-m` strings, aliases, and the names as
    /// trec_eval prints them: `P_5`, `ndcg_cut_10`).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first measure that names nothing known.
    pub fn measure_set(&self) -> Result<MeasureSet, Error> {
        let requests = self
            .measures
            .iter()
            .map(|m| MeasureRequest::parse(&dotted(m)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::invalid(e.to_string()))?;
        Ok(MeasureSet::from_requests(&requests))
    }
}

/// A measure named as trec_eval prints it and pytrec_eval takes it (`P_5`, `ndcg_cut_5,10`,
/// `iprec_at_recall_0.10`) in trec_eval's `-m` form (`P.5`, `ndcg_cut.5,10`,
/// `iprec_at_recall.0.10`); any other argument unchanged.
fn dotted(argument: &str) -> std::borrow::Cow<'_, str> {
    if MeasureFamily::from_name(argument).is_none() && !argument.contains('@') {
        for (at, _) in argument.match_indices('_') {
            let (name, parameters) = (&argument[..at], &argument[at + 1..]);
            if MeasureFamily::from_name(name).is_some()
                && parameters.starts_with(|c: char| c.is_ascii_digit())
                && parameters.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ',')
            {
                return format!("{name}.{parameters}").into();
            }
        }
    }
    argument.into()
}

/// What a run that an interned run cannot hold: a score that is not finite, a docno twice in a
/// topic (`WHAT: topic Q: …`).
fn check_interned(what: &str, run: &InternedRun) -> Result<(), Error> {
    match run.first_problem() {
        None => Ok(()),
        Some((qid, docno, Some(score))) => Err(Error::invalid(format!(
            "{what}: topic {qid}: document {docno} has score {score}, expected a finite score"
        ))),
        Some((qid, docno, None)) => {
            Err(Error::invalid(format!("{what}: topic {qid}: document {docno} is retrieved twice")))
        }
    }
}

/// Reads qrels: a Parquet or IPC table (feature `arrow`) by its extension or else its
/// content (standard input, gzip, another extension), else `qid iter docno rel` text.
fn load_qrels(input: &Input) -> Result<Read<Qrels>, Error> {
    let opened = input.open()?;
    #[cfg(feature = "arrow")]
    if let Some(kind) = arrow::table_kind(input, &opened) {
        return arrow::read_qrels_table(opened, kind);
    }
    Ok(read_qrels_bytes(opened.bytes(), opened.name())?)
}

/// The runs evaluated so far against one qrels: the result, the warnings and the tables.
struct Runs {
    evaluation: IrEvaluation,
    warnings: Vec<Warning>,
    tables: Vec<ScoreTable>,
}

impl Runs {
    fn new(qrels_source: String, measures: MeasureSet, options: IrOptions) -> Self {
        Runs {
            evaluation: IrEvaluation { qrels_source, options, measures, runs: Vec::new() },
            warnings: Vec::new(),
            tables: Vec::new(),
        }
    }

    /// Evaluates one run, with its note and table.
    fn add<S: RunSource>(
        &mut self,
        qrels: &Qrels,
        run: &S,
        name: &str,
        source: String,
        error: impl FnOnce(S::Error) -> Error,
    ) -> Result<(), Error> {
        let result = evaluate_run(qrels, run, &self.evaluation.measures, &self.evaluation.options).map_err(error)?;
        self.push(qrels, result, name, source)
    }

    /// Adds one evaluated run, with its note and table.
    fn push(&mut self, qrels: &Qrels, mut result: RunEvaluation, name: &str, source: String) -> Result<(), Error> {
        let evaluation = &mut self.evaluation;
        if result.topics.is_empty() {
            return Err(Error::unfit(format!(
                "{source}: no topic in common with {} ({} run topics, {} qrels topics; -c scores every qrels topic)",
                evaluation.qrels_source,
                result.run_topics_missing_from_qrels.len(),
                qrels.len()
            )));
        }
        result.source = source;
        name.clone_into(&mut result.name);
        self.warnings
            .push(Warning { scope: format!("run {name}"), diagnostic: topics_note(&result, &evaluation.options) });
        self.tables.push(run_table(&result, &evaluation.measures));
        evaluation.runs.push(result);
        Ok(())
    }

    fn finish(self, names: Vec<String>) -> Result<Evaluation, Error> {
        Ok(Evaluation {
            family: Family::Trec,
            systems: names,
            conventions: Conventions::Trec(self.evaluation.options.clone()),
            warnings: self.warnings,
            table: canonical_table(&self.tables)?,
            result: FamilyResult::Trec(self.evaluation),
        })
    }
}

/// The runs' names: `NAME=PATH`'s name, else the file's stem; when two stems collide
/// (`results.test`, `results.trunc`), unnamed runs are named by their path as given.
///
/// # Errors
/// [`Error::Invalid`] when two runs still share a name.
fn run_names(runs: &[SystemInput]) -> Result<Vec<String>, Error> {
    system_names(runs).or_else(|error| {
        let paths: Vec<SystemInput> = runs
            .iter()
            .map(|r| SystemInput { name: Some(r.name.clone().unwrap_or_else(|| source_name(&r.input))), ..r.clone() })
            .collect();
        system_names(&paths).map_err(|_| error)
    })
}

/// The run as the user named it: the path, or `-` for standard input.
fn source_name(input: &Input) -> String {
    match input {
        Input::Stdin => "-".to_owned(),
        other => other.name(),
    }
}

/// `RUN: N topics evaluated (POLICY); …`, located at the run.
fn topics_note(result: &RunEvaluation, options: &IrOptions) -> Diagnostic {
    Diagnostic::note(
        TOPICS_EVALUATED,
        format!(
            "{} topics evaluated ({}); {} qrels topics without run lines; {} run topics without qrels; {} topics with tied scores",
            result.topics.len(),
            options.query_set.name(),
            result.qrels_topics_missing_from_run.len(),
            result.run_topics_missing_from_qrels.len(),
            result.topics_with_tied_scores,
        ),
    )
    .at(Location { file: result.source.clone(), line: 0, column: 0 })
}

/// One run's table: its per-topic values, and every summary value as a headline (`runid`
/// aside). Summary-only measures (`num_q`, `gm_map`, `gm_bpref`) are aggregate-only; the
/// vocabulary gives each its aggregation (`gm_*` geometric mean, `num_*` sum, others mean).
fn run_table(result: &RunEvaluation, measures: &MeasureSet) -> ScoreTable {
    let mut table = ScoreTable::new();
    let system = table.system(&result.name);
    record_run_into_table(&mut table, system, result, measures);
    for (measure, &value) in measures.measures().iter().zip(&result.summary) {
        if measure.family == MeasureFamily::Runid || !measure.family.has_summary() {
            continue;
        }
        let metric = if measure.family.per_topic() {
            table.metric(&measure.name)
        } else {
            table.metric_with_info(&measure.name, metric_info(&measure.name).aggregate())
        };
        table.set_headline(system, metric, value);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::dotted;

    #[test]
    fn printed_names_read_as_dash_m_arguments() {
        assert_eq!(dotted("P_5"), "P.5");
        assert_eq!(dotted("ndcg_cut_5,10"), "ndcg_cut.5,10");
        assert_eq!(dotted("iprec_at_recall_0.10"), "iprec_at_recall.0.10");
        assert_eq!(dotted("map_cut_20"), "map_cut.20");
        // Names that are families, aliases or nothing known stay as they are.
        for same in ["recip_rank", "set_P", "num_rel_ret", "ndcg@10", "P.5", "foo_5", "ndcg_cut"] {
            assert_eq!(dotted(same), same);
        }
    }
}
