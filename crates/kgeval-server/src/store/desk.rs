//! What the organiser's desk reads and changes: every team with its uploads, every
//! submission under a filter (task, phase, team), a team's token revoked or replaced.

use rusqlite::{params, OptionalExtension as _};

use super::{sql, submission_row, Store, Submission};
use crate::token::{new_token, token_hash};
use crate::{team_name, Error};

/// A team as the desk lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamOverview {
    /// Its row id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Whether it is an organiser.
    pub organiser: bool,
    /// When it was added (Unix seconds).
    pub created: i64,
    /// When its token was revoked, if it was (and not replaced since).
    pub revoked: Option<i64>,
    /// Its submissions, every status.
    pub submissions: u64,
    /// When its last submission arrived.
    pub last_upload: Option<i64>,
}

/// Which submissions a listing shows; `None` is any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// The task.
    pub task: Option<String>,
    /// The phase.
    pub phase: Option<String>,
    /// The team's id.
    pub team: Option<i64>,
}

/// The submission columns without the per-item values: a listing's rows.
const LISTING_COLUMNS: &str = "s.id, s.team, t.name, s.task, s.phase, s.system, s.sha256, s.size, \
     CASE WHEN s.status = 'failed' AND c.scorer IS NOT NULL THEN 'scored' ELSE s.status END, s.error, \
     s.created, c.scorer, c.metric, c.value, c.higher_is_better, c.headlines, '', s.concerns_gold, s.stopped";

/// The most rows one listing returns.
pub const LISTING_LIMIT: u32 = 100_000;

impl Store {
    /// Every team, by name, with its number of submissions and its last upload.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn teams_overview(&self) -> Result<Vec<TeamOverview>, Error> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT t.id, t.name, t.organiser, t.created, t.revoked, COUNT(s.id), MAX(s.created) \
                 FROM teams t LEFT JOIN submissions s ON s.team = t.id GROUP BY t.id ORDER BY t.name_key, t.id",
            )
            .map_err(sql)?;
        let rows = statement
            .query_map([], |r| {
                Ok(TeamOverview {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    organiser: r.get(2)?,
                    created: r.get(3)?,
                    revoked: r.get(4)?,
                    submissions: r.get(5)?,
                    last_upload: r.get(6)?,
                })
            })
            .map_err(sql)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sql)
    }

    /// The submissions to `task` that `listing` selects (its task ignored), newest first, at
    /// most [`LISTING_LIMIT`], with their headlines (not their per-item values) under `scorer`.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn listing(&self, task: &str, listing: &Listing, scorer: &str) -> Result<Vec<Submission>, Error> {
        let query = format!(
            "SELECT {LISTING_COLUMNS} FROM submissions s JOIN teams t ON t.id = s.team \
             LEFT JOIN scores c ON c.submission = s.id AND c.scorer = ?2 \
             WHERE s.task = ?1 AND (?3 IS NULL OR s.phase = ?3) AND (?4 IS NULL OR s.team = ?4) \
             ORDER BY s.id DESC LIMIT ?5"
        );
        let mut statement = self.connection.prepare_cached(&query).map_err(sql)?;
        let rows = statement
            .query_map(params![task, scorer, listing.phase, listing.team, LISTING_LIMIT], submission_row)
            .map_err(sql)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sql)
    }

    /// The id of the team named `name` (compared by its key, as names are unique), if any.
    ///
    /// # Errors
    /// [`Error::Database`].
    pub fn team_id(&self, name: &str) -> Result<Option<i64>, Error> {
        self.connection
            .query_row("SELECT id FROM teams WHERE name_key = ?1 ORDER BY id LIMIT 1", [team_name::key(name)], |r| {
                r.get(0)
            })
            .optional()
            .map_err(sql)
    }

    /// Revokes the token of the team named `name`: refused from now on (its submissions stay).
    ///
    /// # Errors
    /// [`Error::Usage`] when no team has the name, or its token is revoked already;
    /// [`Error::Database`].
    pub fn revoke_team(&mut self, name: &str, now: i64) -> Result<(), Error> {
        let id = self.existing_team(name)?;
        let changed = self
            .connection
            .execute("UPDATE teams SET revoked = ?1 WHERE id = ?2 AND revoked IS NULL", params![now, id])
            .map_err(sql)?;
        if changed == 0 {
            return Err(Error::Usage(format!("found the token of team {name:?} revoked already")));
        }
        Ok(())
    }

    /// Gives the team named `name` a new token and returns it (not stored): the old one is
    /// refused from now on; a revoked team is restored.
    ///
    /// # Errors
    /// [`Error::Usage`] when no team has the name; [`Error::Database`].
    pub fn rotate_token(&mut self, name: &str) -> Result<String, Error> {
        let id = self.existing_team(name)?;
        let token = new_token()?;
        self.connection
            .execute(
                "UPDATE teams SET token_sha256 = ?1, revoked = NULL WHERE id = ?2",
                params![token_hash(&token).as_slice(), id],
            )
            .map_err(sql)?;
        Ok(token)
    }

    /// The id of the team named `name`, or a usage error naming it.
    fn existing_team(&self, name: &str) -> Result<i64, Error> {
        self.team_id(name)?.ok_or_else(|| Error::Usage(format!("found no team named {name:?} in the database")))
    }
}

#[cfg(test)]
mod tests {
    use super::{Listing, Store};

    #[test]
    fn revoked_and_rotated_tokens() {
        let dir = tempfile::tempdir().expect("a folder");
        let mut store = Store::open(&dir.path().join("c.sqlite")).expect("opened");
        let old = store.add_team("Team A", false, 5).expect("added");
        assert!(store.authenticate(&old).expect("read").is_some());
        store.revoke_team("team a", 7).expect("revoked");
        assert_eq!(store.authenticate(&old).expect("read"), None);
        assert!(store.revoke_team("Team A", 8).expect_err("twice").to_string().contains("revoked already"));
        assert_eq!(store.teams_overview().expect("read")[0].revoked, Some(7));
        let new = store.rotate_token("Team A").expect("rotated");
        assert_eq!(store.authenticate(&old).expect("read"), None);
        assert_eq!(store.authenticate(&new).expect("read").map(|t| t.name), Some("Team A".to_owned()));
        let overview = store.teams_overview().expect("read");
        assert_eq!((overview[0].revoked, overview[0].submissions, overview[0].last_upload), (None, 0, None));
        assert!(store.rotate_token("Team B").expect_err("no such team").to_string().contains("found no team"));
        assert!(store.listing("t", &Listing::default(), "s").expect("read").is_empty());
    }
}
