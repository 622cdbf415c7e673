//! Checks of a campaign page as a person sees it, shared by the facade's and the CLI's
//! browser tests (the CLI includes this file): every plot's geometry read back from the SVG
//! in Chromium's DOM (no legend box over a data point, no "curve" of one x value drawn as a
//! line), and the page's layout measured by Chromium at a desktop and a phone width (no table
//! or plot wider than its container without a scroll wrapper, no page wider than the window).

use std::path::Path;
use std::process::Command;

use kgeval_report::campaign::PlotGeometry;

/// The window widths a page is laid out at: a desktop and a phone.
pub(crate) const WIDTHS: [u32; 2] = [1400, 390];

/// Measures the layout after the page's own script ran, and writes what overflows into a
/// `<pre id="kgeval-layout">` that `--dump-dom` returns.
const PROBE: &str = r#"<script>
(function () {
  var out = [];
  var view = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > view + 1) {
    out.push("page " + document.documentElement.scrollWidth + " > " + view);
  }
  function scrolls(el) { var o = getComputedStyle(el).overflowX; return o === "auto" || o === "scroll"; }
  document.querySelectorAll("table").forEach(function (t) {
    var wrap = t.parentElement;
    if (t.getBoundingClientRect().width > wrap.clientWidth + 1 && !scrolls(wrap)) out.push("table " + t.id + " cut");
    if (wrap.getBoundingClientRect().right > view + 1) out.push("table " + t.id + " past the window");
  });
  document.querySelectorAll("figure.plot").forEach(function (f) {
    var svg = f.querySelector("svg"), wrap = svg.parentElement;
    if (svg.getBoundingClientRect().width > wrap.clientWidth + 1 && !scrolls(wrap)) out.push("plot " + f.id + " cut");
    if (f.getBoundingClientRect().right > view + 1) out.push("plot " + f.id + " past the window");
  });
  var scrolling = Array.prototype.map.call(document.querySelectorAll(".table-wrap.scrolls table"), function (t) { return t.id; });
  var pre = document.createElement("pre");
  pre.id = "kgeval-layout";
  pre.textContent = "OVERFLOW[" + out.join("; ") + "] SCROLLING[" + scrolling.join(" ") + "]";
  document.body.appendChild(pre);
})();
</script>"#;

/// What the probe found at one width: the overflows, and the tables whose wrapper scrolls.
pub(crate) struct Layout {
    pub overflow: String,
    pub scrolling: Vec<String>,
}

/// Lays `page` out in headless Chromium at `width` pixels and measures it (a copy with the
/// probe is written beside it).
pub(crate) fn layout(chromium: &str, page: &Path, width: u32) -> Layout {
    let html = std::fs::read_to_string(page).expect("read the page");
    let probed = page.with_file_name(format!("layout-{width}.html"));
    std::fs::write(&probed, html.replace("</body>", &format!("{PROBE}\n</body>"))).expect("write the probe page");
    let out = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"])
        .args(["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--hide-scrollbars"])
        .arg(format!("--window-size={width},2000"))
        .arg("--dump-dom")
        .arg(format!("file://{}", probed.display()))
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium --dump-dom: {}", String::from_utf8_lossy(&out.stderr));
    let dom = String::from_utf8_lossy(&out.stdout);
    let between = |open: &str| -> String {
        let start = dom.rfind(open).map_or_else(|| panic!("no {open} in the probed page"), |s| s + open.len());
        dom[start..start + dom[start..].find(']').expect("closing bracket")].to_owned()
    };
    Layout {
        overflow: between("OVERFLOW["),
        scrolling: between("SCROLLING[").split_whitespace().map(str::to_owned).collect(),
    }
}

/// Every plot in `dom` (`<figure class="plot" id=…>`): its id and its geometry.
pub(crate) fn plots(dom: &str) -> Vec<(String, PlotGeometry, String)> {
    let mut found = Vec::new();
    let marker = "<figure class=\"plot\" id=\"";
    let mut rest = dom;
    while let Some(start) = rest.find(marker) {
        let after = &rest[start + marker.len()..];
        let id = after[..after.find('"').expect("id")].to_owned();
        let end = after.find("</figure>").unwrap_or(after.len());
        let figure = &after[..end];
        let svg = figure.find("<svg").map_or("", |s| &figure[s..]);
        found.push((id, PlotGeometry::read(svg), svg.to_owned()));
        rest = &after[end..];
    }
    found
}

/// No legend over a data point and no one-x "curve" drawn as a line, in any plot of `dom`;
/// returns how many plots were checked.
pub(crate) fn check_plot_geometry(dom: &str) -> usize {
    let plots = plots(dom);
    for (id, geometry, _) in &plots {
        assert!(geometry.covered_points().is_empty(), "plot {id}: the legend covers {:?}", geometry.covered_points());
        assert!(
            geometry.vertical_lines().is_empty(),
            "plot {id}: a line of one x value {:?}",
            geometry.vertical_lines()
        );
        let drawn = geometry.points.len() + geometry.bars.len() + geometry.lines.len();
        assert!(drawn > 0 || svg_has_boxes(&plots, id), "plot {id} draws no data");
    }
    plots.len()
}

fn svg_has_boxes(plots: &[(String, PlotGeometry, String)], id: &str) -> bool {
    plots.iter().any(|(i, _, svg)| i == id && svg.contains("<rect") && svg.contains("<circle"))
}

/// The text of every `<text>` element of an SVG, trimmed (tick labels, titles, legend).
pub(crate) fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest))
        .map(|t| t[..t.find('<').unwrap_or(t.len())].trim().to_owned())
        .collect()
}

/// Lays the page out at every width in [`WIDTHS`]: nothing overflows; returns the tables
/// whose wrapper scrolls at each width.
pub(crate) fn check_layout(chromium: &str, page: &Path) -> Vec<Vec<String>> {
    WIDTHS
        .iter()
        .map(|&width| {
            let layout = layout(chromium, page, width);
            assert!(layout.overflow.is_empty(), "{} at {width} px: {}", page.display(), layout.overflow);
            layout.scrolling
        })
        .collect()
}
