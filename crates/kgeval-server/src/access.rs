//! What a viewer may see, for both front doors: a submission (its team's, or any for an
//! organiser, with what its phase's feedback allows) and a task's leaderboard (a hidden phase
//! only for an organiser), the leaderboard computed once per counted set and kept.

use std::sync::Arc;

use axum::http::StatusCode;

use crate::app::{App, BoardKey};
use crate::board::{leaderboard, mark};
use crate::config::{Feedback, Phase};
use crate::refusal::Refusal;
use crate::store::{Submission, Team};
use crate::Error;

/// The submission `id` (as written in the URL) with its score under its task's scorer and
/// what `viewer` may see of it, if it is `viewer`'s (or `viewer` is an organiser); `None` for
/// another team's, a missing one or a malformed id alike.
///
/// # Errors
/// [`Error::Database`].
pub async fn visible_submission(
    app: &Arc<App>,
    viewer: &Team,
    id: &str,
) -> Result<Option<(Submission, Feedback)>, Error> {
    let Ok(id) = id.parse::<i64>() else { return Ok(None) };
    let app2 = Arc::clone(app);
    let found = app
        .db(move |store| {
            let Some(head) = store.submission(id, "")? else { return Ok(None) };
            store.submission(id, &app2.scorer(&head.task))
        })
        .await?;
    Ok(found.filter(|s| s.team == viewer.id || viewer.organiser).map(|s| {
        let feedback = feedback_for(app, viewer, &s);
        (s, feedback)
    }))
}

/// What `viewer` may see of `submission`: everything for an organiser, else what its phase's
/// feedback allows.
#[must_use]
pub fn feedback_for(app: &App, viewer: &Team, submission: &Submission) -> Feedback {
    if viewer.organiser {
        Feedback::Items
    } else {
        app.campaign.phase(&submission.phase).map_or(Feedback::None, |p| p.feedback)
    }
}

/// A task's leaderboard in one phase, marked with the significance letters and tiers.
pub struct Board {
    /// The phase.
    pub phase: Phase,
    /// The rows, best first.
    pub rows: Vec<crate::board::Row>,
    /// How the significance marks were decided, or why no test ran.
    pub significance: String,
}

/// The leaderboard of `task` in the phase `query` names (else the task's phase open now, else
/// its last one that started), after the visibility check (`viewer`: the request's team).
///
/// # Errors
/// 404 (no such task or phase), 403 (hidden, and `viewer` is no organiser), 500.
pub async fn board(app: &Arc<App>, task: &str, phase: Option<&str>, viewer: Option<&Team>) -> Result<Board, Refusal> {
    let Some(served) = app.campaign.served.task(task) else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "not_found", "found no such task"));
    };
    let now = app.clock.now();
    // Asked for by name, else the task's phase open now, else its last one that started.
    let phase = match phase {
        Some(name) => app.campaign.phase(name),
        None => app.campaign.phases.iter().rev().find(|p| p.from <= now && served.open_in(&p.name)),
    };
    let Some(phase) = phase.filter(|p| served.open_in(&p.name)).cloned() else {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "found no phase of this task with a leaderboard (none has started)",
        ));
    };
    if !phase.public_at(now) && !viewer.is_some_and(|t| t.organiser) {
        return Err(Refusal::new(
            StatusCode::FORBIDDEN,
            "hidden",
            format!("the leaderboard of phase {} is hidden", phase.name),
        ));
    }
    // Nothing stored since the last leaderboard of this task and phase: it is current.
    // Otherwise, which submissions count (a cheap query, no per-item values): the marked rows
    // of that set are computed once and kept (`App::boards`).
    let generation = app.generation.load(std::sync::atomic::Ordering::SeqCst);
    if let Some((rows, significance)) = app.current_board(task, &phase.name, &app.scorer(task)) {
        return Ok(Board { phase, rows, significance });
    }
    let (task_name, phase_name, scorer) = (task.to_owned(), phase.name.clone(), app.scorer(task));
    let heads = app
        .db(move |store| store.scored_heads(&task_name, &phase_name, &scorer))
        .await
        .map_err(|e| Refusal::internal(&e))?;
    let counted: Vec<i64> = leaderboard(&heads, &[], phase.counts).iter().filter_map(|r| r.submission).collect();
    let key = BoardKey { task: task.to_owned(), phase: phase.name.clone(), scorer: app.scorer(task), counted };
    if let Some((rows, significance)) = app.cached_board(&key, generation) {
        return Ok(Board { phase, rows, significance });
    }
    let (ids, scorer) = (key.counted.clone(), key.scorer.clone());
    let scored = app
        .db(move |store| {
            let mut full = Vec::with_capacity(ids.len());
            for id in ids {
                full.extend(store.submission(id, &scorer)?);
            }
            Ok(full)
        })
        .await
        .map_err(|e| Refusal::internal(&e))?;
    let baselines: Vec<_> = app.baselines.iter().filter(|b| b.task == task).collect();
    let mut rows = leaderboard(&scored, &baselines, phase.counts);
    let significance = mark(served, &mut rows);
    app.keep_board(key, generation, &rows, &significance);
    Ok(Board { phase, rows, significance })
}
