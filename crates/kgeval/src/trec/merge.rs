//! Partitioned evaluation: each partition of a run (any split of its topics, on any machine)
//! is evaluated to its per-topic rows and a [`RunAccumulator`]; accumulators merge in any
//! order, serialise to bytes, and finalise to the run's summary — trec_eval's summary lines
//! over the union of the partitions.
//!
//! By default an accumulator keeps its partition's topic values (the *ledger*), so the
//! finalised summary is [`TrecTask::run`]'s on one machine byte for byte: trec_eval's
//! sequential sum in qid order, whatever the partition. That costs one value per topic and
//! measure, the order of the qid set `-c` keeps anyway. A compact accumulator
//! ([`RunAccumulator::forget_topics`]) keeps exact sums only: its summary is the correctly
//! rounded exact mean of the topic values (see [`kgeval_metrics::trec::SummaryAccumulator`]),
//! equal to one machine's to 1e-12 and printed with the same four decimals but when a value
//! lies within a few units in the last place of a rounding boundary (docs/trec.md,
//! "Partitioned evaluation").
//!
//! A partition is any share of the topics, each topic whole on both sides: its run lines and
//! its judgments. Either side may be empty — a partition of topics that only the run holds,
//! of topics that only the qrels judge, or of none — and finalisation decides, with the
//! one-machine rule, which topics count: those of the run that the qrels judge, and under
//! `-c` every qrels topic (one missing from every partition scored as a topic with no run
//! line).

use kgeval_metrics::trec::{evaluate_run, evaluate_topic, AccumulateError};
use kgeval_model::trec::{IrEvaluation, Qrels, QuerySet, Run, RunEvaluation, RunSource, TopicScores};

use super::{run_table, topics_note, InternedRun, TrecTask};
use crate::evaluation::canonical_table;
use crate::{Conventions, Error, Evaluation, Family, FamilyResult, Warning};
#[cfg(feature = "arrow")]
use kgeval_formats::arrow::{arrow_array, arrow_schema::ArrowError, arrow_schema::Schema, QrelsColumns, RunColumns};

/// One run's summary state over a partition of its topics: merge, serialise, finalise.
pub use kgeval_metrics::trec::SummaryAccumulator as RunAccumulator;

/// One partition of a run, evaluated: its per-topic rows (the topics of the partition that
/// the qrels judge, in qid order; no `-c` rows, which finalisation adds once) and its
/// accumulator.
#[derive(Debug, Clone)]
pub struct RunPartition {
    /// The partition's topics, evaluated as [`TrecTask::run`] evaluates them.
    pub evaluation: RunEvaluation,
    /// The partition's summary state.
    pub accumulator: RunAccumulator,
}

impl From<AccumulateError> for Error {
    fn from(error: AccumulateError) -> Self {
        Error::invalid(error.to_string())
    }
}

impl TrecTask {
    /// Evaluates one partition of a run held in memory (any subset of its topics, each topic
    /// whole): its per-topic rows and its [`RunAccumulator`], which keeps the topics' values
    /// (the one-machine summary, byte for byte; [`RunAccumulator::forget_topics`] makes it
    /// compact). A partition may hold no judged topic.
    ///
    /// ```
    /// use kgeval::trec::TrecTask;
    /// use kgeval_model::trec::{Qrels, Run};
    /// let mut qrels = Qrels::new();
    /// let (mut a, mut b) = (Run::default(), Run::default());
    /// for (qid, run, rank_of_d1) in [("q1", &mut a, 1.0), ("q2", &mut b, 2.0)] {
    ///     qrels.topic_mut(qid).insert("d1", 1);
    ///     run.push(qid, "d1", 3.0 - rank_of_d1);
    ///     run.push(qid, "d2", 1.5);
    /// }
    /// let task = TrecTask::new("qrels").measure("recip_rank");
    /// let mut merged = task.accumulate_in_memory(&qrels, &b)?.accumulator;
    /// merged.merge(&task.accumulate_in_memory(&qrels, &a)?.accumulator)?;
    /// let bytes = merged.to_bytes();
    /// let evaluation = task.finalize_accumulators(Some(&qrels), "qrels", vec![("run".into(), kgeval::trec::RunAccumulator::from_bytes(&bytes)?)])?;
    /// assert_eq!(evaluation.headline("run", "recip_rank"), Some(0.75));
    /// # Ok::<(), kgeval::Error>(())
    /// ```
    ///
    /// # Errors
    /// An unknown measure; a document retrieved twice for one topic; a score that is not
    /// finite.
    pub fn accumulate_in_memory(&self, qrels: &Qrels, run: &Run) -> Result<RunPartition, Error> {
        for (qid, docs) in &run.topics {
            if let Some(doc) = docs.iter().find(|d| !d.score.is_finite()) {
                return Err(Error::invalid(format!(
                    "topic {qid}: document {} has score {}, expected a finite score",
                    doc.docno, doc.score
                )));
            }
        }
        self.accumulate_source(qrels, run)
    }

    /// [`TrecTask::accumulate_in_memory`] for a partition in a run file (`qid Q0 docno rank
    /// score tag` lines, or a Parquet or Arrow IPC table as [`TrecTask::run`] reads them).
    ///
    /// # Errors
    /// As [`TrecTask::accumulate_in_memory`]; a file that cannot be read or is malformed.
    pub fn accumulate_file(&self, qrels: &Qrels, run: &kgeval_formats::Input) -> Result<RunPartition, Error> {
        match super::open_run(run)? {
            super::OpenedRun::Text(run) => self.accumulate_source(qrels, &run),
            #[cfg(feature = "arrow")]
            super::OpenedRun::Arrow(run) => self.accumulate_interned(qrels, &run),
        }
    }

    /// [`TrecTask::accumulate_in_memory`] for a run whose document ids are interned.
    ///
    /// # Errors
    /// As [`TrecTask::accumulate_in_memory`].
    pub fn accumulate_interned(&self, qrels: &Qrels, run: &InternedRun) -> Result<RunPartition, Error> {
        match run.first_problem() {
            None => self.accumulate_source(qrels, run),
            Some((qid, docno, Some(score))) => {
                Err(Error::invalid(format!("topic {qid}: document {docno} has score {score}, expected a finite score")))
            }
            Some((qid, docno, None)) => {
                Err(Error::invalid(format!("topic {qid}: document {docno} is retrieved twice")))
            }
        }
    }

    /// Evaluates a partition of any [`RunSource`] (the intersection of its topics with the
    /// qrels; `-c` is applied by [`TrecTask::finalize_accumulators`]).
    fn accumulate_source<S: RunSource>(&self, qrels: &Qrels, run: &S) -> Result<RunPartition, Error>
    where
        S::Error: std::fmt::Display,
    {
        let measures = self.measure_set()?;
        let options = self.options();
        let partition = kgeval_model::trec::IrOptions { query_set: QuerySet::Intersection, ..options };
        let evaluation = evaluate_run(qrels, run, &measures, &partition).map_err(|e| Error::invalid(e.to_string()))?;
        let mut accumulator = RunAccumulator::from_partition(self.measures.clone(), &measures, &options, &evaluation);
        accumulator.keep_topics(&evaluation)?;
        Ok(RunPartition { evaluation, accumulator })
    }

    /// The task an accumulator was made by: its measures and options, on `qrels` (only
    /// named). What finalises bytes received from elsewhere.
    #[must_use]
    pub fn for_accumulator(accumulator: &RunAccumulator, qrels: impl Into<kgeval_formats::Input>) -> Self {
        let options = accumulator.options();
        TrecTask {
            measures: accumulator.spec().to_vec(),
            complete: options.query_set == QuerySet::Complete,
            level: options.relevance_level,
            ndcg_level: options.ndcg_uses_level,
            max_docs: options.max_docs,
            tie_break: options.tie_break,
            ties: options.ties,
            ..TrecTask::new(qrels)
        }
    }

    /// The per-topic rows that finalising `accumulator` adds under `-c`: every qrels topic
    /// that no merged partition holds, scored as one machine scores a judged topic without a
    /// run line, in qid order; none without `-c`. What a front end that gathered the
    /// partitions' own rows (Spark's per-query table) appends to them.
    ///
    /// # Errors
    /// An accumulator made with other measures or options than this task's.
    pub fn absent_topics(&self, qrels: &Qrels, accumulator: &RunAccumulator) -> Result<Vec<TopicScores>, Error> {
        let measures = self.measure_set()?;
        let options = self.options();
        if accumulator.spec() != self.measures.as_slice() || accumulator.options() != &options {
            return Err(Error::invalid("the accumulator was made by a task with other measures or options"));
        }
        if options.query_set != QuerySet::Complete {
            return Ok(Vec::new());
        }
        let merged = accumulator.finalize(&measures, Some(qrels))?;
        Ok(merged
            .qrels_topics_missing_from_run
            .iter()
            .map(|qid| evaluate_topic(qrels, qid, None, &measures, &options).scores)
            .collect())
    }

    /// The evaluation of merged runs: each `(name, accumulator)` finalised (trec_eval's summary
    /// lines over the union of its partitions; under `-c` the qrels topics missing from every
    /// partition added once), with the note and headlines [`TrecTask::run`] gives. When every
    /// partition kept its topics (the default), the per-topic rows come back and the summary
    /// is the one-machine one, byte for byte; after [`RunAccumulator::forget_topics`] on any
    /// of them, no per-topic rows and the correctly rounded exact mean. `qrels` are needed
    /// under `-c` (and list the qrels topics missing from the run otherwise).
    ///
    /// # Errors
    /// An accumulator made with other measures or options than this task's; `-c` without
    /// qrels; no run, two runs with one name; a run with no evaluated topic (unless `-c`).
    pub fn finalize_accumulators(
        &self,
        qrels: Option<&Qrels>,
        qrels_name: &str,
        runs: Vec<(String, RunAccumulator)>,
    ) -> Result<Evaluation, Error> {
        let measures = self.measure_set()?;
        let options = self.options();
        if runs.is_empty() {
            return Err(Error::invalid("trec: expected at least one run"));
        }
        let names = crate::system_names(
            &runs
                .iter()
                .map(|(name, _)| crate::SystemInput::named(name.clone(), kgeval_formats::Input::path(name)))
                .collect::<Vec<_>>(),
        )?;
        let mut evaluation =
            IrEvaluation { qrels_source: qrels_name.to_owned(), options: options.clone(), measures, runs: Vec::new() };
        let (mut warnings, mut tables) = (Vec::new(), Vec::new());
        for (name, accumulator) in runs {
            if accumulator.spec() != self.measures.as_slice() || accumulator.options() != &options {
                return Err(Error::invalid(format!(
                    "run {name}: the accumulator was made by a task with other measures or options"
                )));
            }
            let mut result = accumulator.finalize(&evaluation.measures, qrels)?;
            let added =
                if options.query_set == QuerySet::Complete { result.qrels_topics_missing_from_run.len() } else { 0 };
            let topics = accumulator.topics() + added;
            if topics == 0 {
                return Err(Error::unfit(format!(
                    "run {name}: no topic in common with {qrels_name} ({} run topics; -c scores every qrels topic)",
                    result.run_topics_missing_from_qrels.len()
                )));
            }
            result.name.clone_from(&name);
            result.source.clone_from(&name);
            let mut note = topics_note(&result, &options);
            if result.topics.is_empty() {
                // Without a ledger: the merged topics' count, not the (absent) rows'.
                if let Some(rest) = note.message.strip_prefix("0 topics evaluated") {
                    note.message = format!("{topics} topics evaluated{rest}");
                }
            }
            warnings.push(Warning { scope: format!("run {name}"), diagnostic: note });
            tables.push(run_table(&result, &evaluation.measures));
            evaluation.runs.push(result);
        }
        Ok(Evaluation {
            family: Family::Trec,
            systems: names,
            conventions: Conventions::Trec(options),
            warnings,
            table: canonical_table(&tables)?,
            result: FamilyResult::Trec(evaluation),
        })
    }
}

/// `batches` without their leading empty batches, or `None` when no batch holds a row (an
/// error counts as a row: the reader reports it).
#[cfg(feature = "arrow")]
fn rows_ahead<E, I>(batches: I) -> Option<std::iter::Peekable<I>>
where
    I: Iterator<Item = Result<arrow_array::RecordBatch, E>>,
{
    let mut batches = batches.peekable();
    while matches!(batches.peek(), Some(Ok(batch)) if batch.num_rows() == 0) {
        batches.next();
    }
    batches.peek().is_some().then_some(batches)
}

/// A partition's judgments from record batches (`schema` theirs), as
/// [`read_qrels`](kgeval_formats::arrow::read_qrels) reads them, except that a partition may
/// hold none (its topics are judged nowhere, or it holds no topic): then the columns are
/// still checked and the qrels are empty. `what` names the input in errors; the reader's
/// warnings (columns it does not read) are left out.
///
/// # Errors
/// As [`read_qrels`](kgeval_formats::arrow::read_qrels), an empty table aside.
#[cfg(feature = "arrow")]
pub fn read_partition_qrels<I>(schema: &Schema, batches: I, what: &str) -> Result<Qrels, Error>
where
    I: IntoIterator<Item = Result<arrow_array::RecordBatch, ArrowError>>,
{
    match rows_ahead(batches.into_iter()) {
        Some(batches) => Ok(kgeval_formats::arrow::read_qrels(schema, batches, what)?.value),
        None => {
            QrelsColumns::resolve(schema, what)?;
            Ok(Qrels::new())
        }
    }
}

/// A partition's run lines from record batches (`columns` resolved in their schema), as
/// [`intern_run_batches`](super::arrow::intern_run_batches) reads them; a partition may hold
/// none (its topics are only in the qrels, or it holds no topic): then the run is empty.
///
/// # Errors
/// As [`intern_run_batches`](super::arrow::intern_run_batches), an empty table aside.
#[cfg(feature = "arrow")]
pub fn read_partition_run<E, I>(columns: &RunColumns, batches: I, what: &str) -> Result<InternedRun, Error>
where
    E: std::error::Error + 'static,
    I: IntoIterator<Item = Result<arrow_array::RecordBatch, E>>,
{
    match rows_ahead(batches.into_iter()) {
        Some(batches) => Ok(super::arrow::intern_run_batches(columns, batches, what)?),
        None => Ok(InternedRun::with_capacity(0, 0)),
    }
}

#[cfg(all(test, feature = "arrow"))]
mod tests {
    use std::sync::Arc;

    use kgeval_formats::arrow::arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
    use kgeval_formats::arrow::arrow_schema::{ArrowError, DataType, Field, Schema};
    use kgeval_formats::arrow::RunColumns;
    use kgeval_model::trec::RunSource;

    use super::{read_partition_qrels, read_partition_run};

    fn schema(value: &str, kind: DataType) -> Arc<Schema> {
        Arc::new(Schema::new(vec![
            Field::new("qid", DataType::Utf8, false),
            Field::new("docno", DataType::Utf8, false),
            Field::new(value, kind, false),
        ]))
    }

    fn batch(schema: &Arc<Schema>, qids: &[&str], values: ArrayRef) -> Result<RecordBatch, ArrowError> {
        let ids: ArrayRef = Arc::new(StringArray::from(qids.to_vec()));
        let docs: ArrayRef = Arc::new(StringArray::from(vec!["d1"; qids.len()]));
        RecordBatch::try_new(schema.clone(), vec![ids, docs, values])
    }

    #[test]
    fn a_partition_side_may_hold_no_row_but_keeps_its_columns() {
        let qrels = schema("rel", DataType::Int64);
        let empty = || batch(&qrels, &[], Arc::new(Int64Array::from(Vec::<i64>::new())));
        let read = read_partition_qrels(&qrels, Vec::new(), "qrels").expect("no batch");
        assert!(read.is_empty());
        assert!(read_partition_qrels(&qrels, vec![empty(), empty()], "qrels").expect("empty batches").is_empty());
        let judged = batch(&qrels, &["q1", "q2"], Arc::new(Int64Array::from(vec![1, 0])));
        let read = read_partition_qrels(&qrels, vec![empty(), judged], "qrels").expect("rows after an empty batch");
        assert_eq!(read.topics().count(), 2);
        // The columns are checked on an empty table too.
        let unnamed = schema("grade", DataType::Int64);
        assert!(read_partition_qrels(&unnamed, Vec::new(), "qrels").is_err());

        let run = schema("score", DataType::Float64);
        let columns = RunColumns::resolve(&run, "run").expect("run columns");
        let empty = batch(&run, &[], Arc::new(Float64Array::from(Vec::<f64>::new())));
        let read = read_partition_run(&columns, vec![empty], "run").expect("no row");
        assert_eq!(read.topic_count(), 0);
        let lines = batch(&run, &["q1"], Arc::new(Float64Array::from(vec![0.5])));
        assert_eq!(read_partition_run(&columns, vec![lines], "run").expect("a row").topic_count(), 1);
    }
}
