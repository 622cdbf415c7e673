//! What a ranking family reports when documents share a score: one order's value, the exact
//! expectation over every order of each tie group, or the best or worst order.

use std::fmt;

/// How a measure is valued over tied scores (`kgeval trec --ties`).
///
/// A ranked list is cut into tie groups (equal scores); the policies other than
/// [`Ties::Trec`] give results that do not depend on document names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Ties {
    /// The order the tie-break gives (trec_eval: docno descending): today's output, byte for
    /// byte.
    #[default]
    Trec,
    /// The exact expected value when every tie group is ordered uniformly at random,
    /// independently (McSherry & Najork, ECIR 2008).
    Expected,
    /// Relevant documents first inside every tie group (highest gain first).
    Optimistic,
    /// Relevant documents last inside every tie group.
    Pessimistic,
    /// The expected value, with the pessimistic and optimistic values beside it.
    Range,
}

impl Ties {
    /// Every policy, in the order `--help` lists them.
    pub const ALL: [Ties; 5] = [Ties::Trec, Ties::Expected, Ties::Optimistic, Ties::Pessimistic, Ties::Range];

    /// The name the command line, manifests and JSON use.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Ties::Trec => "trec",
            Ties::Expected => "expected",
            Ties::Optimistic => "optimistic",
            Ties::Pessimistic => "pessimistic",
            Ties::Range => "range",
        }
    }

    /// Parses a name printed by [`Ties::name`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether values depend on the order the tie-break gives (only [`Ties::Trec`]).
    #[must_use]
    pub const fn follows_tie_break(self) -> bool {
        matches!(self, Ties::Trec)
    }
}

impl fmt::Display for Ties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for ties in Ties::ALL {
            assert_eq!(Ties::from_name(ties.name()), Some(ties));
        }
        assert_eq!(Ties::from_name("realistic"), None);
        assert_eq!(Ties::default(), Ties::Trec);
    }
}
