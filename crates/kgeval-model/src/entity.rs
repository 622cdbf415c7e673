//! Entity types from ontologies, for type breakdowns.

use rustc_hash::FxHashMap;

use crate::TermId;

/// What an ontology declares (or uses) an entity as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityKind {
    /// `owl:Class`, `rdfs:Class`, or used in `rdfs:subClassOf` / `rdfs:domain` / `rdfs:range`.
    Class,
    /// `owl:ObjectProperty`.
    ObjectProperty,
    /// `owl:DatatypeProperty`.
    DatatypeProperty,
    /// `owl:AnnotationProperty`.
    AnnotationProperty,
    /// `rdf:Property` or used as a predicate, without a more specific declaration.
    OtherProperty,
    /// Anything else that occurs in the ontology (an individual).
    Individual,
}

impl EntityKind {
    /// Whether this is any kind of property.
    #[must_use]
    pub const fn is_property(self) -> bool {
        matches!(
            self,
            EntityKind::ObjectProperty
                | EntityKind::DatatypeProperty
                | EntityKind::AnnotationProperty
                | EntityKind::OtherProperty
        )
    }
}

/// Entity kinds of one ontology, by interned IRI.
#[derive(Debug, Clone, Default)]
pub struct EntityTypes {
    kinds: FxHashMap<TermId, EntityKind>,
    declared: Vec<DeclaredEntity>,
}

/// An entity the ontology declares explicitly (`rdf:type owl:Class`, `owl:ObjectProperty`,
/// `owl:DatatypeProperty`, or an instance of a declared class), with its first `rdfs:label`:
/// what a Jena `OntModel` lists, the input of MELT's `BaselineStringMatcher`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredEntity {
    /// `Class`, `ObjectProperty`, `DatatypeProperty` or `Individual`.
    pub kind: EntityKind,
    /// The entity.
    pub iri: TermId,
    /// Its first `rdfs:label` (any language) in document order.
    pub label: Option<String>,
}

impl EntityTypes {
    /// No entity known.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `kind` for `entity`. A class or a specific property kind beats the weaker
    /// evidence of `OtherProperty` and `Individual`.
    pub fn record(&mut self, entity: TermId, kind: EntityKind) {
        let slot = self.kinds.entry(entity).or_insert(kind);
        if strength(kind) > strength(*slot) {
            *slot = kind;
        }
    }

    /// The kind of `entity`, if the ontology knows it.
    #[must_use]
    pub fn kind(&self, entity: TermId) -> Option<EntityKind> {
        self.kinds.get(&entity).copied()
    }

    /// How many entities are known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Records an explicit declaration (kept in the order given; see [`DeclaredEntity`]).
    pub fn declare(&mut self, entity: DeclaredEntity) {
        self.declared.push(entity);
    }

    /// The explicit declarations, in document order.
    #[must_use]
    pub fn declared(&self) -> &[DeclaredEntity] {
        &self.declared
    }

    /// Whether no entity is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }
}

fn strength(kind: EntityKind) -> u8 {
    match kind {
        EntityKind::Individual => 0,
        EntityKind::OtherProperty => 1,
        EntityKind::Class
        | EntityKind::ObjectProperty
        | EntityKind::DatatypeProperty
        | EntityKind::AnnotationProperty => 2,
    }
}
