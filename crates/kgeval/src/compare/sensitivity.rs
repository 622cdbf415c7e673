//! `compare --sensitivity`: the data sensitivity of the system ordering (seed 004 §5.1).
//!
//! Score tables: subsets of the items, each metric's value the mean over the subset (the
//! headline of every per-item metric that averages over items). KGC (`kgc` with `ranks`):
//! subsets of the test triples, the questions rebuilt and every system re-evaluated from its
//! per-answer ranks ([`KgcTask::sensitivity`](crate::kgc::KgcTask::sensitivity)).

use kgeval_formats::meta::subsets::read_subsets;
use kgeval_meta::sensitivity::item_sensitivity;
use kgeval_meta::PairedScores;
use kgeval_model::meta::compare::{CompareConventions, CompareResult};
use kgeval_model::meta::sensitivity::SubsetSource;
use kgeval_model::{Aggregation, ScoreTable};

use super::inputs::{evaluate_runs, read_side, Side};
use super::run::{select_metrics, CompareEvaluation};
use super::CompareTask;
use crate::{Error, Progress, Warning};

impl CompareTask {
    /// The sensitivity curve of this task's systems.
    pub(super) fn run_sensitivity(
        &self,
        mut conventions: CompareConventions,
        progress: &dyn Progress,
    ) -> Result<CompareEvaluation, Error> {
        if !self.against.is_empty() {
            return Err(Error::invalid("compare: --sensitivity and --against are two analyses; give one of them"));
        }
        let source = self.subset_source()?;
        if let Some(kgc) = &self.kgc {
            if !self.inputs.is_empty() || self.qrels.is_some() {
                return Err(Error::invalid(
                    "compare --sensitivity: found KGC ranks and score tables, expected one of them",
                ));
            }
            conventions.input_format = "kgc ranks".to_owned();
            let (sensitivity, diagnostics) = kgc.sensitivity(&self.ranks, &self.metrics, source, self.tau, progress)?;
            let warnings =
                diagnostics.into_iter().map(|diagnostic| Warning { scope: "kgc".to_owned(), diagnostic }).collect();
            return Ok(evaluation(conventions, ScoreTable::new(), warnings, sensitivity));
        }
        if !self.ranks.is_empty() {
            return Err(Error::invalid("compare: --ranks needs the KGC split (--kgc-test, --kgc-filter)"));
        }
        let mut warnings = Vec::new();
        let table = match &self.qrels {
            Some(qrels) => {
                conventions.input_format = "qrels+runs".to_owned();
                let super::inputs::EvaluatedRuns { table, warnings: run_warnings, .. } =
                    evaluate_runs(qrels, &self.runs, &self.metrics, self.ties, false, progress)?;
                warnings.extend(run_warnings);
                table
            }
            None => {
                if self.ties != kgeval_model::trec::Ties::Trec {
                    return Err(Error::invalid(format!(
                        "compare: found --ties {}, which values runs against --qrels; score tables carry their values",
                        self.ties
                    )));
                }
                let side = read_side(&self.inputs, self.input_format)?;
                conventions.input_format = side.format_names();
                side_table(side)?
            }
        };

        let metrics: &[String] = if self.qrels.is_some() { &[] } else { &self.metrics };
        self.sensitivity_of(table, metrics, source, conventions, warnings)
    }

    /// The sensitivity curve of the systems of `table` (read or in memory) on `metrics`
    /// (empty: the default selection).
    pub(super) fn sensitivity_of(
        &self,
        table: ScoreTable,
        metrics: &[String],
        source: SubsetSource,
        conventions: CompareConventions,
        mut warnings: Vec<Warning>,
    ) -> Result<CompareEvaluation, Error> {
        let (names, metric_warnings) = select_metrics(&table, metrics)?;
        warnings.extend(metric_warnings);
        let mut scores = Vec::with_capacity(names.len());
        for name in &names {
            let metric = table.find_metric(name).map(|m| table.metric_info(m));
            if metric.is_some_and(|info| info.aggregation != Aggregation::Mean) {
                return Err(Error::invalid(format!(
                    "compare --sensitivity: the headline of `{name}` is not the mean of its items, so a subset's \
                     value cannot be recomputed from them; choose mean metrics with --metric"
                )));
            }
            scores.push(PairedScores::from_table(&table, name, self.missing)?);
        }
        let sensitivity = item_sensitivity(&scores, source, self.tau)?;
        Ok(evaluation(conventions, table, warnings, sensitivity))
    }

    /// Random subsets (ratios, repeats, seed) or the index file's.
    pub(super) fn subset_source(&self) -> Result<SubsetSource, Error> {
        match &self.subsets {
            Some(input) => {
                let opened = input.open()?;
                Ok(SubsetSource::Given(read_subsets(opened.bytes(), opened.name())?))
            }
            None => Ok(SubsetSource::Random { ratios: self.ratios.clone(), repeats: self.repeats, seed: self.seed }),
        }
    }
}

/// The per-item table of one side (a wide table has none to subsample).
fn side_table(side: Side) -> Result<ScoreTable, Error> {
    match side {
        Side::Items { table, .. } => Ok(*table),
        Side::Wide(opened) => Err(Error::invalid(format!(
            "{}: a wide system × metric table has no per-item values to subsample",
            opened.name()
        ))),
    }
}

fn evaluation(
    conventions: CompareConventions,
    table: ScoreTable,
    warnings: Vec<Warning>,
    sensitivity: kgeval_model::meta::sensitivity::Sensitivity,
) -> CompareEvaluation {
    CompareEvaluation {
        warnings,
        table,
        result: CompareResult {
            conventions,
            systems: sensitivity.systems.clone(),
            metrics: Vec::new(),
            agreement: None,
            sensitivity: Some(sensitivity),
            published_power: Vec::new(),
            tie_orderings: Vec::new(),
        },
    }
}
