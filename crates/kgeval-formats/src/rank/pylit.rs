//! A small parser of Python literals, the subset `ast.literal_eval` reads that Bio-ML and
//! DeepOnto files use: lists, tuples, single- or double-quoted strings (with `u`/`r` prefixes
//! and Python's escapes), integers, floats (with exponents and a sign), `True`, `False`,
//! `None`, nested to any reasonable depth.
//!
//! Not JSON: strings take `'` quotes, tuples `()`, and booleans are capitalised. Every node
//! carries its byte offset, so errors point at the exact column. Unsupported syntax (triple
//! quotes, adjacent string concatenation, `\N{…}` escapes, `_` in numbers, dicts, sets) is an
//! error, never a panic.

use std::borrow::Cow;

/// The deepest nesting of lists and tuples accepted (deeper input is an error, not a stack
/// overflow).
pub(crate) const MAX_DEPTH: usize = 64;

/// A parsed literal.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal<'a> {
    /// A string (borrowed when it holds no escape).
    Str(Cow<'a, str>),
    /// An integer that fits an `i64`.
    Int(i64),
    /// A float.
    Float(f64),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// `[…]`.
    List(Vec<Node<'a>>),
    /// `(…)` with a comma (a parenthesised single value is that value, as in Python).
    Tuple(Vec<Node<'a>>),
}

impl Literal<'_> {
    /// What the literal is, for messages ("a string", "a tuple of 2", …).
    pub(crate) fn describe(&self) -> String {
        match self {
            Literal::Str(s) => format!("the string {}", super::text::quoted(s)),
            Literal::Int(i) => format!("the integer `{i}`"),
            Literal::Float(f) => format!("the float `{f}`"),
            Literal::Bool(b) => format!("`{}`", if *b { "True" } else { "False" }),
            Literal::None => "`None`".to_owned(),
            Literal::List(items) => format!("a list of {}", items.len()),
            Literal::Tuple(items) => format!("a tuple of {}", items.len()),
        }
    }

    /// The number, if the literal is an integer or a float.
    pub(crate) fn as_number(&self) -> Option<f64> {
        match *self {
            Literal::Int(i) => Some(i as f64),
            Literal::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The items, if the literal is a list or a tuple.
    pub(crate) fn as_sequence(&self) -> Option<&[Node<'_>]> {
        match self {
            Literal::List(items) | Literal::Tuple(items) => Some(items),
            _ => None,
        }
    }
}

/// A literal and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node<'a> {
    /// The literal.
    pub(crate) value: Literal<'a>,
    /// Byte offset in the parsed text.
    pub(crate) offset: usize,
}

/// A parse failure: byte offset in the parsed text and a `found …, expected …` message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LiteralError {
    /// Byte offset in the parsed text.
    pub(crate) offset: usize,
    /// What was found and what was expected.
    pub(crate) message: String,
}

/// Parses `text` as one literal (surrounding whitespace allowed).
pub(crate) fn parse(text: &str) -> Result<Node<'_>, LiteralError> {
    let mut parser = Parser { text, pos: 0 };
    parser.skip_whitespace();
    let node = parser.value(0)?;
    parser.skip_whitespace();
    if parser.pos < text.len() {
        return Err(parser.error(format!("found {} after the literal, expected the end of the value", parser.found())));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

const VALUE: &str = "a Python literal (a string, number, True, False, None, list or tuple)";

impl<'a> Parser<'a> {
    fn error(&self, message: String) -> LiteralError {
        LiteralError { offset: self.pos, message }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn found(&self) -> String {
        match self.peek() {
            Some(c) if c.is_control() => format!("`{}`", c.escape_debug()),
            Some(c) => format!("`{c}`"),
            None => "the end of the value".to_owned(),
        }
    }

    fn skip_whitespace(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }

    fn value(&mut self, depth: usize) -> Result<Node<'a>, LiteralError> {
        let offset = self.pos;
        let value = match self.peek() {
            Some('[') => self.sequence(depth, ']')?,
            Some('(') => self.sequence(depth, ')')?,
            Some('\'' | '"') => Literal::Str(self.string(false)?),
            Some(c) if c.is_ascii_digit() || matches!(c, '-' | '+' | '.') => self.number()?,
            Some(c) if c.is_alphabetic() || c == '_' => self.word()?,
            _ => return Err(self.error(format!("found {}, expected {VALUE}", self.found()))),
        };
        Ok(Node { value, offset })
    }

    /// A list or tuple; the opening bracket is at `self.pos`.
    fn sequence(&mut self, depth: usize, close: char) -> Result<Literal<'a>, LiteralError> {
        if depth >= MAX_DEPTH {
            return Err(self.error(format!("found lists nested deeper than {MAX_DEPTH}, expected shallower nesting")));
        }
        self.pos += 1;
        let mut items = Vec::new();
        let mut saw_comma = false;
        loop {
            self.skip_whitespace();
            if self.peek() == Some(close) {
                self.pos += 1;
                break;
            }
            items.push(self.value(depth + 1)?);
            self.skip_whitespace();
            match self.peek() {
                Some(',') => {
                    saw_comma = true;
                    self.pos += 1;
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    return Err(self.error(format!("found {}, expected `,` or `{close}`", self.found())));
                }
            }
        }
        if close == ']' {
            return Ok(Literal::List(items));
        }
        if items.len() == 1 && !saw_comma {
            // `(x)` is x, as in Python.
            return Ok(items.pop().map_or(Literal::None, |node| node.value));
        }
        Ok(Literal::Tuple(items))
    }

    /// `True`, `False`, `None` or a string prefix (`u`, `r`).
    fn word(&mut self) -> Result<Literal<'a>, LiteralError> {
        let rest = &self.text[self.pos..];
        let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let word = &rest[..len];
        let next = rest[len..].chars().next();
        if matches!(next, Some('\'' | '"')) {
            let raw = match word {
                "u" | "U" => false,
                "r" | "R" => true,
                _ => return Err(self.error(format!("found the string prefix `{word}`, expected `u`, `r` or none"))),
            };
            self.pos += len;
            return Ok(Literal::Str(self.string(raw)?));
        }
        let value = match word {
            "True" => Literal::Bool(true),
            "False" => Literal::Bool(false),
            "None" => Literal::None,
            _ => return Err(self.error(format!("found `{word}`, expected {VALUE}"))),
        };
        self.pos += len;
        Ok(value)
    }

    /// A quoted string; the opening quote is at `self.pos`.
    fn string(&mut self, raw: bool) -> Result<Cow<'a, str>, LiteralError> {
        let start = self.pos;
        let quote = self.text.as_bytes()[start];
        let body_start = start + 1;
        let bytes = self.text.as_bytes();
        let mut owned: Option<String> = None;
        let mut segment = body_start;
        let mut i = body_start;
        let unterminated = |at: usize| LiteralError {
            offset: at,
            message: format!(
                "found a string that is never closed, expected a closing `{}` on the same line",
                quote as char
            ),
        };
        loop {
            let Some(k) = memchr::memchr3(quote, b'\\', b'\n', &bytes[i..]) else {
                return Err(unterminated(start));
            };
            let at = i + k;
            match bytes[at] {
                b'\n' => return Err(unterminated(start)),
                b if b == quote => {
                    self.pos = at + 1;
                    return Ok(match owned {
                        Some(mut s) => {
                            s.push_str(&self.text[segment..at]);
                            Cow::Owned(s)
                        }
                        None => Cow::Borrowed(&self.text[body_start..at]),
                    });
                }
                _ => {
                    // A backslash.
                    let Some(escaped) = self.text[at + 1..].chars().next() else {
                        return Err(unterminated(start));
                    };
                    if raw {
                        // In a raw string the backslash stays and only protects the next
                        // character from ending the string.
                        i = at + 1 + escaped.len_utf8();
                        continue;
                    }
                    let buf = owned.get_or_insert_with(String::new);
                    buf.push_str(&self.text[segment..at]);
                    let (decoded, len) =
                        escape(&self.text[at + 1..]).map_err(|message| LiteralError { offset: at, message })?;
                    if let Some(c) = decoded {
                        buf.push(c);
                    }
                    i = at + 1 + len;
                    segment = i;
                }
            }
        }
    }

    /// An integer or a float, with an optional sign.
    fn number(&mut self) -> Result<Literal<'a>, LiteralError> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let mut i = start;
        if matches!(bytes.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let digits_start = i;
        let mut is_float = false;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'0'..=b'9' => i += 1,
                b'.' if !is_float => {
                    is_float = true;
                    i += 1;
                }
                b'e' | b'E' => {
                    is_float = true;
                    i += 1;
                    if matches!(bytes.get(i), Some(b'-' | b'+')) {
                        i += 1;
                    }
                    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                    break;
                }
                _ => break,
            }
        }
        let token = &self.text[start..i];
        let mantissa = &self.text[digits_start..i];
        let bad = |message: String| LiteralError { offset: start, message };
        if !mantissa.bytes().take_while(|&b| b != b'e' && b != b'E').any(|b| b.is_ascii_digit()) {
            return Err(bad(format!("found `{}`, expected {VALUE}", self.text[start..].chars().next().unwrap_or(' '))));
        }
        if bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.') {
            let end = self.text[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .map_or(self.text.len(), |k| i + k);
            return Err(bad(format!("found `{}`, expected a number", &self.text[start..end])));
        }
        self.pos = i;
        if is_float {
            return match token.parse::<f64>() {
                Ok(value) => Ok(Literal::Float(value)),
                Err(_) => Err(bad(format!("found `{token}`, expected a number"))),
            };
        }
        if mantissa.len() > 1 && mantissa.starts_with('0') && mantissa.bytes().any(|b| b != b'0') {
            return Err(bad(format!("found `{token}`, expected an integer without leading zeros")));
        }
        token
            .parse::<i64>()
            .map(Literal::Int)
            .map_err(|_| bad(format!("found `{token}`, expected an integer between -2^63 and 2^63-1")))
    }
}

/// Decodes the escape after a backslash; returns the character (none for a line
/// continuation) and the length of the escape text after the backslash.
fn escape(after: &str) -> Result<(Option<char>, usize), String> {
    let Some(c) = after.chars().next() else {
        return Err("found a backslash at the end of the value, expected an escape".to_owned());
    };
    let simple = match c {
        '\\' => Some('\\'),
        '\'' => Some('\''),
        '"' => Some('"'),
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'v' => Some('\u{b}'),
        _ => None,
    };
    if let Some(decoded) = simple {
        return Ok((Some(decoded), 1));
    }
    match c {
        '\n' => Ok((None, 1)),
        '0'..='7' => {
            let len = after.bytes().take(3).take_while(|b| (b'0'..=b'7').contains(b)).count();
            let code = u32::from_str_radix(&after[..len], 8).map_err(|e| e.to_string())?;
            char::from_u32(code)
                .map(|ch| (Some(ch), len))
                .ok_or_else(|| format!("found the octal escape `\\{}`, expected a character", &after[..len]))
        }
        'x' | 'u' | 'U' => {
            let width = match c {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let hex = after.get(1..=width).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
            let Some(hex) = hex else {
                return Err(format!("found a truncated `\\{c}` escape, expected {width} hexadecimal digits"));
            };
            let code = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
            char::from_u32(code)
                .map(|ch| (Some(ch), 1 + width))
                .ok_or_else(|| format!("found `\\{c}{hex}`, expected the code of a Unicode scalar value"))
        }
        'N' => Err("found a `\\N{…}` escape, expected a simpler escape (not supported)".to_owned()),
        // Python keeps an unknown escape as it is: the backslash, then the character.
        _ => Ok((Some('\\'), 0)),
    }
}

#[cfg(test)]
mod tests;
