use super::*;

fn plot(kind: PlotKind, series: Vec<Series>) -> Plot {
    let mut plot = Plot::new("p".into(), "x < y".into(), ("x (unit)".into(), "y".into()), kind);
    plot.series = series;
    plot
}

fn series(name: &str, points: &[(f64, f64)]) -> Series {
    Series { name: name.into(), points: points.to_vec() }
}

/// The text of every `<text>` element.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest))
        .map(|t| t[..t.find('<').unwrap_or(t.len())].trim().to_owned())
        .collect()
}

#[test]
fn quantiles_interpolate_as_numpy() {
    let v = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(quantile(&v, 0.0), 1.0);
    assert_eq!(quantile(&v, 0.5), 2.5);
    assert_eq!(quantile(&v, 0.25), 1.75);
    assert_eq!(quantile(&v, 1.0), 4.0);
}

#[test]
fn every_kind_draws_with_title_and_legend() {
    let two = vec![series("A & B", &[(0.0, 0.2), (1.0, 0.4)]), series("C", &[(0.0, 0.6), (1.0, 0.1)])];
    let categories = vec!["1-1".to_owned(), "N-M".to_owned()];
    for kind in [
        PlotKind::Lines,
        PlotKind::Scatter,
        PlotKind::Bars { categories: categories.clone() },
        PlotKind::Dots { categories },
        PlotKind::Boxes,
    ] {
        let boxes = kind == PlotKind::Boxes;
        let mut plot = plot(kind, two.clone());
        plot.markers = vec![Marker { label: "best".into(), x: 0.5 }];
        let svg = render_plot_svg(&plot);
        assert!(svg.contains("<title id=\"p-title\">x &lt; y</title>"), "{svg}");
        assert!(svg.contains("x (unit)"), "{svg}");
        assert!(!svg.contains("plot failed"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
        assert!(svg.contains("A &amp; B") || boxes, "{svg}");
        let geometry = PlotGeometry::read(&svg);
        assert!(geometry.covered_points().is_empty(), "{:?}", plot.kind);
    }
}

/// Points in every corner of the data area and a legend of ten long entries: the legend is
/// under the data, covering none of them.
#[test]
fn the_legend_covers_no_data_point() {
    let corners = [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0), (0.5, 0.5)];
    let many: Vec<Series> = (0..10).map(|i| series(&format!("metric number {i} with a long name"), &corners)).collect();
    for kind in [PlotKind::Lines, PlotKind::Scatter] {
        let mut plot = plot(kind, many.clone());
        plot.y_axis = Axis::UNIT;
        let geometry = PlotGeometry::read(&render_plot_svg(&plot));
        let legend = geometry.legend.expect("a legend");
        assert_eq!(geometry.points.len(), 50, "every series has its markers");
        assert!(geometry.covered_points().is_empty(), "{legend:?}");
        // The lowest data point is above the legend.
        let lowest = geometry.points.iter().map(|r| r.y + r.height).fold(0.0, f64::max);
        assert!(lowest < legend.y, "{lowest} {legend:?}");
    }
}

#[test]
fn one_x_value_is_never_a_line() {
    let plot =
        plot(PlotKind::Lines, vec![series("one pair", &[(1.0, 0.3)]), series("same x", &[(2.0, 0.1), (2.0, 0.4)])]);
    let svg = render_plot_svg(&plot);
    let geometry = PlotGeometry::read(&svg);
    assert!(geometry.lines.is_empty(), "{svg}");
    assert_eq!(geometry.points.len(), 3);
    assert!(!svg.contains("class=\"legend-line\""), "the legend shows markers only: {svg}");
}

#[test]
fn integer_axes_have_integer_ticks() {
    let mut plot = plot(PlotKind::Lines, vec![series("tau", &[(0.0, 0.1), (5.0, 0.3), (10.0, 0.5)])]);
    plot.x_axis = Axis::INTEGER;
    plot.y_axis = Axis::CORRELATION;
    let labels = texts(&render_plot_svg(&plot));
    assert!(labels.iter().any(|t| t == "10") && labels.iter().any(|t| t == "0"), "{labels:?}");
    assert!(!labels.iter().any(|t| t == "10.0" || t == "2.5"), "{labels:?}");
    assert!(labels.iter().any(|t| t == "-1.0") && labels.iter().any(|t| t == "1.0"), "{labels:?}");
}

#[test]
fn bounded_axes_clamp_and_log_axes_label_decades() {
    // An out-of-range 10.0 on a unit axis: drawn at 1, the axis stays [0, 1].
    let mut bounded = plot(PlotKind::Scatter, vec![series("FCAMapX", &[(10.0, 0.5)]), series("A", &[(0.2, 0.4)])]);
    bounded.x_axis = Axis::UNIT;
    bounded.y_axis = Axis::UNIT;
    let labels = texts(&render_plot_svg(&bounded));
    assert!(labels.iter().any(|t| t == "1.0"), "{labels:?}");
    assert!(!labels.iter().any(|t| t == "1.2" || t == "2" || t == "10"), "{labels:?}");
    let mut log = plot(PlotKind::Lines, vec![series("p", &[(1.0, 3.2e-11), (2.0, 0.02), (3.0, 0.9)])]);
    log.y_axis = Axis::LOG;
    let labels = texts(&render_plot_svg(&log));
    assert!(labels.iter().any(|t| t == "1e-10") && labels.iter().any(|t| t == "0.01"), "{labels:?}");
}

#[test]
fn panels_share_one_legend() {
    let mut plot = plot(PlotKind::Lines, Vec::new());
    plot.panels = ["precision", "recall", "F-measure"]
        .iter()
        .map(|t| Panel {
            title: (*t).to_owned(),
            series: vec![series("AML", &[(0.0, 0.2), (1.0, 0.4)]), series("LogMap", &[(0.0, 0.3), (1.0, 0.5)])],
            markers: Vec::new(),
        })
        .collect();
    let svg = render_plot_svg(&plot);
    let geometry = PlotGeometry::read(&svg);
    assert_eq!(geometry.lines.len(), 6);
    assert_eq!(svg.matches("class=\"legend-box\"").count(), 1);
    let labels = texts(&svg);
    assert!(labels.iter().any(|t| t == "recall") && labels.iter().any(|t| t == "F-measure"), "{labels:?}");
    assert!(geometry.covered_points().is_empty());
}

#[test]
fn box_dots_carry_their_intervals_as_bars() {
    let points = [(0.0, 0.2), (1.0, 0.5), (2.0, 0.4)];
    let plain = plot(PlotKind::Boxes, vec![series("a", &points)]);
    let mut barred = plain.clone();
    // The second topic can be anything from 0.1 to 0.9; the others do not move.
    barred.intervals = vec![vec![(0.2, 0.2), (0.1, 0.9), (0.4, 0.4)]];
    let count = |svg: &str| svg.matches("<polyline").count();
    let (without, with) = (render_plot_svg(&plain), render_plot_svg(&barred));
    assert_eq!(count(&with), count(&without) + 1, "one bar, for the one topic that moves");
    // Intervals of another length than the points are not drawn.
    barred.intervals = vec![vec![(0.1, 0.9)]];
    assert_eq!(count(&render_plot_svg(&barred)), count(&without));
}
