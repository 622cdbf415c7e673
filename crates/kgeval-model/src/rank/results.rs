//! Result types of the rank family (DISO Task 2, Bio-ML, OntoAligner, Bio-LLM), filled by
//! `kgeval-metrics` (the core's [`RankSummary`] inside) and rendered by `kgeval-report`.

use std::fmt;

pub use crate::ranking::RankSummary;
use crate::ranking::TiePolicy;
use crate::{Diagnostic, ScoreTable};

/// The named conventions of the local-ranking family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RankingProfile {
    /// DISO-OAEI 2026 Task 2: Hits@{1,3,5,10}, MRR, NIL abstention, stable ties, τ = 0.5.
    #[default]
    Diso,
    /// OAEI-Bio-ML-eval: Hits@{1,5,10}, MRR, lexicographic ties.
    Bioml,
    /// DeepOnto's local-ranking evaluation: Hits@{1,5,10}, MRR, stable ties.
    Deeponto,
    /// OntoAligner `hit_at_k` / `mrr` / `evaluation_report` (seed 001).
    Ontoaligner,
    /// DeepOnto `biollm_eval`: matched-only Hits@1 / MRR, answer P/R/F1, rejection rate.
    Biollm,
}

impl RankingProfile {
    /// Every profile.
    pub const ALL: [RankingProfile; 5] = [
        RankingProfile::Diso,
        RankingProfile::Bioml,
        RankingProfile::Deeponto,
        RankingProfile::Ontoaligner,
        RankingProfile::Biollm,
    ];

    /// The CLI / JSON name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RankingProfile::Diso => "diso",
            RankingProfile::Bioml => "bioml",
            RankingProfile::Deeponto => "deeponto",
            RankingProfile::Ontoaligner => "ontoaligner",
            RankingProfile::Biollm => "biollm",
        }
    }

    /// Parses a name as printed by [`RankingProfile::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The profile's NIL: the DISO track's NIL IRI, or Bio-ML's `UnMatched` gold value for
    /// the Bio-ML, DeepOnto, OntoAligner and BioLLM profiles.
    #[must_use]
    pub const fn nil(self) -> &'static str {
        match self {
            RankingProfile::Diso => crate::rank::DISO_NIL_IRI,
            _ => crate::rank::BIOML_UNMATCHED,
        }
    }

    /// The profile's default tie policy.
    #[must_use]
    pub const fn tie_policy(self) -> TiePolicy {
        match self {
            RankingProfile::Bioml => TiePolicy::LEXICOGRAPHIC,
            _ => TiePolicy::STABLE,
        }
    }

    /// The profile's default cut-offs k of Hits@k.
    #[must_use]
    pub fn ks(self) -> Vec<u32> {
        match self {
            RankingProfile::Diso => vec![1, 3, 5, 10],
            RankingProfile::Biollm => vec![1],
            _ => vec![1, 5, 10],
        }
    }
}

impl fmt::Display for RankingProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The four breakdowns DISO reports per pair.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankBreakdown {
    /// Every query.
    pub overall: RankSummary,
    /// Queries whose gold is not NIL.
    pub matched: RankSummary,
    /// Queries whose gold is NIL.
    pub nil: RankSummary,
    /// Per source-entity type (`CLS`, `OPROP`, `DPROP`), NIL queries included, in first-seen
    /// order.
    pub per_type: Vec<(String, RankSummary)>,
}

/// Hard abstention: a query whose rank-1 candidate is NIL abstains.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AbstentionScores {
    /// Matched queries answered (rank-1 not NIL).
    pub answered_matched: usize,
    /// Matched queries abstained on (false abstentions).
    pub abstained_matched: usize,
    /// NIL queries answered (false answers).
    pub answered_nil: usize,
    /// NIL queries abstained on (correct abstentions).
    pub abstained_nil: usize,
    /// Correct abstentions / abstentions (0 when there is none).
    pub precision: f64,
    /// Correct abstentions / NIL queries (0 when there is none). Equals Bio-LLM's rejection
    /// rate.
    pub recall: f64,
    /// Harmonic mean of precision and recall (0 when both are 0).
    pub f1: f64,
    /// False abstentions / matched queries (0 when there is none).
    pub false_abstention_rate: f64,
}

/// The trivial baselines printed beside a system (they need only the gold key).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Baselines {
    /// NIL queries / queries.
    pub nil_share: f64,
    /// "Always NIL first", with the gold second on matched queries (the best such a system
    /// can do).
    pub nil_first: RankSummary,
    /// Hedging: the gold first and NIL second everywhere (gold first on matched queries,
    /// NIL second on NIL queries). Shows how much MRR rewards hedging.
    pub hedge: RankSummary,
}

/// How the queries' tie situations looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TieCounts {
    /// Queries whose gold was inside a score tie.
    pub gold_tied: usize,
    /// Queries whose NIL was inside a score tie.
    pub nil_tied: usize,
}

/// One pair (ontology pair, or the single file of a Bio-ML run).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PairRanking {
    /// The pair name (`uco-stix`).
    pub pair: String,
    /// The τ given to NIL in scored submissions (`None` when the submission is rankings only).
    pub tau: Option<f64>,
    /// The number of queries (gold entries).
    pub n: usize,
    /// Overall, matched, NIL and per-type summaries.
    pub breakdown: RankBreakdown,
    /// Hard-abstention scores.
    pub abstention: AbstentionScores,
    /// Tie situations.
    pub ties: TieCounts,
    /// Gold queries absent from the submission (scored 0).
    pub missing_queries: usize,
    /// Queries whose ranking was completed by repair mode.
    pub repaired_queries: usize,
    /// Trivial baselines.
    pub baselines: Baselines,
    /// Risk–coverage of the answered queries (scored submissions only).
    pub risk_coverage: Option<RiskCoverage>,
}

/// One τ of a sweep.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TauPoint {
    /// The τ given to NIL.
    pub tau: f64,
    /// Overall summary per pair, in pair order.
    pub pairs: Vec<RankSummary>,
    /// Unweighted mean over pairs.
    pub macro_summary: RankSummary,
    /// Hard abstention pooled over pairs.
    pub abstention: AbstentionScores,
}

/// Metrics as functions of τ.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TauSweep {
    /// The grid points in ascending τ.
    pub points: Vec<TauPoint>,
    /// The index of the point with the best macro MRR (first on ties): an *oracle* choice made
    /// on the test data, not a tuned threshold.
    pub oracle: usize,
}

/// The risk–coverage curve of selective answering: queries sorted by the confidence of their
/// best non-NIL candidate, descending; at coverage i/n the risk is the error rate among the i
/// most confident queries (an answer is wrong when it is not the gold, so every answer on a
/// NIL query is wrong).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RiskCoverage {
    /// `(coverage, risk)` for i = 1..=n.
    pub points: Vec<(f64, f64)>,
    /// The area under the curve: the mean of the risks.
    pub aurc: f64,
}

/// A whole local-ranking evaluation: one system over one or more pairs.
#[derive(Debug, Clone, Default)]
pub struct RankingEvaluation {
    /// The system name.
    pub system: String,
    /// The conventions in force (profile, tie policy, cut-offs, NIL IRI, τ rule).
    pub conventions: RankConventions,
    /// Per-pair results.
    pub pairs: Vec<PairRanking>,
    /// Unweighted mean over pairs of the overall values (queries summed): DISO's headline.
    pub macro_summary: RankSummary,
    /// Query-weighted mean over every query of every pair.
    pub micro_summary: RankSummary,
    /// Hard abstention pooled over pairs.
    pub abstention: AbstentionScores,
    /// The τ sweep, when asked for.
    pub sweep: Option<TauSweep>,
    /// Warnings (identical pools, sibling golds, repairs, …), each with its location.
    pub warnings: Vec<Diagnostic>,
    /// Per-query values (`rr`, `hits_at_k`, `rank`) with grouping keys `pair`, `type`, `gold`.
    pub score_table: ScoreTable,
}

/// DeepOnto `biollm_eval` figures.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BiollmScores {
    /// The answer threshold: a candidate is predicted when its answer flag is true and its
    /// score ≥ threshold.
    pub threshold: f64,
    /// Predicted candidates that are the gold of a matched row.
    pub true_positives: usize,
    /// Predicted candidates over every row.
    pub predictions: usize,
    /// Matched rows (the references).
    pub references: usize,
    /// Unmatched rows.
    pub unmatched: usize,
    /// TP / predictions (0 when there is none).
    pub precision: f64,
    /// TP / references (0 when there is none).
    pub recall: f64,
    /// Harmonic mean (0 when both are 0).
    pub f1: f64,
    /// Hits@1 over matched rows.
    pub hits_at_1: f64,
    /// MRR over matched rows.
    pub mrr: f64,
    /// Unmatched rows with no prediction / unmatched rows (`None` when there is no unmatched
    /// row: DeepOnto divides by zero there).
    pub rejection_rate: Option<f64>,
}

/// OntoAligner `evaluation_report` plus `hit_at_k` and `mrr` (values as fractions, not ×100;
/// renderers scale).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OntoalignerScores {
    /// |pred ∩ ref| over unique (source, target) pairs.
    pub intersection: usize,
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// Fβ.
    pub f_score: f64,
    /// β.
    pub beta: f64,
    /// Unique predicted `(source, target)` pairs (OntoAligner v1.9.4's `len(predict_set)`).
    pub predictions_len: usize,
    /// Unique reference `(source, target)` pairs (`len(reference_set)`).
    pub reference_len: usize,
    /// `hit_at_k` per k.
    pub hits: Vec<(u32, f64)>,
    /// `mrr`.
    pub mrr: f64,
}

/// A convention's value as printed: text, a number or a list of cut-offs.
#[derive(Debug, Clone, PartialEq)]
pub enum ConventionValue {
    /// Words.
    Text(String),
    /// A number (a threshold, β).
    Number(f64),
    /// A list of cut-offs k.
    Integers(Vec<u32>),
}

impl From<&str> for ConventionValue {
    fn from(text: &str) -> Self {
        ConventionValue::Text(text.to_owned())
    }
}

/// The conventions of a `kgeval rank` evaluation, as the engine decided them; the report
/// renders [`RankConventions::entries`].
///
/// ```
/// use kgeval_model::rank::results::{ConventionValue, RankConventions, RankingProfile};
/// let c = RankConventions::for_profile(RankingProfile::Bioml);
/// let entries = c.entries();
/// assert_eq!(entries[0], ("profile", ConventionValue::from("bioml")));
/// assert_eq!(entries[1], ("ties", ConventionValue::from("lexicographic")));
/// assert_eq!(entries[2], ("ks", ConventionValue::Integers(vec![1, 5, 10])));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankConventions {
    /// The profile the defaults came from.
    pub profile: RankingProfile,
    /// The tie policy used for scored submissions (local profiles).
    pub ties: TiePolicy,
    /// The cut-offs of Hits@k.
    pub ks: Vec<u32>,
    /// The NIL IRI.
    pub nil_iri: String,
    /// What happens to a candidate scoring exactly τ, in words (local profiles).
    pub tau_rule: String,
    /// Bio-LLM: a candidate is predicted when its answer is true and its score ≥ this.
    pub threshold: f64,
    /// OntoAligner: β of the F-score.
    pub beta: f64,
}

impl RankConventions {
    /// The profile's defaults (no τ rule; threshold 0, β 1).
    #[must_use]
    pub fn for_profile(profile: RankingProfile) -> Self {
        RankConventions {
            profile,
            ties: profile.tie_policy(),
            ks: profile.ks(),
            nil_iri: profile.nil().to_owned(),
            tau_rule: String::new(),
            threshold: 0.0,
            beta: 1.0,
        }
    }

    /// The tie policy's name as `kgeval rank` prints it (the mean-rank policy is `realistic`,
    /// as in `kgeval kgc` and PyKEEN; `expected` is accepted as an alias).
    #[must_use]
    pub fn ties_name(&self) -> &'static str {
        self.ties.name()
    }

    /// Every convention in force as `(key, value)`, in output order.
    #[must_use]
    pub fn entries(&self) -> Vec<(&'static str, ConventionValue)> {
        let text = |s: &str| ConventionValue::Text(s.to_owned());
        match self.profile {
            RankingProfile::Biollm => vec![
                ("profile", text(self.profile.name())),
                ("threshold", ConventionValue::Number(self.threshold)),
                ("predicted", text("answer flag true and score >= threshold")),
                ("ranking", text("matched rows, scores descending, stable ties")),
            ],
            RankingProfile::Ontoaligner => vec![
                ("profile", text(self.profile.name())),
                ("beta", ConventionValue::Number(self.beta)),
                (
                    "ranking",
                    text("grouped by source, duplicates keep max score, missing score 0, first-seen order on ties, denominator = references"),
                ),
            ],
            _ => vec![
                ("profile", text(self.profile.name())),
                ("ties", text(self.ties_name())),
                ("ks", ConventionValue::Integers(self.ks.clone())),
                ("nil_iri", text(&self.nil_iri)),
                ("tau_rule", text(&self.tau_rule)),
                ("macro", text("unweighted mean over pairs of the overall values; queries summed")),
                ("absent_gold", text("reciprocal rank 0, no hit, kept in the denominator")),
                ("abstention", text("rank-1 NIL abstains")),
            ],
        }
    }
}

/// A Bio-LLM evaluation (`--profile biollm`): one system, one submission.
#[derive(Debug, Clone, PartialEq)]
pub struct BiollmEvaluation {
    /// The system name.
    pub system: String,
    /// The conventions in force.
    pub conventions: RankConventions,
    /// The figures.
    pub scores: BiollmScores,
}

/// An OntoAligner evaluation (`--profile ontoaligner`): one system, one prediction file.
#[derive(Debug, Clone, PartialEq)]
pub struct OntoalignerEvaluation {
    /// The system name.
    pub system: String,
    /// The conventions in force.
    pub conventions: RankConventions,
    /// The figures.
    pub scores: OntoalignerScores,
}

/// What `kgeval rank` returns: by profile, the local-ranking leaderboard, Bio-LLM's figures
/// or OntoAligner's report.
#[derive(Debug, Clone)]
pub enum RankResult {
    /// `diso`, `bioml`, `deeponto`.
    Local(Box<RankingEvaluation>),
    /// `biollm`.
    Biollm(BiollmEvaluation),
    /// `ontoaligner`.
    Ontoaligner(OntoalignerEvaluation),
}

impl RankResult {
    /// The system name.
    #[must_use]
    pub fn system(&self) -> &str {
        match self {
            RankResult::Local(e) => &e.system,
            RankResult::Biollm(e) => &e.system,
            RankResult::Ontoaligner(e) => &e.system,
        }
    }

    /// The conventions in force.
    #[must_use]
    pub fn conventions(&self) -> &RankConventions {
        match self {
            RankResult::Local(e) => &e.conventions,
            RankResult::Biollm(e) => &e.conventions,
            RankResult::Ontoaligner(e) => &e.conventions,
        }
    }
}
