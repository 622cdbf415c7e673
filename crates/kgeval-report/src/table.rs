//! A minimal table builder shared by the text and Markdown renderers.

/// Rows of cells under a header; numeric columns are right-aligned.
///
/// ```
/// use kgeval_report::Table;
/// let mut t = Table::new(&["pair", "F1"], &[false, true]);
/// t.row(vec!["a".into(), "0.5".into()]);
/// assert_eq!(t.to_text(), "pair   F1\na     0.5\n");
/// assert!(t.to_markdown().starts_with("| pair | F1 |\n|---|---:|\n"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Table {
    header: Vec<String>,
    numeric: Vec<bool>,
    markup: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column names; `numeric[i]` right-aligns column `i`.
    #[must_use]
    pub fn new(header: &[&str], numeric: &[bool]) -> Self {
        Self {
            header: header.iter().map(|h| (*h).to_owned()).collect(),
            numeric: (0..header.len()).map(|i| numeric.get(i).copied().unwrap_or(false)).collect(),
            markup: vec![false; header.len()],
            rows: Vec::new(),
        }
    }

    /// Marks column `column` as Markdown the renderer wrote itself (a mean with its
    /// `<sup>` letters): [`Table::to_markdown`] prints its cells as they are. Never for a
    /// column that holds user text.
    #[must_use]
    pub fn with_markup_column(mut self, column: usize) -> Self {
        if let Some(flag) = self.markup.get_mut(column) {
            *flag = true;
        }
        self
    }

    /// Adds a row (missing cells are empty, extra cells are dropped).
    pub fn row(&mut self, mut cells: Vec<String>) {
        cells.resize(self.header.len(), String::new());
        self.rows.push(cells);
    }

    /// Whether no row was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Comma-separated values, the header first, fields quoted where CSV needs it.
    #[must_use]
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        for cells in std::iter::once(&self.header).chain(&self.rows) {
            let fields: Vec<String> = cells.iter().map(|c| crate::common::csv_field(c)).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }

    /// Space-aligned columns, two spaces apart, no trailing spaces; every cell through
    /// [`crate::text_field`] (a line break, a tab or an escape in a name is printed escaped).
    ///
    /// ```
    /// use kgeval_report::Table;
    /// let mut t = Table::new(&["system"], &[false]);
    /// t.row(vec!["a\nb\x1b[31m".into()]);
    /// assert_eq!(t.to_text(), "system\na\\nb\\u{1b}[31m\n");
    /// ```
    #[must_use]
    pub fn to_text(&self) -> String {
        let escaped: Vec<Vec<String>> = std::iter::once(&self.header)
            .chain(&self.rows)
            .map(|cells| cells.iter().map(|c| crate::text_field(c).into_owned()).collect())
            .collect();
        let (header, rows) = escaped.split_first().map_or((&[][..], &[][..]), |(h, r)| (&h[..], r));
        let widths: Vec<usize> = (0..self.header.len())
            .map(|i| {
                std::iter::once(&header[i])
                    .chain(rows.iter().map(|r| &r[i]))
                    .map(|c| c.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for cells in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
            let mut line = String::new();
            for (i, cell) in cells.iter().enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                let pad = widths[i] - cell.chars().count();
                if self.numeric[i] {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// A GitHub-flavoured Markdown table, every cell through [`crate::escape_markdown`] (a
    /// `|`, a newline or HTML in a name cannot break the table or reach the page).
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let line = |cells: &[String]| {
            let escaped: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| if self.markup[i] { c.clone() } else { crate::escape_markdown(c) })
                .collect();
            format!("| {} |\n", escaped.join(" | "))
        };
        let header: Vec<String> = self.header.iter().map(|h| crate::escape_markdown(h)).collect();
        out.push_str(&format!("| {} |\n", header.join(" | ")));
        let rule: Vec<&str> = self.numeric.iter().map(|&n| if n { "---:" } else { "---" }).collect();
        out.push_str(&format!("|{}|\n", rule.join("|")));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}
