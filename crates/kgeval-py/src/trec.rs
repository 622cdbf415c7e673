//! `kgeval.trec`: qrels and runs from paths, nested dicts or columns, evaluated by the
//! facade's `TrecTask`.

use std::sync::Arc;

use kgeval::trec::{InternedRun, TrecTask};
use kgeval::{Evaluation, FamilyResult, Input, NoProgress};
use kgeval_model::trec::{MeasureFamily, TieBreak, Ties};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::arrow_in;
use crate::arrow_out::ArrowResults;
use crate::errors::{invalid, to_py};
use crate::trec_stream::evaluate_dicts;

/// A qrels or run as given: a file, or values already in memory.
enum Given<T> {
    Path(String),
    Memory(T),
}

/// Evaluates `runs` (a list of `(name, run)`) against `qrels`; each of them a path, a nested
/// dict (`{qid: {docid: value}}`) or columns `(qids, docids, values)`. Options left `None`
/// take the facade's defaults. Returns `{name: {"run_id", "per_query": {qid: {measure:
/// value}}, "summary": {measure: value}}}` (`"per_query"` only when `per_query`).
#[pyfunction]
#[pyo3(signature = (qrels, runs, measures=None, *, complete=None, level=None, ndcg_level=None, max_docs=None, tie_break=None, ties=None, per_query=true))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
pub(crate) fn trec_evaluate(
    py: Python<'_>,
    qrels: &Bound<'_, PyAny>,
    runs: &Bound<'_, PyList>,
    measures: Option<Vec<String>>,
    complete: Option<bool>,
    level: Option<i64>,
    ndcg_level: Option<bool>,
    max_docs: Option<usize>,
    tie_break: Option<String>,
    ties: Option<String>,
    per_query: bool,
) -> PyResult<PyObject> {
    let raw: Vec<(String, Bound<'_, PyAny>)> = runs.iter().map(|item| item.extract()).collect::<PyResult<_>>()?;
    let all_arrow = !raw.is_empty() && raw.iter().all(|(_, run)| arrow_in::is_arrow(run));
    let qrels_is_path = qrels.downcast::<PyString>().is_ok() || qrels.hasattr("__fspath__")?;
    let with_options = |mut task: TrecTask| {
        task.complete = complete.unwrap_or(task.complete);
        task.ndcg_level = ndcg_level.unwrap_or(task.ndcg_level);
        task.max_docs = max_docs.or(task.max_docs);
        task
    };
    if all_arrow && !qrels_is_path {
        // Arrow runs, qrels in memory: converted while the first run is read.
        let task = with_options(task(Input::path("qrels"), measures, level, tie_break, ties)?);
        let evaluation = arrow_in::evaluate_arrow_runs_converting(py, &task, qrels, "qrels", &raw)?;
        return results_dict(py, evaluation, per_query);
    }
    let mut qrels = given(qrels, "qrels", arrow_in::read_qrels_any)?;
    let qrels_input = match &qrels {
        Given::Path(path) => Input::path(path),
        Given::Memory(_) => Input::path("qrels"),
    };
    let mut task = with_options(task(qrels_input, measures, level, tie_break, ties)?);
    if !raw.is_empty() && (all_arrow || raw.iter().all(|(_, run)| run.is_instance_of::<PyDict>())) {
        // Every run a dict (or every run Arrow): evaluated while it is walked (trec_stream,
        // arrow_in), against qrels held.
        let held = Arc::new(match qrels {
            Given::Path(_) => py.allow_threads(|| task.read_qrels()).map_err(|e| to_py(py, &e))?,
            Given::Memory(qrels) => qrels,
        });
        let evaluated = if all_arrow {
            Some(arrow_in::evaluate_arrow_runs(py, &task, &held, "qrels", &raw)?)
        } else {
            evaluate_dicts(py, &task, &held, "qrels", &raw)?
        };
        if let Some(evaluation) = evaluated {
            return results_dict(py, evaluation, per_query);
        }
        qrels = Given::Memory(Arc::unwrap_or_clone(held));
    }
    let mut named = Vec::with_capacity(raw.len());
    for (name, run) in raw {
        let run = given(&run, &format!("run {name}"), arrow_in::read_run_any)?;
        named.push((name, run));
    }
    let all_paths = named.iter().all(|(_, run)| matches!(run, Given::Path(_)));
    let evaluation = match qrels {
        Given::Path(_) if all_paths => {
            for (name, run) in &named {
                if let Given::Path(path) = run {
                    task.runs.push(kgeval::SystemInput::named(name.clone(), Input::path(path)));
                }
            }
            py.allow_threads(|| task.run(&NoProgress))
        }
        qrels => {
            let mut memory = Vec::with_capacity(named.len());
            for (name, run) in named {
                match run {
                    Given::Memory(run) => memory.push((name, run)),
                    Given::Path(_) => {
                        return Err(invalid(format!(
                            "run {name}: found a path with qrels in memory, expected the run in memory too (or both as paths)"
                        )))
                    }
                }
            }
            py.allow_threads(|| {
                let qrels = match qrels {
                    Given::Path(_) => task.read_qrels()?,
                    Given::Memory(qrels) => qrels,
                };
                task.run_interned(&qrels, "qrels", &memory)
            })
        }
    }
    .map_err(|e| to_py(py, &e))?;
    results_dict(py, evaluation, per_query)
}

/// `{name: {"run_id", "per_query", "summary", "arrow"}}` of every run of `evaluation`
/// (`"arrow"`: the evaluation's rows as an Arrow table, arrow_out).
fn results_dict(py: Python<'_>, evaluation: Evaluation, per_query: bool) -> PyResult<PyObject> {
    let out = PyDict::new(py);
    let evaluation = Arc::new(evaluation);
    let arrow = Py::new(py, ArrowResults::new(Arc::clone(&evaluation), per_query))?;
    for (name, entry) in results(py, &evaluation, per_query, true)? {
        entry.set_item("arrow", &arrow)?;
        out.set_item(name, entry)?;
    }
    Ok(out.into_any().unbind())
}

/// A task on `qrels` with the options every entry point takes; `None` keeps the facade's
/// default.
pub(crate) fn task(
    qrels: Input,
    measures: Option<Vec<String>>,
    level: Option<i64>,
    tie_break: Option<String>,
    ties: Option<String>,
) -> PyResult<TrecTask> {
    let mut task = TrecTask::new(qrels);
    if let Some(measures) = measures {
        task.measures = measures;
    }
    task.level = level.unwrap_or(task.level);
    if let Some(name) = tie_break {
        task.tie_break = TieBreak::from_name(&name).ok_or_else(|| {
            invalid(format!("tie_break: found {name:?}, expected docno-desc, docno-asc, rank or input"))
        })?;
    }
    if let Some(name) = ties {
        task.ties = Ties::from_name(&name).ok_or_else(|| {
            invalid(format!("ties: found {name:?}, expected trec, expected, optimistic, pessimistic or range"))
        })?;
    }
    Ok(task)
}

/// Per run of `evaluation`: its name and `{"run_id", "per_query": {qid: {measure: value}},
/// "summary": {measure: value}}` (`"per_query"` only when `per_query`, `"summary"` and
/// `"run_id"` only when `summary`). Summary-only measures are not in the per-query dicts;
/// `runid` is in neither.
pub(crate) fn results<'py>(
    py: Python<'py>,
    evaluation: &Evaluation,
    per_query: bool,
    summary: bool,
) -> PyResult<Vec<(String, Bound<'py, PyDict>)>> {
    let FamilyResult::Trec(result) = &evaluation.result else {
        return Err(invalid("trec: the facade returned another family's result"));
    };
    let measures = result.measures.measures();
    // Each measure name made a Python str once, not once per topic.
    let names: Vec<Bound<'py, PyString>> = measures.iter().map(|m| PyString::new(py, &m.name)).collect();
    let topic_measures: Vec<usize> = (0..measures.len())
        .filter(|&i| measures[i].family.per_topic() && measures[i].family != MeasureFamily::Runid)
        .collect();
    let mut out = Vec::with_capacity(result.runs.len());
    for run in &result.runs {
        let entry = PyDict::new(py);
        if per_query {
            let by_topic = PyDict::new(py);
            for topic in &run.topics {
                let values = PyDict::new(py);
                for &i in &topic_measures {
                    values.set_item(&names[i], topic.values[i])?;
                }
                by_topic.set_item(&topic.qid, values)?;
            }
            entry.set_item("per_query", by_topic)?;
        }
        if summary {
            let values = PyDict::new(py);
            for (i, value) in run.summary.iter().enumerate() {
                if measures[i].family != MeasureFamily::Runid {
                    values.set_item(&names[i], value)?;
                }
            }
            entry.set_item("run_id", &run.run_id)?;
            entry.set_item("summary", values)?;
        }
        out.push((run.name.clone(), entry));
    }
    Ok(out)
}

/// Evaluates in-memory `runs` against `qrels` with the GIL released.
pub(crate) fn evaluate_interned(
    py: Python<'_>,
    task: &TrecTask,
    qrels: &kgeval_model::trec::Qrels,
    runs: &[(String, InternedRun)],
) -> PyResult<Evaluation> {
    py.allow_threads(|| task.run_interned(qrels, "qrels", runs)).map_err(|e| to_py(py, &e))
}

/// A path (`str` or `os.PathLike`) or the value `read` makes of a dict or columns.
fn given<T>(
    value: &Bound<'_, PyAny>,
    what: &str,
    read: fn(&Bound<'_, PyAny>, &str) -> PyResult<T>,
) -> PyResult<Given<T>> {
    if let Ok(text) = value.downcast::<PyString>() {
        return Ok(Given::Path(text.to_cow()?.into_owned()));
    }
    if value.hasattr("__fspath__")? {
        let path = value.call_method0("__fspath__")?;
        return Ok(Given::Path(path.extract()?));
    }
    read(value, what).map(Given::Memory)
}

/// The names `trec_evaluate` outputs for `measures` (`None`: the facade's default), in
/// trec_eval's order; fails on an unknown measure.
#[pyfunction]
#[pyo3(signature = (measures=None))]
pub(crate) fn trec_measure_names(py: Python<'_>, measures: Option<Vec<String>>) -> PyResult<Vec<String>> {
    let task = task(Input::path("qrels"), measures, None, None, None)?;
    let set = task.measure_set().map_err(|e| to_py(py, &e))?;
    Ok(set.measures().iter().filter(|m| m.family != MeasureFamily::Runid).map(|m| m.name.clone()).collect())
}

/// pytrec_eval's `supported_measures`: the trec_eval measure families kgeval computes.
#[pyfunction]
pub(crate) fn trec_supported_measures() -> Vec<&'static str> {
    kgeval::trec::supported_measures()
}

/// pytrec_eval's `compute_aggregated_measure(measure, values)` (the facade's rule).
#[pyfunction]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts arguments by value
pub(crate) fn trec_aggregate(py: Python<'_>, measure: &str, values: Vec<f64>) -> PyResult<f64> {
    kgeval::trec::aggregate_measure(measure, &values).map_err(|e| to_py(py, &e))
}
