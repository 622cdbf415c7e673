//! A task's leaderboard in one phase: the counted submission of each team (`best` by the
//! primary metric, the earliest of equal ones; or the `last` scored) and the organisers'
//! baselines, marked, ordered by the primary metric; equal values share a rank.

use kgeval::campaign::{ServedEntry, ServedTask};
use kgeval::csv_field;
use std::collections::HashMap;

use serde::Serialize;

use crate::app::ScoredBaseline;
use crate::config::Counts;
use crate::store::{Score, Submission};

/// One row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// 1 + the rows strictly better.
    pub rank: usize,
    /// The team (the organisers' for a baseline).
    pub team: String,
    /// The system's name.
    pub system: String,
    /// The counted submission's id (none for a baseline).
    pub submission: Option<i64>,
    /// When the counted submission arrived (Unix seconds, RFC 3339 in JSON; none for a
    /// baseline).
    #[serde(serialize_with = "rfc3339")]
    pub submitted: Option<i64>,
    /// The team's scored uploads in the phase (none for a baseline).
    pub uploads: Option<usize>,
    /// Whether the row is a baseline.
    pub baseline: bool,
    /// The primary metric's value.
    #[serde(skip)]
    pub primary: f64,
    /// Every headline `{metric: value}`.
    pub scores: serde_json::Map<String, serde_json::Value>,
    /// Its significance tier (1: not significantly worse than the best), when a test ran.
    pub tier: Option<usize>,
    /// Its significance letter (its position on the leaderboard: `a`, `b`, …), when a test ran.
    pub letter: Option<String>,
    /// The letters of the rows it beats significantly (`"cd"`), when a test ran.
    pub beats: Option<String>,
    /// The primary metric's name in the score table.
    #[serde(skip)]
    pub metric: String,
    /// The per-item values, a JSON array of `[item, metric, value]`.
    #[serde(skip)]
    pub items: String,
}

/// An instant as RFC 3339 in the JSON API (`2026-11-01T00:00:00Z`).
fn rfc3339<S: serde::Serializer>(at: &Option<i64>, serializer: S) -> Result<S::Ok, S::Error> {
    Serialize::serialize(&at.map(crate::clock::format), serializer)
}

/// The team name baselines are listed under.
pub const BASELINE_TEAM: &str = "organisers";

/// The leaderboard of `scored` (one task and phase, one scorer, oldest first) and `baselines`
/// (those of the task).
#[must_use]
pub fn leaderboard(scored: &[Submission], baselines: &[&ScoredBaseline], counts: Counts) -> Vec<Row> {
    let mut counted: Vec<(&Submission, &Score)> = Vec::new();
    for submission in scored {
        let Some(score) = &submission.score else { continue };
        match counted.iter_mut().find(|(s, _)| s.team == submission.team) {
            None => counted.push((submission, score)),
            Some(slot) => {
                let better =
                    if score.higher_is_better { score.value > slot.1.value } else { score.value < slot.1.value };
                if counts == Counts::Last || better {
                    *slot = (submission, score);
                }
            }
        }
    }
    let mut uploads: HashMap<i64, usize> = HashMap::new();
    for submission in scored.iter().filter(|s| s.score.is_some()) {
        *uploads.entry(submission.team).or_default() += 1;
    }
    let mut rows: Vec<(Row, bool)> = counted
        .into_iter()
        .map(|(s, score)| {
            let mut row = row(s.team_name.clone(), s.system.clone(), Some(s.id), false, score);
            row.submitted = Some(s.created);
            row.uploads = uploads.get(&s.team).copied();
            (row, score.higher_is_better)
        })
        .collect();
    rows.extend(
        baselines
            .iter()
            .map(|b| (row(BASELINE_TEAM.to_owned(), b.name.clone(), None, true, &b.score), b.score.higher_is_better)),
    );
    let higher = rows.first().is_none_or(|(_, h)| *h);
    let mut rows: Vec<Row> = rows.into_iter().map(|(r, _)| r).collect();
    let key = |r: &Row| if higher { -r.primary } else { r.primary };
    rows.sort_by(|a, b| {
        key(a).total_cmp(&key(b)).then(a.baseline.cmp(&b.baseline)).then(a.submission.cmp(&b.submission))
    });
    let values: Vec<f64> = rows.iter().map(key).collect();
    for (row, value) in rows.iter_mut().zip(&values) {
        row.rank = 1 + values.iter().filter(|v| *v < value).count();
    }
    rows
}

fn row(team: String, system: String, submission: Option<i64>, baseline: bool, score: &Score) -> Row {
    let scores = match serde_json::from_str(&score.headlines) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    Row {
        rank: 0,
        team,
        system,
        submission,
        submitted: None,
        uploads: None,
        baseline,
        primary: score.value,
        scores,
        tier: None,
        letter: None,
        beats: None,
        metric: score.metric.clone(),
        items: score.items.clone(),
    }
}

/// Marks `rows` (a leaderboard, best first) with the significance letters and tiers of
/// `kgeval compare`'s paired test over their per-item values of the primary metric (the
/// facade's [`ServedTask::significance`]); returns how they were decided, or why no test ran.
pub fn mark(task: &ServedTask, rows: &mut [Row]) -> String {
    let Some(metric) = rows.first().map(|r| r.metric.clone()) else {
        return "No significance test: no row".to_owned();
    };
    let items: Vec<Vec<(String, String, f64)>> = rows.iter().map(|r| parse_items(&r.items)).collect();
    let mut labels: Vec<String> = Vec::with_capacity(rows.len());
    for row in rows.iter() {
        let label = match row.submission {
            Some(id) => format!("submission {id}"),
            None => format!("baseline {}", row.system),
        };
        let label = if labels.contains(&label) { format!("{label} ({})", labels.len() + 1) } else { label };
        labels.push(label);
    }
    let entries: Vec<ServedEntry<'_>> =
        labels.iter().zip(&items).map(|(label, items)| ServedEntry { label, items }).collect();
    match task.significance(&metric, &entries) {
        Ok(significance) => {
            for (row, marks) in rows.iter_mut().zip(significance.marks) {
                row.tier = Some(marks.tier);
                row.letter = Some(marks.letter);
                row.beats = Some(marks.beats);
            }
            significance.conventions
        }
        Err(e) => format!("No significance test: {e}"),
    }
}

/// Stored per-item values (`[[item, metric, value], …]`); a malformed entry is left out.
pub(crate) fn parse_items(json: &str) -> Vec<(String, String, f64)> {
    let Ok(serde_json::Value::Array(entries)) = serde_json::from_str::<serde_json::Value>(json) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let entry = entry.as_array()?;
            Some((entry.first()?.as_str()?.to_owned(), entry.get(1)?.as_str()?.to_owned(), entry.get(2)?.as_f64()?))
        })
        .collect()
}

/// The leaderboard as CSV: `rank,team,system,submission,baseline,tier,letter,beats,METRIC…`
/// (the significance columns empty when no test ran; the metrics of
/// every row, in order of first appearance). The text fields are written by
/// [`kgeval::csv_field`], as every CSV of kgeval's: one starting with `=`, `+`, `-`, `@`, a
/// tab or a carriage return gets a leading `'`, so no spreadsheet runs it as a formula.
#[must_use]
pub fn csv(rows: &[Row]) -> String {
    let mut metrics: Vec<&str> = Vec::new();
    for row in rows {
        for metric in row.scores.keys() {
            if !metrics.contains(&metric.as_str()) {
                metrics.push(metric);
            }
        }
    }
    let mut out = String::from("rank,team,system,submission,baseline,tier,letter,beats");
    for metric in &metrics {
        out.push(',');
        out.push_str(&csv_field(metric));
    }
    out.push('\n');
    for row in rows {
        let submission = row.submission.map(|id| id.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "{},{},{},{submission},{},{},{},{}",
            row.rank,
            csv_field(&row.team),
            csv_field(&row.system),
            row.baseline,
            row.tier.map(|t| t.to_string()).unwrap_or_default(),
            row.letter.as_deref().unwrap_or_default(),
            row.beats.as_deref().unwrap_or_default(),
        ));
        for metric in &metrics {
            out.push(',');
            if let Some(value) = row.scores.get(*metric) {
                out.push_str(&value.to_string());
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{csv, leaderboard};
    use crate::app::ScoredBaseline;
    use crate::config::Counts;
    use crate::store::{Score, Submission};

    fn score(value: f64) -> Score {
        Score {
            scorer: "v".into(),
            metric: "map".into(),
            value,
            higher_is_better: true,
            headlines: format!("{{\"map\":{value}}}"),
            items: "[]".into(),
        }
    }

    fn submission(id: i64, team: i64, value: f64) -> Submission {
        Submission {
            id,
            team,
            team_name: format!("team{team}"),
            task: "t".into(),
            phase: "p".into(),
            system: "s".into(),
            sha256: String::new(),
            size: 0,
            status: "scored".into(),
            error: None,
            created: id,
            score: Some(score(value)),
            concerns_gold: false,
            stopped: None,
        }
    }

    #[test]
    fn best_last_ranks_and_baselines() {
        let scored = [submission(1, 1, 0.3), submission(2, 2, 0.5), submission(3, 1, 0.6), submission(4, 1, 0.2)];
        let baseline = ScoredBaseline { task: "t".into(), name: "=BM25, tuned".into(), score: score(0.5) };
        let best = leaderboard(&scored, &[&baseline], Counts::Best);
        let summary: Vec<_> = best.iter().map(|r| (r.rank, r.submission, r.baseline)).collect();
        assert_eq!(summary, [(1, Some(3), false), (2, Some(2), false), (2, None, true)]);
        let last = leaderboard(&scored, &[], Counts::Last);
        let summary: Vec<_> = last.iter().map(|r| (r.rank, r.submission)).collect();
        assert_eq!(summary, [(1, Some(2)), (2, Some(4))]);
        assert_eq!(
            csv(&best),
            "rank,team,system,submission,baseline,tier,letter,beats,map\n1,team1,s,3,false,,,,0.6\n\
             2,team2,s,2,false,,,,0.5\n2,organisers,\"'=BM25, tuned\",,true,,,,0.5\n"
        );
    }
}
