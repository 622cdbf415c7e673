//! The questions of a test split and their kgc-sparsity ids.

use rustc_hash::FxHashMap;

use super::{Side, Triple, TripleFile};
use crate::TermId;

/// A question `(?, relation, anchor)` (head side) or `(anchor, relation, ?)` (tail side).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QuestionKey {
    /// Which entity is asked for.
    pub side: Side,
    /// The relation.
    pub relation: TermId,
    /// The given entity: the tail of a head question, the head of a tail question.
    pub anchor: TermId,
}

/// An aggregated question with every answer the test split gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// `head{i}` or `tail{i}` (kgc-sparsity).
    pub id: String,
    /// The side, relation and given entity.
    pub key: QuestionKey,
    /// The distinct test answers in file order.
    pub answers: Vec<TermId>,
}

/// The aggregated questions of a test split: `head{i}` is the i-th distinct `(tail, relation)`
/// in file order, `tail{i}` the i-th distinct `(head, relation)`; every head question comes
/// before every tail question (the kgc-sparsity rule, which reproduces its `trec_queries.txt`).
///
/// ```
/// use kgeval_model::kgc::{QuestionSet, Side, Triple};
/// use kgeval_model::Interner;
/// let mut n = Interner::new();
/// let (a, b, c, p) = (n.intern("a"), n.intern("b"), n.intern("c"), n.intern("p"));
/// let triples = [Triple { head: a, relation: p, tail: b }, Triple { head: c, relation: p, tail: b }];
/// let questions = QuestionSet::from_triples(&triples);
/// let ids: Vec<&str> = questions.questions().iter().map(|q| q.id.as_str()).collect();
/// assert_eq!(ids, ["head0", "tail0", "tail1"]);
/// assert_eq!(questions.questions()[0].answers, vec![a, c]);
/// assert_eq!(questions.questions()[0].key.side, Side::Head);
/// ```
#[derive(Debug, Clone, Default)]
pub struct QuestionSet {
    questions: Vec<Question>,
    index: FxHashMap<QuestionKey, u32>,
}

impl QuestionSet {
    /// The questions of `triples` (repeated triples add nothing).
    #[must_use]
    pub fn from_triples(triples: &[Triple]) -> Self {
        let mut set = QuestionSet::default();
        for side in Side::BOTH {
            let mut next_id = 0usize;
            for &triple in triples {
                let (key, answer) = side.question_of(triple);
                let slot = match set.index.get(&key) {
                    Some(&slot) => slot as usize,
                    None => {
                        set.index.insert(key, set.questions.len() as u32);
                        set.questions.push(Question {
                            id: format!("{}{next_id}", side.name()),
                            key,
                            answers: Vec::new(),
                        });
                        next_id += 1;
                        set.questions.len() - 1
                    }
                };
                let answers = &mut set.questions[slot].answers;
                if !answers.contains(&answer) {
                    answers.push(answer);
                }
            }
        }
        set
    }

    /// Every question, heads first.
    #[must_use]
    pub fn questions(&self) -> &[Question] {
        &self.questions
    }

    /// The index of the question `key`.
    #[must_use]
    pub fn index_of(&self, key: &QuestionKey) -> Option<u32> {
        self.index.get(key).copied()
    }

    /// The question at `index`.
    ///
    /// # Panics
    /// When `index` is out of range.
    #[must_use]
    pub fn get(&self, index: u32) -> &Question {
        &self.questions[index as usize]
    }

    /// The number of questions (the macro denominator).
    #[must_use]
    pub fn len(&self) -> usize {
        self.questions.len()
    }

    /// Whether there is no question.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.questions.is_empty()
    }
}

/// The evaluated split: its triples, their questions, and a lookup from a triple to its
/// first line.
#[derive(Debug, Clone, Default)]
pub struct TestSet {
    /// The triples as read.
    pub file: TripleFile,
    /// The aggregated questions.
    pub questions: QuestionSet,
    first: FxHashMap<Triple, u32>,
}

impl TestSet {
    /// The questions of `file`.
    #[must_use]
    pub fn new(file: TripleFile) -> Self {
        let questions = QuestionSet::from_triples(&file.triples);
        let mut first = FxHashMap::default();
        for (i, &t) in file.triples.iter().enumerate() {
            first.entry(t).or_insert(i as u32);
        }
        Self { file, questions, first }
    }

    /// The index of the first occurrence of `triple` in the file.
    #[must_use]
    pub fn triple_index(&self, triple: &Triple) -> Option<u32> {
        self.first.get(triple).copied()
    }

    /// The micro denominator: two (triple, side) pairs per line of the file.
    #[must_use]
    pub fn answer_pairs(&self) -> usize {
        2 * self.file.triples.len()
    }

    /// The question of `triple` on `side` (every test triple has both) and its answer.
    ///
    /// # Panics
    /// When `triple` is not a test triple.
    #[must_use]
    pub fn question_of(&self, triple: Triple, side: Side) -> (u32, TermId) {
        let (key, answer) = side.question_of(triple);
        (self.questions.index_of(&key).expect("every test triple has its questions"), answer)
    }
}
