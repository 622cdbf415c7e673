//! What the one ranking core names, shared by every ranking family (rank, trec, kgc): orders
//! (`TieBreak`), tie policies (`TiePolicy`), score tolerances, NaN policies and dense score
//! rows. The rank family's own inputs and results live in [`crate::rank`].

mod dense;
mod ties;

use std::fmt;

pub use dense::{ScoreDtype, ScoreRow};
pub use ties::Ties;

/// How a full order of a scored list breaks ties: the list is sorted by score descending, and
/// candidates with equal scores by this rule. The default is trec_eval's.
///
/// The one order of the ranking core: `kgeval trec --tie-break`, and the order policies of
/// [`TiePolicy::Order`] (`stable`, `lexicographic`, `trec-eval` in `kgeval rank`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TieBreak {
    /// Identifier (docno) descending in byte order (trec_eval, pytrec_eval).
    #[default]
    DocnoDescending,
    /// Identifier ascending in byte order.
    DocnoAscending,
    /// The run's rank column ascending, then identifier descending (lists without a rank
    /// column: their input order).
    Rank,
    /// Input order (a stable sort: DeepOnto, OntoAligner; not ranx, whose sort is unstable).
    Input,
    /// Scores rounded to 12 decimal places first (Python's `round(x, 12)`), then identifier
    /// ascending (OAEI-Bio-ML-eval).
    Lexicographic,
}

impl TieBreak {
    /// Every tie-break.
    pub const ALL: [TieBreak; 5] =
        [TieBreak::DocnoDescending, TieBreak::DocnoAscending, TieBreak::Rank, TieBreak::Input, TieBreak::Lexicographic];

    /// The name `kgeval trec --tie-break` and its JSON use.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TieBreak::DocnoDescending => "docno-desc",
            TieBreak::DocnoAscending => "docno-asc",
            TieBreak::Rank => "rank",
            TieBreak::Input => "input",
            TieBreak::Lexicographic => "lexicographic",
        }
    }

    /// Parses a name printed by [`TieBreak::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl fmt::Display for TieBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The rank of a target among candidates with equal scores: its position in a full order
/// ([`TiePolicy::Order`], under a [`TieBreak`]), or a rank computed from the counts of
/// candidates scoring above (g) and equal to it (e, the target included): PyKEEN's
/// optimistic / pessimistic / realistic ranks, LibKGE's rounded mean, and the expectation of
/// every metric over the tied places.
///
/// ```
/// use kgeval_model::ranking::{TieBreak, TiePolicy};
/// assert_eq!(TiePolicy::from_name("expected"), Some(TiePolicy::Expected));
/// assert_eq!(TiePolicy::from_name("trec"), Some(TiePolicy::TREC_EVAL));
/// assert_eq!(TiePolicy::Realistic.name(), "realistic");
/// assert_eq!(TiePolicy::TREC_EVAL, TiePolicy::Order(TieBreak::DocnoDescending));
/// assert_eq!(TiePolicy::default().name(), "stable");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TiePolicy {
    /// The target's position in the full order under a tie-break ([`TiePolicy::STABLE`],
    /// [`TiePolicy::LEXICOGRAPHIC`], [`TiePolicy::TREC_EVAL`]…).
    Order(TieBreak),
    /// The target ranks first among the candidates it ties with: g + 1.
    Optimistic,
    /// The target ranks last among the candidates it ties with: g + e.
    Pessimistic,
    /// The mean rank over all orders of the tie: g + (e + 1) / 2, i.e. (optimistic +
    /// pessimistic) / 2 (PyKEEN's "realistic" rank). MRR and Hits@k are then those of the
    /// mean rank, not their expectations.
    Realistic,
    /// The rank uniform over the tied places g + 1 … g + e: every metric is its expectation,
    /// E[1/rank] = (1/e) Σ 1/r and E[hits@k] = |{r ≤ k}| / e; the mean rank is the realistic
    /// one.
    Expected,
    /// g + ⌊e/2⌋ + 1: the mean rank of the tie rounded up (LibKGE's `rounded_mean_rank`, its
    /// default). LibKGE decides ties with `isclose` (see [`Tolerance`]); [`TiePolicy`] itself
    /// only names the rank, the tolerance is a separate option.
    RoundedMean,
}

impl Default for TiePolicy {
    fn default() -> Self {
        TiePolicy::STABLE
    }
}

impl TiePolicy {
    /// Submission order among equal scores (DeepOnto, OntoAligner: a stable sort).
    pub const STABLE: TiePolicy = TiePolicy::Order(TieBreak::Input);
    /// Scores rounded to 12 decimal places, then identifier ascending (OAEI-Bio-ML-eval).
    pub const LEXICOGRAPHIC: TiePolicy = TiePolicy::Order(TieBreak::Lexicographic);
    /// Exact scores, then identifier descending in byte order (trec_eval).
    pub const TREC_EVAL: TiePolicy = TiePolicy::Order(TieBreak::DocnoDescending);

    /// The policies `kgeval rank` and `kgeval kgc` name.
    pub const ALL: [TiePolicy; 8] = [
        TiePolicy::STABLE,
        TiePolicy::LEXICOGRAPHIC,
        TiePolicy::TREC_EVAL,
        TiePolicy::Optimistic,
        TiePolicy::Pessimistic,
        TiePolicy::Realistic,
        TiePolicy::Expected,
        TiePolicy::RoundedMean,
    ];

    /// The CLI / JSON name (an order other than the three named ones: its tie-break's name).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TiePolicy::Order(TieBreak::Input) => "stable",
            TiePolicy::Order(TieBreak::Lexicographic) => "lexicographic",
            TiePolicy::Order(TieBreak::DocnoDescending) => "trec-eval",
            TiePolicy::Order(other) => other.name(),
            TiePolicy::Optimistic => "optimistic",
            TiePolicy::Pessimistic => "pessimistic",
            TiePolicy::Realistic => "realistic",
            TiePolicy::Expected => "expected",
            TiePolicy::RoundedMean => "rounded-mean",
        }
    }

    /// Parses a name as printed by [`TiePolicy::name`], a [`TieBreak`] name for its order, and
    /// `trec` (the word of `kgeval trec --ties`) for `trec-eval`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        if name == "trec" {
            return Some(TiePolicy::TREC_EVAL);
        }
        Self::ALL.into_iter().find(|p| p.name() == name).or_else(|| TieBreak::from_name(name).map(TiePolicy::Order))
    }

    /// The tie-break of an order policy; `None` for the count policies, which rank one target
    /// from tie counts rather than order the candidates.
    #[must_use]
    pub const fn tie_break(self) -> Option<TieBreak> {
        match self {
            TiePolicy::Order(tie_break) => Some(tie_break),
            _ => None,
        }
    }

    /// Whether the policy defines a full order of the candidates (rather than only the rank of
    /// one target from tie counts).
    #[must_use]
    pub const fn is_order(self) -> bool {
        matches!(self, TiePolicy::Order(_))
    }
}

impl fmt::Display for TiePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// When two scores tie: LibKGE's `torch.isclose(score, target_score, rtol, atol)`, i.e.
/// `score == target` or `|score − target| ≤ atol + |rtol · target|` (the difference finite).
/// `rtol` scales the **target's** score; a score within the tolerance above the target is a
/// tie, not "greater". Without a tolerance, ties are exact (`==`, PyKEEN).
///
/// Comparisons run in the precision of the scores (`f32` for float32/float16 matrices, with
/// `atol` and `rtol` rounded to `f32`, as torch does on a float32 tensor; `f64` for float64
/// matrices).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute tolerance (LibKGE `entity_ranking.tie_handling.atol`, default 1e-5).
    pub atol: f64,
    /// Relative tolerance, applied to the target's score (LibKGE `…tie_handling.rtol`,
    /// default 1e-4).
    pub rtol: f64,
}

impl Tolerance {
    /// LibKGE's defaults: atol 1e-5, rtol 1e-4.
    pub const LIBKGE: Tolerance = Tolerance { atol: 1e-5, rtol: 1e-4 };

    /// Parses `atol,rtol` (the CLI's `--tie-tolerance 1e-5,1e-4`); both finite and ≥ 0.
    ///
    /// ```
    /// use kgeval_model::ranking::Tolerance;
    /// assert_eq!(Tolerance::parse("1e-5,1e-4"), Some(Tolerance::LIBKGE));
    /// assert_eq!(Tolerance::parse("1e-5"), None);
    /// ```
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let (atol, rtol) = text.split_once(',')?;
        let value = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        Some(Tolerance { atol: value(atol)?, rtol: value(rtol)? })
    }
}

impl Default for Tolerance {
    fn default() -> Self {
        Self::LIBKGE
    }
}

impl fmt::Display for Tolerance {
    /// `atol,rtol`, the form [`Tolerance::parse`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:e},{:e}", self.atol, self.rtol)
    }
}

/// What a NaN score means when ranking from scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum NanPolicy {
    /// A NaN score is an error naming its row and column.
    #[default]
    Error,
    /// A NaN candidate never outranks or ties the target and is not counted as a candidate
    /// (PyKEEN: NaN compares false and only finite scores count as options); a NaN target ranks
    /// below every other candidate.
    Worst,
}

impl NanPolicy {
    /// Every policy.
    pub const ALL: [NanPolicy; 2] = [NanPolicy::Error, NanPolicy::Worst];

    /// The CLI / JSON name (`--nan error|worst`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            NanPolicy::Error => "error",
            NanPolicy::Worst => "worst",
        }
    }

    /// Parses a name as printed by [`NanPolicy::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for NanPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Mean rank metrics over a set of queries (the output of the ranking core's aggregation).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankSummary {
    /// The number of queries (the denominator: queries whose gold is absent count).
    pub queries: usize,
    /// Mean reciprocal rank.
    pub mrr: f64,
    /// Hits@k for each configured k, in the configured order.
    pub hits: Vec<(u32, f64)>,
    /// Mean rank over the queries whose gold was ranked (`None` when none was).
    pub mean_rank: Option<f64>,
    /// Queries whose gold was ranked.
    pub ranked: usize,
    /// Queries whose gold was inside a score tie (0 for rankings given as permutations).
    pub gold_tied: usize,
}

impl RankSummary {
    /// Hits@k, if k was configured.
    #[must_use]
    pub fn hits_at(&self, k: u32) -> Option<f64> {
        self.hits.iter().find(|(kk, _)| *kk == k).map(|(_, v)| *v)
    }
}
