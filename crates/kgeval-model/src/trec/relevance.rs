//! The range of a relevance label, checked once by every reader (text qrels, Arrow and
//! Parquet tables, Python dicts) so the measures can count in it exactly.
//!
//! trec_eval reads a label with `atol` into a C `long` and sizes an array by the largest one
//! (`form_res_rels.c`); kgeval counts labels sparsely and bounds their magnitude by 2^53, the
//! largest range in which every integer is an exact `f64`: a label is its own gain in the
//! ndcg family, so every gain is exact.

use std::fmt;

/// The largest magnitude of a relevance label: 2^53 (9,007,199,254,740,992). Labels from
/// −2^53 to 2^53 are read; a negative label means "pooled, not judged", as in trec_eval.
pub const MAX_RELEVANCE: i64 = 1 << 53;

/// A relevance label outside −[`MAX_RELEVANCE`] … [`MAX_RELEVANCE`]; its message is what the
/// readers print after the label's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelevanceOutOfRange {
    /// The label as it was written (it may not fit an `i64`).
    pub found: String,
}

impl fmt::Display for RelevanceOutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "found `{}` as the relevance, expected an integer from -2^53 to 2^53 (at most {MAX_RELEVANCE} in magnitude)",
            self.found
        )
    }
}

impl std::error::Error for RelevanceOutOfRange {}

/// `value` when it is a relevance label kgeval reads (|value| ≤ 2^53).
///
/// ```
/// use kgeval_model::trec::{check_relevance, MAX_RELEVANCE};
/// assert_eq!(check_relevance(1 << 40), Ok(1 << 40));
/// assert_eq!(check_relevance(-MAX_RELEVANCE), Ok(-MAX_RELEVANCE));
/// let error = check_relevance(MAX_RELEVANCE + 1).unwrap_err();
/// assert!(error.to_string().starts_with("found `9007199254740993` as the relevance"));
/// ```
///
/// # Errors
/// [`RelevanceOutOfRange`] naming the value beyond the bound.
pub fn check_relevance(value: i64) -> Result<i64, RelevanceOutOfRange> {
    if (-MAX_RELEVANCE..=MAX_RELEVANCE).contains(&value) {
        Ok(value)
    } else {
        Err(RelevanceOutOfRange { found: value.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_and_one_past_it_on_both_sides() {
        for value in [0, 1, -1, -2, 1 << 40, 1_000_000_000, MAX_RELEVANCE, -MAX_RELEVANCE] {
            assert_eq!(check_relevance(value), Ok(value));
        }
        for value in [MAX_RELEVANCE + 1, -MAX_RELEVANCE - 1, i64::MAX, i64::MIN] {
            assert_eq!(check_relevance(value), Err(RelevanceOutOfRange { found: value.to_string() }));
        }
        // Every label in range is an exact f64.
        assert_eq!(MAX_RELEVANCE as f64 as i64, MAX_RELEVANCE);
    }
}
