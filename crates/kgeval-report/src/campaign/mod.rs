//! A whole campaign rendered for a paper (`tables.tex`) and a web page (`index.html`).
//!
//! The renderers take plain view types built by the facade (`kgeval::campaign`), which knows
//! the families' results; this crate only lays them out. Every number shown is in the view.

mod html;
mod latex;
mod plot;

use kgeval_model::metric_names::Direction;
use serde::Serialize;

pub use html::{power_element_id, render_campaign_html, task_element_id};
pub use latex::{latex_breakable, latex_escape, render_campaign_latex};
pub use plot::{render_plot_svg, Axis, Marker, Panel, Plot, PlotGeometry, PlotKind, Rect, Series, PALETTE};

/// Decimals of the values in the LaTeX and HTML tables (the best value is decided on the
/// values as printed, as ranx does).
pub const TABLE_DECIMALS: usize = 4;

/// Whether `value` would print as zero with [`TABLE_DECIMALS`] decimals though it is not:
/// the tables write it in scientific notation instead (a tiny p-value).
pub(crate) fn prints_as_zero(value: f64) -> bool {
    value != 0.0 && value.is_finite() && value.abs() < 0.5 * 10f64.powi(-(TABLE_DECIMALS as i32))
}

/// A campaign: its title and its tasks, in manifest order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CampaignView {
    /// The campaign's title.
    pub title: String,
    /// Every task, in manifest order.
    pub tasks: Vec<TaskView>,
}

/// One task of a campaign.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskView {
    /// The element id of its section in `index.html` ([`task_element_id`] of the name; plot
    /// ids start with it).
    pub id: String,
    /// The task's name, unique in the campaign.
    pub name: String,
    /// The family (`align`, `rank`, …), or `compare` for a meta-evaluation of published
    /// score tables (no result table; LaTeX leaves it out).
    pub family: String,
    /// The error that stopped the task (no table then).
    pub error: Option<String>,
    /// Systems × headline metrics, when the task ran.
    pub table: Option<ResultTable>,
    /// Every convention in force, `(key, text)`, the family's entries in output order.
    pub conventions: Vec<(String, String)>,
    /// The conventions a table caption names (profile, mode, tie policy, rule preset).
    pub caption_conventions: Vec<(String, String)>,
    /// Every warning, with its scope and location.
    pub warnings: Vec<WarningView>,
    /// The plots available in the task's results.
    pub plots: Vec<Plot>,
    /// Remarks shown under the table (a meta-evaluation that failed, how to ask for a plot).
    pub notes: Vec<String>,
    /// The discriminative power of published p-value matrices (a `[[compare]]` with
    /// `pvalues`), one table per matrix.
    pub power: Vec<PowerTable>,
    /// The meta-evaluation's other tables (the agreement of two orderings, per group, the
    /// data sensitivity), laid out as they are.
    pub tables: Vec<PlainTable>,
}

/// A table shown as it is: no best value, no marks (a meta-evaluation's agreement or
/// sensitivity).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlainTable {
    /// Its caption: a sentence saying what the rows are, plain text.
    pub caption: String,
    /// The column headings, plain text (metric names already as [`metric_label`]s).
    pub header: Vec<String>,
    /// How many leading columns name a row (a metric, a group): a table too wide for a page
    /// is split into several that each repeat them.
    pub key_columns: usize,
    /// The rows, one cell per heading.
    pub rows: Vec<Vec<PlainCell>>,
}

/// One cell of a [`PlainTable`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PlainCell {
    /// Text (a metric, a group), left-aligned.
    Text(String),
    /// A measured value, printed with [`TABLE_DECIMALS`] decimals (a p-value that would print
    /// as zero in scientific notation), right-aligned.
    Number(f64),
    /// A count, right-aligned.
    Integer(u64),
}

impl PlainTable {
    /// Whether column `column` holds numbers (right-aligned): its first row's cell is one.
    #[must_use]
    pub fn is_numeric(&self, column: usize) -> bool {
        self.rows.first().and_then(|row| row.get(column)).is_some_and(|c| !matches!(c, PlainCell::Text(_)))
    }
}

/// The discriminative power of every metric of one published p-value matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerTable {
    /// The matrix's name (a dataset: `FB-Test-O`).
    pub name: String,
    /// How many systems the matrix pairs.
    pub systems: usize,
    /// The significance level of the `significant` counts.
    pub alpha: f64,
    /// One row per metric.
    pub rows: Vec<PowerRow>,
}

/// One metric's discriminative power.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerRow {
    /// The metric (`micro_mrr`).
    pub metric: String,
    /// The system pairs.
    pub pairs: usize,
    /// Pairs with p < α.
    pub significant: usize,
    /// Pairs with p < 0.01.
    pub significant_at_01: usize,
    /// The area under the descending p-value curve (the sum of the p-values).
    pub area: f64,
    /// The median p-value.
    pub median_p: f64,
}

impl PowerTable {
    /// Whether row `row` holds the best value of `column` (2: most pairs at α, 3: most at
    /// 0.01, 4: smallest area as printed with [`TABLE_DECIMALS`], 5: smallest median p); with
    /// fewer than two rows nothing is best.
    #[must_use]
    pub fn is_best(&self, row: usize, column: usize) -> bool {
        if self.rows.len() < 2 {
            return false;
        }
        let printed = |v: f64| format!("{v:.TABLE_DECIMALS$}").parse::<f64>().unwrap_or(v);
        let key = |r: &PowerRow| -> f64 {
            match column {
                2 => r.significant as f64,
                3 => r.significant_at_01 as f64,
                4 => -printed(r.area),
                5 => -r.median_p,
                _ => f64::NAN,
            }
        };
        let Some(value) = self.rows.get(row).map(key) else { return false };
        !value.is_nan() && self.rows.iter().map(key).all(|other| other <= value)
    }
}

/// One headline column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    /// The canonical metric name (`f1`, `recip_rank`).
    pub metric: String,
    /// Whether larger or smaller values are better; [`Direction::Neither`] has no best value.
    #[serde(serialize_with = "direction_name")]
    pub direction: Direction,
    /// Whether the column was tested for significance (its cells carry marks).
    pub tested: bool,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's serialize_with signature
fn direction_name<S: serde::Serializer>(direction: &Direction, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(direction.name())
}

/// Systems × headline metrics, with the significance marks of a meta-evaluation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultTable {
    /// The systems, in the task's order.
    pub systems: Vec<String>,
    /// `letters[system]`: the system's significance letter, assigned once by the facade and
    /// the same in every output of the task (`report.md`'s leaderboards, `tables.tex`,
    /// `index.html`).
    pub letters: Vec<String>,
    /// The columns.
    pub columns: Vec<Column>,
    /// `values[system][column]`, `None` where the system has no such headline.
    pub values: Vec<Vec<Option<f64>>>,
    /// `beats[system][column]`: the systems (indices) this system beats significantly on that
    /// column at α after correction; empty for untested columns.
    pub beats: Vec<Vec<Vec<usize>>>,
    /// How the marks were decided (`paired t test, Holm correction, α = 0.05, on per-item
    /// values`), when some column is tested.
    pub significance: Option<String>,
}

impl ResultTable {
    /// Whether `values[system][column]` is the best of its column as printed with `decimals`
    /// (every system tied at the best is best; a column without direction, or with fewer than
    /// two values, has none).
    #[must_use]
    pub fn is_best(&self, system: usize, column: usize, decimals: usize) -> bool {
        let Some(col) = self.columns.get(column) else { return false };
        let printed = |v: f64| -> Option<f64> { crate::format_fixed(v, decimals).parse::<f64>().ok() };
        let Some(value) = self.values.get(system).and_then(|row| row.get(column)).copied().flatten().and_then(printed)
        else {
            return false;
        };
        let column_values = self.values.iter().filter_map(|row| row.get(column).copied().flatten().and_then(printed));
        if column_values.clone().count() < 2 {
            return false;
        }
        let best = match col.direction {
            Direction::Higher => column_values.fold(f64::NEG_INFINITY, f64::max),
            Direction::Lower => column_values.fold(f64::INFINITY, f64::min),
            Direction::Neither => return false,
        };
        value == best
    }

    /// [`ResultTable::is_best`] of every cell, `best[system][column]`, each column's printed
    /// values parsed once: linear in the table, where a call per cell is quadratic in the
    /// systems (2,000 systems: 4 million parses per column).
    #[must_use]
    pub fn best_cells(&self, decimals: usize) -> Vec<Vec<bool>> {
        let mut best = vec![vec![false; self.columns.len()]; self.systems.len()];
        for (c, col) in self.columns.iter().enumerate() {
            let printed: Vec<Option<f64>> = (0..self.systems.len())
                .map(|s| {
                    let value = self.values.get(s).and_then(|row| row.get(c)).copied().flatten()?;
                    crate::format_fixed(value, decimals).parse::<f64>().ok()
                })
                .collect();
            if printed.iter().flatten().count() < 2 {
                continue;
            }
            let top = match col.direction {
                Direction::Higher => printed.iter().flatten().copied().fold(f64::NEG_INFINITY, f64::max),
                Direction::Lower => printed.iter().flatten().copied().fold(f64::INFINITY, f64::min),
                Direction::Neither => continue,
            };
            for (s, value) in printed.iter().enumerate() {
                best[s][c] = *value == Some(top);
            }
        }
        best
    }

    /// The letters of the systems `system` beats on `column` (ranx's superscripts).
    #[must_use]
    pub fn marks(&self, system: usize, column: usize) -> String {
        self.beats
            .get(system)
            .and_then(|row| row.get(column))
            .map_or_else(String::new, |beaten| beaten.iter().map(|&i| self.letter(i)).collect())
    }

    /// The letter of system `system` (empty when the facade gave none).
    #[must_use]
    pub fn letter(&self, system: usize) -> &str {
        self.letters.get(system).map_or("", String::as_str)
    }
}

/// The heading of a metric in tables and plots: `P`, `R`, `F1`, `MRR`, `Hits@10`, `MAP`,
/// `nDCG@10`, `P@10`; scope prefixes kept (`macro F1`, `micro MRR`); other names as they are.
///
/// ```
/// use kgeval_report::campaign::metric_label;
/// assert_eq!(metric_label("f1"), "F1");
/// assert_eq!(metric_label("macro_hits@10"), "macro Hits@10");
/// assert_eq!(metric_label("ndcg_cut_10"), "nDCG@10");
/// assert_eq!(metric_label("P_5"), "P@5");
/// assert_eq!(metric_label("bpref"), "bpref");
/// ```
#[must_use]
pub fn metric_label(metric: &str) -> String {
    for prefix in ["micro_", "macro_", "local_", "secondary_"] {
        if let Some(rest) = metric.strip_prefix(prefix) {
            return format!("{} {}", &prefix[..prefix.len() - 1], metric_label(rest));
        }
    }
    let simple = match metric {
        "precision" => "P",
        "recall" => "R",
        "f1" => "F1",
        "recip_rank" | "mrr" => "MRR",
        "mr" => "MR",
        "map" => "MAP",
        "gm_map" => "GM-MAP",
        "qald_f" => "QALD F",
        "accuracy" => "Acc",
        _ => "",
    };
    if !simple.is_empty() {
        return simple.to_owned();
    }
    if let Some(k) = metric.strip_prefix("hits@") {
        return format!("Hits@{k}");
    }
    if let Some(k) = metric.strip_prefix("ndcg_cut_") {
        return format!("nDCG@{k}");
    }
    if let Some(k) = metric.strip_prefix("map_cut_") {
        return format!("MAP@{k}");
    }
    if let Some(k) = metric.strip_prefix("P_").filter(|k| k.chars().all(|c| c.is_ascii_digit())) {
        return format!("P@{k}");
    }
    metric.to_owned()
}

/// A warning with its scope and location.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WarningView {
    /// `system AML, pair cmt-conference`, `gold`, …
    pub scope: String,
    /// The warning's code.
    pub code: String,
    /// The message.
    pub message: String,
    /// `FILE:LINE:COL`, when known.
    pub location: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_follows_direction_and_printed_value() {
        let table = ResultTable {
            systems: vec!["A".into(), "B".into(), "C".into()],
            letters: vec!["a".into(), "b".into(), "c".into()],
            columns: vec![
                Column { metric: "f1".into(), direction: Direction::Higher, tested: false },
                Column { metric: "rank".into(), direction: Direction::Lower, tested: false },
                Column { metric: "tp".into(), direction: Direction::Neither, tested: false },
            ],
            values: vec![
                vec![Some(0.5), Some(3.0), Some(1.0)],
                vec![Some(0.700_01), Some(2.0), Some(2.0)],
                vec![Some(0.700_04), None, Some(3.0)],
            ],
            beats: vec![vec![Vec::new(); 3]; 3],
            significance: None,
        };
        // 0.70001 and 0.70004 both print as 0.7000: both are best.
        assert!(!table.is_best(0, 0, 4));
        assert!(table.is_best(1, 0, 4));
        assert!(table.is_best(2, 0, 4));
        assert!(table.is_best(2, 0, 5));
        assert!(!table.is_best(1, 0, 5));
        assert!(table.is_best(1, 1, 4));
        assert!(!table.is_best(0, 1, 4));
        assert!(!table.is_best(2, 1, 4));
        assert!(!table.is_best(2, 2, 4));
        // Every cell at once agrees with the cell-by-cell answer.
        for decimals in [0, 4, 5] {
            for (s, row) in table.best_cells(decimals).iter().enumerate() {
                for (c, &best) in row.iter().enumerate() {
                    assert_eq!(best, table.is_best(s, c, decimals), "{s} {c} at {decimals}");
                }
            }
        }
    }
}
