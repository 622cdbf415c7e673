//! `kgeval.qald`: a QALD gold question set and submissions (paths, or the JSON text of dicts
//! as `json.load` gives them), evaluated by the facade's `QaldTask`.

use kgeval::qald::{normalisation_with, QaldTask};
use kgeval::NoProgress;
use kgeval_model::qald::QaldRule;
use pyo3::prelude::*;

use crate::compare::{input, rendered, system, Table};
use crate::errors::{invalid, to_py};

/// Evaluates `systems` (a list of `(name or None, path or bytes)`) against `gold` (a path or
/// bytes). Options left `None` take the facade's defaults; `normalisation` sets switches by
/// name. Returns `(kgeval qald --format json's text, the score table)`.
#[pyfunction]
#[pyo3(signature = (gold, systems, *, rule=None, language=None, data=None, endpoint=None, timeout=None, gold_from_queries=None, labels=None, normalisation=None, per_item=false))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
pub(crate) fn qald_evaluate(
    py: Python<'_>,
    gold: &Bound<'_, PyAny>,
    systems: Vec<(Option<String>, Bound<'_, PyAny>)>,
    rule: Option<String>,
    language: Option<String>,
    data: Option<Vec<Bound<'_, PyAny>>>,
    endpoint: Option<String>,
    timeout: Option<f64>,
    gold_from_queries: Option<bool>,
    labels: Option<Bound<'_, PyAny>>,
    normalisation: Option<Vec<(String, bool)>>,
    per_item: bool,
) -> PyResult<(String, Table)> {
    let mut task = QaldTask::new(input(gold, "gold.json")?);
    for (name, value) in systems {
        task.systems.push(system(name, &value, ".json")?);
    }
    if let Some(name) = rule {
        task.rule = QaldRule::from_name(&name)
            .ok_or_else(|| invalid(format!("rule: found {name:?}, expected qald3, qald6 or gerbil")))?;
    }
    if let Some(language) = language {
        task.language = language;
    }
    for (i, file) in data.unwrap_or_default().iter().enumerate() {
        task.data.push(input(file, &format!("data {}.ttl", i + 1))?);
    }
    task.endpoint = endpoint.or(task.endpoint);
    task.timeout = timeout.unwrap_or(task.timeout);
    task.gold_from_queries = gold_from_queries.unwrap_or(task.gold_from_queries);
    task.labels = labels.map(|l| input(&l, "labels.tsv")).transpose()?.or(task.labels);
    if let Some(switches) = normalisation {
        let switches: Vec<(&str, bool)> = switches.iter().map(|(n, on)| (n.as_str(), *on)).collect();
        task.normalisation = normalisation_with(&switches).map_err(|e| to_py(py, &e))?;
    }
    let evaluation = py.allow_threads(|| task.run(&NoProgress)).map_err(|e| to_py(py, &e))?;
    Ok(rendered(evaluation, per_item))
}
