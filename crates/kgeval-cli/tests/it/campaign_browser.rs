//! `kgeval run` on bundled campaigns, its `index.html` in a real browser (headless Chromium:
//! `--dump-dom` after the inline script ran, `--screenshot` into
//! `target/campaign-browser/NAME.png`) and its `tables.tex` through pdflatex. Each check is
//! skipped with a printed reason when its program is absent (Debian `chromium`,
//! `texlive-latex-recommended`; `.ci/run` installs both).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{kgeval, root};

#[path = "../../../kgeval/tests/it/page_checks.rs"]
mod page_checks;

/// The Chromium binary: `KGEVAL_CHROMIUM`, else the first of the usual names that runs.
pub(crate) fn chromium() -> Option<String> {
    let candidates = std::env::var("KGEVAL_CHROMIUM")
        .into_iter()
        .chain(["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"].map(str::to_owned));
    candidates.into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// Headless Chromium on a local page: no sandbox (CI runs as root), every request but
/// loopback sent to a closed port, so that a page needing the network would show it.
fn headless(chromium: &str, page: &Path, args: &[&str]) -> std::process::Output {
    Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .args(["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--hide-scrollbars"])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs")
}

/// `kgeval run testdata/campaigns/NAME.toml -o target/campaign-browser/NAME`.
fn run_campaign(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let base = target.join("campaign-browser");
    std::fs::create_dir_all(&base).expect("target dir");
    let dir = base.canonicalize().expect("canonical").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let manifest = format!("testdata/campaigns/{name}.toml");
    let out = kgeval(&["run", &manifest, "-o", dir.to_str().expect("utf-8")]);
    assert!(out.status.success(), "kgeval run {manifest}: {}", String::from_utf8_lossy(&out.stderr));
    dir
}

/// The DOM of `dir/index.html` in headless Chromium and screenshots beside the directory (at
/// 1280 and at a phone's 390 px); every plot's geometry and the layout at 1400 and 390 px
/// checked ([`page_checks`]); `None` (with the reason printed) when no Chromium is installed.
fn browse(dir: &Path, name: &str) -> Option<String> {
    let Some(chromium) = chromium() else {
        eprintln!("SKIPPED browser check of {name}: no chromium found (Debian chromium; or set KGEVAL_CHROMIUM)");
        return None;
    };
    let page = dir.join("index.html");
    let dom = headless(&chromium, &page, &["--dump-dom"]);
    assert!(dom.status.success(), "chromium --dump-dom: {}", String::from_utf8_lossy(&dom.stderr));
    for (suffix, size) in [("", "1280,6000"), ("-390", "390,6000")] {
        let shot = dir.with_file_name(format!("{name}{suffix}.png"));
        let _ = std::fs::remove_file(&shot);
        let out = headless(
            &chromium,
            &page,
            &[&format!("--screenshot={}", shot.display()), &format!("--window-size={size}")],
        );
        assert!(out.status.success(), "chromium --screenshot: {}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000), "no screenshot at {}", shot.display());
        eprintln!("screenshot: {}", shot.display());
    }
    let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
    page_checks::check_plot_geometry(&dom);
    page_checks::check_layout(&chromium, &page);
    Some(dom)
}

/// `dir/tables.tex` compiles with pdflatex without an overfull line.
fn pdflatex(dir: &Path, name: &str) {
    if Command::new("pdflatex").arg("--version").output().is_err() {
        eprintln!("SKIPPED pdflatex check of {name}: pdflatex not found (Debian texlive-latex-recommended)");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::copy(dir.join("tables.tex"), tmp.path().join("tables.tex")).expect("copy");
    let out = Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-halt-on-error", "tables.tex"])
        .current_dir(tmp.path())
        .output()
        .expect("pdflatex");
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{name}: pdflatex failed:\n{log}");
    assert!(!log.contains("Overfull \\hbox"), "{name}: a table is wider than the text:\n{log}");
}

/// Every section, table and plot (by id, each with an SVG carrying its title) in the DOM.
fn check_dom(dom: &str, sections: &[&str], tables: &[&str], plots: &[&str]) {
    for id in sections {
        assert!(dom.contains(&format!("<section class=\"task\" id=\"{id}\"")), "section {id} missing");
    }
    for id in tables {
        assert!(dom.contains(&format!("<table class=\"results sortable\" id=\"{id}\">")), "table {id} missing");
    }
    for id in plots {
        let start =
            dom.find(&format!("<figure class=\"plot\" id=\"{id}\">")).unwrap_or_else(|| panic!("plot {id} missing"));
        let figure = &dom[start..dom[start..].find("</figure>").map_or(dom.len(), |end| start + end)];
        assert!(figure.contains(&format!("<title id=\"{id}-title\">")), "plot {id} has no SVG title");
        assert!(figure.contains("<polyline") || figure.contains("<rect"), "plot {id} draws nothing");
    }
    assert!(!dom.contains("src=\"http") && !dom.contains("href=\"http"), "the page loads nothing");
}

#[test]
fn oaei2018_campaign_in_a_browser() {
    let dir = run_campaign("oaei2018");
    let tex = std::fs::read_to_string(dir.join("tables.tex")).expect("tables.tex");
    // MELT's performance.csv: AML on conference (cmt-conference + cmt-confof), micro P 17/22,
    // R 17/31, F 0.6415; SANOM has the best recall and F1.
    assert!(tex.contains("c & conference:AML & 0.7727 & 0.5484 & 0.6415"), "{tex}");
    assert!(tex.contains("k & conference:SANOM & 0.6667 & \\textbf{0.7097} & \\textbf{0.6875}"), "{tex}");
    assert!(tex.contains("paired t test, holm correction"), "{tex}");
    pdflatex(&dir, "oaei2018");
    let Some(dom) = browse(&dir, "oaei2018") else { return };
    check_dom(
        &dom,
        &["task-conference", "task-anatomy"],
        &["task-conference-table", "task-anatomy-table"],
        &[
            "task-conference-pvalues",
            "task-conference-threshold-1",
            "task-conference-threshold-2",
            "task-conference-precision-recall",
            "task-anatomy-precision-recall",
        ],
    );
    assert!(dom.contains("<td>conference:AML</td><td data-sort=\"0.7727272727272727\">0.7727</td>"), "AML row");
    assert!(dom.contains("best_threshold = true"), "how to ask for the threshold curve");
    // Issue 27: one plot per pair (not 24 one-matcher plots); a matcher whose confidences are
    // all 1.0 is a point in the scatter; FCAMapX's measure 10.0 does not stretch the axis;
    // legend numbers as the tables print them.
    let plots = page_checks::plots(&dom);
    let ids: Vec<&str> = plots.iter().map(|p| p.0.as_str()).collect();
    assert!(!ids.contains(&"task-conference-threshold-3"), "{ids:?}");
    assert!(
        dom.contains(
            "ALIN, ALOD2Vec, DOME, FCAMapX, Holontology, LogMapLt, XMap give every correspondence the same confidence"
        ),
        "the note on single-confidence matchers"
    );
    for (id, geometry, svg) in &plots {
        let labels = page_checks::texts(svg);
        assert!(!svg.contains("99999") && !svg.contains("00001<"), "{id}: unformatted number");
        if id.contains("threshold") || id.contains("precision-recall") {
            for label in labels.iter().filter_map(|t| t.parse::<f64>().ok()) {
                assert!((0.0..=1.0).contains(&label), "{id}: tick {label} outside [0, 1]: {labels:?}");
            }
        }
        if id == "task-conference-precision-recall" {
            // 12 matchers × (2 pairs + micro).
            assert_eq!(geometry.points.len(), 36, "{id}");
        }
        if id == "task-conference-threshold-1" {
            // AML, KEPLER, Lily, LogMap, SANOM: one line in each of the P, R and F panels.
            assert_eq!(geometry.lines.len(), 15, "{id}");
        }
    }
}

#[test]
fn kgc_sparsity_campaign_in_a_browser() {
    let dir = run_campaign("kgc-sparsity");
    pdflatex(&dir, "kgc-sparsity");
    let Some(dom) = browse(&dir, "kgc-sparsity") else { return };
    check_dom(
        &dom,
        &[
            "task-FB-Test-O-popularity",
            "compare-O-vs-S",
            "compare-S-vs-SC",
            "compare-depth-series",
            "compare-discriminative-power",
        ],
        &[
            "task-FB-Test-O-popularity-table",
            "compare-discriminative-power-power-1",
            "compare-discriminative-power-power-2",
            "compare-discriminative-power-power-3",
        ],
        &[
            "task-FB-Test-O-popularity-categories-1",
            "compare-depth-series-depth",
            "compare-discriminative-power-pvalues-1",
            "compare-discriminative-power-pvalues-2",
            "compare-discriminative-power-pvalues-3",
        ],
    );
    // The KGC-sparsity study: micro MRR tau-b(S, S-C) = −0.2308, tau-b(O, S) = 0.7949, in each
    // compare section's agreement table.
    for (id, tau) in [("compare-S-vs-SC-table-1", "-0.2308"), ("compare-O-vs-S-table-1", "0.7949")] {
        let table = dom.split(&format!("id=\"{id}\"")).nth(1).expect(id).split("</table>").next().expect("table");
        assert!(
            table.contains("<td data-sort=\"micro MRR\">micro MRR</td><td data-sort=\"13\" class=\"num\">13</td>"),
            "{table}"
        );
        assert!(table.contains(&format!(">{tau}</td>")), "{id}: {table}");
    }
    // Issue 27: all ten metrics drawn (on a log scale), integer depths, MRR bars up to 1.
    let plots = page_checks::plots(&dom);
    let plot = |id: &str| plots.iter().find(|p| p.0 == id).unwrap_or_else(|| panic!("plot {id}"));
    for d in 1..=3 {
        let (id, geometry, svg) = plot(&format!("compare-discriminative-power-pvalues-{d}"));
        assert_eq!(geometry.lines.len(), 10, "{id}: every metric drawn");
        assert!(page_checks::texts(svg).iter().any(|t| t == "1e-10"), "{id}: a log axis");
    }
    let depth = page_checks::texts(&plot("compare-depth-series-depth").2);
    assert!(depth.iter().any(|t| t == "10") && !depth.iter().any(|t| t == "10.0"), "{depth:?}");
    let bars = page_checks::texts(&plot("task-FB-Test-O-popularity-categories-1").2);
    assert!(bars.iter().any(|t| t == "1.0") && !bars.iter().any(|t| t == "1.2"), "{bars:?}");
}

#[test]
fn diso_and_trec_campaigns_in_a_browser() {
    for (name, sections, plots) in [
        ("diso", &["task-task1", "task-task2"][..], &["task-task2-risk-coverage"][..]),
        (
            "trec_eval",
            &["task-trec-test", "compare-topic-sensitivity"][..],
            &["task-trec-test-per-topic", "task-trec-test-pvalues", "compare-topic-sensitivity-sensitivity"][..],
        ),
        ("qald3", &["task-qa", "task-lexicon"][..], &[][..]),
    ] {
        let dir = run_campaign(name);
        pdflatex(&dir, name);
        let Some(dom) = browse(&dir, name) else { return };
        let tables: Vec<String> =
            sections.iter().filter(|s| s.starts_with("task-")).map(|s| format!("{s}-table")).collect();
        let tables: Vec<&str> = tables.iter().map(String::as_str).collect();
        check_dom(&dom, sections, &tables, plots);
        if name == "trec_eval" {
            // Issue 27: one system pair is a dot per metric, not a one-point "curve"; MAP and
            // P@10 coincide in the sensitivity plot and both stay visible (colour and dash).
            let plots = page_checks::plots(&dom);
            let pvalues = &plots.iter().find(|p| p.0 == "task-trec-test-pvalues").expect("p-values").1;
            assert!(pvalues.lines.is_empty() && pvalues.points.len() == 2, "{pvalues:?}");
            let svg = &plots.iter().find(|p| p.0 == "compare-topic-sensitivity-sensitivity").expect("sensitivity").2;
            let lines: Vec<&str> = svg.split("<polyline class=\"series\"").skip(1).collect();
            assert_eq!(lines.len(), 2, "{svg}");
            assert!(!lines[0].contains("stroke-dasharray") && lines[1].contains("stroke-dasharray"), "{svg}");
        }
    }
}
