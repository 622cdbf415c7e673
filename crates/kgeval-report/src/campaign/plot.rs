//! SVG plots with plotters' SVG backend: axis labels with units, a legend, the Okabe–Ito
//! palette, a `<title>` and an aria label on every plot.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Plot, PlotKind, Series, PALETTE};

/// Series with at most this many points show every point as a dot.
const SHORT_SERIES: usize = 20;

/// Width and height of every plot, in SVG user units (pixels).
pub const PLOT_SIZE: (u32, u32) = (760, 420);

/// The plot as a standalone SVG element: `role="img"`, `aria-labelledby` its `<title>`.
///
/// ```
/// use kgeval_report::campaign::{Plot, PlotKind, Series, render_plot_svg};
/// let plot = Plot {
///     id: "t-curve".into(),
///     title: "F1 vs threshold".into(),
///     x_label: "confidence threshold".into(),
///     y_label: "score (0–1)".into(),
///     kind: PlotKind::Lines,
///     series: vec![Series { name: "F1".into(), points: vec![(0.0, 0.5), (1.0, 0.7)] }],
///     markers: Vec::new(),
/// };
/// let svg = render_plot_svg(&plot);
/// assert!(svg.starts_with("<svg role=\"img\" aria-labelledby=\"t-curve-title\""));
/// assert!(svg.contains("<title id=\"t-curve-title\">F1 vs threshold</title>"));
/// assert!(svg.contains("confidence threshold"));
/// ```
#[must_use]
pub fn render_plot_svg(plot: &Plot) -> String {
    let mut svg = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, PLOT_SIZE).into_drawing_area();
        draw(&root, plot).and_then(|()| root.present().map_err(|e| e.to_string()))
    };
    if let Err(error) = drawn {
        svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"40\"><text x=\"4\" y=\"20\">plot failed: {}</text></svg>",
            PLOT_SIZE.0,
            xml_escape(&error)
        );
    }
    let title_id = format!("{}-title", plot.id);
    let svg = svg.replacen("<svg ", &format!("<svg role=\"img\" aria-labelledby=\"{}\" ", xml_escape(&title_id)), 1);
    match svg.find('>') {
        Some(end) => format!(
            "{}<title id=\"{}\">{}</title>{}",
            &svg[..=end],
            xml_escape(&title_id),
            xml_escape(&plot.title),
            &svg[end + 1..]
        ),
        None => svg,
    }
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn colour(index: usize) -> RGBColor {
    let (r, g, b) = PALETTE[index % PALETTE.len()];
    RGBColor(r, g, b)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

fn draw(root: &Area<'_>, plot: &Plot) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    match &plot.kind {
        PlotKind::Lines => lines(root, plot),
        PlotKind::Bars { categories } => bars(root, plot, categories),
        PlotKind::Boxes => boxes(root, plot),
    }
}

/// `(min, max)` with room; with `unit`, values in [0, 1] get the whole unit interval; without,
/// values in [0, 1] spread over more than half of it do.
fn range(values: impl Iterator<Item = f64>, unit: bool) -> (f64, f64) {
    let (lo, hi) =
        values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if lo >= 0.0 && hi <= 1.0 && (unit || hi - lo > 0.5) {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        return (lo - 0.5, hi + 0.5);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

fn lines(root: &Area<'_>, plot: &Plot) -> Result<(), String> {
    let xs = plot.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).chain(plot.markers.iter().map(|m| m.x));
    let (x0, x1) = range(xs, false);
    let (y0, y1) = range(plot.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)), true);
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(52)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(plot.x_label.as_str())
        .y_desc(plot.y_label.as_str())
        .light_line_style(RGBColor(240, 240, 240))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, series) in plot.series.iter().enumerate() {
        let style = colour(i).stroke_width(2);
        let points = series.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite());
        // Short series and, past the palette, repeated colours get a dot on every point.
        let point_size = if i >= PALETTE.len() || series.points.len() <= SHORT_SERIES { 3 } else { 0 };
        chart
            .draw_series(LineSeries::new(points, style).point_size(point_size))
            .map_err(|e| e.to_string())?
            .label(series.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    for (i, marker) in plot.markers.iter().enumerate() {
        // Markers in black, then the palette backwards: never the first series' colour.
        let style = colour(PALETTE.len() - 1 - i % PALETTE.len()).stroke_width(1);
        chart
            .draw_series(DashedLineSeries::new(vec![(marker.x, y0), (marker.x, y1)], 4, 4, style))
            .map_err(|e| e.to_string())?
            .label(marker.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 6, y), (x + 12, y)], style));
    }
    legend(&mut chart, SeriesLabelPosition::LowerLeft)
}

/// The legend box of every plot, at `position`.
fn legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, position: SeriesLabelPosition) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(120, 120, 120))
        .draw()
        .map_err(|e| e.to_string())
}

fn bars(root: &Area<'_>, plot: &Plot, categories: &[String]) -> Result<(), String> {
    // Headroom above the tallest bar for the legend in the upper right corner.
    let (_, y1) = range(plot.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)), true);
    let y1 = y1 * 1.25;
    let y0 = 0.0_f64.min(plot.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0, f64::min));
    let mut chart = categorical_chart(root, plot, categories, (y0, y1))?;
    let groups = plot.series.len().max(1) as f64;
    let width = 0.8 / groups;
    for (j, series) in plot.series.iter().enumerate() {
        let fill = colour(j).filled();
        let left = -0.4 + width * j as f64;
        let rects = series
            .points
            .iter()
            .filter(|p| p.1.is_finite())
            .map(move |&(x, y)| Rectangle::new([(x + left, 0.0), (x + left + width * 0.92, y)], fill));
        chart
            .draw_series(rects)
            .map_err(|e| e.to_string())?
            .label(series.name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], fill));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// A chart with one slot per category on the x axis (bars, boxes), the category names as tick
/// labels, and the plot's axis labels.
fn categorical_chart<'a, 'b: 'a>(
    root: &'a Area<'b>,
    plot: &Plot,
    categories: &[String],
    (y0, y1): (f64, f64),
) -> Result<Chart<'a, 'b>, String> {
    let n = categories.len().max(1);
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(52)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), y0..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                categories.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_desc(plot.x_label.as_str())
        .y_desc(plot.y_label.as_str())
        .light_line_style(RGBColor(240, 240, 240))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
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

fn boxes(root: &Area<'_>, plot: &Plot) -> Result<(), String> {
    let (y0, y1) = range(plot.series.iter().flat_map(|s| s.points.iter().map(|p| p.1)), true);
    let names: Vec<String> = plot.series.iter().map(|s| s.name.clone()).collect();
    let mut chart = categorical_chart(root, plot, &names, (y0, y1))?;
    for (i, series) in plot.series.iter().enumerate() {
        draw_box(&mut chart, i, series)?;
    }
    Ok(())
}

/// A box (quartiles), a median line, whiskers to min and max, and every value as a dot.
fn draw_box<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, i: usize, series: &Series) -> Result<(), String> {
    let mut values: Vec<f64> = series.points.iter().map(|p| p.1).filter(|v| v.is_finite()).collect();
    if values.is_empty() {
        return Ok(());
    }
    values.sort_by(f64::total_cmp);
    let x = i as f64;
    let [min, q1, median, q3, max] = [0.0, 0.25, 0.5, 0.75, 1.0].map(|q| quantile(&values, q));
    let c = colour(i);
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
    let dots = values
        .iter()
        .enumerate()
        .map(|(k, &v)| Circle::new((x - 0.18 + 0.36 * k as f64 / (count - 1.0), v), 2, c.mix(0.7).filled()));
    chart.draw_series(dots).map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_as_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.25), 1.75);
        assert_eq!(quantile(&v, 1.0), 4.0);
    }

    #[test]
    fn ranges_pad_or_take_the_unit_interval() {
        assert_eq!(range([0.2, 0.9].into_iter(), true), (0.0, 1.0));
        assert_eq!(range([3.0, 3.0].into_iter(), true), (2.5, 3.5));
        let (lo, hi) = range([0.0, 10.0].into_iter(), true);
        assert!((lo + 0.5).abs() < 1e-12 && (hi - 10.5).abs() < 1e-12);
        assert_eq!(range(std::iter::empty(), true), (0.0, 1.0));
        assert_eq!(range([1.0].into_iter(), false), (0.5, 1.5));
        assert_eq!(range([0.1, 0.9].into_iter(), false), (0.0, 1.0));
        let (lo, hi) = range([0.6, 0.8].into_iter(), false);
        assert!((lo - 0.59).abs() < 1e-12 && (hi - 0.81).abs() < 1e-12);
    }

    #[test]
    fn every_kind_draws_with_title_and_legend() {
        let series = vec![
            Series { name: "A & B".into(), points: vec![(0.0, 0.2), (1.0, 0.4)] },
            Series { name: "C".into(), points: vec![(0.0, 0.6), (1.0, 0.1)] },
        ];
        for kind in [PlotKind::Lines, PlotKind::Bars { categories: vec!["1-1".into(), "N-M".into()] }, PlotKind::Boxes]
        {
            let plot = Plot {
                id: "p".into(),
                title: "x < y".into(),
                x_label: "x (unit)".into(),
                y_label: "y".into(),
                kind,
                series: series.clone(),
                markers: vec![super::super::Marker { label: "best".into(), x: 0.5 }],
            };
            let svg = render_plot_svg(&plot);
            assert!(svg.contains("<title id=\"p-title\">x &lt; y</title>"), "{svg}");
            assert!(svg.contains("x (unit)"), "{svg}");
            assert!(!svg.contains("plot failed"), "{svg}");
            assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
        }
    }
}
