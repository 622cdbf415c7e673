//! `index.html` in a real browser: headless Chromium loads the page from disk (no network),
//! `--dump-dom` gives the DOM after the inline script ran, and `--screenshot` writes
//! `target/campaign-render/index.png` to look at. Skipped with a printed reason when no
//! Chromium is installed (Debian `chromium`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::campaign_render::campaign;
use crate::{page_checks, root};

/// The Chromium binary: `KGEVAL_CHROMIUM`, else the first of the usual names that runs.
pub(crate) fn chromium() -> Option<String> {
    let candidates = std::env::var("KGEVAL_CHROMIUM")
        .into_iter()
        .chain(["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"].map(str::to_owned));
    candidates.into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// Runs headless Chromium on `page` with `args` (no sandbox: CI runs as root; no network).
pub(crate) fn headless(chromium: &str, page: &Path, args: &[&str]) -> std::process::Output {
    let url = format!("file://{}", page.display());
    Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .args(["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--hide-scrollbars"])
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs")
}

/// `target/campaign-render/` (or under `CARGO_TARGET_DIR`).
pub(crate) fn out_dir(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let dir = target.join(name);
    std::fs::create_dir_all(&dir).expect("target dir");
    dir.canonicalize().expect("canonical")
}

/// Every plot id the bundled test campaign yields.
const PLOTS: &[&str] = &[
    "task-conference-threshold-1",
    "task-conference-precision-recall",
    "task-trec_eval-test-per-topic",
    "task-trec_eval-test-pvalues",
    "task-diso-task-2-tau-sweep",
    "task-diso-task-2-risk-coverage",
    "task-kgc-mini-categories-1",
    "compare-depth-series-depth",
    "compare-discriminative-power-pvalues-1",
    "task-trec-sensitivity-per-topic",
    "task-trec-sensitivity-sensitivity",
];

#[test]
fn index_html_in_headless_chromium() {
    let html = campaign().render_html();
    for id in PLOTS {
        assert!(html.contains(&format!("<figure class=\"plot\" id=\"{id}\">")), "plot {id} missing from the page");
    }
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"), "the page must not load anything");
    let Some(chromium) = chromium() else {
        eprintln!(
            "SKIPPED index_html_in_headless_chromium: no chromium found (Debian chromium; or set KGEVAL_CHROMIUM)"
        );
        return;
    };
    let dir = out_dir("campaign-render");
    let page = dir.join("index.html");
    std::fs::write(&page, &html).expect("write index.html");
    let dom = headless(&chromium, &page, &["--dump-dom"]);
    assert!(dom.status.success(), "chromium --dump-dom failed: {}", String::from_utf8_lossy(&dom.stderr));
    let dom = String::from_utf8_lossy(&dom.stdout);
    check_dom(&dom);
    assert_eq!(page_checks::check_plot_geometry(&dom), PLOTS.len(), "every plot checked");
    // The pool depth is an integer axis: ticks 0, 1, …, 10, never "10.0".
    let depth = page_checks::plots(&dom).into_iter().find(|p| p.0 == "compare-depth-series-depth").expect("depth");
    let labels = page_checks::texts(&depth.2);
    assert!(labels.iter().any(|t| t == "10") && !labels.iter().any(|t| t == "10.0" || t == "2.0"), "{labels:?}");
    let scrolling = page_checks::check_layout(&chromium, &page);
    // At a phone's width the wide tables scroll in their wrapper; at a desktop's none needs to.
    assert!(scrolling[0].is_empty(), "{scrolling:?}");
    assert!(scrolling[1].iter().any(|t| t == "task-trec_eval-test-table"), "{scrolling:?}");
    let shot = dir.join("index.png");
    let _ = std::fs::remove_file(&shot);
    let out = headless(&chromium, &page, &[&format!("--screenshot={}", shot.display()), "--window-size=1280,9000"]);
    assert!(out.status.success(), "chromium --screenshot failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000), "no screenshot at {}", shot.display());
    eprintln!("screenshot: {}", shot.display());
}

/// The DOM Chromium built: every task section, its sortable table, every plot with its SVG
/// and title.
pub(crate) fn check_dom(dom: &str) {
    for task in ["task-conference", "task-trec_eval-test", "task-diso-task-2", "task-kgc-mini", "task-broken"] {
        assert!(dom.contains(&format!("<section class=\"task\" id=\"{task}\"")), "section {task} missing");
    }
    for table in ["task-conference-table", "task-trec_eval-test-table", "task-diso-task-2-table", "task-kgc-mini-table"]
    {
        assert!(dom.contains(&format!("<table class=\"results sortable\" id=\"{table}\">")), "table {table} missing");
    }
    assert!(dom.contains("<section class=\"task\" id=\"compare-depth-series\""), "the comparison's section");
    assert!(
        dom.contains("<table class=\"results sortable\" id=\"compare-discriminative-power-power-1\">"),
        "the discriminative power table"
    );
    assert!(!dom.contains("id=\"task-broken-table\""), "a failed task has no table");
    assert!(dom.contains("This task failed: reading the URI list"), "the failure is shown");
    for id in PLOTS {
        let start = dom.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("plot {id} missing from the DOM"));
        let figure = &dom[start..dom[start..].find("</figure>").map_or(dom.len(), |end| start + end)];
        assert!(figure.contains("<svg role=\"img\""), "plot {id} has no SVG");
        assert!(figure.contains(&format!("<title id=\"{id}-title\">")), "plot {id} has no title");
        assert!(figure.contains("<polyline") || figure.contains("<rect"), "plot {id} draws nothing");
    }
    // MELT's AML row and trec_eval's MAP, as the browser shows them.
    assert!(dom.contains("<td>AML</td><td data-sort=\"0.6666666666666666\">0.6667</td>"), "AML row");
    assert!(dom.contains(">0.1785<"), "results.test MAP");
}
