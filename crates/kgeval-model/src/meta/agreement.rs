//! Ranking agreement: Kendall's tau (a, b, c) with scipy's p-value, tau_AP and rank-biased
//! overlap between two orderings of the same systems, and the wide system × metric table
//! (kgc-sparsity `evaluation.csv` layout) such orderings are often published in.
//!
//! ```
//! use kgeval_model::meta::agreement::{GroupKey, SystemMetricTable, TauVariant};
//! use kgeval_model::metric_names::Direction;
//!
//! let mut table = SystemMetricTable::new("evaluation.csv", Vec::new(), &["micro_mr".to_owned()]);
//! table.push_row(GroupKey::default(), "transe", vec![310.0]);
//! table.push_row(GroupKey::default(), "rotate", vec![180.0]);
//! assert_eq!(table.metrics[0].info.direction, Direction::Lower);
//! assert_eq!(table.groups[0].value("rotate", 0), Some(180.0));
//! assert_eq!(TauVariant::from_name("b"), Some(TauVariant::B));
//! ```

use std::fmt;

use crate::metric_names::{canonical_metric_name, metric_info, Direction, MetricInfo};

/// Which Kendall tau: they differ only in how ties are normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TauVariant {
    /// tau-a = (P − Q) / (n(n−1)/2): ties count as neither agreement nor disagreement.
    A,
    /// tau-b = (P − Q) / √((P+Q+T)(P+Q+U)) (the default, = `scipy.stats.kendalltau`).
    #[default]
    B,
    /// tau-c (Stuart) = 2(P − Q) / (n²(m−1)/m), m = the smaller number of distinct values.
    C,
}

impl TauVariant {
    /// `a`, `b` or `c`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TauVariant::A => "a",
            TauVariant::B => "b",
            TauVariant::C => "c",
        }
    }

    /// Parses `a`, `b`, `c` (also `tau-b`, `tau_b`, `taub`, any case).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        let lower = name.to_ascii_lowercase();
        let short = lower.strip_prefix("tau").map_or(lower.as_str(), |rest| rest.trim_start_matches(['-', '_']));
        match short {
            "a" => Some(TauVariant::A),
            "b" => Some(TauVariant::B),
            "c" => Some(TauVariant::C),
            _ => None,
        }
    }
}

/// How a p-value was obtained (scipy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PValueMethod {
    /// The exact null distribution of the number of concordant pairs (no ties; scipy's 'auto'
    /// picks it for n ≤ 33 or when at most one pair is discordant or concordant).
    Exact,
    /// The normal approximation with the tie-corrected variance.
    Asymptotic,
    /// No p-value: fewer than two items, or a constant vector (tau and p are NaN, as scipy).
    Undefined,
}

impl PValueMethod {
    /// `exact`, `asymptotic` or `undefined`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            PValueMethod::Exact => "exact",
            PValueMethod::Asymptotic => "asymptotic",
            PValueMethod::Undefined => "undefined",
        }
    }
}

/// One Kendall correlation with its two-sided p-value (of H0: no association).
///
/// The p-value depends only on P − Q and the ties, so it is the same for every variant.
/// `tau` and `p_value` are NaN when fewer than two items are given or one vector is constant
/// (`method` is then [`PValueMethod::Undefined`]), as in scipy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KendallTau {
    /// The correlation, in [−1, 1] (or NaN, see above).
    pub tau: f64,
    /// The two-sided p-value.
    pub p_value: f64,
    /// How the p-value was computed.
    pub method: PValueMethod,
}

/// The grouping keys of one block of a wide table: `Depth=2`, or `QuestionType=head,
/// RelationType=one_to_one`; empty for a table without groups.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct GroupKey(pub Vec<(String, String)>);

impl GroupKey {
    /// Whether this is the key of an ungrouped table.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of column `column` (column names compared case-insensitively).
    #[must_use]
    pub fn get(&self, column: &str) -> Option<&str> {
        self.0.iter().find(|(c, _)| c.eq_ignore_ascii_case(column)).map(|(_, v)| v.as_str())
    }
}

impl fmt::Display for GroupKey {
    /// `Depth=2`, `QuestionType=head,RelationType=one_to_one`, or `all` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("all");
        }
        for (i, (column, value)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{column}={value}")?;
        }
        Ok(())
    }
}

/// One metric column of a wide table.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricColumn {
    /// The canonical name (`canonical_metric_name`: `hits_at_10` → `hits@10`).
    pub name: String,
    /// The column heading as written in the file.
    pub column: String,
    /// Direction and aggregation (from `metric_info`; MR is lower-is-better).
    pub info: MetricInfo,
}

impl MetricColumn {
    /// A column with its canonical name and default [`MetricInfo`].
    #[must_use]
    pub fn new(column: &str) -> Self {
        let name = canonical_metric_name(column).into_owned();
        let info = metric_info(&name);
        MetricColumn { name, column: column.to_owned(), info }
    }
}

/// The rows of one group of a wide table: one value per (system, metric).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SystemGroup {
    /// The group's key (empty when the table has no group columns).
    pub key: GroupKey,
    /// System names, in file order, unique within the group.
    pub systems: Vec<String>,
    /// `systems.len() × n_metrics` values, system-major (`values[system * n_metrics + metric]`).
    pub values: Vec<f64>,
}

impl SystemGroup {
    /// The number of metrics per row.
    fn n_metrics(&self) -> usize {
        self.values.len().checked_div(self.systems.len()).unwrap_or(0)
    }

    /// The value of `system` on metric column `metric` (an index into the table's metrics).
    #[must_use]
    pub fn value(&self, system: &str, metric: usize) -> Option<f64> {
        let n = self.n_metrics();
        let row = self.systems.iter().position(|s| s == system)?;
        if metric >= n {
            return None;
        }
        self.values.get(row * n + metric).copied()
    }

    /// Metric column `metric` of every system, in `systems` order.
    #[must_use]
    pub fn column(&self, metric: usize) -> Vec<f64> {
        let n = self.n_metrics();
        if metric >= n {
            return Vec::new();
        }
        self.values.iter().skip(metric).step_by(n).copied().collect()
    }
}

/// A published system × metric table (kgc-sparsity `evaluation.csv`, `pooling_depth.csv` with
/// its `Depth` column, `lp_per_rel_type.csv` with `QuestionType,RelationType`): one value per
/// (group, system, metric), no per-item values. Input of ranking agreement only.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SystemMetricTable {
    /// Where the table came from (the file name as the user gave it).
    pub source: String,
    /// The group columns' headings, in file order (empty: one ungrouped block).
    pub group_columns: Vec<String>,
    /// The metric columns, in file order.
    pub metrics: Vec<MetricColumn>,
    /// The groups, in order of first appearance.
    pub groups: Vec<SystemGroup>,
}

impl SystemMetricTable {
    /// An empty table with these group columns and metric headings (canonicalised).
    #[must_use]
    pub fn new(source: &str, group_columns: Vec<String>, metric_columns: &[String]) -> Self {
        SystemMetricTable {
            source: source.to_owned(),
            group_columns,
            metrics: metric_columns.iter().map(|column| MetricColumn::new(column)).collect(),
            groups: Vec::new(),
        }
    }

    /// Appends one system's row to the group `key` (created on first use). The caller checks
    /// that `values` has one value per metric and that the system is new in the group; the
    /// reader does, with file positions.
    pub fn push_row(&mut self, key: GroupKey, system: &str, values: Vec<f64>) {
        // Rows of a group usually come together: the last group first keeps reading linear.
        let last = self.groups.len().checked_sub(1).filter(|&i| self.groups[i].key == key);
        let index = match last.or_else(|| self.groups.iter().position(|g| g.key == key)) {
            Some(index) => index,
            None => {
                self.groups.push(SystemGroup { key, ..SystemGroup::default() });
                self.groups.len() - 1
            }
        };
        let group = &mut self.groups[index];
        group.systems.push(system.to_owned());
        group.values.extend(values);
    }

    /// The index of a metric by canonical name, column heading or alias.
    #[must_use]
    pub fn find_metric(&self, name: &str) -> Option<usize> {
        let canonical = canonical_metric_name(name);
        self.metrics.iter().position(|m| m.column == name || m.name == canonical)
    }

    /// The group with this key.
    #[must_use]
    pub fn group(&self, key: &GroupKey) -> Option<&SystemGroup> {
        self.groups.iter().find(|g| &g.key == key)
    }
}

/// Kendall tau, tau_AP and RBO between the system orderings of two tables on one metric and
/// one group.
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementRow {
    /// The group compared (the grouped side's key; empty when neither side has groups).
    pub group: GroupKey,
    /// The metric's canonical name.
    pub metric: String,
    /// Whether larger is better (orients tau_AP and RBO; tau is invariant).
    pub direction: Direction,
    /// Systems present on both sides (the orderings compared).
    pub n_systems: usize,
    /// Systems only the left table has (not compared; listed, never silently dropped).
    pub only_left: Vec<String>,
    /// Systems only the right table has.
    pub only_right: Vec<String>,
    /// Kendall tau-b (the default).
    pub tau_b: f64,
    /// Kendall tau-c.
    pub tau_c: f64,
    /// Kendall tau-a.
    pub tau_a: f64,
    /// The two-sided p-value of tau (the same for every variant).
    pub p_value: f64,
    /// How `p_value` was computed.
    pub p_method: PValueMethod,
    /// tau_AP (Yilmaz, Aslam & Robertson 2008) of the right ordering with the left as the
    /// reference; ties: the expectation over random tie orders, a reference tie counts 1/2.
    pub tau_ap: f64,
    /// The mean of tau_AP in both directions (symmetric).
    pub tau_ap_symmetric: f64,
    /// Extrapolated rank-biased overlap RBO_ext (Webber, Moffat & Zobel 2010); ties: the
    /// expectation over random tie orders in each list.
    pub rbo: f64,
}

/// Ranking agreement of two wide tables over every shared metric and group.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// The left table's source.
    pub left: String,
    /// The right table's source.
    pub right: String,
    /// RBO's persistence p.
    pub rbo_p: f64,
    /// One row per (group, metric), groups in the grouped side's order, metrics in the left
    /// table's order.
    pub rows: Vec<AgreementRow>,
    /// Metrics only the left table has (not compared).
    pub metrics_only_left: Vec<String>,
    /// Metrics only the right table has.
    pub metrics_only_right: Vec<String>,
    /// Groups of the left table with no counterpart on the right (both sides grouped).
    pub groups_only_left: Vec<GroupKey>,
    /// Groups of the right table with no counterpart on the left.
    pub groups_only_right: Vec<GroupKey>,
}
