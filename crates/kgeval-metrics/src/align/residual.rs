//! Residual recall (MELT `ResidualRefiner` with its `BaselineStringMatcher`): recall on the
//! reference cells a trivial string matcher does not find.
//!
//! The baseline matches, kind by kind (classes, datatype properties, object properties,
//! individuals), every source entity with every target entity whose normalised label (its
//! first `rdfs:label`, else the IRI's fragment) is the same bag of words. MELT compares bags by
//! their Java hash code (1 + the sum of the words' `String.hashCode`), so that is the key here
//! too; a later source entity with the same key replaces an earlier one.

use kgeval_model::align::Residual;
use kgeval_model::{Alignment, Correspondence, EntityKind, EntityTypes, Interner, Relation};
use rustc_hash::{FxHashMap, FxHashSet};

use super::scores::score_pair;
use super::types::type_breakdown;
use super::{AlignmentOptions, PairInput};

/// MELT's `BaselineStringMatcher` over two ontologies' declared entities
/// ([`EntityTypes::declared`]): `=` cells with confidence 1.
///
/// ```
/// use kgeval_metrics::align::baseline_string_matcher;
/// use kgeval_model::{DeclaredEntity, EntityKind, EntityTypes, Interner};
/// let mut iris = Interner::new();
/// let mut onto = |iri: &str, label: Option<&str>| {
///     let mut types = EntityTypes::new();
///     let iri = iris.intern(iri);
///     types.declare(DeclaredEntity { kind: EntityKind::Class, iri, label: label.map(str::to_owned) });
///     types
/// };
/// // "ConferenceMember" and "conference member" are the same bag {conference, member}.
/// let a = onto("http://a#ConferenceMember", None);
/// let b = onto("http://b#c1", Some("member conference"));
/// assert_eq!(baseline_string_matcher(&a, &b, &iris).len(), 1);
/// ```
#[must_use]
pub fn baseline_string_matcher(onto1: &EntityTypes, onto2: &EntityTypes, interner: &Interner) -> Alignment {
    let mut alignment = Alignment::new();
    for kind in [EntityKind::Class, EntityKind::DatatypeProperty, EntityKind::ObjectProperty, EntityKind::Individual] {
        let mut by_key = FxHashMap::default();
        for entity in onto1.declared().iter().filter(|e| e.kind == kind) {
            let text = entity.label.as_deref().unwrap_or_else(|| fragment(interner.resolve(entity.iri)));
            by_key.insert(bag_key(text), entity.iri);
        }
        for entity in onto2.declared().iter().filter(|e| e.kind == kind) {
            let text = entity.label.as_deref().unwrap_or_else(|| fragment(interner.resolve(entity.iri)));
            if let Some(&source) = by_key.get(&bag_key(text)) {
                alignment.insert(Correspondence::new(source, entity.iri, Relation::Equivalence, 1.0));
            }
        }
    }
    alignment
}

/// The scores of `input` once the baseline's cells are taken out: the reference loses every
/// baseline cell, the system loses the baseline cells that are in the reference (MELT
/// `ResidualRefiner`); the same options, exclusion and type breakdown as the pair's.
#[must_use]
pub fn residual_scores(
    input: &PairInput<'_>,
    baseline: &Alignment,
    options: &AlignmentOptions,
    interner: &Interner,
) -> Residual {
    let trivial: FxHashSet<_> =
        baseline.iter().map(Correspondence::key).filter(|key| input.reference.contains(key)).collect();
    let reference = input.reference.filtered(|c| !baseline.contains(&c.key()));
    let system = input.system.filtered(|c| !trivial.contains(&c.key()));
    let quiet = AlignmentOptions { collect_labels: false, threshold_curve: false, ..options.clone() };
    let primary = score_pair(&reference, &system, input.exclusion, &quiet, interner).0;
    let by_type = input
        .onto1
        .zip(input.onto2)
        .map(|(onto1, onto2)| type_breakdown(&reference, &system, input.exclusion, &quiet, onto1, onto2, interner).0);
    Residual { primary, by_type }
}

/// `URIUtil.getUriFragment`: after the last `#`, else after the last `/`, else the IRI.
fn fragment(iri: &str) -> &str {
    iri.rfind('#').or_else(|| iri.rfind('/')).map_or(iri, |i| &iri[i + 1..])
}

/// Java's `\s` (no Unicode classes).
const fn is_java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r')
}

/// `BaselineStringMatcher.normalize` then `BagOfWords.hashCode`: `_` before each capital
/// followed by a lower-case letter (not at the start, not after white space), spaces to `_`,
/// lower case, every character but ASCII letters, digits, white space, `:` and `_` dropped,
/// split at `_`; the key is 1 + the sum of the words' Java hash codes (wrapping).
fn bag_key(text: &str) -> i32 {
    let chars: Vec<char> = text.chars().collect();
    let mut split = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if i > 0
            && !is_java_space(chars[i - 1])
            && c.is_ascii_uppercase()
            && chars.get(i + 1).is_some_and(char::is_ascii_lowercase)
        {
            split.push('_');
        }
        split.push(if c == ' ' { '_' } else { c });
    }
    let mut key: i32 = 1;
    let mut word: i32 = 0;
    for c in split.to_lowercase().chars() {
        if c == '_' {
            key = key.wrapping_add(word);
            word = 0;
        } else if c.is_ascii_alphanumeric() || is_java_space(c) || c == ':' {
            word = word.wrapping_mul(31).wrapping_add(c as i32);
        }
    }
    key.wrapping_add(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn java_hash(s: &str) -> i32 {
        s.encode_utf16().fold(0_i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
    }

    #[test]
    fn keys_are_melts_bag_hashes() {
        // "ConferenceMember" → "conference_member" → {conference, member}.
        let expected = 1_i32.wrapping_add(java_hash("conference")).wrapping_add(java_hash("member"));
        assert_eq!(bag_key("ConferenceMember"), expected);
        assert_eq!(bag_key("member conference"), expected);
        // "Member-Conference" → "Member-_Conference" → "member_conference"; "Member-conference"
        // gets no `_` and loses its `-`: one word.
        assert_eq!(bag_key("Member-Conference"), expected);
        assert_eq!(bag_key("Member-conference"), 1_i32.wrapping_add(java_hash("memberconference")));
        // After a space no `_` is inserted; `:` and tabs stay inside words.
        assert_eq!(bag_key("a Bc"), 1_i32.wrapping_add(java_hash("a")).wrapping_add(java_hash("bc")));
        assert_eq!(bag_key("x:y\tz"), 1_i32.wrapping_add(java_hash("x:y\tz")));
        // Empty words hash to 0; "ABc" splits before "Bc" only.
        assert_eq!(bag_key("__a__"), 1_i32.wrapping_add(java_hash("a")));
        assert_eq!(bag_key("ABc"), 1_i32.wrapping_add(java_hash("a")).wrapping_add(java_hash("bc")));
        assert_eq!(fragment("http://a/b#c"), "c");
        assert_eq!(fragment("http://a/b"), "b");
    }
}
