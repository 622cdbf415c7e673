//! What the templates read: plain JSON values built from the campaign, leaderboards and
//! submissions (numbers to 4 decimals, instants as `2026-11-01 00:00 UTC`). The templates
//! escape every string.

use kgeval::campaign::ServedTask;
use serde_json::{json, Value};

use crate::access::Board;
use crate::app::App;
use crate::config::{Campaign, Counts, Feedback, Visibility};
use crate::store::Submission;

/// Decimals of a value on a page (the JSON API has full precision).
const DECIMALS: usize = 4;

/// An instant as `2026-11-01 00:00 UTC` (seconds shown when not zero).
pub fn utc(at: i64) -> String {
    let text = crate::clock::format(at);
    let text = text.strip_suffix('Z').unwrap_or(&text).replacen('T', " ", 1);
    let text = text.strip_suffix(":00").map_or_else(|| text.clone(), str::to_owned);
    format!("{text} UTC")
}

/// A message as a sentence: a capital first letter and a full stop.
pub fn sentence(message: &str) -> String {
    let mut chars = message.chars();
    let mut out: String = chars.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
    out.push_str(chars.as_str());
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// An element id for a task name (letters, digits, `_`; anything else `-`).
pub fn element_id(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' }).collect()
}

fn number(value: Option<&Value>) -> String {
    value.and_then(Value::as_f64).map(|v| format!("{v:.DECIMALS$}")).unwrap_or_default()
}

fn counts(counts: Counts) -> &'static str {
    match counts {
        Counts::Best => "best",
        Counts::Last => "last",
    }
}

fn feedback(feedback: Feedback) -> &'static str {
    match feedback {
        Feedback::Items => "scores and per-item values",
        Feedback::Summary => "scores",
        Feedback::None => "none (received only)",
    }
}

/// Every phase: name, dates, feedback, visibility, counting, limits, and whether it is open.
pub fn phases(campaign: &Campaign, now: i64) -> Vec<Value> {
    campaign
        .phases
        .iter()
        .map(|p| {
            let leaderboard = match p.leaderboard {
                Visibility::Public => "public".to_owned(),
                Visibility::Hidden => "hidden".to_owned(),
                Visibility::After(at) => format!("hidden until {}", utc(at)),
            };
            let mut limits = Vec::new();
            if let Some(n) = p.limit.per_day {
                limits.push(format!("{n} a day"));
            }
            if let Some(n) = p.limit.total {
                limits.push(format!("{n} in all"));
            }
            json!({
                "name": p.name,
                "from": utc(p.from),
                "until": utc(p.until),
                "open": p.from <= now && now < p.until,
                "feedback": feedback(p.feedback),
                "leaderboard": leaderboard,
                "counts": counts(p.counts),
                "limit": if limits.is_empty() { "none".to_owned() } else { limits.join(", ") },
            })
        })
        .collect()
}

/// The phases a task is open in, as a phrase.
pub fn task_phases(campaign: &Campaign, task: &ServedTask) -> String {
    let names: Vec<&str> = campaign.phases.iter().filter(|p| task.open_in(&p.name)).map(|p| p.name.as_str()).collect();
    if names.is_empty() {
        "no phase".to_owned()
    } else {
        names.join(", ")
    }
}

/// A leaderboard: its phase, how rows count, the significance line, the metric columns (in
/// order of first appearance) and the rows.
pub fn board(task: &str, board: &Board) -> Value {
    let mut metrics: Vec<&str> = Vec::new();
    for row in &board.rows {
        for metric in row.scores.keys() {
            if !metrics.contains(&metric.as_str()) {
                metrics.push(metric);
            }
        }
    }
    // The primary metric first (a phone shows rank, team, system and it before scrolling).
    let primary = board.rows.first().map(|r| r.metric.clone()).unwrap_or_default();
    if let Some(at) = metrics.iter().position(|m| *m == primary) {
        let first = metrics.remove(at);
        metrics.insert(0, first);
    }
    let rows: Vec<Value> = board
        .rows
        .iter()
        .map(|row| {
            json!({
                "rank": row.rank,
                "submitted": row.submitted.map(utc),
                "uploads": row.uploads,
                "letter": row.letter,
                "tier": row.tier,
                "beats": row.beats,
                "team": row.team,
                "system": row.system,
                "baseline": row.baseline,
                "cells": metrics.iter().map(|m| number(row.scores.get(*m))).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "task": task,
        "task_id": element_id(task),
        "phase": board.phase.name,
        "counts": counts(board.phase.counts),
        "primary": primary,
        "significance": board.significance,
        "tested": board.rows.iter().any(|r| r.letter.is_some()),
        "metrics": metrics,
        "rows": rows,
    })
}

/// A URL's query of `pairs`, each key and value percent-encoded (all but ASCII letters,
/// digits, `-`, `.`, `_` and `~`).
pub fn query(pairs: &[(&str, &str)]) -> String {
    let encode = |text: &str| -> String {
        text.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => char::from(b).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    pairs.iter().map(|(key, value)| format!("{}={}", encode(key), encode(value))).collect::<Vec<_>>().join("&")
}

/// A listing's row for the desk: [`listed`]'s fields with the team, the primary value, the
/// size, the SHA-256 and the parts' names of a multi-pair upload.
pub fn desk_row(app: &App, s: &Submission, feedback: Feedback) -> Value {
    let value = s
        .score
        .as_ref()
        .filter(|_| feedback != Feedback::None)
        .map(|c| (c.metric.clone(), format!("{:.DECIMALS$}", c.value)));
    json!({
        "id": s.id,
        "team": s.team_name,
        "task": s.task,
        "phase": s.phase,
        "system": s.system,
        "status": shown_status(s, feedback),
        "received": utc(s.created),
        "metric": value.as_ref().map(|v| v.0.clone()),
        "value": value.map(|v| v.1),
        "size": crate::units::size(s.size),
        "sha256": s.sha256,
        "short": s.sha256.get(..12).unwrap_or(&s.sha256),
        "parts": app.campaign.served.task(&s.task).map(ServedTask::parts).unwrap_or_default()
            .iter()
            .map(|part| json!({ "name": part, "query": query(&[("part", part)]) }))
            .collect::<Vec<_>>(),
    })
}

/// `received` for a scored submission of a phase without feedback.
fn shown_status(s: &Submission, feedback: Feedback) -> &str {
    match s.status.as_str() {
        "scored" if feedback == Feedback::None => "received",
        other => other,
    }
}

/// A submission's page: what its phase's `feedback` lets its team see (per-item values with
/// each item's label where the gold has one: a QALD question's text).
pub fn submission(app: &App, s: &Submission, feedback: Feedback) -> Value {
    let mut out = json!({
        "id": s.id,
        "task": s.task,
        "phase": s.phase,
        "team": s.team_name,
        "system": s.system,
        "status": shown_status(s, feedback),
        "received": utc(s.created),
        "size": crate::units::size(s.size),
        "sha256": s.sha256,
        "error": s.visible_error(feedback),
        "stopped": s.stopped.is_some(),
    });
    if let Some(score) = s.score.as_ref().filter(|_| feedback != Feedback::None) {
        out["scorer"] = json!(score.scorer);
        out["primary"] = json!(score.metric);
        let scores: Vec<Value> = match serde_json::from_str::<Value>(&score.headlines) {
            Ok(Value::Object(map)) => map.iter().map(|(m, v)| json!([m, number(Some(v))])).collect(),
            _ => Vec::new(),
        };
        out["scores"] = json!(scores);
        if feedback == Feedback::Items {
            let (metrics, rows) = crate::desk::item_table(&score.items);
            let labels = crate::desk::labels_of(app, &s.task);
            let rows: Vec<Value> = rows
                .iter()
                .map(|(item, values)| {
                    let values: Vec<String> =
                        values.iter().map(|v| v.map(|v| format!("{v:.DECIMALS$}")).unwrap_or_default()).collect();
                    json!({ "item": item, "label": labels.get(item.as_str()), "values": values })
                })
                .collect();
            out["labelled"] = json!(!labels.is_empty());
            out["item_metrics"] = json!(metrics);
            out["items"] = json!(rows);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{sentence, utc};

    #[test]
    fn instants_and_sentences() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(86_400 + 3_661), "1970-01-02 01:01:01 UTC");
        assert_eq!(sentence("found no such task"), "Found no such task.");
    }
}
