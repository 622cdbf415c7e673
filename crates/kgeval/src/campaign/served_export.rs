//! `kgeval serve --export DIR`: the `kgeval run` report of a served campaign's counted
//! submissions. Each served task becomes a campaign task whose systems are the files that
//! count (read where the server stored them) and whose comparison is the leaderboard's
//! (`kgeval compare`'s default test, a missing item value counted as 0); then the campaign
//! runs and its files are written as `kgeval run -o DIR` writes them, all or nothing.

use std::path::{Path, PathBuf};

use kgeval_meta::MissingPolicy;
use kgeval_report::RenderOptions;

use super::{Campaign, CampaignOutcome, CampaignTask, ServedCampaign, ServedTask, TaskCompare};
use crate::compare::CompareTask;
use crate::write::OutputDirectory;
use crate::{Error, Input, NoProgress, SystemInput, Task};

impl ServedTask {
    /// The task's gold and options with `systems` as its systems.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a family that cannot be served.
    pub fn with_systems(&self, systems: Vec<SystemInput>) -> Result<Task, Error> {
        Ok(match &self.task {
            Task::Trec(task) => Task::Trec(crate::trec::TrecTask { runs: systems, ..task.clone() }),
            Task::Qald(task) => Task::Qald(crate::qald::QaldTask { systems, ..task.clone() }),
            Task::Lexicon(task) => Task::Lexicon(crate::lexicon::LexiconTask { systems, ..task.clone() }),
            other => return Err(Error::invalid(format!("a {} task cannot be served", other.family()))),
        })
    }
}

/// The comparison a served leaderboard runs, as a campaign task's `compare = { missing =
/// "zero" }`.
#[must_use]
pub fn leaderboard_compare() -> CompareTask {
    CompareTask { missing: MissingPolicy::Zero, ..CompareTask::new() }
}

impl ServedCampaign {
    /// The `kgeval run` campaign of `systems`: per task name, the `(system name, file)` that
    /// count, in leaderboard order. A task without a system is left out; a task with two or
    /// more is compared as its leaderboard is ([`leaderboard_compare`]).
    ///
    /// # Errors
    /// A task name the campaign does not have; no system at all.
    pub fn report_campaign(&self, systems: &[(String, Vec<(String, PathBuf)>)]) -> Result<Campaign, Error> {
        let mut tasks = Vec::new();
        for (name, files) in systems.iter().filter(|(_, files)| !files.is_empty()) {
            let served = self.task(name).ok_or_else(|| Error::invalid(format!("found no task {name:?}")))?;
            let inputs = files.iter().map(|(system, path)| SystemInput::named(system, Input::path(path))).collect();
            let compare = (files.len() >= 2).then(|| TaskCompare { task: leaderboard_compare(), against: None });
            tasks.push(CampaignTask { name: name.clone(), task: served.with_systems(inputs)?, compare });
        }
        if tasks.is_empty() {
            return Err(Error::invalid("found no submission that counts in any task, expected at least one"));
        }
        Ok(Campaign { title: self.title.clone(), manifest: self.manifest.clone(), tasks, comparisons: Vec::new() })
    }
}

/// Runs `campaign` and writes its report into `dir` as `kgeval run -o DIR` does (the folder
/// checked first: new, empty or an earlier output, apart from every input), all or nothing.
///
/// # Errors
/// A refused `dir`; a file that cannot be written.
pub fn export_into(campaign: &Campaign, dir: &Path, options: &RenderOptions) -> Result<CampaignOutcome, Error> {
    let output = OutputDirectory::check(dir, &campaign.input_paths(&campaign.manifest))?;
    let outcome = campaign.run(&NoProgress);
    output.write(&outcome.files(options))?;
    Ok(outcome)
}
