//! `--fail-under` refuses a metric no family has before any input is read; this checks that
//! the vocabulary it uses refuses no real headline: every headline metric of every task of
//! every bundled campaign (all six families) parses as a gate.

use std::path::Path;

use kgeval::campaign::Campaign;
use kgeval::{Gate, NoProgress};

#[test]
fn every_headline_of_the_bundled_campaigns_is_a_valid_gate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut checked = 0;
    let mut refused = std::collections::BTreeSet::new();
    let mut families = std::collections::BTreeSet::new();
    for campaign in ["diso", "kgc-sparsity", "oaei2018", "qald3", "trec_eval"] {
        let manifest = root.join(format!("testdata/campaigns/{campaign}.toml"));
        let outcome = Campaign::read(&manifest).expect("manifest").run(&NoProgress);
        for task in &outcome.tasks {
            let evaluation = task.evaluation.as_ref().expect("the task runs");
            families.insert(evaluation.family.name());
            let table = &evaluation.table;
            for (_, metric, _) in table.headlines() {
                let name = table.metric_name(metric);
                for spelled in [name.to_owned(), name.to_ascii_uppercase()] {
                    if Gate::parse(&format!("{spelled}=0.5")).is_err() {
                        refused.insert(format!("{campaign}: {spelled}"));
                    }
                }
                checked += 1;
            }
        }
    }
    // The profiles and measure sets the campaigns do not use: Bio-LLM, Bio-ML, all of trec_eval.
    let r = root.display();
    for toml in [
        format!("family = \"rank\"\nprofile = \"biollm\"\nthreshold = 0.65\n[[pair]]\nname = \"p\"\nsubmission = \"{r}/testdata/ranking/bioml-biollm/biollm_result.tsv\""),
        format!("family = \"rank\"\nprofile = \"bioml\"\n[[pair]]\nname = \"p\"\ngold = \"{r}/testdata/ranking/oaei-bioml-eval-contract/equivalence-local-gold.tsv\"\nsubmission = \"{r}/testdata/ranking/oaei-bioml-eval-contract/equivalence-local-submission.tsv\""),
        format!("family = \"trec\"\nqrels = \"{r}/testdata/trec_eval/test/qrels.test\"\nrun = \"{r}/testdata/trec_eval/test/results.test\"\nmeasures = [\"all_trec\", \"ndcg@10\", \"mrr@10\"]"),
    ] {
        let evaluation = kgeval::Task::from_toml(&toml, "task.toml").expect("task").run(&NoProgress).expect("runs");
        let table = &evaluation.table;
        for (_, metric, _) in table.headlines() {
            let name = table.metric_name(metric);
            if Gate::parse(&format!("{name}=0.5")).is_err() {
                refused.insert(format!("{}: {name}", evaluation.family.name()));
            }
            checked += 1;
        }
    }
    assert!(refused.is_empty(), "refused: {refused:?}");
    assert_eq!(families.len(), 6, "{families:?}");
    assert!(checked > 100, "{checked}");
    assert!(Gate::parse("foo=0.5").is_err());
}
