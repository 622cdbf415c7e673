//! Result types of the alignment family. They live in the model so that `kgeval-metrics`
//! (which fills them) and `kgeval-report` (which renders them) depend on nothing but the model.

use std::fmt;

use crate::{Correspondence, Diagnostic, ScoreTable};

/// MELT's reference completeness modes (`ConfusionMatrixMetric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CompletenessMode {
    /// The reference is complete: every system cell not in it is a false positive.
    Complete,
    /// Partial reference, source and target complete (the seeds' "partiality-corrected"
    /// default): a system cell is judged only when its source or its target is in the reference.
    #[default]
    Partial,
    /// Partial reference, complete for the source side only.
    PartialSource,
    /// Partial reference, complete for the target side only.
    PartialTarget,
    /// Partial reference, complete for neither side: only cells in the reference are judged.
    PartialNone,
}

impl CompletenessMode {
    /// Every mode.
    pub const ALL: [CompletenessMode; 5] = [
        CompletenessMode::Complete,
        CompletenessMode::Partial,
        CompletenessMode::PartialSource,
        CompletenessMode::PartialTarget,
        CompletenessMode::PartialNone,
    ];

    /// The CLI / JSON name (`complete`, `partial`, `partial-source`, …).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CompletenessMode::Complete => "complete",
            CompletenessMode::Partial => "partial",
            CompletenessMode::PartialSource => "partial-source",
            CompletenessMode::PartialTarget => "partial-target",
            CompletenessMode::PartialNone => "partial-none",
        }
    }

    /// Parses a name as printed by [`CompletenessMode::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl fmt::Display for CompletenessMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A named bundle of conventions reproducing one reference tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AlignmentProfile {
    /// MELT ≥ 3.5 (`ConfusionMatrixMetric`): relation-sensitive keys, 0 on zero denominators,
    /// macro F1 = mean of per-pair F1.
    #[default]
    Melt,
    /// Alignment API `PRecEvaluator`: relation ignored, P = 1 for an empty system, R = 1 for an
    /// empty reference.
    AlignApi,
    /// OAEI SEALS: direction-insensitive (a reversed cell with the reversed relation matches);
    /// P and R rounded to 3 decimals before F.
    OaeiSeals,
    /// OntoAligner `evaluation_report` (v1.9.4): sets of unique (source, target) pairs on both
    /// sides, values ×100.
    OntoAligner,
    /// The DISO-OAEI Task 1 scorer: partial (source or target in the reference), `=` cells only.
    Diso,
}

impl AlignmentProfile {
    /// Every profile.
    pub const ALL: [AlignmentProfile; 5] = [
        AlignmentProfile::Melt,
        AlignmentProfile::AlignApi,
        AlignmentProfile::OaeiSeals,
        AlignmentProfile::OntoAligner,
        AlignmentProfile::Diso,
    ];

    /// The CLI / JSON name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AlignmentProfile::Melt => "melt",
            AlignmentProfile::AlignApi => "alignapi",
            AlignmentProfile::OaeiSeals => "oaei-seals",
            AlignmentProfile::OntoAligner => "ontoaligner",
            AlignmentProfile::Diso => "diso",
        }
    }

    /// Parses a name as printed by [`AlignmentProfile::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for AlignmentProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The confusion counts of one scoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConfusionCounts {
    /// True positives.
    pub tp: u64,
    /// False positives.
    pub fp: u64,
    /// False negatives.
    pub fn_: u64,
    /// System cells neither TP nor FP (not judged by a partial reference, or excluded).
    pub ignored: u64,
    /// The number of system correspondences scored (MELT's `# of Correspondences`).
    pub correspondences: u64,
}

impl std::ops::AddAssign for ConfusionCounts {
    fn add_assign(&mut self, other: ConfusionCounts) {
        *self = *self + other;
    }
}

impl std::ops::Add for ConfusionCounts {
    type Output = ConfusionCounts;

    /// Field-wise sum.
    fn add(self, other: ConfusionCounts) -> ConfusionCounts {
        ConfusionCounts {
            tp: self.tp + other.tp,
            fp: self.fp + other.fp,
            fn_: self.fn_ + other.fn_,
            ignored: self.ignored + other.ignored,
            correspondences: self.correspondences + other.correspondences,
        }
    }
}

/// Precision, recall and F-measure.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PrfScores {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F-measure (F1 unless a β was asked for).
    pub f_measure: f64,
}

/// Counts and scores against one reference.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PairScores {
    /// The scores.
    pub scores: PrfScores,
    /// The counts behind them.
    pub counts: ConfusionCounts,
}

/// How one correspondence was judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CellLabel {
    /// A system cell found in the reference.
    TruePositive,
    /// A system cell judged wrong.
    FalsePositive,
    /// A reference cell the system missed.
    FalseNegative,
    /// A system cell the reference does not judge (or that was excluded).
    Ignored,
}

impl CellLabel {
    /// `TP`, `FP`, `FN` or `ignored`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CellLabel::TruePositive => "TP",
            CellLabel::FalsePositive => "FP",
            CellLabel::FalseNegative => "FN",
            CellLabel::Ignored => "ignored",
        }
    }
}

/// A correspondence with its judgement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabeledCell {
    /// The system cell (for TP, FP, ignored) or the reference cell (for FN).
    pub cell: Correspondence,
    /// The judgement.
    pub label: CellLabel,
}

/// Scores split by entity type (MELT `TypeRefiner`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TypeBreakdown {
    /// Class correspondences.
    pub classes: PairScores,
    /// Property correspondences (all kinds).
    pub properties: PairScores,
    /// Object-property correspondences.
    pub object_properties: PairScores,
    /// Datatype-property correspondences.
    pub datatype_properties: PairScores,
    /// Instance correspondences.
    pub instances: PairScores,
}

/// One point of a precision/recall/F-vs-threshold curve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ThresholdPoint {
    /// Cells with confidence ≥ this value are kept.
    pub threshold: f64,
    /// The scores at that cut.
    pub scores: PairScores,
}

/// The whole evaluation of one test case (one ontology pair).
#[derive(Debug, Clone, Default)]
pub struct PairEvaluation {
    /// The test case's name.
    pub name: String,
    /// Against the primary (repaired) reference.
    pub primary: PairScores,
    /// Against the secondary (unrepaired) reference, when given.
    pub secondary: Option<PairScores>,
    /// By entity type, when ontologies were given.
    pub by_type: Option<TypeBreakdown>,
    /// Residual scores (MELT `ResidualRefiner`), when a baseline alignment was given or
    /// computed: the reference without the baseline's cells, the system without the baseline's
    /// correct cells; their recall is the residual recall R+.
    pub residual: Option<Residual>,
    /// Per-correspondence judgements against the primary reference.
    pub labels: Vec<LabeledCell>,
    /// The P/R/F-vs-threshold curve, when asked for.
    pub threshold_curve: Vec<ThresholdPoint>,
    /// The best threshold (MELT `ConfidenceFinder`), when asked for.
    pub best_threshold: Option<ThresholdPoint>,
    /// Warnings about this pair's inputs and scoring.
    pub warnings: Vec<Diagnostic>,
}

/// Scores against the reference cells a baseline matcher does not find (MELT
/// `ResidualRefiner`): `primary.scores.recall` is the residual recall R+.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Residual {
    /// All cells.
    pub primary: PairScores,
    /// By entity type, when ontologies were given.
    pub by_type: Option<TypeBreakdown>,
}

/// Micro and macro aggregates over pairs against one reference.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Aggregate {
    /// Micro: pooled counts, then P/R/F once.
    pub micro: PairScores,
    /// Macro: mean of per-pair P, R and F (counts are summed).
    pub macro_: PairScores,
}

/// The evaluation of a whole track (one system over one or more pairs).
#[derive(Debug, Clone, Default)]
pub struct TrackEvaluation {
    /// The system (matcher) evaluated.
    pub system: String,
    /// The profile used.
    pub profile: AlignmentProfile,
    /// The completeness mode used.
    pub mode: CompletenessMode,
    /// Every convention in force (threshold, β, macro variant, …).
    pub conventions: AlignConventions,
    /// The pairs, in input order.
    pub pairs: Vec<PairEvaluation>,
    /// Aggregates against the primary references.
    pub primary: Aggregate,
    /// Aggregates against the secondary references, when every pair… or any pair has one.
    pub secondary: Option<Aggregate>,
    /// Residual aggregates (micro and macro R+), when every pair has residual scores.
    pub residual: Option<Aggregate>,
    /// Per-pair values (system × pair × metric) for meta-evaluation.
    pub score_table: ScoreTable,
}

/// The conventions of an alignment scoring, as the engine applied them; [`entries`] gives
/// them as `(key, text)` in output order (the report prints them, JSON under `conventions`).
///
/// ```
/// use kgeval_model::align::{AlignConventions, AlignmentProfile, CompletenessMode};
/// let c = AlignConventions { threshold: Some(0.5), ..AlignConventions::default() };
/// let entries = c.entries();
/// assert_eq!(entries[0], ("profile", "melt".to_owned()));
/// assert_eq!(entries[2], ("threshold", ">= 0.5".to_owned()));
/// let lists = AlignConventions { profile: AlignmentProfile::OntoAligner, ..c };
/// assert_eq!(lists.entries()[1].1, "none (ontoaligner compares lists)");
/// ```
///
/// [`entries`]: AlignConventions::entries
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlignConventions {
    /// The conventions bundle.
    pub profile: AlignmentProfile,
    /// The reference completeness mode (unused by `ontoaligner`).
    pub mode: CompletenessMode,
    /// System cells kept only with `confidence >= threshold`.
    pub threshold: Option<f64>,
    /// The β of the F-measure.
    pub beta: f64,
    /// Whether the relation is part of a correspondence's identity.
    pub relation_sensitive: bool,
    /// Macro F = harmonic mean of macro P and R (instead of the mean of per-pair F).
    pub macro_harmonic_f1: bool,
    /// Macro averages divide by this many pairs.
    pub expected_pairs: Option<usize>,
    /// For how many pairs residual recall (R+) was computed.
    pub residual: ResidualCoverage,
}

/// For how many pairs of an evaluation residual recall (R+) was computed: a pair needs a
/// baseline alignment, given or computed from both ontologies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResidualCoverage {
    /// No pair has a baseline: R+ is left empty.
    #[default]
    NotComputed,
    /// Some pairs have one: R+ is empty for the others and in the aggregates.
    Partly,
    /// Every pair has one.
    Computed,
}

impl ResidualCoverage {
    /// The coverage of `computed` pairs out of `pairs`.
    #[must_use]
    pub const fn of(computed: usize, pairs: usize) -> Self {
        if computed == 0 {
            ResidualCoverage::NotComputed
        } else if computed < pairs {
            ResidualCoverage::Partly
        } else {
            ResidualCoverage::Computed
        }
    }
}

impl Default for AlignConventions {
    /// MELT's defaults: complete reference, no threshold, β = 1, relation-sensitive, macro F =
    /// mean of per-pair F.
    fn default() -> Self {
        AlignConventions {
            profile: AlignmentProfile::Melt,
            mode: CompletenessMode::Complete,
            threshold: None,
            beta: 1.0,
            relation_sensitive: true,
            macro_harmonic_f1: false,
            expected_pairs: None,
            residual: ResidualCoverage::NotComputed,
        }
    }
}

impl AlignConventions {
    /// Every convention in force as `(key, text)`, in output order: `profile`, `mode`,
    /// `threshold`, `beta`, `relation_sensitive`, `keys`, `zero_division`, `exclusion`, `micro`,
    /// `macro`, then `rounding` (oaei-seals), `scale` (ontoaligner), `expected_pairs` (when set),
    /// `residual_recall`.
    #[must_use]
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        let profile = self.profile;
        let mut out: Vec<(&'static str, String)> = vec![
            ("profile", profile.name().to_owned()),
            (
                "mode",
                if profile == AlignmentProfile::OntoAligner {
                    "none (ontoaligner compares lists)".to_owned()
                } else {
                    self.mode.name().to_owned()
                },
            ),
            ("threshold", self.threshold.map_or_else(|| "none".to_owned(), |t| format!(">= {t}"))),
            ("beta", self.beta.to_string()),
            ("relation_sensitive", self.relation_sensitive.to_string()),
            (
                "keys",
                match profile {
                    AlignmentProfile::OaeiSeals => {
                        "direction-insensitive (reversed cell with reversed relation matches)"
                    }
                    AlignmentProfile::OntoAligner => "unique (source, target) pairs; a pair's other cells ignored",
                    AlignmentProfile::Diso => "`=` cells only",
                    AlignmentProfile::Melt | AlignmentProfile::AlignApi => "as given",
                }
                .to_owned(),
            ),
            (
                "zero_division",
                match profile {
                    AlignmentProfile::AlignApi => "P = 1 when nothing judged, R = 1 when nothing expected, else 0",
                    _ => "0",
                }
                .to_owned(),
            ),
            ("exclusion", "excluded system cells removed before scoring, not counted".to_owned()),
            ("micro", "pooled counts".to_owned()),
            (
                "macro",
                if self.macro_harmonic_f1 {
                    "mean P and R; F = harmonic mean of macro P and R".to_owned()
                } else {
                    "mean of per-pair P, R and F".to_owned()
                },
            ),
        ];
        if profile == AlignmentProfile::OaeiSeals {
            out.push(("rounding", "P and R rounded to 3 decimals before F".to_owned()));
        }
        if profile == AlignmentProfile::OntoAligner {
            out.push(("scale", "reports show values x100".to_owned()));
        }
        if let Some(n) = self.expected_pairs {
            out.push(("expected_pairs", n.to_string()));
        }
        let residual = match self.residual {
            ResidualCoverage::Computed => "R+ = recall on the reference cells the baseline misses (MELT ResidualRefiner; baseline: the given one, else MELT's BaselineStringMatcher on the ontologies' labels)",
            ResidualCoverage::Partly => "R+ computed for the pairs with ontologies or a baseline; empty for the others and in the aggregates",
            ResidualCoverage::NotComputed => "R+ not computed (no ontologies, no baseline): its CSV column is empty",
        };
        out.push(("residual_recall", residual.to_owned()));
        out
    }
}
