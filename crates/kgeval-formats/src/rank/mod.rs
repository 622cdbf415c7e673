//! Readers of the local-ranking family: DISO candidate pools, gold keys, submissions in every
//! published form (DISO JSONL rankings or scores, `qid IRI score` TSV, Bio-ML / DeepOnto TSV
//! with Python-literal candidate lists, the Bio-ML 2022 `RankedTgtCandidates` form and the
//! 2026 BLOCK form) and OntoAligner scored pairs.
//!
//! Every reader takes the bytes of one file and its display name, interns IRIs into the
//! evaluation's [`Interner`], and fails with one `FILE:LINE:COL: found …, expected …` error on
//! malformed input. Readers check syntax and shape only (keys, types, cell counts, literals,
//! duplicate pool qids, repeated candidates inside one pool or one `scores` object); whether a
//! submission fits the pools and the gold key (unknown, missing or duplicate qids, rankings
//! that are not permutations) is validated by the metrics, which name every offending line.

mod bioml;
mod gold;
mod json;
mod pairs;
mod pools;
mod pylit;
mod submission;
mod text;

use std::path::Path;

use kgeval_model::rank::{GoldKey, PoolSet, ScoredPair, Submission, DISO_NIL_IRI};
use kgeval_model::{Diagnostic, Interner};

use crate::input::Input;
use crate::FormatError;

/// The gold value of Bio-ML / DeepOnto files for a source without a match; read as the NIL IRI.
pub const BIOML_UNMATCHED: &str = kgeval_model::rank::BIOML_UNMATCHED;

/// Pools read from a DISO `pools.jsonl`.
#[derive(Debug, Clone, Default)]
pub struct ReadPools {
    /// The pools by qid, in file order.
    pub pools: PoolSet,
    /// Accepted oddities (a pool without `type`), with locations.
    pub warnings: Vec<Diagnostic>,
}

/// A gold key read from TSV or JSONL.
#[derive(Debug, Clone, Default)]
pub struct ReadGold {
    /// The entries in file order (duplicates kept).
    pub gold: GoldKey,
    /// Notes (a Bio-ML source repeated on a later row), with locations.
    pub warnings: Vec<Diagnostic>,
}

/// The submission layouts [`read_submission`] recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubmissionFormat {
    /// DISO JSONL `{"qid", "ranking": [IRIs best first]}`.
    JsonlRanking,
    /// DISO JSONL `{"qid", "scores": {IRI: number}}` (key order = submission order).
    JsonlScores,
    /// TSV `qid<TAB>IRI<TAB>score`, optionally under a header whose first cell is `qid`.
    QidIriScoreTsv,
    /// Bio-ML / DeepOnto TSV `SrcEntity, TgtEntity, TgtCandidates` (the gold in `TgtEntity`).
    BioMlCandidates,
    /// OAEI-Bio-ML-eval TSV `SrcEntity, TgtCandidates` (no gold).
    BioMlContract,
    /// Bio-ML 2022 TSV `SrcEntity, RankedTgtCandidates` (a tuple of IRIs or `"iri score"`).
    BioMl2022,
    /// Bio-ML 2026 BLOCK TSV `SrcEntity, TgtEntity, Score`: consecutive rows form one query.
    BioMlBlock,
}

impl SubmissionFormat {
    /// A short name for messages and JSON metadata.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            SubmissionFormat::JsonlRanking => "jsonl-ranking",
            SubmissionFormat::JsonlScores => "jsonl-scores",
            SubmissionFormat::QidIriScoreTsv => "tsv-qid-iri-score",
            SubmissionFormat::BioMlCandidates => "bioml-candidates",
            SubmissionFormat::BioMlContract => "bioml-contract",
            SubmissionFormat::BioMl2022 => "bioml-2022",
            SubmissionFormat::BioMlBlock => "bioml-block",
        }
    }
}

/// How [`read_submission`] reads what the file leaves open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmissionReadOptions {
    /// The IRI a Bio-ML `UnMatched` gold becomes (default [`DISO_NIL_IRI`]).
    pub nil_iri: String,
    /// BLOCK form: the number of rows per query. `None` groups each run of rows with the same
    /// `SrcEntity` into one query.
    pub block_size: Option<usize>,
}

impl Default for SubmissionReadOptions {
    fn default() -> Self {
        Self { nil_iri: DISO_NIL_IRI.to_owned(), block_size: None }
    }
}

/// A submission read from a file.
#[derive(Debug, Clone)]
pub struct ReadSubmission {
    /// The queries in file order (duplicate qids kept for validation).
    pub submission: Submission,
    /// The layout that was detected.
    pub format: SubmissionFormat,
    /// The gold key carried by the file (`TgtEntity` of the Bio-ML candidates form), if any.
    pub gold: Option<GoldKey>,
    /// Notes (a Bio-ML source repeated on a later row), with locations.
    pub warnings: Vec<Diagnostic>,
}

/// Reads a DISO `pools.jsonl`: one JSON object per line,
/// `{"qid": int|string, "source": IRI, "type": "CLS"|"OPROP"|"DPROP", "candidates": [IRIs]}`.
///
/// Integer qids are kept as their decimal text; blank lines are skipped; other keys are
/// ignored; `type` may be absent (a `pool-without-type` warning) or null.
///
/// ```
/// use kgeval_formats::rank::read_pools;
/// use kgeval_model::Interner;
///
/// let input = br#"{"qid": 0, "source": "http://a/x", "type": "CLS", "candidates": ["http://b/y", "http://b/NIL"]}"#;
/// let mut interner = Interner::new();
/// let read = read_pools(input, "pools.jsonl", &mut interner)?;
/// let pool = read.pools.get("0").unwrap();
/// assert_eq!(pool.candidates.len(), 2);
/// assert_eq!(pool.entity_type.as_deref(), Some("CLS"));
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] for invalid JSON, a missing or ill-typed key, a qid given twice
/// (naming both lines), a candidate repeated inside one pool, or a file without any pool.
pub fn read_pools(input: &[u8], file: &str, interner: &mut Interner) -> Result<ReadPools, FormatError> {
    pools::read(input, file, interner)
}

/// Reads a gold key: TSV `qid<TAB>gold` (an optional header whose first cell is `qid` or
/// `SrcEntity`; the Bio-ML `SrcEntity, TgtEntity[, …]` layout reads `SrcEntity` as the qid) or
/// JSONL `{"qid", "gold"}` (recognised by a first non-blank character `{`).
///
/// A gold `UnMatched` (Bio-ML) becomes `nil_iri`. Duplicate qids are kept (the metrics name
/// them), except under a `SrcEntity` header, where the k-th row of a repeated source gets the
/// qid `SOURCE#k` (k ≥ 2) with a `repeated-source` note, as [`read_submission`] does.
///
/// ```
/// use kgeval_formats::rank::read_gold;
/// use kgeval_model::{rank::DISO_NIL_IRI, Interner};
///
/// let mut interner = Interner::new();
/// let read = read_gold(b"0\thttp://b/y\n1\tUnMatched\n", "gold.tsv", &mut interner, DISO_NIL_IRI)?;
/// assert_eq!(read.gold.entries.len(), 2);
/// assert_eq!(interner.resolve(read.gold.entries[1].gold), DISO_NIL_IRI);
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] for a row with the wrong number of cells, an empty cell, invalid
/// JSON or a missing key, or a file without any entry.
pub fn read_gold(input: &[u8], file: &str, interner: &mut Interner, nil_iri: &str) -> Result<ReadGold, FormatError> {
    gold::read(input, file, interner, nil_iri)
}

/// Reads a submission in any layout of [`SubmissionFormat`], detected from the content: a
/// first non-blank character `{` means JSONL (rankings or scores, one form per file); a first
/// row starting with `SrcEntity` names a Bio-ML layout by its columns; anything else is
/// `qid<TAB>IRI<TAB>score`.
///
/// Bio-ML layouts use `SrcEntity` as the qid; the k-th row of a repeated source gets
/// `SOURCE#k` (k ≥ 2) with a `repeated-source` note. `TgtCandidates` is a Python literal list
/// of IRIs (a ranking), of `(iri, score)` pairs (scores) or of `(iri, score, answer)` triples
/// (scores and Bio-LLM answers).
///
/// ```
/// use kgeval_formats::rank::{read_submission, SubmissionFormat, SubmissionReadOptions};
/// use kgeval_model::{rank::Submitted, Interner};
///
/// let input = b"SrcEntity\tTgtEntity\tTgtCandidates\n\
///     http://a/x\thttp://b/y\t[('http://b/z', 0.9), ('http://b/y', 0.4)]\n";
/// let mut interner = Interner::new();
/// let read = read_submission(input, "run.tsv", &mut interner, &SubmissionReadOptions::default())?;
/// assert_eq!(read.format, SubmissionFormat::BioMlCandidates);
/// let entry = &read.submission.entries[0];
/// assert_eq!(&*entry.qid, "http://a/x");
/// assert!(matches!(&entry.submitted, Submitted::Scores(s) if s.len() == 2 && s[0].1 == 0.9));
/// assert_eq!(read.gold.unwrap().entries.len(), 1);
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] with the line and column of the first problem: invalid JSON or
/// Python literal, a missing or ill-typed key, JSONL lines mixing `ranking` and `scores`, a
/// row with the wrong number of cells, an unparsable or non-finite score, a candidate given
/// twice for one query in a JSON `scores` object, the `qid IRI score` TSV or a BLOCK (Bio-ML
/// candidate lists keep repeats, like rankings, for validation to name), a BLOCK row count
/// that is not a multiple of `options.block_size`, or a file without any query.
pub fn read_submission(
    input: &[u8],
    file: &str,
    interner: &mut Interner,
    options: &SubmissionReadOptions,
) -> Result<ReadSubmission, FormatError> {
    submission::read(input, file, interner, options)
}

/// Reads OntoAligner-style scored pairs (predictions or references): TSV with a header
/// `source<TAB>target[<TAB>score]` (also `SrcEntity`, `TgtEntity`, `Score`), or a JSON array
/// of `{"source", "target", "score"?}` objects. A missing score is 0.0, as in OntoAligner.
///
/// ```
/// use kgeval_formats::rank::read_scored_pairs;
/// use kgeval_model::Interner;
///
/// let mut interner = Interner::new();
/// let pairs = read_scored_pairs(br#"[{"source": "http://a/x", "target": "http://b/y"}]"#, "p.json", &mut interner)?;
/// assert_eq!(pairs[0].score, 0.0);
/// # Ok::<(), kgeval_formats::FormatError>(())
/// ```
///
/// # Errors
/// [`FormatError::Syntax`] for a missing header, a row with the wrong number of cells, an
/// empty IRI, an unparsable or non-finite score, or invalid JSON.
pub fn read_scored_pairs(input: &[u8], file: &str, interner: &mut Interner) -> Result<Vec<ScoredPair>, FormatError> {
    pairs::read(input, file, interner)
}

/// [`read_pools`] on a file (errors name it as `path.display()` shows it).
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, else as [`read_pools`].
pub fn read_pools_file(path: &Path, interner: &mut Interner) -> Result<ReadPools, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_pools(bytes, file, interner)
}

/// [`read_gold`] on a file.
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, else as [`read_gold`].
pub fn read_gold_file(path: &Path, interner: &mut Interner, nil_iri: &str) -> Result<ReadGold, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_gold(bytes, file, interner, nil_iri)
}

/// [`read_submission`] on a file.
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, else as [`read_submission`].
pub fn read_submission_file(
    path: &Path,
    interner: &mut Interner,
    options: &SubmissionReadOptions,
) -> Result<ReadSubmission, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_submission(bytes, file, interner, options)
}

/// [`read_scored_pairs`] on a file.
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, else as [`read_scored_pairs`].
pub fn read_scored_pairs_file(path: &Path, interner: &mut Interner) -> Result<Vec<ScoredPair>, FormatError> {
    let opened = Input::path(path).open()?;
    let (file, bytes) = (opened.name(), opened.bytes());
    read_scored_pairs(bytes, file, interner)
}
