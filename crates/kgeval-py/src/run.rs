//! `kgeval.run`: a whole campaign into a report folder, as `kgeval run MANIFEST -o DIR`.

use std::path::PathBuf;

use kgeval::{NoProgress, RenderOptions};
use pyo3::prelude::*;

use crate::errors::to_py;

/// Runs the campaign `manifest` into the folder `out` through the facade
/// ([`kgeval::campaign::run_into`]: the same checks of `out` before any work, the same files,
/// written all or nothing) with `precision` decimals in `report.md` (default 4). Returns
/// `results.json`'s text and the errors of the tasks that failed (`(name, message)`).
#[pyfunction]
#[pyo3(signature = (manifest, out, *, precision=None))]
#[allow(clippy::needless_pass_by_value)]
pub(crate) fn run_campaign(
    py: Python<'_>,
    manifest: PathBuf,
    out: PathBuf,
    precision: Option<usize>,
) -> PyResult<(String, Vec<(String, String)>)> {
    let defaults = RenderOptions::default();
    let precision = match precision {
        Some(p) => kgeval::parse_precision(&p.to_string())
            .map_err(|e| crate::errors::invalid(format!("run: precision: {e}")))?,
        None => defaults.precision,
    };
    let options = RenderOptions { precision, version: env!("CARGO_PKG_VERSION").to_owned(), ..defaults };
    let outcome = py
        .allow_threads(|| kgeval::campaign::run_into(&manifest, &out, &options, &NoProgress))
        .map_err(|e| to_py(py, &e))?;
    let mut failed = Vec::new();
    for task in &outcome.tasks {
        if let Err(e) = &task.evaluation {
            failed.push((task.name.clone(), kgeval::campaign::one_line(e)));
        }
        if let Some(Err(e)) = &task.compare {
            failed.push((format!("{} (compare)", task.name), kgeval::campaign::one_line(e)));
        }
    }
    for comparison in &outcome.comparisons {
        if let Err(e) = &comparison.compare {
            failed.push((comparison.name.clone(), kgeval::campaign::one_line(e)));
        }
    }
    Ok((outcome.results_json(&options), failed))
}
