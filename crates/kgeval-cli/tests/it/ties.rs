//! `kgeval trec --ties`: values that do not depend on document names (issue "Tied scores").
//! The engine is checked against every permutation in kgeval-metrics; here the command line:
//! trec_eval's bytes when nothing is tied, invariance under renaming, the output's fields.

use std::collections::HashMap;
use std::path::Path;

use crate::{f, kgeval, kgeval_json, root};

const TIES: &str = "testdata/trec_eval/ties200";
const POLICIES: [&str; 4] = ["expected", "optimistic", "pessimistic", "range"];

fn stdout(args: &[&str]) -> String {
    let out = kgeval(args);
    assert!(out.status.success(), "kgeval {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Each line's first three columns (trec_eval's): `range` adds a fourth.
fn trec_columns(text: &str) -> Vec<String> {
    text.lines().map(|l| l.split('\t').take(3).collect::<Vec<_>>().join("\t")).collect()
}

#[test]
fn without_ties_every_policy_prints_trec_eval_bytes() {
    // trec_eval's test run with every repeated score of a topic dropped: nothing is tied.
    let dir = tempfile::tempdir().expect("temporary folder");
    let source = std::fs::read_to_string(root().join("testdata/trec_eval/test/results.test")).expect("results.test");
    let mut seen = std::collections::HashSet::new();
    let untied: String = source
        .lines()
        .filter(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            seen.insert((fields[0].to_owned(), fields[4].to_owned()))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let run = dir.path().join("untied");
    std::fs::write(&run, untied).expect("write run");
    let (qrels, run) = ("testdata/trec_eval/test/qrels.test".to_owned(), run.to_string_lossy().into_owned());
    let trec = stdout(&["trec", "-q", "-m", "all_trec", &qrels, &run]);
    assert!(trec.lines().count() > 300, "{trec}");
    for policy in POLICIES {
        let ours = stdout(&["trec", "--ties", policy, "-q", "-m", "all_trec", &qrels, &run]);
        if policy == "range" {
            assert_eq!(trec_columns(&ours), trec_columns(&trec), "--ties range");
            assert!(ours
                .lines()
                .filter(|l| !l.starts_with("runid") && !l.starts_with("relstring"))
                .all(|l| l.split('\t').count() == 4));
        } else {
            assert_eq!(ours, trec, "--ties {policy}");
        }
    }
}

/// `testdata/trec_eval/ties200` with every docno renamed by a seeded bijection, written under
/// `dir`.
fn renamed(dir: &Path) -> (String, String) {
    let qrels = std::fs::read_to_string(root().join(TIES).join("qrels")).expect("qrels");
    let run = std::fs::read_to_string(root().join(TIES).join("run")).expect("run");
    let mut names: HashMap<String, String> = HashMap::new();
    // A bijection that reverses the byte order of the names among equal scores: docno i ↦
    // a name whose order is a multiplicative scramble of i.
    let mut rename = |docno: &str| {
        let next = names.len() as u64;
        names
            .entry(docno.to_owned())
            .or_insert_with(|| format!("X{:012}", next.wrapping_mul(2_654_435_761) % 1_000_000_007))
            .clone()
    };
    let qrels: String = qrels
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            format!("{} {} {} {}\n", f[0], f[1], rename(f[2]), f[3])
        })
        .collect();
    let run: String = run
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            format!("{} {} {} {} {} {}\n", f[0], f[1], rename(f[2]), f[3], f[4], f[5])
        })
        .collect();
    let (q, r) = (dir.join("qrels"), dir.join("run"));
    std::fs::write(&q, qrels).expect("write qrels");
    std::fs::write(&r, run).expect("write run");
    (q.to_string_lossy().into_owned(), r.to_string_lossy().into_owned())
}

#[test]
fn renaming_documents_changes_trec_and_no_other_policy() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let (qrels, run) = renamed(dir.path());
    let original = [format!("{TIES}/qrels"), format!("{TIES}/run")];
    // relstring prints the tie-break's order under every policy: left out.
    let measures = ["-m", "all_trec", "-m", "yaap", "-m", "rbp", "-m", "ndcg_exp_cut.10"];
    let without_relstring = |text: String| {
        text.lines().filter(|l| !l.starts_with("relstring")).map(|l| format!("{l}\n")).collect::<String>()
    };
    // `range` prints the expected value with the pessimistic and optimistic ones beside it.
    let mut args = vec!["trec", "--ties", "range", "-q"];
    args.extend(measures);
    let before = without_relstring(stdout(&[args.clone(), vec![&original[0], &original[1]]].concat()));
    let after = without_relstring(stdout(&[args, vec![&qrels, &run]].concat()));
    assert_eq!(before, after, "--ties range changed with the names");
    let map =
        |q: &str, r: &str| f(&kgeval_json(&["trec", "-m", "map", "-m", "P.10", q, r])["runs"][0]["summary"], "map");
    let (before, after) = (map(&original[0], &original[1]), map(&qrels, &run));
    assert!((before - after).abs() > 1e-4, "trec's docno order should move MAP: {before} vs {after}");
}

#[test]
fn expected_lies_in_the_range_and_the_json_says_so() {
    let v = kgeval_json(&[
        "trec",
        "--ties",
        "range",
        "-m",
        "official",
        "-m",
        "infAP",
        &format!("{TIES}/qrels"),
        &format!("{TIES}/run"),
    ]);
    assert_eq!(v["conventions"]["ties"], "range");
    assert!(v["conventions"]["reference"].as_str().is_some_and(|r| r.contains("never by document names")));
    let run = &v["runs"][0];
    let summary = &run["summary"];
    for (name, range) in run["ranges"]["summary"].as_object().expect("ranges.summary") {
        let (low, high) = (range[0].as_f64().expect("low"), range[1].as_f64().expect("high"));
        let value = f(summary, name);
        assert!(low <= value + 1e-12 && value <= high + 1e-12, "{name}: {value} outside [{low}, {high}]");
    }
    // MAP moves between the orders of this tie-heavy run.
    let map = &run["ranges"]["summary"]["map"];
    assert!(map[1].as_f64().expect("high") - map[0].as_f64().expect("low") > 0.01, "{map}");
    // iprec_at_recall has no closed form: its large groups are estimated, with a standard
    // error; map and infAP (summed over every composition before each relevant document) are
    // exact.
    let errors = &run["std_errors"]["summary"];
    assert!(errors["iprec_at_recall_0.00"].as_f64().is_some_and(|se| se > 0.0 && se < 1e-3), "{errors}");
    assert!(errors.get("map").is_none() && errors.get("infAP").is_none(), "{errors}");
}

#[test]
fn tie_report_counts_and_moves() {
    let v = kgeval_json(&[
        "trec",
        "--tie-report",
        "-m",
        "map",
        "-m",
        "P.10",
        "-m",
        "recip_rank",
        &format!("{TIES}/qrels"),
        &format!("{TIES}/run"),
    ]);
    let run = &v["runs"][0];
    // The counts `kgeval trec` prints in its note: 196 topics evaluated, 123 with ties.
    assert_eq!((run["topics"].as_u64(), run["topics_with_ties"].as_u64()), (Some(196), Some(123)));
    assert!(run["mixed_groups"].as_u64() <= run["tie_groups"].as_u64());
    assert!(run["straddling"]["10"].as_u64().is_some_and(|n| n > 0), "{}", run["straddling"]);
    for (name, m) in run["measures"].as_object().expect("measures") {
        let (low, high) = (f(m, "pessimistic"), f(m, "optimistic"));
        for policy in ["trec", "expected"] {
            assert!(low - 1e-12 <= f(m, policy) && f(m, policy) <= high + 1e-12, "{name} {policy}");
        }
        assert_eq!(m["moved"], (f(m, "trec") - f(m, "expected")).abs() > 0.001, "{name}");
    }
    // The same numbers as --ties trec and --ties expected.
    let expected =
        kgeval_json(&["trec", "--ties", "expected", "-m", "P.10", &format!("{TIES}/qrels"), &format!("{TIES}/run")]);
    assert_eq!(f(&run["measures"]["P_10"], "expected"), f(&expected["runs"][0]["summary"], "P_10"));
    assert_eq!(run["measures"]["P_10"]["moved"], true);
    // trec_eval's test run: one group mixes relevance, deep in topic 301; nothing moves.
    let test = kgeval_json(&[
        "trec",
        "--tie-report",
        "-m",
        "official",
        "testdata/trec_eval/test/qrels.test",
        "testdata/trec_eval/test/results.test",
    ]);
    assert_eq!(test["runs"][0]["mixed_groups"], 1);
    assert!(test["runs"][0]["measures"].as_object().expect("measures").values().all(|m| m["moved"] == false));
    // Two runs (trec_eval's full and truncated test runs): their ties move nothing, so the
    // orderings under trec and expected agree (tau-b 1).
    let two = kgeval_json(&[
        "trec",
        "--tie-report",
        "-m",
        "map",
        "testdata/trec_eval/test/qrels.test",
        "full=testdata/trec_eval/test/results.test",
        "trunc=testdata/trec_eval/test/results.trunc",
    ]);
    assert_eq!(two["runs"].as_array().map(Vec::len), Some(2));
    assert_eq!(f(&two["orderings"], "map"), 1.0);
    // --fail-under reads the measures, not the report.
    let out = kgeval(&[
        "trec",
        "--tie-report",
        "--fail-under",
        "map=0.1",
        "testdata/trec_eval/test/qrels.test",
        "testdata/trec_eval/test/results.test",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn compare_evaluates_runs_under_the_tie_policy() {
    // The per-topic tables compared are the policy's: each mean equals kgeval trec's summary
    // under the same --ties.
    let (qrels, run) = (format!("{TIES}/qrels"), format!("{TIES}/run"));
    let compare = |ties: &str| {
        kgeval_json(&[
            "compare",
            "--qrels",
            &qrels,
            "--run",
            &format!("a={run}"),
            "--run",
            &format!("b={run}"),
            "--ties",
            ties,
            "-m",
            "map",
            "-m",
            "P.10",
            "--missing",
            "zero",
        ])
    };
    for ties in ["trec", "expected", "optimistic"] {
        let v = compare(ties);
        let trec = kgeval_json(&["trec", "--ties", ties, "-m", "map", "-m", "P.10", &qrels, &run]);
        let map = v["metrics"].as_array().and_then(|m| m.iter().find(|m| m["metric"] == "map")).expect("map compared");
        assert!((f(&map["means"], "a") - f(&trec["runs"][0]["summary"], "map")).abs() < 1e-12, "--ties {ties}");
    }
    // Score tables carry their own values: --ties is refused with them.
    let out = kgeval(&[
        "compare",
        "--ties",
        "expected",
        "testdata/trec_eval/test/out.test",
        "testdata/trec_eval/test/out.test.a",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--ties expected"));
}

#[test]
fn compare_gives_kendall_tau_between_the_orderings_under_trec_and_expected() {
    // One topic, "a" relevant, "b" and "c" not. Run A ties all three: trec_eval's order
    // (docno descending) puts "a" last, AP = 1/3; in expectation AP = (1 + 1/2 + 1/3) / 3.
    // Run B ranks b, a, c: AP = 1/2. Run C ranks "a" first: AP = 1. Under trec A < B < C,
    // under expected B < A < C: one pair of three swaps, tau-b = (2 - 1) / 3. Topic 2 (the
    // significance tests need two items) is the same for every run: "x" first, AP = 1.
    let dir = tempfile::tempdir().expect("temporary folder");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("written");
        path.display().to_string()
    };
    let qrels = write("qrels", "1 0 a 1\n1 0 b 0\n1 0 c 0\n2 0 x 1\n");
    let a = write("a", "1 Q0 a 1 1 A\n1 Q0 b 2 1 A\n1 Q0 c 3 1 A\n2 Q0 x 1 1 A\n");
    let b = write("b", "1 Q0 b 1 3 B\n1 Q0 a 2 2 B\n1 Q0 c 3 1 B\n2 Q0 x 1 1 B\n");
    let c = write("c", "1 Q0 a 1 3 C\n1 Q0 b 2 2 C\n1 Q0 c 3 1 C\n2 Q0 x 1 1 C\n");
    let trec = kgeval_json(&["trec", "-m", "map", &qrels, &a]);
    assert!(
        (f(&trec["runs"][0]["summary"], "map") - (1.0 / 3.0 + 1.0) / 2.0).abs() < 1e-12,
        "trec_eval's order: {trec}"
    );
    let args = || {
        let mut args: Vec<String> =
            ["compare", "--qrels", &qrels, "-m", "map"].iter().map(|s| (*s).to_owned()).collect();
        for (name, run) in [("A", &a), ("B", &b), ("C", &c)] {
            args.extend(["--run".to_owned(), format!("{name}={run}")]);
        }
        args
    };
    let json = args();
    let v = kgeval_json(&json.iter().map(String::as_str).collect::<Vec<_>>());
    let orderings = v["tie_orderings"].as_array().expect("tie_orderings with ties");
    let map = orderings.iter().find(|o| o["measure"] == "map").expect("map ordered");
    assert!((map["tau_b"].as_f64().expect("a number") - 1.0 / 3.0).abs() < 1e-12, "{map}");
    let text = args();
    let out = kgeval(&text.iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("run orderings under --ties trec and expected"), "{stdout}");
    // Without ties there is nothing to say: B and C alone.
    let plain = kgeval_json(&[
        "compare",
        "--qrels",
        &qrels,
        "-m",
        "map",
        "--run",
        &format!("B={b}"),
        "--run",
        &format!("C={c}"),
    ]);
    assert!(plain.get("tie_orderings").is_none(), "{plain}");
}

#[test]
fn a_campaign_report_says_what_the_ties_can_move() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let manifest = dir.path().join("ties.toml");
    let (qrels, run) = (root().join(TIES).join("qrels"), root().join(TIES).join("run"));
    std::fs::write(
        &manifest,
        format!(
            "title = \"ties\"\n[[task]]\nname = \"ties200\"\nfamily = \"trec\"\nqrels = {:?}\nruns = [{:?}]\n\
             measures = [\"map\", \"P.10\"]\n",
            qrels.display().to_string(),
            format!("a={}", run.display())
        ),
    )
    .expect("manifest");
    let out = dir.path().join("out");
    let status = kgeval(&["run", manifest.to_str().expect("utf-8"), "-o", out.to_str().expect("utf-8")]);
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(report.contains("### Tied scores"), "{report}");
    // The tie report's own numbers: 123 of 196 topics, P_10 moved (0.0480 → 0.0456).
    assert!(
        report.contains("- a: 123 of 196 topics with ties; 215 tie groups (2562 documents), 88 holding"),
        "{report}"
    );
    assert!(
        report.contains("P\\_10 0.0480 (expected 0.0456, [0.0342, 0.0673])")
            || report.contains("P_10 0.0480 (expected 0.0456, [0.0342, 0.0673])"),
        "{report}"
    );
    // The page and the LaTeX carry the table of the summaries a tie order moves.
    let page = std::fs::read_to_string(out.join("index.html")).expect("index.html");
    assert!(page.contains("Tied scores: each summary under the tie-break"), "index.html");
    // The per-topic plot draws each topic's interval as a bar.
    assert!(page.contains("Per-topic MAP by run (bars: each topic&#x27;s range over the orders"), "index.html");
    let latex = std::fs::read_to_string(out.join("tables.tex")).expect("tables.tex");
    assert!(latex.contains("Tied scores"), "tables.tex");
}
