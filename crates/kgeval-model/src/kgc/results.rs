//! Result types of the KGC family, filled by `kgeval-metrics` and rendered by
//! `kgeval-report`. Metric names follow kgc-sparsity's `evaluation.csv` (`micro_mrr`,
//! `macro_hits@10`, `map_cut_20`) and PyKEEN's adjusted metrics (`micro_amri`, `micro_zmrr`).

use super::conventions::KgcConventions;
use super::{RelationCategory, Side};
use crate::ranking::RankSummary;
use crate::{Diagnostic, ScoreTable};

/// PyKEEN's chance-adjusted Hits@k.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AdjustedHits {
    /// The cut-off.
    pub k: u32,
    /// E\[Hits@k\] under uniformly random ranks: mean of min(k / N, 1).
    pub expected: f64,
    /// (Hits@k − E) / (1 − E).
    pub adjusted: f64,
    /// (Hits@k − E) / √V.
    pub z: f64,
}

/// PyKEEN's chance-adjusted metrics (`pykeen.metrics.ranking`): expectations and variances
/// under ranks drawn uniformly from 1..=N for each answer's N candidates.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AdjustedMetrics {
    /// E\[MR\] = mean (N + 1) / 2.
    pub expected_mr: f64,
    /// Adjusted mean rank MR / E\[MR\] (lower is better).
    pub amr: f64,
    /// Adjusted mean rank index (MR − E) / (1 − E) (0 random, 1 perfect).
    pub amri: f64,
    /// z-scored mean rank −(MR − E) / √V (higher is better).
    pub z_mr: f64,
    /// E\[MRR\] = mean H(N) / N.
    pub expected_mrr: f64,
    /// Adjusted MRR (MRR − E) / (1 − E).
    pub amrr: f64,
    /// z-scored MRR (MRR − E) / √V.
    pub z_mrr: f64,
    /// Per cut-off, in the configured order.
    pub hits: Vec<AdjustedHits>,
}

/// Micro metrics of a set of (triple, side) pairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MicroScores {
    /// MR, MRR, Hits@k over the pairs (the ranking core's summary; `gold_tied` counts tied
    /// answers).
    pub summary: RankSummary,
    /// PyKEEN's adjusted metrics, when every pair has a rank and a candidate count.
    pub adjusted: Option<AdjustedMetrics>,
}

/// Macro metrics over aggregated questions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MacroScores {
    /// Best-answer rank per question: `macro_mrr`, `macro_mr`, `macro_hits@k` (`queries` is
    /// the number of questions).
    pub best: RankSummary,
    /// trec_eval measures (`map_cut_20`, `ndcg_cut_20`) in the evaluated order; empty when
    /// not computed.
    pub ir: Vec<(String, f64)>,
    /// PyKEEN's `MacroRankBasedEvaluator`: per-answer ranks weighted 1 / |answers| per
    /// question (`macro_answer_mean_*`).
    pub answer_mean: RankSummary,
}

/// How often ranks were taken inside score ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TieShare {
    /// (triple, side) pairs.
    pub answers: usize,
    /// Pairs whose answer shared its score with another candidate (`None` when the input has
    /// no tie counts).
    pub tied_answers: Option<usize>,
    /// Aggregated questions.
    pub questions: usize,
    /// Questions with at least one tied answer (`None` when unknown).
    pub tied_questions: Option<usize>,
    /// Questions whose answers may tie with each other (the IR list is then not exact).
    pub questions_with_tied_answers: usize,
}

impl TieShare {
    /// Tied pairs / pairs, when known (0 for no pair).
    #[must_use]
    pub fn answer_share(&self) -> Option<f64> {
        self.tied_answers.map(|t| if self.answers == 0 { 0.0 } else { t as f64 / self.answers as f64 })
    }

    /// Questions with a tied answer / questions, when known (0 for no question).
    #[must_use]
    pub fn question_share(&self) -> Option<f64> {
        self.tied_questions.map(|t| if self.questions == 0 { 0.0 } else { t as f64 / self.questions as f64 })
    }
}

/// Micro and macro values of one relation category on one side.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CategoryBreakdown {
    /// The category.
    pub category: Option<RelationCategory>,
    /// The side (`None`: a relation without category, e.g. absent from the category source).
    pub side: Option<Side>,
    /// Micro metrics of the pairs.
    pub micro: RankSummary,
    /// Best-answer macro metrics of the questions.
    pub best: RankSummary,
}

/// A whole KGC evaluation of one system.
#[derive(Debug, Clone, Default)]
pub struct KgcEvaluation {
    /// The system name.
    pub system: String,
    /// The conventions used (input, filters, tie policy, tolerance, entities, category rule,
    /// IR list rule …): the engine's, with the sources the caller fills in.
    pub conventions: KgcConventions,
    /// The cut-offs of Hits@k.
    pub ks: Vec<u32>,
    /// Micro metrics of both sides, head questions, tail questions.
    pub micro: [MicroScores; 3],
    /// Relation-weighted micro metrics Σ w_r M_r / Σ w_r over both sides, when weights were
    /// given.
    pub weighted: Option<RankSummary>,
    /// Macro metrics over aggregated questions.
    pub macro_scores: MacroScores,
    /// Tie statistics.
    pub ties: TieShare,
    /// Relations per category in the category source, in [`RelationCategory::ALL`] order.
    pub category_counts: Vec<(RelationCategory, usize)>,
    /// Micro and macro per category × side.
    pub categories: Vec<CategoryBreakdown>,
    /// Warnings with their locations.
    pub warnings: Vec<Diagnostic>,
    /// Per-item values: `level=micro` items (`{qid}/{answer}`: `rr`, `hits_at_k`, `rank`) and
    /// `level=macro` questions (`{qid}`: best-answer `rr`, `hits_at_k`, `rank`, and the IR
    /// measures), with keys `side`, `relation`, `category`.
    pub score_table: ScoreTable,
}

/// The scopes of [`KgcEvaluation::micro`].
pub const MICRO_SCOPES: [&str; 3] = ["both", "head", "tail"];

/// The values of a rank summary under `prefix` (`micro`, `macro`, `macro_answer_mean`):
/// `{prefix}_mr` (when some rank is known), `{prefix}_mrr`, `{prefix}_hits@k`.
#[must_use]
pub fn summary_values(prefix: &str, summary: &RankSummary) -> Vec<(String, f64)> {
    let mut values = Vec::with_capacity(2 + summary.hits.len());
    if let Some(mr) = summary.mean_rank {
        values.push((format!("{prefix}_mr"), mr));
    }
    values.push((format!("{prefix}_mrr"), summary.mrr));
    for &(k, v) in &summary.hits {
        values.push((format!("{prefix}_hits@{k}"), v));
    }
    values
}

impl AdjustedMetrics {
    /// The values as `micro_{name}`: `expected_mr`, `amr`, `amri`, `zmr`, `expected_mrr`,
    /// `amrr`, `zmrr`, then `expected_hits@k`, `ahits@k`, `zhits@k` per k.
    #[must_use]
    pub fn values(&self) -> Vec<(String, f64)> {
        let mut values = vec![
            ("micro_expected_mr".to_owned(), self.expected_mr),
            ("micro_amr".to_owned(), self.amr),
            ("micro_amri".to_owned(), self.amri),
            ("micro_zmr".to_owned(), self.z_mr),
            ("micro_expected_mrr".to_owned(), self.expected_mrr),
            ("micro_amrr".to_owned(), self.amrr),
            ("micro_zmrr".to_owned(), self.z_mrr),
        ];
        for h in &self.hits {
            values.push((format!("micro_expected_hits@{}", h.k), h.expected));
            values.push((format!("micro_ahits@{}", h.k), h.adjusted));
            values.push((format!("micro_zhits@{}", h.k), h.z));
        }
        values
    }
}

impl KgcEvaluation {
    /// Every headline value per scope, in output order: `both` (micro, adjusted, weighted
    /// micro, macro, IR, answer-mean macro), then `head` and `tail` (micro, adjusted).
    #[must_use]
    pub fn scope_values(&self) -> Vec<(&'static str, Vec<(String, f64)>)> {
        MICRO_SCOPES
            .iter()
            .zip(&self.micro)
            .enumerate()
            .map(|(i, (&scope, micro))| {
                let mut values = summary_values("micro", &micro.summary);
                if let Some(adjusted) = &micro.adjusted {
                    values.extend(adjusted.values());
                }
                if i == 0 {
                    if let Some(weighted) = &self.weighted {
                        values.extend(summary_values("micro_weighted", weighted));
                    }
                    values.extend(summary_values("macro", &self.macro_scores.best));
                    values.extend(self.macro_scores.ir.iter().cloned());
                    values.extend(summary_values("macro_answer_mean", &self.macro_scores.answer_mean));
                }
                (scope, values)
            })
            .collect()
    }
}
