//! Scores AML's OAEI 2018 alignment of cmt-conference against the reference, as
//! `kgeval align` does. Run from the workspace root: `cargo run -p kgeval --example score_alignment`.

use kgeval::align::{AlignPair, AlignTask, CompletenessMode};
use kgeval::{NoProgress, OutputFormat, RenderOptions};

fn main() -> Result<(), kgeval::Error> {
    let results = "testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1";
    let pair = AlignPair::new("testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf")
        .system(&format!("AML={results}/cmt-conference/AML/systemAlignment.rdf"));
    let evaluation = AlignTask::new(vec![pair]).completeness(CompletenessMode::Complete).run(&NoProgress)?;
    print!("{}", evaluation.render(OutputFormat::Text, &RenderOptions::default()));
    println!("micro F1 of AML: {:?}", evaluation.headline("AML", "f1"));
    Ok(())
}
