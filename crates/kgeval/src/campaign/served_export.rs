//! `kgeval serve --export DIR`: the `kgeval run` report of a served campaign's counted
//! submissions. Each served task becomes a campaign task whose systems are the files that
//! count (read where the server stored them) and whose comparison is the leaderboard's
//! (`kgeval compare`'s default test, a missing item value counted as 0); then the campaign
//! runs and its files are written as `kgeval run -o DIR` writes them, all or nothing.

use std::path::Path;

use kgeval_meta::MissingPolicy;
use kgeval_report::RenderOptions;

use super::{Campaign, CampaignOutcome, CampaignTask, ServedCampaign, TaskCompare};
use crate::compare::CompareTask;
use crate::write::OutputDirectory;
use crate::{Error, Input, NoProgress, SystemInput, Task};

/// The comparison a served leaderboard runs, as a campaign task's `compare = { missing =
/// "zero" }`.
#[must_use]
pub fn leaderboard_compare() -> CompareTask {
    CompareTask { missing: MissingPolicy::Zero, ..CompareTask::new() }
}

impl ServedCampaign {
    /// The `kgeval run` campaign of `systems`: per task name, the `(system name, upload)` that
    /// count, in leaderboard order (an upload as the server stores it: a file, or the parts of
    /// a multi-pair task, [`super::encode_parts`]). A task without a system is left out; a
    /// task with two or more is compared as its leaderboard is ([`leaderboard_compare`]). A
    /// `rank` task scores one system: each of its systems is a task of its own, `NAME.1`,
    /// `NAME.2`, … in leaderboard order (not compared).
    ///
    /// # Errors
    /// A task name the campaign does not have; no system at all.
    pub fn report_campaign(&self, systems: &[(String, Vec<(String, Input)>)]) -> Result<Campaign, Error> {
        let mut tasks = Vec::new();
        for (name, files) in systems.iter().filter(|(_, files)| !files.is_empty()) {
            let served = self.task(name).ok_or_else(|| Error::invalid(format!("found no task {name:?}")))?;
            let inputs: Vec<SystemInput> =
                files.iter().map(|(system, input)| SystemInput::named(system, input.clone())).collect();
            if matches!(served.task, Task::Rank(_)) && inputs.len() >= 2 {
                for (i, input) in inputs.into_iter().enumerate() {
                    let task = served.with_systems(vec![input])?;
                    tasks.push(CampaignTask { name: format!("{name}.{}", i + 1), task, compare: None });
                }
                continue;
            }
            let compare = (inputs.len() >= 2).then(|| TaskCompare { task: leaderboard_compare(), against: None });
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
