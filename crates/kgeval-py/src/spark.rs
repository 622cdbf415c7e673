//! What `kgeval.spark` asks the native module before it plans a Spark job: which columns of
//! a run (or qrels) DataFrame are its query id, document id and score (relevance). The names
//! are those the Arrow reader resolves (`kgeval::arrow::RunColumns` / `QrelsColumns`, the
//! facade's lists), so the column a job repartitions (or filters) by is the one each
//! partition's evaluation reads as the query id.

use std::sync::Arc;

use kgeval::arrow::arrow_schema::{DataType, Field, Schema};
use kgeval::arrow::{QrelsColumns, RunColumns};
use pyo3::prelude::*;

use crate::errors::{invalid, to_py};

/// The names of the query id, document id and score (`kind="run"`) or relevance
/// (`kind="qrels"`) columns among `columns` (the column names, in order), as the Arrow reader
/// picks them; `what` names the input in errors.
///
/// # Errors
/// `kgeval.ParseError` naming the role whose column is missing and the columns found (the
/// message an Arrow input without that column gets); `kgeval.InvalidInput` for another kind.
#[pyfunction]
pub(crate) fn arrow_column_names(
    py: Python<'_>,
    kind: &str,
    columns: Vec<String>,
    what: &str,
) -> PyResult<(String, String, String)> {
    // Only the names matter to the resolution: the types are checked when the rows are read.
    let fields: Vec<Field> = columns.into_iter().map(|name| Field::new(name, DataType::Null, true)).collect();
    let schema = Arc::new(Schema::new(fields));
    let error = |e: kgeval::FormatError| to_py(py, &kgeval::Error::from(e));
    let owned = |[a, b, c]: [&str; 3]| (a.to_owned(), b.to_owned(), c.to_owned());
    match kind {
        "run" => Ok(owned(RunColumns::resolve(&schema, what).map_err(error)?.names())),
        "qrels" => Ok(owned(QrelsColumns::resolve(&schema, what).map_err(error)?.names())),
        _ => Err(invalid(format!("kind: found {kind:?}, expected \"run\" or \"qrels\""))),
    }
}
