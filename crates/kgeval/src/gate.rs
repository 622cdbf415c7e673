//! `--fail-under METRIC=VALUE`: a bound on a headline value of the score table, for every
//! family.

use kgeval_model::metric_names::{canonical_metric_name, Direction};
use kgeval_model::ScoreTable;

use crate::{Error, Evaluation};

mod vocabulary;
pub(crate) use vocabulary::may_name_a_headline;

/// A bound on one headline metric: every system must reach `bound` (for a lower-is-better
/// metric such as `macro_mr`: stay at or below it).
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// The metric as the user wrote it.
    pub metric: String,
    /// The bound.
    pub bound: f64,
}

/// A system that missed a [`Gate`].
#[derive(Debug, Clone, PartialEq)]
pub struct GateFailure {
    /// The system.
    pub system: String,
    /// The metric as found in the table.
    pub metric: String,
    /// Its headline value.
    pub value: f64,
    /// The bound it missed.
    pub bound: f64,
    /// Whether larger is better (`<` in the message) or smaller (`>`).
    pub direction: Direction,
}

impl std::fmt::Display for GateFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = if self.direction == Direction::Lower { ">" } else { "<" };
        write!(f, "system {}: {} {} {op} {}", self.system, self.metric, self.value, self.bound)
    }
}

impl Gate {
    /// Parses `METRIC=VALUE`.
    ///
    /// ```
    /// let gate = kgeval::Gate::parse("F1=0.6")?;
    /// assert_eq!((gate.metric.as_str(), gate.bound), ("F1", 0.6));
    /// assert!(kgeval::Gate::parse("f1").is_err());
    /// # Ok::<(), kgeval::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] without `=`, with a value that is not a finite number, or with a
    /// metric no family has (`foo`; the evaluation's table decides the rest after the run).
    pub fn parse(spec: &str) -> Result<Self, Error> {
        let (metric, value) = spec.split_once('=').ok_or_else(|| {
            Error::invalid(format!("--fail-under: expected METRIC=VALUE, found {}", kgeval_formats::echo(spec)))
        })?;
        let bound: f64 = value.trim().parse().ok().filter(|v: &f64| v.is_finite()).ok_or_else(|| {
            Error::invalid(format!("--fail-under: expected a number, found {}", kgeval_formats::echo(value)))
        })?;
        if !vocabulary::may_name_a_headline(metric) {
            return Err(Error::invalid(format!(
                "--fail-under: found metric {}, expected a headline metric (f1, macro_f1, mrr, hits@10, map, P_10, \
                 ndcg_cut_10, micro_mrr, qald_f, accuracy, …; see docs/cli.md)",
                kgeval_formats::echo(metric.trim())
            )));
        }
        Ok(Gate { metric: metric.trim().to_owned(), bound })
    }
}

/// The table's headline metric `metric` names: its canonical name, then a case-insensitive
/// match (so a column heading such as `F1` or `MRR` works), then a case-insensitive match of
/// canonical names (`Hits@10` for `hits@10`).
pub(crate) fn resolve_headline<'t>(table: &'t ScoreTable, metric: &str) -> Option<&'t str> {
    let canonical = canonical_metric_name(metric);
    let has_headline = |name: &&str| {
        let id = table.find_metric(name);
        table.systems().any(|s| table.find_system(s).zip(id).is_some_and(|(s, m)| table.headline(s, m).is_some()))
    };
    let candidates: Vec<&str> = table.metrics().filter(has_headline).collect();
    candidates
        .iter()
        .find(|n| **n == canonical)
        .or_else(|| candidates.iter().find(|n| n.eq_ignore_ascii_case(&canonical)))
        .or_else(|| {
            candidates.iter().find(|n| canonical_metric_name(&n.to_ascii_lowercase()) == canonical.to_ascii_lowercase())
        })
        .copied()
}

impl Evaluation {
    /// The systems that miss a gate, in system then gate order.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the headline metrics available when a gate's metric is not
    /// one of them.
    pub fn check_gates(&self, gates: &[Gate]) -> Result<Vec<GateFailure>, Error> {
        let mut failures = Vec::new();
        for gate in gates {
            let Some(name) = resolve_headline(&self.table, &gate.metric) else {
                let mut available: Vec<&str> = self
                    .table
                    .metrics()
                    .filter(|m| self.table.headlines().iter().any(|&(_, id, _)| self.table.metric_name(id) == *m))
                    .collect();
                available.dedup();
                return Err(Error::invalid(format!(
                    "--fail-under: found metric {}, expected one of the {} headline metrics: {}",
                    kgeval_formats::echo(&gate.metric),
                    self.family,
                    available.join(", ")
                )));
            };
            let Some(metric) = self.table.find_metric(name) else { continue };
            let direction = self.table.metric_info(metric).direction;
            for system in &self.systems {
                let Some(id) = self.table.find_system(system) else { continue };
                let Some(value) = self.table.headline(id, metric) else { continue };
                let missed = match direction {
                    Direction::Lower => value > gate.bound,
                    _ => value < gate.bound,
                };
                if missed {
                    failures.push(GateFailure {
                        system: system.clone(),
                        metric: name.to_owned(),
                        value,
                        bound: gate.bound,
                        direction,
                    });
                }
            }
        }
        Ok(failures)
    }
}

#[cfg(test)]
mod tests {
    use super::Gate;

    #[test]
    fn a_long_spec_is_echoed_capped() {
        let long = "m".repeat(1_000_000);
        for spec in [long.clone(), format!("map={long}")] {
            let message = Gate::parse(&spec).expect_err("not METRIC=NUMBER").to_string();
            assert!(message.len() < 300, "{} bytes", message.len());
            assert!(message.contains("… ("), "{message}");
        }
    }
}
