//! `kgeval._kgeval`: the native half of the `kgeval` Python package (python/kgeval).
//!
//! A front end like the CLI: it turns Python values (paths, nested dicts, columns, numpy
//! arrays) into the facade's tasks and inputs, runs them with the GIL released, and turns the
//! `Evaluation` back into dicts. It holds no default, convention or metric; errors become
//! `kgeval.Error` subclasses, never a panic across the FFI boundary (PyO3 turns a panic into
//! `PanicException`; the code here returns errors instead).

mod errors;
mod trec;
// Arrow in and out (issue 30)
mod arrow_columns;
mod arrow_in;
mod arrow_out;
// align and rank (issue 16 items 2, 3)
mod align;
mod rank;
// qald, lexicon, compare (issue 16 items 5, 6)
mod compare;
mod lexicon;
mod qald;
// trec (py-perf): fast conversion, native evaluator
mod trec_convert;
mod trec_evaluator;
mod trec_stream;
// kgc
mod kgc;
mod kgc_mapped;
// kgeval run
mod run;
// Mergeable trec summaries and sharded KGC counts.
mod kgc_accumulate;
mod trec_merge;
// kgeval.spark: the run columns a Spark job partitions by.
mod spark;

use pyo3::prelude::*;

/// The native module; `kgeval/__init__.py` re-exports what users call.
#[pymodule]
fn _kgeval(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(trec::trec_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(trec::trec_measure_names, m)?)?;
    m.add_function(wrap_pyfunction!(trec::trec_supported_measures, m)?)?;
    m.add_function(wrap_pyfunction!(trec::trec_aggregate, m)?)?;
    // align and rank (issue 16 items 2, 3)
    m.add_function(wrap_pyfunction!(align::align_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(rank::rank_evaluate, m)?)?;
    // qald, lexicon, compare (issue 16 items 5, 6)
    m.add_class::<compare::Table>()?;
    m.add_function(wrap_pyfunction!(qald::qald_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(lexicon::lexicon_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(compare::compare, m)?)?;
    // trec (py-perf)
    m.add_class::<trec_evaluator::TrecEvaluator>()?;
    // kgc
    m.add_function(wrap_pyfunction!(kgc::kgc_evaluate, m)?)?;
    m.add_class::<kgc::KgcEvaluator>()?;
    m.add_function(wrap_pyfunction!(kgc_mapped::kgc_mapped, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_campaign, m)?)?;
    m.add_function(wrap_pyfunction!(trec_merge::trec_accumulate, m)?)?;
    m.add_class::<trec_merge::TrecAccumulator>()?;
    m.add_class::<kgc_accumulate::KgcRankAccumulator>()?;
    m.add_class::<arrow_out::ArrowResults>()?;
    m.add_function(wrap_pyfunction!(arrow_columns::arrow_columns, m)?)?;
    m.add_function(wrap_pyfunction!(spark::arrow_column_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
