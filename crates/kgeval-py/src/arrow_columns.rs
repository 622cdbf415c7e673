//! `arrow_columns(obj, what)`: a small Arrow table (a rank submission or gold key, KGC id
//! triples) read through the C stream interface into Python values, column by column: ids as
//! `list[str]`, numbers as numpy arrays (`int64`, `float64`). For inputs that the family's
//! Python code then shapes as it shapes dicts; a TREC run never comes here (arrow_in reads it
//! in place).

use kgeval::arrow::arrow_array::{Array, ArrayRef, RecordBatchReader};
use kgeval::arrow::arrow_schema::DataType;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::arrow_in::import_stream;
use crate::errors::invalid;

/// One column's values gathered over the batches.
enum Gathered {
    Text(Vec<String>),
    Int(Vec<i64>),
    Float(Vec<f64>),
}

/// `{column: values}` of the Arrow object `value` (every column, in schema order); `what`
/// names it in errors: a null, or a type other than string (plain, large, view, dictionary),
/// integer or float.
#[pyfunction]
pub(crate) fn arrow_columns<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let reader = import_stream(value, what)?;
    let schema = reader.schema();
    let mut gathered: Vec<Gathered> = Vec::with_capacity(schema.fields().len());
    for (index, field) in schema.fields().iter().enumerate() {
        if schema.fields()[..index].iter().any(|earlier| earlier.name() == field.name()) {
            // A dict holds one column per name: the rule of every table reader, a column
            // found once, checked here where both are still seen.
            return Err(invalid(format!(
                "{what}: found columns {0} and {0}, two columns of one name; keep one",
                field.name().escape_debug()
            )));
        }
        let kind = match field.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Dictionary(_, _) => {
                Gathered::Text(Vec::new())
            }
            DataType::Float32 | DataType::Float64 => Gathered::Float(Vec::new()),
            t if t.is_integer() => Gathered::Int(Vec::new()),
            other => {
                return Err(invalid(format!(
                    "{what}: column `{}`: found {other}, expected strings, integers or floats",
                    field.name()
                )))
            }
        };
        gathered.push(kind);
    }
    let mut first_row = 0usize;
    for batch in reader {
        let batch = batch.map_err(|e| invalid(format!("{what}: {e}")))?;
        for ((column, field), out) in batch.columns().iter().zip(schema.fields()).zip(&mut gathered) {
            if let Some(row) =
                (0..column.len()).find(|&i| column.is_null(i) || column.logical_nulls().is_some_and(|n| n.is_null(i)))
            {
                return Err(invalid(format!(
                    "{what}: row {}: column `{}` is null, expected a value",
                    first_row + row + 1,
                    field.name()
                )));
            }
            gather(column, out).map_err(|e| invalid(format!("{what}: column `{}`: {e}", field.name())))?;
        }
        first_row += batch.num_rows();
    }
    let out = PyDict::new(py);
    for (field, values) in schema.fields().iter().zip(gathered) {
        match values {
            Gathered::Text(v) => out.set_item(field.name(), PyList::new(py, v)?)?,
            Gathered::Int(v) => out.set_item(field.name(), PyArray1::from_vec(py, v))?,
            Gathered::Float(v) => out.set_item(field.name(), PyArray1::from_vec(py, v))?,
        }
    }
    Ok(out)
}

/// Appends `column`'s values (no null) to `out`.
fn gather(column: &ArrayRef, out: &mut Gathered) -> Result<(), String> {
    match out {
        Gathered::Text(values) => {
            let ids = kgeval::arrow::id_column(column)?;
            values.extend((0..column.len()).map(|i| ids.get(i).to_owned()));
        }
        Gathered::Int(values) => {
            let numbers = kgeval::arrow::numbers_of(column).ok_or("found no integer type")?;
            for i in 0..column.len() {
                values.push(numbers.i64(i).ok_or("found a value above 2^63 - 1, expected an int64")?);
            }
        }
        Gathered::Float(values) => {
            let numbers = kgeval::arrow::numbers_of(column).ok_or("found no float type")?;
            values.extend((0..column.len()).map(|i| numbers.f64(i)));
        }
    }
    Ok(())
}
