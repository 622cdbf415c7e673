//! Python qrels and runs (nested dicts, columns) into the facade's [`Qrels`] and
//! [`InternedRun`], fast: ids are borrowed from the `str` objects (no copy, no allocation),
//! each run docno is hashed once and stored once, containers are pre-sized from `len()`.

use std::os::raw::c_char;

use kgeval::trec::{InternedRun, TopicSlot};
use kgeval_model::trec::{check_relevance, Qrels, RelevanceOutOfRange, MAX_RELEVANCE};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString, PyTuple};

use crate::errors::invalid;

// `PyUnicode_AsUTF8AndSize` has been a public CPython function since 3.3 but joined the
// limited API only in 3.10, so PyO3's abi3-py39 build does not declare it (its `to_cow`
// copies every string twice instead). Every CPython this package supports (>= 3.9) exports it.
#[allow(unsafe_code)]
extern "C" {
    pub(crate) fn PyUnicode_AsUTF8AndSize(unicode: *mut ffi::PyObject, size: *mut ffi::Py_ssize_t) -> *const c_char;
}

/// The UTF-8 text of a Python `str`, borrowed from the object: no copy for ASCII text, and
/// for other text the UTF-8 form CPython caches in the object on first use.
///
/// # Errors
/// A `str` that has no UTF-8 form (a lone surrogate): the `UnicodeEncodeError`.
pub(crate) fn borrow_str<'a>(text: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `text` is a live `str` (the borrow keeps it alive for 'a) and we hold the GIL.
    // CPython returns a pointer to UTF-8 bytes owned by the object, valid while it lives and
    // unchanged (a `str` is immutable), or NULL with an exception set.
    #[allow(unsafe_code)]
    let data = unsafe { PyUnicode_AsUTF8AndSize(text.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(PyErr::fetch(text.py()));
    }
    let len = usize::try_from(size).map_err(|_| invalid("a str of negative length"))?;
    // SAFETY: `data` is non-null and points at `len` initialised bytes owned by `text`.
    #[allow(unsafe_code)]
    let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) };
    // CPython's UTF-8 is valid UTF-8: the check is a cheap scan, kept so nothing is assumed.
    std::str::from_utf8(bytes).map_err(|e| invalid(format!("a str with invalid UTF-8: {e}")))
}

/// Calls `f` with an id as text: a `str` borrowed, an `int` as its decimal text; `what`
/// names the place in the error for any other type.
pub(crate) fn with_id<R>(
    value: &Bound<'_, PyAny>,
    what: impl FnOnce() -> String,
    f: impl FnOnce(&str) -> R,
) -> PyResult<R> {
    if let Ok(text) = value.downcast::<PyString>() {
        return match borrow_str(text) {
            Ok(text) => Ok(f(text)),
            Err(error) => Err(invalid(format!(
                "{}: found id {}, expected text encodable as UTF-8 ({error})",
                what(),
                repr(value)
            ))),
        };
    }
    if let Ok(number) = value.extract::<i64>() {
        return Ok(f(&number.to_string()));
    }
    Err(invalid(format!("{}: found an id of type {}, expected str", what(), type_name(value))))
}

/// An id as an owned `String` (for error messages and the rare slow path).
pub(crate) fn id(value: &Bound<'_, PyAny>, what: impl FnOnce() -> String) -> PyResult<String> {
    with_id(value, what, str::to_owned)
}

/// The Python type's name, for messages.
pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".to_owned())
}

fn repr(value: &Bound<'_, PyAny>) -> String {
    value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".to_owned())
}

/// A relevance judgment: an integer (an integral float is taken) within ±2^53
/// ([`check_relevance`]).
fn relevance(value: &Bound<'_, PyAny>, what: impl FnOnce() -> String) -> PyResult<i64> {
    let checked = if let Ok(number) = value.extract::<i64>() {
        check_relevance(number)
    } else if value.is_instance_of::<PyInt>() {
        // An int beyond i64.
        Err(RelevanceOutOfRange { found: repr(value) })
    } else {
        match value.extract::<f64>() {
            Ok(number) if number.fract() == 0.0 && number.abs() <= MAX_RELEVANCE as f64 => Ok(number as i64),
            Ok(number) if number.fract() == 0.0 => Err(RelevanceOutOfRange { found: repr(value) }),
            _ => return Err(invalid(format!("{}: found relevance {}, expected an integer", what(), repr(value)))),
        }
    };
    checked.map_err(|e| invalid(format!("{}: {e}", what())))
}

/// A retrieval score: a number.
fn score(value: &Bound<'_, PyAny>, what: impl FnOnce() -> String) -> PyResult<f64> {
    value.extract::<f64>().map_err(|_| invalid(format!("{}: found score {}, expected a number", what(), repr(value))))
}

/// Calls `f` on each `(key, value)` of a dict (iterated in place) or any mapping with
/// `.items()`; `what` names it in the error for anything else.
fn each_item<'py>(
    value: &Bound<'py, PyAny>,
    what: impl FnOnce() -> String,
    mut f: impl FnMut(Bound<'py, PyAny>, Bound<'py, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    if let Ok(dict) = value.downcast::<PyDict>() {
        for (key, item) in dict {
            f(key, item)?;
        }
        return Ok(());
    }
    if !value.hasattr("items")? {
        return Err(invalid(format!(
            "{}: found {}, expected a path, a dict or columns (ids, docids, values)",
            what(),
            type_name(value)
        )));
    }
    for item in value.call_method0("items")?.try_iter()? {
        let (key, item) = item?.extract()?;
        f(key, item)?;
    }
    Ok(())
}

/// The number of entries of a mapping, when it says (`len()`), for pre-sizing.
fn size_hint(value: &Bound<'_, PyAny>) -> usize {
    value.len().unwrap_or(0)
}

/// Columns `(qids, docids, values)` of one length, as three lists.
#[allow(clippy::type_complexity)]
fn columns<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Option<[Vec<Bound<'py, PyAny>>; 3]>> {
    let Ok(tuple) = value.downcast::<PyTuple>() else { return Ok(None) };
    if tuple.len() != 3 {
        return Err(invalid(format!(
            "{what}: found a tuple of {}, expected columns (ids, docids, values)",
            tuple.len()
        )));
    }
    let column = |i: usize| -> PyResult<Vec<Bound<'py, PyAny>>> { tuple.get_item(i)?.try_iter()?.collect() };
    let (q, d, v) = (column(0)?, column(1)?, column(2)?);
    if q.len() != d.len() || q.len() != v.len() {
        return Err(invalid(format!(
            "{what}: found columns of {}, {} and {} rows, expected one length",
            q.len(),
            d.len(),
            v.len()
        )));
    }
    Ok(Some([q, d, v]))
}

/// Qrels from `{qid: {docid: relevance}}` or columns (a plain dict of `str` ids and `int`
/// judgments read straight from its storage: `trec_stream::plain_qrels`).
pub(crate) fn read_qrels(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Qrels> {
    if let Some(qrels) = crate::trec_stream::plain_qrels(value) {
        return Ok(qrels);
    }
    let mut qrels = Qrels::new();
    if let Some([q, d, v]) = columns(value, what)? {
        for (row, ((q, d), v)) in q.iter().zip(&d).zip(&v).enumerate() {
            let at = || format!("{what} row {row}");
            let rel = relevance(v, at)?;
            let topic = with_id(q, at, |qid| qrels.topic_mut(qid))?;
            if with_id(d, at, |docno| topic.insert(docno, rel))?.is_some() {
                return Err(invalid(format!(
                    "{what} row {row}: found a second judgment for qid {:?}, docid {:?}, expected one",
                    id(q, at)?,
                    id(d, at)?
                )));
            }
        }
        return Ok(qrels);
    }
    each_item(
        value,
        || what.to_owned(),
        |qid, docs| {
            let qid = id(&qid, || what.to_owned())?;
            let at = || format!("{what}[{qid:?}]");
            let topic = qrels.topic_mut(&qid);
            each_item(&docs, at, |docno, rel| {
                with_id(&docno, at, |docno| -> PyResult<()> {
                    topic.insert(docno, relevance(&rel, || format!("{}[{docno:?}]", at()))?);
                    Ok(())
                })?
            })
        },
    )?;
    Ok(qrels)
}

/// A run from `{qid: {docid: score}}` or columns (documents in input order).
pub(crate) fn read_run(value: &Bound<'_, PyAny>, what: &str) -> PyResult<InternedRun> {
    if let Some([q, d, v]) = columns(value, what)? {
        let mut run = InternedRun::with_capacity(0, 0);
        // Rows of one topic usually follow each other: the last topic's slot is reused
        // when its qid is the same text.
        let mut last: Option<(String, TopicSlot)> = None;
        for (row, ((q, d), v)) in q.iter().zip(&d).zip(&v).enumerate() {
            let at = || format!("{what} row {row}");
            let value = score(v, at)?;
            let slot = with_id(q, at, |qid| match &last {
                Some((text, slot)) if text == qid => *slot,
                _ => {
                    let slot = run.topic(qid);
                    last = Some((qid.to_owned(), slot));
                    slot
                }
            })?;
            with_id(d, at, |docno| run.push(slot, docno, value))?;
        }
        return Ok(run);
    }
    let topics = size_hint(value);
    let mut run = InternedRun::with_capacity(topics, 0);
    each_item(
        value,
        || what.to_owned(),
        |qid, docs| {
            let slot = with_id(&qid, || what.to_owned(), |qid| run.topic(qid))?;
            let at = || format!("{what}[{:?}]", id(&qid, String::new).unwrap_or_default());
            run.reserve(slot, size_hint(&docs));
            each_item(&docs, at, |docno, value| {
                with_id(&docno, at, |docno| -> PyResult<()> {
                    let value = score(&value, || format!("{}[{docno:?}]", at()))?;
                    run.push(slot, docno, value);
                    Ok(())
                })?
            })
        },
    )?;
    Ok(run)
}
