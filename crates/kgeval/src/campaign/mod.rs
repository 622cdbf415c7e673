//! A campaign: any number of tasks of any family, each optionally meta-evaluated, run together
//! (`kgeval run MANIFEST`). The manifest and the run live here; the renderers of the whole
//! campaign (Markdown, LaTeX, HTML) take a [`CampaignOutcome`].

mod files;
mod manifest;
mod render;
mod run;
mod served;
mod served_checks;
mod served_export;
mod served_format;
#[cfg(test)]
mod served_gold_tests;
#[cfg(test)]
mod served_names_tests;
mod served_significance;
mod served_upload;

use crate::compare::CompareEvaluation;
use crate::{Error, Evaluation, Family};

pub use files::{conventions_text, one_line};
pub use manifest::{Campaign, CampaignComparison, CampaignTask, TaskCompare, MAX_NAME_LENGTH};
pub use run::{run_into, CampaignProgress};
pub use served::{headlines, item_values, PrimaryValue, ServedCampaign, ServedTask};
pub use served_export::{export_into, leaderboard_compare};
pub use served_significance::{ordering_tau, EntryMarks, ServedEntry, ServedSignificance};
pub use served_upload::{decode_parts, encode_parts, FORM_FIELDS};

/// What running a campaign gives: every task's outcome, in manifest order. A failing task
/// keeps its error; the others still finish.
#[derive(Debug)]
pub struct CampaignOutcome {
    /// The campaign's title (the manifest's `title`, else its file stem).
    pub title: String,
    /// Every task, in manifest order.
    pub tasks: Vec<TaskOutcome>,
    /// The manifest file the campaign was read from.
    pub manifest: std::path::PathBuf,
    /// Every `[[compare]]` of the manifest (meta-evaluations of published score tables, not of
    /// a task), in manifest order.
    pub comparisons: Vec<ComparisonOutcome>,
}

/// One `[[compare]]` of a campaign after it ran.
#[derive(Debug)]
pub struct ComparisonOutcome {
    /// Its name, unique in the campaign.
    pub name: String,
    /// The comparison, or the error that stopped it.
    pub compare: Result<CompareEvaluation, Error>,
}

/// One task of a campaign after it ran.
#[derive(Debug)]
pub struct TaskOutcome {
    /// The task's name (its manifest table's name), unique in the campaign.
    pub name: String,
    /// The task's family.
    pub family: Family,
    /// The task's evaluation, or the error that stopped it.
    pub evaluation: Result<Evaluation, Error>,
    /// The meta-evaluation of the task's systems, when the task asks for one (`compare = {…}`)
    /// and its evaluation succeeded: an error when the comparison failed or the task its
    /// `against` names failed.
    pub compare: Option<Result<CompareEvaluation, Error>>,
    /// Why the comparison the task asks for did not run, when it could not: an evaluation of
    /// several systems on one item, where no paired test can run.
    pub compare_note: Option<String>,
    /// A trec task whose runs tie a relevant with a non-relevant document somewhere: its tie
    /// report ([`crate::trec::TrecTask::tie_report`]), or the error that stopped it.
    pub ties: Option<Result<kgeval_model::trec::TieReport, Error>>,
}

impl CampaignOutcome {
    /// Whether every task (and every meta-evaluation asked for) succeeded.
    #[must_use]
    pub fn succeeded(&self) -> bool {
        self.tasks.iter().all(|t| t.evaluation.is_ok() && !matches!(t.compare, Some(Err(_))))
            && self.comparisons.iter().all(|c| c.compare.is_ok())
    }
}
