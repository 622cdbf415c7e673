//! `kgeval run MANIFEST -o DIR` on the bundled campaigns (`testdata/campaigns/`): each task's
//! entry in `results.json` equals, value for value, what its family's subcommand prints as
//! JSON on the same files (one test per family); the published numbers are in `results.json`,
//! the CSVs and `report.md`; a failing task leaves the others' results, the directory is written
//! atomically, and the README's main-job command runs as written.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::files::temp_files as temp_entries;
use crate::{f, kgeval, kgeval_json, root};

/// `kgeval run MANIFEST -o DIR/out`: exit 0, prints where the report is; returns the output
/// directory's `results.json` and `report.md`.
fn run(manifest: &str, dir: &Path) -> (Value, String) {
    let out_dir = dir.join("out");
    let out = kgeval(&["run", manifest, "-o", out_dir.to_str().expect("utf-8")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "kgeval run {manifest}: {stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("report: {}\n", out_dir.join("report.md").display()));
    let results = std::fs::read_to_string(out_dir.join("results.json")).expect("results.json");
    let report = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    (serde_json::from_str(&results).expect("JSON"), report)
}

/// The entry of task `name` in `results.json`.
fn task<'a>(results: &'a Value, name: &str) -> &'a Value {
    results["tasks"].as_array().expect("tasks").iter().find(|t| t["name"] == name).expect("task")
}

/// The entry of `[[compare]]` `name` in `results.json`.
fn comparison<'a>(results: &'a Value, name: &str) -> &'a Value {
    results["comparisons"].as_array().expect("comparisons").iter().find(|t| t["name"] == name).expect("comparison")
}

/// `s` with every `SEGMENT/../` removed (`testdata/campaigns/../diso/x` → `testdata/diso/x`):
/// a campaign and a track manifest spell the same file differently.
fn collapse(s: &str) -> String {
    let mut s = s.to_owned();
    while let Some(i) = s.find("/../") {
        let start = s[..i].rfind(|c: char| c == '/' || c.is_whitespace() || c == '"').map_or(0, |j| j + 1);
        if &s[start..i] == ".." {
            break;
        }
        s.replace_range(start..i + 4, "");
    }
    s
}

/// `value` with [`collapse`] applied to every string.
fn collapsed(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(collapse(s)),
        Value::Array(items) => Value::Array(items.iter().map(collapsed).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), collapsed(v))).collect()),
        other => other.clone(),
    }
}

#[test]
fn collapse_removes_parent_segments() {
    assert_eq!(collapse("at testdata/campaigns/../diso/x.rdf:3:1"), "at testdata/diso/x.rdf:3:1");
    assert_eq!(collapse("a/b/../../c"), "c");
}

/// The systems of an align JSON by name.
fn systems_by_name(json: &Value) -> Vec<(String, Value)> {
    json["systems"]
        .as_array()
        .expect("systems")
        .iter()
        .map(|s| (s["system"].as_str().expect("name").to_owned(), collapsed(s)))
        .collect()
}

#[test]
fn align_oaei2018_equals_the_track_manifest_and_melt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (results, report) = run("testdata/campaigns/oaei2018.toml", dir.path());
    assert_eq!(results["title"], "OAEI 2018: conference and anatomy");
    let single = kgeval_json(&["align", "--manifest", "testdata/tracks/oaei2018.toml", "--per-item"]);
    // The conference task asks for the best threshold (`best_threshold = true`), anatomy not.
    let with_threshold =
        kgeval_json(&["align", "--manifest", "testdata/tracks/oaei2018.toml", "--per-item", "--best-threshold"]);
    assert_eq!(systems_by_name(&single).len(), 14);
    let mut seen = 0;
    for (name, single) in [("conference", &with_threshold), ("anatomy", &single)] {
        let expected = systems_by_name(single);
        let entry = task(&results, name);
        assert_eq!(entry["family"], "align");
        assert_eq!(entry["error"], Value::Null);
        let result = &entry["result"];
        for key in ["kgeval_version", "profile", "mode"] {
            assert_eq!(result[key], single[key], "{name} {key}");
        }
        for (system, value) in systems_by_name(result) {
            let (_, want) = expected.iter().find(|(s, _)| *s == system).expect("system in the track");
            assert_eq!(&value, want, "{system}");
            seen += 1;
        }
    }
    assert_eq!(seen, 14);
    // MELT's performance.csv: conference AML micro P 17/22, R 17/31 over both test cases.
    let conference = &task(&results, "conference")["result"]["systems"];
    let aml = conference.as_array().expect("systems").iter().find(|s| s["system"] == "conference:AML").expect("AML");
    assert!((f(&aml["micro"]["primary"], "precision") - 17.0 / 22.0).abs() < 1e-15, "{aml}");
    assert!((f(&aml["micro"]["primary"], "recall") - 17.0 / 31.0).abs() < 1e-15, "{aml}");
    assert!(report.contains("| conference:AML | MICRO | primary | 0.7727 | 0.5484 | 0.6415 | 17 | 5 | 14 | 0 | 22 |"));
    assert!(report
        .contains("| anatomy:ALOD2Vec | mouse-human | primary | 0.9949 | 0.6484 | 0.7851 | 983 | 5 | 533 | 0 | 988 |"));
    // The CSV is MELT's performance.csv layout.
    let csv = std::fs::read_to_string(dir.path().join("out/conference.csv")).expect("csv");
    assert!(
        csv.starts_with("Matcher,Test Case,Reference,Type,Precision (P),Recall (R),Residual Recall (R+),F1,"),
        "{csv}"
    );
    assert!(csv.contains("conference:AML,cmt-conference,primary,ALL,0.6666666666666666,0.5333333333333333,"), "{csv}");
    // The best threshold of AML on cmt-conference (as `kgeval align --best-threshold` on MELT's
    // files): 0.6075, where P, R and F1 stay 8/12, 8/15, 16/27; anatomy has no curve.
    let pairs = &aml["pairs"];
    let cmt = pairs.as_array().expect("pairs").iter().find(|p| p["name"] == "cmt-conference").expect("pair");
    assert!((f(&cmt["best_threshold"], "threshold") - 0.6075).abs() < 5e-5, "{cmt}");
    assert!((f(&cmt["best_threshold"], "f1") - 16.0 / 27.0).abs() < 1e-12, "{cmt}");
    assert!(!cmt["threshold_curve"].as_array().expect("curve").is_empty());
    let anatomy = &task(&results, "anatomy")["result"]["systems"][0]["pairs"][0];
    assert_eq!(anatomy["best_threshold"], Value::Null, "{anatomy}");
    // The meta-evaluation: a paired t test over the two test cases, 66 pairs of 12 matchers.
    let compare = &task(&results, "conference")["compare"];
    assert_eq!(compare["conventions"]["test"], "t", "{compare}");
    assert!(report.contains("#### f1 (higher is better; 2 items, 12 systems)"), "{report}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .expect("out")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [".kgeval-run", "anatomy.csv", "conference.csv", "index.html", "report.md", "results.json", "tables.tex"]
    );
}

#[test]
fn align_and_rank_diso_equal_their_subcommands() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (results, report) = run("testdata/campaigns/diso.toml", dir.path());
    let d = "testdata/diso/brick-smartenv";
    let single = kgeval_json(&[
        "align",
        "--profile",
        "diso",
        "--reference",
        &format!("{d}/Rplus.rdf"),
        "--name",
        "brick-smartenv",
        "--system",
        &format!("Rapprox={d}/Rapprox.rdf"),
        "--system",
        &format!("unknown={d}/unknown.rdf"),
        "--system",
        &format!("incorrect={d}/incorrect.rdf"),
        "--per-item",
    ]);
    assert_eq!(task(&results, "task1")["result"], single);
    // DISO's partiality-corrected scores of R≈ against R+: 18 TP, 5 FP, 24 ignored.
    assert!(report.contains("| Rapprox | brick-smartenv | primary | 0.7826 | 1.0000 | 0.8780 | 18 | 5 | 0 | 24 | 47 |"));
    let rank = kgeval_json(&["rank", "--manifest", "testdata/ranking/diso-synthetic/task2.toml", "--per-item"]);
    assert_eq!(collapsed(&task(&results, "task2")["result"]), collapsed(&rank));
    assert_eq!(task(&results, "task2")["family"], "rank");
}

#[test]
fn qald_and_lexicon_qald3_equal_their_subcommands_and_compare() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (results, _) = run("testdata/campaigns/qald3.toml", dir.path());
    let q = "testdata/qald/qald3";
    let args = [
        "qald",
        "--gold",
        &format!("{q}/dbpedia-test-answers.xml"),
        "--system",
        &format!("unanswered={q}/dbpedia-test-questions.xml"),
        "--system",
        &format!("gold={q}/dbpedia-test-answers.xml"),
        "--rule",
        "qald3",
        "--per-item",
    ]
    .map(|s| s.to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let single = kgeval_json(&args);
    let qa = task(&results, "qa");
    assert_eq!(qa["result"], single);
    // README: the questions file as a submission gets 4 right of 99 (the out-of-scope ones).
    let unanswered = &qa["result"]["systems"][0];
    assert_eq!(unanswered["system"], "unanswered");
    assert_eq!(unanswered["global"]["right"], 4);
    assert!((f(&unanswered["global"], "qald_f") - 4.0 / 99.0).abs() < 1e-15);
    // The task's comparison equals `kgeval compare` on the same per-item JSON.
    let per_item = dir.path().join("qa.json");
    std::fs::write(&per_item, serde_json::to_string(&single).expect("JSON")).expect("write");
    let mut compare = kgeval_json(&["compare", per_item.to_str().expect("utf-8"), "-m", "f1", "--test", "t"]);
    compare["conventions"]["input_format"] = Value::String("evaluation".to_owned());
    assert_eq!(qa["compare"], compare);
    let l = "testdata/lemon";
    let lexicon = kgeval_json(&[
        "lexicon",
        "--gold",
        &format!("{l}/qald3-dbpedia_train_lexicon_en.ttl"),
        "--uris",
        &format!("{l}/qald3-dbpedia_train_classes_properties.txt"),
        "--system",
        &format!("train-gold={l}/qald3-dbpedia_train_lexicon_en.ttl"),
        "--system",
        &format!("test-gold={l}/qald3-dbpedia-test-lexicon-en.ttl"),
        "--per-item",
    ]);
    assert_eq!(task(&results, "lexicon")["result"], lexicon);
    // Paper mode, the gold against itself: F = 1 on average.
    let gold = &task(&results, "lexicon")["result"]["systems"][0];
    assert_eq!(gold["system"], "train-gold");
    assert_eq!(f(&gold["average"], "f1"), 1.0, "{gold}");
}

#[test]
fn trec_campaign_equals_kgeval_trec() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (results, report) = run("testdata/campaigns/trec_eval.toml", dir.path());
    let t = "testdata/trec_eval/test";
    let single = kgeval_json(&[
        "trec",
        &format!("{t}/qrels.test"),
        &format!("full={t}/results.test"),
        &format!("trunc={t}/results.trunc"),
        "--per-item",
    ]);
    assert_eq!(task(&results, "trec-test")["result"], single);
    // The data sensitivity over topic subsets equals `kgeval compare --sensitivity`.
    let sensitivity = kgeval_json(&[
        "compare",
        "--sensitivity",
        "--ratios",
        "0.4,0.7",
        "--repeats",
        "20",
        "--qrels",
        &format!("{t}/qrels.test"),
        "--run",
        &format!("full={t}/results.test"),
        "--run",
        &format!("trunc={t}/results.trunc"),
        "-m",
        "map",
        "-m",
        "P_10",
        "--missing",
        "zero",
    ]);
    let entry = comparison(&results, "topic-sensitivity");
    assert_eq!(entry["error"], Value::Null);
    assert_eq!(entry["result"], sensitivity);
    let points = entry["result"]["sensitivity"]["points"].as_array().expect("points");
    assert_eq!(points.len(), 2);
    // 3 topics: subsets of 2 of them at both ratios (as `kgeval compare` prints it).
    assert!(points.iter().all(|p| p["size"] == 2), "{points:?}");
    assert!(report.contains("#### map (higher is better; 3 items, 2 systems)"), "{report}");
    // Conventions by their names, never Rust debug text (`DocnoDescending`).
    assert!(
        report.contains("kgeval trec: tie_break docno-desc, query_set intersection, relevance_level 1"),
        "{report}"
    );
}

#[test]
fn kgc_sparsity_equals_kgeval_kgc_and_seed_004_taus() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (results, report) = run("testdata/campaigns/kgc-sparsity.toml", dir.path());
    let k = "testdata/kgc";
    let single = kgeval_json(&[
        "kgc",
        "--test",
        &format!("{k}/fb15k-237/test.txt.gz"),
        "--filter",
        &format!("{k}/fb15k-237/train.txt.gz"),
        "--filter",
        &format!("{k}/fb15k-237/valid.txt.gz"),
        "--entities",
        &format!("{k}/fb15k-237/entities.txt.gz"),
        "--ranks",
        &format!("{k}/baseline/popularity-ranks.tsv.gz"),
        "--relation-weights",
        &format!("triples:{k}/kgc-sparsity/data/FB-Test-S/samples.txt"),
    ]);
    assert_eq!(task(&results, "FB-Test-O-popularity")["result"], single);
    // testdata/kgc/SOURCES.md: the baseline's realistic micro MR and MRR (a naive script's values).
    let both = &task(&results, "FB-Test-O-popularity")["result"]["systems"][0]["scopes"]["both"];
    assert!((f(both, "micro_mrr") - 0.233419).abs() < 5e-7, "{both}");
    assert!((f(both, "micro_mr") - 1394.9279).abs() < 5e-5, "{both}");
    let r = "testdata/kgc/kgc-sparsity/result";
    for (name, left, right) in [
        ("O-vs-S", "FB-Test-O/evaluation.csv", "FB-Test-S/evaluation.csv"),
        ("S-vs-SC", "FB-Test-S/evaluation.csv", "FB-Test-S-C/evaluation.csv"),
        ("depth-series", "FB-Test-S/evaluation.csv", "FB-Test-S-C/pooling_depth.csv.gz"),
    ] {
        let mut args =
            vec!["compare".to_owned(), format!("{r}/{left}"), "--against".to_owned(), format!("{r}/{right}")];
        for m in ["micro_mrr", "micro_hits@10", "macro_mrr", "macro_hits@10"] {
            args.extend(["-m".to_owned(), m.to_owned()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(comparison(&results, name)["result"], kgeval_json(&args), "{name}");
    }
    let tau = |name: &str, group: Option<&str>, metric: &str| -> f64 {
        let rows = comparison(&results, name)["result"]["agreement"]["rows"].as_array().expect("rows").clone();
        let row = rows
            .iter()
            .find(|r| r["metric"] == metric && group.is_none_or(|d| r["group"]["Depth"] == d))
            .expect("row")
            .clone();
        f(&row, "tau_b")
    };
    // Seed 004: micro MRR tau(S, S-C) = −0.2308, tau(O, S) = 0.7949, 0.359 at pool depth 2.
    assert!((tau("S-vs-SC", None, "micro_mrr") + 0.2308).abs() < 1e-4);
    assert!((tau("O-vs-S", None, "micro_mrr") - 0.7949).abs() < 1e-4);
    assert!((tau("depth-series", Some("2"), "micro_mrr") - 0.359).abs() < 1e-3);
    assert!(report.contains("| all | micro_mrr | 13 | -0.2308 |"), "{report}");
    assert!(report.contains("| Depth=2 | micro_mrr | 13 | 0.3590 |"), "{report}");
}

/// Paths joined to the manifest's folder are shown lexically normalised
/// (`testdata/campaigns/../trec_eval/x` → `testdata/trec_eval/x`) in every output file.
#[test]
fn paths_are_shown_normalised() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (results, report) = run("testdata/campaigns/oaei2018.toml", dir.path());
    let text = results.to_string();
    assert!(!text.contains("/../"), "{text}");
    assert!(!report.contains("/../"), "{report}");
    // A warning's location names the file as a user would type it from the workspace root.
    let prefix = "testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1/";
    assert!(text.contains(&format!("{prefix}cmt-confof/FCAMapX/systemAlignment.rdf:26:41")), "{text}");
    for name in ["tables.tex", "index.html", "conference.csv"] {
        let file = std::fs::read_to_string(dir.path().join("out").join(name)).expect(name);
        assert!(!file.contains("/../"), "{name}");
    }
}

/// A campaign whose second task reads a malformed reference: the first still finishes, the
/// directory is written with the error in results.json and report.md, and the run exits 2
/// naming the task.
#[test]
fn a_failing_task_keeps_the_others_and_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = root().join("testdata");
    let bad = data.join("bad/rdf-mismatched-tag.rdf");
    let manifest = dir.path().join("campaign.toml");
    let foaf = data.join("lemon/matoll-foaf.ttl");
    let uris = data.join("lemon/matoll-foaf-uris.txt");
    std::fs::write(
        &manifest,
        format!(
            "[[task]]\nname = \"good\"\nfamily = \"lexicon\"\ngold = {foaf:?}\nuris = {uris:?}\nsystem = {foaf:?}\n\n\
             [[task]]\nname = \"broken\"\nfamily = \"align\"\n[[task.pair]]\nname = \"p\"\nreference = {bad:?}\n\
             [task.pair.systems]\nS = {foaf:?}\n"
        ),
    )
    .expect("write");
    let out_dir = dir.path().join("out");
    let out = kgeval(&["run", manifest.to_str().expect("utf-8"), "-o", out_dir.to_str().expect("utf-8")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let first = stderr.lines().next().expect("a line");
    assert!(first.starts_with("error: task broken: "), "{stderr}");
    assert!(crate::has_position(first, &bad.file_name().expect("name").to_string_lossy()), "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some(&*format!("error: 1 of 2 task(s) and comparison(s) failed; the others are in {}", out_dir.display()))
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).expect("results")).expect("JSON");
    assert_eq!(task(&results, "good")["error"], Value::Null);
    assert_eq!(f(&task(&results, "good")["result"]["systems"][0]["average"], "f1"), 1.0);
    assert_eq!(task(&results, "broken")["result"], Value::Null);
    assert!(task(&results, "broken")["error"].as_str().is_some_and(|e| first.ends_with(e)), "{results}");
    let report = std::fs::read_to_string(out_dir.join("report.md")).expect("report");
    assert!(report.contains("## broken (`kgeval align`)\n\n**Failed:** "), "{report}");
    assert!(out_dir.join("good.csv").exists() && !out_dir.join("broken.csv").exists());
}

#[test]
fn the_directory_is_replaced_whole_or_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_dir = dir.path().join("out");
    let out_arg = out_dir.to_str().expect("utf-8");
    // A directory that is not an output is refused before running; nothing is written.
    std::fs::create_dir(&out_dir).expect("mkdir");
    std::fs::write(out_dir.join("notes.txt"), "mine").expect("write");
    let out = kgeval(&["run", "testdata/campaigns/diso.toml", "-o", out_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("found a folder that kgeval did not write"));
    assert_eq!(std::fs::read_dir(&out_dir).expect("dir").count(), 1);
    std::fs::remove_file(out_dir.join("notes.txt")).expect("rm");
    // An empty one, then a previous output, are written / replaced as a whole.
    for manifest in ["testdata/campaigns/diso.toml", "testdata/campaigns/trec_eval.toml"] {
        let out = kgeval(&["run", manifest, "-o", out_arg]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert!(out_dir.join("trec-test.csv").exists() && !out_dir.join("task1.csv").exists());
    assert_eq!(temp_entries(dir.path()), Vec::<PathBuf>::new());
    // An interrupted run (held before the rename) leaves neither the directory nor a temporary one.
    let fresh = dir.path().join("fresh");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kgeval"))
        .args(["run", "testdata/campaigns/diso.toml", "-o"])
        .arg(&fresh)
        .env("KGEVAL_TEST_HOLD_TEMP_MS", "60000")
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run kgeval");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !temp_entries(dir.path()).iter().any(|p| p.join("report.md").exists()) {
        assert!(std::time::Instant::now() < deadline, "no temporary directory appeared");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = Command::new("kill").arg("-INT").arg(child.id().to_string()).status().expect("kill");
    assert!(kill.success());
    assert!(!child.wait().expect("wait").success());
    assert!(!fresh.exists());
    assert_eq!(temp_entries(dir.path()), Vec::<PathBuf>::new());
}

/// The README's first command (the main job) runs as written, with `report/` in a temporary
/// folder, and writes the report it says.
#[test]
fn readme_main_job_runs() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let block = readme
        .split("```sh\n")
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains("cargo run"))
        .expect("the set-up block");
    let command = block.lines().find(|l| l.starts_with("cargo run")).expect("the main-job command");
    let args: Vec<&str> = command.split_whitespace().skip_while(|a| *a != "--").skip(1).collect();
    assert_eq!(args[..2], ["run", "testdata/campaigns/oaei2018.toml"], "{command}");
    assert_eq!(args[2..], ["-o", "report/"], "{command}");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = kgeval(&["run", args[1], "-o", dir.path().join("report").to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = std::fs::read_to_string(dir.path().join("report/report.md")).expect("report");
    // The rows the README quotes.
    let quoted: Vec<&str> = readme
        .split("An excerpt of `report.md`")
        .nth(1)
        .and_then(|s| s.split("```text\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("quoted report")
        .lines()
        .filter(|l| l.starts_with("| conference:") || l.starts_with("| anatomy:"))
        .collect();
    assert!(quoted.len() >= 3, "{quoted:?}");
    for row in quoted {
        assert!(report.contains(row), "README quotes `{row}`");
    }
}

/// Every example of `kgeval run --help` runs on the bundled data (its `-o` moved into a
/// temporary folder).
#[test]
fn help_examples_run() {
    let examples = crate::help_examples("run");
    assert_eq!(examples.len(), 4, "{examples:?}");
    let dir = tempfile::tempdir().expect("tempdir");
    for example in examples {
        let mut args: Vec<String> = example.clone();
        let at = args.iter().position(|a| a == "-o").expect("-o") + 1;
        args[at] = dir.path().join(&args[at]).to_str().expect("utf-8").to_owned();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = kgeval(&args);
        assert!(out.status.success(), "{example:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(Path::new(args[at]).join("report.md").exists(), "{example:?}");
    }
}
