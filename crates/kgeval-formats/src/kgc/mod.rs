//! Readers of the knowledge-graph-completion family: triple files (train / valid / test),
//! entity lists, per-answer rank files, question lists (kgc-sparsity `trec_queries.txt`),
//! judgments, pool depths, relation weights, and dense `.npy` score matrices ([`npy`]).
//!
//! Every text reader accepts gzip input (recognised by its magic bytes, whatever the file is
//! called) through the `*_file` functions, and fails with one
//! `FILE:LINE:COL: found …, expected …` error on malformed input.
//!
//! # The per-answer rank file
//!
//! ```text
//! # filter: train valid test
//! head<TAB>relation<TAB>tail<TAB>side<TAB>rank[<TAB>n_greater<TAB>n_equal<TAB>num_candidates]
//! /m/0abc<TAB>/film/film/genre<TAB>/m/0xyz<TAB>tail<TAB>3.5<TAB>2<TAB>2<TAB>14541
//! ```
//!
//! - Lines starting with `#` before the header are comments. One of them must be
//!   `# filter: NAMES`, naming the splits whose known answers were removed from the candidates
//!   before ranking (names separated by spaces, commas or `+`). If the names include `test`,
//!   the ranks are fully filtered (every known answer but the target: the PyKEEN / LibKGE
//!   standard, [`FilterScope::Known`]); otherwise other test answers were left in the ranking
//!   ([`FilterScope::Filters`]: the aggregated-question list of macro metrics).
//! - The header names the columns: the five basic ones, or those followed by `n_greater`
//!   (candidates scoring strictly higher), `n_equal` (candidates scoring the same, the answer
//!   included) and `num_candidates` (candidates left after filtering). With the counts any tie
//!   policy and PyKEEN's adjusted metrics apply; `rank` is then only checked to lie in the tie
//!   (`rank-outside-tie` warning).
//! - `side` is `head` for the question `(?, relation, tail)` and `tail` for
//!   `(head, relation, ?)` (PyKEEN's `left` / `right` are accepted).
//! - Every test triple needs one line per side; a line for a triple outside the test file, a
//!   repeated (triple, side) or a missing one is an error.
//! - A `rank` or `num_candidates` past the number of entities is an error: the entity list's
//!   count when one was read (a closed vocabulary), else 2³² (the most entities kgeval's `u32`
//!   ids number: the triple files read may not name every entity, so their count is no bound).

pub mod npy;

mod judgments;
mod lines;
mod queries;
mod ranks;
mod triples;

use std::path::Path;

use kgeval_model::kgc::{
    AnswerObservation, FilterScope, Judgment, KgcVocabulary, PooledTriple, QuestionKey, QuestionSet, TestSet,
    TripleFile,
};
use kgeval_model::{Diagnostic, TermId};

use crate::input::Input;
use crate::FormatError;

/// A per-answer rank file.
#[derive(Debug, Clone, Default)]
pub struct ReadRanks {
    /// Which known answers were removed before ranking (from the `# filter:` line).
    pub scope: FilterScope,
    /// The split names of the `# filter:` line.
    pub scope_names: Vec<String>,
    /// One observation per (question, answer), in file order.
    pub observations: Vec<AnswerObservation>,
    /// `rank-outside-tie` warnings.
    pub warnings: Vec<Diagnostic>,
}

/// One line of a question list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryLine {
    /// The question id (`head12`, `tail7`).
    pub qid: String,
    /// The question, `None` when its entity or relation is in no triple file read (so it is
    /// no test question).
    pub key: Option<QuestionKey>,
    /// The 1-based line.
    pub line: u32,
}

/// Judgments read from an annotation file.
#[derive(Debug, Clone, Default)]
pub struct ReadJudgments {
    /// In file order.
    pub judgments: Vec<Judgment>,
    /// `blank-judgment` warnings (a line without `Y` / `N`, read as `N`).
    pub warnings: Vec<Diagnostic>,
}

/// Reads `head<TAB>relation<TAB>tail` lines (blank lines skipped, `\r\n` accepted).
/// Entities go through `vocabulary`: with a closed entity list an unknown entity is an error.
///
/// ```
/// use kgeval_formats::kgc::read_triples;
/// use kgeval_model::kgc::KgcVocabulary;
///
/// let mut vocabulary = KgcVocabulary::open();
/// let file = read_triples(b"/m/a\t/r\t/m/b\n/m/b\t/r\t/m/c\n", "test.txt", &mut vocabulary)?;
/// assert_eq!(file.triples.len(), 2);
/// assert_eq!(vocabulary.entity_count(), 3);
///
/// let mut closed = KgcVocabulary::with_entities(["/m/a", "/m/b"]);
/// let err = read_triples(b"/m/a\t/r\t/m/x\n", "test.txt", &mut closed).unwrap_err();
/// assert_eq!(err.to_string(), "test.txt:1:9: found entity `/m/x`, expected an entity of the entity list");
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] for a line without exactly three non-empty tab-separated fields,
/// an entity outside a closed entity list, or bytes that are not UTF-8.
pub fn read_triples(input: &[u8], file: &str, vocabulary: &mut KgcVocabulary) -> Result<TripleFile, FormatError> {
    triples::read_triples(input, file, vocabulary)
}

/// Reads an entity list, one entity per line; the line order gives the entities' columns in
/// a score matrix. The vocabulary it returns is closed.
///
/// ```
/// use kgeval_formats::kgc::read_entities;
/// let vocabulary = read_entities(b"/m/a\n/m/b\n", "entities.txt")?;
/// assert_eq!(vocabulary.entities.get("/m/b").map(|id| id.index()), Some(1));
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] for a line with a tab, an entity listed twice, or no entity.
pub fn read_entities(input: &[u8], file: &str) -> Result<KgcVocabulary, FormatError> {
    triples::read_entities(input, file)
}

/// Reads a per-answer rank file (layout in the [module documentation](self)) against the test
/// split: one observation per test triple and side.
///
/// ```
/// use kgeval_formats::kgc::{read_ranks, read_triples};
/// use kgeval_model::kgc::{FilterScope, KgcVocabulary, RankObservation, TestSet};
///
/// let mut vocabulary = KgcVocabulary::open();
/// let test = TestSet::new(read_triples(b"a\tr\tb\n", "test.txt", &mut vocabulary)?);
/// let input = b"# filter: train valid test\nhead\trelation\ttail\tside\trank\na\tr\tb\thead\t2\na\tr\tb\ttail\t1\n";
/// let read = read_ranks(input, "ranks.tsv", &test, &vocabulary)?;
/// assert_eq!(read.scope, FilterScope::Known);
/// assert_eq!(read.observations[0].observed, RankObservation::Rank(2.0));
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] for a missing `# filter:` line or header, a malformed line, an
/// unknown entity, a triple outside the test file, a repeated or missing (triple, side), a rank
/// below 1 or inconsistent counts, a rank or `num_candidates` past the vocabulary's
/// [`candidate_bound`](KgcVocabulary::candidate_bound) (the entity list's count; without an
/// entity list, 2³²).
pub fn read_ranks(
    input: &[u8],
    file: &str,
    test: &TestSet,
    vocabulary: &KgcVocabulary,
) -> Result<ReadRanks, FormatError> {
    ranks::read_ranks(input, file, test, vocabulary)
}

/// Reads a question list `qid<TAB>entity<TAB>relation` (the entity is the tail of a `head*`
/// question and the head of a `tail*` one).
///
/// ```
/// use kgeval_formats::kgc::read_queries;
/// use kgeval_model::kgc::{KgcVocabulary, Side};
/// let mut vocabulary = KgcVocabulary::with_entities(["/m/a"]);
/// vocabulary.relations.intern("/r");
/// let rows = read_queries(b"head0\t/m/a\t/r\n", "queries.txt", &vocabulary)?;
/// assert_eq!(rows[0].key.map(|k| k.side), Some(Side::Head));
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] for a malformed line, a qid not starting with `head` / `tail`, a
/// repeated qid, an entity outside a closed entity list, or an empty file.
pub fn read_queries(input: &[u8], file: &str, vocabulary: &KgcVocabulary) -> Result<Vec<QueryLine>, FormatError> {
    queries::read_queries(input, file, vocabulary)
}

/// Writes the questions as kgc-sparsity's `trec_queries.txt`: `qid<TAB>entity<TAB>relation`,
/// one line each, heads first.
#[must_use]
pub fn write_queries(questions: &QuestionSet, vocabulary: &KgcVocabulary) -> String {
    queries::write_queries(questions, vocabulary)
}

/// Reads judgments `head<TAB>relation<TAB>tail<TAB>{Y,N}`; a missing or empty judgment is `N`
/// with a `blank-judgment` warning.
///
/// ```
/// use kgeval_formats::kgc::read_judgments;
/// use kgeval_model::kgc::KgcVocabulary;
/// let mut vocabulary = KgcVocabulary::open();
/// let read = read_judgments(b"a\tr\tb\tY\na\tr\tc\n", "annotations.txt", &mut vocabulary)?;
/// assert_eq!(read.judgments.iter().map(|j| j.relevant).collect::<Vec<_>>(), [true, false]);
/// assert_eq!(read.warnings[0].code, "blank-judgment");
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] for a malformed line, a judgment other than `Y` / `N`, or an
/// entity outside a closed entity list.
pub fn read_judgments(input: &[u8], file: &str, vocabulary: &mut KgcVocabulary) -> Result<ReadJudgments, FormatError> {
    judgments::read_judgments(input, file, vocabulary)
}

/// Reads pool depths `head<TAB>relation<TAB>tail<TAB>depth` (kgc-sparsity
/// `supplementary/pooling_depth.txt`).
///
/// # Errors
/// [`FormatError::Syntax`] for a malformed line, a depth that is not an integer, or an entity
/// outside a closed entity list.
pub fn read_pool_depths(
    input: &[u8],
    file: &str,
    vocabulary: &mut KgcVocabulary,
) -> Result<Vec<PooledTriple>, FormatError> {
    judgments::read_pool_depths(input, file, vocabulary)
}

/// Reads relation weights `relation<TAB>weight` (`#` lines are comments).
///
/// # Errors
/// [`FormatError::Syntax`] for a malformed line, a weight that is negative or not a number, or
/// a relation listed twice.
pub fn read_relation_weights(
    input: &[u8],
    file: &str,
    vocabulary: &mut KgcVocabulary,
) -> Result<Vec<(TermId, f64)>, FormatError> {
    judgments::read_relation_weights(input, file, vocabulary)
}

/// [`read_triples`] on a file (gzip accepted).
///
/// # Errors
/// As [`Input::open`] and [`read_triples`].
pub fn read_triples_file(path: &Path, vocabulary: &mut KgcVocabulary) -> Result<TripleFile, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_triples(bytes, file, vocabulary)
}

/// [`read_entities`] on a file (gzip accepted).
///
/// # Errors
/// As [`Input::open`] and [`read_entities`].
pub fn read_entities_file(path: &Path) -> Result<KgcVocabulary, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_entities(bytes, file)
}

/// [`read_ranks`] on a file (gzip accepted).
///
/// # Errors
/// As [`Input::open`] and [`read_ranks`].
pub fn read_ranks_file(path: &Path, test: &TestSet, vocabulary: &KgcVocabulary) -> Result<ReadRanks, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_ranks(bytes, file, test, vocabulary)
}

/// [`read_queries`] on a file (gzip accepted).
///
/// # Errors
/// As [`Input::open`] and [`read_queries`].
pub fn read_queries_file(path: &Path, vocabulary: &KgcVocabulary) -> Result<Vec<QueryLine>, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_queries(bytes, file, vocabulary)
}

/// [`read_judgments`] on a file (gzip accepted).
///
/// # Errors
/// As [`Input::open`] and [`read_judgments`].
pub fn read_judgments_file(path: &Path, vocabulary: &mut KgcVocabulary) -> Result<ReadJudgments, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_judgments(bytes, file, vocabulary)
}

/// [`read_pool_depths`] on a file (gzip accepted).
///
/// # Errors
/// As [`Input::open`] and [`read_pool_depths`].
pub fn read_pool_depths_file(path: &Path, vocabulary: &mut KgcVocabulary) -> Result<Vec<PooledTriple>, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_pool_depths(bytes, file, vocabulary)
}

/// [`read_relation_weights`] on a file (gzip accepted).
///
/// # Errors
/// As [`Input::open`] and [`read_relation_weights`].
pub fn read_relation_weights_file(
    path: &Path,
    vocabulary: &mut KgcVocabulary,
) -> Result<Vec<(TermId, f64)>, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_relation_weights(bytes, file, vocabulary)
}
