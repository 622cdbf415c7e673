//! Running a campaign: every task and `[[compare]]` in parallel (rayon), then the comparisons
//! that wait for another task's table (`against`). A failure stays in its outcome.

use std::path::{Path, PathBuf};

use kgeval_report::RenderOptions;
use rayon::prelude::*;

use super::{Campaign, CampaignOutcome, CampaignTask, ComparisonOutcome, TaskOutcome};
use crate::compare::CompareEvaluation;
use crate::write::OutputDirectory;
use crate::{Error, Evaluation, NoProgress, Progress};

/// The progress of a campaign: one [`Progress`] per task or comparison (the CLI shows one
/// bar each on a terminal). Called from rayon threads.
pub trait CampaignProgress: Sync {
    /// The progress of the task (or `[[compare]]`) `name`; dropped when it is done.
    fn task(&self, name: &str) -> Box<dyn Progress + '_>;
}

impl CampaignProgress for NoProgress {
    fn task(&self, _name: &str) -> Box<dyn Progress + '_> {
        Box::new(NoProgress)
    }
}

/// `kgeval run MANIFEST -o DIR` for every front end: reads the manifest, checks `dir` before
/// any work ([`OutputDirectory::check`]: new, empty or an earlier output, apart from the
/// manifest and every input), runs the campaign and writes its files
/// ([`CampaignOutcome::files`]) with the marker, all or nothing. A task that fails keeps its
/// error in the outcome; the files are written all the same.
///
/// # Errors
/// A manifest that cannot be read, a refused `dir`, a file that cannot be written.
pub fn run_into(
    manifest: &Path,
    dir: &Path,
    options: &RenderOptions,
    progress: &dyn CampaignProgress,
) -> Result<CampaignOutcome, Error> {
    let campaign = Campaign::read(manifest)?;
    let output = OutputDirectory::check(dir, &campaign.input_paths(manifest))?;
    let outcome = campaign.run(progress);
    output.write(&outcome.files(options))?;
    Ok(outcome)
}

impl Campaign {
    /// Every file the campaign reads: the manifest, then each task's and comparison's inputs.
    #[must_use]
    pub fn input_paths(&self, manifest: &Path) -> Vec<PathBuf> {
        let mut inputs = vec![manifest.to_path_buf()];
        for task in &self.tasks {
            inputs.extend(task.task.input_paths());
        }
        for comparison in &self.comparisons {
            inputs.extend(comparison.task.input_paths());
        }
        inputs
    }

    /// Runs every task and comparison. Tasks run in parallel; a task's `compare` runs right
    /// after its evaluation, or, with `against`, once both tasks are evaluated. A failing task
    /// keeps its error in its outcome and the others still finish.
    #[must_use]
    pub fn run(&self, progress: &dyn CampaignProgress) -> CampaignOutcome {
        let (first, comparisons) = rayon::join(
            || self.tasks.par_iter().map(|task| evaluate(task, progress)).collect::<Vec<_>>(),
            || {
                self.comparisons
                    .par_iter()
                    .map(|c| {
                        let bar = progress.task(&c.name);
                        ComparisonOutcome { name: c.name.clone(), compare: c.task.run(&*bar) }
                    })
                    .collect::<Vec<_>>()
            },
        );
        // The comparisons that wait for another task's table.
        let late: Vec<Option<Result<CompareEvaluation, Error>>> = self
            .tasks
            .par_iter()
            .zip(&first)
            .map(|(task, (evaluation, _))| {
                let against = task.compare.as_ref()?.against.as_deref()?;
                let Ok(evaluation) = evaluation else { return None };
                let other = self.tasks.iter().position(|t| t.name == against)?;
                let bar = progress.task(&task.name);
                Some(match &first[other].0 {
                    Ok(right) => task.compare.as_ref()?.task.run_on(
                        &evaluation.table,
                        &task.name,
                        Some((&right.table, against)),
                        &*bar,
                    ),
                    Err(_) => Err(Error::invalid(format!(
                        "compare against task {against}: found that task failed, expected its evaluation"
                    ))),
                })
            })
            .collect();
        let tasks = self
            .tasks
            .iter()
            .zip(first)
            .zip(late)
            .map(|((task, (evaluation, compare)), late)| TaskOutcome {
                name: task.name.clone(),
                family: task.task.family(),
                ties: tie_report(task, &evaluation),
                compare_note: task
                    .compare
                    .as_ref()
                    .filter(|c| c.against.is_none())
                    .and(evaluation.as_ref().ok())
                    .and_then(super::render::one_item_note),
                evaluation,
                compare: late.or(compare),
            })
            .collect();
        CampaignOutcome { title: self.title.clone(), tasks, manifest: self.manifest.clone(), comparisons }
    }
}

/// A trec task's tie report when some run ranks tied documents (it says whether a relevant
/// and a non-relevant one share a score); `None` for other families, failed tasks and runs
/// without ties.
fn tie_report(
    task: &CampaignTask,
    evaluation: &Result<Evaluation, Error>,
) -> Option<Result<kgeval_model::trec::TieReport, Error>> {
    let (crate::Task::Trec(trec), Ok(evaluation)) = (&task.task, evaluation) else { return None };
    let crate::evaluation::FamilyResult::Trec(result) = &evaluation.result else { return None };
    if result.runs.iter().all(|run| run.topics_with_tied_scores == 0) {
        return None;
    }
    let report = trec.tie_report(&crate::NoProgress);
    match report {
        Ok(report) if report.runs.iter().all(|run| run.counts.mixed_groups == 0) => None,
        other => Some(other),
    }
}

/// One task's evaluation and, without `against`, its comparison (none for an evaluation of
/// fewer than two items: no test can run on one; the report says so).
fn evaluate(
    task: &CampaignTask,
    progress: &dyn CampaignProgress,
) -> (Result<Evaluation, Error>, Option<Result<CompareEvaluation, Error>>) {
    let bar = progress.task(&task.name);
    let evaluation = task.task.run(&*bar);
    let compare = match (&evaluation, &task.compare) {
        (Ok(evaluation), Some(compare)) if compare.against.is_none() && evaluation.table.items().len() >= 2 => {
            Some(compare.task.run_on(&evaluation.table, &task.name, None, &*bar))
        }
        _ => None,
    };
    (evaluation, compare)
}
