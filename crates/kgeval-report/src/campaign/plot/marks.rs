//! The marks drawn over plotters' axes, written as SVG directly so that each carries a class
//! a reader (or a test) can find: `series` lines, `point` markers, `bar`s, `marker` lines
//! and the `legend` (its box `legend-box`). Series `i` has colour `i mod 8`, and with
//! `v = i + 2⌊i/8⌋` marker shape `v mod 6` and dash pattern `v mod 3`: coincident lines stay
//! visible (a dashed line over a solid one), and the first 24 series differ in colour or in
//! both shape and dash.

use std::fmt::Write as _;

use super::PALETTE;

/// Dash patterns, by series: solid, dashed, dotted.
const DASHES: [&str; 3] = ["", "7 4", "2 3"];

/// Marker shapes, by series.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Plus,
}

const SHAPES: [Shape; 6] =
    [Shape::Circle, Shape::Square, Shape::TriangleUp, Shape::Diamond, Shape::TriangleDown, Shape::Plus];

/// The height of a legend row and the font size of its text.
const ROW: i32 = 20;
const FONT: i32 = 13;
/// The width of a legend entry's sample (line and marker) and the gap after the text.
const SAMPLE: i32 = 34;
const GAP: i32 = 18;
/// An estimate of a character's width at [`FONT`] (sans-serif, wide enough for digits).
const CHAR_WIDTH: f64 = 7.3;

/// The shape and dash of series `i`: `i + 2⌊i/8⌋`, so that series of one colour differ.
fn variant(i: usize) -> usize {
    i + 2 * (i / PALETTE.len())
}

/// `#rrggbb` of series `i`.
pub(super) fn colour(i: usize) -> String {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// `text` escaped for an SVG attribute or text node.
pub(super) fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// What a legend entry shows.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Entry {
    /// Series `i` drawn as a line (with markers).
    Line(usize, String),
    /// Series `i` drawn as markers only.
    Point(usize, String),
    /// Series `i` drawn as bars.
    Bar(usize, String),
    /// Vertical marker `j`.
    Marker(usize, String),
}

impl Entry {
    /// The series the entry stands for (none for a marker).
    pub fn series(&self) -> Option<usize> {
        match self {
            Entry::Line(i, _) | Entry::Point(i, _) | Entry::Bar(i, _) => Some(*i),
            Entry::Marker(..) => None,
        }
    }

    fn text(&self) -> &str {
        match self {
            Entry::Line(_, t) | Entry::Point(_, t) | Entry::Bar(_, t) | Entry::Marker(_, t) => t,
        }
    }
}

/// Where a legend's entries go: columns of equal width under the plot.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Legend {
    entries: Vec<Entry>,
    columns: usize,
    column_width: i32,
    /// The characters of text an entry may show (longer ones end in `…`).
    max_chars: usize,
    /// The box's width and height (0 without entries).
    pub width: i32,
    /// The box's height.
    pub height: i32,
}

impl Legend {
    /// The legend of `entries` in a box at most `width` wide.
    pub fn new(entries: Vec<Entry>, width: i32) -> Legend {
        if entries.is_empty() {
            return Legend { entries, columns: 0, column_width: 0, max_chars: 0, width: 0, height: 0 };
        }
        let inner = width - 2 * 8;
        let max_chars = (((inner - SAMPLE - GAP) as f64) / CHAR_WIDTH).floor().max(4.0) as usize;
        let longest = entries.iter().map(|e| e.text().chars().count()).max().unwrap_or(0).min(max_chars);
        let column_width = SAMPLE + (longest as f64 * CHAR_WIDTH).ceil() as i32 + GAP;
        let columns = ((inner / column_width).max(1) as usize).min(entries.len());
        let rows = entries.len().div_ceil(columns) as i32;
        let used = (columns as i32 * column_width + 2 * 8).min(width);
        Legend { entries, columns, column_width, max_chars, width: used, height: rows * ROW + 10 }
    }

    /// The legend as SVG, its box's top left corner at `(x, y)`.
    pub fn svg(&self, x: i32, y: i32) -> String {
        let mut out = String::new();
        if self.entries.is_empty() {
            return out;
        }
        let _ = write!(
            out,
            "<g class=\"legend\"><rect class=\"legend-box\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" stroke=\"#787878\"/>",
            self.width, self.height
        );
        for (k, entry) in self.entries.iter().enumerate() {
            let ex = x + 8 + (k % self.columns) as i32 * self.column_width;
            let ey = y + 5 + (k / self.columns) as i32 * ROW + ROW / 2;
            let (a, b) = (ex + 2, ex + SAMPLE - 8);
            match entry {
                Entry::Line(i, _) => {
                    let _ = write!(out, "{}", line(*i, &[(a, ey), (b, ey)], "legend-line"));
                    let _ = write!(out, "{}", point(*i, ((a + b) / 2, ey), 4, "legend-point"));
                }
                Entry::Point(i, _) => {
                    let _ = write!(out, "{}", point(*i, ((a + b) / 2, ey), 5, "legend-point"));
                }
                Entry::Bar(i, _) => {
                    let _ = write!(out, "{}", bar(*i, (a + 4, ey - 6), (b - 4, ey + 6), "legend-bar"));
                }
                Entry::Marker(j, _) => {
                    let _ = write!(out, "{}", marker_line(*j, a, (ey, ey)));
                }
            }
            let text = entry.text();
            let shown: String = if text.chars().count() > self.max_chars {
                text.chars().take(self.max_chars.saturating_sub(1)).chain(['…']).collect()
            } else {
                text.to_owned()
            };
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{}\" font-family=\"sans-serif\" font-size=\"{FONT}\" fill=\"#1b1b1b\">{}<title>{}</title></text>",
                ex + SAMPLE - 2,
                ey + FONT / 2 - 2,
                xml_escape(&shown),
                xml_escape(text)
            );
        }
        out.push_str("</g>");
        out
    }
}

/// Series `i`'s line through `points` (pixels).
pub(super) fn line(i: usize, points: &[(i32, i32)], class: &str) -> String {
    let dash = DASHES[variant(i) % DASHES.len()];
    let dash = if dash.is_empty() { String::new() } else { format!(" stroke-dasharray=\"{dash}\"") };
    let width = if dash.is_empty() { "2.5" } else { "2" };
    let coords: Vec<String> = points.iter().map(|(x, y)| format!("{x},{y}")).collect();
    format!(
        "<polyline class=\"{class}\" data-series=\"{i}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{width}\"{dash} stroke-linejoin=\"round\" points=\"{}\"/>",
        colour(i),
        coords.join(" ")
    )
}

/// Series `i`'s marker at `(x, y)` (pixels), `r` pixels from its centre to its edge.
pub(super) fn point(i: usize, (x, y): (i32, i32), r: i32, class: &str) -> String {
    let fill = colour(i);
    let common =
        format!("class=\"{class}\" data-series=\"{i}\" fill=\"{fill}\" stroke=\"#333333\" stroke-width=\"0.6\"");
    let (x, y, r) = (f64::from(x), f64::from(y), f64::from(r));
    let path = |corners: &[(f64, f64)]| -> String {
        let d: Vec<String> = corners.iter().map(|(dx, dy)| format!("{:.1},{:.1}", x + dx * r, y + dy * r)).collect();
        format!("<path {common} d=\"M{}Z\"/>", d.join(" L"))
    };
    match SHAPES[variant(i) % SHAPES.len()] {
        Shape::Circle => format!("<circle {common} cx=\"{x}\" cy=\"{y}\" r=\"{r}\"/>"),
        Shape::Square => path(&[(-0.9, -0.9), (0.9, -0.9), (0.9, 0.9), (-0.9, 0.9)]),
        Shape::TriangleUp => path(&[(0.0, -1.25), (1.15, 0.85), (-1.15, 0.85)]),
        Shape::Diamond => path(&[(0.0, -1.3), (1.3, 0.0), (0.0, 1.3), (-1.3, 0.0)]),
        Shape::TriangleDown => path(&[(0.0, 1.25), (1.15, -0.85), (-1.15, -0.85)]),
        Shape::Plus => path(&[
            (-0.4, -1.2),
            (0.4, -1.2),
            (0.4, -0.4),
            (1.2, -0.4),
            (1.2, 0.4),
            (0.4, 0.4),
            (0.4, 1.2),
            (-0.4, 1.2),
            (-0.4, 0.4),
            (-1.2, 0.4),
            (-1.2, -0.4),
            (-0.4, -0.4),
        ]),
    }
}

/// Series `i`'s bar between two corners (pixels).
pub(super) fn bar(i: usize, (x0, y0): (i32, i32), (x1, y1): (i32, i32), class: &str) -> String {
    let (x, w) = (x0.min(x1), (x1 - x0).abs().max(1));
    let (y, h) = (y0.min(y1), (y1 - y0).abs());
    format!(
        "<rect class=\"{class}\" data-series=\"{i}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{}\"/>",
        colour(i)
    )
}

/// Vertical marker `j` at `x` from `y0` to `y1` (pixels): dashed, in black, then the
/// palette backwards (never the first series' colour).
pub(super) fn marker_line(j: usize, x: i32, (y0, y1): (i32, i32)) -> String {
    let c = colour(PALETTE.len() - 1 - j % PALETTE.len());
    if y0 == y1 {
        // The legend's sample: horizontal.
        return format!(
            "<line class=\"legend-line\" x1=\"{x}\" y1=\"{y0}\" x2=\"{}\" y2=\"{y0}\" stroke=\"{c}\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>",
            x + SAMPLE - 10
        );
    }
    format!(
        "<line class=\"marker\" x1=\"{x}\" y1=\"{y0}\" x2=\"{x}\" y2=\"{y1}\" stroke=\"{c}\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legends_wrap_into_columns_and_cut_long_names() {
        let entries: Vec<Entry> = (0..10).map(|i| Entry::Line(i, format!("metric {i}"))).collect();
        let legend = Legend::new(entries, 760);
        assert!(legend.columns > 1 && legend.width <= 760, "{legend:?}");
        assert_eq!(legend.height, (10usize.div_ceil(legend.columns) as i32) * ROW + 10);
        let long = Legend::new(vec![Entry::Point(0, "x".repeat(500))], 300);
        assert_eq!(long.columns, 1);
        assert!(long.width <= 300, "{long:?}");
        let svg = long.svg(0, 0);
        assert!(svg.contains('…') && svg.contains(&"x".repeat(500)), "{svg}");
        assert_eq!(Legend::new(Vec::new(), 300).svg(0, 0), "");
    }

    #[test]
    fn series_differ_in_colour_shape_or_dash() {
        let look = |i: usize| (colour(i), SHAPES[variant(i) % SHAPES.len()], DASHES[variant(i) % DASHES.len()]);
        for i in 0..24 {
            for j in 0..i {
                let (a, b) = (look(i), look(j));
                assert!(a.0 != b.0 || (a.1 != b.1 && a.2 != b.2), "{i} {j}");
            }
        }
        // Neighbours among the first eight (MAP and P@10 drawn one over the other) differ in
        // colour, shape and dash.
        for i in 1..8 {
            let (a, b) = (look(i), look(i - 1));
            assert!(a.0 != b.0 && a.1 != b.1 && a.2 != b.2, "{i}");
        }
    }
}
