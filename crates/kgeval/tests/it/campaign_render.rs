//! `CampaignOutcome::render_latex` / `render_html`: a campaign built by running facade tasks
//! on bundled data (the run command builds the same outcome from a manifest), rendered, and
//! the published numbers found in the output: MELT's AML row on cmt-conference (P 0.6667,
//! R 0.5333, F 0.5926), trec_eval's MAP of `results.test` (0.1785), seed 004's tau-b of the
//! micro MRR ordering at pool depth 2 (0.359).

use std::path::Path;
use std::process::Command;

use kgeval::campaign::{CampaignOutcome, ComparisonOutcome, TaskOutcome};
use kgeval::compare::CompareTask;
use kgeval::{Error, Family, Input, NoProgress, SystemInput, Task};

use crate::root;

const MELT: &str =
    "testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1/cmt-conference";

fn task(toml: &str, base: &Path) -> Task {
    Task::from_toml(toml, "task.toml").expect("task").resolved(base)
}

fn outcome(name: &str, task: &Task, compare: Option<CompareTask>, root: &Path) -> TaskOutcome {
    let evaluation = task.run(&NoProgress);
    let compare = compare.filter(|_| evaluation.is_ok()).map(|c| c.resolved(root).run(&NoProgress));
    TaskOutcome { name: name.to_owned(), family: task.family(), evaluation, compare, ties: None, compare_note: None }
}

/// Six tasks of five families, three meta-evaluations, one failing task.
pub(crate) fn campaign() -> CampaignOutcome {
    campaign_under(&root())
}

/// [`campaign`] with every input read from `root` (a folder holding `testdata`, the
/// repository's or a link to it): errors name paths under it.
fn campaign_under(root: &Path) -> CampaignOutcome {
    let root = root.to_path_buf();
    let align = task(
        &format!(
            r#"family = "align"
profile = "melt"
completeness = "complete"
best_threshold = true
[[pair]]
name = "cmt-conference"
reference = "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf"
[pair.systems]
AML = "{MELT}/AML/systemAlignment.rdf"
LogMap = "{MELT}/LogMap/systemAlignment.rdf"
ALIN = "{MELT}/ALIN/systemAlignment.rdf"
"#
        ),
        &root,
    );
    let trec = task(
        r#"family = "trec"
qrels = "testdata/trec_eval/test/qrels.test"
runs = ["results_test=testdata/trec_eval/test/results.test", "trunc=testdata/trec_eval/test/results.trunc"]
"#,
        &root,
    );
    let mut trec_compare = CompareTask::new();
    trec_compare.qrels = Some(Input::path(Path::new("testdata/trec_eval/test/qrels.test")));
    trec_compare.runs = vec![
        SystemInput::parse("results_test=testdata/trec_eval/test/results.test"),
        SystemInput::parse("trunc=testdata/trec_eval/test/results.trunc"),
    ];
    trec_compare.metrics = vec!["map".into(), "P.10".into()];
    trec_compare.missing = kgeval::compare::MissingPolicy::Zero;
    // The same runs' data sensitivity (seed 004 §5.1: Kendall tau over topic subsets).
    let mut sensitivity = trec_compare.clone();
    sensitivity.sensitivity = true;
    sensitivity.ratios = vec![0.2, 0.5, 0.8];
    sensitivity.repeats = 20;
    let rank_dir = root.join("testdata/ranking/diso-synthetic");
    let rank_manifest = std::fs::read_to_string(rank_dir.join("task2.toml")).expect("task2.toml");
    let rank = task(&format!("family = \"rank\"\nsweep_tau = true\n{rank_manifest}"), &rank_dir);
    let kgc = task(
        r#"family = "kgc"
test = "testdata/kgc/mini/test.txt"
filter = ["testdata/kgc/mini/train.txt"]
ranks = "mini=testdata/kgc/mini/ranks.tsv"
"#,
        &root,
    );
    // Seed 004's pool-depth series (kgc-sparsity's published CSVs), a `[[compare]]` of the
    // campaign: the ordering of FB-Test-S against FB-Test-S-C judged up to depth d.
    let mut depth = CompareTask::new();
    depth.inputs = vec![SystemInput::parse("testdata/kgc/kgc-sparsity/result/FB-Test-S/evaluation.csv")];
    depth.against = vec![SystemInput::parse("testdata/kgc/kgc-sparsity/result/FB-Test-S-C/pooling_depth.csv.gz")];
    // Seed 004's published p-value matrix of FB-Test-O: the discriminative power of two metrics.
    let mut power = CompareTask::new();
    power.pvalues =
        vec![SystemInput::parse("FB-Test-O=testdata/kgc/kgc-sparsity/result/FB-Test-O/discriminative_power.csv.gz")];
    power.metrics = vec!["micro_mrr".into(), "macro_mrr".into()];
    let broken = task(
        r#"family = "lexicon"
gold = "testdata/lemon/no-such-gold.ttl"
uris = "testdata/lemon/no-such-uris.txt"
systems = ["testdata/lemon/no-such-system.ttl"]
"#,
        &root,
    );
    CampaignOutcome {
        title: "Render test: OAEI & TREC_eval #1".to_owned(),
        tasks: vec![
            outcome("conference", &align, None, &root),
            outcome("trec_eval test", &trec, Some(trec_compare), &root),
            outcome("diso task 2", &rank, None, &root),
            outcome("kgc mini", &kgc, None, &root),
            outcome("broken", &broken, None, &root),
            outcome("trec sensitivity", &trec, Some(sensitivity), &root),
        ],
        manifest: root.join("render-test.toml"),
        comparisons: vec![
            ComparisonOutcome { name: "depth series".to_owned(), compare: depth.resolved(&root).run(&NoProgress) },
            ComparisonOutcome {
                name: "discriminative power".to_owned(),
                compare: power.resolved(&root).run(&NoProgress),
            },
        ],
    }
}

#[test]
fn every_task_ran_as_planned() {
    let campaign = campaign();
    for c in &campaign.comparisons {
        assert!(c.compare.is_ok(), "{}: {:?}", c.name, c.compare.as_ref().err());
    }
    for t in campaign.tasks.iter().filter(|t| t.name != "broken") {
        assert!(t.evaluation.is_ok(), "{}: {:?}", t.name, t.evaluation.as_ref().err());
        if let Some(compare) = &t.compare {
            assert!(compare.is_ok(), "{}: {:?}", t.name, compare.as_ref().err());
        }
    }
    assert!(matches!(campaign.tasks[4].evaluation, Err(Error::Context { .. } | Error::Format(_))));
    assert_eq!(campaign.tasks[0].family, Family::Align);
}

#[test]
fn latex_tables_carry_the_published_numbers() {
    let tex = campaign().render_latex();
    // MELT's AML on cmt-conference, complete mode: P 8/12, R 8/15, F 16/27 (its recall ties
    // LogMap's for the best); LogMap has the best P and F1 (8/11, 16/26).
    assert!(tex.contains("a & AML & 0.6667 & \\textbf{0.5333} & 0.5926 & 0.5926 \\\\"), "{tex}");
    assert!(tex.contains("b & LogMap & \\textbf{0.7273} & \\textbf{0.5333} & \\textbf{0.6154}"), "{tex}");
    assert!(tex.contains("c & ALIN & 0.6667 & 0.2667 & 0.3810"), "{tex}");
    // One system: nothing is "best".
    assert!(tex.contains("a & mini & 0.7976 & "), "{tex}");
    assert!(tex.contains("\\caption{Task conference (align)."), "{tex}");
    assert!(tex.contains("Conventions: profile melt; mode complete; threshold none."), "{tex}");
    // trec_eval's MAP of results.test (out.test: map 0.1785) with its significance marks.
    assert!(tex.contains("a & results\\_test & "), "{tex}");
    assert!(tex.contains("Task trec\\_eval test (trec)."), "{tex}");
    assert!(tex.contains("paired t test, holm correction, $\\alpha$ = 0.05"), "{tex}");
    let row = tex.lines().find(|l| l.starts_with("a & results\\_test & ")).expect("results_test row");
    assert!(row.contains("0.1785"), "{row}");
    // The rank task names its tie policy; the failing task is a sentence, not a table.
    assert!(tex.contains("Conventions: profile diso; tie policy "), "{tex}");
    assert!(tex.contains("\\noindent Task \\texttt{broken} (lexicon) failed: "), "{tex}");
    assert!(tex.contains("\\section*{Render test: OAEI \\& TREC\\_eval \\#1}"), "{tex}");
    // Seed 004's FB-Test-O p-values (expected_discpower.tsv): micro MRR 70 of 78 pairs at 0.05,
    // 67 at 0.01, area 4.44187; macro MRR 72, 67, 2.65997 (the more discriminative).
    assert!(
        tex.contains("\\caption{Discriminative power on FB-Test-O (13 systems, 78 pairs; discriminative power)"),
        "{tex}"
    );
    assert!(tex.contains("micro MRR & 78 & 70 & \\textbf{67} & 4.4419 & "), "{tex}");
    assert!(tex.contains("macro MRR & 78 & \\textbf{72} & \\textbf{67} & \\textbf{2.6600} & "), "{tex}");
    // Issue 27: every compare section has a table. The depth series (kgc-sparsity's published
    // CSVs): tau-b of the micro MRR ordering at depth 0, 1, 2 is 1, 0.7692, 0.3590 (as the
    // plot); 44 metrics × 11 depths run a row per metric, split over two tables at 8 pt.
    assert!(tex.contains("micro MRR & 1.0000 & 0.7692 & 0.3590 & "), "{tex}");
    assert!(tex.contains("Table 1 of depth series, continued (part 2 of 2)."), "{tex}");
    assert!(tex.contains("Data sensitivity: Kendall's tau-b between the ordering of 2 systems"), "{tex}");
    // 5 task tables (one failed), sensitivity, depth series (2 parts), discriminative power.
    assert_eq!(tex.matches("\\begin{table}").count(), 9);
    assert_eq!(tex.matches("\\toprule").count(), 9);
    assert!(!tex.contains("resizebox") && !tex.contains("hphantom"), "{tex}");
}

/// The document compiles with pdflatex (Debian `texlive-latex-recommended`) without an
/// overfull line, whether the inputs lie under a short folder or a 200-character one (the
/// failing task's error names them): the result may not depend on where the repository is.
/// Skipped with a printed reason when pdflatex is absent.
#[test]
fn latex_compiles_with_pdflatex() {
    if Command::new("pdflatex").arg("--version").output().is_err() {
        eprintln!("SKIPPED latex_compiles_with_pdflatex: pdflatex not found (Debian texlive-latex-recommended)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let short = dir.path().join("s");
    let mut long = dir.path().to_path_buf();
    while long.as_os_str().len() < 200 {
        long.push("a-deliberately-long_folder.name");
    }
    for base in [&short, &long] {
        std::fs::create_dir_all(base).expect("mkdir");
        std::os::unix::fs::symlink(root().join("testdata"), base.join("testdata")).expect("link to testdata");
        let campaign = campaign_under(base);
        let error =
            kgeval::campaign::one_line(campaign.tasks[4].evaluation.as_ref().expect_err("the broken task fails"));
        assert!(error.contains(&base.display().to_string()), "{error}");
        let mut tex = campaign.render_latex();
        // Names a campaign may carry: every escaped character, accents, Greek, CJK.
        let odd = "\\begin{sloppypar}\\noindent ".to_owned()
            + &kgeval_report::campaign::latex_escape("a_b & c% #d $e ^f ~g {h} \\i <j> |k Crème Dōme α≥τ 中文 – “q”");
        tex = tex.replace("\\end{document}", &format!("{odd}\n\\end{{sloppypar}}\n\\end{{document}}"));
        std::fs::write(base.join("tables.tex"), &tex).expect("write");
        let out = Command::new("pdflatex")
            .args(["-interaction=nonstopmode", "-halt-on-error", "tables.tex"])
            .current_dir(base)
            .output()
            .expect("pdflatex");
        let log = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "pdflatex failed under {}:\n{log}", base.display());
        assert!(base.join("tables.pdf").is_file());
        assert!(!log.contains("Overfull \\hbox"), "a line is wider than the text under {}:\n{log}", base.display());
    }
}

#[test]
fn plots_carry_the_published_depth_series() {
    let view = campaign().view();
    let series = view.tasks.iter().find(|t| t.name == "depth series").expect("the comparison");
    assert_eq!(series.family, "compare");
    let depth = series.plots.iter().find(|p| p.id == "compare-depth-series-depth").expect("depth plot");
    let micro_mrr = depth.series.iter().find(|s| s.name == "micro MRR").expect("micro MRR series");
    // Seed 004: tau-b of the micro MRR ordering, FB-Test-S against FB-Test-S-C judged to depth 2.
    let at_2 = micro_mrr.points.iter().find(|p| p.0 == 2.0).expect("depth 2").1;
    assert!((at_2 - 0.359).abs() < 1e-3, "{at_2}");
    assert_eq!(micro_mrr.points.len(), 11, "depths 0..=10");
}

/// Issue 27: one panel per pair with every matcher's P, R and F over the threshold (not a
/// plot per matcher); a matcher with one confidence value is a point in the scatter; legend
/// numbers as the tables print them; every axis of a [0, 1] metric within [0, 1].
#[test]
fn alignment_plots_are_small_multiples_and_a_scatter() {
    use kgeval_report::campaign::{Axis, PlotKind};
    let view = campaign().view();
    let align = &view.tasks[0];
    let ids: Vec<&str> = align.plots.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["task-conference-threshold-1", "task-conference-precision-recall"]);
    let curves = &align.plots[0];
    let titles: Vec<&str> = curves.panels.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(titles, ["precision", "recall", "F-measure"]);
    assert_eq!((curves.x_axis, curves.y_axis), (Axis::UNIT, Axis::UNIT));
    let f = &curves.panels[2].series;
    // MELT's ConfidenceFinder on AML: the best F is the whole alignment's, 16/27.
    assert!(f[0].name.starts_with("AML (best F 0.5926 at t = "), "{:?}", f[0].name);
    assert!(!f[0].name.contains("999999") && !f[0].name.contains("000001"), "{:?}", f[0].name);
    // ALIN's confidences are all 1.0: no curve, a point in the scatter, named in a note.
    let alin = f.iter().find(|s| s.name == "ALIN").expect("ALIN keeps its series (its colour)");
    assert!(alin.points.is_empty());
    assert!(
        align.notes.iter().any(|n| n.starts_with("ALIN give every correspondence the same confidence")),
        "{:?}",
        align.notes
    );
    let scatter = &align.plots[1];
    assert_eq!(scatter.kind, PlotKind::Scatter);
    let alin = scatter.series.iter().find(|s| s.name == "ALIN").expect("ALIN in the scatter");
    // ALIN on cmt-conference: P 4/6, R 4/15 (as (recall, precision)).
    assert_eq!(alin.points.len(), 1);
    assert!((alin.points[0].0 - 4.0 / 15.0).abs() < 1e-12 && (alin.points[0].1 - 4.0 / 6.0).abs() < 1e-12);
    for plot in view.tasks.iter().flat_map(|t| &t.plots) {
        for series in plot.drawn_panels().iter().flat_map(|p| &p.series) {
            assert!(!series.name.contains("99999") && !series.name.contains("00001"), "{}: {}", plot.id, series.name);
        }
    }
}

/// Issue 27: axes within a metric's bounds, integer depths, p-values on a log scale when
/// they span decades, every metric drawn, and one system pair as a dot plot.
#[test]
fn plot_axes_follow_the_values() {
    use kgeval_report::campaign::{Axis, PlotKind};
    let view = campaign().view();
    let plot = |id: &str| view.tasks.iter().flat_map(|t| &t.plots).find(|p| p.id == id).expect(id).clone();
    let bars = plot("task-kgc-mini-categories-1");
    assert_eq!(bars.y_axis, Axis::UNIT);
    let depth = plot("compare-depth-series-depth");
    assert_eq!((depth.x_axis, depth.y_axis), (Axis::INTEGER, Axis::CORRELATION));
    let power = plot("compare-discriminative-power-pvalues-1");
    assert!(
        power.y_axis.log && power.y_axis.bounds.is_some_and(|(lo, hi)| lo >= 1e-12 && hi == 1.0),
        "{:?}",
        power.y_axis
    );
    assert_eq!(power.series.len(), 2);
    // trec_eval's two runs: one system pair, so a dot per metric, never a line.
    let pair = plot("task-trec_eval-test-pvalues");
    let PlotKind::Dots { categories } = &pair.kind else { panic!("{:?}", pair.kind) };
    assert_eq!(categories.len(), 2);
    assert!(categories[0].starts_with("MAP (") && categories[1].starts_with("P@10 ("), "{categories:?}");
}
