//! Paired score vectors: one metric's per-item values of every system, joined by item.
//!
//! Every significance test, the discriminative power and the data sensitivity work on a
//! [`PairedScores`]: `n_items × n_systems` values, item-major (`values[item * n_systems +
//! system]`, so one item's scores are contiguous — what the randomised tests permute). Items
//! are joined by name; a (system, item) without a value is an error unless the
//! [`MissingPolicy`] says otherwise, and what was done is counted in [`MissingCounts`].

use kgeval_model::metric_names::Direction;
use kgeval_model::{ItemId, MetricId, ScoreTable, SystemId};

use crate::MetaError;

/// What to do with an item some systems have no value for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingPolicy {
    /// An error naming the first missing cell (the default).
    #[default]
    Error,
    /// A missing value counts as 0 (trec_eval's `-c` for topics a run does not answer).
    Zero,
    /// Items lacking a value for any system are dropped.
    Drop,
}

impl MissingPolicy {
    /// Parses `error`, `zero` or `drop`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "error" => Some(Self::Error),
            "zero" => Some(Self::Zero),
            "drop" => Some(Self::Drop),
            _ => None,
        }
    }

    /// `error`, `zero` or `drop`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Zero => "zero",
            Self::Drop => "drop",
        }
    }
}

/// What the [`MissingPolicy`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MissingCounts {
    /// (system, item) cells filled with 0 under [`MissingPolicy::Zero`].
    pub zero_filled: usize,
    /// Items dropped under [`MissingPolicy::Drop`].
    pub dropped_items: usize,
}

/// One metric's per-item values for every system, joined by item.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedScores {
    /// The metric's name.
    pub metric: String,
    /// Whether larger is better; [`Direction::Neither`] is treated as larger-is-better.
    pub direction: Direction,
    /// System names, in table order.
    pub systems: Vec<String>,
    /// Item names, in table order (after dropping).
    pub items: Vec<String>,
    /// `items.len() × systems.len()` values, item-major.
    pub values: Vec<f64>,
    /// What the missing-value policy did.
    pub missing: MissingCounts,
}

impl PairedScores {
    /// Builds the paired vectors from arrays given directly (`values` item-major).
    ///
    /// # Errors
    /// [`MetaError::InvalidOption`] when `values.len() != items.len() × systems.len()`;
    /// [`MetaError::NonFinite`] for a NaN or infinite value.
    pub fn new(
        metric: &str,
        direction: Direction,
        systems: Vec<String>,
        items: Vec<String>,
        values: Vec<f64>,
    ) -> Result<Self, MetaError> {
        if values.len() != systems.len() * items.len() {
            return Err(MetaError::InvalidOption(format!(
                "{} values for {} items × {} systems",
                values.len(),
                items.len(),
                systems.len()
            )));
        }
        let scores =
            Self { metric: metric.to_owned(), direction, systems, items, values, missing: MissingCounts::default() };
        scores.check_finite()?;
        Ok(scores)
    }

    /// Joins one metric of a per-item table across its systems.
    ///
    /// # Errors
    /// [`MetaError::UnknownMetric`], [`MetaError::MissingItems`] (policy `error`),
    /// [`MetaError::NonFinite`].
    pub fn from_table(table: &ScoreTable, metric: &str, missing: MissingPolicy) -> Result<Self, MetaError> {
        let Some(metric_id) = table.find_metric(metric) else {
            return Err(MetaError::UnknownMetric {
                metric: metric.to_owned(),
                available: table.metrics().collect::<Vec<_>>().join(", "),
            });
        };
        Self::from_table_id(table, metric_id, missing)
    }

    /// [`PairedScores::from_table`] for a metric id of `table`.
    ///
    /// # Errors
    /// As [`PairedScores::from_table`].
    pub fn from_table_id(table: &ScoreTable, metric: MetricId, missing: MissingPolicy) -> Result<Self, MetaError> {
        let metric_name = table.metric_name(metric).to_owned();
        let n_systems = table.systems().len();
        let systems: Vec<String> = table.systems().map(str::to_owned).collect();
        let mut items = Vec::new();
        let mut values = Vec::new();
        let mut counts = MissingCounts::default();
        let mut first_missing: Option<(String, String)> = None;
        let mut n_missing = 0usize;
        // Only items some system scores on this metric take part.
        for item_index in 0..table.items().len() as u32 {
            let item = ItemId(item_index);
            let row: Vec<Option<f64>> = (0..n_systems as u32).map(|s| table.get(SystemId(s), item, metric)).collect();
            if row.iter().all(Option::is_none) {
                continue;
            }
            let absent = row.iter().filter(|v| v.is_none()).count();
            if absent > 0 {
                match missing {
                    MissingPolicy::Error => {
                        n_missing += absent;
                        if first_missing.is_none() {
                            let system = row.iter().position(Option::is_none).unwrap_or(0);
                            first_missing = Some((systems[system].clone(), table.item_info(item).name.clone()));
                        }
                        continue;
                    }
                    MissingPolicy::Drop => {
                        counts.dropped_items += 1;
                        continue;
                    }
                    MissingPolicy::Zero => counts.zero_filled += absent,
                }
            }
            items.push(table.item_info(item).name.clone());
            values.extend(row.iter().map(|v| v.unwrap_or(0.0)));
        }
        if let Some((system, item)) = first_missing {
            return Err(MetaError::MissingItems { metric: metric_name, system, item, missing: n_missing });
        }
        let scores = Self {
            metric: metric_name,
            direction: table.metric_info(metric).direction,
            systems,
            items,
            values,
            missing: counts,
        };
        scores.check_finite()?;
        Ok(scores)
    }

    /// The number of systems.
    #[must_use]
    pub fn n_systems(&self) -> usize {
        self.systems.len()
    }

    /// The number of items.
    #[must_use]
    pub fn n_items(&self) -> usize {
        self.items.len()
    }

    /// One item's values, one per system.
    #[must_use]
    pub fn item_row(&self, item: usize) -> &[f64] {
        let n = self.n_systems();
        &self.values[item * n..(item + 1) * n]
    }

    /// One system's values, one per item (a copy: the storage is item-major).
    #[must_use]
    pub fn system_column(&self, system: usize) -> Vec<f64> {
        self.values.iter().skip(system).step_by(self.n_systems().max(1)).copied().collect()
    }

    /// Each system's mean over items (NaN when there is no item).
    ///
    /// The sum divided by the count; when that sum overflows (finite scores near ±1.8e308),
    /// the sum of each value divided by the count instead, so a mean of finite values is
    /// always finite.
    #[must_use]
    pub fn means(&self) -> Vec<f64> {
        let n = self.n_systems();
        let items = self.n_items() as f64;
        let mut sums = vec![0.0; n];
        for row in self.values.chunks_exact(n.max(1)) {
            for (sum, value) in sums.iter_mut().zip(row) {
                *sum += value;
            }
        }
        let mut means: Vec<f64> = sums.iter().map(|sum| sum / items).collect();
        for (system, mean) in means.iter_mut().enumerate() {
            if !mean.is_finite() && self.n_items() > 0 {
                *mean = self.values.iter().skip(system).step_by(n.max(1)).map(|v| v / items).sum();
            }
        }
        means
    }

    /// `value` oriented so that larger is better (negated for lower-is-better metrics).
    #[must_use]
    pub fn oriented(&self, value: f64) -> f64 {
        if self.direction == Direction::Lower {
            -value
        } else {
            value
        }
    }

    /// A copy restricted to the items at `indices` (in that order), for subsampling.
    #[must_use]
    pub fn select_items(&self, indices: &[usize]) -> Self {
        let mut values = Vec::with_capacity(indices.len() * self.n_systems());
        for &index in indices {
            values.extend_from_slice(self.item_row(index));
        }
        Self {
            metric: self.metric.clone(),
            direction: self.direction,
            systems: self.systems.clone(),
            items: indices.iter().map(|&index| self.items[index].clone()).collect(),
            values,
            missing: self.missing,
        }
    }

    fn check_finite(&self) -> Result<(), MetaError> {
        let n = self.n_systems().max(1);
        match self.values.iter().position(|v| !v.is_finite()) {
            None => Ok(()),
            Some(at) => Err(MetaError::NonFinite {
                metric: self.metric.clone(),
                system: self.systems[at % n].clone(),
                item: self.items[at / n].clone(),
                value: self.values[at],
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> ScoreTable {
        let mut table = ScoreTable::new();
        let (a, b) = (table.system("A"), table.system("B"));
        let map = table.metric("map");
        let (q1, q2) = (table.item("q1", &[]), table.item("q2", &[]));
        table.set(a, q1, map, 0.5);
        table.set(a, q2, map, 1.0);
        table.set(b, q1, map, 0.25);
        table
    }

    #[test]
    fn missing_policies() {
        let table = table();
        let err = PairedScores::from_table(&table, "map", MissingPolicy::Error).unwrap_err();
        assert_eq!(
            err,
            MetaError::MissingItems { metric: "map".into(), system: "B".into(), item: "q2".into(), missing: 1 }
        );
        let zero = PairedScores::from_table(&table, "map", MissingPolicy::Zero).unwrap();
        assert_eq!(zero.values, vec![0.5, 0.25, 1.0, 0.0]);
        assert_eq!(zero.missing.zero_filled, 1);
        assert_eq!(zero.means(), vec![0.75, 0.125]);
        let drop = PairedScores::from_table(&table, "map", MissingPolicy::Drop).unwrap();
        assert_eq!(drop.items, vec!["q1"]);
        assert_eq!(drop.system_column(1), vec![0.25]);
        assert_eq!(drop.missing.dropped_items, 1);
    }

    #[test]
    fn unknown_metric_and_nan() {
        let mut table = table();
        assert!(matches!(
            PairedScores::from_table(&table, "ndcg", MissingPolicy::Zero),
            Err(MetaError::UnknownMetric { .. })
        ));
        let (b, q2, map) = (table.system("B"), table.item("q2", &[]), table.metric("map"));
        table.set(b, q2, map, f64::NAN);
        assert!(matches!(
            PairedScores::from_table(&table, "map", MissingPolicy::Error),
            Err(MetaError::NonFinite { .. })
        ));
    }
}
