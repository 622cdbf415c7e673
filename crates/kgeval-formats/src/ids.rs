//! The one rule for the ids of the IR family — a qid, a docno, the tag that names a run —
//! whether they come from a text file or a table: not empty, and no whitespace or control
//! character (C0, DEL, C1; Unicode's `White_Space`). A text field cannot hold whitespace
//! (whitespace splits it) nor be empty; a table's cell could hold either, and an escape or a
//! line break would reach the output as written.

/// What is wrong with an id ([`id_problem`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdProblem {
    /// The id is the empty string.
    Empty,
    /// The id holds this character (whitespace or a control character) at this byte offset.
    Char(usize, char),
}

/// Whether `c` may not appear in an id: whitespace or a control character.
#[inline]
#[must_use]
pub fn forbidden_in_id(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// Whether every byte of `bytes` is printable ASCII (`!` to `~`): such bytes are a valid id
/// (when there is at least one) and valid UTF-8.
#[inline]
#[must_use]
pub fn printable_ascii(bytes: &[u8]) -> bool {
    // One comparison per byte, no early exit: the loop vectorises.
    bytes.iter().fold(true, |ok, &b| ok & (b.wrapping_sub(0x21) < 0x5e))
}

/// The problem of `id`, `None` for a valid id.
///
/// ```
/// use kgeval_formats::ids::{id_problem, IdProblem};
/// assert_eq!(id_problem("FBIS3-10082"), None);
/// assert_eq!(id_problem("Ünïcode"), None);
/// assert_eq!(id_problem(""), Some(IdProblem::Empty));
/// assert_eq!(id_problem("q1\x1b[31m"), Some(IdProblem::Char(2, '\x1b')));
/// assert_eq!(id_problem("a\u{a0}b"), Some(IdProblem::Char(1, '\u{a0}')));
/// ```
#[inline]
#[must_use]
pub fn id_problem(id: &str) -> Option<IdProblem> {
    if id.is_empty() {
        return Some(IdProblem::Empty);
    }
    if printable_ascii(id.as_bytes()) {
        return None;
    }
    id.char_indices().find(|&(_, c)| forbidden_in_id(c)).map(|(at, c)| IdProblem::Char(at, c))
}

/// The message for `problem` in the id `id`, the id's role being `what` (`qid`, `docno`,
/// `run tag`): the id shown escaped, so the message itself prints on one line.
///
/// ```
/// use kgeval_formats::ids::{id_message, id_problem};
/// let id = "x\nmap all 0.9999";
/// assert_eq!(
///     id_message("run tag", id, id_problem(id).unwrap()),
///     "found the run tag \"x\\nmap all 0.9999\" holding U+000A (a control character), expected an id without whitespace or control characters"
/// );
/// ```
#[must_use]
pub fn id_message(what: &str, id: &str, problem: IdProblem) -> String {
    match problem {
        IdProblem::Empty => format!("found an empty {what}, expected an id"),
        IdProblem::Char(_, c) => format!(
            "found the {what} {} holding U+{:04X} ({}), expected an id without whitespace or control characters",
            crate::echo(id),
            u32::from(c),
            if c.is_control() { "a control character" } else { "whitespace" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character class the rule names, against the byte scan's fast path.
    #[test]
    fn the_rule_by_character() {
        for c in ['\0', '\t', '\n', '\r', '\x0b', '\x1b', ' ', '\x7f', '\u{80}', '\u{85}', '\u{9f}', '\u{a0}'] {
            let id = format!("a{c}b");
            assert_eq!(id_problem(&id), Some(IdProblem::Char(1, c)), "{c:?}");
            assert!(!printable_ascii(id.as_bytes()));
        }
        for id in ["a", "~!#", "é", "日本", "a\u{200b}b"] {
            assert_eq!(id_problem(id), None, "{id:?}");
        }
        assert!(printable_ascii(b"!~"));
        assert!(!printable_ascii(b"\xc3\xa9"));
    }
}
