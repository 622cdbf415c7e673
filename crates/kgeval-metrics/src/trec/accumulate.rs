//! Mergeable summaries: the state of one run's summary over a partition of its topics, which
//! merges with other partitions' in any order, bit for bit, and finalises to the summary lines
//! of the union ([`SummaryAccumulator`]).
//!
//! Per measure it keeps exact sums ([`ExactSum`]) of the topic values (of their floored
//! logarithms for `gm_*`), of the `--ties range` bounds and of the squared standard errors;
//! per run the evaluated qids (so a topic in two partitions is an error, and `-c` adds the
//! qrels topics missing from every partition once, at the end), the run topics without qrels,
//! the topics with tied scores and the run tags.
//!
//! **Relation to [`assemble_run`](super::assemble_run).** One machine sums topic values in qid
//! order with `f64` additions (trec_eval's arithmetic, byte-identical to trec_eval 10.0). A
//! finalised accumulator gives the *correctly rounded* exact mean, which does not depend on
//! the partition: the two differ by a few units in the last place (|Δ| ≤ n·2⁻⁵³·Σ|v|/n), so
//! they agree to 1e-12 and print the same four decimals except when a value lies within that
//! distance of a rounding boundary (`x.xxxx5`). An accumulator that keeps its topics
//! ([`SummaryAccumulator::keep_topics`]) finalises through `assemble_run` itself: byte-identical.

use kgeval_model::trec::{Aggregation, IrOptions, MeasureFamily, MeasureSet, Qrels, QuerySet, RunEvaluation, Ties};
use kgeval_model::trec::{TieBreak, TopicScores};

use super::{assemble_run, evaluate_topic, TopicOutcome, MIN_GEO_MEAN};
use crate::bytes::{Reader, Writer};
use crate::exact::ExactSum;

/// The kind byte of a serialised [`SummaryAccumulator`].
pub const SUMMARY_KIND: u8 = 1;

/// The layout version [`SummaryAccumulator::to_bytes`] writes.
pub const SUMMARY_VERSION: u16 = 1;

/// Why accumulators do not merge, finalise or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccumulateError {
    /// Made with other measures or options.
    #[error("accumulators differ: {0}")]
    Incompatible(String),
    /// A topic in two partitions.
    #[error("{count} topics are in two partitions (the first: {first}), expected each topic in one partition")]
    DuplicateTopics {
        /// How many qids two partitions share.
        count: usize,
        /// The first in byte order.
        first: String,
    },
    /// `-c` without the qrels.
    #[error("complete (-c): expected the qrels, to add the qrels topics missing from every partition")]
    MissingQrels,
    /// Bytes that are not an accumulator's.
    #[error("{0}")]
    Bytes(String),
}

/// What one measure's summary needs: exact sums over the topics.
#[derive(Debug, Clone, PartialEq, Default)]
struct MeasureSums {
    /// Σ value (Σ ln max(value, floor) for geometric means).
    value: ExactSum,
    /// The same of the pessimistic and optimistic values (`--ties range`).
    low: ExactSum,
    high: ExactSum,
    /// Σ se² (Σ (se / max(value, floor))² for geometric means) over the topics with one.
    se: ExactSum,
    se_topics: u64,
}

/// One run's summary over a partition of its topics (see the module's text).
///
/// ```
/// use kgeval_metrics::trec::{evaluate_run, SummaryAccumulator};
/// use kgeval_model::trec::{IrOptions, MeasureRequest, MeasureSet, Qrels, Run};
///
/// let mut qrels = Qrels::new();
/// let (mut left, mut right) = (Run::default(), Run::default());
/// for (i, run) in [&mut left, &mut right].into_iter().enumerate() {
///     let qid = format!("q{i}");
///     qrels.topic_mut(&qid).insert("d1", 1);
///     run.push(&qid, "d0", 2.0);
///     run.push(&qid, "d1", 1.0 + i as f64 * 2.0);
/// }
/// let measures = MeasureSet::from_requests(&[MeasureRequest::parse("recip_rank").unwrap()]);
/// let options = IrOptions::default();
/// let part = |run: &Run| {
///     let evaluation = evaluate_run(&qrels, run, &measures, &options).unwrap();
///     SummaryAccumulator::from_partition(vec!["recip_rank".into()], &measures, &options, &evaluation)
/// };
/// let mut merged = part(&right);
/// merged.merge(&part(&left))?;
/// let summary = merged.finalize(&measures, Some(&qrels))?;
/// assert_eq!(summary.summary, [0.75]); // (1/2 + 1) / 2
/// # Ok::<(), kgeval_metrics::trec::AccumulateError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryAccumulator {
    spec: Vec<String>,
    names: Vec<String>,
    options: IrOptions,
    run_ids: Vec<String>,
    evaluated: Vec<String>,
    unjudged: Vec<String>,
    tied_topics: u64,
    sums: Vec<MeasureSums>,
    /// The evaluated topics kept whole with their relevance strings
    /// ([`SummaryAccumulator::keep_topics`]), in qid order.
    ledger: Option<Vec<(TopicScores, String)>>,
}

/// The value a measure's sums take from a topic value: itself, or its floored logarithm.
fn summand(family: MeasureFamily, value: f64) -> f64 {
    if family.aggregation() == Aggregation::GeometricMean {
        value.max(MIN_GEO_MEAN).ln()
    } else {
        value
    }
}

impl SummaryAccumulator {
    /// The accumulator of one partition's evaluation (made by [`evaluate_run`](super::evaluate_run)
    /// with `options`, whose query set must be the intersection: `-c` is applied by
    /// [`finalize`](Self::finalize)). `spec` is kept as given (the caller's measure requests,
    /// so the bytes alone say what was measured).
    #[must_use]
    pub fn from_partition(
        spec: Vec<String>,
        measures: &MeasureSet,
        options: &IrOptions,
        evaluation: &RunEvaluation,
    ) -> Self {
        let mut accumulator = SummaryAccumulator {
            spec,
            names: measures.measures().iter().map(|m| m.name.clone()).collect(),
            options: options.clone(),
            // A partition without a run line (its topics only in the qrels, or none) has no
            // tag of its own: the empty run's placeholder would outrank the real one.
            run_ids: if evaluation.topics.is_empty() && evaluation.run_topics_missing_from_qrels.is_empty() {
                Vec::new()
            } else {
                vec![evaluation.run_id.clone()]
            },
            evaluated: Vec::with_capacity(evaluation.topics.len()),
            unjudged: evaluation.run_topics_missing_from_qrels.clone(),
            tied_topics: evaluation.topics_with_tied_scores as u64,
            sums: vec![MeasureSums::default(); measures.len()],
            ledger: None,
        };
        for topic in evaluation.topics.iter().filter(|t| !t.missing_from_run) {
            accumulator.add_topic(measures, topic);
            accumulator.evaluated.push(topic.qid.clone());
        }
        accumulator.evaluated.sort_unstable();
        accumulator.unjudged.sort_unstable();
        accumulator
    }

    /// Adds one topic's values to the sums.
    fn add_topic(&mut self, measures: &MeasureSet, topic: &TopicScores) {
        for (i, (measure, sums)) in measures.measures().iter().zip(&mut self.sums).enumerate() {
            let value = topic.values[i];
            sums.value.add(summand(measure.family, value));
            if self.options.ties == Ties::Range {
                let (low, high) = topic.ranges.get(i).copied().unwrap_or((value, value));
                sums.low.add(summand(measure.family, low));
                sums.high.add(summand(measure.family, high));
            }
            if let Some(se) = topic.std_errors.get(i).copied().flatten() {
                let relative = if measure.family.aggregation() == Aggregation::GeometricMean {
                    se / value.max(MIN_GEO_MEAN)
                } else {
                    se
                };
                sums.se.add(relative * relative);
                sums.se_topics += 1;
            }
        }
    }

    /// Keeps the partition's topics whole (the *ledger*): finalisation then sums them in qid
    /// order as one machine does ([`assemble_run`](super::assemble_run)), so the summary is
    /// trec_eval's byte for byte whatever the partition, and the per-topic rows come back.
    /// Costs a value per topic and measure; a merge keeps the ledger only when both sides
    /// have one.
    ///
    /// # Errors
    /// [`AccumulateError::Incompatible`] when `evaluation` is not the partition this
    /// accumulator was made from.
    pub fn keep_topics(&mut self, evaluation: &RunEvaluation) -> Result<(), AccumulateError> {
        let mut topics: Vec<(TopicScores, String)> = evaluation
            .topics
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.missing_from_run)
            .map(|(i, t)| (t.clone(), evaluation.relstrings.get(i).cloned().unwrap_or_default()))
            .collect();
        topics.sort_unstable_by(|a, b| a.0.qid.cmp(&b.0.qid));
        if !topics.iter().map(|t| &t.0.qid).eq(&self.evaluated) {
            return Err(AccumulateError::Incompatible("the topics of another partition".to_owned()));
        }
        self.ledger = Some(topics);
        Ok(())
    }

    /// Drops the kept topics ([`keep_topics`](Self::keep_topics)), leaving the exact sums
    /// alone: the compact accumulator, whose summary is the correctly rounded exact mean.
    pub fn forget_topics(&mut self) {
        self.ledger = None;
    }

    /// Whether the topics are kept whole ([`keep_topics`](Self::keep_topics)).
    #[must_use]
    pub fn keeps_topics(&self) -> bool {
        self.ledger.is_some()
    }

    /// The evaluated topics (qrels topics of the run), in byte order.
    #[must_use]
    pub fn evaluated_topics(&self) -> &[String] {
        &self.evaluated
    }

    /// The measure requests the accumulator was made with (as given to
    /// [`from_partition`](Self::from_partition)).
    #[must_use]
    pub fn spec(&self) -> &[String] {
        &self.spec
    }

    /// The options the partitions were evaluated with (the query set included: `-c` applies
    /// at [`finalize`](Self::finalize)).
    #[must_use]
    pub fn options(&self) -> &IrOptions {
        &self.options
    }

    /// Adds `other`'s partition. The result does not depend on the order of merges (the
    /// accumulators are equal field by field, and serialise to the same bytes).
    ///
    /// # Errors
    /// [`AccumulateError::Incompatible`] for other measures or options;
    /// [`AccumulateError::DuplicateTopics`] when a topic is in both (nothing is merged then).
    pub fn merge(&mut self, other: &SummaryAccumulator) -> Result<(), AccumulateError> {
        if self.spec != other.spec || self.names != other.names {
            return Err(AccumulateError::Incompatible(format!(
                "measures {:?} and {:?}",
                self.spec.join(" "),
                other.spec.join(" ")
            )));
        }
        if self.options != other.options {
            return Err(AccumulateError::Incompatible(format!("options {:?} and {:?}", self.options, other.options)));
        }
        let mine = union(&self.evaluated, &self.unjudged);
        let theirs = union(&other.evaluated, &other.unjudged);
        let shared = intersection(&mine, &theirs);
        if let Some(first) = shared.first() {
            return Err(AccumulateError::DuplicateTopics { count: shared.len(), first: (*first).to_owned() });
        }
        self.evaluated = merge_sorted(&self.evaluated, &other.evaluated);
        self.unjudged = merge_sorted(&self.unjudged, &other.unjudged);
        self.run_ids = merge_sorted(&self.run_ids, &other.run_ids);
        self.run_ids.dedup();
        self.tied_topics += other.tied_topics;
        self.ledger = match (self.ledger.take(), &other.ledger) {
            (Some(mine), Some(theirs)) => {
                let mut all: Vec<(TopicScores, String)> = mine.into_iter().chain(theirs.iter().cloned()).collect();
                all.sort_unstable_by(|a, b| a.0.qid.cmp(&b.0.qid));
                Some(all)
            }
            _ => None,
        };
        for (a, b) in self.sums.iter_mut().zip(&other.sums) {
            a.value.merge(&b.value);
            a.low.merge(&b.low);
            a.high.merge(&b.high);
            a.se.merge(&b.se);
            a.se_topics += b.se_topics;
        }
        Ok(())
    }

    /// The run's summary over every merged partition: [`RunEvaluation`] with the summary, its
    /// ranges and standard errors, the topic bookkeeping and no per-topic rows (those are each
    /// partition's). Under `-c` the qrels topics missing from every partition are scored as
    /// [`evaluate_topic`] scores them and added once. `runid` is the run's tag when the
    /// partitions agree on it, else the greatest in byte order (a partition without a run
    /// line has none).
    ///
    /// # Errors
    /// [`AccumulateError::Incompatible`] when `measures` are not those of the accumulator;
    /// [`AccumulateError::MissingQrels`] under `-c` without `qrels`.
    pub fn finalize(&self, measures: &MeasureSet, qrels: Option<&Qrels>) -> Result<RunEvaluation, AccumulateError> {
        let names: Vec<&str> = measures.measures().iter().map(|m| m.name.as_str()).collect();
        if names != self.names {
            return Err(AccumulateError::Incompatible(format!(
                "measures {} and {}",
                self.names.join(","),
                names.join(",")
            )));
        }
        let complete = self.options.query_set == QuerySet::Complete;
        let mut sums = self.clone();
        let run_topics = union(&self.evaluated, &self.unjudged);
        let mut missing: Vec<String> = match qrels {
            Some(qrels) => qrels
                .topics()
                .map(|(qid, _)| qid)
                .filter(|qid| run_topics.binary_search(qid).is_err())
                .map(str::to_owned)
                .collect(),
            None if complete => return Err(AccumulateError::MissingQrels),
            None => Vec::new(),
        };
        missing.sort_unstable();
        if let Some(ledger) = &self.ledger {
            let empty = Qrels::new();
            let outcomes = ledger
                .iter()
                .map(|(t, relstring)| TopicOutcome { scores: t.clone(), relstring: relstring.clone(), tied: false })
                .collect();
            let run_id = self.run_ids.last().map_or("", String::as_str);
            let mut result =
                assemble_run(qrels.unwrap_or(&empty), run_id, &run_topics, outcomes, measures, &self.options);
            result.topics_with_tied_scores += self.tied_topics as usize;
            result.run_topics_missing_from_qrels.clone_from(&self.unjudged);
            return Ok(result);
        }
        let mut n = self.evaluated.len() as u64;
        if let (true, Some(qrels)) = (complete, qrels) {
            for qid in &missing {
                let outcome = evaluate_topic(qrels, qid, None, measures, &self.options);
                sums.add_topic(measures, &outcome.scores);
                sums.tied_topics += u64::from(outcome.tied);
                n += 1;
            }
        }
        let summarize = |pick: fn(&MeasureSums) -> &ExactSum| -> Vec<f64> {
            measures
                .measures()
                .iter()
                .zip(&sums.sums)
                .map(|(measure, s)| match measure.family.aggregation() {
                    Aggregation::Text => 0.0,
                    Aggregation::Count => n as f64,
                    Aggregation::Sum => pick(s).value(),
                    Aggregation::Mean => pick(s).mean(n),
                    Aggregation::GeometricMean if n == 0 => 0.0,
                    Aggregation::GeometricMean => pick(s).mean(n).exp(),
                })
                .collect()
        };
        let mut summary = summarize(|s| &s.value);
        let mut summary_ranges: Vec<(f64, f64)> = Vec::new();
        if self.options.ties == Ties::Range {
            summary_ranges = summarize(|s| &s.low).into_iter().zip(summarize(|s| &s.high)).collect();
        }
        if let (true, Some(qrels)) = (complete, qrels) {
            // m_num_rel.c under -c: every qrels line with rel > 0, whatever -l says.
            if let Some(i) = measures.measures().iter().position(|m| m.family == MeasureFamily::NumRel) {
                summary[i] =
                    qrels.topics().map(|(_, t)| t.relevances().filter(|&r| r > 0).count()).sum::<usize>() as f64;
                if let Some(range) = summary_ranges.get_mut(i) {
                    *range = (summary[i], summary[i]);
                }
            }
        }
        let mut summary_std_errors = Vec::new();
        if sums.sums.iter().any(|s| s.se_topics > 0) {
            summary_std_errors = measures
                .measures()
                .iter()
                .zip(&sums.sums)
                .enumerate()
                .map(|(i, (measure, s))| {
                    let root = s.se.value().sqrt();
                    (s.se_topics > 0).then_some(()).and(match measure.family.aggregation() {
                        Aggregation::Text | Aggregation::Count => None,
                        Aggregation::Sum => Some(root),
                        Aggregation::Mean => Some(root / n as f64),
                        Aggregation::GeometricMean => Some(summary[i] * root / n as f64),
                    })
                })
                .collect();
        }
        Ok(RunEvaluation {
            run_id: self.run_ids.last().cloned().unwrap_or_default(),
            name: String::new(),
            source: String::new(),
            summary,
            topics: Vec::new(),
            relstrings: Vec::new(),
            qrels_topics_missing_from_run: missing,
            run_topics_missing_from_qrels: self.unjudged.clone(),
            topics_with_tied_scores: sums.tied_topics as usize,
            summary_ranges,
            summary_std_errors,
        })
    }

    /// The number of topics the merged partitions evaluated (qrels topics of the run).
    #[must_use]
    pub fn topics(&self) -> usize {
        self.evaluated.len()
    }

    /// The canonical bytes (layout version [`SUMMARY_VERSION`], documented in
    /// `docs/ARCHITECTURE.md`): equal accumulators give equal bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::with_header(SUMMARY_KIND, SUMMARY_VERSION);
        w.strs(&self.spec);
        w.strs(&self.names);
        w.str(self.options.tie_break.name());
        w.str(self.options.ties.name());
        w.str(self.options.query_set.name());
        w.i64(self.options.relevance_level);
        w.u8(u8::from(self.options.ndcg_uses_level));
        w.u64(self.options.max_docs.map_or(u64::MAX, |m| m as u64));
        w.strs(&self.run_ids);
        w.strs(&self.evaluated);
        w.strs(&self.unjudged);
        w.u64(self.tied_topics);
        for s in &self.sums {
            for sum in [&s.value, &s.low, &s.high, &s.se] {
                w.sum(sum);
            }
            w.u64(s.se_topics);
        }
        w.u8(u8::from(self.ledger.is_some()));
        for (topic, relstring) in self.ledger.iter().flatten() {
            w.str(&topic.qid);
            w.str(relstring);
            for &v in &topic.values {
                w.u64(v.to_bits());
            }
            w.len(topic.ranges.len());
            for &(low, high) in &topic.ranges {
                w.u64(low.to_bits());
                w.u64(high.to_bits());
            }
            w.len(topic.std_errors.len());
            for se in &topic.std_errors {
                w.u64(se.map_or(u64::MAX, f64::to_bits));
            }
        }
        w.out
    }

    /// Reads [`to_bytes`](Self::to_bytes)' layout.
    ///
    /// # Errors
    /// [`AccumulateError::Bytes`] saying what is wrong: not an accumulator, another kind or a
    /// newer version, truncated or malformed.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, AccumulateError> {
        let (mut r, version) =
            Reader::with_header(bytes, SUMMARY_KIND, "a trec summary accumulator").map_err(AccumulateError::Bytes)?;
        if version != SUMMARY_VERSION {
            return Err(AccumulateError::Bytes(format!(
                "found a trec summary accumulator of layout version {version}, expected version {SUMMARY_VERSION}"
            )));
        }
        read_summary(&mut r)
            .filter(|_| r.done())
            .ok_or_else(|| AccumulateError::Bytes("found a truncated or malformed trec summary accumulator".to_owned()))
    }
}

/// The body of a serialised accumulator.
fn read_summary(r: &mut Reader<'_>) -> Option<SummaryAccumulator> {
    let spec = r.strs()?;
    let names = r.strs()?;
    let tie_break = TieBreak::from_name(&r.str()?)?;
    let ties = Ties::from_name(&r.str()?)?;
    let query_set = match r.str()?.as_str() {
        "intersection" => QuerySet::Intersection,
        "complete" => QuerySet::Complete,
        _ => return None,
    };
    let relevance_level = r.i64()?;
    let ndcg_uses_level = match r.u8()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let max_docs = match r.u64()? {
        u64::MAX => None,
        m => Some(usize::try_from(m).ok()?),
    };
    let options = IrOptions { tie_break, ties, query_set, relevance_level, ndcg_uses_level, max_docs };
    let (run_ids, evaluated, unjudged, tied_topics) = (r.strs()?, r.strs()?, r.strs()?, r.u64()?);
    let sorted = |v: &[String]| v.windows(2).all(|w| w[0] < w[1]);
    if !(sorted(&run_ids) && sorted(&evaluated) && sorted(&unjudged)) {
        return None;
    }
    let mut sums = Vec::with_capacity(names.len());
    for _ in 0..names.len() {
        let (value, low, high, se, se_topics) = (r.sum()?, r.sum()?, r.sum()?, r.sum()?, r.u64()?);
        sums.push(MeasureSums { value, low, high, se, se_topics });
    }
    let ledger = match r.u8()? {
        0 => None,
        1 => Some(read_ledger(r, &evaluated, names.len())?),
        _ => return None,
    };
    Some(SummaryAccumulator { spec, names, options, run_ids, evaluated, unjudged, tied_topics, sums, ledger })
}

/// The topics kept whole: one per evaluated qid, in order.
fn read_ledger(r: &mut Reader<'_>, evaluated: &[String], measures: usize) -> Option<Vec<(TopicScores, String)>> {
    let float = |r: &mut Reader<'_>| r.u64().map(f64::from_bits);
    let mut topics = Vec::with_capacity(evaluated.len());
    for qid in evaluated {
        if &r.str()? != qid {
            return None;
        }
        let relstring = r.str()?;
        let values = (0..measures).map(|_| float(r)).collect::<Option<Vec<f64>>>()?;
        let n = r.len()?;
        let ranges = (0..n).map(|_| Some((float(r)?, float(r)?))).collect::<Option<Vec<_>>>()?;
        let n = r.len()?;
        let std_errors = (0..n)
            .map(|_| r.u64().map(|bits| (bits != u64::MAX).then(|| f64::from_bits(bits))))
            .collect::<Option<Vec<_>>>()?;
        topics.push((TopicScores { qid: qid.clone(), missing_from_run: false, values, ranges, std_errors }, relstring));
    }
    Some(topics)
}

/// The sorted union of two sorted lists (duplicates kept).
fn merge_sorted(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i].clone());
            i += 1;
        } else {
            out.push(b[j].clone());
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The sorted union of two sorted lists, borrowed.
fn union<'a>(a: &'a [String], b: &'a [String]) -> Vec<&'a str> {
    let mut out: Vec<&str> = a.iter().chain(b).map(String::as_str).collect();
    out.sort_unstable();
    out
}

/// The strings in both sorted lists.
fn intersection<'a>(a: &[&'a str], b: &[&str]) -> Vec<&'a str> {
    a.iter().copied().filter(|x| b.binary_search(x).is_ok()).collect()
}
