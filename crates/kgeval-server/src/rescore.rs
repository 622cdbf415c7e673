//! `kgeval serve CAMPAIGN --rescore`: every `scored` submission scored again with the
//! current scorer (kgeval's version and the task's options and gold bytes as they are now).
//! The new score rows are added — no row is updated or deleted — in one transaction for the
//! whole campaign, so a leaderboard of the new scorer version shows either none of them or
//! all. A server reads the scorer version at its start: rescore with it stopped, or restart
//! it after. The diff: per task, each team's counted primary value under the previous and the
//! new scorer, and Kendall's tau-b between the two orderings (the facade's).

use std::fmt::Write as _;
use std::path::Path;

use kgeval::campaign::ordering_tau;
use kgeval::Input;

use crate::app::{chain, score, App, UPLOAD_NAME};
use crate::board::leaderboard;
use crate::store::{Score, Store};
use crate::{clock, db_path, Campaign, Error};

/// What rescoring changed in one task.
#[derive(Debug, Clone)]
pub struct TaskDiff {
    /// The task.
    pub task: String,
    /// The phase whose leaderboards are compared (the one open now, else the last started).
    pub phase: Option<String>,
    /// The primary metric.
    pub metric: String,
    /// The scorer version before (the latest other one in the database), if any.
    pub old_scorer: Option<String>,
    /// The scorer version now.
    pub new_scorer: String,
    /// Submissions given a score row now.
    pub rescored: usize,
    /// Submissions the current scorer refuses, with its error (they keep their old rows only,
    /// so they leave the new leaderboard).
    pub refused: Vec<(i64, String)>,
    /// Each team's counted primary value before and after, in the new leaderboard's order
    /// (then the teams only the old one has).
    pub teams: Vec<TeamDiff>,
    /// Kendall's tau-b between the old and new orderings of the teams on both.
    pub tau: Option<f64>,
}

/// One team's counted primary value before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct TeamDiff {
    /// The team.
    pub team: String,
    /// Under the previous scorer.
    pub old: Option<f64>,
    /// Under the current scorer.
    pub new: Option<f64>,
}

/// Rescores every valid submission of the campaign and returns the diff per task.
///
/// # Errors
/// The campaign or database cannot be read; a stored file is missing; the rows cannot be
/// added (then none is).
pub fn rescore(campaign: &Path, db: Option<&Path>) -> Result<Vec<TaskDiff>, Error> {
    let config = Campaign::read(campaign)?;
    let app = App::open(config, &db_path(campaign, db))?;
    let mut store = app.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let now = clock::now();
    let mut rows: Vec<(i64, Score)> = Vec::new();
    let mut diffs = Vec::new();
    for task in &app.campaign.served.tasks {
        let current = app.scorer(&task.name);
        let mut diff = TaskDiff {
            task: task.name.clone(),
            phase: None,
            metric: task.primary.clone(),
            old_scorer: store.previous_scorer(&task.name, &current)?,
            new_scorer: current.clone(),
            rescored: 0,
            refused: Vec::new(),
            teams: Vec::new(),
            tau: None,
        };
        for submission in store.scored_any(&task.name, &current)? {
            if submission.score.is_some() {
                continue;
            }
            let path = app.blobs.path(&submission.sha256);
            let bytes = std::fs::read(&path)
                .map_err(|e| Error::Io(format!("submission {}: {}: {e}", submission.id, path.display())))?;
            match score(task, &submission.system, Input::from_bytes(UPLOAD_NAME, bytes), &current) {
                Ok(score) => {
                    diff.rescored += 1;
                    rows.push((submission.id, score));
                }
                Err(e) => diff.refused.push((submission.id, chain(&e))),
            }
        }
        diffs.push(diff);
    }
    store.add_scores(&rows, now)?;
    for diff in &mut diffs {
        compare_boards(&app, &store, diff, now)?;
    }
    Ok(diffs)
}

/// Fills the phase, the teams' old and new values and tau of `diff`.
fn compare_boards(app: &App, store: &Store, diff: &mut TaskDiff, now: i64) -> Result<(), Error> {
    let Some(task) = app.campaign.served.task(&diff.task) else { return Ok(()) };
    let Some(phase) = app.campaign.phases.iter().rev().find(|p| p.from <= now && task.open_in(&p.name)) else {
        return Ok(());
    };
    diff.phase = Some(phase.name.clone());
    let board = |scorer: &str| -> Result<Vec<(String, f64, String)>, Error> {
        let scored = store.scored(&diff.task, &phase.name, scorer)?;
        Ok(leaderboard(&scored, &[], phase.counts).into_iter().map(|r| (r.team, r.primary, r.metric)).collect())
    };
    let new = board(&diff.new_scorer)?;
    let old = match &diff.old_scorer {
        Some(scorer) => board(scorer)?,
        None => Vec::new(),
    };
    if let Some((_, _, metric)) = new.first() {
        diff.metric.clone_from(metric);
    }
    for (team, value, _) in &new {
        let before = old.iter().find(|(t, _, _)| t == team).map(|(_, v, _)| *v);
        diff.teams.push(TeamDiff { team: team.clone(), old: before, new: Some(*value) });
    }
    for (team, value, _) in &old {
        if !new.iter().any(|(t, _, _)| t == team) {
            diff.teams.push(TeamDiff { team: team.clone(), old: Some(*value), new: None });
        }
    }
    let (before, after): (Vec<f64>, Vec<f64>) = diff.teams.iter().filter_map(|t| Some((t.old?, t.new?))).unzip();
    diff.tau = ordering_tau(&before, &after);
    Ok(())
}

/// The diff as text: per task a header line, a tab-separated table (team, old, new, change),
/// the submissions refused, and tau.
#[must_use]
pub fn render(diffs: &[TaskDiff]) -> String {
    let mut out = String::new();
    let value = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
    for diff in diffs {
        let _ = writeln!(
            out,
            "task {}, phase {}: {} submission(s) rescored, {} -> {}",
            diff.task,
            diff.phase.as_deref().unwrap_or("(none started)"),
            diff.rescored,
            diff.old_scorer.as_deref().unwrap_or("(no previous scorer)"),
            diff.new_scorer
        );
        let _ = writeln!(out, "team\told {0}\tnew {0}\tchange", diff.metric);
        for team in &diff.teams {
            let change = match (team.old, team.new) {
                (Some(old), Some(new)) => format!("{:+}", new - old),
                _ => "-".to_owned(),
            };
            let _ = writeln!(out, "{}\t{}\t{}\t{change}", team.team, value(team.old), value(team.new));
        }
        for (id, error) in &diff.refused {
            let _ = writeln!(out, "submission {id} refused by the current scorer: {error}");
        }
        let tau = diff.tau.map_or_else(|| "undefined (fewer than two teams on both)".to_owned(), |t| t.to_string());
        let _ = writeln!(out, "Kendall's tau-b between the old and new orderings: {tau}\n");
    }
    out
}
