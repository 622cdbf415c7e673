//! Runs given as `{qid: {docid: score}}` dicts, evaluated while they are being read: the main
//! thread walks the dicts (it must hold the GIL) and hands each batch of converted topics to
//! rayon's pool, where the facade's [`TopicStream`] checks, ranks and scores them; the GIL is
//! released only to wait for the last batches. Ids and scores are read straight from the
//! dict's storage (borrowed references, no reference counting, no copy of a `str` beyond the
//! batch's text buffer).
//!
//! Anything but a dict of `str` keys whose values are dicts of `str` keys and `float` or `int`
//! scores leaves the fast path: [`evaluate_dicts`] returns `None` and the caller takes the
//! general conversion, which names the problem.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use kgeval::trec::{TopicStream, TrecTask};
use kgeval::Evaluation;
use kgeval_model::trec::{check_relevance, Qrels, RunDoc};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{invalid, to_py};
use crate::trec_convert::PyUnicode_AsUTF8AndSize;

/// A batch is handed to the pool once it holds this many entries (and at the end).
const BATCH_ENTRIES: usize = 32_768;

/// How many entries ahead of its use a key and a value object are fetched into the cache.
const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to bring the object at `object` (its header and the first bytes after it,
/// where a short `str` keeps its text) into the cache; a hint with no effect on results.
#[allow(unsafe_code)]
#[inline]
fn prefetch(object: *mut ffi::PyObject) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing into the program: any address is
    // allowed.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(object.cast::<i8>());
        _mm_prefetch::<_MM_HINT_T0>(object.cast::<i8>().wrapping_add(48));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = object;
}

/// Converted topics on their way to a worker: every docno in one text buffer.
struct Batch {
    /// (index in the run, qid, end of its entries in `entries`, whether every docno was a
    /// `str` itself, not a subclass: then the dict's keys are distinct texts).
    topics: Vec<(usize, String, usize, bool)>,
    /// The docnos one after the other.
    text: String,
    /// (end of the docno in `text`, score) per entry.
    entries: Vec<(usize, f64)>,
}

impl Batch {
    /// An empty batch with room for a full one (ids of about 8 bytes).
    fn with_capacity() -> Self {
        Batch {
            topics: Vec::new(),
            text: String::with_capacity(BATCH_ENTRIES * 8),
            entries: Vec::with_capacity(BATCH_ENTRIES + BATCH_ENTRIES / 8),
        }
    }

    /// Empties the batch, keeping its buffers.
    fn clear(&mut self) {
        self.topics.clear();
        self.text.clear();
        self.entries.clear();
    }

    /// Hands every topic of the batch to `stream`, in order.
    fn evaluate(&self, stream: &TopicStream) {
        let mut docs: Vec<RunDoc<'_>> = Vec::new();
        let (mut entry, mut text_start) = (0, 0);
        for (index, qid, end, distinct) in &self.topics {
            docs.clear();
            for (position, &(text_end, score)) in self.entries[entry..*end].iter().enumerate() {
                let docno = &self.text[text_start..text_end];
                docs.push(RunDoc { docno, score, rank: position as i64 + 1, position: position as u64 });
                text_start = text_end;
            }
            entry = *end;
            if *distinct {
                stream.add_distinct_topic(*index, qid, &docs);
            } else {
                stream.add_topic(*index, qid, &docs);
            }
        }
    }
}

/// A `str`'s UTF-8 text, borrowed; `None` for anything else (or text with no UTF-8 form).
///
/// # Safety
/// `object` is a live object and the GIL is held for as long as the text is used.
#[allow(unsafe_code)]
unsafe fn text<'a>(object: *mut ffi::PyObject) -> Option<&'a str> {
    if ffi::PyUnicode_CheckExact(object) == 0 && ffi::PyUnicode_Check(object) == 0 {
        return None;
    }
    let mut size: ffi::Py_ssize_t = 0;
    let data = PyUnicode_AsUTF8AndSize(object, &mut size);
    if data.is_null() {
        ffi::PyErr_Clear();
        return None;
    }
    let bytes = std::slice::from_raw_parts(data.cast::<u8>(), usize::try_from(size).ok()?);
    // CPython's UTF-8 form of a `str` is valid UTF-8 by construction (lone surrogates have
    // none: NULL above), so it is not scanned again.
    Some(std::str::from_utf8_unchecked(bytes))
}

/// A score: a `float` (or subclass, e.g. numpy's float64) or an `int`; `None` otherwise.
///
/// # Safety
/// `object` is a live object and the GIL is held.
#[allow(unsafe_code)]
unsafe fn number(object: *mut ffi::PyObject) -> Option<f64> {
    if ffi::PyFloat_CheckExact(object) != 0 || ffi::PyFloat_Check(object) != 0 {
        return Some(ffi::PyFloat_AsDouble(object));
    }
    if ffi::PyLong_CheckExact(object) != 0 {
        let value = ffi::PyLong_AsDouble(object);
        if value == -1.0 && !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        return Some(value);
    }
    None
}

/// Walks `run` (`{qid: {docid: score}}`), sending batches of converted topics to `stream` on
/// rayon's pool; returns the number of batches sent, or `None` at the first key or value of
/// another kind (the batches already sent still finish; their results are dropped with the
/// stream).
#[allow(unsafe_code)]
fn walk(run: &Bound<'_, PyDict>, stream: &Arc<TopicStream>, done: &mpsc::Sender<bool>) -> Option<usize> {
    let mut batch = Batch::with_capacity();
    let mut pairs: Vec<(*mut ffi::PyObject, *mut ffi::PyObject)> = Vec::new();
    let mut sent = 0;
    // Evaluated batches come back emptied, their buffers kept: no fresh pages per batch.
    let spare: Arc<Mutex<Vec<Batch>>> = Arc::default();
    let next_batch = || spare.lock().ok().and_then(|mut spare| spare.pop()).unwrap_or_else(Batch::with_capacity);
    let send = |mut batch: Batch, sent: &mut usize| {
        let (stream, done, spare) = (Arc::clone(stream), done.clone(), Arc::clone(&spare));
        rayon::spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| batch.evaluate(&stream)));
            drop(stream);
            batch.clear();
            if let Ok(mut spare) = spare.lock() {
                spare.push(batch);
            }
            // The receiver waits for every batch it was told of; a closed channel means the
            // caller left the fast path, and the result is not needed.
            let _ = done.send(result.is_ok());
        });
        *sent += 1;
    };
    let (mut position, mut qid_object, mut docs_object): (ffi::Py_ssize_t, *mut ffi::PyObject, *mut ffi::PyObject) =
        (0, std::ptr::null_mut(), std::ptr::null_mut());
    let mut index = 0;
    // SAFETY: the GIL is held throughout (`run` is bound to it) and no Python code runs while
    // walking (no `__eq__`, `__hash__` or `__float__` is called: only CPython's C accessors of
    // exact or subclassed builtins), so the dicts cannot change and their borrowed keys and
    // values stay alive; each text is copied into the batch before the next step.
    unsafe {
        while ffi::PyDict_Next(run.as_ptr(), &mut position, &mut qid_object, &mut docs_object) != 0 {
            let qid = text(qid_object)?;
            if ffi::PyDict_Check(docs_object) == 0 {
                return None;
            }
            let (mut inner, mut docno_object, mut score_object): (
                ffi::Py_ssize_t,
                *mut ffi::PyObject,
                *mut ffi::PyObject,
            ) = (0, std::ptr::null_mut(), std::ptr::null_mut());
            // The dict's own table is read in order first; the key and value objects it points
            // to are scattered over memory, so each is fetched a few entries ahead of its use.
            pairs.clear();
            while ffi::PyDict_Next(docs_object, &mut inner, &mut docno_object, &mut score_object) != 0 {
                pairs.push((docno_object, score_object));
            }
            batch.entries.reserve(pairs.len());
            // Keys of one dict are distinct objects by equality; for `str` itself equality is
            // equality of text, so no docno can repeat (a subclass may redefine `__eq__`).
            let mut distinct = true;
            for (i, &(docno_object, score_object)) in pairs.iter().enumerate() {
                if let Some(&(ahead_docno, ahead_score)) = pairs.get(i + PREFETCH_AHEAD) {
                    prefetch(ahead_docno);
                    prefetch(ahead_score);
                }
                distinct &= ffi::PyUnicode_CheckExact(docno_object) != 0;
                let docno = text(docno_object)?;
                let score = number(score_object)?;
                batch.text.push_str(docno);
                batch.entries.push((batch.text.len(), score));
            }
            batch.topics.push((index, qid.to_owned(), batch.entries.len(), distinct));
            index += 1;
            if batch.entries.len() >= BATCH_ENTRIES {
                send(std::mem::replace(&mut batch, next_batch()), &mut sent);
            }
        }
    }
    if !batch.topics.is_empty() {
        send(batch, &mut sent);
    }
    Some(sent)
}

/// Evaluates `runs` (`(name, run)`) against `qrels` (named `qrels_name`) with `task` through the fast path when
/// every run is a plain `{qid: {docid: score}}` dict; `None` (nothing evaluated) otherwise.
///
/// # Errors
/// The facade's errors (a score that is not finite, no topic in common, …) as `kgeval.Error`.
pub(crate) fn evaluate_dicts(
    py: Python<'_>,
    task: &TrecTask,
    qrels: &Arc<Qrels>,
    qrels_name: &str,
    runs: &[(String, Bound<'_, PyAny>)],
) -> PyResult<Option<Evaluation>> {
    let mut dicts = Vec::with_capacity(runs.len());
    for (name, run) in runs {
        match run.downcast::<PyDict>() {
            Ok(dict) => dicts.push((name, dict)),
            Err(_) => return Ok(None),
        }
    }
    let mut streams = Vec::with_capacity(dicts.len());
    for (name, dict) in dicts {
        let stream = Arc::new(task.topic_stream(Arc::clone(qrels)).map_err(|e| to_py(py, &e))?);
        let (done, finished) = mpsc::channel();
        let Some(batches) = walk(dict, &stream, &done) else { return Ok(None) };
        drop(done);
        let finished: Vec<bool> = py.allow_threads(move || finished.iter().take(batches).collect());
        if finished.len() != batches || finished.contains(&false) {
            return Err(invalid(format!("run {name}: the evaluation of a batch of topics failed (an internal error)")));
        }
        let stream = Arc::try_unwrap(stream).map_err(|_| {
            invalid(format!("run {name}: a batch of topics outlived its evaluation (an internal error)"))
        })?;
        streams.push((name.clone(), stream));
    }
    py.allow_threads(|| task.run_streams(qrels_name, streams)).map(Some).map_err(|e| to_py(py, &e))
}

/// Qrels from a plain `{qid: {docid: relevance}}` dict of `str` keys and `int` judgments,
/// read straight from the dicts' storage; `None` at the first key or value of another kind,
/// or a judgment beyond ±2^53 (the caller takes the general conversion, which names the
/// problem or converts it).
#[allow(unsafe_code)]
pub(crate) fn plain_qrels(value: &Bound<'_, PyAny>) -> Option<Qrels> {
    let dict = value.downcast::<PyDict>().ok()?;
    let mut qrels = Qrels::new();
    let (mut position, mut qid_object, mut docs_object): (ffi::Py_ssize_t, *mut ffi::PyObject, *mut ffi::PyObject) =
        (0, std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: as in `walk`: the GIL is held and no Python code runs, so the borrowed keys and
    // values stay alive and unchanged; their text is copied into the qrels.
    unsafe {
        while ffi::PyDict_Next(dict.as_ptr(), &mut position, &mut qid_object, &mut docs_object) != 0 {
            let qid = text(qid_object)?;
            if ffi::PyDict_Check(docs_object) == 0 {
                return None;
            }
            let topic = qrels.topic_mut(qid);
            // The topic's size is known: its judgments are recorded without a reallocation.
            let judgments = usize::try_from(ffi::PyDict_Size(docs_object)).unwrap_or(0);
            topic.reserve(judgments, judgments * 8);
            let (mut inner, mut docno_object, mut relevance_object): (
                ffi::Py_ssize_t,
                *mut ffi::PyObject,
                *mut ffi::PyObject,
            ) = (0, std::ptr::null_mut(), std::ptr::null_mut());
            while ffi::PyDict_Next(docs_object, &mut inner, &mut docno_object, &mut relevance_object) != 0 {
                let docno = text(docno_object)?;
                if ffi::PyLong_CheckExact(relevance_object) == 0 {
                    return None;
                }
                let relevance = ffi::PyLong_AsLongLong(relevance_object);
                if relevance == -1 && !ffi::PyErr_Occurred().is_null() {
                    ffi::PyErr_Clear();
                    return None;
                }
                // Beyond ±2^53: the general conversion names the judgment.
                check_relevance(relevance).ok()?;
                topic.insert(docno, relevance);
            }
        }
    }
    Some(qrels)
}
