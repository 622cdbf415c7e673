//! The significance letters and tiers of a served task's leaderboard: `kgeval compare`'s
//! default test (paired t test, Holm correction, α = 0.05) over the per-item values of the
//! submissions that count, on the primary metric. The serving front end hands the stored
//! per-item values; the test, its options and its description are decided here.

use kgeval_model::metric_names::{metric_info, Direction};
use kgeval_model::ScoreTable;

use super::ServedTask;
use crate::compare::{CompareTask, NamedTable};
use crate::{Error, NoProgress};
use kgeval_meta::MissingPolicy;

/// One row of a served leaderboard, as the significance test reads it.
#[derive(Debug, Clone, Copy)]
pub struct ServedEntry<'a> {
    /// A name unique among the entries (never shown: marks come back in entry order).
    pub label: &'a str,
    /// Its per-item values, `(item, metric, value)`, as [`super::item_values`] gives them.
    pub items: &'a [(String, String, f64)],
}

/// The marks of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryMarks {
    /// Its letter: its position among the entries, `a`, `b`, … (`kgeval compare`'s letters).
    pub letter: String,
    /// Its tier: 1 for the best and every entry not significantly worse than it, and so on.
    pub tier: usize,
    /// The letters of the entries it beats significantly, in letter order (`"cd"`).
    pub beats: String,
}

/// The significance of a served leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedSignificance {
    /// The per-item metric the test ran on.
    pub metric: String,
    /// One per entry, in entry order.
    pub marks: Vec<EntryMarks>,
    /// How the marks were decided, one line (`paired t test, Holm correction, α = 0.05, on
    /// per-item values of map`), with a word when there are too few items.
    pub conventions: String,
}

impl ServedTask {
    /// Runs `kgeval compare`'s default paired test over the per-item values of `metric` (the
    /// primary metric's name in the score table) of every entry — or, for a primary that has
    /// none, of the per-item metric it is built from ([`item_metric`]: QALD's `qald_f` is
    /// tested on each question's F) — as `kgeval run` and the export test the same values;
    /// letters follow the entries' order (give them in leaderboard order).
    ///
    /// # Errors
    /// Fewer than two entries; fewer than two items (`one item: no test`); an entry without
    /// per-item values of the metric; as [`CompareTask::run_on_tables`].
    pub fn significance(&self, metric: &str, entries: &[ServedEntry<'_>]) -> Result<ServedSignificance, Error> {
        if entries.len() < 2 {
            return Err(Error::invalid("a significance test needs at least two leaderboard rows"));
        }
        let primary = metric;
        let metric = item_metric(metric, entries);
        let metric = metric.as_str();
        let items: std::collections::HashSet<&str> =
            entries.iter().flat_map(|e| e.items.iter()).filter(|i| i.1 == metric).map(|i| i.0.as_str()).collect();
        if items.len() == 1 {
            return Err(Error::invalid("one item: no test"));
        }
        let tables: Vec<ScoreTable> = entries.iter().map(|e| table(e, metric)).collect::<Result<_, _>>()?;
        let named: Vec<NamedTable<'_>> = entries
            .iter()
            .zip(&tables)
            .map(|(entry, table)| NamedTable { name: None, table, source: entry.label })
            .collect();
        // An item a submission has no value for (a topic its run left out) counts as 0, as
        // trec_eval -c and an unanswered question count it, for a metric where higher is
        // better; for a lower-is-better one it is left out for every row (0 would be best).
        let missing =
            if metric_info(metric).direction == Direction::Lower { MissingPolicy::Drop } else { MissingPolicy::Zero };
        let task = CompareTask { missing, ..CompareTask::new().metric(metric) };
        let evaluation = task.run_on_tables(&named, &[], &NoProgress)?;
        let result = &evaluation.result;
        let comparison =
            result.metrics.first().ok_or_else(|| Error::invalid(format!("the test compared no metric {metric:?}")))?;
        let rows = &comparison.leaderboard.rows;
        let marks = entries
            .iter()
            .map(|entry| {
                rows.iter()
                    .find(|row| row.name == entry.label)
                    .map(|row| EntryMarks { letter: row.letter.clone(), tier: row.tier, beats: row.marks(rows) })
                    .ok_or_else(|| Error::invalid(format!("the test left out {:?}", entry.label)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut conventions = super::render::significance_text(result, "headlines").map_or_else(
            || format!("no test ran on {metric}"),
            |text| {
                let text = text.replacen("on per-item values; the table shows the headlines", "on per-item values", 1);
                text.replacen("on per-item values", &format!("on per-item values of {metric}"), 1)
            },
        );
        if metric != primary {
            conventions.push_str(&format!(" ({primary} has no per-item values: it is built from {metric})"));
        }
        if comparison.zero_filled > 0 {
            conventions.push_str(&format!("; {} missing item value(s) counted as 0", comparison.zero_filled));
        }
        if comparison.dropped_items > 0 {
            conventions.push_str(&format!("; {} item(s) some row lacks left out", comparison.dropped_items));
        }
        Ok(ServedSignificance { metric: metric.to_owned(), marks, conventions })
    }
}

/// Kendall's tau-b between the orderings two score lists give the same rows (`old[i]` and
/// `new[i]` are row i's values before and after a rescoring); `None` when it is undefined
/// (fewer than two rows, or every value equal on one side).
///
/// ```
/// assert_eq!(kgeval::campaign::ordering_tau(&[0.3, 0.2, 0.1], &[0.1, 0.2, 0.3]), Some(-1.0));
/// let tau = kgeval::campaign::ordering_tau(&[0.3, 0.2, 0.1], &[0.5, 0.4, 0.45]).unwrap_or(0.0);
/// assert!((tau - 1.0 / 3.0).abs() < 1e-12); // 2 concordant pairs, 1 discordant
/// assert_eq!(kgeval::campaign::ordering_tau(&[0.3], &[0.5]), None);
/// ```
#[must_use]
pub fn ordering_tau(old: &[f64], new: &[f64]) -> Option<f64> {
    let tau = kgeval_meta::kendall::kendall_tau(old, new, crate::compare::TauVariant::B).ok()?.tau;
    tau.is_finite().then_some(tau)
}

/// The per-item metric a test of the primary `metric` runs on: `metric` when some entry has
/// per-item values of it, else the one it is built from — `local_` and `micro_` dropped, and
/// QALD's `qald_f` the per-question `f1` (`qald_f`, `micro_f1`, `local_qald_f` → `f1`;
/// `micro_precision` → `precision`).
fn item_metric(metric: &str, entries: &[ServedEntry<'_>]) -> String {
    let has = |name: &str| entries.iter().any(|e| e.items.iter().any(|i| i.1 == name));
    if has(metric) {
        return metric.to_owned();
    }
    let base = metric.strip_prefix("local_").unwrap_or(metric);
    let base = base.strip_prefix("micro_").unwrap_or(base);
    let base = if base == "qald_f" { "f1" } else { base };
    if has(base) {
        base.to_owned()
    } else {
        metric.to_owned()
    }
}

/// The one-system table of an entry's per-item values of `metric`.
fn table(entry: &ServedEntry<'_>, metric: &str) -> Result<ScoreTable, Error> {
    let mut table = ScoreTable::new();
    let system = table.system(entry.label);
    let id = table.metric(metric);
    for (item, name, value) in entry.items {
        if name == metric {
            let item = table.item(item, &[]);
            table.set(system, item, id, *value);
        }
    }
    if table.is_empty() {
        return Err(Error::invalid(format!("found no per-item values of {metric}, expected one per item")));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::ServedEntry;
    use crate::campaign::ServedCampaign;
    use crate::toml_doc::TomlManifest;

    fn items(values: &[f64]) -> Vec<(String, String, f64)> {
        values.iter().enumerate().map(|(i, v)| (format!("q{i}"), "map".to_owned(), *v)).collect()
    }

    #[test]
    fn a_primary_without_items_is_tested_on_what_it_is_built_from() {
        let file = "../../testdata/campaigns/s.toml";
        let text = "[[task]]\nname = \"qa\"\nfamily = \"qald\"\ngold = \"../qald/qald3/dbpedia-test-answers.xml\"\nprimary = \"qald_f\"\n";
        let manifest = TomlManifest::parse(text, file).expect("parsed");
        let campaign = ServedCampaign::from_manifest(&manifest, text, std::path::Path::new(file), &[]).expect("read");
        let task = &campaign.tasks[0];
        let per_question = |values: &[f64]| -> Vec<(String, String, f64)> {
            values
                .iter()
                .enumerate()
                .flat_map(|(i, v)| {
                    [(format!("q{i}"), "f1".to_owned(), *v), (format!("q{i}"), "precision".to_owned(), 1.0 - v)]
                })
                .collect()
        };
        let good = per_question(&[1.0, 1.0, 0.9, 1.0, 0.95, 1.0, 1.0, 0.9]);
        let bad = per_question(&[0.0, 0.1, 0.0, 0.05, 0.0, 0.0, 0.1, 0.0]);
        let entries = [ServedEntry { label: "A", items: &good }, ServedEntry { label: "B", items: &bad }];
        let significance = task.significance("qald_f", &entries).expect("tested on f1");
        assert_eq!(significance.metric, "f1");
        assert_eq!(significance.marks[0].beats, "b");
        assert!(
            significance
                .conventions
                .ends_with("on per-item values of f1 (qald_f has no per-item values: it is built from f1)"),
            "{}",
            significance.conventions
        );
        assert_eq!(task.significance("micro_precision", &entries).expect("tested").metric, "precision");
        // One item: no test, said so.
        let one = per_question(&[0.5]);
        let entries = [ServedEntry { label: "A", items: &one }, ServedEntry { label: "B", items: &one }];
        assert_eq!(task.significance("qald_f", &entries).expect_err("one item").to_string(), "one item: no test");
    }

    #[test]
    fn letters_tiers_and_marks_follow_the_entries() {
        let file = "../../testdata/campaigns/s.toml";
        let text =
            "[[task]]\nname = \"a\"\nfamily = \"trec\"\nqrels = \"../trec_eval/test/qrels.test\"\nprimary = \"map\"\n";
        let manifest = TomlManifest::parse(text, file).expect("parsed");
        let campaign = ServedCampaign::from_manifest(&manifest, text, std::path::Path::new(file), &[]).expect("read");
        let task = &campaign.tasks[0];
        // A and B beat C on 8 items; B is too noisy to be told apart from A: one tier.
        let a = items(&[0.9, 0.8, 0.85, 0.95, 0.9, 0.88, 0.92, 0.87]);
        let b = items(&[0.2, 0.95, 0.1, 0.9, 0.3, 0.99, 0.15, 0.8]);
        let c = items(&[0.1, 0.05, 0.1, 0.12, 0.08, 0.1, 0.09, 0.11]);
        let entries = [
            ServedEntry { label: "A", items: &a },
            ServedEntry { label: "B", items: &b },
            ServedEntry { label: "C", items: &c },
        ];
        let significance = task.significance("map", &entries).expect("tested");
        let marks: Vec<(&str, usize, &str)> =
            significance.marks.iter().map(|m| (m.letter.as_str(), m.tier, m.beats.as_str())).collect();
        assert_eq!(marks, [("a", 1, "c"), ("b", 1, "c"), ("c", 2, "")]);
        assert_eq!(significance.conventions, "paired t test, holm correction, α = 0.05, on per-item values of map");
        assert!(task.significance("map", &entries[..1]).is_err());
        assert!(task.significance("P_10", &entries).is_err());
        // An item C lacks counts as 0 for it.
        let short = items(&[0.1, 0.05, 0.1, 0.12, 0.08, 0.1, 0.09]);
        let entries = [ServedEntry { label: "A", items: &a }, ServedEntry { label: "C", items: &short }];
        let significance = task.significance("map", &entries).expect("tested");
        assert_eq!(significance.marks[0].beats, "b");
        assert!(
            significance.conventions.ends_with("; 1 missing item value(s) counted as 0"),
            "{}",
            significance.conventions
        );
    }
}
