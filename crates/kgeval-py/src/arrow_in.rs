//! Arrow in: any Python object with `__arrow_c_stream__` (a pyarrow Table or
//! RecordBatchReader, a polars DataFrame, a DuckDB relation) read through the Arrow C stream
//! interface, batch by batch, with no copy of its columns: ids and scores are read in place
//! from the producer's buffers.
//!
//! A run is evaluated while it is read ([`evaluate_arrow_run`]): the stream is read with the
//! GIL released; each run of consecutive rows with one qid is a topic, handed — once the next
//! qid shows it complete — to the facade's [`TopicStream`] on rayon's pool, a few thousand
//! rows at a time. Only the batches of topics not yet evaluated are held. When a qid comes
//! back after other qids (the run is not grouped by qid), the pass stops and the object is
//! exported again and read whole: every batch is held (references to the producer's buffers,
//! no copy) with an index of each topic's rows, and the topics are evaluated at the end. An
//! object that is a one-shot stream (a RecordBatchReader) cannot be read twice: then the
//! error says to group it by qid. This is the reusable "Arrow C stream → evaluation" a
//! Spark `mapInArrow` worker calls per partition.

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::Arc;

use kgeval::arrow::arrow_array::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use kgeval::arrow::arrow_array::{RecordBatch, RecordBatchReader};
use kgeval::arrow::{read_qrels, RunBatch, RunColumns};
use kgeval::trec::{InternedRun, TopicStream, TrecTask};
use kgeval_model::trec::{Qrels, RunDoc};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::errors::{invalid, to_py};

/// A job is handed to the pool once it holds this many rows (and at the end).
const JOB_ROWS: usize = 32_768;

/// Whether `value` offers the Arrow PyCapsule stream interface.
pub(crate) fn is_arrow(value: &Bound<'_, PyAny>) -> bool {
    value.hasattr("__arrow_c_stream__").unwrap_or(false)
}

/// Whether `value` can be read once only (a RecordBatchReader, an iterator): exporting it
/// again would give what is left, not the whole run.
fn one_shot(value: &Bound<'_, PyAny>) -> bool {
    value.hasattr("read_next_batch").unwrap_or(false) || value.hasattr("__next__").unwrap_or(false)
}

/// Imports `value`'s Arrow C stream (`__arrow_c_stream__()`); `what` names it in errors.
pub(crate) fn import_stream(value: &Bound<'_, PyAny>, what: &str) -> PyResult<ArrowArrayStreamReader> {
    let capsule = value.call_method0("__arrow_c_stream__")?;
    let capsule = capsule
        .downcast::<PyCapsule>()
        .map_err(|_| invalid(format!("{what}: __arrow_c_stream__() returned no PyCapsule")))?;
    if capsule.name()?.map(std::ffi::CStr::to_bytes) != Some(b"arrow_array_stream".as_slice()) {
        return Err(invalid(format!("{what}: __arrow_c_stream__() returned a capsule not named arrow_array_stream")));
    }
    let pointer = capsule.pointer().cast::<FFI_ArrowArrayStream>();
    if pointer.is_null() {
        return Err(invalid(format!("{what}: __arrow_c_stream__() returned an empty capsule")));
    }
    // SAFETY: a capsule named `arrow_array_stream` holds a valid `ArrowArrayStream` (the
    // PyCapsule interface's contract); `from_raw` moves it out and leaves a released stream
    // in its place, so the capsule's destructor does not release it a second time.
    #[allow(unsafe_code)]
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(pointer) };
    ArrowArrayStreamReader::try_new(stream).map_err(|e| invalid(format!("{what}: not an Arrow stream ({e})")))
}

/// Qrels from an Arrow object (columns `qid, docno, rel` or `query_id, doc_id, relevance`);
/// the judgments are copied into the facade's qrels.
pub(crate) fn arrow_qrels(py: Python<'_>, value: &Bound<'_, PyAny>, what: &str) -> PyResult<Qrels> {
    let reader = import_stream(value, what)?;
    let schema = reader.schema();
    let read =
        py.allow_threads(|| read_qrels(&schema, reader, what)).map_err(|e| to_py(py, &kgeval::Error::from(e)))?;
    warn(py, &read.warnings)?;
    Ok(read.value)
}

/// The reader's warnings (a table's columns kgeval does not read) as Python `UserWarning`s,
/// as `kgeval trec` prints them on stderr.
fn warn(py: Python<'_>, warnings: &[kgeval_model::Diagnostic]) -> PyResult<()> {
    for warning in warnings {
        let message = std::ffi::CString::new(warning.to_string().replace('\0', "\\0"))
            .map_err(|_| invalid("a warning held a NUL byte (an internal error)"))?;
        PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &message, 1)?;
    }
    Ok(())
}

/// A run from an Arrow object copied into an [`InternedRun`] (rows in any order): for the
/// general path (runs of mixed kinds, `judged_docs_only`).
pub(crate) fn arrow_run(py: Python<'_>, value: &Bound<'_, PyAny>, what: &str) -> PyResult<InternedRun> {
    let reader = import_stream(value, what)?;
    let columns = resolve(py, &reader, what)?;
    warn(py, &columns.warnings(what))?;
    py.allow_threads(|| kgeval::trec::arrow::intern_run_batches(&columns, reader, what))
        .map_err(|e: kgeval::FormatError| to_py(py, &kgeval::Error::from(e)))
}

/// Qrels from an Arrow object, else as `trec_convert` reads them (dicts, columns).
pub(crate) fn read_qrels_any(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Qrels> {
    if is_arrow(value) {
        return arrow_qrels(value.py(), value, what);
    }
    crate::trec_convert::read_qrels(value, what)
}

/// A run from an Arrow object, else as `trec_convert` reads it (dicts, columns).
pub(crate) fn read_run_any(value: &Bound<'_, PyAny>, what: &str) -> PyResult<InternedRun> {
    if is_arrow(value) {
        return arrow_run(value.py(), value, what);
    }
    crate::trec_convert::read_run(value, what)
}

/// Evaluates `runs` (`(name, run)`, every one an Arrow object) against `qrels` (named
/// `qrels_name`) with `task`, each while it is read ([`evaluate_arrow_run`]).
///
/// # Errors
/// As [`evaluate_arrow_run`]; the facade's (no topic in common, a docno twice in a topic, a
/// score that is not finite).
pub(crate) fn evaluate_arrow_runs(
    py: Python<'_>,
    task: &TrecTask,
    qrels: &Arc<Qrels>,
    qrels_name: &str,
    runs: &[(String, Bound<'_, PyAny>)],
) -> PyResult<kgeval::Evaluation> {
    let mut streams = Vec::with_capacity(runs.len());
    for (name, run) in runs {
        streams.push((name.clone(), evaluate_arrow_run(py, task, qrels, run, &format!("run {name}"))?));
    }
    py.allow_threads(|| task.run_streams(qrels_name, streams)).map_err(|e| to_py(py, &e))
}

/// The run columns of `reader`'s schema.
fn resolve(py: Python<'_>, reader: &ArrowArrayStreamReader, what: &str) -> PyResult<RunColumns> {
    RunColumns::resolve(&reader.schema(), what).map_err(|e| to_py(py, &kgeval::Error::from(e)))
}

/// A producer's error as a format error of `what`.
fn format_error(what: &str, error: &dyn std::fmt::Display) -> kgeval::FormatError {
    kgeval::FormatError::syntax(what, 0, 0, error.to_string())
}

/// Evaluates the Arrow run `value` against `qrels` while it is read (module docs): the
/// stream to hand to [`TrecTask::run_streams`].
///
/// # Errors
/// A missing, ill-typed or null column (`kgeval.ParseError` naming it and the row); a run
/// not grouped by qid given as a one-shot stream; the producer's own error.
pub(crate) fn evaluate_arrow_run(
    py: Python<'_>,
    task: &TrecTask,
    qrels: &Arc<Qrels>,
    value: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<TopicStream> {
    let reader = import_stream(value, what)?;
    let columns = resolve(py, &reader, what)?;
    warn(py, &columns.warnings(what))?;
    let stream = Arc::new(task.topic_stream(Arc::clone(qrels)).map_err(|e| to_py(py, &e))?);
    let pass = py.allow_threads(|| stream_grouped(reader, &columns, Target::Ready(Arc::clone(&stream)), what));
    finish_pass(py, task, qrels, value, what, stream, pass)
}

/// [`evaluate_arrow_runs`] with the qrels still a Python object (`qrels`, named
/// `qrels_name`): they are converted here, holding the GIL, while another thread already
/// reads the first run's stream, its topics waiting for the qrels. The conversion and the
/// reading of the first run overlap instead of following each other (on the 10,000-topic
/// bench they take about as long as each other). Errors are those of converting the qrels
/// first: the qrels' own come before the run's.
///
/// # Errors
/// The qrels' ([`read_qrels_any`]); as [`evaluate_arrow_runs`].
pub(crate) fn evaluate_arrow_runs_converting(
    py: Python<'_>,
    task: &TrecTask,
    qrels: &Bound<'_, PyAny>,
    qrels_name: &str,
    runs: &[(String, Bound<'_, PyAny>)],
) -> PyResult<kgeval::Evaluation> {
    let convert = || read_qrels_any(qrels, qrels_name).map(Arc::new);
    let Some(((name, first), rest)) = runs.split_first() else {
        return evaluate_arrow_runs(py, task, &convert()?, qrels_name, runs);
    };
    let what = format!("run {name}");
    let opened = import_stream(first, &what).and_then(|reader| Ok((resolve(py, &reader, &what)?, reader)));
    let (columns, reader) = match opened {
        Ok(opened) => opened,
        Err(error) => {
            convert()?;
            return Err(error);
        }
    };
    warn(py, &columns.warnings(&what))?;
    // A one-shot stream may be larger than memory: past this many rows read ahead, the
    // reading waits for the qrels. A table is in memory already.
    let read_ahead = if one_shot(first) { WAITING_ROWS } else { usize::MAX };
    let (give, ready) = mpsc::channel();
    let (converted, pass) = std::thread::scope(|scope| {
        // Owned here: should the conversion unwind, the reading stops instead of waiting.
        let give = give;
        let (columns, what) = (&columns, &what);
        let reading = scope.spawn(move || {
            stream_grouped(reader, columns, Target::Pending { ready, waiting: Vec::new(), rows: 0, read_ahead }, what)
        });
        let converted = convert().and_then(|held| {
            let stream = Arc::new(task.topic_stream(Arc::clone(&held)).map_err(|e| to_py(py, &e))?);
            Ok((held, stream))
        });
        // `None` stops the reading: the qrels failed.
        let _ = give.send(converted.as_ref().ok().map(|(_, stream)| Arc::clone(stream)));
        let pass = py.allow_threads(|| reading.join());
        (converted, pass)
    });
    let (held, stream) = converted?;
    let pass = pass.map_err(|_| invalid(format!("{what}: the reading of the stream failed (an internal error)")))?;
    let mut streams = Vec::with_capacity(runs.len());
    streams.push((name.clone(), finish_pass(py, task, &held, first, &what, stream, pass)?));
    for (name, run) in rest {
        streams.push((name.clone(), evaluate_arrow_run(py, task, &held, run, &format!("run {name}"))?));
    }
    py.allow_threads(|| task.run_streams(qrels_name, streams)).map_err(|e| to_py(py, &e))
}

/// The run's stream once its streaming pass ended (`pass`): every topic evaluated, or the
/// run read again and held whole when it is not grouped by qid (an error for a one-shot
/// stream).
fn finish_pass(
    py: Python<'_>,
    task: &TrecTask,
    qrels: &Arc<Qrels>,
    value: &Bound<'_, PyAny>,
    what: &str,
    stream: Arc<TopicStream>,
    pass: Result<Pass, kgeval::FormatError>,
) -> PyResult<TopicStream> {
    match pass {
        Ok(Pass::Done) => Arc::try_unwrap(stream)
            .map_err(|_| invalid(format!("{what}: a job outlived its evaluation (an internal error)"))),
        Ok(Pass::NotGrouped { qid, row }) => {
            drop(stream);
            if one_shot(value) {
                return Err(invalid(format!(
                    "{what}: row {row}: topic {qid} comes back after other topics, expected the rows of each topic together \
                     (a one-shot stream is read once: group it by qid, or pass a table)"
                )));
            }
            let reader = import_stream(value, what)?;
            let columns = resolve(py, &reader, what)?;
            let stream = task.topic_stream(Arc::clone(qrels)).map_err(|e| to_py(py, &e))?;
            py.allow_threads(|| evaluate_held(reader, &columns, &stream, what))
                .map_err(|e| to_py(py, &kgeval::Error::from(e)))?;
            Ok(stream)
        }
        Ok(Pass::Stopped) => Err(invalid(format!("{what}: the reading stopped without qrels (an internal error)"))),
        Err(error) => Err(to_py(py, &kgeval::Error::from(error))),
    }
}

/// How the streaming pass ended.
enum Pass {
    /// Every topic evaluated.
    Done,
    /// Topic `qid` came back at (1-based) `row`.
    NotGrouped { qid: String, row: u64 },
    /// The qrels never came ([`Target::Pending`]): nothing was evaluated.
    Stopped,
}

/// Rows a one-shot stream is read ahead while the qrels are converted.
const WAITING_ROWS: usize = 32 * JOB_ROWS;

/// Where the streaming pass hands its jobs.
enum Target {
    /// The run's topic stream: each job goes to the pool.
    Ready(Arc<TopicStream>),
    /// The qrels are being converted on the thread that holds the GIL: jobs wait here until
    /// their stream comes through `ready` (`None`: the conversion failed, the pass stops),
    /// the reading itself waiting once `read_ahead` rows wait.
    Pending { ready: mpsc::Receiver<Option<Arc<TopicStream>>>, waiting: Vec<Job>, rows: usize, read_ahead: usize },
    /// The qrels failed: jobs are dropped, the pass stops.
    Stopped,
}

/// A topic's rows: (batch, rows) pairs in row order.
type Pieces = Vec<(usize, Range<usize>)>;

/// Consecutive topics on their way to a worker: the batches they lie in, and per topic its
/// index, qid and pieces (batch in `batches`, rows).
#[derive(Default)]
struct Job {
    batches: Vec<(u64, RecordBatch)>,
    topics: Vec<(usize, String, Pieces)>,
    rows: usize,
}

impl Job {
    /// Hands every topic to `stream`; `Err` when a batch no longer reads (it was checked
    /// when it arrived: an internal error).
    fn evaluate(&self, columns: &RunColumns, stream: &TopicStream, what: &str) -> Result<(), kgeval::FormatError> {
        // Each batch was checked when it arrived: its columns are only viewed here (a job
        // holding a few topics of a large batch does not rescan the whole batch).
        let views: Vec<RunBatch<'_>> = self
            .batches
            .iter()
            .map(|(_, batch)| columns.view(batch))
            .collect::<Option<_>>()
            .ok_or_else(|| format_error(what, &"a batch no longer reads (an internal error)"))?;
        let mut docs: Vec<RunDoc<'_>> = Vec::new();
        for (index, qid, pieces) in &self.topics {
            let pieces = pieces.iter().map(|(batch, rows)| (&views[*batch], rows.clone()));
            hand_over(stream, *index, qid, pieces, &mut docs);
        }
        Ok(())
    }
}

/// The topic being read: its qid and pieces (first row of the batch, batch, rows).
type Open = (String, Vec<(u64, RecordBatch, Range<usize>)>);

/// The streaming pass: topics evaluated on the pool as they complete, or, while the target is
/// pending, held until it is ready.
fn stream_grouped(
    reader: ArrowArrayStreamReader,
    columns: &RunColumns,
    target: Target,
    what: &str,
) -> Result<Pass, kgeval::FormatError> {
    let (done, finished) = mpsc::channel::<bool>();
    let mut pool = Pool { target, columns: Arc::new(columns.clone()), what: what.to_owned(), done, sent: 0 };
    let mut job = Job::default();
    let mut open: Option<Open> = None;
    let mut closed: FxHashSet<String> = FxHashSet::default();
    let mut index = 0usize;
    let mut first_row = 0u64;
    // Moves the finished topic `open` into the job (and the job to the pool when full).
    let close = |open: Open, job: &mut Job, pool: &mut Pool, index: &mut usize| {
        let (qid, pieces) = open;
        let mut placed = Vec::with_capacity(pieces.len());
        for (batch_first_row, batch, rows) in pieces {
            job.rows += rows.len();
            let at = match job.batches.iter().position(|(first, _)| *first == batch_first_row) {
                Some(at) => at,
                None => {
                    job.batches.push((batch_first_row, batch));
                    job.batches.len() - 1
                }
            };
            placed.push((at, rows));
        }
        job.topics.push((*index, qid, placed));
        *index += 1;
        if job.rows >= JOB_ROWS {
            pool.send(std::mem::take(job));
        }
    };
    let mut outcome = Pass::Done;
    'batches: for batch in reader {
        if matches!(pool.target, Target::Stopped) {
            outcome = Pass::Stopped;
            break;
        }
        let batch = batch.map_err(|e| format_error(what, &e))?;
        let view = columns.batch(&batch, what, first_row)?;
        for (qid, rows) in view.topics() {
            if let Some((open_qid, pieces)) = open.as_mut() {
                if open_qid == qid {
                    pieces.push((first_row, batch.clone(), rows));
                    continue;
                }
            }
            if closed.contains(qid) {
                outcome = Pass::NotGrouped { qid: qid.to_owned(), row: first_row + rows.start as u64 + 1 };
                break 'batches;
            }
            if let Some(finished_topic) = open.take() {
                closed.insert(finished_topic.0.clone());
                close(finished_topic, &mut job, &mut pool, &mut index);
            }
            open = Some((qid.to_owned(), vec![(first_row, batch.clone(), rows)]));
        }
        first_row += batch.num_rows() as u64;
    }
    if matches!(outcome, Pass::Done) && first_row == 0 {
        // No row at all (an empty table, a reader already read): an empty text run's error.
        return Err(kgeval::trec::arrow::no_rows(what));
    }
    if matches!(outcome, Pass::Done) {
        if let Some(finished_topic) = open.take() {
            close(finished_topic, &mut job, &mut pool, &mut index);
        }
        if !job.topics.is_empty() {
            pool.send(job);
        }
        pool.wait_ready();
        if matches!(pool.target, Target::Stopped) {
            outcome = Pass::Stopped;
        }
    }
    let Pool { sent, done, .. } = pool;
    drop(done);
    let results: Vec<bool> = finished.iter().take(sent).collect();
    if results.len() != sent || results.contains(&false) {
        return Err(format_error(what, &"the evaluation of a job of topics failed (an internal error)"));
    }
    Ok(outcome)
}

/// The streaming pass's jobs on their way to rayon's pool ([`Target`]), and how many went.
struct Pool {
    target: Target,
    columns: Arc<RunColumns>,
    what: String,
    /// Each job sends whether it went well.
    done: mpsc::Sender<bool>,
    sent: usize,
}

impl Pool {
    /// Hands `job` to the pool, or holds it while the target is pending.
    fn send(&mut self, job: Job) {
        if let Target::Pending { ready, waiting, rows, read_ahead } = &mut self.target {
            *rows += job.rows;
            waiting.push(job);
            // Past the read-ahead the reading waits for the qrels; before, it only looks.
            let came = if *rows >= *read_ahead { ready.recv().ok() } else { ready.try_recv().ok() };
            match came {
                None if *rows < *read_ahead => {}
                None | Some(None) => self.target = Target::Stopped,
                Some(Some(stream)) => {
                    let waiting = std::mem::take(waiting);
                    self.target = Target::Ready(stream);
                    waiting.into_iter().for_each(|job| self.spawn(job));
                }
            }
            return;
        }
        self.spawn(job);
    }

    /// Waits for a pending target and hands it the jobs held.
    fn wait_ready(&mut self) {
        if let Target::Pending { read_ahead, .. } = &mut self.target {
            *read_ahead = 0;
            self.send(Job::default());
        }
    }

    /// Runs `job` on the pool (drops it when the target stopped).
    fn spawn(&mut self, job: Job) {
        let Target::Ready(stream) = &self.target else { return };
        if job.topics.is_empty() {
            return;
        }
        let (stream, done, columns, what) =
            (Arc::clone(stream), self.done.clone(), Arc::clone(&self.columns), self.what.clone());
        rayon::spawn(move || {
            let ok = catch_unwind(AssertUnwindSafe(|| job.evaluate(&columns, &stream, &what).is_ok())).unwrap_or(false);
            drop(job);
            drop(stream);
            // A closed channel means the caller stopped waiting (it left this pass).
            let _ = done.send(ok);
        });
        self.sent += 1;
    }
}

/// The held pass: every batch kept, each topic's rows indexed, topics evaluated at the end on
/// the pool (topic indices in order of first appearance).
fn evaluate_held(
    reader: ArrowArrayStreamReader,
    columns: &RunColumns,
    stream: &TopicStream,
    what: &str,
) -> Result<(), kgeval::FormatError> {
    let mut batches = Vec::new();
    let mut first_row = 0u64;
    for batch in reader {
        let batch = batch.map_err(|e| format_error(what, &e))?;
        first_row += batch.num_rows() as u64;
        batches.push((first_row - batch.num_rows() as u64, batch));
    }
    if first_row == 0 {
        return Err(kgeval::trec::arrow::no_rows(what));
    }
    let views: Vec<RunBatch<'_>> =
        batches.iter().map(|(first, batch)| columns.batch(batch, what, *first)).collect::<Result<_, _>>()?;
    let mut slots: FxHashMap<&str, usize> = FxHashMap::default();
    let mut topics: Vec<(&str, Pieces)> = Vec::new();
    for (number, view) in views.iter().enumerate() {
        for (qid, rows) in view.topics() {
            let slot = *slots.entry(qid).or_insert_with(|| {
                topics.push((qid, Vec::new()));
                topics.len() - 1
            });
            topics[slot].1.push((number, rows));
        }
    }
    topics.par_iter().enumerate().for_each_init(Vec::new, |docs: &mut Vec<RunDoc<'_>>, (index, (qid, pieces))| {
        let pieces = pieces.iter().map(|(number, rows)| (&views[*number], rows.clone()));
        hand_over(stream, index, qid, pieces, docs);
    });
    Ok(())
}

/// Hands topic `qid` (`index` in the run), whose rows are `pieces` (batch, rows) in row
/// order, to `stream`: a topic within one batch as that batch's columns when they allow it
/// (no document built), any other as documents built in `docs`.
fn hand_over<'a>(
    stream: &TopicStream,
    index: usize,
    qid: &str,
    mut pieces: impl ExactSizeIterator<Item = (&'a RunBatch<'a>, Range<usize>)>,
    docs: &mut Vec<RunDoc<'a>>,
) {
    if pieces.len() == 1 {
        if let Some((view, rows)) = pieces.next() {
            if let Some(columns) = view.topic_columns(rows.clone()) {
                stream.add_topic_columns(index, qid, columns.docnos(), |i| columns.docno(i), columns.scores);
                return;
            }
            docs.clear();
            view.push_docs(rows, docs);
            stream.add_topic(index, qid, docs);
            return;
        }
    }
    docs.clear();
    for (view, rows) in pieces {
        view.push_docs(rows, docs);
    }
    stream.add_topic(index, qid, docs);
}
