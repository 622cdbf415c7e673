//! `kgeval.trec`: qrels and runs from paths, nested dicts or columns, evaluated by the
//! facade's `TrecTask`.

use kgeval::trec::TrecTask;
use kgeval::{FamilyResult, Input, NoProgress};
use kgeval_model::trec::{MeasureFamily, OwnedRunDoc, Qrels, Run, TieBreak};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::errors::{invalid, to_py};

/// A qrels or run as given: a file, or values already in memory.
enum Given<T> {
    Path(String),
    Memory(T),
}

/// Evaluates `runs` (a list of `(name, run)`) against `qrels`; each of them a path, a nested
/// dict (`{qid: {docid: value}}`) or columns `(qids, docids, values)`. Options left `None`
/// take the facade's defaults. Returns `{name: {"run_id", "per_query": {qid: {measure:
/// value}}, "summary": {measure: value}}}`.
#[pyfunction]
#[pyo3(signature = (qrels, runs, measures=None, *, complete=None, level=None, ndcg_level=None, max_docs=None, tie_break=None))]
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
) -> PyResult<PyObject> {
    let qrels = given(qrels, "qrels", read_qrels)?;
    let mut named = Vec::with_capacity(runs.len());
    for item in runs.iter() {
        let (name, run): (String, Bound<'_, PyAny>) = item.extract()?;
        let run = given(&run, &format!("run {name}"), read_run)?;
        named.push((name, run));
    }
    let qrels_input = match &qrels {
        Given::Path(path) => Input::path(path),
        Given::Memory(_) => Input::path("qrels"),
    };
    let mut task = TrecTask::new(qrels_input);
    if let Some(measures) = measures {
        task.measures = measures;
    }
    task.complete = complete.unwrap_or(task.complete);
    task.level = level.unwrap_or(task.level);
    task.ndcg_level = ndcg_level.unwrap_or(task.ndcg_level);
    task.max_docs = max_docs.or(task.max_docs);
    if let Some(name) = tie_break {
        task.tie_break = TieBreak::from_name(&name).ok_or_else(|| {
            invalid(format!("tie_break: found {name:?}, expected docno-desc, docno-asc, rank or input"))
        })?;
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
                task.run_in_memory(&qrels, "qrels", &memory)
            })
        }
    }
    .map_err(|e| to_py(py, &e))?;
    let FamilyResult::Trec(result) = &evaluation.result else {
        return Err(invalid("trec: the facade returned another family's result"));
    };
    let out = PyDict::new(py);
    let measures = result.measures.measures();
    for run in &result.runs {
        let per_query = PyDict::new(py);
        for topic in &run.topics {
            let values = PyDict::new(py);
            for (measure, value) in measures.iter().zip(&topic.values) {
                if measure.family.per_topic() && measure.family != MeasureFamily::Runid {
                    values.set_item(&measure.name, value)?;
                }
            }
            per_query.set_item(&topic.qid, values)?;
        }
        let summary = PyDict::new(py);
        for (measure, value) in measures.iter().zip(&run.summary) {
            if measure.family != MeasureFamily::Runid {
                summary.set_item(&measure.name, value)?;
            }
        }
        let entry = PyDict::new(py);
        entry.set_item("run_id", &run.run_id)?;
        entry.set_item("per_query", per_query)?;
        entry.set_item("summary", summary)?;
        out.set_item(&run.name, entry)?;
    }
    Ok(out.into_any().unbind())
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

/// `(key, value)` pairs of a dict or any mapping with `.items()`; `what` names it in errors.
fn items<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    if let Ok(dict) = value.downcast::<PyDict>() {
        return Ok(dict.iter().collect());
    }
    if !value.hasattr("items")? {
        return Err(invalid(format!(
            "{what}: found {}, expected a path, a dict or columns (ids, docids, values)",
            type_name(value)
        )));
    }
    value.call_method0("items")?.try_iter()?.map(|item| item?.extract()).collect()
}

/// The Python type's name, for messages.
fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned())
}

/// An id: a `str` (ints are taken as their decimal text).
fn id(value: &Bound<'_, PyAny>, what: impl FnOnce() -> String) -> PyResult<String> {
    if let Ok(text) = value.downcast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    if let Ok(number) = value.extract::<i64>() {
        return Ok(number.to_string());
    }
    Err(invalid(format!("{}: found an id of type {}, expected str", what(), type_name(value))))
}

/// A relevance judgment: an integer (an integral float is taken).
fn relevance(value: &Bound<'_, PyAny>, what: impl FnOnce() -> String) -> PyResult<i64> {
    if let Ok(number) = value.extract::<i64>() {
        return Ok(number);
    }
    match value.extract::<f64>() {
        Ok(number) if number.fract() == 0.0 && number.abs() < 9.0e15 => Ok(number as i64),
        _ => Err(invalid(format!("{}: found relevance {}, expected an integer", what(), repr(value)))),
    }
}

/// A retrieval score: a number.
fn score(value: &Bound<'_, PyAny>, what: impl FnOnce() -> String) -> PyResult<f64> {
    value.extract::<f64>().map_err(|_| invalid(format!("{}: found score {}, expected a number", what(), repr(value))))
}

fn repr(value: &Bound<'_, PyAny>) -> String {
    value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".to_owned())
}

/// Columns `(qids, docids, values)` of one length, as three lists.
fn columns<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Option<[Vec<Bound<'py, PyAny>>; 3]>> {
    let Ok(tuple) = value.downcast::<PyTuple>() else { return Ok(None) };
    if tuple.len() != 3 {
        return Err(invalid(format!(
            "{what}: found a tuple of {}, expected columns (ids, docids, values)",
            tuple.len()
        )));
    }
    let column = |i: usize| -> PyResult<Vec<Bound<'py, PyAny>>> { tuple.get_item(i)?.try_iter()?.collect() };
    let (q, d, v) = (column(0)?, column(1)?, column(2)?);
    if q.len() != d.len() || q.len() != v.len() {
        return Err(invalid(format!(
            "{what}: found columns of {}, {} and {} rows, expected one length",
            q.len(),
            d.len(),
            v.len()
        )));
    }
    Ok(Some([q, d, v]))
}

/// Qrels from `{qid: {docid: relevance}}` or columns.
fn read_qrels(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Qrels> {
    let mut qrels = Qrels::new();
    if let Some([q, d, v]) = columns(value, what)? {
        for (row, ((q, d), v)) in q.iter().zip(&d).zip(&v).enumerate() {
            let qid = id(q, || format!("{what} row {row}"))?;
            let docno = id(d, || format!("{what} row {row}"))?;
            let rel = relevance(v, || format!("{what} row {row}"))?;
            if qrels.topic_mut(&qid).insert(&docno, rel).is_some() {
                return Err(invalid(format!(
                    "{what} row {row}: found a second judgment for qid {qid:?}, docid {docno:?}, expected one"
                )));
            }
        }
        return Ok(qrels);
    }
    for (qid, docs) in items(value, what)? {
        let qid = id(&qid, || what.to_owned())?;
        let at = format!("{what}[{qid:?}]");
        let docs = items(&docs, &at)?;
        let topic = qrels.topic_mut(&qid);
        for (docno, rel) in docs {
            let docno = id(&docno, || at.clone())?;
            topic.insert(&docno, relevance(&rel, || format!("{at}[{docno:?}]"))?);
        }
    }
    Ok(qrels)
}

/// A run from `{qid: {docid: score}}` or columns (documents in input order).
fn read_run(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Run> {
    let mut run = Run { run_id: "kgeval".to_owned(), topics: Vec::new() };
    let push = |docs: &mut Vec<OwnedRunDoc>, docno: String, score: f64| {
        let rank = docs.len() as i64 + 1;
        docs.push(OwnedRunDoc { docno, score, rank });
    };
    if let Some([q, d, v]) = columns(value, what)? {
        let mut slots: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for (row, ((q, d), v)) in q.iter().zip(&d).zip(&v).enumerate() {
            let qid = id(q, || format!("{what} row {row}"))?;
            let docno = id(d, || format!("{what} row {row}"))?;
            let value = score(v, || format!("{what} row {row}"))?;
            let slot = *slots.entry(qid.clone()).or_insert_with(|| {
                run.topics.push((qid, Vec::new()));
                run.topics.len() - 1
            });
            push(&mut run.topics[slot].1, docno, value);
        }
        return Ok(run);
    }
    for (qid, docs) in items(value, what)? {
        let qid = id(&qid, || what.to_owned())?;
        let at = format!("{what}[{qid:?}]");
        let mut list = Vec::new();
        for (docno, value) in items(&docs, &at)? {
            let docno = id(&docno, || at.clone())?;
            let value = score(&value, || format!("{at}[{docno:?}]"))?;
            push(&mut list, docno, value);
        }
        run.topics.push((qid, list));
    }
    Ok(run)
}

/// The names `trec_evaluate` outputs for `measures` (`None`: the facade's default), in
/// trec_eval's order; fails on an unknown measure.
#[pyfunction]
#[pyo3(signature = (measures=None))]
pub(crate) fn trec_measure_names(py: Python<'_>, measures: Option<Vec<String>>) -> PyResult<Vec<String>> {
    let mut task = TrecTask::new(Input::path("qrels"));
    if let Some(measures) = measures {
        task.measures = measures;
    }
    let set = task.measure_set().map_err(|e| to_py(py, &e))?;
    Ok(set.measures().iter().filter(|m| m.family != MeasureFamily::Runid).map(|m| m.name.clone()).collect())
}
