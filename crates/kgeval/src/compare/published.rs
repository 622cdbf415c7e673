//! `compare --pvalues`: the discriminative power (Sakai 2006) of published p-value matrices
//! (kgc-sparsity's `discriminative_power.csv`), each metric's p-values taken as published.

use kgeval_formats::meta::pvalues::read_pvalue_matrix;
use kgeval_model::meta::compare::{CompareConventions, CompareResult, PublishedPower};
use kgeval_model::ScoreTable;

use super::run::{find_metric, CompareEvaluation};
use super::CompareTask;
use crate::Error;

/// The input format named in the conventions of a comparison of p-value matrices.
pub const PVALUES_FORMAT: &str = "pvalues";

impl CompareTask {
    /// The discriminative power of every asked metric (default: every metric) of each
    /// p-value matrix, at `alpha` (and 0.01).
    pub(super) fn run_published(&self, conventions: CompareConventions) -> Result<CompareEvaluation, Error> {
        let others = !self.inputs.is_empty() || self.qrels.is_some() || !self.runs.is_empty();
        if others || !self.ranks.is_empty() || self.kgc.is_some() {
            return Err(Error::invalid(
                "compare: found p-value matrices and score tables, expected one of them (--pvalues reads \
                 published p-values; no test runs)",
            ));
        }
        if !self.against.is_empty() || self.sensitivity || self.subsets.is_some() {
            return Err(Error::invalid(
                "compare: --pvalues with --against or --sensitivity, expected one analysis (the p-values' \
                 discriminative power)",
            ));
        }
        let mut sets = Vec::with_capacity(self.pvalues.len());
        for input in &self.pvalues {
            let opened = input.input.open()?;
            let source = opened.name().to_owned();
            let matrix = read_pvalue_matrix(opened.bytes(), &source)?;
            let available: Vec<&str> = matrix.metrics.iter().map(String::as_str).collect();
            let names: Vec<&str> = if self.metrics.is_empty() {
                available.clone()
            } else {
                self.metrics
                    .iter()
                    .map(|name| {
                        find_metric(&available, name).ok_or_else(|| {
                            Error::invalid(format!(
                                "{source}: unknown metric `{name}`, expected one of the matrix's columns ({})",
                                available.join(", ")
                            ))
                        })
                    })
                    .collect::<Result<_, _>>()?
            };
            let power = names
                .iter()
                .map(|name| {
                    let p = matrix.metric(name).unwrap_or_default();
                    kgeval_meta::discriminative_power(name, p, self.alpha)
                        .map_err(|e| Error::invalid(format!("{source}: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            sets.push(PublishedPower {
                name: input.name.clone().unwrap_or_else(|| source.clone()),
                source,
                systems: matrix.systems,
                power,
            });
        }
        let mut systems: Vec<String> = Vec::new();
        for set in &sets {
            for system in &set.systems {
                if !systems.contains(system) {
                    systems.push(system.clone());
                }
            }
        }
        Ok(CompareEvaluation {
            warnings: Vec::new(),
            table: ScoreTable::new(),
            result: CompareResult {
                conventions,
                systems,
                metrics: Vec::new(),
                agreement: None,
                sensitivity: None,
                published_power: sets,
                tie_orderings: Vec::new(),
            },
        })
    }
}
