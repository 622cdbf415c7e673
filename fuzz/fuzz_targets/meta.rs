//! Meta-evaluation readers: long CSV, wide CSV, trec_eval -q, p-value matrix, subsets,
//! per-item JSON, and format detection. The first byte picks the reader.
#![no_main]

use kgeval_formats::meta::detect::detect;
use kgeval_formats::meta::long_csv::read_long_csv;
use kgeval_formats::meta::pvalues::read_pvalue_matrix;
use kgeval_formats::meta::subsets::read_subsets;
use kgeval_formats::meta::trec_eval_q::read_trec_eval_q;
use kgeval_formats::meta::wide_csv::read_wide_csv;
use kgeval_formats::per_item::read_per_item;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let _ = detect(input);
    let _ = match selector % 6 {
        0 => read_long_csv(input, "fuzz").map(drop),
        1 => read_wide_csv(input, "fuzz").map(drop),
        2 => read_trec_eval_q(input, "fuzz", "sys").map(drop),
        3 => read_pvalue_matrix(input, "fuzz").map(drop),
        4 => read_subsets(input, "fuzz").map(drop),
        _ => read_per_item(input, "fuzz").map(drop),
    };
});
