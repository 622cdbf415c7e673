//! Index files of data-sensitivity subsets: one subset per line, its 0-based item indices
//! separated by spaces, tabs or commas; blank lines and `#` comments are skipped.
//!
//! ```
//! use kgeval_formats::meta::subsets::read_subsets;
//! let subsets = read_subsets(b"# two subsets\n0 2 5\n1,3\n", "subsets.txt")?;
//! assert_eq!(subsets, vec![vec![0, 2, 5], vec![1, 3]]);
//! # Ok::<(), kgeval_formats::FormatError>(())
//! ```

use crate::FormatError;

/// Reads the subsets of an index file.
///
/// # Errors
/// [`FormatError::Syntax`] at the offending token for anything but a non-negative integer, for
/// an index repeated within a line, and for a file without any subset.
pub fn read_subsets(input: &[u8], file: &str) -> Result<Vec<Vec<usize>>, FormatError> {
    let mut subsets = Vec::new();
    for (number, line) in input.split(|&b| b == b'\n').enumerate() {
        let line_number = number as u32 + 1;
        let content = line.split(|&b| b == b'#').next().unwrap_or_default();
        let mut subset = Vec::new();
        let mut column = 0usize;
        for token in content.split(|&b| matches!(b, b' ' | b'\t' | b',' | b'\r')) {
            let start = column;
            column += token.len() + 1;
            if token.is_empty() {
                continue;
            }
            let index = std::str::from_utf8(token).ok().and_then(|t| t.parse::<usize>().ok()).ok_or_else(|| {
                FormatError::syntax(
                    file,
                    line_number,
                    start as u32 + 1,
                    format!("found {}, expected a 0-based item index", crate::echo(&String::from_utf8_lossy(token))),
                )
            })?;
            if subset.contains(&index) {
                return Err(FormatError::syntax(
                    file,
                    line_number,
                    start as u32 + 1,
                    format!("found index {index} twice in one subset"),
                ));
            }
            subset.push(index);
        }
        if !subset.is_empty() {
            subset.sort_unstable();
            subsets.push(subset);
        }
    }
    if subsets.is_empty() {
        return Err(FormatError::syntax(file, 1, 1, "found no subset, expected one line of item indices per subset"));
    }
    Ok(subsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_tokens_are_located() {
        let err = read_subsets(b"0 1\n2 x3\n", "s.txt").unwrap_err().to_string();
        assert_eq!(err, "s.txt:2:3: found \"x3\", expected a 0-based item index");
        let err = read_subsets(b"4 4\n", "s.txt").unwrap_err().to_string();
        assert_eq!(err, "s.txt:1:3: found index 4 twice in one subset");
        let err = read_subsets(b"# nothing\n\n", "s.txt").unwrap_err().to_string();
        assert!(err.starts_with("s.txt:1:1: found no subset"), "{err}");
        assert_eq!(read_subsets(b"3 1\r\n", "s.txt").unwrap(), vec![vec![1, 3]]);
    }
}
