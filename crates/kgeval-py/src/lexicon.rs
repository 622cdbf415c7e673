//! `kgeval.lexicon`: lemon / OntoLex lexicons and a URI list (paths, or Turtle / text as
//! bytes), evaluated by the facade's `LexiconTask`.

use kgeval::lexicon::LexiconTask;
use kgeval::NoProgress;
use kgeval_model::lexicon::LexiconMode;
use pyo3::prelude::*;

use crate::compare::{input, rendered, system, Table};
use crate::errors::{invalid, to_py};

/// Evaluates `systems` (a list of `(name or None, path or bytes)`) against the gold lexicon on
/// the URI list `uris`. Options left `None` take the facade's defaults. Returns
/// `(kgeval lexicon --format json's text, the score table)`.
#[pyfunction]
#[pyo3(signature = (gold, uris, systems, *, mode=None, base_iri=None, per_item=false))]
#[allow(clippy::needless_pass_by_value)]
pub(crate) fn lexicon_evaluate(
    py: Python<'_>,
    gold: &Bound<'_, PyAny>,
    uris: &Bound<'_, PyAny>,
    systems: Vec<(Option<String>, Bound<'_, PyAny>)>,
    mode: Option<String>,
    base_iri: Option<String>,
    per_item: bool,
) -> PyResult<(String, Table)> {
    let mut task = LexiconTask::new(input(gold, "gold.ttl")?, input(uris, "uris.txt")?);
    for (name, value) in systems {
        task.systems.push(system(name, &value, ".ttl")?);
    }
    if let Some(name) = mode {
        task.mode = LexiconMode::from_name(&name)
            .ok_or_else(|| invalid(format!("mode: found {name:?}, expected paper or qald3-script")))?;
    }
    task.base_iri = base_iri.or(task.base_iri);
    let evaluation = py.allow_threads(|| task.run(&NoProgress)).map_err(|e| to_py(py, &e))?;
    Ok(rendered(evaluation, per_item))
}
