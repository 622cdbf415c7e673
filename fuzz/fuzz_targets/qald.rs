//! QALD XML / JSON datasets and label maps. The first byte picks the reader.
#![no_main]

use kgeval_formats::qald::{read_label_map, read_qald};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let _ =
        if selector % 2 == 0 { read_qald(input, "fuzz").map(drop) } else { read_label_map(input, "fuzz").map(drop) };
});
