//! Ranking readers: submissions (JSONL / TSV / Python literals / Bio-ML), pools, gold, scored
//! pairs. The first byte picks the reader.
#![no_main]

use kgeval_formats::rank::{read_gold, read_pools, read_scored_pairs, read_submission, SubmissionReadOptions};
use kgeval_model::Interner;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let mut interner = Interner::new();
    let _ = match selector % 5 {
        0 => read_submission(input, "fuzz", &mut interner, &SubmissionReadOptions::default()).map(drop),
        1 => {
            let options =
                SubmissionReadOptions { block_size: Some(1 + usize::from(selector >> 4)), ..Default::default() };
            read_submission(input, "fuzz", &mut interner, &options).map(drop)
        }
        2 => read_pools(input, "fuzz", &mut interner).map(drop),
        3 => read_gold(input, "fuzz", &mut interner, "http://nil").map(drop),
        _ => read_scored_pairs(input, "fuzz", &mut interner).map(drop),
    };
});
