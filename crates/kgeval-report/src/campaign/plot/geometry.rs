//! The geometry of a rendered plot, read back from its SVG (as written, or as a browser
//! serialises it): the legend box, every data marker, bar and line. Checks use it to show
//! that no legend covers a data point and that no series of one x value is drawn as a line.

/// An axis-aligned rectangle in SVG user units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    /// Whether the two rectangles share more than an edge.
    #[must_use]
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

/// What [`PlotGeometry::read`] finds in one plot's SVG.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlotGeometry {
    /// The legend's box, when the plot has a legend.
    pub legend: Option<Rect>,
    /// The bounding box of every data marker (`class="point"`).
    pub points: Vec<Rect>,
    /// Every bar (`class="bar"`).
    pub bars: Vec<Rect>,
    /// The vertices of every data line (`class="series"`).
    pub lines: Vec<Vec<(f64, f64)>>,
}

impl PlotGeometry {
    /// The geometry of the first plot in `svg` (the text from its `<svg` to its `</svg>`).
    ///
    /// ```
    /// use kgeval_report::campaign::{render_plot_svg, Plot, PlotGeometry, PlotKind, Series};
    /// let mut plot = Plot::new("p".into(), "P".into(), ("x".into(), "y".into()), PlotKind::Lines);
    /// plot.series = vec![Series { name: "a".into(), points: vec![(0.0, 0.0), (1.0, 1.0)] }];
    /// let geometry = PlotGeometry::read(&render_plot_svg(&plot));
    /// assert_eq!(geometry.lines.len(), 1);
    /// assert!(geometry.legend.is_some() && geometry.covered_points().is_empty());
    /// ```
    #[must_use]
    pub fn read(svg: &str) -> PlotGeometry {
        let end = svg.find("</svg>").map_or(svg.len(), |e| e + 6);
        let svg = &svg[..end];
        let mut geometry = PlotGeometry::default();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let after = &rest[start + 1..];
            let close = after.find('>').unwrap_or(after.len());
            let tag = &after[..close];
            rest = &after[close..];
            let name = tag.split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or("");
            let class = attribute(tag, "class").unwrap_or_default();
            let number = |key: &str| attribute(tag, key).and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(0.0);
            let rect = || Rect { x: number("x"), y: number("y"), width: number("width"), height: number("height") };
            match (name, class.as_str()) {
                ("rect", "legend-box") => geometry.legend = Some(rect()),
                ("rect", "bar") => geometry.bars.push(rect()),
                ("circle", "point") => {
                    let r = number("r");
                    geometry.points.push(Rect {
                        x: number("cx") - r,
                        y: number("cy") - r,
                        width: 2.0 * r,
                        height: 2.0 * r,
                    });
                }
                ("path", "point") => {
                    if let Some(bounds) = bounding_box(&numbers(&attribute(tag, "d").unwrap_or_default())) {
                        geometry.points.push(bounds);
                    }
                }
                ("polyline", "series") => geometry.lines.push(numbers(&attribute(tag, "points").unwrap_or_default())),
                _ => {}
            }
        }
        geometry
    }

    /// The data markers, bars and line vertices the legend box covers (none: the legend hides
    /// no data).
    #[must_use]
    pub fn covered_points(&self) -> Vec<Rect> {
        let Some(legend) = self.legend else { return Vec::new() };
        let vertices = self.lines.iter().flatten().map(|&(x, y)| Rect { x, y, width: 0.0, height: 0.0 });
        self.points
            .iter()
            .chain(&self.bars)
            .copied()
            .chain(vertices)
            .filter(|r| {
                if r.width == 0.0 && r.height == 0.0 {
                    legend.x <= r.x
                        && r.x <= legend.x + legend.width
                        && legend.y <= r.y
                        && r.y <= legend.y + legend.height
                } else {
                    legend.overlaps(r)
                }
            })
            .collect()
    }

    /// The data lines whose vertices all share one x (a "curve" of one x value drawn as a
    /// line).
    #[must_use]
    pub fn vertical_lines(&self) -> Vec<&[(f64, f64)]> {
        self.lines
            .iter()
            .filter(|line| line.len() > 1 && line.iter().all(|p| (p.0 - line[0].0).abs() < 1e-9))
            .map(Vec::as_slice)
            .collect()
    }
}

/// The value of `key="…"` in a start tag.
fn attribute(tag: &str, key: &str) -> Option<String> {
    let mut from = 0;
    while let Some(found) = tag[from..].find(key) {
        let at = from + found;
        let before = tag[..at].chars().next_back();
        let after = &tag[at + key.len()..];
        if before.is_some_and(char::is_whitespace) && after.starts_with("=\"") {
            let value = &after[2..];
            return value.find('"').map(|end| value[..end].to_owned());
        }
        from = at + key.len();
    }
    None
}

/// The coordinate pairs in a `points` or path `d` attribute (letters and commas separate).
fn numbers(text: &str) -> Vec<(f64, f64)> {
    let values: Vec<f64> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c.is_ascii_alphabetic())
        .filter_map(|t| t.parse::<f64>().ok())
        .collect();
    values.chunks_exact(2).map(|c| (c[0], c[1])).collect()
}

fn bounding_box(points: &[(f64, f64)]) -> Option<Rect> {
    let first = points.first()?;
    let (mut x0, mut y0, mut x1, mut y1) = (first.0, first.1, first.0, first.1);
    for &(x, y) in points {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    Some(Rect { x: x0, y: y0, width: x1 - x0, height: y1 - y0 })
}
