//! `lexicon`: a lemon / OntoLex lexicon against a gold lexicon per class and property
//! (QALD-3 Task 2).

use std::path::Path;

use kgeval_formats::lexicon::{read_lexicon, read_uri_list, LexiconReadOptions, ReadLexicon};
use kgeval_formats::Input;
use kgeval_formats::Read;
use kgeval_metrics::lexicon::evaluate_lexicon;
use kgeval_model::lexicon::{LexiconConventions, LexiconEvaluation, LexiconMode, UriList};
use kgeval_model::metric_names::metric_info;
use kgeval_model::Diagnostic;
use serde::Deserialize;

use crate::evaluation::{canonical_table, gold_and_system_warnings};
use crate::gold_names::GoldNames;
use crate::inputs::{by_name, one_or_many};
use crate::{
    system_names, Conventions, Error, Evaluation, Family, FamilyResult, Progress, ResultExt as _, SystemInput,
};

/// A lexicon evaluation: the gold lexicon, the URI list and one or more submitted lexicons.
///
/// As a manifest row: `family = "lexicon"`, `gold`, `uris`, `system` (or `systems = [...]`,
/// each `PATH` or `NAME=PATH`), optional `mode` (`paper`, `qald3-script`) and `base_iri`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LexiconTask {
    /// The gold lemon / OntoLex lexicon (Turtle).
    pub gold: Input,
    /// The URIs to score: classes, a blank line, properties (QALD-3 format).
    pub uris: Input,
    /// The submitted lexicons.
    #[serde(alias = "system", deserialize_with = "one_or_many")]
    pub systems: Vec<SystemInput>,
    /// Paper formulas (default) or the original QALD-3 script with its quirks.
    #[serde(default, deserialize_with = "mode")]
    pub mode: LexiconMode,
    /// Base IRI for relative IRIs in both lexicons.
    #[serde(default)]
    pub base_iri: Option<String>,
}

fn mode<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<LexiconMode, D::Error> {
    by_name(deserializer, LexiconMode::from_name, "paper or qald3-script")
}

impl LexiconTask {
    /// A task with the default options and no system yet.
    #[must_use]
    pub fn new(gold: impl Into<Input>, uris: impl Into<Input>) -> Self {
        LexiconTask {
            gold: gold.into(),
            uris: uris.into(),
            systems: Vec::new(),
            mode: LexiconMode::Paper,
            base_iri: None,
        }
    }

    /// Adds a system (`PATH` or `NAME=PATH`).
    #[must_use]
    pub fn system(mut self, spec: &str) -> Self {
        self.systems.push(SystemInput::parse(spec));
        self
    }

    /// The same task with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        LexiconTask {
            gold: self.gold.resolved(base),
            uris: self.uris.resolved(base),
            systems: self.systems.iter().map(|s| s.resolved(base)).collect(),
            ..self.clone()
        }
    }

    /// Reads the inputs and scores every system.
    ///
    /// # Errors
    /// An input that cannot be read or is malformed; no system; two systems with one name.
    pub fn run(&self, progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.check_systems()?;
        self.run_with_gold(&self.read_gold()?, progress)
    }

    fn check_systems(&self) -> Result<Vec<String>, Error> {
        if self.systems.is_empty() {
            return Err(Error::invalid("lexicon: expected at least one system lexicon"));
        }
        system_names(&self.systems)
    }

    /// Reads the task's URI list and gold lexicon as [`LexiconTask::run`] does, for
    /// [`LexiconTask::run_with_gold`].
    ///
    /// # Errors
    /// Either cannot be read or is malformed.
    pub fn read_gold(&self) -> Result<LexiconGold, Error> {
        self.read_gold_named(GoldNames::Files)
    }

    /// [`LexiconTask::read_gold`], the gold lexicon and URI list named `names` in what
    /// scoring against them says.
    pub(crate) fn read_gold_named(&self, names: GoldNames) -> Result<LexiconGold, Error> {
        let options = LexiconReadOptions { base_iri: self.base_iri.clone() };
        let opened = self.uris.open().context("reading the URI list")?;
        let uris = read_uri_list(opened.bytes(), opened.name()).context("reading the URI list")?;
        let opened = self.gold.open().context("reading the gold lexicon")?;
        let gold = read_lexicon(opened.bytes(), opened.name(), &options).context("reading the gold lexicon")?;
        Ok(LexiconGold {
            uris,
            gold,
            uris_name: names.name(&self.uris, "URI list"),
            gold_phrase: names.phrase(&self.gold, "the gold lexicon"),
        })
    }

    /// [`LexiconTask::run`] against a URI list and gold lexicon already read
    /// ([`LexiconTask::read_gold`] of a task with the same gold, URIs and `base_iri`): only the
    /// systems are read. The results, warnings and errors are those of `run`.
    ///
    /// # Errors
    /// As [`LexiconTask::run`], but for reading the gold.
    pub fn run_with_gold(&self, gold: &LexiconGold, progress: &dyn Progress) -> Result<Evaluation, Error> {
        let names = self.check_systems()?;
        let options = LexiconReadOptions { base_iri: self.base_iri.clone() };
        let kept = gold;
        let Read { value: uris, warnings: uri_warnings } = &gold.uris;
        let gold = &gold.gold;
        progress.start("system lexicons", self.systems.len() as u64);
        let mut evaluations: Vec<LexiconEvaluation> = Vec::with_capacity(self.systems.len());
        for (system, name) in self.systems.iter().zip(&names) {
            let opened = system.input.open().context("reading the system lexicon")?;
            let read = read_lexicon(opened.bytes(), opened.name(), &options).context("reading the system lexicon")?;
            let mut evaluation = evaluate_lexicon(&gold.lexicon, &read.lexicon, uris, self.mode, name);
            let mut warnings = uri_warnings.clone();
            if evaluations.is_empty() {
                warnings.extend(uri_coverage(&evaluation, uris.uris.len(), kept)?);
            }
            warnings.extend(gold.warnings.iter().cloned());
            // The same file read as gold and as a system gives the same warnings: kept once.
            warnings.extend(read.warnings.into_iter().filter(|d| !gold.warnings.contains(d)));
            warnings.append(&mut evaluation.warnings);
            evaluation.warnings = warnings;
            fill_headlines(&mut evaluation);
            evaluations.push(evaluation);
            progress.advance(1);
        }
        progress.finish();
        let warnings = gold_and_system_warnings(
            &gold.warnings,
            evaluations.iter().map(|e| (e.system.as_str(), e.warnings.as_slice())),
        );
        let table = canonical_table(evaluations.iter().map(|e| &e.score_table))?;
        Ok(Evaluation {
            family: Family::Lexicon,
            systems: names,
            conventions: Conventions::Lexicon(LexiconConventions { mode: self.mode, listed_uris: uris.uris.len() }),
            warnings,
            table,
            result: FamilyResult::Lexicon(evaluations),
        })
    }
}

/// A [`LexiconTask`]'s URI list and gold lexicon as read, to score many systems against.
#[derive(Debug, Clone)]
pub struct LexiconGold {
    uris: Read<UriList>,
    gold: ReadLexicon,
    /// How messages name the URI list: its file, or `the gold's URI list`.
    uris_name: String,
    /// How messages name the gold lexicon: `the gold lexicon FILE`, or `the gold`.
    gold_phrase: String,
}

/// How many listed URIs the gold lexicon has an entry for: none is an error (every URI would
/// score P = R = F = 1 on 0/0), some missing a `coverage-uri-list` warning with the counts.
fn uri_coverage(
    evaluation: &LexiconEvaluation,
    listed: usize,
    gold: &LexiconGold,
) -> Result<Option<Diagnostic>, Error> {
    let (uris, gold) = (&gold.uris_name, &gold.gold_phrase);
    let covered = evaluation.uris.iter().take(listed).filter(|u| !u.gold.is_empty()).count();
    if listed > 0 && covered == 0 {
        return Err(Error::unfit(format!(
            "{uris}:1:1: found no listed URI with an entry in {gold} ({listed} listed), expected the URI list of this gold lexicon"
        )));
    }
    Ok((covered < listed).then(|| {
        Diagnostic::warning(
            "coverage-uri-list",
            format!(
                "{} of {listed} listed URIs have no entry in the gold lexicon (they score 1 when the system has none, 0 otherwise)",
                listed - covered
            ),
        )
    }))
}

/// The headlines: the averages (`precision`, `recall`, `f1`, `accuracy`, `accuracy_raw`) and
/// the micro scores (`micro_precision`, `micro_recall`, `micro_f1`, aggregate-only).
fn fill_headlines(evaluation: &mut LexiconEvaluation) {
    let table = &mut evaluation.score_table;
    let system = table.system(&evaluation.system);
    let (a, m) = (evaluation.average, evaluation.micro);
    for (name, value) in [
        ("precision", a.precision),
        ("recall", a.recall),
        ("f1", a.f_measure),
        ("accuracy", evaluation.average_accuracy),
        ("accuracy_raw", evaluation.average_accuracy_raw),
    ] {
        let metric = table.metric(name);
        table.set_headline(system, metric, value);
    }
    for (name, value) in [("micro_precision", m.precision), ("micro_recall", m.recall), ("micro_f1", m.f_measure)] {
        let metric = table.metric_with_info(name, metric_info(name).aggregate());
        table.set_headline(system, metric, value);
    }
}
