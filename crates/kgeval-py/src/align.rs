//! `kgeval.align`: reference and system alignments from paths or OntoAligner-style lists of
//! `{"source", "target", "score"}` dicts, evaluated by the facade's `AlignTask`.

use kgeval::align::{
    AlignTask, AlignmentProfile, AlignmentSource, CompletenessMode, MemoryCell, MemoryPair, MemorySystem,
};
use kgeval::{FamilyResult, Input, NoProgress};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::compare::{rendered, warning_lines, Table};
use crate::errors::{invalid, to_py};

/// Evaluates alignment test cases. `pairs`: a list of dicts, each with `name`, `reference`
/// and `systems` (a list of `(name or None, alignment)`), optional `track`, `secondary`,
/// `exclusion`, `baseline` (alignments), `onto1` and `onto2` (paths); an alignment is a path
/// or a list of dicts with `source`, `target` and optional `score` and `relation`. Options
/// left `None` take the facade's defaults. Returns `(json, warnings, labels, table)`: the document
/// `kgeval align --format json` prints, the envelope's warnings as printed lines, and the
/// judged correspondences as TSV when `collect_labels`.
#[pyfunction]
#[pyo3(signature = (pairs, *, profile=None, mode=None, threshold=None, beta=None, best_threshold=None, macro_harmonic=None, expected_pairs=None, collect_labels=None, per_item=None))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
pub(crate) fn align_evaluate(
    py: Python<'_>,
    pairs: &Bound<'_, PyList>,
    profile: Option<String>,
    mode: Option<String>,
    threshold: Option<f64>,
    beta: Option<f64>,
    best_threshold: Option<bool>,
    macro_harmonic: Option<bool>,
    expected_pairs: Option<usize>,
    collect_labels: Option<bool>,
    per_item: Option<bool>,
) -> PyResult<(String, Vec<String>, Option<String>, Table)> {
    let mut task = AlignTask::new(Vec::new());
    if let Some(name) = profile {
        task.profile = AlignmentProfile::from_name(&name).ok_or_else(|| {
            invalid(format!("profile: found {name:?}, expected melt, alignapi, oaei-seals, ontoaligner or diso"))
        })?;
    }
    if let Some(name) = mode {
        task.completeness = Some(CompletenessMode::from_name(&name).ok_or_else(|| {
            invalid(format!(
                "mode: found {name:?}, expected complete, partial, partial-source, partial-target or partial-none"
            ))
        })?);
    }
    task.threshold = threshold;
    task.beta = beta.unwrap_or(task.beta);
    task.best_threshold = best_threshold.unwrap_or(task.best_threshold);
    task.macro_harmonic = macro_harmonic.unwrap_or(task.macro_harmonic);
    task.expected_pairs = expected_pairs.or(task.expected_pairs);
    task.collect_labels = collect_labels.unwrap_or(task.collect_labels);
    let pairs = pairs.iter().enumerate().map(|(i, p)| memory_pair(&p, i)).collect::<PyResult<Vec<_>>>()?;
    let evaluation = py.allow_threads(|| task.run_in_memory(&pairs, &NoProgress)).map_err(|e| to_py(py, &e))?;
    let warnings = warning_lines(&evaluation);
    let labels = match &evaluation.result {
        FamilyResult::Align(result) => result.labels_tsv.clone(),
        _ => None,
    };
    let (json, table) = rendered(evaluation, per_item.unwrap_or(false));
    Ok((json, warnings, labels, table))
}

/// One test case from its dict.
fn memory_pair(value: &Bound<'_, PyAny>, index: usize) -> PyResult<MemoryPair> {
    let dict = value
        .downcast::<PyDict>()
        .map_err(|_| invalid(format!("pairs[{index}]: found {}, expected a dict", type_name(value))))?;
    let name: Option<String> = dict.get_item("name")?.filter(|v| !v.is_none()).map(|v| v.extract()).transpose()?;
    let reference = source(&required(dict, "reference", &format!("pairs[{index}]"))?, "reference")?;
    let optional = |key: &str| -> PyResult<Option<AlignmentSource>> {
        match dict.get_item(key)? {
            Some(v) if !v.is_none() => source(&v, key).map(Some),
            _ => Ok(None),
        }
    };
    let path = |key: &str| -> PyResult<Option<String>> {
        match dict.get_item(key)? {
            Some(v) if !v.is_none() => v
                .extract()
                .map(Some)
                .map_err(|_| invalid(format!("{key}: found {}, expected a path (str or os.PathLike)", type_name(&v)))),
            _ => Ok(None),
        }
    };
    let mut pair = match name {
        Some(name) => MemoryPair::new(name, reference),
        None => MemoryPair::named_after_reference(reference),
    };
    pair.track = dict.get_item("track")?.filter(|v| !v.is_none()).map(|v| v.extract()).transpose()?;
    pair.secondary = optional("secondary")?;
    pair.exclusion = optional("exclusion")?;
    pair.baseline = optional("baseline")?;
    pair.ontologies = match (path("onto1")?, path("onto2")?) {
        (Some(a), Some(b)) => Some((Input::path(a), Input::path(b))),
        (None, None) => None,
        _ => return Err(invalid("onto1 and onto2: found one, expected both or neither")),
    };
    let systems = required(dict, "systems", &pair.name)?;
    for item in systems.try_iter()? {
        let (name, alignment): (Option<String>, Bound<'_, PyAny>) = item?.extract()?;
        let what = name.as_deref().map_or_else(|| "system".to_owned(), |n| format!("system {n}"));
        let alignment = source(&alignment, &what)?;
        pair.systems.push(MemorySystem { name, alignment });
    }
    Ok(pair)
}

fn required<'py>(dict: &Bound<'py, PyDict>, key: &str, what: &str) -> PyResult<Bound<'py, PyAny>> {
    dict.get_item(key)?.ok_or_else(|| invalid(format!("{what}: found no {key:?} key, expected one")))
}

/// A path (`str`) or a list of cell dicts; `name` names the cells in errors.
fn source(value: &Bound<'_, PyAny>, name: &str) -> PyResult<AlignmentSource> {
    if let Ok(text) = value.downcast::<PyString>() {
        return Ok(AlignmentSource::Input(Input::path(text.to_cow()?.into_owned())));
    }
    if value.hasattr("__fspath__")? {
        let path: String = value.call_method0("__fspath__")?.extract()?;
        return Ok(AlignmentSource::Input(Input::path(path)));
    }
    let Ok(items) = value.try_iter() else {
        return Err(invalid(format!(
            "{name}: found {}, expected a path or a list of dicts with source, target and optional score, relation",
            type_name(value)
        )));
    };
    let mut cells = Vec::new();
    for (i, item) in items.enumerate() {
        cells.push(cell(&item?, name, i)?);
    }
    Ok(AlignmentSource::cells(name, cells))
}

/// One `{"source", "target", "score"?, "relation"?}` dict.
fn cell(item: &Bound<'_, PyAny>, name: &str, index: usize) -> PyResult<MemoryCell> {
    let at = || format!("{name}[{index}]");
    let Ok(dict) = item.downcast::<PyDict>() else {
        return Err(invalid(format!(
            "{}: found {}, expected a dict with source, target and optional score, relation",
            at(),
            type_name(item)
        )));
    };
    let text = |key: &str| -> PyResult<String> {
        let value = dict
            .get_item(key)?
            .ok_or_else(|| invalid(format!("{}: found no {key:?} key, expected source and target", at())))?;
        value.extract().map_err(|_| invalid(format!("{}: found {key} {}, expected a str", at(), repr(&value))))
    };
    let (source, target) = (text("source")?, text("target")?);
    let confidence = match dict.get_item("score")? {
        Some(v) if !v.is_none() => Some(
            v.extract::<f64>()
                .map_err(|_| invalid(format!("{}: found score {}, expected a number", at(), repr(&v))))?,
        ),
        _ => None,
    };
    let relation = match dict.get_item("relation")? {
        Some(v) if !v.is_none() => Some(
            v.extract::<String>()
                .map_err(|_| invalid(format!("{}: found relation {}, expected a str", at(), repr(&v))))?,
        ),
        _ => None,
    };
    Ok(MemoryCell { source, target, relation, confidence })
}

pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned())
}

pub(crate) fn repr(value: &Bound<'_, PyAny>) -> String {
    value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".to_owned())
}
