//! Correspondence relations and the many spellings real files use for them.

use std::fmt;

/// The relation a correspondence asserts between `entity1` and `entity2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Relation {
    /// `=`: equivalence (`owl:equivalentClass`, `skos:exactMatch`, `owl:sameAs`, …).
    Equivalence,
    /// `<`: entity1 is subsumed by entity2 (`rdfs:subClassOf`, `skos:broadMatch`).
    Subsumed,
    /// `>`: entity1 subsumes entity2 (`skos:narrowMatch`).
    Subsumes,
    /// `%`: incompatible, i.e. negative knowledge (the pair is known *not* to match).
    Incompatible,
    /// `?`: unknown; in a reference it marks a pair that is not judged.
    Unknown,
    /// `HasInstance`: entity2 is an instance of entity1.
    HasInstance,
    /// `InstanceOf`: entity1 is an instance of entity2.
    InstanceOf,
    /// `skos:closeMatch`.
    Close,
    /// `skos:relatedMatch`.
    Related,
}

impl Relation {
    /// Every relation, in declaration order.
    pub const ALL: [Relation; 9] = [
        Relation::Equivalence,
        Relation::Subsumed,
        Relation::Subsumes,
        Relation::Incompatible,
        Relation::Unknown,
        Relation::HasInstance,
        Relation::InstanceOf,
        Relation::Close,
        Relation::Related,
    ];

    /// The canonical Alignment-API symbol (`=`, `<`, `>`, `%`, `?`, `HasInstance`, …).
    #[must_use]
    pub const fn symbol(self) -> &'static str {
        match self {
            Relation::Equivalence => "=",
            Relation::Subsumed => "<",
            Relation::Subsumes => ">",
            Relation::Incompatible => "%",
            Relation::Unknown => "?",
            Relation::HasInstance => "HasInstance",
            Relation::InstanceOf => "InstanceOf",
            Relation::Close => "closeMatch",
            Relation::Related => "relatedMatch",
        }
    }

    /// The relation read in the other direction (`<` ↔ `>`, `HasInstance` ↔ `InstanceOf`;
    /// symmetric relations map to themselves).
    #[must_use]
    pub const fn reversed(self) -> Relation {
        match self {
            Relation::Subsumed => Relation::Subsumes,
            Relation::Subsumes => Relation::Subsumed,
            Relation::HasInstance => Relation::InstanceOf,
            Relation::InstanceOf => Relation::HasInstance,
            other => other,
        }
    }

    /// Parses a relation token as real files spell it: Alignment-API symbols
    /// (`=`, `<`, `>`, `%`, `?`, `&lt;` already unescaped), names (`equivalence`,
    /// `subsumes`, `HasInstance`), Alignment-API Java class names
    /// (`fr.inrialpes.exmo.align.impl.rel.EquivRelation`), SKOS / OWL / RDFS IRIs and CURIEs.
    /// Case-insensitive; the token must already be trimmed. `None` for anything else.
    ///
    /// ```
    /// use kgeval_model::Relation;
    /// assert_eq!(Relation::parse("="), Some(Relation::Equivalence));
    /// assert_eq!(Relation::parse("skos:broadMatch"), Some(Relation::Subsumed));
    /// assert_eq!(
    ///     Relation::parse("http://www.w3.org/2002/07/owl#equivalentClass"),
    ///     Some(Relation::Equivalence)
    /// );
    /// assert_eq!(Relation::parse("fr.inrialpes.exmo.align.impl.rel.SubsumeRelation"), Some(Relation::Subsumes));
    /// assert_eq!(Relation::parse(" = "), None);
    /// ```
    #[must_use]
    pub fn parse(token: &str) -> Option<Relation> {
        let lower = token.to_ascii_lowercase();
        let local = local_name(&lower);
        Some(match lower.as_str() {
            "=" | "==" | "equivalence" | "equiv" | "equivalent" => Relation::Equivalence,
            "<" | "&lt;" | "subsumed" | "subsumedby" | "lessgeneral" | "<=" => Relation::Subsumed,
            ">" | "&gt;" | "subsumes" | "subsume" | "moregeneral" | ">=" => Relation::Subsumes,
            "%" | "incompatible" | "incompat" | "disjoint" | "!=" => Relation::Incompatible,
            "?" | "unknown" => Relation::Unknown,
            "hasinstance" | "instance" => Relation::HasInstance,
            "instanceof" | "isinstanceof" => Relation::InstanceOf,
            _ => match local {
                "equivrelation" | "exactmatch" | "equivalentclass" | "equivalentproperty" | "sameas" => {
                    Relation::Equivalence
                }
                "subsumedrelation" | "broadmatch" | "subclassof" | "subpropertyof" => Relation::Subsumed,
                "subsumerelation" | "narrowmatch" => Relation::Subsumes,
                "incompatrelation" | "disjointwith" | "differentfrom" => Relation::Incompatible,
                "instanceofrelation" => Relation::InstanceOf,
                "hasinstancerelation" => Relation::HasInstance,
                "closematch" => Relation::Close,
                "relatedmatch" => Relation::Related,
                _ => return None,
            },
        })
    }
}

/// The part after the last `#`, `/`, `:` or `.`.
fn local_name(s: &str) -> &str {
    s.rfind(['#', '/', ':', '.']).map_or(s, |i| &s[i + 1..])
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symbol_round_trips() {
        for r in Relation::ALL {
            assert_eq!(Relation::parse(r.symbol()), Some(r), "{r:?}");
            assert_eq!(r.reversed().reversed(), r);
        }
    }

    #[test]
    fn vocabulary_iris() {
        assert_eq!(Relation::parse("http://www.w3.org/2004/02/skos/core#narrowMatch"), Some(Relation::Subsumes));
        assert_eq!(Relation::parse("SKOS:RELATEDMATCH"), Some(Relation::Related));
        assert_eq!(Relation::parse("owl:sameAs"), Some(Relation::Equivalence));
        assert_eq!(Relation::parse("rdfs:subClassOf"), Some(Relation::Subsumed));
        assert_eq!(Relation::parse("fr.inrialpes.exmo.align.impl.rel.EquivRelation"), Some(Relation::Equivalence));
        assert_eq!(Relation::parse("foo"), None);
    }
}
