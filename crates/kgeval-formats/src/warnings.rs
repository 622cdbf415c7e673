//! The warning list every reader fills: at most [`MAX_WARNINGS_PER_CODE`] warnings
//! of one code are listed, the rest are summed up in one closing warning per code (a million
//! duplicate rows must not mean a million diagnostics, nor a million formatted messages).

use kgeval_model::{Diagnostic, Location};

/// At most this many warnings of one code are listed individually per file.
pub(crate) const MAX_WARNINGS_PER_CODE: usize = 100;

/// Collects warnings, listing at most [`MAX_WARNINGS_PER_CODE`] per code.
#[derive(Debug, Default)]
pub(crate) struct Warnings {
    list: Vec<Diagnostic>,
    counts: Vec<(&'static str, usize)>,
}

impl Warnings {
    /// Adds a warning of `code`; `make` builds it only while the code is under the cap.
    pub(crate) fn push(&mut self, code: &'static str, make: impl FnOnce() -> Diagnostic) {
        let index = match self.counts.iter().position(|(c, _)| *c == code) {
            Some(index) => index,
            None => {
                self.counts.push((code, 0));
                self.counts.len() - 1
            }
        };
        let count = &mut self.counts[index].1;
        *count += 1;
        if *count <= MAX_WARNINGS_PER_CODE {
            self.list.push(make());
        }
    }

    /// Counts `n` more warnings of `code` that are known to be past the cap (a reader that
    /// capped them itself, in the same order).
    pub(crate) fn add_unlisted(&mut self, code: &'static str, n: usize) {
        match self.counts.iter_mut().find(|(c, _)| *c == code) {
            Some((_, count)) => *count += n,
            None => self.counts.push((code, n)),
        }
    }

    /// The warnings, with one summary per capped code (located in `file`, line 0).
    pub(crate) fn finish(mut self, file: &str) -> Vec<Diagnostic> {
        for (code, n) in self.counts {
            if n > MAX_WARNINGS_PER_CODE {
                self.list.push(
                    Diagnostic::warning(
                        code,
                        format!("{} more `{code}` warnings not listed ({n} in all)", n - MAX_WARNINGS_PER_CODE),
                    )
                    .at(Location { file: file.to_owned(), line: 0, column: 0 }),
                );
            }
        }
        self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_per_code_with_one_summary() {
        let mut warnings = Warnings::default();
        let mut built = 0;
        for _ in 0..MAX_WARNINGS_PER_CODE + 3 {
            warnings.push("a", || {
                built += 1;
                Diagnostic::warning("a", "x")
            });
        }
        warnings.push("b", || Diagnostic::warning("b", "y"));
        assert_eq!(built, MAX_WARNINGS_PER_CODE);
        let list = warnings.finish("f");
        assert_eq!(list.len(), MAX_WARNINGS_PER_CODE + 2);
        assert_eq!(list[MAX_WARNINGS_PER_CODE].code, "b");
        assert_eq!(
            list[MAX_WARNINGS_PER_CODE + 1].message,
            format!("3 more `a` warnings not listed ({} in all)", MAX_WARNINGS_PER_CODE + 3)
        );
    }
}
