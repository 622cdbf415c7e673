//! `LexiconTask`: manifests, in-memory inputs, headlines, gates and progress.

use std::sync::atomic::{AtomicU64, Ordering};

use kgeval::lexicon::LexiconTask;
use kgeval::{Family, Gate, Input, NoProgress, OutputFormat, Progress, RenderOptions, SystemInput, Task};

use crate::root;

const FOAF: &str = "testdata/lemon/matoll-foaf.ttl";
const FOAF_2: &str = "testdata/lemon/matoll-foaf_2.ttl";
const URIS: &str = "testdata/lemon/matoll-foaf-uris.txt";

fn bytes(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).expect(path)
}

#[test]
fn in_memory_inputs_score_like_files() {
    let from_files = LexiconTask::new(root().join(FOAF), root().join(URIS))
        .system(root().join(FOAF_2).to_str().expect("utf-8"))
        .run(&NoProgress)
        .expect("files");
    let in_memory = LexiconTask {
        gold: Input::from_bytes("gold.ttl", bytes(FOAF)),
        uris: Input::from_bytes("uris.txt", bytes(URIS)),
        systems: vec![SystemInput::named("mine", Input::from_bytes("mine.ttl", bytes(FOAF_2)))],
        ..LexiconTask::new("unused", "unused")
    }
    .run(&NoProgress)
    .expect("in memory");
    assert_eq!(in_memory.systems, ["mine"]);
    let system = &from_files.systems[0];
    for metric in ["precision", "recall", "f1", "accuracy", "micro_f1"] {
        assert_eq!(in_memory.headline("mine", metric), from_files.headline(system, metric), "{metric}");
    }
    // matoll-foaf_2 adds one wrong entry (`love`) for `friend`: micro P = 6/7, R = 6/7.
    assert_eq!(in_memory.headline("mine", "micro_precision"), Some(6.0 / 7.0));
    assert_eq!(in_memory.headline("mine", "micro_recall"), Some(6.0 / 7.0));
    // Headlines are named as --fail-under names them: any case, aliases.
    assert_eq!(in_memory.headline("mine", "Micro_Recall"), Some(6.0 / 7.0));
    assert_eq!(in_memory.headline("mine", "F1"), in_memory.headline("mine", "f1"));
    assert_eq!(in_memory.headline("mine", "ndcg"), None);
    // The envelope's table: per URI values under canonical names, one system.
    assert_eq!(in_memory.table.systems().collect::<Vec<_>>(), ["mine"]);
    assert!(in_memory.table.metrics().any(|m| m == "accuracy"));
    assert_eq!(in_memory.family, Family::Lexicon);
}

#[test]
fn inline_text_in_a_manifest_and_located_manifest_errors() {
    let gold = String::from_utf8(bytes(FOAF)).expect("utf-8");
    let uris = String::from_utf8(bytes(URIS)).expect("utf-8");
    let toml = format!(
        "family = \"lexicon\"\ngold = {{ name = \"gold.ttl\", text = {gold:?} }}\nuris = {{ name = \"u.txt\", text = {uris:?} }}\nsystem = {{ name = \"self\", path = {:?} }}\n",
        root().join(FOAF).display().to_string()
    );
    let task = Task::from_toml(&toml, "inline.toml").expect("inline task");
    let evaluation = task.run(&NoProgress).expect("runs");
    assert_eq!(evaluation.headline("self", "f1"), Some(1.0), "the gold against itself");

    let unknown = Task::from_toml(
        "family = \"lexicon\"\ngold = \"g\"\nuris = \"u\"\nsystem = \"s\"\nmod = \"paper\"\n",
        "t.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(unknown.starts_with("t.toml:5:1: unknown field `mod`"), "{unknown}");
    let family = Task::from_toml("family = \"lexikon\"\n", "t.toml").unwrap_err().to_string();
    assert!(family.starts_with("t.toml:1:10: found family \"lexikon\", expected one of align, rank"), "{family}");
    let mode = Task::from_toml(
        "family = \"lexicon\"\ngold = \"g\"\nuris = \"u\"\nsystem = \"s\"\nmode = \"papr\"\n",
        "t.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(mode.contains("found \"papr\", expected paper or qald3-script"), "{mode}");
}

#[test]
fn errors_gates_and_progress() {
    let missing = LexiconTask::new(root().join(FOAF), "/nonexistent/uris.txt").system(FOAF_2).run(&NoProgress);
    let error = missing.unwrap_err();
    assert_eq!(error.to_string(), "reading the URI list");
    let cause = std::error::Error::source(&error).map(ToString::to_string).unwrap_or_default();
    assert!(cause.starts_with("/nonexistent/uris.txt: "), "{cause}");
    assert!(LexiconTask::new(FOAF, URIS).run(&NoProgress).unwrap_err().to_string().contains("at least one system"));

    /// Counts the steps reported.
    #[derive(Default)]
    struct Counter(AtomicU64, AtomicU64);
    impl Progress for Counter {
        fn start(&self, _what: &str, total: u64) {
            self.0.store(total, Ordering::Relaxed);
        }
        fn advance(&self, steps: u64) {
            self.1.fetch_add(steps, Ordering::Relaxed);
        }
        fn finish(&self) {}
    }
    let counter = Counter::default();
    let task = LexiconTask::new(root().join(FOAF), root().join(URIS))
        .system(&format!("a={}", root().join(FOAF_2).display()))
        .system(&format!("b={}", root().join(FOAF).display()));
    let evaluation = task.run(&counter).expect("two systems");
    assert_eq!((counter.0.load(Ordering::Relaxed), counter.1.load(Ordering::Relaxed)), (2, 2));

    let gates = [Gate::parse("F1=1").expect("gate"), Gate::parse("micro_precision=0.9").expect("gate")];
    let failures = evaluation.check_gates(&gates).expect("known metrics");
    let failed: Vec<String> = failures.iter().map(ToString::to_string).collect();
    let f1 = evaluation.headline("a", "f1").expect("f1");
    assert_eq!(failed, [format!("system a: f1 {f1} < 1"), format!("system a: micro_precision {} < 0.9", 6.0 / 7.0)]);
    let unknown = evaluation.check_gates(&[Gate::parse("map=0.1").expect("gate")]).unwrap_err().to_string();
    assert!(unknown.contains("expected one of the lexicon headline metrics: precision, recall, f1"), "{unknown}");
    let text = evaluation.render(OutputFormat::Text, &RenderOptions::default());
    assert_eq!(text.matches("kgeval lexicon: mode paper").count(), 2);
}
