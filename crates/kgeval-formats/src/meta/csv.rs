//! The one CSV line splitter of the meta-evaluation readers (RFC 4180 quoting, `""` for a
//! quote), keeping each field's 1-based column for located errors.

use crate::FormatError;

/// One field of a CSV line and the column it starts at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// The text, unquoted.
    pub(crate) text: String,
    /// Its 1-based column (characters).
    pub(crate) column: u32,
}

/// The fields of a CSV line with their columns; `"…"` quoting with `""` for a quote.
pub(crate) fn split_fields(file: &str, number: u32, text: &str) -> Result<Vec<Field>, FormatError> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut start = 1u32;
    let mut quoted = false;
    let mut quote_column = 0u32;
    let mut chars = text.chars().zip(1u32..).peekable();
    while let Some((c, column)) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek().is_some_and(|&(next, _)| next == '"') {
                    field.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
        } else if c == '"' && field.trim().is_empty() {
            field.clear();
            quoted = true;
            quote_column = column;
        } else if c == ',' {
            fields.push(Field { text: std::mem::take(&mut field), column: start });
            start = column + 1;
        } else {
            field.push(c);
        }
    }
    if quoted {
        return Err(FormatError::syntax(
            file,
            number,
            quote_column,
            "found an unterminated quote, expected a closing \"",
        ));
    }
    fields.push(Field { text: field, column: start });
    Ok(fields)
}
