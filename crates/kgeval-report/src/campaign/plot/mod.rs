//! SVG plots: plotters' SVG backend draws the axes, the grid and the box plots; the marks
//! (lines, markers, bars, vertical markers) and the legend are written over them as SVG with
//! classes (`marks.rs`). The legend sits under the data area, never over a data point; axes
//! keep the view's bounds, integer ticks and log scale (`axes.rs`). A `<title>` and an aria
//! label on every plot; the Okabe–Ito palette with marker shapes and dash patterns.

mod axes;
mod geometry;
mod marks;
mod view;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use axes::Scale;
pub use geometry::{PlotGeometry, Rect};
use marks::{Entry, Legend};
pub use view::{Axis, Marker, Panel, Plot, PlotKind, Series, PALETTE};

/// Series with at most this many points show every point as a marker; longer ones show
/// about a dozen, staggered by series so that coincident series keep theirs apart.
const SHORT_SERIES: usize = 20;

/// Width and height of the data part of a plot of one panel, in SVG user units (pixels); the
/// legend adds its height below.
pub const PLOT_SIZE: (u32, u32) = (760, 400);

/// The width of one panel of small multiples, the widest such plot, and their data height.
const PANEL_WIDTH: u32 = 330;
const PANELS_MAX_WIDTH: u32 = 1040;
const PANELS_HEIGHT: u32 = 330;

/// The plot as a standalone SVG element: `role="img"`, `aria-labelledby` its `<title>`.
///
/// ```
/// use kgeval_report::campaign::{Plot, PlotKind, Series, render_plot_svg};
/// let mut plot = Plot::new(
///     "t-curve".into(),
///     "F1 vs threshold".into(),
///     ("confidence threshold".into(), "score (0–1)".into()),
///     PlotKind::Lines,
/// );
/// plot.series = vec![Series { name: "F1".into(), points: vec![(0.0, 0.5), (1.0, 0.7)] }];
/// let svg = render_plot_svg(&plot);
/// assert!(svg.starts_with("<svg role=\"img\" aria-labelledby=\"t-curve-title\""));
/// assert!(svg.contains("<title id=\"t-curve-title\">F1 vs threshold</title>"));
/// assert!(svg.contains("confidence threshold"));
/// assert!(svg.contains("<rect class=\"legend-box\""));
/// ```
#[must_use]
pub fn render_plot_svg(plot: &Plot) -> String {
    let panels = plot.drawn_panels();
    let (width, data_height) = if plot.panels.is_empty() {
        PLOT_SIZE
    } else {
        ((PANEL_WIDTH * panels.len() as u32).clamp(PLOT_SIZE.0, PANELS_MAX_WIDTH), PANELS_HEIGHT)
    };
    let legend = Legend::new(legend_entries(plot, &panels), width as i32 - 24);
    let height = data_height + if legend.height > 0 { legend.height as u32 + 12 } else { 0 };
    let mut svg = String::new();
    let mut marks = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let (top, _) = root.split_vertically(data_height);
        draw(&top, plot, &panels, &mut marks).and_then(|()| root.present().map_err(|e| e.to_string()))
    };
    if let Err(error) = drawn {
        svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"40\"><text x=\"4\" y=\"20\">plot failed: {}</text></svg>",
            marks::xml_escape(&error)
        );
    } else {
        marks.push_str(&legend.svg(12, data_height as i32 + 4));
        if let Some(end) = svg.rfind("</svg>") {
            svg.insert_str(end, &marks);
        }
    }
    let title_id = format!("{}-title", plot.id);
    let svg =
        svg.replacen("<svg ", &format!("<svg role=\"img\" aria-labelledby=\"{}\" ", marks::xml_escape(&title_id)), 1);
    match svg.find('>') {
        Some(end) => format!(
            "{}<title id=\"{}\">{}</title>{}",
            &svg[..=end],
            marks::xml_escape(&title_id),
            marks::xml_escape(&plot.title),
            &svg[end + 1..]
        ),
        None => svg,
    }
}

/// The legend: the first panel's series (every panel has the same) but those with no point
/// in any panel, then every marker.
fn legend_entries(plot: &Plot, panels: &[Panel]) -> Vec<Entry> {
    let Some(first) = panels.first() else { return Vec::new() };
    let drawn = |i: usize| panels.iter().any(|p| p.series.get(i).is_some_and(|s| !s.points.is_empty()));
    let mut entries: Vec<Entry> = match plot.kind {
        PlotKind::Boxes => Vec::new(),
        PlotKind::Lines => first
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if panels.iter().any(|p| p.series.get(i).is_some_and(|s| distinct_xs(&s.points) > 1)) {
                    Entry::Line(i, s.name.clone())
                } else {
                    Entry::Point(i, s.name.clone())
                }
            })
            .collect(),
        PlotKind::Scatter | PlotKind::Dots { .. } => {
            first.series.iter().enumerate().map(|(i, s)| Entry::Point(i, s.name.clone())).collect()
        }
        PlotKind::Bars { .. } => first.series.iter().enumerate().map(|(i, s)| Entry::Bar(i, s.name.clone())).collect(),
    };
    entries.retain(|e| e.series().is_none_or(drawn));
    let mut labels: Vec<&str> = Vec::new();
    for marker in panels.iter().flat_map(|p| &p.markers) {
        if !labels.contains(&marker.label.as_str()) {
            entries.push(Entry::Marker(labels.len(), marker.label.clone()));
            labels.push(&marker.label);
        }
    }
    entries
}

/// How many different finite x values `points` has.
fn distinct_xs(points: &[(f64, f64)]) -> usize {
    let mut xs: Vec<f64> = points.iter().map(|p| p.0).filter(|x| x.is_finite()).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs.len()
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

fn draw(area: &Area<'_>, plot: &Plot, panels: &[Panel], marks: &mut String) -> Result<(), String> {
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let ys = Scale::new(&plot.y_axis, panels.iter().flat_map(|p| &p.series).flat_map(|s| s.points.iter().map(|p| p.1)));
    let xs = Scale::new(
        &plot.x_axis,
        panels.iter().flat_map(|p| {
            p.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).chain(p.markers.iter().map(|m| m.x))
        }),
    );
    let areas = area.split_evenly((1, panels.len().max(1)));
    for (n, (panel, area)) in panels.iter().zip(&areas).enumerate() {
        let labels = Labels { x: &plot.x_label, y: if n == 0 { &plot.y_label } else { "" }, title: &panel.title };
        match &plot.kind {
            PlotKind::Lines | PlotKind::Scatter => {
                let chart = numeric_chart(area, &labels, &xs, &ys)?;
                numeric_marks(&chart, &plot.kind, panel, (&xs, &ys), marks);
            }
            PlotKind::Bars { categories } => {
                let ys = Scale::new(
                    &plot.y_axis,
                    panel.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain([0.0]),
                );
                let chart = categorical_chart(area, &labels, categories, &ys)?;
                bars(&chart, panel, &ys, marks);
            }
            PlotKind::Dots { categories } => {
                let chart = categorical_chart(area, &labels, categories, &ys)?;
                dots(&chart, panel, &ys, marks);
            }
            PlotKind::Boxes => {
                let names: Vec<String> = panel.series.iter().map(|s| s.name.clone()).collect();
                let mut chart = categorical_chart(area, &labels, &names, &ys)?;
                for (i, series) in panel.series.iter().enumerate() {
                    let intervals = plot.intervals.get(i).filter(|v| v.len() == series.points.len());
                    draw_box(&mut chart, i, series, intervals.map(Vec::as_slice), &ys)?;
                }
            }
        }
    }
    Ok(())
}

/// A panel's axis labels and title.
struct Labels<'a> {
    x: &'a str,
    y: &'a str,
    title: &'a str,
}

fn numeric_chart<'a, 'b: 'a>(
    area: &'a Area<'b>,
    labels: &Labels<'_>,
    xs: &Scale,
    ys: &Scale,
) -> Result<Chart<'a, 'b>, String> {
    let mut builder = ChartBuilder::on(area);
    builder.margin(12).x_label_area_size(46).y_label_area_size(if labels.y.is_empty() { 44 } else { 70 });
    if !labels.title.is_empty() {
        builder.caption(labels.title, ("sans-serif", 15));
    }
    let mut chart = builder.build_cartesian_2d(xs.lo..xs.hi, ys.lo..ys.hi).map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_labels(xs.ticks())
        .y_labels(ys.ticks())
        .x_label_formatter(&|v: &f64| xs.label(*v))
        .y_label_formatter(&|v: &f64| ys.label(*v))
        .x_desc(labels.x)
        .y_desc(labels.y)
        .light_line_style(RGBColor(240, 240, 240))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

/// Lines (a series of one x value: markers only) or a scatter, and the vertical markers.
fn numeric_marks(chart: &Chart<'_, '_>, kind: &PlotKind, panel: &Panel, (xs, ys): (&Scale, &Scale), out: &mut String) {
    let pixel = |(x, y): (f64, f64)| chart.backend_coord(&(xs.map(x), ys.map(y)));
    let count = panel.series.len().max(1);
    let mut shown: Vec<(usize, (i32, i32), i32)> = Vec::new();
    for (i, series) in panel.series.iter().enumerate() {
        let points: Vec<(i32, i32)> =
            series.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).map(pixel).collect();
        let as_line = matches!(kind, PlotKind::Lines) && distinct_xs(&series.points) > 1;
        if as_line {
            out.push_str(&marks::line(i, &points, "series"));
        }
        let step = if !as_line || points.len() <= SHORT_SERIES { 1 } else { points.len().div_ceil(12) };
        let offset = i * step / count;
        for (k, &p) in points.iter().enumerate() {
            if k % step == offset % step {
                shown.push((i, p, if as_line { 4 } else { 5 }));
            }
        }
    }
    nest(&mut shown);
    for &(i, p, r) in &shown {
        out.push_str(&marks::point(i, p, r, "point"));
    }
    let (top, bottom) = (pixel((xs.lo, ys.hi)).1, pixel((xs.lo, ys.lo)).1);
    for (j, marker) in panel.markers.iter().enumerate() {
        let x = chart.backend_coord(&(xs.map(marker.x), ys.lo)).0;
        out.push_str(&marks::marker_line(j, x, (top, bottom)));
    }
}

/// Markers on (nearly) the same spot, drawn in order, as nested rings: each grows by 2
/// pixels for every later marker within 3 pixels of it, so that none hides another.
fn nest(shown: &mut [(usize, (i32, i32), i32)]) {
    for k in (0..shown.len()).rev() {
        let (i, (x, y), r) = shown[k];
        let above = shown[k + 1..]
            .iter()
            .filter(|&&(j, (u, v), _)| j != i && (u - x).abs() <= 3 && (v - y).abs() <= 3)
            .map(|&(_, _, s)| s)
            .max();
        if let Some(s) = above {
            shown[k].2 = r.max(s + 2);
        }
    }
}

/// A chart with one slot per category on the x axis (bars, dots, boxes), the category names
/// as tick labels, and the plot's axis labels.
fn categorical_chart<'a, 'b: 'a>(
    area: &'a Area<'b>,
    labels: &Labels<'_>,
    categories: &[String],
    ys: &Scale,
) -> Result<Chart<'a, 'b>, String> {
    let n = categories.len().max(1);
    let mut builder = ChartBuilder::on(area);
    builder.margin(12).x_label_area_size(46).y_label_area_size(70);
    if !labels.title.is_empty() {
        builder.caption(labels.title, ("sans-serif", 15));
    }
    let mut chart = builder.build_cartesian_2d(-0.5..(n as f64 - 0.5), ys.lo..ys.hi).map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .y_labels(ys.ticks())
        .x_label_formatter(&|x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                categories.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v: &f64| ys.label(*v))
        .x_desc(labels.x)
        .y_desc(labels.y)
        .light_line_style(RGBColor(240, 240, 240))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

fn bars(chart: &Chart<'_, '_>, panel: &Panel, ys: &Scale, out: &mut String) {
    let width = 0.8 / panel.series.len().max(1) as f64;
    let base = ys.map(0.0);
    for (j, series) in panel.series.iter().enumerate() {
        let left = -0.4 + width * j as f64;
        for &(x, y) in series.points.iter().filter(|p| p.1.is_finite()) {
            let a = chart.backend_coord(&(x + left, base));
            let b = chart.backend_coord(&(x + left + width * 0.92, ys.map(y)));
            out.push_str(&marks::bar(j, a, b, "bar"));
        }
    }
}

/// One marker per point at its category; series sharing a category side by side.
fn dots(chart: &Chart<'_, '_>, panel: &Panel, ys: &Scale, out: &mut String) {
    let mut shown: Vec<(usize, (i32, i32), i32)> = Vec::new();
    for (i, series) in panel.series.iter().enumerate() {
        for &(x, y) in series.points.iter().filter(|p| p.1.is_finite()) {
            // Series sharing this category, and this one's place among them.
            let sharing: Vec<usize> = (0..panel.series.len())
                .filter(|&j| panel.series[j].points.iter().any(|q| (q.0 - x).abs() < 1e-9))
                .collect();
            let place = sharing.iter().position(|&j| j == i).unwrap_or(0) as f64;
            let shift = if sharing.len() > 1 { -0.2 + 0.4 * place / (sharing.len() - 1) as f64 } else { 0.0 };
            shown.push((i, chart.backend_coord(&(x + shift, ys.map(y))), 6));
        }
    }
    nest(&mut shown);
    for &(i, p, r) in &shown {
        out.push_str(&marks::point(i, p, r, "point"));
    }
}

/// The q-quantile with linear interpolation between closest ranks (numpy's default).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let position = q * (sorted.len() - 1) as f64;
    let lower = position.floor() as usize;
    let upper = position.ceil() as usize;
    sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower as f64)
}

/// A box (quartiles), a median line, whiskers to min and max, and every value as a dot.
fn draw_box<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    i: usize,
    series: &Series,
    intervals: Option<&[(f64, f64)]>,
    ys: &Scale,
) -> Result<(), String> {
    // Each finite value with its interval (itself when none), sorted by value.
    let mut dotted: Vec<(f64, (f64, f64))> = series
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.1.is_finite())
        .map(|(k, p)| {
            let (low, high) = intervals.map_or((p.1, p.1), |v| v[k]);
            (ys.map(p.1), (ys.map(low), ys.map(high)))
        })
        .collect();
    dotted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let values: Vec<f64> = dotted.iter().map(|d| d.0).collect();
    if values.is_empty() {
        return Ok(());
    }
    let x = i as f64;
    let [min, q1, median, q3, max] = [0.0, 0.25, 0.5, 0.75, 1.0].map(|q| quantile(&values, q));
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    let c = RGBColor(r, g, b);
    let err = |e: DrawingAreaErrorKind<_>| e.to_string();
    chart.draw_series([Rectangle::new([(x - 0.25, q1), (x + 0.25, q3)], c.mix(0.25).filled())]).map_err(err)?;
    chart.draw_series([Rectangle::new([(x - 0.25, q1), (x + 0.25, q3)], c.stroke_width(2))]).map_err(err)?;
    chart
        .draw_series([
            PathElement::new(vec![(x, q3), (x, max)], c.stroke_width(1)),
            PathElement::new(vec![(x, q1), (x, min)], c.stroke_width(1)),
            PathElement::new(vec![(x - 0.1, max), (x + 0.1, max)], c.stroke_width(1)),
            PathElement::new(vec![(x - 0.1, min), (x + 0.1, min)], c.stroke_width(1)),
        ])
        .map_err(err)?;
    chart
        .draw_series([PathElement::new(vec![(x - 0.25, median), (x + 0.25, median)], BLACK.stroke_width(2))])
        .map_err(err)?;
    let count = values.len().max(2) as f64;
    // Spread the dots over the box's width so that equal values stay visible.
    let at = |k: usize| x - 0.18 + 0.36 * k as f64 / (count - 1.0);
    // A topic's range over tie orders: a thin bar through its dot.
    let bars = dotted
        .iter()
        .enumerate()
        .filter(|(_, d)| d.1 .0 < d.1 .1)
        .map(|(k, d)| PathElement::new(vec![(at(k), d.1 .0), (at(k), d.1 .1)], BLACK.mix(0.55).stroke_width(1)));
    chart.draw_series(bars).map_err(err)?;
    let dots = values.iter().enumerate().map(|(k, &v)| Circle::new((at(k), v), 2, c.mix(0.7).filled()));
    chart.draw_series(dots).map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests;
