//! The facade as a library user meets it: tasks from manifests (with located errors), inputs
//! in memory, the envelope's table, gates and progress.

mod campaign_browser;
mod campaign_manifest;
mod campaign_render;
mod discpower;
mod gate_names;
mod kgc_mapped;
mod kgc_memory;
mod kgc_sensitivity;
mod lexicon;
mod page_checks;
mod trec_interned;
mod trec_merge;
mod trec_merge_sides;
mod trec_stream;
#[cfg(feature = "arrow")]
mod trec_tables;

use std::path::{Path, PathBuf};

/// The workspace root (bundled `testdata/` lives there).
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The README's "As a library" snippet, as written there (paths resolved against the root).
#[test]
fn readme_library_example() {
    use kgeval::{NoProgress, OutputFormat, RenderOptions, Task};
    let task = Task::from_toml(
        r#"
    family = "trec"
    qrels = "testdata/trec_eval/test/qrels.test"
    runs = ["bm25=testdata/trec_eval/test/results.test"]
    measures = ["map", "ndcg_cut.10"]
"#,
        "task.toml",
    )
    .expect("task");
    let evaluation = task.resolved(&root()).run(&NoProgress).expect("evaluation");
    assert_eq!(evaluation.headline("bm25", "map").map(|m| (m * 1e4).round()), Some(1785.0));
    let markdown = evaluation.render(OutputFormat::Markdown, &RenderOptions::default());
    assert!(markdown.contains("ndcg_cut_10"), "{markdown}");
}
