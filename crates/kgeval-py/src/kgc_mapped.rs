//! `kgeval.kgc.evaluate(test=…, head_scores=…, tail_scores=…)`: KGC the PyKEEN way, in
//! memory ([`kgeval::kgc::MappedKgc`]): numpy id triples and score blocks borrowed without a
//! copy, every rank type from one ranking. Python converts; the facade checks and evaluates.

use half::f16;
use kgeval::kgc::{IdRows, MappedKgc, ScoreRows, ScoreValues};
use kgeval_model::ranking::{NanPolicy, Tolerance};
use numpy::{PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::{invalid, to_py};

/// The options as Python gives them; `None` takes the facade's default.
#[derive(FromPyObject, Default)]
#[pyo3(from_item_all)]
pub(crate) struct MappedOptions {
    num_entities: Option<usize>,
    num_relations: Option<usize>,
    entity_labels: Option<Vec<String>>,
    relation_labels: Option<Vec<String>>,
    k: Option<Vec<u32>>,
    nan: Option<String>,
    tie_tolerance: Option<String>,
    name: Option<String>,
}

impl MappedOptions {
    fn kgc(&self) -> PyResult<MappedKgc> {
        let count = |labels: &Option<Vec<String>>, count: Option<usize>, what: &str, names: &str| match (
            labels.as_ref().map(Vec::len),
            count,
        ) {
            (Some(n), Some(c)) if n != c => {
                Err(invalid(format!("{what}: found {c}, expected {n} (the length of {names})")))
            }
            (Some(n), _) | (None, Some(n)) => Ok(n),
            (None, None) => Err(invalid(format!("{what}: found None, expected a count (or {names})"))),
        };
        let entities = count(&self.entity_labels, self.num_entities, "num_entities", "entity_labels")?;
        let relations = count(&self.relation_labels, self.num_relations, "num_relations", "relation_labels")?;
        let mut kgc = MappedKgc::with_counts(entities, relations);
        if let Some(labels) = &self.entity_labels {
            kgc.entities.clone_from(labels);
        }
        if let Some(labels) = &self.relation_labels {
            kgc.relations.clone_from(labels);
        }
        if let Some(k) = &self.k {
            kgc.k.clone_from(k);
        }
        if let Some(name) = &self.nan {
            kgc.nan = NanPolicy::from_name(name)
                .ok_or_else(|| invalid(format!("nan: found {name:?}, expected error or worst")))?;
        }
        if let Some(spec) = &self.tie_tolerance {
            kgc.tie_tolerance = Some(Tolerance::parse(spec).ok_or_else(|| {
                invalid(format!("tie_tolerance: found {spec:?}, expected `atol,rtol`, two finite numbers ≥ 0"))
            })?);
        }
        if let Some(name) = &self.name {
            kgc.name.clone_from(name);
        }
        Ok(kgc)
    }
}

/// A 2-D score block borrowed from numpy.
pub(crate) enum Scores<'py> {
    F64(PyReadonlyArray2<'py, f64>),
    F32(PyReadonlyArray2<'py, f32>),
    F16(PyReadonlyArray2<'py, f16>),
}

impl<'py> Scores<'py> {
    /// Borrows `block` (`what` names it): a C-contiguous 2-D float64, float32 or float16 array.
    pub(crate) fn borrow(block: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        let type_name = || block.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        let untyped = block.downcast::<PyUntypedArray>().map_err(|_| {
            invalid(format!("{what}: found {}, expected a 2-D numpy array of float64, float32 or float16", type_name()))
        })?;
        if untyped.ndim() != 2 {
            return Err(invalid(format!(
                "{what}: found a {}-D array of shape {:?}, expected a 2-D array (one row per test triple, one column per entity)",
                untyped.ndim(),
                untyped.shape()
            )));
        }
        let scores = if let Ok(a) = block.extract::<PyReadonlyArray2<'py, f64>>() {
            Scores::F64(a)
        } else if let Ok(a) = block.extract::<PyReadonlyArray2<'py, f32>>() {
            Scores::F32(a)
        } else if let Ok(a) = block.extract::<PyReadonlyArray2<'py, f16>>() {
            Scores::F16(a)
        } else {
            let dtype = untyped.getattr("dtype").map(|d| d.to_string()).unwrap_or_default();
            return Err(invalid(format!(
                "{what}: found dtype {dtype}, expected float64, float32 or float16 in native byte order"
            )));
        };
        Ok(scores)
    }

    /// The rows, borrowed.
    pub(crate) fn rows(&self, what: &str) -> PyResult<ScoreRows<'_>> {
        let contiguous = |c: bool| {
            if c {
                Ok(())
            } else {
                Err(invalid(format!("{what}: found a non-C-contiguous array, expected C order")))
            }
        };
        let slice = |e: numpy::NotContiguousError| invalid(format!("{what}: {e}"));
        let (values, columns) = match self {
            Scores::F64(a) => {
                contiguous(a.is_c_contiguous())?;
                (ScoreValues::F64(a.as_slice().map_err(slice)?), a.shape()[1])
            }
            Scores::F32(a) => {
                contiguous(a.is_c_contiguous())?;
                (ScoreValues::F32(a.as_slice().map_err(slice)?), a.shape()[1])
            }
            Scores::F16(a) => {
                contiguous(a.is_c_contiguous())?;
                (ScoreValues::F16(a.as_slice().map_err(slice)?), a.shape()[1])
            }
        };
        ScoreRows::new(values, columns).map_err(|e| invalid(format!("{what}: {e}")))
    }
}

/// An id block: a C-contiguous 2-D int64 array (Python converts other integer types).
fn ids<'py>(block: &Bound<'py, PyAny>, what: &str) -> PyResult<PyReadonlyArray2<'py, i64>> {
    let array = block.extract::<PyReadonlyArray2<'py, i64>>().map_err(|_| {
        invalid(format!("{what}: expected a 2-D int64 numpy array of shape (n, 3) (head, relation, tail ids)"))
    })?;
    if !array.is_c_contiguous() {
        return Err(invalid(format!("{what}: found a non-C-contiguous array, expected C order")));
    }
    Ok(array)
}

/// PyKEEN's flat metrics of every rank type, and `kgeval kgc --format json` of each rank
/// type's evaluation, `(rank_type, json)`.
type MappedOutput = (Vec<(String, f64)>, Vec<(String, String)>);

/// Evaluates mapped triples with head and tail score blocks (see the module's text).
#[pyfunction]
#[pyo3(signature = (test, filters, head_scores, tail_scores, options))]
#[allow(clippy::needless_pass_by_value)] // PyO3 extracts arguments by value
pub(crate) fn kgc_mapped(
    py: Python<'_>,
    test: &Bound<'_, PyAny>,
    filters: Vec<Bound<'_, PyAny>>,
    head_scores: &Bound<'_, PyAny>,
    tail_scores: &Bound<'_, PyAny>,
    options: MappedOptions,
) -> PyResult<MappedOutput> {
    let kgc = options.kgc()?;
    let test_ids = ids(test, "test")?;
    let filter_names: Vec<String> = (0..filters.len()).map(|i| format!("filters[{i}]")).collect();
    let filter_ids = filters.iter().zip(&filter_names).map(|(f, name)| ids(f, name)).collect::<PyResult<Vec<_>>>()?;
    let head = Scores::borrow(head_scores, "head_scores")?;
    let tail = Scores::borrow(tail_scores, "tail_scores")?;
    let (head_rows, tail_rows) = (head.rows("head_scores")?, tail.rows("tail_scores")?);
    let test_shape = test_ids.shape().to_vec();
    let test_slice = test_ids.as_slice().map_err(|e| invalid(format!("test: {e}")))?;
    let mut filter_blocks = Vec::with_capacity(filter_ids.len());
    for (array, name) in filter_ids.iter().zip(&filter_names) {
        let shape = array.shape();
        let slice = array.as_slice().map_err(|e| invalid(format!("{name}: {e}")))?;
        filter_blocks.push(IdRows { name, ids: slice, shape: (shape[0], shape[1]) });
    }
    let test_rows = IdRows { name: "test", ids: test_slice, shape: (test_shape[0], test_shape[1]) };
    let evaluation = py
        .allow_threads(|| kgc.evaluate(test_rows, &filter_blocks, head_rows, tail_rows))
        .map_err(|e| to_py(py, &e))?;
    let flat = evaluation.pykeen_flat();
    let documents = evaluation
        .evaluations
        .into_iter()
        .map(|(rank_type, e)| (rank_type.to_owned(), crate::compare::rendered(e, false).0))
        .collect();
    Ok((flat, documents))
}
