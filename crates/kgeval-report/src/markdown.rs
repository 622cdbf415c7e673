//! Markdown escaping: the one function every Markdown renderer passes user strings through
//! (system, task, pair, metric and file names, titles, table cells).

/// `text` as an HTML comment line of a Markdown output (`<!-- … -->`): a `-->` inside (in a
/// path or a name) cannot close the comment early, and a line break cannot end it; flags such
/// as `--data` stay as they are.
///
/// ```
/// use kgeval_report::markdown_comment;
/// assert_eq!(markdown_comment("kgeval trec --data x"), "<!-- kgeval trec --data x -->");
/// assert_eq!(markdown_comment("runs/a-->b\nc"), "<!-- runs/a- ->b c -->");
/// ```
#[must_use]
pub fn markdown_comment(text: &str) -> String {
    let mut inner = crate::text_field(&text.replace(['\r', '\n'], " ")).into_owned();
    while inner.contains("-->") {
        inner = inner.replace("-->", "- ->");
    }
    format!("<!-- {inner} -->")
}

/// `text` made inert in Markdown, inline or in a table cell: `\`, `|` and backticks are
/// backslash-escaped, `&`, `<` and `>` become entities (no HTML reaches the page), line
/// breaks become spaces (a newline would end a table row or a heading), and any other control
/// character is written as [`crate::text_field`] writes it (`\t`, `\u{1b}`).
///
/// ```
/// use kgeval_report::escape_markdown;
/// assert_eq!(escape_markdown("a|b"), "a\\|b");
/// assert_eq!(escape_markdown("<script>x</script>"), "&lt;script&gt;x&lt;/script&gt;");
/// assert_eq!(escape_markdown("two\nlines & `code`"), "two lines &amp; \\`code\\`");
/// ```
#[must_use]
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '`' => out.push_str("\\`"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '\n' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}' => out.push(' '),
            c if crate::common::needs_escape(c) => out.extend(c.escape_debug()),
            _ => out.push(c),
        }
    }
    out
}

/// `text` as an inline code span (`` `text` ``) when that is inert — no backtick, no control
/// character: inside a code span HTML and `|` are literal text — else
/// [`escape_markdown`]`(text)`.
///
/// ```
/// use kgeval_report::markdown_code;
/// assert_eq!(markdown_code("runs/<a>.txt"), "`runs/<a>.txt`");
/// assert_eq!(markdown_code("a`b"), "a\\`b");
/// ```
#[must_use]
pub fn markdown_code(text: &str) -> String {
    if text.contains('`') || text.chars().any(crate::common::needs_escape) {
        escape_markdown(text)
    } else {
        format!("`{text}`")
    }
}

#[cfg(test)]
mod tests {
    use super::escape_markdown;

    /// A backslash before `|` must not turn the escape into a literal backslash and a cell
    /// separator; CRLF is one space.
    #[test]
    fn backslash_pipe_and_crlf() {
        assert_eq!(escape_markdown("a\\|b"), "a\\\\\\|b");
        assert_eq!(escape_markdown("a\r\nb\rc"), "a b c");
        assert_eq!(escape_markdown("plain name_1"), "plain name_1");
    }

    /// A tab or an escape sequence reached the Markdown as written.
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_markdown("a\tb\x1b[31mc"), "a\\tb\\u{1b}[31mc");
        assert_eq!(super::markdown_code("run\x1b[2J"), "run\\u{1b}[2J");
        assert_eq!(super::markdown_comment("a\x1bb"), "<!-- a\\u{1b}b -->");
    }
}
