//! The facade as a library user meets it: tasks from manifests (with located errors), inputs
//! in memory, the envelope's table, gates and progress.

mod lexicon;

use std::path::{Path, PathBuf};

/// The workspace root (bundled `testdata/` lives there).
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
