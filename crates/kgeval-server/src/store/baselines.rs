//! The baselines' score rows: a baseline is scored when the server (or `--rescore`) starts,
//! and its score is recorded with the scorer version unless the latest row of that baseline
//! and version holds the same score (a baseline file changed under one scorer version gets a
//! new row). Rows are only added. `--rescore` reads a baseline's value under the previous
//! scorer version from them.

use rusqlite::{params, OptionalExtension as _};

use super::{sql, Score, Store};
use crate::Error;

impl Store {
    /// Records the score of baseline `name` of `task` (under `score.scorer`) unless the latest
    /// row of that baseline and scorer holds the same score; whether a row was added.
    ///
    /// # Errors
    /// [`Error::Database`]; nothing is added then.
    pub fn record_baseline(&mut self, task: &str, name: &str, score: &Score, now: i64) -> Result<bool, Error> {
        let transaction = self.connection.transaction().map_err(sql)?;
        let latest: Option<(f64, String, String)> = transaction
            .query_row(
                "SELECT value, headlines, items FROM baseline_scores WHERE task = ?1 AND name = ?2 AND scorer = ?3 \
                 ORDER BY id DESC LIMIT 1",
                params![task, name, score.scorer],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(sql)?;
        let same = latest.is_some_and(|(value, headlines, items)| {
            value.to_bits() == score.value.to_bits() && headlines == score.headlines && items == score.items
        });
        if !same {
            transaction
                .execute(
                    "INSERT INTO baseline_scores (task, name, scorer, metric, value, higher_is_better, headlines, \
                     items, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        task,
                        name,
                        score.scorer,
                        score.metric,
                        score.value,
                        score.higher_is_better,
                        score.headlines,
                        score.items,
                        now
                    ],
                )
                .map_err(sql)?;
        }
        transaction.commit().map_err(sql)?;
        Ok(!same)
    }

    /// The primary value of the latest recorded score of baseline `name` of `task` under
    /// `scorer`, if any.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn baseline_value(&self, task: &str, name: &str, scorer: &str) -> Result<Option<f64>, Error> {
        self.connection
            .query_row(
                "SELECT value FROM baseline_scores WHERE task = ?1 AND name = ?2 AND scorer = ?3 \
                 ORDER BY id DESC LIMIT 1",
                params![task, name, scorer],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql)
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{Score, Store};

    #[test]
    fn a_baseline_score_is_recorded_once_per_scorer_and_score() {
        let dir = tempfile::tempdir().expect("a folder");
        let mut store = Store::open(&dir.path().join("c.sqlite")).expect("opened");
        let score = |scorer: &str, value: f64| Score {
            scorer: scorer.into(),
            metric: "map".into(),
            value,
            higher_is_better: true,
            headlines: format!("{{\"map\":{value}}}"),
            items: "[]".into(),
        };
        assert_eq!(store.baseline_value("t", "bm25", "v1").expect("read"), None);
        assert!(store.record_baseline("t", "bm25", &score("v1", 0.25), 1).expect("recorded"));
        assert!(!store.record_baseline("t", "bm25", &score("v1", 0.25), 2).expect("the same: not again"));
        assert!(store.record_baseline("t", "bm25", &score("v2", 0.5), 3).expect("another scorer"));
        assert_eq!(store.baseline_value("t", "bm25", "v1").expect("read"), Some(0.25));
        assert_eq!(store.baseline_value("t", "bm25", "v2").expect("read"), Some(0.5));
        // The baseline file changed under v1: a new row, the latest is read.
        assert!(store.record_baseline("t", "bm25", &score("v1", 0.75), 4).expect("changed"));
        assert_eq!(store.baseline_value("t", "bm25", "v1").expect("read"), Some(0.75));
        assert_eq!(store.baseline_value("t", "other", "v1").expect("read"), None);
    }
}
