//! The lemon vocabulary variants kgeval reads, reduced to local names.
//!
//! - lemon: `http://www.monnet-project.eu/lemon#` (QALD-3), `http://lemon-model.net/lemon#`;
//! - OntoLex-Lemon: `ontolex#`, `synsem#`, `lime#` under `http://www.w3.org/ns/lemon/`;
//! - LexInfo 2.0 and 3.0 (`…/lexinfo#`, and the stray `…/lexinfo.owl#`);
//! - ISOcat data categories for argument roles (`http://www.isocat.org/datcat/DC-2261`, …),
//!   translated to LexInfo names as the QALD-3 script's role map does.

/// The RDF namespace.
pub(crate) const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

const LEMON_NAMESPACES: [&str; 5] = [
    "http://www.monnet-project.eu/lemon#",
    "http://lemon-model.net/lemon#",
    "http://www.w3.org/ns/lemon/ontolex#",
    "http://www.w3.org/ns/lemon/synsem#",
    "http://www.w3.org/ns/lemon/lime#",
];

const LEXINFO_NAMESPACES: [&str; 6] = [
    "http://www.lexinfo.net/ontology/2.0/lexinfo#",
    "http://www.lexinfo.net/ontology/3.0/lexinfo#",
    "http://www.lexinfo.net/ontology/2.0/lexinfo.owl#",
    "http://www.lexinfo.net/ontology/3.0/lexinfo.owl#",
    "http://lexinfo.net/ontology/2.0/lexinfo#",
    "http://lexinfo.net/ontology/3.0/lexinfo#",
];

const ISOCAT_NAMESPACE: &str = "http://www.isocat.org/datcat/";

/// ISOcat data categories of argument roles, as the QALD-3 script's role map lists them.
const ISOCAT_ROLES: [(&str, &str); 5] = [
    ("DC-2261", "subject"),
    ("DC-2263", "directObject"),
    ("DC-1310", "indirectObject"),
    ("DC-4638", "prepositionalObject"),
    ("DC-4622", "prepositionalAdjunct"),
];

/// The local name of a lemon / OntoLex / synsem / lime IRI.
pub(crate) fn lemon_local(iri: &str) -> Option<&str> {
    LEMON_NAMESPACES.iter().find_map(|ns| iri.strip_prefix(ns))
}

/// The local name of a LexInfo IRI (any version or spelling).
pub(crate) fn lexinfo_local(iri: &str) -> Option<&str> {
    LEXINFO_NAMESPACES.iter().find_map(|ns| iri.strip_prefix(ns))
}

/// The LexInfo role name of a frame predicate: a LexInfo property, an ISOcat data category
/// (translated when known) or `synArg`; `None` for anything else.
pub(crate) fn argument_role(predicate: &str) -> Option<String> {
    if let Some(local) = lexinfo_local(predicate) {
        return Some(local.to_owned());
    }
    if let Some(code) = predicate.strip_prefix(ISOCAT_NAMESPACE) {
        let role = ISOCAT_ROLES.iter().find(|(c, _)| *c == code).map_or(code, |(_, r)| r);
        return Some(role.to_owned());
    }
    match lemon_local(predicate) {
        Some("synArg") => Some("synArg".to_owned()),
        _ => None,
    }
}

/// A frame class or a part of speech as the model keeps it: the LexInfo local name, else the
/// full IRI.
pub(crate) fn lexinfo_name(iri: &str) -> String {
    lexinfo_local(iri).unwrap_or(iri).to_owned()
}

/// Whether a class is a lexical-entry class (`LexicalEntry`, `Word`, `Phrase`, `Part`,
/// `MultiwordExpression`, `Affix`).
pub(crate) fn is_entry_class(iri: &str) -> bool {
    matches!(
        lemon_local(iri),
        Some("LexicalEntry" | "Word" | "Phrase" | "Part" | "MultiwordExpression" | "MultiWordExpression" | "Affix")
    )
}

/// Whether a class is exactly `LexicalEntry` (in any lemon namespace).
pub(crate) fn is_lexical_entry_class(iri: &str) -> bool {
    lemon_local(iri) == Some("LexicalEntry")
}

/// LexInfo frame classes (2.0 and 3.0) that real lexicons use; only used to spot typos.
const KNOWN_FRAMES: [&str; 22] = [
    "AdjectiveAttributiveFrame",
    "AdjectiveComparativeFrame",
    "AdjectiveFrame",
    "AdjectivePPFrame",
    "AdjectivePredicateFrame",
    "AdjectivePredicativeFrame",
    "AdjectiveScaleFrame",
    "AdjectiveSuperlativeFrame",
    "AdverbFrame",
    "DitransitiveFrame",
    "IntransitiveFrame",
    "IntransitivePPFrame",
    "NounFrame",
    "NounPPFrame",
    "NounPossessiveFrame",
    "PrepositionFrame",
    "PrepositionalFrame",
    "TransitiveFrame",
    "TransitivePPFrame",
    "VerbFrame",
    "IntransitiveClausalFrame",
    "TransitiveClausalFrame",
];

/// LexInfo argument roles that real lexicons use; only used to spot typos.
const KNOWN_ROLES: [&str; 13] = [
    "subject",
    "directObject",
    "indirectObject",
    "prepositionalObject",
    "prepositionalAdjunct",
    "possessiveAdjunct",
    "copulativeArg",
    "copulativeSubject",
    "attributiveArg",
    "adverbialComplement",
    "object",
    "clausalArgument",
    "synArg",
];

/// The known LexInfo frame class that `name` looks like a misspelling of.
pub(crate) fn frame_typo(name: &str) -> Option<&'static str> {
    typo_of(name, &KNOWN_FRAMES)
}

/// The known LexInfo role that `name` looks like a misspelling of.
pub(crate) fn role_typo(name: &str) -> Option<&'static str> {
    typo_of(name, &KNOWN_ROLES)
}

/// `name` is not in `known` but within edit distance 2 of an entry, or a truncation of one.
fn typo_of(name: &str, known: &[&'static str]) -> Option<&'static str> {
    if known.contains(&name) || name.len() < 5 {
        return None;
    }
    known
        .iter()
        .copied()
        .map(|k| (edit_distance(name, k), k))
        .filter(|&(distance, k)| distance <= 2 || k.starts_with(name))
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_and_roles() {
        assert_eq!(lemon_local("http://www.monnet-project.eu/lemon#entry"), Some("entry"));
        assert_eq!(lemon_local("http://www.w3.org/ns/lemon/synsem#subjOfProp"), Some("subjOfProp"));
        assert_eq!(lexinfo_local("http://www.lexinfo.net/ontology/2.0/lexinfo.owl#noun"), Some("noun"));
        assert_eq!(argument_role("http://www.isocat.org/datcat/DC-2261").as_deref(), Some("subject"));
        assert_eq!(argument_role("http://www.isocat.org/datcat/DC-9999").as_deref(), Some("DC-9999"));
        assert_eq!(argument_role("http://lemon-model.net/lemon#marker"), None);
    }

    #[test]
    fn typos() {
        assert_eq!(frame_typo("IntransitivPPFrame"), Some("IntransitivePPFrame"));
        assert_eq!(frame_typo("NounPPFrame"), None);
        assert_eq!(role_typo("coplativeArg"), Some("copulativeArg"));
        assert_eq!(role_typo("prepositionalObj"), Some("prepositionalObject"));
        assert_eq!(role_typo("prepositionalArg"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
