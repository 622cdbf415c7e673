//! `kgeval.kgc.RankAccumulator`: per-answer comparison counts from sharded workers (the
//! facade's `ShardAccumulator`), fed as numpy arrays — counts computed by the user's model, or
//! score blocks kgeval counts on the CPU with rayon — merged, serialised and finalised to the
//! dense path's metrics under every tie policy. Python converts dtypes; the facade checks.

use kgeval::kgc::ShardAccumulator;
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{invalid, to_py};
use crate::kgc_mapped::Scores;

/// A 1-D int64 array (Python converts other integer dtypes).
fn ints<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<PyReadonlyArray1<'py, i64>> {
    value
        .extract::<PyReadonlyArray1<'py, i64>>()
        .map_err(|_| invalid(format!("{what}: expected a 1-D int64 numpy array")))
}

/// The values of a 1-D array (copied only when it is not contiguous).
fn slice_of<'a, T: numpy::Element>(array: &'a PyReadonlyArray1<'_, T>, what: &str) -> PyResult<&'a [T]> {
    array.as_slice().map_err(|e| invalid(format!("{what}: {e}")))
}

/// The native accumulator (see the module's text).
#[pyclass(module = "kgeval._kgeval", name = "KgcRankAccumulator")]
#[derive(Clone, Default)]
pub(crate) struct KgcRankAccumulator(ShardAccumulator);

#[pymethods]
impl KgcRankAccumulator {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Adds counts: `ids`, `greater`, `tied` (and optionally `compared`, `groups`) int64
    /// arrays of one length.
    #[pyo3(signature = (ids, greater, tied, compared=None, groups=None))]
    fn add_counts(
        &mut self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        greater: &Bound<'_, PyAny>,
        tied: &Bound<'_, PyAny>,
        compared: Option<&Bound<'_, PyAny>>,
        groups: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let (ids, greater, tied) = (ints(ids, "question_ids")?, ints(greater, "greater")?, ints(tied, "tied")?);
        let compared = compared.map(|c| ints(c, "compared")).transpose()?;
        let groups = groups.map(|g| ints(g, "groups")).transpose()?;
        let compared = compared.as_ref().map(|c| slice_of(c, "compared")).transpose()?;
        let groups = groups.as_ref().map(|g| slice_of(g, "groups")).transpose()?;
        let (ids, greater, tied) =
            (slice_of(&ids, "question_ids")?, slice_of(&greater, "greater")?, slice_of(&tied, "tied")?);
        let accumulator = &mut self.0;
        py.allow_threads(|| accumulator.add_counts(ids, greater, tied, compared, groups)).map_err(|e| to_py(py, &e))
    }

    /// Adds a score block (2-D float64/32/16, C order): see `kgeval.kgc.RankAccumulator`.
    #[pyo3(signature = (ids, scores, targets, target_scores=None, filter_mask=None, groups=None))]
    #[allow(clippy::too_many_arguments)]
    fn add_scores(
        &mut self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        scores: &Bound<'_, PyAny>,
        targets: &Bound<'_, PyAny>,
        target_scores: Option<&Bound<'_, PyAny>>,
        filter_mask: Option<&Bound<'_, PyAny>>,
        groups: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let (ids, targets) = (ints(ids, "question_ids")?, ints(targets, "targets")?);
        let groups = groups.map(|g| ints(g, "groups")).transpose()?;
        let target_scores = target_scores
            .map(|t| {
                t.extract::<PyReadonlyArray1<'_, f64>>()
                    .map_err(|_| invalid("target_scores: expected a 1-D float64 numpy array"))
            })
            .transpose()?;
        let mask = filter_mask
            .map(|m| {
                m.extract::<PyReadonlyArray2<'_, bool>>()
                    .map_err(|_| invalid("filter_mask: expected a 2-D bool numpy array of the scores' shape"))
            })
            .transpose()?;
        let block = Scores::borrow(scores, "scores")?;
        let rows = block.rows("scores")?;
        let mask = match &mask {
            Some(m) if !m.is_c_contiguous() => {
                return Err(invalid("filter_mask: found a non-C-contiguous array, expected C order"))
            }
            Some(m) => Some(m.as_slice().map_err(|e| invalid(format!("filter_mask: {e}")))?),
            None => None,
        };
        let target_scores = target_scores.as_ref().map(|t| slice_of(t, "target_scores")).transpose()?.unwrap_or(&[]);
        let groups = groups.as_ref().map(|g| slice_of(g, "groups")).transpose()?;
        let (ids, targets) = (slice_of(&ids, "question_ids")?, slice_of(&targets, "targets")?);
        let accumulator = &mut self.0;
        py.allow_threads(|| accumulator.add_scores(ids, rows, targets, target_scores, mask, groups))
            .map_err(|e| to_py(py, &e))
    }

    /// Adds `other`'s answers (in place), summing the counts of answers both hold.
    fn merge(&mut self, py: Python<'_>, other: &KgcRankAccumulator) -> PyResult<()> {
        self.0.merge(&other.0).map_err(|e| to_py(py, &e))
    }

    /// The canonical bytes (versioned layout, docs/ARCHITECTURE.md).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_bytes())
    }

    /// Reads `to_bytes`' layout.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        ShardAccumulator::from_bytes(data).map(KgcRankAccumulator).map_err(|e| to_py(py, &e))
    }

    /// The answers given so far.
    #[getter]
    fn answers(&self) -> usize {
        self.0.answers()
    }

    /// `{policy: {metric: value}}` under every tie policy.
    #[pyo3(signature = (k=None, ir_measures=None))]
    #[allow(clippy::needless_pass_by_value)] // PyO3 extracts arguments by value
    fn finalize<'py>(
        &self,
        py: Python<'py>,
        k: Option<Vec<u32>>,
        ir_measures: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let evaluation = py
            .allow_threads(|| self.0.finalize(k.as_deref().unwrap_or(&[]), ir_measures.as_deref()))
            .map_err(|e| to_py(py, &e))?;
        let out = PyDict::new(py);
        for (policy, summary) in &evaluation.policies {
            let values = PyDict::new(py);
            for (name, value) in summary.values() {
                values.set_item(name, value)?;
            }
            out.set_item(*policy, values)?;
        }
        Ok(out)
    }

    fn __eq__(&self, other: &KgcRankAccumulator) -> bool {
        self.0 == other.0
    }
}
