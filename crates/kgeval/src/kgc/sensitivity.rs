//! KGC data sensitivity (seed 004 §5.1): subsample the test *triples*, rebuild the questions
//! of each subset and re-evaluate every system from its per-answer observations, so macro
//! metrics (a question's best answer) and the IR list are recomputed, not averaged from a
//! per-question table.
//!
//! What stays fixed across subsets: each system's observations (read once; a rank does not
//! change when other test triples are dropped, since the evaluation's filter keeps every known
//! true triple — the dropped test triples are still true), the filter files and the options.
//! What changes: the test split (the subset, in file order), hence the questions, their answer
//! sets and the micro and macro denominators.

use kgeval_meta::sensitivity::{sensitivity, SensitivitySetup};
use kgeval_metrics::kgc::{evaluate_kgc, KgcData, KgcInput, KgcOptions};
use kgeval_model::kgc::results::KgcEvaluation;
use kgeval_model::kgc::{AnswerObservation, FilterScope, KnownAnswers, TestSet, TripleFile};
use kgeval_model::meta::agreement::TauVariant;
use kgeval_model::meta::sensitivity::{Sensitivity, SubsetSource};
use kgeval_model::Diagnostic;

use super::{observe, read, KgcTask, SystemOutput};
use crate::{system_names, Error, Progress, SystemInput};

/// Seed 004's metrics of the stability study (Fig. 7), under the kgc JSON names.
pub const SENSITIVITY_METRICS: [&str; 6] =
    ["micro_mrr", "micro_hits@10", "macro_mrr", "macro_hits@10", "map_cut_20", "ndcg_cut_20"];

impl KgcTask {
    /// Data sensitivity of several systems on this task's test split: Kendall's tau between
    /// the systems' ordering on subsets of the test triples and on all of them, per metric
    /// (names of the kgc JSON `both` scope: `micro_mrr`, `macro_mrr`, `map_cut_20`, …; empty:
    /// [`SENSITIVITY_METRICS`]).
    ///
    /// `systems` are per-answer rank files, or dense score matrices when this task has
    /// `scores` (with its `questions` and `entities`); this task's own system input, if any,
    /// is not used. Runs are not accepted (a run's IR list is fixed to the full questions).
    ///
    /// # Errors
    /// Fewer than two systems, a run task, unknown metrics, invalid subsets, unreadable or
    /// malformed inputs.
    pub fn sensitivity(
        &self,
        systems: &[SystemInput],
        metrics: &[String],
        source: SubsetSource,
        variant: TauVariant,
        progress: &dyn Progress,
    ) -> Result<(Sensitivity, Vec<Diagnostic>), Error> {
        self.check_options()?;
        if !self.run.is_empty() {
            return Err(Error::invalid(
                "data sensitivity: expected ranks or scores (a run's IR list is fixed to the full questions)",
            ));
        }
        let names = system_names(systems)?;
        let metrics: Vec<String> = if metrics.is_empty() {
            SENSITIVITY_METRICS.iter().map(|m| (*m).to_owned()).collect()
        } else {
            metrics.to_vec()
        };
        let mut splits = read::splits(self)?;
        let mut options = self.options(&mut splits)?;
        options.per_item = false;
        let questions = &splits.test.questions;
        let filters = KnownAnswers::of_questions(questions, splits.filters.iter().flat_map(|f| &f.triples));
        let known = filters.with_answers_of(questions);
        let data = KgcData { vocabulary: &splits.vocabulary, test: &splits.test, filters: &filters, known: &known };

        let mut warnings = Vec::new();
        let mut observed = Vec::with_capacity(systems.len());
        for system in systems {
            let output = match (self.scores.is_empty(), &self.questions) {
                (false, Some(rows)) => SystemOutput::Scores(system, rows),
                (false, None) => return Err(Error::invalid("--scores: expected --questions and --entities as well")),
                _ => SystemOutput::Ranks(system),
            };
            let read = observe(&data, &output, self, &mut warnings, progress)?;
            observed.push((read.observations, read.scope));
        }

        let evaluate_all = |test: &TestSet| -> Result<Vec<Vec<f64>>, Error> {
            let data = KgcData { test, ..data };
            let mut values = vec![Vec::with_capacity(names.len()); metrics.len()];
            for ((observations, scope), name) in observed.iter().zip(&names) {
                let subset = remap(splits.test.questions.questions(), test, observations);
                let evaluation = evaluate(&data, &subset, *scope, &options, name)?;
                for (slot, metric) in values.iter_mut().zip(&metrics) {
                    slot.push(scope_value(&evaluation, metric)?);
                }
            }
            Ok(values)
        };
        let full = evaluate_all(&splits.test)?;
        let setup = SensitivitySetup {
            metrics: metrics.clone(),
            systems: names.clone(),
            items: splits.test.file.triples.len(),
            unit: "test triples".into(),
            source,
            variant,
        };
        let file = &splits.test.file;
        let result = sensitivity(setup, &full, |subset| {
            let sub = TripleFile {
                name: file.name.clone(),
                triples: subset.iter().map(|&i| file.triples[i]).collect(),
                lines: subset.iter().map(|&i| file.lines[i]).collect(),
            };
            evaluate_all(&TestSet::new(sub))
        })?;
        Ok((result, warnings))
    }
}

/// The observations of the answers `test` still asks for, with their question indices in
/// `test`'s question set.
fn remap(
    full: &[kgeval_model::kgc::Question],
    test: &TestSet,
    observations: &[AnswerObservation],
) -> Vec<AnswerObservation> {
    observations
        .iter()
        .filter_map(|observation| {
            let key = &full.get(observation.question as usize)?.key;
            let question = test.questions.index_of(key)?;
            test.questions
                .get(question)
                .answers
                .contains(&observation.answer)
                .then_some(AnswerObservation { question, ..*observation })
        })
        .collect()
}

fn evaluate(
    data: &KgcData<'_>,
    observations: &[AnswerObservation],
    scope: FilterScope,
    options: &KgcOptions,
    name: &str,
) -> Result<KgcEvaluation, Error> {
    let input = KgcInput { observations, scope, ir_run: None, ir_qrels: None };
    evaluate_kgc(data, &input, options, name).map_err(|e| Error::invalid(format!("{name}: {e}")))
}

/// A value of the `both` scope by its JSON name.
fn scope_value(evaluation: &KgcEvaluation, metric: &str) -> Result<f64, Error> {
    let scopes = evaluation.scope_values();
    let values = scopes.first().map(|(_, values)| values.as_slice()).unwrap_or_default();
    values.iter().find(|(name, _)| name == metric).map(|(_, value)| *value).ok_or_else(|| {
        let known: Vec<&str> = values.iter().map(|(name, _)| name.as_str()).collect();
        Error::invalid(format!("data sensitivity: unknown metric `{metric}`; kgc has {}", known.join(", ")))
    })
}

impl From<kgeval_meta::MetaError> for Error {
    fn from(error: kgeval_meta::MetaError) -> Self {
        Error::Invalid(error.to_string())
    }
}
