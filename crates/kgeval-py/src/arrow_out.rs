//! Arrow out: an evaluation's values as an Arrow table `(run, qid, measure, value)` (summary
//! rows under qid `all`), exported through the Arrow PyCapsule interface: any consumer
//! (`pyarrow.table(obj)`, `polars.DataFrame(obj)`, DuckDB) imports it without a copy.

use std::ffi::CString;
use std::sync::Arc;

use kgeval::arrow::arrow_array::ffi_stream::FFI_ArrowArrayStream;
use kgeval::arrow::arrow_array::RecordBatchIterator;
use kgeval::Evaluation;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::errors::to_py;

/// An evaluation's rows, exported on demand through `__arrow_c_stream__` (each call a new
/// stream of one record batch).
#[pyclass(module = "kgeval._kgeval", frozen)]
pub(crate) struct ArrowResults {
    evaluation: Arc<Evaluation>,
    per_query: bool,
}

impl ArrowResults {
    /// The rows of `evaluation`: per-topic ones when `per_query`, and the summary.
    pub(crate) fn new(evaluation: Arc<Evaluation>, per_query: bool) -> Self {
        ArrowResults { evaluation, per_query }
    }
}

#[pymethods]
impl ArrowResults {
    /// The Arrow PyCapsule stream interface: a capsule named `arrow_array_stream` holding a
    /// stream of one batch `(run: utf8, qid: utf8, measure: utf8, value: float64)`.
    /// `requested_schema` is not honoured (the interface allows that): the schema is fixed.
    #[pyo3(signature = (requested_schema=None))]
    #[allow(clippy::needless_pass_by_value)] // PyO3 extracts arguments by value
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batch =
            kgeval::trec::arrow::results_batch(&self.evaluation, self.per_query, true).map_err(|e| to_py(py, &e))?;
        let schema = batch.schema();
        let reader = RecordBatchIterator::new([Ok(batch)], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        let name = CString::new("arrow_array_stream").map_err(|e| crate::errors::invalid(e.to_string()))?;
        // The capsule owns the stream: a consumer moves it out (leaving it released); an
        // unconsumed one is released when the capsule is dropped (FFI_ArrowArrayStream's Drop).
        PyCapsule::new(py, stream, Some(name))
    }
}
