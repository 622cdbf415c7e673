//! KGC readers: triples, entity lists, ranks (against a fixed test file), queries, judgments,
//! pool depths, relation weights. The first byte picks the reader.
#![no_main]

use kgeval_formats::kgc;
use kgeval_model::kgc::{KgcVocabulary, TestSet};
use libfuzzer_sys::fuzz_target;

const TEST: &[u8] = b"a\tr\tb\nb\tr\tc\na\ts\tc\n";

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let mut open = KgcVocabulary::open();
    let mut closed = KgcVocabulary::with_entities(["a", "b", "c"]);
    let _ = match selector % 8 {
        0 => kgc::read_triples(input, "fuzz", &mut open).map(drop),
        1 => kgc::read_triples(input, "fuzz", &mut closed).map(drop),
        2 => kgc::read_entities(input, "fuzz").map(drop),
        3 => {
            let Ok(file) = kgc::read_triples(TEST, "test.txt", &mut closed) else { return };
            let test = TestSet::new(file);
            kgc::read_ranks(input, "fuzz", &test, &closed).map(drop)
        }
        4 => {
            let _ = kgc::read_triples(TEST, "test.txt", &mut closed);
            kgc::read_queries(input, "fuzz", &closed).map(drop)
        }
        5 => kgc::read_judgments(input, "fuzz", &mut open).map(drop),
        6 => kgc::read_pool_depths(input, "fuzz", &mut closed).map(drop),
        _ => kgc::read_relation_weights(input, "fuzz", &mut open).map(drop),
    };
});
