//! The dense-score path of `kgeval kgc` without its text inputs, for `cargo xtask bench kgc`:
//! memory-maps a `.npy` score matrix, ranks every row in parallel with the ranking core
//! (`rank_row`, filtered), and prints MR / MRR / Hits@{1,3,10} under each count tie policy.
//!
//! ```text
//! cargo run --release -p kgeval-cli --example rank_dense -- SCORES.npy ROWS.tsv [--tolerance] [--nan-worst] [--block-kib N]
//! ```
//!
//! `ROWS.tsv` has one line per matrix row: the target columns, a tab, the excluded columns
//! (both comma-separated, either may be empty). The xtask writes it next to the matrix.

use std::path::Path;

use anyhow::{bail, Context as _};
use kgeval_formats::kgc::npy::{ScoreMatrix, DEFAULT_BLOCK_BYTES};
use kgeval_metrics::ranking::{rank_row, summarize, RankRecord, RowOptions, RowPositions};
use kgeval_model::ranking::{NanPolicy, TiePolicy, Tolerance};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [scores, rows_file, ..] = &args[..] else {
        bail!("usage: rank_dense SCORES.npy ROWS.tsv [--tolerance] [--nan-worst] [--block-kib N]");
    };
    let block_bytes = match args.iter().position(|a| a == "--block-kib") {
        Some(i) => args.get(i + 1).and_then(|v| v.parse::<usize>().ok()).context("--block-kib takes a number")? << 10,
        None => DEFAULT_BLOCK_BYTES,
    };
    let options = RowOptions {
        tolerance: args.iter().any(|a| a == "--tolerance").then_some(Tolerance::LIBKGE),
        nan: if args.iter().any(|a| a == "--nan-worst") { NanPolicy::Worst } else { NanPolicy::Error },
    };
    let text = std::fs::read_to_string(rows_file).with_context(|| format!("cannot read {rows_file}"))?;
    let rows = text.lines().map(parse_row).collect::<anyhow::Result<Vec<_>>>()?;
    let matrix = ScoreMatrix::open(Path::new(scores))?;
    if matrix.rows() != rows.len() {
        bail!("{scores} has {} rows, {rows_file} describes {}", matrix.rows(), rows.len());
    }
    let ranked: Vec<RowPositions> = matrix.try_map_rows(block_bytes, |index, row| {
        let (targets, excluded) = &rows[index];
        rank_row(&row, targets, excluded, options).map_err(|e| anyhow::anyhow!("{scores}: row {}, {e}", index + 1))
    })?;
    let ks = [1, 3, 10];
    for policy in [TiePolicy::Optimistic, TiePolicy::Realistic, TiePolicy::Pessimistic, TiePolicy::RoundedMean] {
        let records: Vec<RankRecord> = ranked
            .iter()
            .flat_map(|r| &r.positions)
            .map(|p| RankRecord { rank: p.rank(policy), tied: p.is_tied(), places: 1 })
            .collect();
        let summary = summarize(&records, &ks);
        println!(
            "{policy:<13} answers {} MR {:.3} MRR {:.6} H@1 {:.6} H@3 {:.6} H@10 {:.6}",
            records.len(),
            summary.mean_rank.unwrap_or(f64::NAN),
            summary.mrr,
            summary.hits_at(1).unwrap_or_default(),
            summary.hits_at(3).unwrap_or_default(),
            summary.hits_at(10).unwrap_or_default(),
        );
    }
    Ok(())
}

/// `targets<TAB>excluded`, comma-separated column lists.
fn parse_row(line: &str) -> anyhow::Result<(Vec<u32>, Vec<u32>)> {
    let (targets, excluded) = line.split_once('\t').unwrap_or((line, ""));
    let columns = |list: &str| -> anyhow::Result<Vec<u32>> {
        list.split(',')
            .filter(|c| !c.is_empty())
            .map(|c| c.parse().with_context(|| format!("bad column {c:?}")))
            .collect()
    };
    Ok((columns(targets)?, columns(excluded)?))
}
