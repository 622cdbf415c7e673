//! `kgeval trec` end to end: the official measures of trec_eval's own suite (NIST,
//! `testdata/trec_eval/test`; every other output file in `trec_conformance.rs`), the tie
//! example, policies, output formats and malformed input.

use std::collections::BTreeMap;

use crate::{assert_clean_failure, f, kgeval, kgeval_json};

const T: &str = "testdata/trec_eval/test";

fn stdout(args: &[&str]) -> String {
    let out = kgeval(args);
    assert!(out.status.success(), "kgeval {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn official_measures_byte_for_byte() {
    let ours = stdout(&["trec", &format!("{T}/qrels.test"), &format!("{T}/results.test")]);
    let expected = std::fs::read_to_string(crate::root().join(T).join("out.test")).expect("out.test");
    assert_eq!(ours, expected);
    // Comment lines in the qrels change nothing.
    let ours = stdout(&["trec", &format!("{T}/qrels.test.with-comments"), &format!("{T}/results.test")]);
    assert_eq!(ours, expected);
    // MS MARCO ids containing '#'.
    let ours = stdout(&["trec", &format!("{T}/qrels.comment.test"), &format!("{T}/results.comment.test")]);
    let expected = std::fs::read_to_string(crate::root().join(T).join("out.comment.test")).expect("out.comment.test");
    assert_eq!(ours, expected);
}

#[test]
fn published_values_asserted_directly() {
    // out.test: map 0.1785, P_10 0.3000, bpref 0.1981 over 3 topics.
    let v = kgeval_json(&["trec", "-m", "official", &format!("{T}/qrels.test"), &format!("{T}/results.test")]);
    let summary = &v["runs"][0]["summary"];
    assert_eq!(summary["num_q"], 3);
    assert_eq!(summary["num_rel_ret"], 131);
    assert!((f(summary, "map") - 0.1785).abs() < 5e-5);
    assert!((f(summary, "P_10") - 0.3).abs() < 5e-5);
    assert!((f(summary, "bpref") - 0.1981).abs() < 5e-5);
    assert_eq!(v["runs"][0]["runid"], "STANDARD");
    assert_eq!(v["conventions"]["tie_break"], "docno-desc");
}

#[test]
fn tie_example_follows_trec_eval() {
    // d1, d2, d3 all at 0.5; trec_eval (and pytrec_eval, checked) rank d3, d2, d1.
    let q = "testdata/trec_eval/ties/qrels";
    let r = "testdata/trec_eval/ties/run";
    let v = kgeval_json(&["trec", "-m", "P.1", "-m", "recip_rank", q, r]);
    let topic = &v["runs"][0]["topics"]["q1"];
    assert_eq!(f(topic, "P_1"), 0.0);
    assert_eq!(f(topic, "recip_rank"), 1.0 / 3.0);
    assert_eq!(v["runs"][0]["topics_with_tied_scores"], 1);
    // ranx's input order puts d1 first.
    let v = kgeval_json(&["trec", "--tie-break", "input", "-m", "P.1", "-m", "recip_rank", q, r]);
    assert_eq!(f(&v["runs"][0]["topics"]["q1"], "recip_rank"), 1.0);
}

#[test]
fn several_runs_share_the_qrels_and_policies_are_reported() {
    let q = format!("{T}/qrels.test");
    let (r, trunc) = (format!("{T}/results.test"), format!("{T}/results.trunc"));
    let v = kgeval_json(&["trec", "-m", "map", "-m", "ndcg@10", "-m", "mrr@10", &q, &r, &trunc]);
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2);
    assert_eq!(v["measures"], serde_json::json!(["map", "ndcg_cut_10", "recip_rank_cut_10"]));
    // results.trunc lacks topic 302: intersection evaluates 2 topics and says so.
    assert_eq!(runs[1]["topics_evaluated"], 2);
    assert_eq!(runs[1]["qrels_topics_missing_from_run"], serde_json::json!(["302"]));
    let c = kgeval_json(&["trec", "-c", "-m", "map", &q, &trunc]);
    assert_eq!(c["runs"][0]["topics_evaluated"], 3);
    assert_eq!(c["conventions"]["query_set"], "complete");
    // Text mode reports the counts on stderr.
    let out = kgeval(&["trec", "-m", "map", &q, &trunc]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("2 topics evaluated (intersection); 1 qrels topics without run lines"), "{stderr}");
}

#[test]
fn csv_tsv_and_markdown() {
    let (q, r) = (format!("{T}/qrels.test"), format!("{T}/results.test"));
    let csv = stdout(&["trec", "-m", "map", "-m", "num_rel", "--format", "csv", &q, &r]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "run,runid,qid,num_rel,map");
    assert_eq!(lines.len(), 1 + 3 + 1);
    // The run's name (its file stem without NAME=), as in every other format.
    assert!(lines[4].starts_with("results,STANDARD,all,561,0.1785"), "{csv}");
    let tsv = stdout(&["trec", "-m", "map", "--format", "tsv", &q, &r]);
    assert!(tsv.starts_with("run\trunid\tqid\tmap\n"));
    let md = stdout(&["trec", "-m", "map", "--format", "markdown", &q, &r]);
    assert!(md.contains("| map"), "{md}");
    assert!(md.contains("0.1785"), "{md}");
}

#[test]
fn stdin_and_gzip_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = std::fs::read(crate::root().join(T).join("results.test")).expect("run");
    let gz = dir.path().join("run.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, &run).expect("gzip");
    std::fs::write(&gz, encoder.finish().expect("gzip")).expect("write gz");
    let q = format!("{T}/qrels.test");
    let plain = stdout(&["trec", &q, &format!("{T}/results.test")]);
    assert_eq!(stdout(&["trec", &q, gz.to_str().expect("path")]), plain);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kgeval"))
        .args(["trec", &q, "-"])
        .current_dir(crate::root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &run));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer").expect("write stdin");
    assert_eq!(String::from_utf8_lossy(&out.stdout), plain);
}

/// Each malformed file of `testdata/trec_eval/bad/README.md` exits 2 with `error: FILE:LINE:…`.
#[test]
fn malformed_inputs_fail_cleanly() {
    let readme = std::fs::read_to_string(crate::root().join("testdata/trec_eval/bad/README.md")).expect("README");
    let good_qrels = format!("{T}/qrels.test");
    let good_run = format!("{T}/results.test");
    let mut checked = BTreeMap::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let out_path = dir.path().join("out.txt");
    for row in readme.lines().filter(|l| l.starts_with("| `")) {
        let name = row.trim_start_matches("| `").split('`').next().expect("file name");
        let file = format!("testdata/trec_eval/bad/{name}");
        let out_arg = out_path.to_str().expect("path");
        let args: Vec<&str> = if name.ends_with(".qrels") {
            vec!["trec", "-o", out_arg, &file, &good_run]
        } else {
            vec!["trec", "-o", out_arg, &good_qrels, &file]
        };
        let out = kgeval(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The expected message of the table's last column, without its file prefix.
        let cell = row.trim_end().trim_end_matches('|').rsplit('|').next().expect("expected error cell");
        let expected = cell.trim().trim_matches('`').trim();
        let message = expected.split_once(": ").map_or(expected, |(_, m)| m);
        assert!(stderr.contains(message), "{name}: expected {message:?} in {stderr}");
        if name.ends_with(".gz") {
            assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
            assert!(
                stderr.lines().last().is_some_and(|l| l.starts_with("error: ") && l.contains(&file)),
                "{name}: {stderr}"
            );
            assert!(!out_path.exists() && out.stdout.is_empty(), "{name}");
        } else {
            assert_clean_failure(name, &out, &file, &out_path);
        }
        checked.insert(name.to_owned(), ());
    }
    assert!(checked.len() >= 15, "only {} malformed files", checked.len());
}

#[test]
fn no_common_topic_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run");
    std::fs::write(&run, "999 Q0 d1 1 0.5 tag\n").expect("write");
    let out = kgeval(&["trec", &format!("{T}/qrels.test"), run.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no topic in common"));
    assert!(out.stdout.is_empty());
    // -c scores every qrels topic as empty instead.
    let out = kgeval(&["trec", "-c", "-m", "map", &format!("{T}/qrels.test"), run.to_str().expect("path")]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("map                   \tall\t0.0000"));
}

#[test]
fn unknown_measure_is_refused() {
    let out = kgeval(&["trec", "-m", "nope", &format!("{T}/qrels.test"), &format!("{T}/results.test")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("measure 'nope'"));
    // Bad parameters of the trec_eval families are refused with what was expected.
    for (measure, expected) in [
        ("utility.1,2", "utility takes 4 coefficients, as in utility.1,-1,0,0"),
        ("relstring.5,6", "relstring takes one length, as in relstring.20"),
        ("rbp.q=0.5", "a gain's relevance value must be an integer"),
        ("G.1", "gains are REL=GAIN, as in ndcg.1=3,2=9"),
        ("Rprec_mult.-1", "multiples of R must not be negative"),
    ] {
        let out = kgeval(&["trec", "-m", measure, &format!("{T}/qrels.test"), &format!("{T}/results.test")]);
        assert_eq!(out.status.code(), Some(2), "{measure}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(&format!("measure '{measure}': {expected}")), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

/// `docs/trec.md` does not claim that `--tie-break input` reproduces ranx: ranx sorts with an
/// unstable sort (measured on the ranx agreement run: map@100 0.162161, `docno-desc`'s value).
#[test]
fn readme_does_not_claim_input_order_is_ranx() {
    let readme = std::fs::read_to_string(crate::root().join("docs/trec.md")).expect("docs/trec.md");
    let row = readme.lines().find(|l| l.starts_with("| order of equal scores |")).expect("tie-break row");
    assert!(!row.contains("`input` = ranx"), "{row}");
    assert!(row.contains("ranx sorts unstably") && row.contains("0.162161") && row.contains("`docno-desc`"), "{row}");
}

/// Labels 2^40 and 10^9 are their own gains (no memory sized by them); under every tie
/// policy the values are the hand-worked ones.
#[test]
fn labels_of_two_to_the_forty_and_ten_to_the_nine_score_by_hand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (qrels, run) = (dir.path().join("qrels"), dir.path().join("run"));
    std::fs::write(&qrels, "q1 0 d1 1099511627776\nq1 0 d2 1000000000\nq1 0 d3 0\nq1 0 d4 1\n").expect("write");
    // d1 and d2 tie at 3: `expected` averages the two orders.
    std::fs::write(&run, "q1 Q0 d3 1 4 r\nq1 Q0 d1 2 3 r\nq1 Q0 d2 3 3 r\nq1 Q0 d5 4 1 r\n").expect("write");
    let (q, r) = (qrels.to_str().expect("path"), run.to_str().expect("path"));
    let (top, second, l3) = ((1u64 << 40) as f64, 1e9, 3f64.log2());
    // R = 3 (d1, d2, d4); relevant at ranks 2 and 3 whatever the order: AP = (1/2 + 2/3) / 3.
    let map = (0.5 + 2.0 / 3.0) / 3.0;
    // The ideal: 2^40, 10^9, 1 at ranks 1-3. trec's docno order puts d2 before d1.
    let ideal = top + second / l3 + 0.5;
    let (d1_first, d2_first) = ((top / l3 + second / 2.0) / ideal, (second / l3 + top / 2.0) / ideal);
    for (ties, ndcg) in [("trec", d2_first), ("expected", (d1_first + d2_first) / 2.0)] {
        let v = kgeval_json(&["trec", "--ties", ties, "-m", "map", "-m", "ndcg", q, r]);
        let topic = &v["runs"][0]["topics"]["q1"];
        assert!((f(topic, "map") - map).abs() < 1e-15, "{ties}: {topic}");
        assert!((f(topic, "ndcg") - ndcg).abs() < 1e-15, "{ties}: {topic}");
    }
}
