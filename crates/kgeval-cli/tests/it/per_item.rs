//! The per-item score table as meta-evaluation will read it: `--per-item` JSON written by a
//! family, read back with `kgeval_formats::per_item::read_per_item`, equals the facade's table
//! (values, under canonical names); tables of two families merge into one.

use kgeval::{NoProgress, OutputFormat, RenderOptions, Task};
use kgeval_formats::per_item::read_per_item;

use crate::{kgeval, root};

/// Runs a task given as TOML with paths relative to the workspace root.
fn evaluate(toml: &str) -> kgeval::Evaluation {
    let task = Task::from_toml(toml, "task.toml").expect("task");
    task.resolved(&root()).run(&NoProgress).expect("evaluation")
}

/// Renders with `--per-item`, reads the JSON back and compares with the envelope's table.
fn assert_round_trip(evaluation: &kgeval::Evaluation) -> kgeval::ScoreTable {
    let options = RenderOptions { per_item: true, ..RenderOptions::default() };
    let json = evaluation.render(OutputFormat::Json, &options);
    let read = read_per_item(json.as_bytes(), "result.json").expect("per_item JSON");
    assert!(!read.is_empty());
    assert!(
        read.same_content(&evaluation.table.values_only()),
        "{:?} ≠ {:?}",
        read.metrics().collect::<Vec<_>>(),
        evaluation.table.metrics().collect::<Vec<_>>()
    );
    read
}

const LEXICON_TASK: &str = r#"
family = "lexicon"
gold = "testdata/lemon/matoll-foaf.ttl"
uris = "testdata/lemon/matoll-foaf-uris.txt"
systems = ["testdata/lemon/matoll-foaf_2.ttl", "testdata/lemon/matoll-foaf_3.ttl"]
"#;

#[test]
fn lexicon_per_item_json_round_trips() {
    let evaluation = evaluate(LEXICON_TASK);
    let read = assert_round_trip(&evaluation);
    assert_eq!(read.systems().collect::<Vec<_>>(), ["matoll-foaf_2", "matoll-foaf_3"]);
    // A changed value is caught.
    let mut changed = read;
    let (s, i, m) = changed.find("matoll-foaf_2", "http://xmlns.com/foaf/0.1/friend", "precision").expect("row");
    changed.set(s, i, m, 0.5);
    assert!(!changed.same_content(&evaluation.table.values_only()));
}

#[test]
fn tables_of_two_families_merge() {
    let lexicon = evaluate(LEXICON_TASK).table;
    let out = kgeval(&[
        "trec",
        "-m",
        "map",
        "-m",
        "recip_rank",
        "--format",
        "json",
        "--per-item",
        "testdata/trec_eval/test/qrels.test",
        "testdata/trec_eval/test/results.test",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trec = read_per_item(&out.stdout, "trec.json").expect("trec per_item");
    let mut merged = lexicon.clone();
    let counts = merged.merge(&trec).expect("no conflict");
    assert_eq!(counts.new_systems, 1);
    assert_eq!(counts.new_values, trec.len());
    assert_eq!(merged.len(), lexicon.len() + trec.len());
    assert!(merged.metrics().any(|m| m == "map") && merged.metrics().any(|m| m == "accuracy"));
    // Merging the same trec values again is a no-op; the merge is order-independent.
    assert_eq!(merged.merge(&trec).expect("same values").new_values, 0);
    let mut other_way = trec.clone();
    other_way.merge(&lexicon).expect("no conflict");
    assert!(other_way.same_content(&merged));
}
