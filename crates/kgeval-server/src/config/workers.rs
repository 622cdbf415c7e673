//! The `[serve]` keys of the scoring workers: how many (`workers`) and how much memory one
//! scoring may take (`memory_limit`). [`crate::worker`] applies them.

use kgeval::toml_doc::{ManifestTable, TomlManifest};

use super::{at, ServeRow};
use crate::Error;

/// The most worker processes a campaign may ask for.
pub const MAX_WORKERS: usize = 256;

/// The smallest memory limit a campaign may set: 16 MiB.
pub const MIN_MEMORY_LIMIT: u64 = 16 << 20;

/// The default memory limit of one scoring with `workers` workers on a machine with `total`
/// bytes of memory: half the memory shared between the workers (all of them at their limit
/// leave the other half to the server and the system), at most 8 GiB and at least
/// [`MIN_MEMORY_LIMIT`].
#[must_use]
pub fn default_memory_limit(total: u64, workers: usize) -> u64 {
    (total / 2 / (workers.max(1) as u64)).clamp(MIN_MEMORY_LIMIT, 8 << 30)
}

/// The machine's memory (`MemTotal` of `/proc/meminfo`), or 4 GiB where it cannot be read.
#[must_use]
pub fn machine_memory() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(4 << 30, |kib| kib.saturating_mul(1024))
}

/// `workers` (default: one per core) and `memory_limit` (default: [`default_memory_limit`] of
/// the machine's memory).
pub(super) fn read(m: &TomlManifest<'_>, serve: ManifestTable<'_>, row: &ServeRow) -> Result<(usize, u64), Error> {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let workers = row.workers.unwrap_or(cores);
    if !(1..=MAX_WORKERS).contains(&workers) {
        return Err(at(
            m,
            serve,
            "workers",
            &format!("found workers = {workers}, expected 1 to {MAX_WORKERS} worker processes"),
        ));
    }
    let memory_limit = row.memory_limit.unwrap_or_else(|| default_memory_limit(machine_memory(), workers));
    if memory_limit < MIN_MEMORY_LIMIT {
        return Err(at(
            m,
            serve,
            "memory_limit",
            &format!("found memory_limit = {memory_limit}, expected at least {MIN_MEMORY_LIMIT} bytes (16 MiB)"),
        ));
    }
    Ok((workers, memory_limit))
}
