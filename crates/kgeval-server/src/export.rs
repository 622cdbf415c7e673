//! `kgeval serve CAMPAIGN --export DIR`: the `kgeval run` report (results.json, report.md,
//! tables.tex, index.html, per-task CSVs) of the submissions that count. Per task, the phase a
//! leaderboard shows by default (the one open now, else the last that started; hidden ones
//! included: this is the organisers' command), its counted submission per team read from the
//! blob folder and the baselines from their files, in leaderboard order; the facade runs and
//! writes the campaign exactly as `kgeval run` would on a manifest listing those files.

use std::path::Path;

use kgeval::campaign::{export_into, CampaignOutcome};
use kgeval::{Input, RenderOptions};

use crate::app::App;
use crate::board::{leaderboard, Row};
use crate::clock::Clock;
use crate::worker::Launch;
use crate::{Campaign, Error};

/// Writes the report of the submissions that count at `clock`'s time into `dir` (new, empty or
/// an earlier output): in each task's phase open then (else its last one started), or in the
/// phase named `phase`.
///
/// # Errors
/// The campaign or the database cannot be read; a worker cannot start; no submission counts; `dir` is refused or
/// cannot be written.
pub fn export(
    campaign: &Path,
    db: Option<&Path>,
    dir: &Path,
    options: &RenderOptions,
    launch: Launch,
    clock: Clock,
    phase: Option<&str>,
) -> Result<CampaignOutcome, Error> {
    // The workers score the baselines (their leaderboard order); the counted submissions were
    // scored within the limits already and are read again here by the facade.
    let counted =
        crate::with_app(campaign, db, launch, clock, async |app| counted_files(&app, app.clock.now(), phase))?;
    let config = Campaign::read(campaign)?;
    let report = config.served.report_campaign(&counted)?;
    Ok(export_into(&report, dir, options)?)
}

/// A task's name and the `(system name, upload)` of each row of its leaderboard.
pub type TaskFiles = (String, Vec<(String, Input)>);

/// The name a leaderboard row has as a system of the report: the team, `team: system` when
/// the system has its own name, `NAME (baseline)` for a baseline.
#[must_use]
pub fn system_label(row: &Row) -> String {
    if row.baseline {
        format!("{} (baseline)", row.system)
    } else if row.system == row.team {
        row.team.clone()
    } else {
        format!("{}: {}", row.team, row.system)
    }
}

/// Per task, the `(system name, upload)` of every row of its default leaderboard at `now` —
/// or of its leaderboard in the phase named `phase` — in leaderboard order (empty when no
/// phase of the task has started, or the task is not open in `phase`).
///
/// # Errors
/// [`Error::Usage`] for a phase the campaign does not have; [`Error::Database`].
pub fn counted_files(app: &App, now: i64, phase: Option<&str>) -> Result<Vec<TaskFiles>, Error> {
    if let Some(name) = phase.filter(|name| app.campaign.phase(name).is_none()) {
        let known: Vec<&str> = app.campaign.phases.iter().map(|p| p.name.as_str()).collect();
        return Err(Error::Usage(format!("--phase: found {name:?}, expected one of the phases: {}", known.join(", "))));
    }
    let store = app.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut out = Vec::new();
    for task in &app.campaign.served.tasks {
        let chosen = match phase {
            Some(name) => app.campaign.phase(name).filter(|p| task.open_in(&p.name)),
            None => app.campaign.phases.iter().rev().find(|p| p.from <= now && task.open_in(&p.name)),
        };
        let Some(phase) = chosen else {
            out.push((task.name.clone(), Vec::new()));
            continue;
        };
        let scored = store.scored(&task.name, &phase.name, &app.scorer(&task.name))?;
        let baselines: Vec<_> = app.baselines.iter().filter(|b| b.task == task.name).collect();
        let mut files = Vec::new();
        for row in leaderboard(&scored, &baselines, phase.counts) {
            let input = match row.submission {
                Some(id) => scored.iter().find(|s| s.id == id).map(|s| Input::path(app.blobs.path(&s.sha256))),
                None => match app.campaign.baselines.iter().find(|b| b.task == task.name && b.name == row.system) {
                    Some(baseline) => Some(baseline.upload(task)?),
                    None => None,
                },
            };
            if let Some(input) = input {
                files.push((system_label(&row), input));
            }
        }
        out.push((task.name.clone(), files));
    }
    Ok(out)
}
