//! lemon / OntoLex Turtle lexicons and URI lists. The first byte picks the reader.
#![no_main]

use kgeval_formats::lexicon::{read_lexicon, read_uri_list, LexiconReadOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let _ = if selector % 4 == 0 {
        read_uri_list(input, "fuzz").map(drop)
    } else {
        read_lexicon(input, "fuzz", &LexiconReadOptions::default()).map(drop)
    };
});
