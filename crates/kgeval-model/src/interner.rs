//! String interning: every IRI of one evaluation becomes a `u32`.

use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;

/// An interned IRI (or any other term string): an index into one [`Interner`].
///
/// Ids are only meaningful together with the interner that produced them; the reference,
/// the system alignments and the ontologies of one evaluation share a single interner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(u32);

impl TermId {
    /// The raw index.
    #[must_use]
    pub const fn index(self) -> u32 {
        self.0
    }
}

/// Maps strings to dense [`TermId`]s and back. Insertion-ordered, so ids are deterministic
/// for a deterministic input order.
///
/// ```
/// use kgeval_model::Interner;
/// let mut interner = Interner::new();
/// let a = interner.intern("http://example.org/a");
/// assert_eq!(interner.intern("http://example.org/a"), a);
/// assert_eq!(interner.resolve(a), "http://example.org/a");
/// assert_eq!(interner.get("http://example.org/b"), None);
/// ```
#[derive(Debug, Default, Clone)]
pub struct Interner {
    strings: IndexSet<Box<str>, FxBuildHasher>,
}

impl Interner {
    /// An empty interner.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `s`, adding it if it is new. Allocates only for new strings.
    ///
    /// # Panics
    /// If more than `u32::MAX` distinct strings are interned.
    pub fn intern(&mut self, s: &str) -> TermId {
        if let Some(index) = self.strings.get_index_of(s) {
            return TermId(index as u32);
        }
        let (index, _) = self.strings.insert_full(s.into());
        TermId(u32::try_from(index).expect("more than u32::MAX interned strings"))
    }

    /// The id of `s` if it was interned before.
    #[must_use]
    pub fn get(&self, s: &str) -> Option<TermId> {
        self.strings.get_index_of(s).map(|i| TermId(i as u32))
    }

    /// The string behind `id`.
    ///
    /// # Panics
    /// If `id` comes from another interner and is out of range.
    #[must_use]
    pub fn resolve(&self, id: TermId) -> &str {
        &self.strings[id.0 as usize]
    }

    /// How many distinct strings were interned.
    #[must_use]
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether nothing was interned yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}
