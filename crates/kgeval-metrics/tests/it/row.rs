//! `rank_row` (one dense score row, several targets, a filter) against its definition written
//! out naively: for each target, the candidates are the columns that are neither excluded nor
//! another target, plus the target; NaN candidates are dropped (`--nan worst`).

use std::borrow::Cow;

use half::f16;
use kgeval_metrics::ranking::{rank_row, NanScore, RowOptions, ScorePosition};
use kgeval_model::ranking::{NanPolicy, ScoreRow, TiePolicy, Tolerance};
use proptest::prelude::*;

/// torch's `isclose` in `f32`, written independently of the library.
fn close(score: f32, target: f32, tolerance: Tolerance) -> bool {
    let allowed = tolerance.atol as f32 + (tolerance.rtol as f32 * target).abs();
    score == target || ((score - target).abs() <= allowed && (score - target).abs().is_finite())
}

/// The definition: one scan per target over the surviving candidates.
fn naive(
    scores: &[f32],
    targets: &[u32],
    excluded: &[u32],
    tolerance: Option<Tolerance>,
) -> (Vec<ScorePosition>, usize) {
    let survives = |c: u32, t: u32| c == t || !(excluded.contains(&c) || targets.contains(&c));
    let mut candidates = 0;
    let positions = targets
        .iter()
        .map(|&t| {
            let target = scores[t as usize];
            let others: Vec<f32> = (0..scores.len() as u32)
                .filter(|&c| c != t && survives(c, t) && !scores[c as usize].is_nan())
                .map(|c| scores[c as usize])
                .collect();
            candidates = others.len() + 1;
            if target.is_nan() {
                return ScorePosition { greater: others.len(), equal: 1 };
            }
            let mut position = ScorePosition { greater: 0, equal: 1 };
            for &s in &others {
                let tie = tolerance.map_or(s == target, |tol| close(s, target, tol));
                position.equal += usize::from(tie);
                position.greater += usize::from(s > target && !tie);
            }
            position
        })
        .collect();
    (positions, candidates)
}

/// Scores on a coarse grid (many exact ties), nudged by less than the default tolerance for
/// some, with NaN now and then.
fn score() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => (0_u8..6).prop_map(f32::from),
        3 => (0_u8..6, -2_i8..=2).prop_map(|(v, nudge)| f32::from(v) + f32::from(nudge) * 4e-6),
        1 => Just(f32::NAN),
        1 => Just(f32::NEG_INFINITY),
    ]
}

fn case() -> impl Strategy<Value = (Vec<f32>, Vec<u32>, Vec<u32>)> {
    prop::collection::vec(score(), 1..3000).prop_flat_map(|scores| {
        let n = scores.len() as u32;
        let targets = prop::collection::vec(0..n, 1..6);
        let excluded = prop::collection::vec(0..n, 0..40);
        (Just(scores), targets, excluded)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn row_positions_match_the_definition((scores, targets, excluded) in case()) {
        for tolerance in [None, Some(Tolerance::LIBKGE)] {
            let options = RowOptions { tolerance, nan: NanPolicy::Worst };
            let ranked = rank_row(&ScoreRow::F32(Cow::Borrowed(&scores)), &targets, &excluded, options).unwrap();
            let (positions, candidates) = naive(&scores, &targets, &excluded, tolerance);
            prop_assert_eq!(&ranked.positions, &positions);
            prop_assert_eq!(ranked.candidates, candidates);
            for p in &ranked.positions {
                // Every count policy lies between the optimistic and the pessimistic rank.
                for policy in [TiePolicy::Realistic, TiePolicy::RoundedMean] {
                    let rank = p.rank(policy).unwrap();
                    prop_assert!(p.optimistic() <= rank && rank <= p.pessimistic());
                }
                prop_assert!(p.pessimistic() <= candidates as f64);
            }
        }
    }

    #[test]
    fn nan_errors_name_the_first_ranked_nan((scores, targets, excluded) in case()) {
        let result = rank_row(&ScoreRow::F32(Cow::Borrowed(&scores)), &targets, &excluded, RowOptions::default());
        let first = (0..scores.len() as u32).find(|c| {
            scores[*c as usize].is_nan() && (targets.contains(c) || !excluded.contains(c))
        });
        match first {
            Some(column) => prop_assert_eq!(result.unwrap_err(), NanScore { column: column as usize }),
            None => prop_assert!(result.is_ok()),
        }
    }

    #[test]
    fn float16_matches_float32((scores, targets, excluded) in case()) {
        let halves: Vec<f16> = scores.iter().map(|&s| f16::from_f32(s)).collect();
        let widened: Vec<f32> = halves.iter().map(|h| h.to_f32()).collect();
        let options = RowOptions { tolerance: None, nan: NanPolicy::Worst };
        let half = rank_row(&ScoreRow::F16(Cow::Borrowed(&halves)), &targets, &excluded, options).unwrap();
        let full = rank_row(&ScoreRow::F32(Cow::Borrowed(&widened)), &targets, &excluded, options).unwrap();
        prop_assert_eq!(half, full);
    }

    /// Exact ties on float32 scores widened to float64: the same counts (widening is exact and
    /// keeps the order), NaN included.
    #[test]
    fn float64_matches_float32_on_the_same_values((scores, targets, excluded) in case()) {
        let wide: Vec<f64> = scores.iter().map(|&s| f64::from(s)).collect();
        for nan in [NanPolicy::Worst, NanPolicy::Error] {
            let options = RowOptions { tolerance: None, nan };
            let wide = rank_row(&ScoreRow::F64(Cow::Borrowed(&wide)), &targets, &excluded, options);
            let narrow = rank_row(&ScoreRow::F32(Cow::Borrowed(&scores)), &targets, &excluded, options);
            prop_assert_eq!(wide, narrow);
        }
    }
}
