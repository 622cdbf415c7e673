//! The TOML manifests, each read from the same bytes (the first byte picks the reader): a
//! family's task (`kgeval::Task::from_toml`), a whole campaign (`kgeval run`'s manifest:
//! `toml_edit` spans, per-table deserialisation, option and range checks) and a `kgeval
//! compare` task.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(input) else { return };
    match selector % 3 {
        0 => drop(kgeval::Task::from_toml(text, "fuzz.toml")),
        1 => drop(kgeval::campaign::Campaign::from_toml(text, std::path::Path::new("fuzz/campaign.toml"))),
        _ => drop(kgeval::from_toml::<kgeval::compare::CompareTask>(text, "fuzz.toml")),
    }
});
