//! Scores by entity type (MELT `TypeRefiner`).

use kgeval_model::align::{PairScores, TypeBreakdown};
use kgeval_model::{Alignment, Correspondence, Diagnostic, EntityKind, EntityTypes, Interner};

use super::judge::judge;
use super::scores::profile_prf;
use super::AlignmentOptions;

/// The kind of a correspondence: its `entity1` in the source ontology, else its `entity2` in
/// the target ontology; `None` when both are unknown.
fn cell_kind(cell: &Correspondence, onto1: &EntityTypes, onto2: &EntityTypes) -> Option<EntityKind> {
    onto1.kind(cell.entity1).or_else(|| onto2.kind(cell.entity2))
}

/// Scores split into classes, properties (all kinds, and object / datatype properties
/// separately) and instances. Each cell is typed by its `entity1` in `onto1`, else by its
/// `entity2` in `onto2`; both system and reference are restricted to the cells of one type and
/// scored like [`super::score_pair`] (same profile, mode, exclusion and threshold).
///
/// Cells typed by neither ontology take part in no row; one `untyped-cell` warning gives how
/// many (system and reference separately), not one warning per cell.
///
/// ```
/// use kgeval_metrics::align::{type_breakdown, AlignmentOptions};
/// use kgeval_model::{Alignment, Correspondence, EntityKind, EntityTypes, Interner, Relation};
/// let mut iris = Interner::new();
/// let (c1, c2, p1, p2) = (iris.intern("o1#C"), iris.intern("o2#C"), iris.intern("o1#p"), iris.intern("o2#p"));
/// let mut onto1 = EntityTypes::new();
/// onto1.record(c1, EntityKind::Class);
/// onto1.record(p1, EntityKind::ObjectProperty);
/// let onto2 = EntityTypes::new();
/// let eq = |a, b| Correspondence::new(a, b, Relation::Equivalence, 1.0);
/// let reference: Alignment = [eq(c1, c2), eq(p1, p2)].into_iter().collect();
/// let system: Alignment = [eq(c1, c2)].into_iter().collect();
/// let (by_type, warnings) =
///     type_breakdown(&reference, &system, None, &AlignmentOptions::default(), &onto1, &onto2, &iris);
/// assert_eq!(by_type.classes.scores.f_measure, 1.0);
/// assert_eq!(by_type.object_properties.counts.fn_, 1);
/// assert!(warnings.is_empty());
/// ```
#[must_use]
pub fn type_breakdown(
    reference: &Alignment,
    system: &Alignment,
    exclusion: Option<&Alignment>,
    options: &AlignmentOptions,
    onto1: &EntityTypes,
    onto2: &EntityTypes,
    interner: &Interner,
) -> (TypeBreakdown, Vec<Diagnostic>) {
    let score = |wanted: &(dyn Fn(EntityKind) -> bool + Sync)| {
        let filter = |c: &Correspondence| cell_kind(c, onto1, onto2).is_some_and(wanted);
        let counts = judge(reference, system, exclusion, options, interner, Some(&filter)).counts_at(None);
        PairScores { scores: profile_prf(&counts, options.beta, options.profile), counts }
    };
    let breakdown = TypeBreakdown {
        classes: score(&|k| k == EntityKind::Class),
        properties: score(&EntityKind::is_property),
        object_properties: score(&|k| k == EntityKind::ObjectProperty),
        datatype_properties: score(&|k| k == EntityKind::DatatypeProperty),
        instances: score(&|k| k == EntityKind::Individual),
    };
    let untyped = |a: &Alignment| a.iter().filter(|c| cell_kind(c, onto1, onto2).is_none()).count();
    let (in_system, in_reference) = (untyped(system), untyped(reference));
    let mut warnings = Vec::new();
    if in_system + in_reference > 0 {
        warnings.push(Diagnostic::warning(
            "untyped-cell",
            format!(
                "{in_system} system and {in_reference} reference correspondences have neither entity in the \
                 ontologies; they are left out of the type breakdown"
            ),
        ));
    }
    (breakdown, warnings)
}
