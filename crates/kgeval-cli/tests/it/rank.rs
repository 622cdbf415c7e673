//! `kgeval rank` end to end: published numbers (OAEI-Bio-ML-eval contract, Bio-LLM notebook and
//! results row, DeepOnto assets), the real DISO pools with synthetic gold keys whose expected
//! values are worked out here, leaderboard invariants, and bad input.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::{f, kgeval, kgeval_json, n, root};

const NIL: &str = "https://oaei.ontologymatching.org/2026/diso/NIL";
const BIOLLM: &str = "testdata/ranking/bioml-biollm/biollm_result.tsv";

#[test]
fn oaei_bioml_eval_contract() {
    let dir = "testdata/ranking/oaei-bioml-eval-contract";
    let gold = format!("{dir}/equivalence-local-gold.tsv");
    let submission = format!("{dir}/equivalence-local-submission.tsv");
    let v = kgeval_json(&["rank", "--profile", "bioml", "--gold", &gold, "--submission", &submission]);
    let m = &v["MACRO"];
    // metric-contract-v1.json: mrr 0.75, hits_at_1 0.5, hits_at_5 = hits_at_10 = 1.0, queries 2.
    assert_eq!((f(m, "mrr"), f(m, "hits_at_1"), f(m, "hits_at_5"), f(m, "hits_at_10")), (0.75, 0.5, 1.0, 1.0));
    assert_eq!(n(m, "queries"), 2);
    assert_eq!(v["conventions"]["ties"], "lexicographic");
}

fn biollm(threshold: &str) -> Value {
    kgeval_json(&["rank", "--profile", "biollm", "--submission", BIOLLM, "--threshold", threshold])
}

#[test]
fn biollm_notebook_output_at_threshold_zero() {
    // biollm_eval.ipynb (DeepOnto, threshold 0.0): P 0.643, R 0.72, F1 0.679, Hits@1 0.86,
    // MRR 0.9266666666666667, RR 0.86.
    let v = biollm("0.0");
    assert_eq!(f(&v, "P"), 36.0 / 56.0);
    assert_eq!(f(&v, "R"), 0.72);
    assert!((f(&v, "F1") - 0.679).abs() < 5e-4);
    assert_eq!(f(&v, "Hits@1"), 0.86);
    assert_eq!(f(&v, "MRR"), 0.9266666666666667);
    assert_eq!(f(&v, "RR"), 0.86);
    assert_eq!((n(&v, "references"), n(&v, "unmatched")), (50, 50));
}

#[test]
fn biollm_published_row_only_inside_its_threshold_interval() {
    // NCIT-DOID results page (LLMap): P 0.861, R 0.620, F 0.721, RR 0.940. The answer-true
    // scores bounding the interval are 0.640996 and 0.6776947: the row holds for τ in
    // (0.640996, 0.6776947] (the spec's (0.6410, 0.6777]) and nowhere else.
    let row = |v: &Value| {
        let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
        (r3(f(v, "P")), r3(f(v, "R")), r3(f(v, "F1")), r3(f(v, "RR")))
    };
    for inside in ["0.640997", "0.641", "0.65", "0.6776947"] {
        assert_eq!(row(&biollm(inside)), (0.861, 0.62, 0.721, 0.94), "τ = {inside}");
    }
    for outside in ["0.6", "0.640996", "0.6777", "0.7"] {
        assert_ne!(row(&biollm(outside)), (0.861, 0.62, 0.721, 0.94), "τ = {outside}");
    }
    // Hits@1 and MRR do not depend on τ.
    assert_eq!(f(&biollm("0.7"), "MRR"), 0.9266666666666667);
}

#[test]
fn deeponto_assets() {
    let dir = "testdata/ranking/deeponto-assets";
    // Unscored lists: golds at 98, 96, 96; scored (stable sort): 60, 99, 78; no hits.
    for (file, mrr) in [
        ("example_candidate_mappings.tsv", (1.0 / 98.0 + 2.0 / 96.0) / 3.0),
        ("example_scored_candidate_mappings.tsv", (1.0 / 60.0 + 1.0 / 99.0 + 1.0 / 78.0) / 3.0),
    ] {
        let v = kgeval_json(&["rank", "--profile", "deeponto", "--submission", &format!("{dir}/{file}")]);
        let m = &v["MACRO"];
        assert!((f(m, "mrr") - mrr).abs() < 1e-15, "{file}: {}", f(m, "mrr"));
        assert_eq!((f(m, "hits_at_1"), f(m, "hits_at_5"), f(m, "hits_at_10")), (0.0, 0.0, 0.0));
    }
    assert_eq!(
        f(
            &kgeval_json(&[
                "rank",
                "--profile",
                "deeponto",
                "--submission",
                &format!("{dir}/example_candidate_mappings.tsv")
            ])["MACRO"],
            "mrr"
        ),
        0.010345804988662131
    );
}

/// The real DISO pools of a pair: (qid, candidates) per line.
fn pools(pair: &str) -> Vec<(u64, Vec<String>)> {
    let text = std::fs::read_to_string(root().join(format!("testdata/ranking/diso-oaei/pools/{pair}/pools.jsonl")))
        .expect("pools");
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("pool");
            let candidates = v["candidates"]
                .as_array()
                .expect("candidates")
                .iter()
                .map(|c| c.as_str().expect("iri").to_owned())
                .collect();
            (v["qid"].as_u64().expect("qid"), candidates)
        })
        .collect()
}

/// Writes a gold key and a ranking submission for `pair` into `dir`: the first `nil` qids are
/// NIL queries, the others have the pool's first candidate as gold; `rank` gives each query's
/// ranking from (gold, pool). Returns (gold path, submission path).
fn synthetic(dir: &Path, pair: &str, nil: u64, rank: impl Fn(&str, &[String]) -> Vec<String>) -> (String, String) {
    let (mut gold, mut submission) = (String::new(), String::new());
    for (qid, candidates) in pools(pair) {
        let g = if qid < nil { NIL.to_owned() } else { candidates[0].clone() };
        let _ = writeln!(gold, "{qid}\t{g}");
        let _ = writeln!(submission, "{}", serde_json::json!({"qid": qid, "ranking": rank(&g, &candidates)}));
    }
    let (g, s) = (dir.join(format!("{pair}-gold.tsv")), dir.join(format!("{pair}-run.jsonl")));
    std::fs::write(&g, gold).expect("gold");
    std::fs::write(&s, submission).expect("submission");
    (g.display().to_string(), s.display().to_string())
}

/// Hedging: the gold first (on a NIL query, the pool's first candidate), NIL second, the rest
/// in pool order.
fn hedge(gold: &str, pool: &[String]) -> Vec<String> {
    let first = if gold == NIL { pool[0].clone() } else { gold.to_owned() };
    let mut ranking = vec![first.clone(), NIL.to_owned()];
    ranking.extend(pool.iter().filter(|c| **c != first && c.as_str() != NIL).cloned());
    ranking
}

fn manifest(dir: &Path, pairs: &[(&str, &str, &str)]) -> String {
    let mut text = String::from("profile = \"diso\"\n");
    for (pair, gold, submission) in pairs {
        let pools = root().join(format!("testdata/ranking/diso-oaei/pools/{pair}/pools.jsonl"));
        let _ = write!(
            text,
            "[[pair]]\nname = \"{pair}\"\npools = {:?}\ngold = {gold:?}\nsubmission = {submission:?}\n",
            pools.display().to_string()
        );
    }
    let path = dir.join("task2.toml");
    std::fs::write(&path, text).expect("manifest");
    path.display().to_string()
}

#[test]
fn diso_hedging_and_nil_first_on_the_real_pools() {
    // The leaderboard implies uco-stix 194 matched / 23 NIL and stix-d3fend 38 / 35. Hedging
    // (gold first, NIL second everywhere): MRR = (194 + 23/2)/217 and (38 + 35/2)/73, macro
    // ((205.5/217) + (55.5/73)) / 2 = 0.8536… (the spec's 0.854); "always NIL first" (gold
    // second) has macro Hits@1 (23/217 + 35/73) / 2 = 0.2927… (the spec's 0.293).
    let tmp = tempfile::tempdir().expect("tmp");
    let (g1, s1) = synthetic(tmp.path(), "uco-stix", 23, hedge);
    let (g2, s2) = synthetic(tmp.path(), "stix-d3fend", 35, hedge);
    let m = manifest(tmp.path(), &[("uco-stix", &g1, &s1), ("stix-d3fend", &g2, &s2)]);
    let out = kgeval(&["rank", "--manifest", &m, "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Every pool validated (50 IRIs, NIL present) and the identical pools of qids 2 and 3 warned.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stix-d3fend: qids 2 (line 3) and 3 (line 4) have identical pools"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let expected_macro = (205.5 / 217.0 + 55.5 / 73.0) / 2.0;
    assert!((f(&v["MACRO"], "mrr") - expected_macro).abs() < 1e-12);
    assert_eq!(format!("{:.3}", f(&v["MACRO"], "mrr")), "0.854");
    for (pair, matched, nil) in [("uco-stix", 194, 23), ("stix-d3fend", 38, 35)] {
        let p = &v[pair];
        assert_eq!((n(&p["matched"], "queries"), n(&p["NIL"], "queries")), (matched, nil));
        assert_eq!(f(&p["matched"], "mrr"), 1.0);
        assert_eq!(f(&p["NIL"], "mrr"), 0.5);
        // The hedge baseline is this very submission; NIL-first Hits@1 is the NIL share.
        assert_eq!(f(&p["baselines"]["hedge"], "mrr"), f(&p["overall"], "mrr"));
        assert_eq!(f(&p["baselines"]["nil_first"], "hits_at_1"), nil as f64 / (matched + nil) as f64);
        assert_eq!(n(&p["abstention"], "abstained_nil"), 0);
    }
    let nil_first_macro = (23.0 / 217.0 + 35.0 / 73.0) / 2.0;
    assert_eq!(format!("{nil_first_macro:.3}"), "0.293");
    // Leaderboard layout: pairs in input order, then MACRO.
    let keys: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
    let pos = |k: &str| keys.iter().position(|x| *x == k).expect(k);
    assert!(pos("uco-stix") < pos("stix-d3fend") && pos("stix-d3fend") < pos("MACRO"));
}

#[test]
fn diso_leaderboard_invariants_on_a_hand_worked_submission() {
    // Submission = each pool in file order (NIL last, rank 50). uco-stix gold: NIL for qids
    // 0..23, else the pool's first candidate (rank 1). So matched MRR = 1, NIL MRR = 1/50;
    // overall = (194 + 23/50) / 217; Hits@10 overall = 194/217.
    let tmp = tempfile::tempdir().expect("tmp");
    let (g, s) = synthetic(tmp.path(), "uco-stix", 23, |_, pool| pool.to_vec());
    let v = kgeval_json(&[
        "rank",
        "--pools",
        "testdata/ranking/diso-oaei/pools/uco-stix/pools.jsonl",
        "--gold",
        &g,
        "--submission",
        &s,
    ]);
    let p = &v["uco-stix"];
    assert_eq!(n(p, "n"), 217);
    assert!((f(&p["overall"], "mrr") - (194.0 + 23.0 / 50.0) / 217.0).abs() < 1e-15);
    assert_eq!(f(&p["overall"], "hits_at_10"), 194.0 / 217.0);
    assert!((f(&p["NIL"], "mrr") - 1.0 / 50.0).abs() < 1e-15);
    assert_eq!(p["tau"], Value::Null);
    // overall = query-weighted matched/NIL = query-weighted per type; per-type counts sum to n.
    for metric in ["mrr", "hits_at_1", "hits_at_3", "hits_at_5", "hits_at_10"] {
        let weighted = |blocks: Vec<&Value>| {
            blocks.iter().map(|b| f(b, metric) * n(b, "queries") as f64).sum::<f64>()
                / blocks.iter().map(|b| n(b, "queries") as f64).sum::<f64>()
        };
        let overall = f(&p["overall"], metric);
        assert!((weighted(vec![&p["matched"], &p["NIL"]]) - overall).abs() < 1e-12, "{metric}");
        let types: Vec<&Value> = p["per_type"].as_object().expect("types").values().collect();
        assert!((weighted(types.clone()) - overall).abs() < 1e-12, "{metric}");
        assert_eq!(types.iter().map(|t| n(t, "queries")).sum::<u64>(), 217);
        // One pair: MACRO = overall.
        assert_eq!(f(&v["MACRO"], metric), overall);
    }
    assert_eq!(v["per_item"], Value::Null);
}

#[test]
fn synthetic_demo_manifest_runs_with_sweep() {
    let v =
        kgeval_json(&["rank", "--manifest", "testdata/ranking/diso-synthetic/task2.toml", "--sweep-tau", "--per-item"]);
    let macro_mrr = f(&v["MACRO"], "mrr");
    let pairs = (f(&v["uco-stix"]["overall"], "mrr") + f(&v["stix-d3fend"]["overall"], "mrr")) / 2.0;
    assert!((macro_mrr - pairs).abs() < 1e-15);
    assert_eq!(v["uco-stix"]["tau"], 0.5);
    let points = v["sweep"]["points"].as_array().expect("points");
    assert_eq!(points.len(), 21);
    let oracles: Vec<&Value> = points.iter().filter(|p| p["oracle"] == true).collect();
    assert_eq!(oracles.len(), 1);
    let best = points.iter().map(|p| f(&p["MACRO"], "mrr")).fold(f64::MIN, f64::max);
    assert_eq!(f(&oracles[0]["MACRO"], "mrr"), best);
    // τ = 0.5 in the sweep equals the headline.
    let half = points.iter().find(|p| p["tau"] == 0.5).expect("tau 0.5");
    assert_eq!(f(&half["MACRO"], "mrr"), macro_mrr);
    // One rr per query in the per-item table.
    let rr = v["per_item"].as_array().expect("per_item").iter().filter(|r| r["metric"] == "rr").count();
    assert_eq!(rr, 217 + 73);
    assert!(v["uco-stix"]["risk_coverage"]["aurc"].as_f64().is_some());
}

/// Runs `kgeval rank` and asserts exit 2 with one located error line and no stdout.
fn fails_at(args: &[&str], location: &str, fragment: &str) {
    let out = kgeval(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
    assert!(errors[0].contains(location), "{args:?}: expected {location} in {}", errors[0]);
    assert!(errors[0].contains(fragment), "{args:?}: expected {fragment:?} in {}", errors[0]);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn every_malformed_input_exits_2_with_its_line() {
    let bad = "testdata/ranking/bad";
    let v = format!("{bad}/validation");
    let readme = std::fs::read_to_string(root().join(bad).join("README.md")).expect("README");
    let tmp = tempfile::tempdir().expect("tmp");
    let references = tmp.path().join("references.tsv");
    std::fs::write(&references, "source\ttarget\nhttp://s/x\thttp://t/a\n").expect("references");
    let references = references.display().to_string();
    let mut checked = 0;
    for row in readme.lines().filter(|l| l.starts_with("| `") && !l.contains("validation")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (file, role, options, line) = (cells[1].trim_matches('`'), cells[2], cells[3], cells[4]);
        if line.parse::<u32>().is_err() {
            continue;
        }
        let path = format!("{bad}/{file}");
        let block = options.strip_prefix("block_size=").unwrap_or("");
        let mut args: Vec<&str> = match role {
            "pools" => vec!["rank", "--pools", &path, "--gold", "GOLD", "--submission", "SUB"],
            "gold" => vec!["rank", "--pools", "POOLS", "--gold", &path, "--submission", "SUB"],
            "submission" => vec!["rank", "--pools", "POOLS", "--gold", "GOLD", "--submission", &path],
            "pairs" => vec!["rank", "--profile", "ontoaligner", "--gold", &references, "--submission", &path],
            other => panic!("unknown role {other}"),
        };
        let (pools, gold, sub) = (format!("{v}/pools.jsonl"), format!("{v}/gold.tsv"), format!("{v}/sub-valid.jsonl"));
        for a in &mut args {
            *a = match *a {
                "POOLS" => &pools,
                "GOLD" => &gold,
                "SUB" => &sub,
                other => other,
            };
        }
        args.extend(["--pool-size", "4"]);
        if !block.is_empty() {
            args.extend(["--block-size", block]);
        }
        fails_at(&args, &format!("{path}:{line}:"), "");
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} rows checked");
}

#[test]
fn validation_failures_name_file_line_and_culprits() {
    let v = "testdata/ranking/bad/validation";
    let run = |pools: &str, sub: &str, extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "rank".to_owned(),
            "--pools".to_owned(),
            format!("{v}/{pools}"),
            "--gold".to_owned(),
            format!("{v}/gold.tsv"),
            "--submission".to_owned(),
            format!("{v}/{sub}"),
            "--pool-size".to_owned(),
            "4".to_owned(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };
    let check = |args: Vec<String>, location: String, fragment: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails_at(&args, &location, fragment);
    };
    check(run("pools.jsonl", "sub-unknown-qid.jsonl", &[]), format!("{v}/sub-unknown-qid.jsonl:4:"), "unknown qid 7");
    check(
        run("pools.jsonl", "sub-duplicate-qid.jsonl", &[]),
        format!("{v}/sub-duplicate-qid.jsonl:3:"),
        "duplicate qid 1 (first at line 2)",
    );
    check(
        run("pools.jsonl", "sub-not-permutation.jsonl", &[]),
        format!("{v}/sub-not-permutation.jsonl:2:"),
        "1 not in the pool: <http://t/x>; 1 missing: <http://t/c>",
    );
    check(
        run("pools.jsonl", "sub-missing-qid.jsonl", &[]),
        format!("{v}/sub-missing-qid.jsonl:"),
        "missing from the submission: 1",
    );
    check(
        run("pools-wrong-size.jsonl", "sub-valid.jsonl", &[]),
        format!("{v}/pools-wrong-size.jsonl:3:"),
        "expected 4",
    );
    check(run("pools-without-nil.jsonl", "sub-valid.jsonl", &[]), format!("{v}/pools-without-nil.jsonl:2:"), "NIL IRI");
    check(
        run("pools.jsonl", "sub-valid.jsonl", &["--sweep-tau"]),
        format!("{v}/sub-valid.jsonl:1:"),
        "tau sweep needs scores",
    );
    // The valid submission scores 1 everywhere; a missing qid is 0 with --allow-missing.
    let ok = |args: Vec<String>| {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.extend(["--format", "json"]);
        let out = kgeval(&a);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).expect("json")
    };
    let valid = ok(run("pools.jsonl", "sub-valid.jsonl", &[]));
    assert_eq!(f(&valid["MACRO"], "mrr"), 1.0);
    let missing = ok(run("pools.jsonl", "sub-missing-qid.jsonl", &["--allow-missing"]));
    // The pair is named after the pools' folder: `validation`.
    assert_eq!(n(&missing["validation"], "missing_queries"), 1);
}

/// A block without queries (no NIL query in a Bio-ML contract run) has no mean: text and
/// Markdown print "–", CSV leaves the cells empty, instead of a 0.0000 that reads as a score.
#[test]
fn an_empty_nil_block_prints_a_dash_not_zero() {
    let dir = "testdata/ranking/oaei-bioml-eval-contract";
    let gold = format!("{dir}/equivalence-local-gold.tsv");
    let system = format!("{dir}/equivalence-local-submission.tsv");
    let run = |format: &str| {
        let out = kgeval(&["rank", "--profile", "bioml", "--gold", &gold, "--system", &system, "-f", format]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let text = run("text");
    let nil = text.lines().find(|l| l.trim_start().starts_with("NIL ")).expect("NIL row");
    assert_eq!(nil.split_whitespace().collect::<Vec<_>>(), ["NIL", "0", "–", "–", "–", "–"], "{text}");
    assert!(text.contains("matched        2  0.7500  0.5000  1.0000  1.0000"), "{text}");
    let markdown = run("markdown");
    let nil = markdown.lines().find(|l| l.contains("| NIL ")).expect("NIL row");
    assert_eq!(
        nil.split('|').map(str::trim).filter(|c| !c.is_empty()).collect::<Vec<_>>(),
        ["NIL", "0", "–", "–", "–", "–"]
    );
    let csv = run("csv");
    assert!(csv.contains("\nequivalence-local-submission,equivalence-local-submission,NIL,0,,,,\n"), "{csv}");
    assert!(csv.contains(",matched,2,0.75,0.5,1,1\n"), "{csv}");
}

/// CSV and Markdown carry the abstention, baseline and AURC tables the text shows. On the
/// uco-stix pair 23 of 217 queries are NIL: NIL share 23/217, NIL-first MRR = share +
/// (1 − share)/2, hedge MRR = 1 − share/2; no query abstains.
#[test]
fn csv_and_markdown_include_the_abstention_and_baseline_tables() {
    let run = |format: &str| {
        let out = kgeval(&[
            "rank",
            "--pools",
            "testdata/ranking/diso-oaei/pools/uco-stix/pools.jsonl",
            "--gold",
            "testdata/ranking/diso-synthetic/uco-stix/gold.tsv",
            "--system",
            "lexical=testdata/ranking/diso-synthetic/uco-stix/lexical.jsonl",
            "-f",
            format,
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let share = 23.0 / 217.0;
    let csv = run("csv");
    let sections: Vec<&str> = csv.split("\n\n").collect();
    assert_eq!(sections.len(), 3, "{csv}");
    assert_eq!(
        sections[1],
        "pair,abstain|NIL,answer|NIL,abstain|matched,answer|matched,abst. P,abst. R,abst. F1,false abst.\n\
         uco-stix,0,23,0,194,0,0,0,0\nall,0,23,0,194,0,0,0,0"
    );
    let baseline: Vec<&str> = sections[2].lines().nth(1).expect("baseline row").split(',').collect();
    assert_eq!(
        sections[2].lines().next(),
        Some("pair,NIL share,NIL-first H@1,NIL-first MRR,hedge MRR,gold tied,NIL tied,missing,repaired,AURC")
    );
    let value = |i: usize| baseline[i].parse::<f64>().expect("number");
    assert_eq!(baseline[0], "uco-stix");
    assert!((value(1) - share).abs() < 1e-12 && (value(2) - share).abs() < 1e-12);
    assert!((value(3) - (share + (1.0 - share) / 2.0)).abs() < 1e-12);
    assert!((value(4) - (1.0 - share / 2.0)).abs() < 1e-12);
    assert!(value(9) > 0.0 && value(9) < 1.0, "AURC {}", baseline[9]);
    let markdown = run("markdown");
    assert!(markdown.contains("| uco-stix | 0 | 23 | 0 | 194 | 0.0000 | 0.0000 | 0.0000 | 0.0000 |\n"), "{markdown}");
    assert!(markdown.contains("| uco-stix | 0.1060 | 0.1060 | 0.5530 | 0.9470 | 27 | 92 | 0 | 0 | "), "{markdown}");
    // The text output shows the same tables.
    let text = run("text");
    assert!(text.contains("Hard abstention") && text.contains("AURC"), "{text}");
}
