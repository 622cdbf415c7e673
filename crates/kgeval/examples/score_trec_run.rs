//! Scores trec_eval's bundled test run with the facade, as `kgeval trec` would.
//!
//! `cargo run -p kgeval --example score_trec_run` (from the workspace root).

use kgeval::trec::TrecTask;
use kgeval::{NoProgress, OutputFormat, RenderOptions};

fn main() -> Result<(), kgeval::Error> {
    let task = TrecTask::new("testdata/trec_eval/test/qrels.test")
        .run_file("standard=testdata/trec_eval/test/results.test")
        .measure("map")
        .measure("P.10")
        .measure("ndcg@10");
    let evaluation = task.run(&NoProgress)?;
    // trec_eval's text, byte for byte: `map  all  0.1785`, `P_10  all  0.3000`, …
    print!("{}", evaluation.render(OutputFormat::Text, &RenderOptions::default()));
    // Every summary value is a headline of the score table.
    let map = evaluation.headline("standard", "map").unwrap_or_default();
    println!("MAP of standard: {map:.4}");
    Ok(())
}
