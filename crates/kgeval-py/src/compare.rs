//! `kgeval.compare`: significance, leaderboards and ranking agreement over score tables given
//! as paths, as the score tables of other families' results ([`Table`]), or as values in
//! memory, run by the facade's `CompareTask`. Also the helpers the qald and lexicon front ends
//! share: an input from a path or bytes, and an evaluation as the CLI's JSON plus its table.

use std::sync::Arc;

use kgeval::compare::{
    CompareTask, Correction, MetaInputFormat, MissingPolicy, NamedTable, SignificanceTest, TauVariant,
};
use kgeval::{Input, NoProgress, OutputFormat, RenderOptions, ScoreTable, SystemInput};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::errors::{invalid, to_py};

/// A family's per-item score table (the facade's `Evaluation.table`): what `kgeval.compare`
/// takes from a result object (its `.table`).
#[pyclass(name = "ScoreTable", module = "kgeval._kgeval", frozen)]
pub(crate) struct Table(pub(crate) Arc<ScoreTable>);

#[pymethods]
impl Table {
    /// The systems, in order.
    #[getter]
    fn systems(&self) -> Vec<String> {
        self.0.systems().map(str::to_owned).collect()
    }

    /// The metrics, in order.
    #[getter]
    fn metrics(&self) -> Vec<String> {
        self.0.metrics().map(str::to_owned).collect()
    }

    /// Every per-item value as `(system, item, metric, value)`.
    fn rows(&self) -> Vec<(String, String, String, f64)> {
        let t = &self.0;
        let systems: Vec<&str> = t.systems().collect();
        let metrics: Vec<&str> = t.metrics().collect();
        let items: Vec<String> = t.items().map(|i| i.name.clone()).collect();
        t.rows()
            .into_iter()
            .map(|(s, i, m, v)| {
                (systems[s.0 as usize].to_owned(), items[i.0 as usize].clone(), metrics[m.0 as usize].to_owned(), v)
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "ScoreTable(systems={:?}, metrics={}, items={})",
            self.systems(),
            self.0.metrics().len(),
            self.0.items().len()
        )
    }
}

/// An input file: a path (`str` or `os.PathLike`), or `bytes` in memory named `name`.
pub(crate) fn input(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Input> {
    if let Ok(text) = value.downcast::<PyString>() {
        return Ok(Input::path(text.to_cow()?.as_ref()));
    }
    if let Ok(bytes) = value.downcast::<PyBytes>() {
        return Ok(Input::from_bytes(name, bytes.as_bytes().to_vec()));
    }
    if value.hasattr("__fspath__")? {
        let path: String = value.call_method0("__fspath__")?.extract()?;
        return Ok(Input::path(path));
    }
    Err(invalid(format!("{name}: found {}, expected a path or bytes", type_name(value))))
}

/// A system: `(name, path or bytes)`; bytes need a name (it names them in errors too).
pub(crate) fn system(name: Option<String>, value: &Bound<'_, PyAny>, suffix: &str) -> PyResult<SystemInput> {
    let label = name.clone().unwrap_or_else(|| "system".to_owned());
    let input = input(value, &format!("{label}{suffix}"))?;
    Ok(match name {
        Some(name) => SystemInput::named(name, input),
        None => SystemInput::new(input),
    })
}

/// The options of the JSON the CLI writes with `--format json` (and `--per-item`).
pub(crate) fn json_options(per_item: bool) -> RenderOptions {
    RenderOptions { version: env!("CARGO_PKG_VERSION").to_owned(), per_item, ..RenderOptions::default() }
}

/// The envelope's warnings as the CLI prints them (`diagnostic (scope)`), one line each.
pub(crate) fn warning_lines(evaluation: &kgeval::Evaluation) -> Vec<String> {
    evaluation.warnings.iter().map(|w| format!("{} ({})", w.diagnostic, w.scope)).collect()
}

/// An evaluation as `(the CLI's JSON text, its score table)`.
pub(crate) fn rendered(evaluation: kgeval::Evaluation, per_item: bool) -> (String, Table) {
    let json = evaluation.render(OutputFormat::Json, &json_options(per_item));
    (json, Table(Arc::new(evaluation.table)))
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned())
}

/// One compare input as given: a path, or a table in memory with its source name.
enum Given {
    Path(SystemInput),
    Memory { name: Option<String>, table: Arc<ScoreTable>, source: String },
}

/// An input `(name, value)`: a path, a [`Table`], or values `{item: {metric: value}}` /
/// `{item: value}` (of the metric `metric`).
fn given(name: Option<String>, value: &Bound<'_, PyAny>, metric: &str, index: usize) -> PyResult<Given> {
    if let Ok(table) = value.downcast::<Table>() {
        let source = name.clone().unwrap_or_else(|| format!("input {}", index + 1));
        return Ok(Given::Memory { name, table: Arc::clone(&table.get().0), source });
    }
    if value.downcast::<PyString>().is_ok() || value.hasattr("__fspath__")? {
        return Ok(Given::Path(system(name, value, "")?));
    }
    let Some(name) = name else {
        return Err(invalid(format!(
            "input {}: found {} without a system name, expected {{name: values}} (or a path, or a result's .table)",
            index + 1,
            type_name(value)
        )));
    };
    let table = values_table(&name, value, metric)?;
    Ok(Given::Memory { source: name.clone(), name: Some(name), table: Arc::new(table) })
}

/// `(key, value)` pairs of a dict or of a mapping with `.items()`.
fn pairs<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    if let Ok(dict) = value.downcast::<PyDict>() {
        return Ok(dict.iter().collect());
    }
    if !value.hasattr("items")? {
        return Err(invalid(format!(
            "{what}: found {}, expected a mapping {{item: value}} or {{item: {{metric: value}}}}",
            type_name(value)
        )));
    }
    value.call_method0("items")?.try_iter()?.map(|item| item?.extract()).collect()
}

/// A key as text (ints as their decimal text).
fn key(value: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(text) = value.downcast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    if let Ok(number) = value.extract::<i64>() {
        return Ok(number.to_string());
    }
    Err(invalid(format!("{what}: found a key of type {}, expected str", type_name(value))))
}

/// One system's table from `{item: {metric: value}}` or `{item: value}`.
fn values_table(system: &str, value: &Bound<'_, PyAny>, metric: &str) -> PyResult<ScoreTable> {
    let mut table = ScoreTable::new();
    let s = table.system(system);
    let number = |v: &Bound<'_, PyAny>, at: &dyn Fn() -> String| -> PyResult<f64> {
        v.extract::<f64>().map_err(|_| {
            let repr = v.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".to_owned());
            invalid(format!("{}: found {repr}, expected a number", at()))
        })
    };
    for (item, v) in pairs(value, system)? {
        let item = key(&item, system)?;
        let i = table.item(&item, &[]);
        if v.extract::<f64>().is_ok() || !v.hasattr("items")? {
            let x = number(&v, &|| format!("{system}[{item:?}]"))?;
            let m = table.metric(metric);
            table.set(s, i, m, x);
            continue;
        }
        for (name, x) in pairs(&v, &format!("{system}[{item:?}]"))? {
            let name = key(&name, &format!("{system}[{item:?}]"))?;
            let x = number(&x, &|| format!("{system}[{item:?}][{name:?}]"))?;
            let m = table.metric(&name);
            table.set(s, i, m, x);
        }
    }
    Ok(table)
}

/// The options of a comparison, by name as the CLI spells them.
#[allow(clippy::too_many_arguments)]
fn options(
    task: &mut CompareTask,
    test: Option<&str>,
    correction: Option<&str>,
    tau: Option<&str>,
    missing: Option<&str>,
    input_format: Option<&str>,
) -> PyResult<()> {
    fn pick<T>(name: Option<&str>, what: &str, expected: &str, from: fn(&str) -> Option<T>) -> PyResult<Option<T>> {
        name.map(|n| from(n).ok_or_else(|| invalid(format!("{what}: found {n:?}, expected {expected}")))).transpose()
    }
    if let Some(t) = pick(test, "test", "t, wilcoxon, bootstrap, fisher or tukey", SignificanceTest::from_name)? {
        task.test = t;
    }
    if let Some(c) = pick(correction, "correction", "holm, bonferroni or none", Correction::from_name)? {
        task.correction = c;
    }
    if let Some(t) = pick(tau, "tau", "a, b or c", TauVariant::from_name)? {
        task.tau = t;
    }
    if let Some(m) = pick(missing, "missing", "error, zero or drop", MissingPolicy::from_name)? {
        task.missing = m;
    }
    let formats = "per-item-json, trec-eval, long-csv or wide-csv";
    task.input_format = pick(input_format, "input_format", formats, MetaInputFormat::from_name)?.or(task.input_format);
    Ok(())
}

/// Compares the systems of `inputs` (a list of `(name or None, value)`: paths, [`Table`]s or
/// values `{item: {metric: value}}` / `{item: value}` of the metric `metric`), or of `runs`
/// evaluated against `qrels` (paths); with `against`, the ranking agreement of the two sides;
/// with `sensitivity`, the data sensitivity of the ordering (`ratios`, `repeats`, `subsets`).
/// Options left `None` take the facade's defaults. Returns `kgeval compare`'s JSON and text,
/// and the campaign's LaTeX rendering of the comparison.
#[pyfunction]
#[pyo3(signature = (inputs, against, *, metrics=None, metric="score", test=None, correction=None, alpha=None, iterations=None, seed=None, intervals=None, tau=None, rbo_p=None, missing=None, input_format=None, qrels=None, runs=None, sensitivity=None, ratios=None, repeats=None, subsets=None))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
pub(crate) fn compare(
    py: Python<'_>,
    inputs: Vec<(Option<String>, Bound<'_, PyAny>)>,
    against: Vec<(Option<String>, Bound<'_, PyAny>)>,
    metrics: Option<Vec<String>>,
    metric: &str,
    test: Option<String>,
    correction: Option<String>,
    alpha: Option<f64>,
    iterations: Option<usize>,
    seed: Option<u64>,
    intervals: Option<bool>,
    tau: Option<String>,
    rbo_p: Option<f64>,
    missing: Option<String>,
    input_format: Option<String>,
    qrels: Option<Bound<'_, PyAny>>,
    runs: Option<Vec<(Option<String>, Bound<'_, PyAny>)>>,
    sensitivity: Option<bool>,
    ratios: Option<Vec<f64>>,
    repeats: Option<usize>,
    subsets: Option<Bound<'_, PyAny>>,
) -> PyResult<(String, String, String)> {
    let mut task = CompareTask::new();
    options(
        &mut task,
        test.as_deref(),
        correction.as_deref(),
        tau.as_deref(),
        missing.as_deref(),
        input_format.as_deref(),
    )?;
    task.metrics = metrics.unwrap_or_default();
    task.alpha = alpha.unwrap_or(task.alpha);
    task.iterations = iterations.or(task.iterations);
    task.seed = seed.unwrap_or(task.seed);
    task.intervals = intervals.unwrap_or(task.intervals);
    task.rbo_p = rbo_p.unwrap_or(task.rbo_p);
    task.sensitivity = sensitivity.unwrap_or(task.sensitivity);
    task.ratios = ratios.unwrap_or(task.ratios);
    task.repeats = repeats.unwrap_or(task.repeats);
    task.subsets = subsets.map(|s| input(&s, "subsets.txt")).transpose()?.or(task.subsets);
    if let Some(qrels) = qrels {
        task.qrels = Some(input(&qrels, "qrels")?);
        for (name, run) in runs.unwrap_or_default() {
            task.runs.push(system(name, &run, "")?);
        }
    }
    let (left, right) = (side(&inputs, metric)?, side(&against, metric)?);
    let all_paths = left.iter().chain(&right).all(|g| matches!(g, Given::Path(_)));
    let evaluation = if all_paths {
        let paths = |side: Vec<Given>| {
            side.into_iter().filter_map(|g| if let Given::Path(s) = g { Some(s) } else { None }).collect()
        };
        task.inputs = paths(left);
        task.against = paths(right);
        py.allow_threads(|| task.run(&NoProgress))
    } else {
        if left.iter().chain(&right).any(|g| matches!(g, Given::Path(_))) {
            return Err(invalid(
                "compare: found paths beside tables in memory, expected all inputs as paths or all in memory",
            ));
        }
        if task.qrels.is_some() {
            return Err(invalid("compare: found tables in memory and qrels, expected one of them"));
        }
        let (left, right) = (in_memory(left), in_memory(right));
        py.allow_threads(|| task.run_on_tables(&view(&left), &view(&right), &NoProgress))
    }
    .map_err(|e| to_py(py, &e))?;
    let text = evaluation.render(OutputFormat::Text, &json_options(false));
    let latex = evaluation.render_latex("compare");
    Ok((evaluation.render(OutputFormat::Json, &json_options(false)), text, latex))
}

/// The inputs of one side as read from Python.
fn side(inputs: &[(Option<String>, Bound<'_, PyAny>)], metric: &str) -> PyResult<Vec<Given>> {
    inputs.iter().enumerate().map(|(i, (name, value))| given(name.clone(), value, metric, i)).collect()
}

/// A side's tables in memory: `(name, table, source)`.
type Owned = (Option<String>, Arc<ScoreTable>, String);

fn in_memory(side: Vec<Given>) -> Vec<Owned> {
    side.into_iter()
        .filter_map(|g| match g {
            Given::Memory { name, table, source } => Some((name, table, source)),
            Given::Path(_) => None,
        })
        .collect()
}

fn view(side: &[Owned]) -> Vec<NamedTable<'_>> {
    side.iter().map(|(name, table, source)| NamedTable { name: name.as_deref(), table, source }).collect()
}
