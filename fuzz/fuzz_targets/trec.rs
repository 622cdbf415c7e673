//! TREC qrels and runs. The first byte picks the reader.
#![no_main]

use kgeval_formats::trec::{read_qrels_bytes, read_run_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let _ = if selector % 2 == 0 {
        read_qrels_bytes(input, "fuzz").map(drop)
    } else {
        read_run_bytes(input.to_vec(), "fuzz").map(drop)
    };
});
