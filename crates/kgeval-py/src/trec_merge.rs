//! `kgeval.trec.accumulate`: one partition of a run evaluated to its per-query values and a
//! mergeable summary accumulator (the facade's `RunAccumulator`); accumulators merge, travel
//! as bytes and finalise to `evaluate`'s summary and trec_eval's text.

use kgeval::trec::{RunAccumulator, RunPartition, TrecTask};
use kgeval::{Evaluation, FamilyResult, Input, OutputFormat, RenderOptions};
use kgeval_model::trec::{MeasureFamily, Qrels, TopicScores};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use kgeval::arrow::arrow_array::RecordBatchReader;
use kgeval::arrow::RunColumns;
use kgeval::trec::{read_partition_qrels, read_partition_run, InternedRun};

use crate::arrow_in::{import_stream, is_arrow};
use crate::errors::{invalid, to_py};
use crate::trec_convert;

/// Qrels as given: a path (read by the facade), a dict / columns or an Arrow object, which
/// may hold no row (a partition whose topics are judged nowhere: the facade's
/// [`read_partition_qrels`]).
fn qrels_of(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Qrels> {
    if let Some(path) = path_of(value)? {
        return py.allow_threads(|| TrecTask::new(Input::path(&path)).read_qrels()).map_err(|e| to_py(py, &e));
    }
    if is_arrow(value) {
        let reader = import_stream(value, "qrels")?;
        let schema = reader.schema();
        return py.allow_threads(|| read_partition_qrels(&schema, reader, "qrels")).map_err(|e| to_py(py, &e));
    }
    trec_convert::read_qrels(value, "qrels")
}

/// A partition's run lines from a dict / columns or an Arrow object, which may hold no row (a
/// partition of topics only the qrels judge: the facade's [`read_partition_run`]).
fn partition_run_of(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<InternedRun> {
    if is_arrow(value) {
        let reader = import_stream(value, "run")?;
        let columns = RunColumns::resolve(&reader.schema(), "run").map_err(|e| to_py(py, &e.into()))?;
        return py.allow_threads(|| read_partition_run(&columns, reader, "run")).map_err(|e| to_py(py, &e));
    }
    trec_convert::read_run(value, "run")
}

/// The path of a `str` or `os.PathLike`, `None` for anything else.
fn path_of(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if let Ok(text) = value.downcast::<PyString>() {
        return Ok(Some(text.to_cow()?.into_owned()));
    }
    if value.hasattr("__fspath__")? {
        return Ok(Some(value.call_method0("__fspath__")?.extract()?));
    }
    Ok(None)
}

/// A run's summary state over the partitions merged into it.
#[pyclass(module = "kgeval._kgeval", name = "TrecAccumulator")]
#[derive(Clone)]
pub(crate) struct TrecAccumulator(RunAccumulator);

#[pymethods]
impl TrecAccumulator {
    /// Adds `other`'s partitions (in place). Raises `kgeval.InvalidInput` for a topic in both
    /// or other measures or options (nothing merged then).
    fn merge(&mut self, py: Python<'_>, other: &TrecAccumulator) -> PyResult<()> {
        self.0.merge(&other.0).map_err(|e| to_py(py, &e.into()))
    }

    /// The canonical bytes (versioned layout, docs/ARCHITECTURE.md).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_bytes())
    }

    /// Reads `to_bytes`' layout.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        RunAccumulator::from_bytes(data).map(TrecAccumulator).map_err(|e| to_py(py, &e.into()))
    }

    /// The evaluated topics (qrels topics of the run) merged so far.
    #[getter]
    fn topics(&self) -> usize {
        self.0.topics()
    }

    /// Whether finalisation adds the qrels topics missing from every partition (`-c`, as the
    /// facade decided when the partitions were evaluated).
    #[getter]
    fn complete(&self) -> bool {
        self.0.options().query_set == kgeval_model::trec::QuerySet::Complete
    }

    /// The measures asked for, as given.
    #[getter]
    fn measures(&self) -> Vec<String> {
        self.0.spec().to_vec()
    }

    /// `({measure: value}, trec_eval's text)` of the merged partitions; `qrels` (a path, a
    /// dict or columns) are needed under `complete=True`.
    #[pyo3(signature = (qrels=None))]
    fn finalize<'py>(
        &self,
        py: Python<'py>,
        qrels: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyDict>, String)> {
        let qrels = qrels.map(|q| qrels_of(py, q)).transpose()?;
        let task = TrecTask::for_accumulator(&self.0, Input::path("qrels"));
        let accumulator = self.0.clone();
        let evaluation = py
            .allow_threads(|| {
                task.finalize_accumulators(qrels.as_ref(), "qrels", vec![("run".to_owned(), accumulator)])
            })
            .map_err(|e| to_py(py, &e))?;
        let text = evaluation.render(OutputFormat::Text, &RenderOptions::default());
        Ok((summary(py, &evaluation)?, text))
    }

    /// `{qid: {measure: value}}` of the qrels topics that finalisation adds under
    /// `complete=True` (those no merged partition holds, scored as the facade scores a judged
    /// topic without a run line); `{}` without `complete`.
    fn absent_topics<'py>(&self, py: Python<'py>, qrels: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let qrels = qrels_of(py, qrels)?;
        let task = TrecTask::for_accumulator(&self.0, Input::path("qrels"));
        let topics = py.allow_threads(|| task.absent_topics(&qrels, &self.0)).map_err(|e| to_py(py, &e))?;
        topic_rows(py, &task, &topics)
    }

    fn __eq__(&self, other: &TrecAccumulator) -> bool {
        self.0 == other.0
    }
}

/// `{qid: {measure: value}}` of `topics` (the per-topic measures of `task`, `runid` left out).
fn topic_rows<'py>(py: Python<'py>, task: &TrecTask, topics: &[TopicScores]) -> PyResult<Bound<'py, PyDict>> {
    let measures = task.measure_set().map_err(|e| to_py(py, &e))?;
    let names: Vec<(usize, Bound<'py, PyString>)> = measures
        .measures()
        .iter()
        .enumerate()
        .filter(|(_, m)| m.family.per_topic() && m.family != MeasureFamily::Runid)
        .map(|(i, m)| (i, PyString::new(py, &m.name)))
        .collect();
    let out = PyDict::new(py);
    for topic in topics {
        let values = PyDict::new(py);
        for (i, name) in &names {
            values.set_item(name, topic.values[*i])?;
        }
        out.set_item(&topic.qid, values)?;
    }
    Ok(out)
}

/// `{measure: value}` of the first run (`runid` left out, as `evaluate` does).
fn summary<'py>(py: Python<'py>, evaluation: &Evaluation) -> PyResult<Bound<'py, PyDict>> {
    let FamilyResult::Trec(result) = &evaluation.result else {
        return Err(invalid("trec: the facade returned another family's result"));
    };
    let out = PyDict::new(py);
    if let Some(run) = result.runs.first() {
        for (measure, value) in result.measures.measures().iter().zip(&run.summary) {
            if measure.family != MeasureFamily::Runid {
                out.set_item(&measure.name, value)?;
            }
        }
    }
    Ok(out)
}

/// Evaluates one partition of a run: `(per_query, accumulator)`, `per_query` being
/// `{qid: {measure: value}}` of the partition's judged topics (`None` unless asked for);
/// `keep_topics`: `False` makes the accumulator compact (exact sums only); by default it keeps
/// every topic's values, as the facade's accumulators do (the one-machine summary, byte for
/// byte, at a value per topic and measure).
#[pyfunction]
#[pyo3(signature = (qrels, run, measures=None, *, complete=None, level=None, ndcg_level=None, max_docs=None, tie_break=None, ties=None, per_query=false, keep_topics=None))]
#[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
pub(crate) fn trec_accumulate<'py>(
    py: Python<'py>,
    qrels: &Bound<'py, PyAny>,
    run: &Bound<'py, PyAny>,
    measures: Option<Vec<String>>,
    complete: Option<bool>,
    level: Option<i64>,
    ndcg_level: Option<bool>,
    max_docs: Option<usize>,
    tie_break: Option<String>,
    ties: Option<String>,
    per_query: bool,
    keep_topics: Option<bool>,
) -> PyResult<(Option<Bound<'py, PyDict>>, TrecAccumulator)> {
    let mut task = crate::trec::task(Input::path("qrels"), measures, level, tie_break, ties)?;
    task.complete = complete.unwrap_or(task.complete);
    task.ndcg_level = ndcg_level.unwrap_or(task.ndcg_level);
    task.max_docs = max_docs.or(task.max_docs);
    task.measure_set().map_err(|e| to_py(py, &e))?;
    let qrels = qrels_of(py, qrels)?;
    let mut partition: RunPartition = match path_of(run)? {
        Some(path) => py.allow_threads(|| task.accumulate_file(&qrels, &Input::path(&path))),
        None => {
            let run = partition_run_of(py, run)?;
            py.allow_threads(|| task.accumulate_interned(&qrels, &run))
        }
    }
    .map_err(|e| to_py(py, &e))?;
    let rows = if per_query { Some(topic_rows(py, &task, &partition.evaluation.topics)?) } else { None };
    if keep_topics == Some(false) {
        partition.accumulator.forget_topics();
    }
    Ok((rows, TrecAccumulator(partition.accumulator)))
}
