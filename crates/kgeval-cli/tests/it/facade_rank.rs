//! `kgeval rank` through the facade: a `RankTask` from TOML renders byte for byte what the CLI
//! prints, its headlines are the JSON's MACRO / MICRO / profile numbers, every text input
//! accepts gzip and stdin, `--fail-under` gates the headlines, and every `--help` example runs.

use std::path::Path;

use kgeval::rank::RankTask;
use kgeval::{Family, OutputFormat};
use serde_json::Value;

use crate::facade::{assert_same_output, cli_json, json_options, run_toml};
use crate::{gzip_file, kgeval, kgeval_stdin, root};

const MANIFEST: &str = "testdata/ranking/diso-synthetic/task2.toml";
const POOLS: &str = "testdata/ranking/diso-oaei/pools/uco-stix/pools.jsonl";
const GOLD: &str = "testdata/ranking/diso-synthetic/uco-stix/gold.tsv";
const RUN: &str = "testdata/ranking/diso-synthetic/uco-stix/lexical.jsonl";
const BIOLLM: &str = "testdata/ranking/bioml-biollm/biollm_result.tsv";
const CONTRACT: &str = "testdata/ranking/oaei-bioml-eval-contract";

/// The DISO synthetic manifest's content as a task row (its paths as the CLI resolves them).
const DISO_TASK: &str = r#"
family = "rank"
profile = "diso"
system = "lexical (synthetic demo)"

[[pair]]
name = "uco-stix"
pools = "testdata/ranking/diso-synthetic/../diso-oaei/pools/uco-stix/pools.jsonl"
gold = "testdata/ranking/diso-synthetic/uco-stix/gold.tsv"
submission = "testdata/ranking/diso-synthetic/uco-stix/lexical.jsonl"

[[pair]]
name = "stix-d3fend"
pools = "testdata/ranking/diso-synthetic/../diso-oaei/pools/stix-d3fend/pools.jsonl"
gold = "testdata/ranking/diso-synthetic/stix-d3fend/gold.tsv"
submission = "testdata/ranking/diso-synthetic/stix-d3fend/lexical.jsonl"
"#;

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("json")
}

fn number(v: &Value, key: &str) -> Option<f64> {
    v[key].as_f64()
}

#[test]
fn diso_task_from_toml_equals_the_cli_and_the_golden_file() {
    let evaluation = run_toml(DISO_TASK);
    let cli = cli_json(&["rank", "--manifest", MANIFEST]);
    let rendered = evaluation.render(OutputFormat::Json, &json_options());
    assert_same_output(&rendered, &cli);
    let golden = std::fs::read_to_string(root().join("testdata/golden/diso-synthetic-task2.json")).expect("golden");
    assert_eq!(json(&rendered)["MACRO"], json(&golden)["MACRO"]);
    // The manifest file itself deserialises straight into the task.
    let manifest: RankTask = kgeval::read_toml(&root().join(MANIFEST)).expect("manifest");
    let from_file = manifest.resolved(&root().join("testdata/ranking/diso-synthetic")).run(&kgeval::NoProgress);
    assert_eq!(from_file.expect("evaluation").render(OutputFormat::Json, &json_options()), rendered);

    assert_eq!(evaluation.family, Family::Rank);
    assert_eq!(evaluation.systems, ["lexical (synthetic demo)"]);
    let system = "lexical (synthetic demo)";
    let v = json(&cli);
    let (macro_, micro) = (&v["MACRO"], &v["MICRO"]);
    for alias in ["mrr", "MRR", "rr", "recip_rank"] {
        assert_eq!(evaluation.headline(system, alias), number(macro_, "mrr"), "{alias}");
    }
    for k in [1, 3, 5, 10] {
        let key = format!("hits_at_{k}");
        assert_eq!(evaluation.headline(system, &format!("hits@{k}")), number(macro_, &key));
        assert_eq!(evaluation.headline(system, &key), number(macro_, &key));
        assert_eq!(evaluation.headline(system, &format!("micro_hits@{k}")), number(micro, &key));
    }
    assert_eq!(evaluation.headline(system, "micro_mrr"), number(micro, "mrr"));
    assert_ne!(number(macro_, "mrr"), number(micro, "mrr"), "two pairs: MACRO and micro differ");
    let kgeval::Conventions::Rank(conventions) = &evaluation.conventions else { panic!("rank conventions") };
    assert_eq!((conventions.ks.as_slice(), conventions.ties_name()), ([1, 3, 5, 10].as_slice(), "stable"));
    // The identical pools of stix-d3fend are a reader warning of that pair.
    assert!(evaluation.warnings.iter().all(|w| w.scope.starts_with("pair ") || w.scope.starts_with("system ")));
}

#[test]
fn bioml_and_biollm_single_submissions_equal_the_cli() {
    let gold = format!("{CONTRACT}/equivalence-local-gold.tsv");
    let submission = format!("{CONTRACT}/equivalence-local-submission.tsv");
    let bioml = run_toml(&format!(
        "family = \"rank\"\nprofile = \"bioml\"\n[[pair]]\ngold = {gold:?}\nsubmission = {submission:?}\n"
    ));
    let cli = cli_json(&["rank", "--profile", "bioml", "--gold", &gold, "--system", &submission]);
    assert_same_output(&bioml.render(OutputFormat::Json, &json_options()), &cli);
    assert_eq!(bioml.systems, ["equivalence-local-submission"]);
    assert_eq!(bioml.headline("equivalence-local-submission", "mrr"), Some(0.75));
    assert_eq!(bioml.headline("equivalence-local-submission", "hits@1"), Some(0.5));

    let biollm = run_toml(&format!(
        "family = \"rank\"\nprofile = \"biollm\"\nsystem = \"LLMap\"\nthreshold = 0.65\n[[pair]]\nsubmission = {BIOLLM:?}\n"
    ));
    let cli = cli_json(&["rank", "--profile", "biollm", "--system", &format!("LLMap={BIOLLM}"), "--threshold", "0.65"]);
    assert_same_output(&biollm.render(OutputFormat::Json, &json_options()), &cli);
    let v = json(&cli);
    for (metric, key) in [
        ("precision", "P"),
        ("recall", "R"),
        ("f1", "F1"),
        ("hits@1", "Hits@1"),
        ("mrr", "MRR"),
        ("rejection_rate", "RR"),
    ] {
        assert_eq!(biollm.headline("LLMap", metric), number(&v, key), "{metric}");
    }
    assert_eq!(v["system"], "LLMap");
}

#[test]
fn ontoaligner_headlines_are_fractions() {
    let gold = format!("{CONTRACT}/equivalence-local-gold.tsv");
    let evaluation = run_toml(&format!(
        "family = \"rank\"\nprofile = \"ontoaligner\"\nks = [1, 2]\nbeta = 2.0\n[[pair]]\ngold = {gold:?}\nsubmission = {gold:?}\n"
    ));
    let cli = cli_json(&[
        "rank",
        "--profile",
        "ontoaligner",
        "--gold",
        &gold,
        "--system",
        &gold,
        "--k",
        "1,2",
        "--beta",
        "2",
    ]);
    assert_same_output(&evaluation.render(OutputFormat::Json, &json_options()), &cli);
    let v = json(&cli);
    assert_eq!(v["evaluation_report"]["precision"], 100.0);
    for metric in ["precision", "recall", "f_score", "mrr", "hits@1", "hits@2"] {
        assert_eq!(evaluation.headline("equivalence-local-gold", metric), Some(1.0), "{metric}");
    }
}

/// The CLI's JSON on the uco-stix pair, every input given as `args` (the pair and system named).
fn uco_stix(args: &[&str], stdin: Option<&[u8]>) -> Value {
    let mut all = vec!["rank", "--pair", "uco-stix", "--format", "json"];
    all.extend(args);
    let out = match stdin {
        Some(bytes) => kgeval_stdin(&all, bytes),
        None => kgeval(&all),
    };
    assert!(out.status.success(), "{all:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn gzip_and_stdin_for_pools_gold_and_submission() {
    let tmp = tempfile::tempdir().expect("tmp");
    let gz = |file: &str| {
        let target = tmp.path().join(format!("{}.gz", Path::new(file).file_name().expect("name").to_string_lossy()));
        gzip_file(&root().join(file), &target);
        target.display().to_string()
    };
    let (pools_gz, gold_gz, run_gz) = (gz(POOLS), gz(GOLD), gz(RUN));
    let plain = uco_stix(&["--pools", POOLS, "--gold", GOLD, "--system", RUN], None);
    assert_eq!(plain["system"], "lexical");
    // `lexical.jsonl.gz` is named `lexical` too.
    let gzipped = uco_stix(&["--pools", &pools_gz, "--gold", &gold_gz, "--system", &run_gz], None);
    assert_eq!(gzipped, plain);
    let read = |p: &str| std::fs::read(root().join(p)).expect("read");
    let named = ["--system", "lexical=-"];
    let from_stdin = [
        (vec!["--pools", "-", "--gold", GOLD, "--system", RUN], read(POOLS)),
        (vec!["--pools", POOLS, "--gold", "-", "--system", RUN], read(GOLD)),
        (vec!["--pools", POOLS, "--gold", GOLD, named[0], named[1]], read(RUN)),
        (vec!["--pools", POOLS, "--gold", GOLD, named[0], named[1]], std::fs::read(&run_gz).expect("gz")),
        (vec!["--pools", POOLS, "--gold", GOLD, "--submission", "-", "--name", "lexical"], read(RUN)),
    ];
    for (args, bytes) in from_stdin {
        assert_eq!(uco_stix(&args, Some(&bytes)), plain, "{args:?}");
    }
    // Through the library: bytes in memory and a gzip file.
    let task = RankTask::new(Default::default()).pair(
        kgeval::rank::RankPair::new(kgeval::Input::from_bytes("lexical.jsonl", read(RUN)))
            .pools(kgeval::Input::path(&pools_gz))
            .gold(kgeval::Input::path(root().join(GOLD)))
            .named("uco-stix"),
    );
    let evaluation = task.run(&kgeval::NoProgress).expect("evaluation");
    assert_eq!(json(&evaluation.render(OutputFormat::Json, &json_options())), plain);
}

#[test]
fn fail_under_gates_macro_micro_and_profile_headlines() {
    let base = ["rank", "--manifest", MANIFEST];
    let v = json(&cli_json(&base));
    let (mrr, micro) = (v["MACRO"]["mrr"].as_f64().expect("mrr"), v["MICRO"]["mrr"].as_f64().expect("micro"));
    let gate = |gates: &[String]| {
        let mut args: Vec<&str> = base.to_vec();
        for g in gates {
            args.extend(["--fail-under", g]);
        }
        kgeval(&args)
    };
    let pass = gate(&[format!("mrr={mrr}"), format!("MRR={mrr}"), format!("hits_at_10={}", v["MACRO"]["hits_at_10"])]);
    assert_eq!(pass.status.code(), Some(0), "{}", String::from_utf8_lossy(&pass.stderr));
    assert!(!pass.stdout.is_empty());
    let fail = gate(&[format!("rr={}", mrr + 1e-9), format!("micro_mrr={micro}"), "micro_hits@1=1".to_owned()]);
    assert_eq!(fail.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&fail.stderr);
    assert!(stderr.contains(&format!("fail-under: system lexical (synthetic demo): recip_rank {mrr} <")), "{stderr}");
    assert!(stderr.contains("micro_hits@1 "), "{stderr}");
    assert!(!stderr.contains("micro_mrr "), "micro_mrr = its bound passes: {stderr}");
    let unknown = gate(&["ndcg=0.5".to_owned()]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("recip_rank, hits@1"));
    // Bio-LLM: P = 0.8611… at threshold 0.65.
    let biollm = |gate: &str| {
        kgeval(&["rank", "--profile", "biollm", "--system", BIOLLM, "--threshold", "0.65", "--fail-under", gate])
            .status
            .code()
    };
    assert_eq!(
        (biollm("precision=0.86"), biollm("precision=0.87"), biollm("rejection_rate=0.95")),
        (Some(0), Some(1), Some(1))
    );
}

#[test]
fn system_is_the_submission_named_by_name_or_stem() {
    fn args<'a>(system: &[&'a str]) -> Vec<&'a str> {
        [&["rank", "--pools", POOLS, "--gold", GOLD][..], system].concat()
    }
    let named = json(&cli_json(&args(&["--system", &format!("lex={RUN}")])));
    assert_eq!(named["system"], "lex");
    let old = json(&cli_json(&args(&["--submission", RUN])));
    assert_eq!(old["system"], "lexical");
    assert_eq!(old["MACRO"], named["MACRO"]);
    let renamed = json(&cli_json(&args(&["--system", &format!("lex={RUN}"), "--name", "other"])));
    assert_eq!(renamed["system"], "other");
    let manifest = json(&cli_json(&["rank", "--manifest", MANIFEST, "--name", "mine"]));
    assert_eq!(manifest["system"], "mine");
    // --system and --submission name the same input: not both; not with --manifest.
    assert_eq!(kgeval(&args(&["--system", RUN, "--submission", RUN])).status.code(), Some(2));
    assert_eq!(kgeval(&["rank", "--manifest", MANIFEST, "--system", RUN]).status.code(), Some(2));
}

#[test]
fn every_help_example_runs() {
    let out = kgeval(&["rank", "--help"]);
    let help = String::from_utf8(out.stdout).expect("utf-8");
    let examples = help.split("Examples:").nth(1).expect("an Examples section").replace("\\\n", " ");
    let mut ran = 0;
    for line in examples.lines().map(str::trim).filter(|l| l.starts_with("kgeval ")) {
        let args: Vec<&str> = line.split_whitespace().skip(1).collect();
        let out = kgeval(&args);
        assert_eq!(out.status.code(), Some(0), "{line}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{line}");
        ran += 1;
    }
    assert_eq!(ran, 5);
}
