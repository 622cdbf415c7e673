//! `kgeval serve CAMPAIGN --rescore`: every valid submission — scored at upload, or `failed`
//! there (out of time, a scorer error) — that has no score row of the current scorer (kgeval's
//! version and the task's options and gold bytes as they are now) scored again, as an upload
//! is: in the scoring workers, under the campaign's time and memory limits. The new score rows are added — no row
//! is updated or deleted — in one transaction for the whole campaign, so a leaderboard of the
//! new scorer version shows either none of them or all; a `failed` submission given a row
//! counts from then on (on the leaderboard; the limits stay as counted at upload). A server
//! reads the scorer version at its start and keeps its leaderboards: rescore with it stopped,
//! or restart it after. The diff: per task, each team's counted primary value on the
//! leaderboard shown last (that of the latest score row's scorer, before this rescore's rows)
//! and on the new one, each baseline's value under that scorer (as recorded when it was
//! scored) and now, the `failed` submissions now scored, and Kendall's tau-b between the two
//! orderings of the teams (the facade's).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use kgeval::campaign::{ordering_tau, ServedTask};

use crate::app::{App, UPLOAD_NAME};
use crate::board::{leaderboard, BASELINE_TEAM};
use crate::clock::Clock;
use crate::config::Phase;
use crate::store::{Score, Store};
use crate::worker::{Launch, Outcome, Request};
use crate::Error;

/// What rescoring changed in one task.
#[derive(Debug, Clone)]
pub struct TaskDiff {
    /// The task.
    pub task: String,
    /// The phase whose leaderboards are compared (the one open now, else the last started).
    pub phase: Option<String>,
    /// The primary metric.
    pub metric: String,
    /// The scorer version of the leaderboard shown before (that of the task's latest score
    /// row before this rescore; the current one when it only scored `failed` submissions),
    /// if any.
    pub old_scorer: Option<String>,
    /// The scorer version now.
    pub new_scorer: String,
    /// Submissions given a score row now.
    pub rescored: usize,
    /// Submissions `failed` at upload, without a score on the old leaderboard, given one now:
    /// they count from now on.
    pub recovered: Vec<Recovered>,
    /// Submissions the current scorer refuses (or that ran out of time again), with the error
    /// (they keep their old rows only, so they leave the new leaderboard).
    pub refused: Vec<(i64, String)>,
    /// Each team's counted primary value before and after, in the new leaderboard's order
    /// (then the teams only the old one has).
    pub teams: Vec<TeamDiff>,
    /// Each baseline's primary value under the old scorer version (as recorded when it was
    /// scored, if it was) and now, named `organisers: NAME (baseline)`.
    pub baselines: Vec<TeamDiff>,
    /// Kendall's tau-b between the old and new orderings of the teams on both.
    pub tau: Option<f64>,
}

/// A submission whose scoring failed at upload and that has a score now.
#[derive(Debug, Clone, PartialEq)]
pub struct Recovered {
    /// Its id.
    pub id: i64,
    /// Its team.
    pub team: String,
    /// Its primary value under the current scorer.
    pub value: f64,
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

/// A leaderboard reduced to what the diff compares: (team, primary value, metric name).
type Standing = Vec<(String, f64, String)>;

/// Rescores every valid submission of the campaign in worker processes (`launch` starts
/// one), as uploads are scored, and returns the diff per task; the rows are dated by `clock`
/// (a rehearsal's with `--now`).
///
/// # Errors
/// The campaign or database cannot be read; a worker cannot start; a stored file is
/// missing; the rows cannot be added (then none is).
pub fn rescore(campaign: &Path, db: Option<&Path>, launch: Launch, clock: Clock) -> Result<Vec<TaskDiff>, Error> {
    crate::with_app(campaign, db, launch, clock, async |app| rescore_app(&app).await)
}

/// [`rescore`] with the app open.
async fn rescore_app(app: &Arc<App>) -> Result<Vec<TaskDiff>, Error> {
    let now = app.clock.now();
    let limit = Duration::from_secs_f64(app.campaign.time_limit);
    let mut rows: Vec<(i64, Score)> = Vec::new();
    let mut diffs = Vec::new();
    for task in &app.campaign.served.tasks {
        let current = app.scorer(&task.name);
        let phase = compared_phase(app, task, now);
        let (mut diff, old, submissions) = {
            let store = app.store.lock().unwrap_or_else(PoisonError::into_inner);
            let old_scorer = store.latest_scorer(&task.name)?;
            let old = match (phase, &old_scorer) {
                (Some(phase), Some(scorer)) => standing(&store, &task.name, phase, scorer)?,
                _ => Vec::new(),
            };
            let mut diff = TaskDiff {
                task: task.name.clone(),
                phase: phase.map(|p| p.name.clone()),
                metric: task.primary_name(),
                old_scorer,
                new_scorer: current.clone(),
                rescored: 0,
                recovered: Vec::new(),
                refused: Vec::new(),
                teams: Vec::new(),
                baselines: Vec::new(),
                tau: None,
            };
            for baseline in app.baselines.iter().filter(|b| b.task == task.name) {
                let old = match &diff.old_scorer {
                    Some(scorer) => store.baseline_value(&task.name, &baseline.name, scorer)?,
                    None => None,
                };
                diff.baselines.push(TeamDiff {
                    team: format!("{BASELINE_TEAM}: {} (baseline)", baseline.name),
                    old,
                    new: Some(baseline.score.value),
                });
            }
            let mut submissions = Vec::new();
            for submission in store.valid_any(&task.name, &current)? {
                if submission.score.is_some() {
                    continue;
                }
                let scored_before = match &diff.old_scorer {
                    Some(old) => store.submission(submission.id, old)?.is_some_and(|s| s.score.is_some()),
                    None => false,
                };
                submissions.push((submission, scored_before));
            }
            (diff, old, submissions)
        };
        for (submission, scored_before) in submissions {
            let path = app.blobs.path(&submission.sha256);
            let bytes = std::fs::read(&path)
                .map_err(|e| Error::Io(format!("submission {}: {}: {e}", submission.id, path.display())))?;
            let request = Request {
                task: task.name.clone(),
                system: submission.system.clone(),
                name: UPLOAD_NAME.to_owned(),
                organiser: false,
            };
            match app.workers.score(&request, &bytes, limit).await {
                Outcome::Scored { mut score } => {
                    score.scorer.clone_from(&current);
                    diff.rescored += 1;
                    if submission.status == "failed" && !scored_before {
                        diff.recovered.push(Recovered {
                            id: submission.id,
                            team: submission.team_name.clone(),
                            value: score.value,
                        });
                    }
                    rows.push((submission.id, score));
                }
                Outcome::Invalid { message, .. } | Outcome::Failed { message } | Outcome::Stopped { message, .. } => {
                    diff.refused.push((submission.id, message));
                }
            }
        }
        diffs.push((diff, old));
    }
    app.store.lock().unwrap_or_else(PoisonError::into_inner).add_scores(&rows, now)?;
    app.record_baselines(now)?;
    let store = app.store.lock().unwrap_or_else(PoisonError::into_inner);
    let mut out = Vec::with_capacity(diffs.len());
    for (mut diff, old) in diffs {
        if let Some(phase) = diff.phase.as_deref().and_then(|p| app.campaign.phase(p)) {
            let new = standing(&store, &diff.task, phase, &diff.new_scorer)?;
            compare(&mut diff, &old, &new);
        }
        out.push(diff);
    }
    Ok(out)
}

/// The phase whose leaderboards the diff compares: the task's phase open now, else its last
/// one that started.
fn compared_phase<'a>(app: &'a App, task: &ServedTask, now: i64) -> Option<&'a Phase> {
    app.campaign.phases.iter().rev().find(|p| p.from <= now && task.open_in(&p.name))
}

/// The leaderboard of `task` in `phase` under `scorer` (without baselines), as the diff reads it.
fn standing(store: &Store, task: &str, phase: &Phase, scorer: &str) -> Result<Standing, Error> {
    let scored = store.scored(task, &phase.name, scorer)?;
    Ok(leaderboard(&scored, &[], phase.counts).into_iter().map(|r| (r.team, r.primary, r.metric)).collect())
}

/// Fills the teams' old and new values and tau of `diff`.
fn compare(diff: &mut TaskDiff, old: &Standing, new: &Standing) {
    if let Some((_, _, metric)) = new.first() {
        diff.metric.clone_from(metric);
    }
    for (team, value, _) in new {
        let before = old.iter().find(|(t, _, _)| t == team).map(|(_, v, _)| *v);
        diff.teams.push(TeamDiff { team: team.clone(), old: before, new: Some(*value) });
    }
    for (team, value, _) in old {
        if !new.iter().any(|(t, _, _)| t == team) {
            diff.teams.push(TeamDiff { team: team.clone(), old: Some(*value), new: None });
        }
    }
    let (before, after): (Vec<f64>, Vec<f64>) = diff.teams.iter().filter_map(|t| Some((t.old?, t.new?))).unzip();
    diff.tau = ordering_tau(&before, &after);
}

/// The diff as text: per task a header line, a tab-separated table (team, old, new, change;
/// then the baselines), the submissions failed at upload and scored now, those refused, and
/// tau (over the teams).
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
        for baseline in &diff.baselines {
            let change = match (baseline.old, baseline.new) {
                (Some(old), Some(new)) => format!("{:+}", new - old),
                _ => "-".to_owned(),
            };
            let _ = writeln!(out, "{}\t{}\t{}\t{change}", baseline.team, value(baseline.old), value(baseline.new));
        }
        for recovered in &diff.recovered {
            let _ = writeln!(
                out,
                "submission {} of {}: old failed (at upload), new {}",
                recovered.id, recovered.team, recovered.value
            );
        }
        for (id, error) in &diff.refused {
            let _ = writeln!(out, "submission {id} refused by the current scorer: {error}");
        }
        let tau = diff.tau.map_or_else(|| "undefined (fewer than two teams on both)".to_owned(), |t| t.to_string());
        let _ = writeln!(out, "Kendall's tau-b between the old and new orderings: {tau}\n");
    }
    out
}
