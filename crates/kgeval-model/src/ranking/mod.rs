//! Inputs of the ranking families: candidate pools, submitted rankings or scores, gold keys,
//! and the tie policies every ranking family shares (local ranking, IR runs, KGC).

mod dense;
pub mod results;

use std::fmt;

use rustc_hash::FxHashMap;

use crate::TermId;

pub use dense::{ScoreDtype, ScoreRow};

/// The NIL IRI of the DISO-OAEI 2026 track: the candidate a system ranks first to abstain.
pub const DISO_NIL_IRI: &str = "https://oaei.ontologymatching.org/2026/diso/NIL";

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
    /// Input order (a stable sort: ranx, DeepOnto, OntoAligner).
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
/// optimistic / pessimistic / realistic ranks and LibKGE's rounded mean.
///
/// ```
/// use kgeval_model::ranking::{TieBreak, TiePolicy};
/// assert_eq!(TiePolicy::from_name("expected"), Some(TiePolicy::Realistic));
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
    /// pessimistic) / 2 (PyKEEN's "realistic" rank; `expected` is accepted as an alias).
    Realistic,
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
    pub const ALL: [TiePolicy; 7] = [
        TiePolicy::STABLE,
        TiePolicy::LEXICOGRAPHIC,
        TiePolicy::TREC_EVAL,
        TiePolicy::Optimistic,
        TiePolicy::Pessimistic,
        TiePolicy::Realistic,
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
            TiePolicy::RoundedMean => "rounded-mean",
        }
    }

    /// Parses a name as printed by [`TiePolicy::name`]; `expected` is accepted for
    /// `realistic`, and a [`TieBreak`] name for its order.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        if name == "expected" {
            return Some(TiePolicy::Realistic);
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
/// `atol` and `rtol` rounded to `f32`, as torch does on a float32 tensor).
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

/// One DISO candidate pool: the candidates a system must rank for one query.
#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    /// The query id, the join key with submissions and gold keys (DISO: the integer as text).
    pub qid: Box<str>,
    /// The source entity.
    pub source: TermId,
    /// The source entity's type (`CLS`, `OPROP`, `DPROP`), if given.
    pub entity_type: Option<Box<str>>,
    /// The candidates in file order (49 targets and the NIL IRI in DISO).
    pub candidates: Vec<TermId>,
    /// The 1-based line of the pool in its file.
    pub line: u32,
}

/// Pools by query id, in file order.
#[derive(Debug, Clone, Default)]
pub struct PoolSet {
    pools: Vec<Pool>,
    by_qid: FxHashMap<Box<str>, usize>,
}

impl PoolSet {
    /// An empty set.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a pool; returns the pool already stored under the same qid instead (and stores
    /// nothing) when the qid is taken.
    pub fn insert(&mut self, pool: Pool) -> Result<(), &Pool> {
        if let Some(&index) = self.by_qid.get(&pool.qid) {
            return Err(&self.pools[index]);
        }
        self.by_qid.insert(pool.qid.clone(), self.pools.len());
        self.pools.push(pool);
        Ok(())
    }

    /// The pool of `qid`.
    #[must_use]
    pub fn get(&self, qid: &str) -> Option<&Pool> {
        self.by_qid.get(qid).map(|&i| &self.pools[i])
    }

    /// Every pool in file order.
    #[must_use]
    pub fn pools(&self) -> &[Pool] {
        &self.pools
    }

    /// The number of pools.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pools.len()
    }

    /// Whether there is no pool.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
    }
}

/// What a submission gives for one query.
#[derive(Debug, Clone, PartialEq)]
pub enum Submitted {
    /// Candidates best first (DISO `ranking`, DeepOnto unscored lists).
    Ranking(Vec<TermId>),
    /// Candidates with scores, in submission order (DISO `scores`, TSV `qid IRI score`,
    /// DeepOnto `(iri, score)` lists). Ranked by the tie policy.
    Scores(Vec<(TermId, f64)>),
}

impl Submitted {
    /// The candidates in submission order.
    pub fn candidates(&self) -> impl ExactSizeIterator<Item = TermId> + '_ {
        let (ranking, scores) = match self {
            Submitted::Ranking(r) => (r.as_slice(), &[][..]),
            Submitted::Scores(s) => (&[][..], s.as_slice()),
        };
        CandidateIter { ranking: ranking.iter(), scores: scores.iter() }
    }

    /// The number of candidates.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Submitted::Ranking(r) => r.len(),
            Submitted::Scores(s) => s.len(),
        }
    }

    /// Whether no candidate is given.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

struct CandidateIter<'a> {
    ranking: std::slice::Iter<'a, TermId>,
    scores: std::slice::Iter<'a, (TermId, f64)>,
}

impl Iterator for CandidateIter<'_> {
    type Item = TermId;
    fn next(&mut self) -> Option<TermId> {
        self.ranking.next().copied().or_else(|| self.scores.next().map(|&(t, _)| t))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.ranking.len() + self.scores.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for CandidateIter<'_> {}

/// One query of a submission.
#[derive(Debug, Clone, PartialEq)]
pub struct SubmissionEntry {
    /// The query id.
    pub qid: Box<str>,
    /// The ranking or the scores.
    pub submitted: Submitted,
    /// Bio-LLM answer flags, aligned with the submitted candidates, when the input has them.
    pub answers: Option<Vec<bool>>,
    /// The 1-based line where the query starts.
    pub line: u32,
}

/// A submission: one entry per query, in file order (duplicates are kept so that validation
/// can name both lines).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Submission {
    /// The entries in file order.
    pub entries: Vec<SubmissionEntry>,
}

/// One gold answer: the expected target of a query (possibly the NIL IRI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldEntry {
    /// The query id.
    pub qid: Box<str>,
    /// The gold target.
    pub gold: TermId,
    /// The 1-based line.
    pub line: u32,
}

/// A gold key: query id → gold target, in file order (duplicates are kept so that validation
/// can name both lines).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoldKey {
    /// The entries in file order.
    pub entries: Vec<GoldEntry>,
}

impl GoldKey {
    /// An empty key.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a gold answer.
    pub fn push(&mut self, qid: &str, gold: TermId, line: u32) {
        self.entries.push(GoldEntry { qid: qid.into(), gold, line });
    }

    /// The number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the key is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One OntoAligner-style prediction: a scored (source, target) pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPair {
    /// The source entity.
    pub source: TermId,
    /// The target entity.
    pub target: TermId,
    /// The score (OntoAligner: a missing score is 0.0).
    pub score: f64,
}
