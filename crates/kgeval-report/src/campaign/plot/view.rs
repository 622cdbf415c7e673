//! The plain plot views the facade builds: what to draw, on which axes. The facade decides
//! (which plots a result allows, an axis's bounds, integer or log scale); the renderer only
//! lays them out.

use serde::Serialize;

/// A plot: series over two numeric axes (lines, a scatter), categories (bars, dots) or value
/// distributions (box plots), in one panel or as small multiples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plot {
    /// The element id in `index.html` (unique in the page).
    pub id: String,
    /// The title (also the SVG's `<title>` and aria label).
    pub title: String,
    /// The x axis label, with its unit.
    pub x_label: String,
    /// The y axis label, with its unit.
    pub y_label: String,
    /// What is drawn.
    pub kind: PlotKind,
    /// The series: one line, one marker, one bar colour or one box each. Empty when the plot
    /// has [`Plot::panels`].
    pub series: Vec<Series>,
    /// Vertical markers (a best threshold, an oracle τ).
    pub markers: Vec<Marker>,
    /// Small multiples: one panel each, side by side, drawn as `kind` on the same axes, with
    /// one legend (series `i` of every panel has the same name and style). Empty for a plot
    /// of one panel ([`Plot::series`]).
    pub panels: Vec<Panel>,
    /// The x axis (numeric kinds only).
    pub x_axis: Axis,
    /// The y axis.
    pub y_axis: Axis,
    /// Per series of [`Plot::series`], per point, the [low, high] interval of its value (a
    /// topic's range over tie orders), drawn as an error bar on a box plot's dot; empty: none.
    pub intervals: Vec<Vec<(f64, f64)>>,
}

impl Plot {
    /// A plot of one panel with automatic axes: set the axes, markers and panels after.
    #[must_use]
    pub fn new(id: String, title: String, (x_label, y_label): (String, String), kind: PlotKind) -> Self {
        Plot {
            id,
            title,
            x_label,
            y_label,
            kind,
            series: Vec::new(),
            markers: Vec::new(),
            panels: Vec::new(),
            x_axis: Axis::AUTO,
            y_axis: Axis::AUTO,
            intervals: Vec::new(),
        }
    }

    /// The panels drawn: [`Plot::panels`], or one untitled panel of [`Plot::series`] and
    /// [`Plot::markers`].
    #[must_use]
    pub fn drawn_panels(&self) -> Vec<Panel> {
        if self.panels.is_empty() {
            vec![Panel { title: String::new(), series: self.series.clone(), markers: self.markers.clone() }]
        } else {
            self.panels.clone()
        }
    }
}

/// One panel of small multiples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Panel {
    /// The panel's title, above it (`precision`, `cmt-conference`).
    pub title: String,
    /// The series, in the legend's order.
    pub series: Vec<Series>,
    /// Vertical markers.
    pub markers: Vec<Marker>,
}

/// How a plot draws its series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum PlotKind {
    /// Lines through `(x, y)` points (a series with one x value is drawn as dots, never as a
    /// line).
    Lines,
    /// Every `(x, y)` point a marker, no line (a precision–recall scatter).
    Scatter,
    /// Grouped bars: `points[i] = (i, y)` is the series' value on `categories[i]`.
    Bars {
        /// The category labels on the x axis.
        categories: Vec<String>,
    },
    /// A dot plot: `points[i] = (i, y)` is a dot on `categories[i]` (a "curve" of one x
    /// value).
    Dots {
        /// The category labels on the x axis.
        categories: Vec<String>,
    },
    /// One box (quartiles, whiskers at min and max) per series over the `y` of its points.
    Boxes,
}

/// One series of a plot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// The points.
    pub points: Vec<(f64, f64)>,
}

/// A vertical marker at `x`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Marker {
    /// The legend entry (`best threshold of AML: 0.76`).
    pub label: String,
    /// Where.
    pub x: f64,
}

/// An axis: its range and its ticks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Axis {
    /// The range shown; `None`: the data's, with some room. Values outside are drawn at the
    /// bound.
    pub bounds: Option<(f64, f64)>,
    /// Ticks at integers only, labelled without decimals (counts, ranks, depths).
    pub integer: bool,
    /// A log10 scale (values ≤ 0 drawn at the smallest positive value shown).
    pub log: bool,
}

impl Axis {
    /// The data's range, linear, decimal ticks.
    pub const AUTO: Axis = Axis { bounds: None, integer: false, log: false };
    /// [0, 1]: a score, a rate.
    pub const UNIT: Axis = Axis { bounds: Some((0.0, 1.0)), integer: false, log: false };
    /// [−1, 1]: a correlation.
    pub const CORRELATION: Axis = Axis { bounds: Some((-1.0, 1.0)), integer: false, log: false };
    /// Integer ticks over the data's range.
    pub const INTEGER: Axis = Axis { bounds: None, integer: true, log: false };
    /// A log10 scale over the data's positive range.
    pub const LOG: Axis = Axis { bounds: None, integer: false, log: true };
}

/// Okabe–Ito, the colour-blind-safe palette (black last, for an eighth series).
pub const PALETTE: [(u8, u8, u8); 8] = [
    (0, 114, 178),   // blue
    (230, 159, 0),   // orange
    (0, 158, 115),   // bluish green
    (213, 94, 0),    // vermillion
    (86, 180, 233),  // sky blue
    (204, 121, 167), // reddish purple
    (240, 228, 66),  // yellow
    (0, 0, 0),       // black
];
