//! The facade's TOML manifests (`kgeval::Task::from_toml`), every family.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = kgeval::Task::from_toml(text, "fuzz.toml");
});
