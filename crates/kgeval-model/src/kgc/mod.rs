//! Knowledge-graph completion (KGC): triples, the head and tail questions of a test split with
//! their kgc-sparsity ids, known answers for filtering, per-answer rank observations, relation
//! categories, and the family's result types.
//!
//! Entities and relations are interned in two [`Interner`]s of one [`KgcVocabulary`]; an
//! entity's [`TermId`] index is its column in a dense score matrix when the vocabulary was
//! built from the entity list.

pub mod conventions;
mod questions;
pub mod results;

use std::fmt;

use rustc_hash::FxHashMap;

use crate::{Interner, TermId};

pub use questions::{Question, QuestionKey, QuestionSet, TestSet};

/// The most entities a knowledge graph read by kgeval can hold: 2³², the ids an entity's
/// `u32` [`TermId`] numbers. The bound of every declared candidate count and rank when no
/// entity list gives the exact number ([`KgcVocabulary::candidate_bound`]).
pub const MAX_ENTITIES: u64 = 1 << 32;

/// The bound [`KgcVocabulary::candidate_bound`] gives, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CandidateBound {
    /// The entity list's count: no question has more candidates.
    EntityList(u64),
    /// No entity list: the triple files read may not name every entity of the graph, so only
    /// [`MAX_ENTITIES`] bounds the candidates.
    MaxEntities,
}

impl CandidateBound {
    /// The most candidates a question can have.
    #[must_use]
    pub fn value(self) -> u64 {
        match self {
            CandidateBound::EntityList(count) => count,
            CandidateBound::MaxEntities => MAX_ENTITIES,
        }
    }

    /// What the bound is, for a message: `the number of entities` or the id limit.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            CandidateBound::EntityList(_) => "the number of entities",
            CandidateBound::MaxEntities => {
                "2^32, the most entities kgeval numbers (give the entity list for the exact bound)"
            }
        }
    }
}

/// Entity and relation names of one evaluation.
///
/// With a *closed* entity set (read from an entity list) a triple naming another entity is an
/// error for the readers; an open set grows as triples are read.
#[derive(Debug, Clone, Default)]
pub struct KgcVocabulary {
    /// Entity names; the id's index is the entity's column in a score matrix.
    pub entities: Interner,
    /// Relation names.
    pub relations: Interner,
    /// Whether the entity set is fixed (an entity list was given).
    pub closed_entities: bool,
}

impl KgcVocabulary {
    /// An open vocabulary: entities are added as triples name them.
    #[must_use]
    pub fn open() -> Self {
        Self::default()
    }

    /// A vocabulary whose entities are exactly `names`, in this order (repeats are kept once).
    #[must_use]
    pub fn with_entities<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut entities = Interner::new();
        for name in names {
            entities.intern(name);
        }
        Self { entities, relations: Interner::new(), closed_entities: true }
    }

    /// The id of entity `name`: added when the set is open, `None` when the set is closed and
    /// does not hold it.
    pub fn entity(&mut self, name: &str) -> Option<TermId> {
        if self.closed_entities {
            self.entities.get(name)
        } else {
            Some(self.entities.intern(name))
        }
    }

    /// The number of entities (the candidates of every question before filtering).
    #[must_use]
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// The most candidates a question can have, the bound of a declared candidate count or
    /// rank: the entity count when the entity set is closed (an entity list), else
    /// [`MAX_ENTITIES`] — the triple files of an open set may leave some of the graph's
    /// entities out, so their count is no bound.
    ///
    /// ```
    /// use kgeval_model::kgc::{CandidateBound, KgcVocabulary, MAX_ENTITIES};
    /// assert_eq!(KgcVocabulary::with_entities(["a", "b"]).candidate_bound(), CandidateBound::EntityList(2));
    /// assert_eq!(KgcVocabulary::open().candidate_bound().value(), MAX_ENTITIES);
    /// ```
    #[must_use]
    pub fn candidate_bound(&self) -> CandidateBound {
        if self.closed_entities {
            CandidateBound::EntityList(self.entity_count() as u64)
        } else {
            CandidateBound::MaxEntities
        }
    }
}

/// One `(head, relation, tail)` fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Triple {
    /// The subject.
    pub head: TermId,
    /// The predicate.
    pub relation: TermId,
    /// The object.
    pub tail: TermId,
}

/// The triples of one file, in file order, with the 1-based line of each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TripleFile {
    /// The file as the user named it.
    pub name: String,
    /// The triples in file order (repeats kept).
    pub triples: Vec<Triple>,
    /// The line of each triple.
    pub lines: Vec<u32>,
}

/// Which entity of a triple a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// `(?, p, o)`: predict the head.
    Head,
    /// `(s, p, ?)`: predict the tail.
    Tail,
}

impl Side {
    /// Both sides, heads first (the kgc-sparsity order).
    pub const BOTH: [Side; 2] = [Side::Head, Side::Tail];

    /// `head` or `tail`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Side::Head => "head",
            Side::Tail => "tail",
        }
    }

    /// Parses `head` or `tail` (also PyKEEN's `left` / `right`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "head" | "left" => Some(Side::Head),
            "tail" | "right" => Some(Side::Tail),
            _ => None,
        }
    }

    /// The question of `triple` on this side and the answer it has.
    #[must_use]
    pub fn question_of(self, triple: Triple) -> (QuestionKey, TermId) {
        match self {
            Side::Head => (QuestionKey { side: self, relation: triple.relation, anchor: triple.tail }, triple.head),
            Side::Tail => (QuestionKey { side: self, relation: triple.relation, anchor: triple.head }, triple.tail),
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The known answers of every question a set of triples answers: the filter of filtered
/// ranking.
#[derive(Debug, Clone, Default)]
pub struct KnownAnswers {
    answers: FxHashMap<QuestionKey, Vec<TermId>>,
}

impl KnownAnswers {
    /// No known answer.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds both questions of every triple with their answers.
    pub fn extend<'a>(&mut self, triples: impl IntoIterator<Item = &'a Triple>) {
        for &triple in triples {
            for side in Side::BOTH {
                let (key, answer) = side.question_of(triple);
                self.answers.entry(key).or_default().push(answer);
            }
        }
        // Sorted and deduplicated once, not per insertion (a popular question has thousands).
        self.sort_lists();
    }

    /// The answers `triples` give the questions of `questions` (the filter of a test split:
    /// answers of other questions are never looked at, so they are not kept).
    #[must_use]
    pub fn of_questions<'a>(questions: &QuestionSet, triples: impl IntoIterator<Item = &'a Triple>) -> Self {
        let mut known = KnownAnswers::default();
        for &triple in triples {
            for side in Side::BOTH {
                let (key, answer) = side.question_of(triple);
                if questions.index_of(&key).is_some() {
                    known.answers.entry(key).or_default().push(answer);
                }
            }
        }
        known.sort_lists();
        known
    }

    /// `self` plus every question's own answers: the filter of micro metrics (every known
    /// answer), for the questions of `questions`.
    #[must_use]
    pub fn with_answers_of(&self, questions: &QuestionSet) -> Self {
        let mut known = KnownAnswers::default();
        for q in questions.questions() {
            let mut list = self.answers(&q.key).to_vec();
            list.extend_from_slice(&q.answers);
            known.answers.insert(q.key, list);
        }
        known.sort_lists();
        known
    }

    fn sort_lists(&mut self) {
        for list in self.answers.values_mut() {
            if !list.is_sorted_by(|a, b| a < b) {
                list.sort_unstable();
                list.dedup();
            }
        }
    }

    /// The known answers of `key`, sorted by id (empty when none).
    #[must_use]
    pub fn answers(&self, key: &QuestionKey) -> &[TermId] {
        self.answers.get(key).map_or(&[], Vec::as_slice)
    }

    /// Whether `answer` is a known answer of `key`.
    #[must_use]
    pub fn contains(&self, key: &QuestionKey, answer: TermId) -> bool {
        self.answers(key).binary_search(&answer).is_ok()
    }
}

/// Which known answers were removed from the candidates before a rank was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FilterScope {
    /// Every known answer but the target: the filter files and the evaluated split (the
    /// PyKEEN / LibKGE standard for micro metrics).
    #[default]
    Known,
    /// Only the answers of the filter files: other test answers stay in the ranking (the
    /// aggregated questions of macro metrics).
    Filters,
}

impl FilterScope {
    /// The JSON / header name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            FilterScope::Known => "filters+test",
            FilterScope::Filters => "filters",
        }
    }
}

/// What an input says about where one answer ranks for its question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RankObservation {
    /// A rank as given (a rank file without counts, or a position in a run); the tie policy
    /// was applied by whoever wrote it.
    Rank(f64),
    /// Candidates scoring strictly higher and equal (the answer included): any tie policy
    /// applies.
    Counts {
        /// Candidates scoring strictly higher.
        greater: u64,
        /// Candidates scoring the same, the answer included (≥ 1).
        equal: u64,
    },
    /// The answer is not in the ranking (beyond a run's depth): reciprocal rank 0.
    Absent,
}

/// One answer of one question with its observed rank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerObservation {
    /// The question's index in the [`QuestionSet`].
    pub question: u32,
    /// The answer entity.
    pub answer: TermId,
    /// Its rank or tie counts under the input's [`FilterScope`].
    pub observed: RankObservation,
    /// The candidates ranked for it after filtering, when the input says (else derived from
    /// the entity count and the filter).
    pub candidates: Option<u64>,
}

/// The four relation categories of Bordes et al. (2013), from the average number of tails per
/// (head, relation) and heads per (relation, tail).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RelationCategory {
    /// Few heads per tail, few tails per head.
    OneToOne,
    /// Few heads per tail, many tails per head.
    OneToMany,
    /// Many heads per tail, few tails per head.
    ManyToOne,
    /// Many of both.
    ManyToMany,
}

impl RelationCategory {
    /// Every category.
    pub const ALL: [RelationCategory; 4] = [
        RelationCategory::OneToOne,
        RelationCategory::OneToMany,
        RelationCategory::ManyToOne,
        RelationCategory::ManyToMany,
    ];

    /// `1-1`, `1-N`, `N-1`, `N-N`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RelationCategory::OneToOne => "1-1",
            RelationCategory::OneToMany => "1-N",
            RelationCategory::ManyToOne => "N-1",
            RelationCategory::ManyToMany => "N-N",
        }
    }

    /// The kgc-sparsity file stem (`one_to_one`, `one_to_many`, `many_to_one`, `many_to_many`).
    #[must_use]
    pub const fn long_name(self) -> &'static str {
        match self {
            RelationCategory::OneToOne => "one_to_one",
            RelationCategory::OneToMany => "one_to_many",
            RelationCategory::ManyToOne => "many_to_one",
            RelationCategory::ManyToMany => "many_to_many",
        }
    }

    /// The category whose head side is `many_heads` and tail side `many_tails`.
    #[must_use]
    pub const fn of(many_heads: bool, many_tails: bool) -> Self {
        match (many_heads, many_tails) {
            (false, false) => RelationCategory::OneToOne,
            (false, true) => RelationCategory::OneToMany,
            (true, false) => RelationCategory::ManyToOne,
            (true, true) => RelationCategory::ManyToMany,
        }
    }
}

impl fmt::Display for RelationCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How relation categories are decided: a side is "many" iff its average exceeds `threshold`
/// (or reaches it, when `inclusive`), counted on the triples of `source`.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryRule {
    /// The threshold on the averages (LibKGE: 1.5).
    pub threshold: f64,
    /// `≥` instead of `>`.
    pub inclusive: bool,
    /// The files the averages were counted on, as named by the user.
    pub source: String,
}

impl CategoryRule {
    /// Whether an average makes a side "many".
    #[must_use]
    pub fn is_many(&self, average: f64) -> bool {
        if self.inclusive {
            average >= self.threshold
        } else {
            average > self.threshold
        }
    }

    /// The rule in words (`many iff average > 1.5 on train.txt`).
    #[must_use]
    pub fn describe(&self) -> String {
        let op = if self.inclusive { "≥" } else { ">" };
        format!("many iff average {op} {} on {}", self.threshold, self.source)
    }
}

/// One relation's averages and category.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelationCardinality {
    /// The relation.
    pub relation: TermId,
    /// Triples counted.
    pub triples: usize,
    /// Average tails per distinct (head, relation).
    pub tails_per_head: f64,
    /// Average heads per distinct (relation, tail).
    pub heads_per_tail: f64,
    /// The category under the rule used.
    pub category: RelationCategory,
}

/// One human judgment of a triple (kgc-sparsity `annotations.txt`: `s p o {Y,N}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judgment {
    /// The judged triple.
    pub triple: Triple,
    /// `Y` (true) or `N` / blank (false).
    pub relevant: bool,
    /// The 1-based line.
    pub line: u32,
}

/// A pooled triple with the smallest pool depth that brought it in (kgc-sparsity
/// `pooling_depth.txt`: `s p o depth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PooledTriple {
    /// The triple.
    pub triple: Triple,
    /// The depth (1 = the systems' top-1).
    pub depth: u32,
    /// The 1-based line.
    pub line: u32,
}
