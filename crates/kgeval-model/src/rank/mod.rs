//! The rank family's inputs (`kgeval rank`: DISO Task 2, Bio-ML, DeepOnto, OntoAligner,
//! Bio-LLM): candidate pools, submitted rankings or scores, gold keys, scored pairs; its
//! results in [`results`]. The tie policies it ranks under are the core's
//! ([`crate::ranking`]).

pub mod results;

use rustc_hash::FxHashMap;

use crate::TermId;

/// The NIL IRI of the DISO-OAEI 2026 track: the candidate a system ranks first to abstain.
pub const DISO_NIL_IRI: &str = "https://oaei.ontologymatching.org/2026/diso/NIL";

/// The gold value of Bio-ML / DeepOnto files for a source without a match: the NIL of the
/// Bio-ML, DeepOnto, OntoAligner and BioLLM profiles.
pub const BIOML_UNMATCHED: &str = "UnMatched";

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
