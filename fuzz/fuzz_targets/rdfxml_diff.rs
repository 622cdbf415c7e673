//! Differential RDF/XML: the fast path, the exact path, and the parallel stretch splitter with
//! 1 and 2 stretches (cut from 0 bytes, so every input is split) must give the same cells, or
//! all fail. The first byte sets the options (repair, EDOAL skipping, MELT relations).
#![no_main]

use kgeval_formats::align::{read_rdfxml_cut, ReadAlignment, ReadOptions};
use kgeval_model::Interner;
use libfuzzer_sys::fuzz_target;

/// The cells with their IRIs resolved, or `None` for an error.
fn cells(
    input: &[u8],
    options: &ReadOptions,
    parallel_from: usize,
    stretches: usize,
    fast: bool,
) -> Option<Vec<String>> {
    let mut interner = Interner::new();
    let read: ReadAlignment =
        read_rdfxml_cut(input, "fuzz", options, &mut interner, parallel_from, stretches, fast).ok()?;
    let cells = read.alignment.cells();
    Some(
        cells
            .iter()
            .map(|c| {
                format!(
                    "{} {} {:?} {:?}",
                    interner.resolve(c.entity1),
                    interner.resolve(c.entity2),
                    c.relation,
                    c.confidence.to_bits()
                )
            })
            .collect(),
    )
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let options = ReadOptions {
        repair_xml: selector & 1 != 0,
        skip_edoal: selector & 2 != 0,
        melt_relations: selector & 4 != 0,
        ..ReadOptions::default()
    };
    let exact = cells(input, &options, usize::MAX, 1, false);
    let fast = cells(input, &options, usize::MAX, 1, true);
    assert_eq!(exact, fast, "fast and exact RDF/XML paths disagree");
    let one = cells(input, &options, 0, 1, true);
    let two = cells(input, &options, 0, 2, true);
    assert_eq!(one, two, "1 and 2 parallel stretches disagree");
    assert_eq!(fast, two, "whole and split RDF/XML reads disagree");
});
