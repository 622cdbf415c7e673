//! One metric vocabulary across families: canonical names, the families' legacy names, and
//! what each metric means for aggregation (direction, how items become the headline, level).
//!
//! Each family's own outputs keep the names they always printed (`rr`, `hits_at_10` in
//! `kgeval rank` and `kgeval kgc` per-item rows); the facade's score table, its merge and
//! meta-evaluation use the canonical names below. The rule table is documented in
//! `docs/ARCHITECTURE.md` ("Metric vocabulary").
//!
//! | legacy (family) | canonical | direction | headline from items |
//! |---|---|---|---|
//! | `rr` (rank, kgc) | `recip_rank` (trec_eval's name) | higher | mean |
//! | `hits_at_K` (rank, kgc) | `hits@K` (0/1 per query) | higher | mean |
//! | `rank`, `*_mr`, `fp`, `fn`, `missing`, `extra`, `aurc` | same | lower | mean (counts: sum) |
//! | `tp`, `fp`, `fn`, `matched`, `missing`, `extra`, `gold_entries`, `num_*` | same | — | sum |
//! | `precision`, `recall`, `f1` | same | higher | mean (align: micro from `tp`/`fp`/`fn`) |
//! | trec_eval names (`map`, `P_10`, `ndcg_cut_10`, `hits_10` = relevant in the top 10, …) | same | higher | mean (`gm_*`: geometric) |
//!
//! ```
//! use kgeval_model::metric_names::{canonical_metric_name, metric_info, Direction};
//! assert_eq!(canonical_metric_name("rr"), "recip_rank");
//! assert_eq!(canonical_metric_name("hits_at_10"), "hits@10");
//! assert_eq!(canonical_metric_name("Hits@10"), "hits@10");
//! assert_eq!(canonical_metric_name("ndcg_cut_10"), "ndcg_cut_10");
//! assert_eq!(metric_info("macro_mr").direction, Direction::Lower);
//! assert_eq!(metric_info("recip_rank").direction, Direction::Higher);
//! ```

use std::borrow::Cow;
use std::fmt;

/// Whether a larger value is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Larger is better (precision, MRR, nDCG, …).
    Higher,
    /// Smaller is better (mean rank, false positives, risk, …).
    Lower,
    /// A count or size with no better side (`num_q`, `gold_entries`).
    Neither,
}

impl Direction {
    /// `higher`, `lower` or `neither`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Direction::Higher => "higher",
            Direction::Lower => "lower",
            Direction::Neither => "neither",
        }
    }
}

/// How the per-item values of a metric turn into its headline value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aggregation {
    /// The arithmetic mean over items (macro).
    Mean,
    /// Micro: computed from counts summed over items (precision = Σtp / Σ(tp + fp)).
    MicroFromCounts,
    /// The sum over items (counts).
    Sum,
    /// The geometric mean over items (trec_eval's `gm_map`, `gm_bpref`).
    GeometricMean,
}

impl Aggregation {
    /// `mean`, `micro`, `sum` or `geometric-mean`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Aggregation::Mean => "mean",
            Aggregation::MicroFromCounts => "micro",
            Aggregation::Sum => "sum",
            Aggregation::GeometricMean => "geometric-mean",
        }
    }
}

/// Where a metric's values live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// One value per item (query, topic, pair, question), plus the headline.
    Item,
    /// Only a headline value per system (e.g. `gm_map`, a tau sweep's oracle, AURC).
    Aggregate,
}

impl Level {
    /// `item` or `aggregate`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Level::Item => "item",
            Level::Aggregate => "aggregate",
        }
    }
}

/// What a metric is: direction, aggregation and level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MetricInfo {
    /// Whether larger is better.
    pub direction: Direction,
    /// How items become the headline.
    pub aggregation: Aggregation,
    /// Item-level or aggregate-only.
    pub level: Level,
}

impl MetricInfo {
    /// An item-level metric, larger is better, headline = mean.
    pub const MEAN: MetricInfo =
        MetricInfo { direction: Direction::Higher, aggregation: Aggregation::Mean, level: Level::Item };

    /// The same metric, aggregate-only.
    #[must_use]
    pub const fn aggregate(self) -> Self {
        MetricInfo { level: Level::Aggregate, ..self }
    }

    /// The same metric with another aggregation.
    #[must_use]
    pub const fn with_aggregation(self, aggregation: Aggregation) -> Self {
        MetricInfo { aggregation, ..self }
    }
}

impl fmt::Display for MetricInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is better, {}, {}", self.direction.name(), self.aggregation.name(), self.level.name())
    }
}

/// The canonical name of a metric given under a family's legacy name or an alias: `rr` →
/// `recip_rank`, `hits_at_K` / `Hits@K` / `hits@K` → `hits@K`, `mrr` → `recip_rank`; every
/// other name as it is.
#[must_use]
pub fn canonical_metric_name(name: &str) -> Cow<'_, str> {
    if name == "rr" || name.eq_ignore_ascii_case("mrr") || name == "reciprocal_rank" {
        return Cow::Borrowed("recip_rank");
    }
    for prefix in ["hits_at_", "hits@", "Hits@", "HITS@", "hits_at"] {
        if let Some(k) = name.strip_prefix(prefix) {
            if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) {
                return Cow::Owned(format!("hits@{k}"));
            }
        }
    }
    Cow::Borrowed(name)
}

/// The name a family's own outputs print for a canonical metric (the inverse of
/// [`canonical_metric_name`] for `rank` and `kgc`: `recip_rank` → `rr`, `hits@K` →
/// `hits_at_K`); other families print canonical names.
#[must_use]
pub fn legacy_metric_name<'a>(family: &str, canonical: &'a str) -> Cow<'a, str> {
    if family != "rank" && family != "kgc" {
        return Cow::Borrowed(canonical);
    }
    if canonical == "recip_rank" {
        return Cow::Borrowed("rr");
    }
    match canonical.strip_prefix("hits@") {
        Some(k) => Cow::Owned(format!("hits_at_{k}")),
        None => Cow::Borrowed(canonical),
    }
}

/// The default [`MetricInfo`] of a canonical metric name (a family may refine it, e.g. the
/// alignment family aggregates precision micro from counts).
#[must_use]
pub fn metric_info(canonical: &str) -> MetricInfo {
    let base = canonical.strip_prefix("secondary_").unwrap_or(canonical);
    let count = matches!(base, "tp" | "fp" | "fn" | "matched" | "missing" | "extra" | "gold_entries" | "abstained")
        || base.starts_with("num_");
    let lower = matches!(base, "rank" | "fp" | "fn" | "missing" | "extra" | "aurc" | "mr" | "false_abstention_rate")
        || base.ends_with("_mr")
        || base.ends_with("_amr")
        || base.ends_with("_risk");
    let neutral = matches!(base, "gold_entries" | "num_q" | "num_ret" | "num_rel" | "abstained");
    let direction = if neutral {
        Direction::Neither
    } else if lower {
        Direction::Lower
    } else {
        Direction::Higher
    };
    let aggregation = if count {
        Aggregation::Sum
    } else if base.starts_with("gm_") {
        Aggregation::GeometricMean
    } else {
        Aggregation::Mean
    };
    MetricInfo { direction, aggregation, level: Level::Item }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_and_canonical_names_round_trip() {
        for legacy in ["rr", "hits_at_1", "hits_at_10", "rank", "abstained", "micro_mrr", "map_cut_20"] {
            let canonical = canonical_metric_name(legacy);
            assert_eq!(legacy_metric_name("rank", &canonical), legacy);
            assert_eq!(legacy_metric_name("kgc", &canonical), legacy);
        }
        assert_eq!(legacy_metric_name("trec", "recip_rank"), "recip_rank");
        assert_eq!(canonical_metric_name("hits_10"), "hits_10", "trec_eval's hits counts relevant documents");
        assert_eq!(canonical_metric_name("hits@x"), "hits@x");
    }

    #[test]
    fn directions_and_aggregations() {
        assert_eq!(metric_info("rank").direction, Direction::Lower);
        assert_eq!(metric_info("micro_mr").direction, Direction::Lower);
        assert_eq!(metric_info("micro_amr").direction, Direction::Lower);
        assert_eq!(metric_info("secondary_fn").direction, Direction::Lower);
        assert_eq!(metric_info("tp").aggregation, Aggregation::Sum);
        assert_eq!(metric_info("tp").direction, Direction::Higher);
        assert_eq!(metric_info("num_q").direction, Direction::Neither);
        assert_eq!(metric_info("gm_map").aggregation, Aggregation::GeometricMean);
        assert_eq!(metric_info("ndcg_cut_10"), MetricInfo::MEAN);
        assert_eq!(metric_info("f1").to_string(), "higher is better, mean, item");
    }
}
