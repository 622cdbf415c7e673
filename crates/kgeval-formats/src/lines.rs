//! The lines of a UTF-8 input with their 1-based numbers and byte offsets, shared by the
//! line-oriented readers (ranking submissions, KGC files). Each family adds its own cell or
//! field splitting as inherent methods on [`Line`].

/// One line of the input, without its line ending.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    /// The 1-based line number.
    pub(crate) number: u32,
    /// The byte offset of the line's first byte in the input.
    pub(crate) offset: usize,
    /// The line's text.
    pub(crate) text: &'a str,
}

impl Line<'_> {
    /// Whether the line holds only whitespace.
    pub(crate) fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// The lines of `text`: a leading byte-order mark skipped (offsets stay file offsets), `\n`
/// and `\r\n` endings trimmed, blank lines included, a last line without ending included.
pub(crate) fn lines(text: &str) -> Lines<'_> {
    let pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
    Lines { text, pos, number: 0 }
}

/// The iterator of [`lines`].
pub(crate) struct Lines<'a> {
    text: &'a str,
    pos: usize,
    number: u32,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.pos..];
        let (content, advance) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(end) => (&rest[..end], end + 1),
            None => (rest, rest.len()),
        };
        let content = content.strip_suffix('\r').unwrap_or(content);
        self.number = self.number.saturating_add(1);
        let line = Line { number: self.number, offset: self.pos, text: content };
        self.pos += advance;
        Some(line)
    }
}
