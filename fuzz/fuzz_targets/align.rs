//! Alignment readers and ontology typing. The first byte picks the reader; the rest is the input.
#![no_main]

use kgeval_formats::align::{read_alignment, read_alignment_via_triples, AlignmentFormat, ReadOptions};
use kgeval_model::Interner;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let mut interner = Interner::new();
    let lenient = ReadOptions { repair_xml: true, skip_edoal: true, melt_relations: true, ..ReadOptions::default() };
    let forced = |format| ReadOptions { format: Some(format), ..ReadOptions::default() };
    let _ = match selector % 10 {
        // Detection, then whatever it picked.
        0 => read_alignment(input, "fuzz", &ReadOptions::default(), &mut interner).map(drop),
        1 => read_alignment(input, "fuzz", &forced(AlignmentFormat::RdfXml), &mut interner).map(drop),
        2 => read_alignment(
            input,
            "fuzz",
            &ReadOptions { format: Some(AlignmentFormat::RdfXml), ..lenient },
            &mut interner,
        )
        .map(drop),
        3 => read_alignment_via_triples(input, "fuzz", AlignmentFormat::RdfXml, &ReadOptions::default(), &mut interner)
            .map(drop),
        4 => read_alignment(input, "fuzz", &forced(AlignmentFormat::Turtle), &mut interner).map(drop),
        5 => read_alignment(input, "fuzz", &forced(AlignmentFormat::NTriples), &mut interner).map(drop),
        6 => read_alignment(input, "fuzz", &forced(AlignmentFormat::Tsv), &mut interner).map(drop),
        7 => read_alignment(input, "fuzz", &forced(AlignmentFormat::Csv), &mut interner).map(drop),
        8 => read_alignment(input, "fuzz", &forced(AlignmentFormat::Sssom), &mut interner).map(drop),
        _ => kgeval_formats::ontology::read_entity_types(input, "fuzz", &mut interner).map(drop),
    };
});
