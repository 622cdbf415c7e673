//! `kgeval trec --tie-report`: every run under the tie-break's order and in expectation, its
//! tie counts, and the topics some tie order moves (docs/ties.md).

use kgeval_meta::kendall::kendall_tau;
use kgeval_metrics::trec::run_tie_counts;
use kgeval_model::meta::agreement::TauVariant;
use kgeval_model::trec::{
    MeasureFamily, MeasureSet, RunEvaluation, RunTieReport, TieReport, TieSensitivity, Ties, TopicInterval,
};

use super::{open_run, run_names, OpenedRun, TrecTask};
use crate::evaluation::FamilyResult;
use crate::{Error, Evaluation, Progress};

impl TrecTask {
    /// The tie report of every run: its tie counts (groups straddling each cutoff of the
    /// measures asked for), each summary measure under `trec` and `expected` with the
    /// [pessimistic, optimistic] interval, and per topic the intervals that are not a point.
    /// The runs are evaluated twice (`--ties trec` with this task's tie-break, and `range`).
    /// With two runs or more, Kendall's tau-b between their orderings under the two policies,
    /// per measure.
    ///
    /// # Errors
    /// As [`TrecTask::run`].
    pub fn tie_report(&self, progress: &dyn Progress) -> Result<TieReport, Error> {
        let runs_under = |ties: Ties| -> Result<Vec<RunEvaluation>, Error> {
            let evaluation: Evaluation = TrecTask { ties, ..self.clone() }.run(progress)?;
            match evaluation.result {
                FamilyResult::Trec(result) => Ok(result.runs),
                _ => Err(Error::invalid("trec: the evaluation returned another family's result")),
            }
        };
        let (trec, range) = (runs_under(Ties::Trec)?, runs_under(Ties::Range)?);
        let measures = self.measure_set()?;
        let mut cutoffs: Vec<usize> = measures.measures().iter().filter_map(|m| m.cutoff).map(|k| k as usize).collect();
        cutoffs.sort_unstable();
        cutoffs.dedup();
        let qrels = self.read_qrels()?;
        let orderings = orderings(&measures, &trec, &range)?;
        let names = run_names(&self.runs)?;
        let options = self.options();
        let mut reports = Vec::with_capacity(self.runs.len());
        for (((system, name), trec), range) in self.runs.iter().zip(names).zip(trec).zip(range) {
            let counts = match open_run(&system.input)? {
                OpenedRun::Text(run) => run_tie_counts(&qrels, &run, &options, &cutoffs).map_err(Error::from)?,
                #[cfg(feature = "arrow")]
                OpenedRun::Arrow(run) => match run_tie_counts(&qrels, &run, &options, &cutoffs) {
                    Ok(counts) => counts,
                    Err(never) => match never {},
                },
            };
            let sensitivity = measures
                .measures()
                .iter()
                .enumerate()
                .filter(|(_, m)| valued(m.family) && m.family.has_summary())
                .map(|(i, m)| TieSensitivity {
                    measure: m.name.clone(),
                    trec: trec.summary[i],
                    expected: range.summary[i],
                    range: range.summary_ranges.get(i).copied().unwrap_or((range.summary[i], range.summary[i])),
                })
                .collect();
            let topics = range
                .topics
                .iter()
                .filter_map(|topic| {
                    let intervals: Vec<(String, f64, f64)> = measures
                        .measures()
                        .iter()
                        .zip(&topic.ranges)
                        .filter(|(m, r)| valued(m.family) && m.family.per_topic() && r.0 < r.1)
                        .map(|(m, r)| (m.name.clone(), r.0, r.1))
                        .collect();
                    (!intervals.is_empty()).then(|| TopicInterval { qid: topic.qid.clone(), intervals })
                })
                .collect();
            reports.push(RunTieReport { run: name, counts, measures: sensitivity, topics });
        }
        Ok(TieReport { runs: reports, orderings })
    }

    /// Per summary measure, Kendall's tau-b between the runs' orderings under `--ties trec`
    /// and under `expected` (`kgeval compare --qrels`); empty with fewer than two runs or when
    /// no run ties scores. `evaluated` are this task's runs already evaluated under its own
    /// policy, reused when that is one of the two.
    ///
    /// # Errors
    /// As [`TrecTask::run`].
    pub fn tie_orderings(
        &self,
        evaluated: &[RunEvaluation],
        progress: &dyn Progress,
    ) -> Result<Vec<(String, f64)>, Error> {
        if evaluated.len() < 2 || evaluated.iter().all(|run| run.topics_with_tied_scores == 0) {
            return Ok(Vec::new());
        }
        let under = |ties: Ties| -> Result<std::borrow::Cow<'_, [RunEvaluation]>, Error> {
            if ties == self.ties {
                return Ok(std::borrow::Cow::Borrowed(evaluated));
            }
            let evaluation: Evaluation = TrecTask { ties, ..self.clone() }.run(progress)?;
            match evaluation.result {
                FamilyResult::Trec(result) => Ok(std::borrow::Cow::Owned(result.runs)),
                _ => Err(Error::invalid("trec: the evaluation returned another family's result")),
            }
        };
        orderings(&self.measure_set()?, &under(Ties::Trec)?, &under(Ties::Expected)?)
    }
}

/// Whether a measure's summary is a value (not the run id or the relevance string).
fn valued(family: MeasureFamily) -> bool {
    !matches!(family, MeasureFamily::Runid | MeasureFamily::Relstring)
}

/// Per measure with a summary value, Kendall's tau-b between the runs' summaries in `trec`
/// and in `expected` (the same runs in the same order; a `range` evaluation's summaries are
/// the expected values); empty with fewer than two runs.
fn orderings(
    measures: &MeasureSet,
    trec: &[RunEvaluation],
    expected: &[RunEvaluation],
) -> Result<Vec<(String, f64)>, Error> {
    if trec.len() < 2 {
        return Ok(Vec::new());
    }
    measures
        .measures()
        .iter()
        .enumerate()
        .filter(|(_, m)| valued(m.family) && m.family.has_summary())
        .map(|(i, m)| {
            let under_trec: Vec<f64> = trec.iter().map(|r| r.summary[i]).collect();
            let under_expected: Vec<f64> = expected.iter().map(|r| r.summary[i]).collect();
            let tau =
                kendall_tau(&under_trec, &under_expected, TauVariant::B).map_err(|e| Error::invalid(e.to_string()))?;
            Ok((m.name.clone(), tau.tau))
        })
        .collect()
}
