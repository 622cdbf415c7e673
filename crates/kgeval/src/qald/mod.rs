//! `qald`: question answering over linked data: submissions against a gold question set in
//! any QALD dialect, under the QALD-3, QALD-6 or GERBIL rule, with answers optionally produced
//! by running the questions' SPARQL queries on an embedded store or an endpoint.

#[cfg(test)]
mod bounds_tests;
mod fit;
mod sparql;

use std::path::Path;
use std::time::{Duration, Instant};

use kgeval_formats::qald::{read_label_map, read_qald, ReadQald};
use kgeval_formats::Input;
pub use kgeval_metrics::qald::Normalisation;
use kgeval_metrics::qald::{evaluate_qald, QaldOptions};
use kgeval_model::metric_names::{metric_info, Aggregation};
use kgeval_model::qald::{LabelMap, QaldAggregate, QaldDataset, QaldEvaluation, QaldQuery, QaldRule, QueryExecution};
use kgeval_model::{Diagnostic, ScoreTable};
use serde::Deserialize;

use crate::evaluation::{canonical_table, gold_and_system_warnings};
use crate::gold_names::GoldNames;
use crate::inputs::{by_name, one_or_many};
use crate::{
    system_names, Conventions, Error, Evaluation, Family, FamilyResult, Progress, ResultExt as _, SystemInput,
};
pub use fit::QUESTION_TEXT_DIFFERS;
use sparql::{QueryBounds, SparqlBackend};

/// The default `timeout` of one query (an endpoint request or an embedded-store query), in
/// seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 60.0;

/// The default `max_rows`: the most rows one query may give before it is an error. 25 times
/// the largest answer set of any bundled QALD gold (3,907, QALD-6 test); 100,000 answers of
/// one variable hold about 15 MB.
pub const DEFAULT_MAX_ROWS: u64 = 100_000;

/// The largest `max_rows` a task may set.
pub const MAX_MAX_ROWS: u64 = 10_000_000;

/// The most bytes the answers of one file's queries may hold together (each answer's struct,
/// value and aliases counted), and so the most an endpoint's responses to one file may have:
/// 256 MiB. A file's queries past it are an error, as a query past `max_rows` is.
pub const MAX_ANSWER_BYTES: usize = 256 << 20;

/// The most the process's resident memory may grow while one query runs on the embedded store
/// (1 GiB): the evaluator's own tables (a sort, the materialised side of a join or a cross
/// product) are not rows, so the row cap does not bound them. Measured on the whole process
/// (on Linux, from `/proc/self/status`; elsewhere not measured), so queries running at once
/// share it.
pub const MAX_QUERY_MEMORY_GROWTH: usize = 1 << 30;

/// A QALD evaluation: the gold question set and one or more submissions.
///
/// As a manifest row: `family = "qald"`, `gold`, `system` (or `systems = [...]`, each `PATH`
/// or `NAME=PATH`), and optionally `rule` (`qald3`, the default; `qald6`; `gerbil`),
/// `language` (`en`), `data = [RDF files]` or `endpoint = "URL"`, `timeout` (seconds one
/// query may run, 60), `max_rows` (rows one query may give, 100,000), `gold_from_queries`, `labels` (an IRI → labels TSV) and a `[normalisation]` table
/// (`trim`, `boolean_case`, `iri_percent_decoding`, `numbers_as_decimals`, `date_part`: on by
/// default; `respect_literal_type`: off).
///
/// Headlines of the score table (what `--fail-under` gates), per system, over every gold
/// question (the JSON's `global`): `precision` and `recall` (macro: means of the per-question
/// values), `f1` (the mean of per-question F, the JSON's `mean_f`), `qald_f` (the harmonic mean
/// of macro P and R: QALD-3's and GERBIL's "Macro F1 QALD", the JSON's `qald_f`),
/// `micro_precision`, `micro_recall`, `micro_f1` (from summed counts); the same over the
/// questions present in the submission (the JSON's `local`) prefixed `local_`
/// (`local_precision`, …, `local_qald_f`, `local_micro_f1`).
///
/// ```no_run
/// use kgeval::qald::QaldTask;
/// let task = QaldTask::new("testdata/qald/sparql/gold.xml")
///     .system("testdata/qald/sparql/system.json")
///     .data("testdata/qald/sparql/data.ttl")
///     .data("testdata/qald/sparql/extra.rdf");
/// let evaluation = task.run(&kgeval::NoProgress)?;
/// assert!(evaluation.headline("system", "f1").is_some_and(|f1| f1 > 0.9));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QaldTask {
    /// The gold question set (any QALD XML or JSON dialect).
    pub gold: Input,
    /// The submissions.
    #[serde(alias = "system", deserialize_with = "one_or_many")]
    pub systems: Vec<SystemInput>,
    /// What a non-empty gold answered with the empty set scores (default `qald3`).
    #[serde(default, deserialize_with = "rule")]
    pub rule: QaldRule,
    /// The questions' language: failed-question texts, language breakdown (default `en`).
    #[serde(default = "default_language", alias = "lang")]
    pub language: String,
    /// RDF files loaded into an embedded store to run queries given without answers (one
    /// path or a list).
    #[serde(default, deserialize_with = "one_or_many")]
    pub data: Vec<Input>,
    /// A SPARQL 1.1 protocol endpoint to run queries given without answers.
    #[serde(default)]
    pub endpoint: Option<String>,
    /// Seconds one query may run — an endpoint request, or a query on the embedded store,
    /// whose evaluation is cancelled then (default 60). Past it the query is an error.
    #[serde(default = "default_timeout")]
    pub timeout: f64,
    /// The most rows one query may give (default [`DEFAULT_MAX_ROWS`], at most
    /// [`MAX_MAX_ROWS`]); past it the query is an error. The answers of one file's queries
    /// together hold at most [`MAX_ANSWER_BYTES`].
    #[serde(default = "default_max_rows")]
    pub max_rows: u64,
    /// Run every gold SPARQL query and use its results as the gold answers.
    #[serde(default)]
    pub gold_from_queries: bool,
    /// IRI → labels (TSV: IRI, then labels), so a label answer can match a URI gold.
    #[serde(default, alias = "label_map")]
    pub labels: Option<Input>,
    /// The normalisation steps applied before answers are compared.
    #[serde(default, deserialize_with = "normalisation")]
    pub normalisation: Normalisation,
}

fn default_language() -> String {
    "en".to_owned()
}

fn default_timeout() -> f64 {
    DEFAULT_TIMEOUT_SECS
}

fn default_max_rows() -> u64 {
    DEFAULT_MAX_ROWS
}

fn rule<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<QaldRule, D::Error> {
    by_name(deserializer, QaldRule::from_name, "qald3, qald6 or gerbil")
}

/// The serde shape of [`Normalisation`]: a table of switches, each missing one as in
/// [`Normalisation::default`].
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
#[allow(clippy::struct_excessive_bools)]
struct Switches {
    trim: bool,
    boolean_case: bool,
    iri_percent_decoding: bool,
    numbers_as_decimals: bool,
    date_part: bool,
    respect_literal_type: bool,
}

impl Default for Switches {
    fn default() -> Self {
        let n = Normalisation::default();
        Switches {
            trim: n.trim,
            boolean_case: n.boolean_case,
            iri_percent_decoding: n.iri_percent_decoding,
            numbers_as_decimals: n.numbers_as_decimals,
            date_part: n.date_part,
            respect_literal_type: n.respect_literal_type,
        }
    }
}

fn normalisation<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Normalisation, D::Error> {
    let s = Switches::deserialize(deserializer)?;
    Ok(Normalisation {
        trim: s.trim,
        boolean_case: s.boolean_case,
        iri_percent_decoding: s.iri_percent_decoding,
        numbers_as_decimals: s.numbers_as_decimals,
        date_part: s.date_part,
        respect_literal_type: s.respect_literal_type,
    })
}

/// The switches of [`Normalisation`], named as a manifest's `[normalisation]` table names them.
pub const NORMALISATION_SWITCHES: [&str; 6] =
    ["trim", "boolean_case", "iri_percent_decoding", "numbers_as_decimals", "date_part", "respect_literal_type"];

/// [`Normalisation::default`] with the named switches set, as a manifest's `[normalisation]`
/// table sets them (a front end holding switches by name, such as the Python package's
/// `normalisation={"trim": False}`).
///
/// # Errors
/// A name that is not one of [`NORMALISATION_SWITCHES`].
pub fn normalisation_with(switches: &[(&str, bool)]) -> Result<Normalisation, Error> {
    let mut n = Normalisation::default();
    for &(name, on) in switches {
        let switch = match name {
            "trim" => &mut n.trim,
            "boolean_case" => &mut n.boolean_case,
            "iri_percent_decoding" => &mut n.iri_percent_decoding,
            "numbers_as_decimals" => &mut n.numbers_as_decimals,
            "date_part" => &mut n.date_part,
            "respect_literal_type" => &mut n.respect_literal_type,
            _ => {
                return Err(Error::invalid(format!(
                    "normalisation: found switch {name:?}, expected one of {}",
                    NORMALISATION_SWITCHES.join(", ")
                )))
            }
        };
        *switch = on;
    }
    Ok(n)
}

impl QaldTask {
    /// A task with the default options and no system yet.
    #[must_use]
    pub fn new(gold: impl Into<Input>) -> Self {
        QaldTask {
            gold: gold.into(),
            systems: Vec::new(),
            rule: QaldRule::default(),
            language: default_language(),
            data: Vec::new(),
            endpoint: None,
            timeout: DEFAULT_TIMEOUT_SECS,
            max_rows: DEFAULT_MAX_ROWS,
            gold_from_queries: false,
            labels: None,
            normalisation: Normalisation::default(),
        }
    }

    /// Adds a system (`PATH` or `NAME=PATH`).
    #[must_use]
    pub fn system(mut self, spec: &str) -> Self {
        self.systems.push(SystemInput::parse(spec));
        self
    }

    /// Adds an RDF file to the embedded store.
    #[must_use]
    pub fn data(mut self, input: impl Into<Input>) -> Self {
        self.data.push(input.into());
        self
    }

    /// Sets the rule preset.
    #[must_use]
    pub fn rule(mut self, rule: QaldRule) -> Self {
        self.rule = rule;
        self
    }

    /// The same task with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        QaldTask {
            gold: self.gold.resolved(base),
            systems: self.systems.iter().map(|s| s.resolved(base)).collect(),
            data: self.data.iter().map(|d| d.resolved(base)).collect(),
            labels: self.labels.as_ref().map(|l| l.resolved(base)),
            ..self.clone()
        }
    }

    /// Reads the inputs, runs the queries asked for, and scores every system.
    ///
    /// # Errors
    /// An input that cannot be read or is malformed; a submission that does not answer the
    /// gold's questions ([`Error::Unfit`]: an id the gold does not have, or more than half of
    /// the question strings it carries differing from the gold's in `language` — fewer is a
    /// [`QUESTION_TEXT_DIFFERS`] warning); a query that fails or passes its bounds (`timeout`,
    /// `max_rows`, [`MAX_ANSWER_BYTES`]); no system, two systems with one name, standard input
    /// named twice, both data files and an endpoint, or a timeout or `max_rows` out of range.
    pub fn run(&self, progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.validate()?;
        system_names(&self.systems)?;
        let gold = self.read_gold_with(progress, GoldNames::Files)?;
        self.run_with_gold(&gold, progress)
    }

    /// Reads what [`QaldTask::run`] reads besides the systems — the gold (its unanswered
    /// questions' SPARQL queries run, or every one with `gold_from_queries`), the label map,
    /// the data files loaded into the embedded store (or the endpoint's client) — for
    /// [`QaldTask::run_with_gold`].
    ///
    /// # Errors
    /// An input that cannot be read or is malformed; a gold query that fails; options that
    /// cannot run (as [`QaldTask::run`]).
    pub fn read_gold(&self) -> Result<QaldGold, Error> {
        self.read_gold_with(&crate::NoProgress, GoldNames::Files)
    }

    /// [`QaldTask::read_gold`], the gold named `names` (and, hidden, the endpoint "the task's
    /// endpoint") in what scoring against it says.
    pub(crate) fn read_gold_named(&self, names: GoldNames) -> Result<QaldGold, Error> {
        self.read_gold_with(&crate::NoProgress, names)
    }

    fn read_gold_with(&self, progress: &dyn Progress, names: GoldNames) -> Result<QaldGold, Error> {
        self.validate_options()?;
        let ReadQald { dataset: mut gold, warnings } = read(&self.gold, "gold")?;
        if self.gold_from_queries && self.data.is_empty() && self.endpoint.is_none() {
            return Err(Error::invalid(
                "--gold-from-queries: expected --data or --endpoint to run the gold queries on",
            ));
        }
        let labels: Option<LabelMap> = match &self.labels {
            Some(input) => {
                let opened = input.open().context("reading the label map")?;
                Some(read_label_map(opened.bytes(), opened.name()).context("reading the label map")?)
            }
            None => None,
        };
        let mut backend = if !self.data.is_empty() {
            Some(SparqlBackend::embedded(&self.data)?)
        } else {
            self.endpoint.as_deref().map(|url| SparqlBackend::endpoint(url, Duration::from_secs_f64(self.timeout)))
        };
        if let Some(backend) = &backend {
            progress.start("SPARQL queries of the gold", queries_to_run(&gold, self.gold_from_queries));
            backend.execute(&mut gold, self.gold_from_queries, &self.query_bounds(None), progress)?;
            progress.finish();
        }
        if names == GoldNames::Hidden {
            if let Some(backend) = &mut backend {
                backend.show_endpoint_as("the task's endpoint");
            }
        }
        Ok(QaldGold { shown: names.phrase(&self.gold, "the gold"), gold, warnings, labels, backend })
    }

    /// [`QaldTask::run`] against what [`QaldTask::read_gold`] read (of a task with the same
    /// gold, label map, data or endpoint): only the systems are read (and their queries run).
    /// The results, warnings and errors are those of `run`.
    ///
    /// # Errors
    /// As [`QaldTask::run`], but for reading the gold, label map and data.
    pub fn run_with_gold(&self, gold_read: &QaldGold, progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.run_with_gold_until(gold_read, progress, None)
    }

    /// [`QaldTask::run_with_gold`] with every query of the systems finished by `deadline`
    /// (besides each query's `timeout`): a server scoring an upload under a time limit, whose
    /// scorer must not outlive it. Past it, the running query is cancelled and the file is an
    /// error, as a query past its timeout is.
    ///
    /// # Errors
    /// As [`QaldTask::run_with_gold`].
    pub fn run_with_gold_until(
        &self,
        gold_read: &QaldGold,
        progress: &dyn Progress,
        deadline: Option<Instant>,
    ) -> Result<Evaluation, Error> {
        self.validate()?;
        let names = system_names(&self.systems)?;
        let QaldGold { shown, gold, warnings: gold_warnings, labels, backend } = gold_read;
        let mut submissions = Vec::with_capacity(self.systems.len());
        for system in &self.systems {
            let mut read = read(&system.input, "system")?;
            read.warnings.extend(fit::check_fit(gold, &read.dataset, &self.language, shown)?);
            submissions.push(read);
        }
        if let Some(backend) = backend {
            progress.start("SPARQL queries", submissions.iter().map(|s| queries_to_run(&s.dataset, false)).sum());
            for read in &mut submissions {
                backend.execute(&mut read.dataset, false, &self.query_bounds(deadline), progress)?;
            }
            progress.finish();
        }
        let queries = backend.as_ref().map_or(QueryExecution::NotExecuted, SparqlBackend::execution);
        let options = QaldOptions {
            rule: self.rule,
            normalisation: self.normalisation,
            language: self.language.clone(),
            labels: labels.as_ref(),
        };
        progress.start("systems", submissions.len() as u64);
        let mut evaluations: Vec<QaldEvaluation> = Vec::with_capacity(submissions.len());
        for (read, name) in submissions.into_iter().zip(&names) {
            let mut evaluation = evaluate_qald(gold, &read.dataset, name, &options);
            evaluation.conventions.queries = queries.clone();
            // The same file read as gold and as a system gives the same warnings: kept once.
            let own = read.warnings.into_iter().filter(|d| !gold_warnings.contains(d));
            let mut warnings: Vec<Diagnostic> = gold_warnings.iter().cloned().chain(own).collect();
            warnings.append(&mut evaluation.warnings);
            evaluation.warnings = warnings;
            fill_headlines(&mut evaluation);
            evaluations.push(evaluation);
            progress.advance(1);
        }
        progress.finish();
        let warnings = gold_and_system_warnings(
            gold_warnings,
            evaluations.iter().map(|e| (e.system.as_str(), e.warnings.as_slice())),
        );
        let table = canonical_table(evaluations.iter().map(|e| &e.score_table))?;
        let conventions = evaluations.first().map(|e| e.conventions.clone()).unwrap_or_default();
        Ok(Evaluation {
            family: Family::Qald,
            systems: names,
            conventions: Conventions::Qald(conventions),
            warnings,
            table,
            result: FamilyResult::Qald(evaluations),
        })
    }

    /// The checks on options and inputs that need no reading.
    fn validate(&self) -> Result<(), Error> {
        if self.systems.is_empty() {
            return Err(Error::invalid("qald: expected at least one system"));
        }
        self.validate_options()
    }

    /// The bounds of every query of one file, the scoring's `deadline` if any.
    fn query_bounds(&self, deadline: Option<Instant>) -> QueryBounds {
        QueryBounds {
            max_rows: self.max_rows,
            timeout: Duration::from_secs_f64(self.timeout),
            deadline,
            answer_bytes: MAX_ANSWER_BYTES,
            memory_growth: MAX_QUERY_MEMORY_GROWTH,
        }
    }

    /// [`QaldTask::validate`] but for the systems' presence: what reading the gold needs.
    fn validate_options(&self) -> Result<(), Error> {
        // A timeout past what a `Duration` holds is refused, not a panic.
        if !(self.timeout.is_finite() && self.timeout > 0.0 && Duration::try_from_secs_f64(self.timeout).is_ok()) {
            return Err(Error::invalid(format!(
                "--timeout: expected a positive number of seconds, found {}",
                self.timeout
            )));
        }
        if !(1..=MAX_MAX_ROWS).contains(&self.max_rows) {
            return Err(Error::invalid(format!(
                "--max-rows: found {}, expected 1 to {MAX_MAX_ROWS} rows",
                self.max_rows
            )));
        }
        if !self.data.is_empty() && self.endpoint.is_some() {
            return Err(Error::invalid("found both data files and an endpoint, expected one of them"));
        }
        let mut stdin: Vec<String> = Vec::new();
        let mut note = |input: &Input, role: String| {
            if *input == Input::Stdin {
                stdin.push(role);
            }
        };
        note(&self.gold, "the gold".to_owned());
        for (i, system) in self.systems.iter().enumerate() {
            note(&system.input, format!("system {}", i + 1));
        }
        if let Some(labels) = &self.labels {
            note(labels, "the label map".to_owned());
        }
        for input in &self.data {
            note(input, "a data file".to_owned());
        }
        if stdin.len() > 1 {
            return Err(Error::invalid(format!(
                "found standard input (-) for {}, expected it for one input at most",
                stdin.join(" and ")
            )));
        }
        Ok(())
    }
}

/// What a [`QaldTask`] reads besides its systems ([`QaldTask::read_gold`]): the gold with its
/// queries' answers, its reader's warnings, the label map and where queries run.
pub struct QaldGold {
    /// How messages name the gold: `the gold FILE`, or for a served task `the gold`.
    shown: String,
    gold: QaldDataset,
    warnings: Vec<Diagnostic>,
    labels: Option<LabelMap>,
    backend: Option<SparqlBackend>,
}

impl QaldGold {
    /// Each gold question's id and its text, in English where the gold has it (else its first
    /// language), in gold order; a question without text is left out.
    #[must_use]
    pub fn question_texts(&self) -> Vec<(String, String)> {
        self.gold
            .questions
            .iter()
            .filter_map(|q| {
                let text = q.strings.iter().find(|s| s.language.eq_ignore_ascii_case("en")).or(q.strings.first())?;
                Some((q.id.clone(), text.text.clone()))
            })
            .collect()
    }
}

impl std::fmt::Debug for QaldGold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QaldGold")
            .field("shown", &self.shown)
            .field("questions", &self.gold.questions.len())
            .finish_non_exhaustive()
    }
}

/// How many queries of `dataset` run: those of unanswered questions, or every one with `all`.
fn queries_to_run(dataset: &QaldDataset, all: bool) -> u64 {
    dataset.questions.iter().filter(|q| matches!(q.query, QaldQuery::Sparql(_)) && (all || q.answers.is_none())).count()
        as u64
}

fn read(input: &Input, role: &str) -> Result<ReadQald, Error> {
    tracing::info!(input = %input, role, "reading QALD file");
    let context = format!("reading the {role}");
    let opened = input.open().context(context.clone())?;
    read_qald(opened.bytes(), opened.name()).context(context)
}

/// The headlines (see [`QaldTask`]): global over every gold question, then local over the
/// processed ones with a `local_` prefix.
fn fill_headlines(evaluation: &mut QaldEvaluation) {
    let (global, local) = (evaluation.global, evaluation.local);
    let table = &mut evaluation.score_table;
    for (prefix, a) in [("", &global), ("local_", &local)] {
        set_scope(table, &evaluation.system, prefix, a);
    }
}

fn set_scope(table: &mut ScoreTable, system: &str, prefix: &str, a: &QaldAggregate) {
    let system = table.system(system);
    let macro_metrics = [("precision", a.macro_precision), ("recall", a.macro_recall), ("f1", a.mean_f)];
    for (name, value) in macro_metrics {
        let metric = if prefix.is_empty() {
            table.metric(name)
        } else {
            table.metric_with_info(&format!("{prefix}{name}"), metric_info(name).aggregate())
        };
        table.set_headline(system, metric, value);
    }
    let name = format!("{prefix}qald_f");
    let metric = table.metric_with_info(&name, metric_info("qald_f").aggregate());
    table.set_headline(system, metric, a.qald_f);
    let micro =
        [("micro_precision", a.micro.precision), ("micro_recall", a.micro.recall), ("micro_f1", a.micro.f_measure)];
    for (name, value) in micro {
        let info = metric_info(name).aggregate().with_aggregation(Aggregation::MicroFromCounts);
        let metric = table.metric_with_info(&format!("{prefix}{name}"), info);
        table.set_headline(system, metric, value);
    }
}

#[cfg(test)]
mod tests;
