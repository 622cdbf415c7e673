//! The database's tests: teams and tokens, submissions and their scores, the counts.

use super::{NewSubmission, Score, Store};

#[test]
fn teams_submissions_scores_and_counts() {
    let dir = tempfile::tempdir().expect("a folder");
    let path = dir.path().join("c.sqlite");
    let mut store = Store::open(&path).expect("opened");
    let token = store.add_team("A <b>", false, 0).expect("added");
    assert!(store.add_team("A <b>", false, 0).is_err());
    let team = store.authenticate(&token).expect("read").expect("the team");
    assert_eq!((team.name.as_str(), team.organiser), ("A <b>", false));
    assert_eq!(store.authenticate("0".repeat(64).as_str()).expect("read"), None);
    let new = |status, created| NewSubmission {
        team: team.id,
        task: "adhoc",
        phase: "p",
        system: "s",
        sha256: "ab",
        size: 2,
        status,
        error: None,
        stopped: None,
        concerns_gold: false,
        created,
    };
    let score = Score {
        scorer: "v1".into(),
        metric: "map".into(),
        value: 0.5,
        higher_is_better: true,
        headlines: "{}".into(),
        items: "[]".into(),
    };
    let first = store.insert(&new("scored", 10), Some(&score)).expect("inserted");
    store.insert(&new("invalid", 20), None).expect("inserted");
    store.insert(&new("scored", 86_400 + 5), Some(&score)).expect("inserted");
    assert_eq!(store.counted_since(team.id, "adhoc", "p", 0).expect("count"), 2);
    assert_eq!(store.counted_since(team.id, "adhoc", "p", 86_400).expect("count"), 1);
    assert_eq!(store.counted_since(team.id, "adhoc", "other", 0).expect("count"), 0);
    assert_eq!(store.scored("adhoc", "p", "v1").expect("rows").len(), 2);
    assert_eq!(store.scored("adhoc", "p", "v2").expect("rows").len(), 0);
    let read = store.submission(first, "v1").expect("read").expect("present");
    assert_eq!(read.score, Some(score.clone()));
    // A group commit: ids in order, each row with its own score; a batch with one bad row
    // (a team that does not exist) stores none of them.
    let ids = store.insert_all(&[(new("scored", 30), Some(&score)), (new("failed", 40), None)]).expect("inserted");
    assert_eq!(ids.len(), 2);
    assert!(ids[0] < ids[1]);
    assert_eq!(store.submission(ids[0], "v1").expect("read").map(|s| s.score), Some(Some(score.clone())));
    assert_eq!(
        store.submission(ids[1], "v1").expect("read").map(|s| (s.status, s.score)),
        Some(("failed".into(), None))
    );
    let unknown_team = NewSubmission { team: 999, ..new("scored", 200_000) };
    assert!(store.insert_all(&[(new("scored", 200_000), Some(&score)), (unknown_team, None)]).is_err());
    assert_eq!(store.counted_since(team.id, "adhoc", "p", 200_000).expect("count"), 0, "nothing of the failed batch");
    // A failed upload given a score row later (`--rescore`) counts on the leaderboard of
    // that scorer only, is read back as scored there, and leaves the limits as they were.
    let failed = ids[1];
    let before = store.scored("adhoc", "p", "v1").expect("rows").len();
    store.add_scores(&[(failed, score.clone())], 50).expect("added");
    let scored = store.scored("adhoc", "p", "v1").expect("rows");
    assert_eq!(scored.len(), before + 1);
    assert!(scored.iter().any(|s| s.id == failed && s.status == "scored"));
    assert_eq!(store.submission(failed, "v0").expect("read").map(|s| s.status), Some("failed".into()));
    let own = super::Listing { team: Some(team.id), ..super::Listing::default() };
    let listed = store.listing("adhoc", &own, "v1").expect("listed");
    assert_eq!(listed.iter().find(|s| s.id == failed).map(|s| s.status.as_str()), Some("scored"));
    let listed = store.listing("adhoc", &own, "v0").expect("listed");
    assert_eq!(listed.iter().find(|s| s.id == failed).map(|s| s.status.as_str()), Some("failed"));
    assert_eq!(store.counted_since(team.id, "adhoc", "p", 0).expect("count"), 3, "as counted at upload");
    assert_eq!(store.latest_scorer("adhoc").expect("read").as_deref(), Some("v1"));
    assert!(store.add_scores(&[(failed, score.clone())], 60).is_err(), "one row per scorer");
    drop(store);
    // Reopening applies no migration twice.
    let store = Store::open(&path).expect("reopened");
    assert_eq!(store.counted_since(team.id, "adhoc", "p", 0).expect("count"), 3);
}
