//! `rank_row` on one FB15k-237-wide score row (14,541 entities): one or ten targets, exact or
//! tolerant ties, float32, float16 or float64. Run with `cargo bench -p kgeval-metrics --bench rank_row`.

use std::borrow::Cow;

use divan::{black_box, Bencher};
use half::f16;
use kgeval_metrics::ranking::{rank_row, RowOptions};
use kgeval_model::ranking::{NanPolicy, ScoreRow, Tolerance};

const ENTITIES: usize = 14_541;

fn main() {
    divan::main();
}

/// Deterministic scores in [-8, 8) with a coarse grid (some ties).
fn scores() -> Vec<f32> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..ENTITIES)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) % 4096) as f32 / 256.0 - 8.0
        })
        .collect()
}

fn inputs(targets: usize) -> (Vec<u32>, Vec<u32>) {
    let targets: Vec<u32> = (0..targets as u32).map(|i| i * 1237 % ENTITIES as u32).collect();
    let excluded: Vec<u32> = (0..20).map(|i| 13 + i * 701).collect();
    (targets, excluded)
}

#[divan::bench(args = [1, 10])]
fn float32_exact(bencher: Bencher<'_, '_>, targets: usize) {
    let values = scores();
    let (targets, excluded) = inputs(targets);
    let row = ScoreRow::F32(Cow::Borrowed(&values));
    let options = RowOptions { tolerance: None, nan: NanPolicy::Error };
    bencher
        .counter(divan::counter::BytesCount::new(ENTITIES * 4))
        .bench(|| rank_row(black_box(&row), black_box(&targets), black_box(&excluded), options).map(|r| r.candidates));
}

#[divan::bench(args = [1, 10])]
fn float32_tolerant(bencher: Bencher<'_, '_>, targets: usize) {
    let values = scores();
    let (targets, excluded) = inputs(targets);
    let row = ScoreRow::F32(Cow::Borrowed(&values));
    let options = RowOptions { tolerance: Some(Tolerance::LIBKGE), nan: NanPolicy::Worst };
    bencher
        .counter(divan::counter::BytesCount::new(ENTITIES * 4))
        .bench(|| rank_row(black_box(&row), black_box(&targets), black_box(&excluded), options).map(|r| r.candidates));
}

#[divan::bench]
fn float16_exact(bencher: Bencher<'_, '_>) {
    let values: Vec<f16> = scores().into_iter().map(f16::from_f32).collect();
    let (targets, excluded) = inputs(1);
    let row = ScoreRow::F16(Cow::Borrowed(&values));
    let options = RowOptions::default();
    bencher
        .counter(divan::counter::BytesCount::new(ENTITIES * 2))
        .bench(|| rank_row(black_box(&row), black_box(&targets), black_box(&excluded), options).map(|r| r.candidates));
}

#[divan::bench(args = [1, 10])]
fn float64_exact(bencher: Bencher<'_, '_>, targets: usize) {
    let values: Vec<f64> = scores().into_iter().map(f64::from).collect();
    let (targets, excluded) = inputs(targets);
    let row = ScoreRow::F64(Cow::Borrowed(&values));
    let options = RowOptions::default();
    bencher
        .counter(divan::counter::BytesCount::new(ENTITIES * 8))
        .bench(|| rank_row(black_box(&row), black_box(&targets), black_box(&excluded), options).map(|r| r.candidates));
}
