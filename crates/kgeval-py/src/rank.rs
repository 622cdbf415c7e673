//! `kgeval.rank`: local ranking with NIL (DISO Task 2, Bio-ML, DeepOnto, OntoAligner,
//! Bio-LLM) from paths or lists in memory, evaluated by the facade's `RankTask`.

use kgeval::rank::{
    MemoryBiomlRow, MemoryCandidates, MemoryGold, MemoryPool, MemoryQuery, MemoryRankPair, RankSource, RankTask,
    RankingProfile,
};
use kgeval::{Input, NoProgress};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::align::{repr, type_name};
use crate::compare::{rendered, warning_lines, Table};
use crate::errors::{invalid, to_py};

/// Evaluates one system's rankings. `pairs`: a list of dicts, each with an optional `name`
/// and either `submission` (a path or a list of `{"qid", "ranking"}` / `{"qid", "scores"}`
/// dicts, `scores` a list of `(iri, score)` or a dict; optional `answers`) with optional
/// `pools` (a path or a list of `{"qid", "source", "type"?, "candidates"}` dicts) and `gold`
/// (a path or a list of `{"qid", "gold"}` dicts), or `bioml_rows` (a list of `{"SrcEntity",
/// "TgtEntity", "TgtCandidates"}` dicts, candidates as IRIs, `(iri, score)` or `(iri, score,
/// answer)`). `names` names lists in errors and the system. Options left `None` take the
/// facade's defaults. Returns `(json, warnings, table)`: the document `kgeval rank --format
/// json` prints, the envelope's warnings as printed lines and the per-item score table.
#[pyfunction]
#[pyo3(signature = (pairs, *, profile=None, system=None, ties=None, tau=None, ks=None, nil=None, pool_size=None, allow_missing=None, repair=None, sweep_tau=None, tau_grid=None, threshold=None, block_size=None, beta=None, per_item=None))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
pub(crate) fn rank_evaluate(
    py: Python<'_>,
    pairs: &Bound<'_, PyList>,
    profile: Option<String>,
    system: Option<String>,
    ties: Option<String>,
    tau: Option<f64>,
    ks: Option<Vec<u32>>,
    nil: Option<String>,
    pool_size: Option<usize>,
    allow_missing: Option<bool>,
    repair: Option<bool>,
    sweep_tau: Option<bool>,
    tau_grid: Option<Vec<f64>>,
    threshold: Option<f64>,
    block_size: Option<usize>,
    beta: Option<f64>,
    per_item: Option<bool>,
) -> PyResult<(String, Vec<String>, Table)> {
    let profile = match profile {
        None => RankingProfile::default(),
        Some(name) => RankingProfile::from_name(&name).ok_or_else(|| {
            invalid(format!("profile: found {name:?}, expected diso, bioml, deeponto, ontoaligner or biollm"))
        })?,
    };
    let mut task = RankTask::new(profile);
    task.system = system;
    if let Some(name) = ties {
        task.ties = Some(kgeval::rank::parse_tie_policy(&name).map_err(|message| invalid(format!("ties: {message}")))?);
    }
    task.tau = tau;
    task.ks = ks;
    task.nil = nil;
    task.pool_size = pool_size;
    task.allow_missing = allow_missing.unwrap_or(task.allow_missing);
    task.repair = repair.unwrap_or(task.repair);
    task.sweep_tau = sweep_tau.unwrap_or(task.sweep_tau);
    task.tau_grid = tau_grid;
    task.threshold = threshold;
    task.block_size = block_size;
    task.beta = beta;
    let pairs = pairs.iter().enumerate().map(|(i, p)| memory_pair(&p, i)).collect::<PyResult<Vec<_>>>()?;
    let evaluation = py.allow_threads(|| task.run_in_memory(&pairs, &NoProgress)).map_err(|e| to_py(py, &e))?;
    let warnings = warning_lines(&evaluation);
    let (json, table) = rendered(evaluation, per_item.unwrap_or(false));
    Ok((json, warnings, table))
}

fn memory_pair(value: &Bound<'_, PyAny>, index: usize) -> PyResult<MemoryRankPair> {
    let dict = value
        .downcast::<PyDict>()
        .map_err(|_| invalid(format!("pairs[{index}]: found {}, expected a dict", type_name(value))))?;
    let get = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> { Ok(dict.get_item(key)?.filter(|v| !v.is_none())) };
    let name: Option<String> = get("name")?.map(|v| v.extract()).transpose()?;
    let mut pair = if let Some(rows) = get("bioml_rows")? {
        let what = name.clone().unwrap_or_else(|| "submission".to_owned());
        MemoryRankPair::from_bioml_rows(&what, list(&rows, &what, bioml_row)?)
    } else {
        let submission = get("submission")?
            .ok_or_else(|| invalid(format!("pairs[{index}]: found no \"submission\", expected a path or a list")))?;
        let submission_name =
            get("submission_name")?.map(|v| v.extract()).transpose()?.unwrap_or("submission".to_owned());
        MemoryRankPair {
            name: None,
            pools: get("pools")?.map(|v| source(&v, "pools", pool)).transpose()?,
            gold: get("gold")?.map(|v| source(&v, "gold", gold)).transpose()?,
            submission: source(&submission, &submission_name, query)?,
        }
    };
    pair.name = name;
    Ok(pair)
}

/// A path or a list of items read by `read` (`what[i]` in errors).
fn source<T>(
    value: &Bound<'_, PyAny>,
    what: &str,
    read: fn(&Bound<'_, PyAny>, &str) -> PyResult<T>,
) -> PyResult<RankSource<T>> {
    if let Ok(text) = value.downcast::<PyString>() {
        return Ok(RankSource::Input(Input::path(text.to_cow()?.into_owned())));
    }
    if value.hasattr("__fspath__")? {
        let path: String = value.call_method0("__fspath__")?.extract()?;
        return Ok(RankSource::Input(Input::path(path)));
    }
    Ok(RankSource::memory(what, list(value, what, read)?))
}

fn list<T>(value: &Bound<'_, PyAny>, what: &str, read: fn(&Bound<'_, PyAny>, &str) -> PyResult<T>) -> PyResult<Vec<T>> {
    let Ok(items) = value.try_iter() else {
        return Err(invalid(format!("{what}: found {}, expected a path or a list", type_name(value))));
    };
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        out.push(read(&item?, &format!("{what}[{i}]"))?);
    }
    Ok(out)
}

fn fields<'py>(item: &Bound<'py, PyAny>, at: &str, expected: &str) -> PyResult<Bound<'py, PyDict>> {
    item.downcast::<PyDict>()
        .cloned()
        .map_err(|_| invalid(format!("{at}: found {}, expected a dict with {expected}", type_name(item))))
}

fn field<'py>(dict: &Bound<'py, PyDict>, key: &str, at: &str) -> PyResult<Bound<'py, PyAny>> {
    dict.get_item(key)?.ok_or_else(|| invalid(format!("{at}: found no {key:?} key, expected one")))
}

/// A `str`, or an `int` as its decimal text (DISO qids are integers).
fn text(value: &Bound<'_, PyAny>, at: &str, key: &str) -> PyResult<String> {
    if let Ok(s) = value.downcast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if !value.is_instance_of::<pyo3::types::PyBool>() {
        if let Ok(n) = value.extract::<i64>() {
            return Ok(n.to_string());
        }
    }
    Err(invalid(format!("{at}: found {key} {}, expected a str", repr(value))))
}

fn strings(value: &Bound<'_, PyAny>, at: &str, key: &str) -> PyResult<Vec<String>> {
    if value.downcast::<PyString>().is_ok() {
        return Err(invalid(format!("{at}: found {key} {}, expected a list of IRIs", repr(value))));
    }
    let items =
        value.try_iter().map_err(|_| invalid(format!("{at}: found {key} {}, expected a list of IRIs", repr(value))))?;
    items.map(|item| text(&item?, at, key)).collect()
}

fn number(value: &Bound<'_, PyAny>, at: &str) -> PyResult<f64> {
    value.extract::<f64>().map_err(|_| invalid(format!("{at}: found score {}, expected a number", repr(value))))
}

fn pool(item: &Bound<'_, PyAny>, at: &str) -> PyResult<MemoryPool> {
    let dict = fields(item, at, "qid, source, candidates")?;
    Ok(MemoryPool {
        qid: text(&field(&dict, "qid", at)?, at, "qid")?,
        source: text(&field(&dict, "source", at)?, at, "source")?,
        entity_type: dict.get_item("type")?.filter(|v| !v.is_none()).map(|v| text(&v, at, "type")).transpose()?,
        candidates: strings(&field(&dict, "candidates", at)?, at, "candidates")?,
    })
}

fn gold(item: &Bound<'_, PyAny>, at: &str) -> PyResult<MemoryGold> {
    let dict = fields(item, at, "qid, gold")?;
    Ok(MemoryGold {
        qid: text(&field(&dict, "qid", at)?, at, "qid")?,
        gold: text(&field(&dict, "gold", at)?, at, "gold")?,
    })
}

fn query(item: &Bound<'_, PyAny>, at: &str) -> PyResult<MemoryQuery> {
    let dict = fields(item, at, "qid and ranking or scores")?;
    let qid = text(&field(&dict, "qid", at)?, at, "qid")?;
    let candidates = match (dict.get_item("ranking")?, dict.get_item("scores")?) {
        (Some(ranking), None) => MemoryCandidates::Ranking(strings(&ranking, at, "ranking")?),
        (None, Some(scores)) => {
            MemoryCandidates::Scores(scored(&scores, at)?.into_iter().map(|(c, s, _)| (c, s)).collect())
        }
        _ => return Err(invalid(format!("{at}: expected one of \"ranking\" and \"scores\", found both or neither"))),
    };
    let answers = match dict.get_item("answers")?.filter(|v| !v.is_none()) {
        Some(v) => Some(
            v.extract::<Vec<bool>>()
                .map_err(|_| invalid(format!("{at}: found answers {}, expected a list of bools", repr(&v))))?,
        ),
        None => None,
    };
    Ok(MemoryQuery { qid, candidates, answers })
}

/// `(iri, score)` or `(iri, score, answer)` items, or a dict `{iri: score}`.
fn scored(value: &Bound<'_, PyAny>, at: &str) -> PyResult<Vec<(String, f64, Option<bool>)>> {
    if let Ok(dict) = value.downcast::<PyDict>() {
        return dict.iter().map(|(k, v)| Ok((text(&k, at, "candidate")?, number(&v, at)?, None))).collect();
    }
    let items = value
        .try_iter()
        .map_err(|_| invalid(format!("{at}: found scores {}, expected (iri, score) pairs", repr(value))))?;
    let mut out = Vec::new();
    for item in items {
        let item = item?;
        let parts: Vec<Bound<'_, PyAny>> = match item.downcast::<PyString>() {
            Ok(_) => Vec::new(),
            Err(_) => item.try_iter().map(|i| i.collect::<PyResult<_>>()).unwrap_or(Ok(Vec::new()))?,
        };
        match parts.as_slice() {
            [iri, score] => out.push((text(iri, at, "candidate")?, number(score, at)?, None)),
            [iri, score, answer] => out.push((
                text(iri, at, "candidate")?,
                number(score, at)?,
                Some(
                    answer
                        .extract::<bool>()
                        .map_err(|_| invalid(format!("{at}: found answer {}, expected a bool", repr(answer))))?,
                ),
            )),
            _ => {
                return Err(invalid(format!(
                    "{at}: found candidate {}, expected (iri, score) or (iri, score, answer)",
                    repr(&item)
                )))
            }
        }
    }
    Ok(out)
}

fn bioml_row(item: &Bound<'_, PyAny>, at: &str) -> PyResult<MemoryBiomlRow> {
    let dict = fields(item, at, "SrcEntity, TgtEntity, TgtCandidates")?;
    let source = text(&field(&dict, "SrcEntity", at)?, at, "SrcEntity")?;
    let target = text(&field(&dict, "TgtEntity", at)?, at, "TgtEntity")?;
    let raw = field(&dict, "TgtCandidates", at)?;
    let first_is_text = raw
        .try_iter()
        .ok()
        .and_then(|mut i| i.next())
        .and_then(Result::ok)
        .is_some_and(|f| f.downcast::<PyString>().is_ok());
    let (candidates, answers) = if first_is_text {
        (MemoryCandidates::Ranking(strings(&raw, at, "TgtCandidates")?), None)
    } else {
        let scored = scored(&raw, at)?;
        let answers: Option<Vec<bool>> = scored.iter().map(|(_, _, a)| *a).collect();
        (MemoryCandidates::Scores(scored.into_iter().map(|(c, s, _)| (c, s)).collect()), answers)
    };
    Ok(MemoryBiomlRow { source, target, candidates, answers })
}
