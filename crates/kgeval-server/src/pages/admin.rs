//! `/admin`, the organiser's desk: every team (submissions, last upload, uploads left in the
//! open phase, whether its token is revoked) and every submission under a filter (task,
//! phase, team), each with its file to download; the same listing as `/api/submissions`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use super::{page, refused, viewer, views};
use crate::app::App;
use crate::desk::{listing, uploads_left};
use crate::refusal::Refusal;

/// `GET /admin[?task=&phase=&team=]`, for organisers (401 without a sign-in, 403 for a team).
pub(super) async fn admin_page(
    State(app): State<Arc<App>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let viewer = viewer(&app, &headers).await;
    let Some(organiser) = viewer.as_ref().filter(|t| t.organiser) else {
        let refusal = match viewer {
            Some(_) => {
                Refusal::new(StatusCode::FORBIDDEN, "forbidden", "found a team's sign-in, expected an organiser's")
            }
            None => Refusal::new(StatusCode::UNAUTHORIZED, "unauthorized", "sign in with an organiser's token"),
        };
        return refused(&app, viewer.as_ref(), &refusal, "/login");
    };
    let rows = match listing(&app, organiser, &query).await {
        Ok(rows) => rows,
        Err(refusal) => return refused(&app, Some(organiser), &refusal, "/admin"),
    };
    let teams = match app.db(|store| store.teams_overview()).await {
        Ok(teams) => teams,
        Err(e) => return refused(&app, Some(organiser), &Refusal::internal(&e), "/"),
    };
    let mut team_rows = Vec::new();
    for team in &teams {
        let left = if team.organiser {
            String::new()
        } else {
            match uploads_left(&app, team.id).await {
                Ok(left) => left_text(&left),
                Err(e) => return refused(&app, Some(organiser), &Refusal::internal(&e), "/"),
            }
        };
        team_rows.push(json!({
            "name": team.name,
            "query": views::query(&[("team", &team.name)]),
            "organiser": team.organiser,
            "submissions": team.submissions,
            "last_upload": team.last_upload.map(views::utc),
            "revoked": team.revoked.map(views::utc),
            "left": left,
        }));
    }
    let asked = |key: &str| query.get(key).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let filter: Vec<(&str, String)> =
        ["task", "phase", "team"].into_iter().filter_map(|key| asked(key).map(|v| (key, v))).collect();
    let pairs: Vec<(&str, &str)> = filter.iter().map(|(key, value)| (*key, value.as_str())).collect();
    let encoded = views::query(&pairs);
    let submissions: Vec<Value> = rows.iter().map(|(s, feedback)| views::desk_row(&app, s, *feedback)).collect();
    let now = app.clock.now();
    let context = json!({
        "now": views::utc(now),
        "phase": app.campaign.phase_at(now).map(|p| p.name.clone()),
        "teams": team_rows,
        "tasks": app.campaign.served.tasks.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        "phases": app.campaign.phases.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "task": asked("task"),
        "phase_filter": asked("phase"),
        "team_filter": asked("team"),
        "filtered": !filter.is_empty(),
        "query": encoded,
        "count": submissions.len(),
        "submissions": submissions,
    });
    page(&app, Some(organiser), StatusCode::OK, "admin.html", context)
}

/// What a team may still upload, in words: `qa-train: 3 today, 17 in all; lexicon: no limit`.
fn left_text(left: &[crate::desk::UploadsLeft]) -> String {
    if left.is_empty() {
        return "no task open".to_owned();
    }
    left.iter()
        .map(|l| {
            let counts: Vec<String> = [l.today.map(|n| format!("{n} today")), l.total.map(|n| format!("{n} in all"))]
                .into_iter()
                .flatten()
                .collect();
            let counts = if counts.is_empty() { "no limit".to_owned() } else { counts.join(", ") };
            format!("{}: {counts}", l.task)
        })
        .collect::<Vec<_>>()
        .join("; ")
}
