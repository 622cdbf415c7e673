//! `kgeval compare`'s result: the conventions in force, per metric the paired significance,
//! the leaderboard with marks and tiers and the discriminative power, or (with `--against`)
//! the ranking agreement of two result sets, or (with `--sensitivity`) the data sensitivity of
//! the system ordering, or (with `--pvalues`) the discriminative power of published p-values.

use super::agreement::{Agreement, TauVariant};
use super::sensitivity::Sensitivity;
use super::significance::{Correction, DiscriminativePower, Leaderboard, SignificanceResult, SignificanceTest};

/// The conventions of one comparison, as the facade decided them.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareConventions {
    /// The paired test.
    pub test: SignificanceTest,
    /// The multiplicity correction asked for (Tukey HSD is family-wise and gets none).
    pub correction: Correction,
    /// The significance level of marks, tiers and counts.
    pub alpha: f64,
    /// Iterations B of the randomised test (and of the confidence intervals); 0 when nothing
    /// is drawn.
    pub iterations: usize,
    /// The seed of every random draw (ChaCha8, seeded per iteration).
    pub seed: u64,
    /// Whether percentile bootstrap intervals of the means were computed.
    pub intervals: bool,
    /// The Kendall tau variant shown (all three are in JSON).
    pub tau: TauVariant,
    /// Rank-biased overlap's persistence p.
    pub rbo_p: f64,
    /// What a missing (system, item) value does: `error`, `zero` or `drop`.
    pub missing: String,
    /// The input format(s) read (`per-item-json`, `trec-eval`, `long-csv`, `wide-csv`, or
    /// `qrels+runs`).
    pub input_format: String,
    /// The format of the `--against` side, when given.
    pub against_format: Option<String>,
}

/// One metric compared over every system pair.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricComparison {
    /// Means, pairs, p-values (raw and corrected), effect sizes, intervals.
    pub significance: SignificanceResult,
    /// The systems best first, with the letters of the systems each beats and its tier.
    pub leaderboard: Leaderboard,
    /// Discriminative power over the corrected p-values.
    pub power: DiscriminativePower,
    /// (system, item) cells filled with 0 (`--missing zero`).
    pub zero_filled: usize,
    /// Items dropped because a system lacked them (`--missing drop`).
    pub dropped_items: usize,
}

/// What `kgeval compare` found.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareResult {
    /// The conventions in force.
    pub conventions: CompareConventions,
    /// The systems compared, in input order.
    pub systems: Vec<String>,
    /// One comparison per metric (empty with `--against`).
    pub metrics: Vec<MetricComparison>,
    /// The ranking agreement of the inputs with the `--against` inputs.
    pub agreement: Option<Agreement>,
    /// The data sensitivity of the system ordering (`--sensitivity`).
    pub sensitivity: Option<Sensitivity>,
    /// Discriminative power from published p-value matrices (`--pvalues`), one per matrix.
    pub published_power: Vec<PublishedPower>,
    /// With qrels and two runs or more of which one ties scores: per summary measure,
    /// `(measure, Kendall's tau-b)` between the runs' ordering under `--ties trec` and under
    /// `expected` (1: the tie order changes no pair; NaN: every run scores the same under one
    /// policy). Empty otherwise.
    pub tie_orderings: Vec<(String, f64)>,
}

/// The discriminative power of every metric of one published p-value matrix (kgc-sparsity's
/// `discriminative_power.csv`): no test runs, the p-values are taken as published.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedPower {
    /// The matrix's name (`NAME=PATH`, else the path).
    pub name: String,
    /// The file read.
    pub source: String,
    /// The systems of the matrix, in order of first appearance.
    pub systems: Vec<String>,
    /// One entry per metric, in the order asked for (else the file's).
    pub power: Vec<DiscriminativePower>,
}
