//! The one envelope every task returns.

use kgeval_model::align::AlignConventions;
use kgeval_model::kgc::conventions::KgcConventions;
use kgeval_model::kgc::results::KgcEvaluation;
use kgeval_model::lexicon::{LexiconConventions, LexiconEvaluation};
use kgeval_model::qald::{QaldConventions, QaldEvaluation};
use kgeval_model::rank::results::{RankConventions, RankResult};
use kgeval_model::trec::{IrEvaluation, IrOptions};
use kgeval_model::{Diagnostic, ScoreTable};
use kgeval_report::{OutputFormat, RenderOptions};

use crate::{Error, Family};

/// A warning with the scope it belongs to (`system AML, pair cmt-conference`, `qrels q.txt`).
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// Where it belongs: the system, pair or input it concerns.
    pub scope: String,
    /// The warning itself (code, message, location).
    pub diagnostic: Diagnostic,
}

/// A family's conventions, typed, as the engine decided them (the report renders them).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Conventions {
    /// `kgeval align`.
    Align(AlignConventions),
    /// `kgeval kgc`.
    Kgc(Box<KgcConventions>),
    /// `kgeval lexicon`.
    Lexicon(LexiconConventions),
    /// `kgeval rank`.
    Rank(RankConventions),
    /// `kgeval qald`.
    Qald(QaldConventions),
    /// `kgeval trec`: the tie-break, query set, relevance level and depth.
    Trec(IrOptions),
}

/// A family's own result type, as its renderer takes it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum FamilyResult {
    /// `kgeval align`: one track evaluation per system, and the labels when asked for.
    Align(crate::align::AlignResult),
    /// `kgeval kgc`: one evaluation (one system).
    Kgc(Vec<KgcEvaluation>),
    /// `kgeval lexicon`: one evaluation per system.
    Lexicon(Vec<LexiconEvaluation>),
    /// `kgeval rank`: one system's leaderboard, Bio-LLM or OntoAligner figures.
    Rank(RankResult),
    /// `kgeval qald`: one evaluation per system.
    Qald(Vec<QaldEvaluation>),
    /// `kgeval trec`: every run against the qrels.
    Trec(IrEvaluation),
}

/// What a [`Task`](crate::Task) returns: one envelope for every family.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The family evaluated.
    pub family: Family,
    /// The systems evaluated, in input order.
    pub systems: Vec<String>,
    /// The conventions in force.
    pub conventions: Conventions,
    /// Every warning of the readers and the scoring, in order, with its scope.
    pub warnings: Vec<Warning>,
    /// Every system's per-item values and headlines under the canonical metric names
    /// ([`kgeval_model::metric_names`]), with metric metadata; merge tables of several
    /// evaluations with [`ScoreTable::merge`].
    pub table: ScoreTable,
    /// The family's result.
    pub result: FamilyResult,
}

/// The code prefix of coverage warnings: inputs that match only part of each other (a gold
/// key of another pair, a system of another test case, a URI list of another lexicon).
/// `--strict` turns them into errors ([`Evaluation::check_strict`]).
pub const COVERAGE_CODE_PREFIX: &str = "coverage-";

impl Evaluation {
    /// The coverage warnings (codes starting with [`COVERAGE_CODE_PREFIX`]).
    pub fn coverage_warnings(&self) -> impl Iterator<Item = &Warning> + '_ {
        self.warnings.iter().filter(|w| w.diagnostic.code.starts_with(COVERAGE_CODE_PREFIX))
    }

    /// `--strict`: every coverage warning is an error.
    ///
    /// # Errors
    /// [`Error::Unfit`] naming the first coverage warning and how many there are.
    pub fn check_strict(&self) -> Result<(), Error> {
        let count = self.coverage_warnings().count();
        match self.coverage_warnings().next() {
            None => Ok(()),
            Some(first) => Err(Error::unfit(format!(
                "--strict: found {count} coverage warning(s), expected none; first: {} ({})",
                first.diagnostic.message, first.scope
            ))),
        }
    }

    /// Renders the result as the `kgeval` CLI prints it.
    #[must_use]
    pub fn render(&self, format: OutputFormat, options: &RenderOptions) -> String {
        match &self.result {
            FamilyResult::Align(result) => kgeval_report::render_alignment(&result.tracks, format, options),
            FamilyResult::Kgc(evaluations) => kgeval_report::render_kgc(evaluations, format, options),
            FamilyResult::Lexicon(evaluations) => kgeval_report::render_lexicon(evaluations, format, options),
            FamilyResult::Rank(result) => kgeval_report::render_rank(result, format, options),
            FamilyResult::Qald(evaluations) => kgeval_report::render_qald(evaluations, format, options),
            FamilyResult::Trec(evaluation) => kgeval_report::render_ir(evaluation, format, options, &self.table),
        }
    }

    /// The headline value of `metric` for `system`, the metric named as `--fail-under` names
    /// it: canonical name, legacy alias (`mrr`, `hits_at_10`) or heading in any case (`F1`).
    #[must_use]
    pub fn headline(&self, system: &str, metric: &str) -> Option<f64> {
        let system = self.table.find_system(system)?;
        let metric = self.table.find_metric(crate::gate::resolve_headline(&self.table, metric)?)?;
        self.table.headline(system, metric)
    }

    /// The warnings of one scope, in order.
    pub fn warnings_of<'a>(&'a self, scope: &'a str) -> impl Iterator<Item = &'a Diagnostic> + 'a {
        self.warnings.iter().filter(move |w| w.scope == scope).map(|w| &w.diagnostic)
    }
}

/// The gold file's warnings once, scoped `gold`, then every system's warnings but those
/// (scoped `system NAME`, in system order). A system's own result keeps the gold's warnings
/// (its JSON lists them); the envelope, which the front ends print, has them once.
pub(crate) fn gold_and_system_warnings<'a>(
    gold: &[Diagnostic],
    systems: impl IntoIterator<Item = (&'a str, &'a [Diagnostic])>,
) -> Vec<Warning> {
    let mut warnings: Vec<Warning> =
        gold.iter().map(|d| Warning { scope: "gold".to_owned(), diagnostic: d.clone() }).collect();
    for (system, list) in systems {
        warnings.extend(
            list.iter()
                .filter(|d| !gold.contains(d))
                .map(|d| Warning { scope: format!("system {system}"), diagnostic: d.clone() }),
        );
    }
    warnings
}

/// Every system's warnings, scoped `system NAME`, in system order.
pub(crate) fn system_warnings<'a>(systems: impl IntoIterator<Item = (&'a str, &'a [Diagnostic])>) -> Vec<Warning> {
    systems
        .into_iter()
        .flat_map(|(system, warnings)| {
            warnings.iter().map(move |d| Warning { scope: format!("system {system}"), diagnostic: d.clone() })
        })
        .collect()
}

/// One canonical table from the per-system tables of a family's result.
///
/// # Errors
/// [`Error::Invalid`] when two tables disagree on a value (two systems with one name).
pub(crate) fn canonical_table<'a>(tables: impl IntoIterator<Item = &'a ScoreTable>) -> Result<ScoreTable, Error> {
    let mut out = ScoreTable::new();
    for table in tables {
        out.merge(&table.canonical()).map_err(|e| Error::invalid(e.to_string()))?;
    }
    Ok(out)
}
