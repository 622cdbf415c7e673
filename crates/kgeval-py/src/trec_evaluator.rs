//! `TrecEvaluator`: qrels converted once, then any number of runs evaluated against them
//! (what `kgeval.trec.RelevanceEvaluator`, pytrec_eval's interface, stands on).

use std::sync::Arc;

use kgeval::trec::TrecTask;
use kgeval::Input;
use kgeval_model::trec::Qrels;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::arrow_in::{read_qrels_any as read_qrels, read_run_any as read_run};
use crate::errors::{invalid, to_py};
use crate::trec::{evaluate_interned, results, task};
use crate::trec_stream::evaluate_dicts;

/// Qrels held natively (converted once) with the measures and options; `evaluate(run)`
/// converts only the run and returns `{qid: {measure: value}}`.
#[pyclass(module = "kgeval._kgeval", frozen)]
pub(crate) struct TrecEvaluator {
    task: TrecTask,
    qrels: Arc<Qrels>,
    /// trec_eval `-J`: unjudged documents removed from each run first.
    judged_only: bool,
}

#[pymethods]
impl TrecEvaluator {
    /// `qrels`: a path, `{qid: {docid: relevance}}` or columns; `measures` as
    /// `trec_evaluate`'s (`None`: the facade's default). Fails on an unknown measure.
    #[new]
    #[pyo3(signature = (qrels, measures=None, *, level=None, tie_break=None, ties=None, judged_only=false))]
    fn new(
        py: Python<'_>,
        qrels: &Bound<'_, PyAny>,
        measures: Option<Vec<String>>,
        level: Option<i64>,
        tie_break: Option<String>,
        ties: Option<String>,
        judged_only: bool,
    ) -> PyResult<Self> {
        let mut task = task(Input::path("qrels"), measures, level, tie_break, ties)?;
        task.measure_set().map_err(|e| to_py(py, &e))?;
        let path = if let Ok(text) = qrels.downcast::<PyString>() {
            Some(text.to_string())
        } else if qrels.hasattr("__fspath__")? {
            Some(qrels.call_method0("__fspath__")?.extract()?)
        } else {
            None
        };
        let qrels = match path {
            Some(path) => {
                task.qrels = Input::path(&path);
                py.allow_threads(|| task.read_qrels()).map_err(|e| to_py(py, &e))?
            }
            None => read_qrels(qrels, "qrels")?,
        };
        Ok(TrecEvaluator { task, qrels: Arc::new(qrels), judged_only })
    }

    /// The per-topic values of `run` (`{qid: {docid: score}}` or columns):
    /// `{qid: {measure: value}}`. A dict of `str` ids and numeric scores is evaluated while it
    /// is walked (`trec_stream`); anything else is converted first.
    fn evaluate<'py>(&self, py: Python<'py>, run: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let named = [("run".to_owned(), run.clone())];
        let streamed = if self.judged_only {
            None
        } else if crate::arrow_in::is_arrow(run) {
            Some(crate::arrow_in::evaluate_arrow_runs(py, &self.task, &self.qrels, "qrels", &named)?)
        } else {
            evaluate_dicts(py, &self.task, &self.qrels, "qrels", &named)?
        };
        let evaluation = match streamed {
            Some(evaluation) => evaluation,
            None => {
                let mut run = read_run(run, "run")?;
                if self.judged_only {
                    run = run.judged_only(&self.qrels);
                }
                evaluate_interned(py, &self.task, &self.qrels, &[("run".to_owned(), run)])?
            }
        };
        let (_, entry) =
            results(py, &evaluation, true, false)?.pop().ok_or_else(|| invalid("trec: the facade returned no run"))?;
        entry
            .get_item("per_query")?
            .ok_or_else(|| invalid("trec: no per-query values"))?
            .downcast_into::<PyDict>()
            .map_err(PyErr::from)
    }
}
