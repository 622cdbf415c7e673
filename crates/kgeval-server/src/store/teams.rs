//! The teams: added with a token (only its hash is stored) under a name unique by its key
//! ([`crate::team_name::key`]: NFKC, lower case), kept in the `name_key` column; signed in by
//! the token's hash.

use rusqlite::{params, TransactionBehavior};

use super::{sql, Store, Team};
use crate::team_name;
use crate::token::{new_token, same_hash, token_hash};
use crate::Error;

/// The schema version that added `teams.name_key` (filled for the teams already there by
/// [`fill_name_keys`] in the same transaction).
pub(super) const NAME_KEY_VERSION: usize = 3;

/// Sets the key of every team that has none (the teams added before keys were stored). Names
/// that share a key among them stay as they are; no new name may take that key.
///
/// # Errors
/// [`Error::Database`].
pub(super) fn fill_name_keys(transaction: &rusqlite::Transaction<'_>) -> Result<(), Error> {
    let mut statement = transaction.prepare("SELECT id, name FROM teams WHERE name_key IS NULL").map_err(sql)?;
    let teams = statement
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
        .map_err(sql)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql)?;
    for (id, name) in teams {
        transaction
            .execute("UPDATE teams SET name_key = ?1 WHERE id = ?2", params![team_name::key(&name), id])
            .map_err(sql)?;
    }
    Ok(())
}

impl Store {
    /// Adds a team (or an organiser) named `name` (checked by [`team_name::check`], trimmed)
    /// and returns its token, which is not stored. The check that no team has the name's key
    /// and the insert are one write transaction: two commands adding look-alike names at once
    /// add one.
    ///
    /// # Errors
    /// [`Error::Usage`] for an invalid name or one whose key a team has (naming that team);
    /// [`Error::Database`].
    pub fn add_team(&mut self, name: &str, organiser: bool, now: i64) -> Result<String, Error> {
        let name = team_name::check(name)?;
        let key = team_name::key(name);
        let transaction = self.connection.transaction_with_behavior(TransactionBehavior::Immediate).map_err(sql)?;
        let taken: Option<String> = rusqlite::OptionalExtension::optional(transaction.query_row(
            "SELECT name FROM teams WHERE name_key = ?1 LIMIT 1",
            [&key],
            |r| r.get(0),
        ))
        .map_err(sql)?;
        if let Some(taken) = taken {
            let same = if taken == name { String::new() } else { format!(" (as {taken:?})") };
            return Err(Error::Usage(format!(
                "found team {name:?} in the database already{same}, expected a new name (names are compared \
                 after NFKC normalisation and lower-casing)"
            )));
        }
        let token = new_token()?;
        transaction
            .execute(
                "INSERT INTO teams (name, name_key, token_sha256, organiser, created) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![name, key, token_hash(&token).as_slice(), organiser, now],
            )
            .map_err(sql)?;
        transaction.commit().map_err(sql)?;
        Ok(token)
    }

    /// The team a token belongs to: its hash compared with every team's in constant time (a
    /// revoked team's token belongs to no one).
    ///
    /// # Errors
    /// [`Error::Database`] when the teams cannot be read.
    pub fn authenticate(&self, token: &str) -> Result<Option<Team>, Error> {
        let presented = token_hash(token);
        let mut statement = self
            .connection
            .prepare_cached("SELECT id, name, organiser, token_sha256 FROM teams WHERE revoked IS NULL")
            .map_err(sql)?;
        let rows = statement
            .query_map([], |r| {
                Ok((Team { id: r.get(0)?, name: r.get(1)?, organiser: r.get(2)? }, r.get::<_, Vec<u8>>(3)?))
            })
            .map_err(sql)?;
        let mut found = None;
        for row in rows {
            let (team, hash) = row.map_err(sql)?;
            if same_hash(&hash, &presented) && found.is_none() {
                found = Some(team);
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::Store;

    #[test]
    fn names_are_unique_by_their_key() {
        let dir = tempfile::tempdir().expect("a folder");
        let mut store = Store::open(&dir.path().join("c.sqlite")).expect("opened");
        store.add_team("Team A", false, 0).expect("added");
        for look_alike in ["team a", "TEAM  A", "\u{FF34}eam A", " Team A "] {
            let message = store.add_team(look_alike, false, 0).expect_err("taken").to_string();
            assert!(message.starts_with("found team"), "{message}");
            assert!(message.contains("in the database already"), "{message}");
        }
        assert!(store.add_team("Team\u{200B}A", false, 0).is_err(), "a zero-width space");
        assert!(store.add_team("Team B", true, 0).is_ok());
    }

    #[test]
    fn a_database_of_before_the_keys_gets_them() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("c.sqlite");
        // The teams table of schema version 2, with two names that share a key.
        let old = Connection::open(&path).expect("created");
        old.execute_batch(super::super::MIGRATIONS[0]).expect("version 1");
        old.execute_batch(super::super::MIGRATIONS[1]).expect("version 2");
        old.execute_batch(
            "INSERT INTO teams (name, token_sha256, created) VALUES ('Team A', x'01', 0), ('team a', x'02', 0); \
             PRAGMA user_version = 2;",
        )
        .expect("teams");
        drop(old);
        let mut store = Store::open(&path).expect("migrated");
        let keys: Vec<String> = store
            .connection
            .prepare("SELECT name_key FROM teams ORDER BY id")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("keys");
        assert_eq!(keys, ["team a", "team a"], "both kept, with their keys");
        assert!(store.add_team("TEAM A", false, 0).is_err());
        assert!(store.add_team("Team C", false, 0).is_ok());
    }
}
