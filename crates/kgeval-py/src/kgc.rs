//! `kgeval.kgc`: knowledge-graph completion over a score matrix borrowed from numpy without a
//! copy (`KgcTask::run_scores`, or block by block through `ScoreEvaluator`), or over the
//! files `kgeval kgc` reads (`KgcTask::run`). Returns `kgeval kgc --json`'s text; the Python
//! package adds PyKEEN's names.

use half::f16;
use kgeval::kgc::{KgcTask, RelationWeights, ScoreEvaluator, ScoreRows, ScoreValues};
use kgeval::{Evaluation, Input, NoProgress, SystemInput};
use kgeval_model::ranking::{NanPolicy, Tolerance};
use numpy::{PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::compare::Table;
use crate::errors::{invalid, to_py};

/// The task's inputs and options as Python gives them; `None` takes the facade's default.
#[derive(FromPyObject, Default)]
#[pyo3(from_item_all)]
pub(crate) struct Options {
    test: String,
    filters: Option<Vec<String>>,
    entities: Option<String>,
    questions: Option<String>,
    ranks: Option<String>,
    run: Option<String>,
    queries: Option<String>,
    name: Option<String>,
    ties: Option<String>,
    tie_tolerance: Option<String>,
    nan: Option<String>,
    k: Option<Vec<u32>>,
    relation_weights: Option<String>,
    categories_from: Option<Vec<String>>,
    category_threshold: Option<f64>,
    category_inclusive: Option<bool>,
    judgments: Option<String>,
    pool_depths: Option<String>,
    max_depth: Option<u32>,
    ir_measures: Option<Vec<String>>,
    per_item: Option<bool>,
}

impl Options {
    /// The task; `scores` is the `.npy` path when the matrix is a file, else only its name.
    fn task(&self, scores: Option<&str>) -> PyResult<KgcTask> {
        let path = |p: &String| Input::path(p.as_str());
        let mut task = KgcTask::new(path(&self.test));
        task.filters = self.filters.iter().flatten().map(path).collect();
        task.entities = self.entities.as_ref().map(path);
        task.questions = self.questions.as_ref().map(path);
        task.queries = self.queries.as_ref().map(path);
        let system = |file: &String| match &self.name {
            Some(name) => SystemInput::named(name.clone(), path(file)),
            None => SystemInput::new(path(file)),
        };
        task.ranks = self.ranks.iter().map(system).collect();
        task.run = self.run.iter().map(system).collect();
        task.scores = match (scores, &self.name) {
            (Some(file), _) => vec![system(&file.to_owned())],
            (None, Some(name)) => vec![SystemInput::named(name.clone(), Input::path(KgcTask::MEMORY_SCORES))],
            (None, None) => Vec::new(),
        };
        if let Some(name) = &self.ties {
            task.ties = KgcTask::tie_policy(name).ok_or_else(|| {
                invalid(format!("ties: found {name:?}, expected optimistic, pessimistic, realistic or rounded-mean"))
            })?;
        }
        if let Some(spec) = &self.tie_tolerance {
            task.tie_tolerance = Some(Tolerance::parse(spec).ok_or_else(|| {
                invalid(format!("tie_tolerance: found {spec:?}, expected `atol,rtol`, two finite numbers ≥ 0"))
            })?);
        }
        if let Some(name) = &self.nan {
            task.nan = NanPolicy::from_name(name)
                .ok_or_else(|| invalid(format!("nan: found {name:?}, expected error or worst")))?;
        }
        if let Some(k) = &self.k {
            task.k.clone_from(k);
        }
        task.relation_weights = self.relation_weights.as_deref().map(RelationWeights::parse);
        task.categories_from = self.categories_from.iter().flatten().map(path).collect();
        task.category_threshold = self.category_threshold.unwrap_or(task.category_threshold);
        task.category_inclusive = self.category_inclusive.unwrap_or(task.category_inclusive);
        task.judgments = self.judgments.as_ref().map(path);
        task.pool_depths = self.pool_depths.as_ref().map(path);
        task.max_depth = self.max_depth.or(task.max_depth);
        if let Some(measures) = &self.ir_measures {
            task.ir_measures.clone_from(measures);
        }
        task.per_item = self.per_item.unwrap_or(task.per_item);
        Ok(task)
    }
}

/// `kgeval kgc --format json` of an evaluation (with `--per-item` when the task asked) and its
/// per-item score table, for `kgeval.compare`.
fn json(evaluation: Evaluation, per_item: bool) -> (String, Table) {
    crate::compare::rendered(evaluation, per_item)
}

/// A numpy array's rows, borrowed, and what the facade needs to rank them (GIL released).
fn with_rows<T>(
    py: Python<'_>,
    block: &Bound<'_, PyAny>,
    what: &str,
    run: impl FnOnce(ScoreRows<'_>) -> Result<T, kgeval::Error> + Send,
) -> PyResult<T>
where
    T: Send,
{
    let untyped = block.downcast::<PyUntypedArray>().map_err(|_| {
        invalid(format!(
            "{what}: found {}, expected a 2-D numpy array of float64, float32 or float16",
            block.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    let shape = untyped.shape().to_vec();
    if shape.len() != 2 {
        return Err(invalid(format!(
            "{what}: found a {}-D array of shape {shape:?}, expected a 2-D array (one row per question, one column per entity)",
            shape.len()
        )));
    }
    let columns = shape[1];
    let dtype = untyped.getattr("dtype")?;
    let layout = |contiguous: bool| {
        if contiguous {
            Ok(())
        } else {
            Err(invalid(format!(
                "{what}: found a non-C-contiguous array (Fortran order or a strided view), expected C order (numpy.ascontiguousarray copies it)"
            )))
        }
    };
    macro_rules! rows {
        ($t:ty, $variant:ident) => {
            if let Ok(array) = block.downcast::<PyArray2<$t>>() {
                let readonly = array.try_readonly().map_err(|e| invalid(format!("{what}: {e}")))?;
                layout(readonly.is_c_contiguous())?;
                let values = readonly.as_slice().map_err(|e| invalid(format!("{what}: {e}")))?;
                let rows = ScoreRows::new(ScoreValues::$variant(values), columns).map_err(|e| to_py(py, &e))?;
                return py.allow_threads(|| run(rows)).map_err(|e| to_py(py, &e));
            }
        };
    }
    rows!(f32, F32);
    rows!(f64, F64);
    rows!(f16, F16);
    Err(invalid(format!(
        "{what}: found dtype {} ({}), expected float64, float32 or float16 in native byte order",
        attribute(&dtype, "str"),
        attribute(&dtype, "name"),
    )))
}

/// `value.name` as text (empty when it has none), for messages.
fn attribute(value: &Bound<'_, PyAny>, name: &str) -> String {
    value.getattr(name).map(|v| v.to_string()).unwrap_or_default()
}

/// Evaluates `scores` (a 2-D numpy array, borrowed; or the path of a `.npy` file; or `None`
/// with `ranks` or `run` among the options) and returns `kgeval kgc --json`'s text and the
/// per-item score table.
#[pyfunction]
#[pyo3(signature = (scores, options))]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts arguments by value
pub(crate) fn kgc_evaluate(py: Python<'_>, scores: &Bound<'_, PyAny>, options: Options) -> PyResult<(String, Table)> {
    let path = match scores.downcast::<PyString>() {
        Ok(path) => Some(path.to_cow()?.into_owned()),
        Err(_) => None,
    };
    let task = options.task(path.as_deref())?;
    if scores.is_none() || path.is_some() {
        return py.allow_threads(|| task.run(&NoProgress)).map(|e| json(e, task.per_item)).map_err(|e| to_py(py, &e));
    }
    with_rows(py, scores, "scores", |rows| task.run_scores(rows, &NoProgress)).map(|e| json(e, task.per_item))
}

/// A KGC evaluation fed a score matrix block by block (`kgeval.kgc.Evaluator`).
#[pyclass(module = "kgeval._kgeval", name = "KgcEvaluator")]
pub(crate) struct KgcEvaluator {
    inner: Option<ScoreEvaluator>,
    per_item: bool,
}

impl KgcEvaluator {
    fn inner(&mut self) -> PyResult<&mut ScoreEvaluator> {
        self.inner.as_mut().ok_or_else(|| invalid("evaluator: found it finalized, expected a new Evaluator"))
    }
}

#[pymethods]
impl KgcEvaluator {
    /// Reads the splits, filters and question list once.
    #[new]
    #[allow(clippy::needless_pass_by_value)] // PyO3 extracts arguments by value
    fn new(py: Python<'_>, options: Options) -> PyResult<Self> {
        let task = options.task(None)?;
        let inner = py.allow_threads(|| task.score_evaluator()).map_err(|e| to_py(py, &e))?;
        Ok(KgcEvaluator { inner: Some(inner), per_item: task.per_item })
    }

    /// Ranks the rows `first_row .. first_row + len(block)` of a 2-D numpy array, borrowed.
    fn add_batch(&mut self, py: Python<'_>, first_row: usize, block: &Bound<'_, PyAny>) -> PyResult<()> {
        let inner = self.inner()?;
        with_rows(py, block, "block", |rows| inner.add_batch(first_row, rows))
    }

    /// Evaluates every row given; `kgeval kgc --json`'s text and the per-item score table.
    fn finalize(&mut self, py: Python<'_>) -> PyResult<(String, Table)> {
        let inner =
            self.inner.take().ok_or_else(|| invalid("evaluator: found it finalized, expected a new Evaluator"))?;
        py.allow_threads(|| inner.finalize()).map(|e| json(e, self.per_item)).map_err(|e| to_py(py, &e))
    }

    /// The number of rows of the matrix (lines of the question list).
    #[getter]
    fn rows(&mut self) -> PyResult<usize> {
        Ok(self.inner()?.rows())
    }

    /// The number of columns of the matrix (entities of the entity list).
    #[getter]
    fn columns(&mut self) -> PyResult<usize> {
        Ok(self.inner()?.columns())
    }

    /// The number of rows given so far.
    #[getter]
    fn given_rows(&mut self) -> PyResult<usize> {
        Ok(self.inner()?.given_rows())
    }
}
