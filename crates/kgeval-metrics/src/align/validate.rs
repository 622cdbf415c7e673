//! Checks of the scoring input: swapped sides, entities absent from the ontologies,
//! duplicates, unknown relations. Reported, never silent, never an error.

use std::fmt::Write as _;

use kgeval_model::{Alignment, Diagnostic, EntityTypes, Interner, Relation, TermId};
use rustc_hash::FxHashSet;

use super::par::{tally, EntityBits, PAR_MIN};

/// How many IRIs an `absent-entity` warning names.
const SHOWN_IRIS: usize = 3;

/// Checks a system alignment against its reference and, when given, the ontologies' entity
/// types. One summary diagnostic per finding (with counts), never one per cell:
///
/// - `swapped-sides`: turning every system cell around (`entity2, entity1, relation.reversed()`)
///   hits the reference at least 3 times and at least twice as often as the cells as given; or,
///   with both ontologies, most system `entity1` IRIs occur in `onto2` but not in `onto1`.
/// - `absent-entity`: system or reference IRIs found in neither position's ontology (per side:
///   `entity1` in `onto1`, `entity2` in `onto2`), with a count and the first few IRIs. Blank
///   and `null` entities (negative reference cells) are not checked.
/// - `duplicate-cell`: repeated keys dropped (first occurrence kept) in system or reference.
/// - `unknown-relation`: system cells with relation `?` (unparsable or unknown relations); they
///   can only match `?` reference cells.
///
/// ```
/// use kgeval_metrics::align::validate;
/// use kgeval_model::{Alignment, Correspondence, Interner, Relation};
/// let mut iris = Interner::new();
/// let mut reference = Alignment::new();
/// let mut swapped = Alignment::new();
/// for i in 0..4 {
///     let (a, b) = (iris.intern(&format!("o1#{i}")), iris.intern(&format!("o2#{i}")));
///     reference.insert(Correspondence::new(a, b, Relation::Equivalence, 1.0));
///     swapped.insert(Correspondence::new(b, a, Relation::Equivalence, 1.0));
/// }
/// let warnings = validate(&reference, &swapped, None, None, &iris);
/// assert_eq!(warnings.len(), 1);
/// assert_eq!(warnings[0].code, "swapped-sides");
/// assert!(validate(&reference, &reference, None, None, &iris).is_empty());
/// ```
///
/// The passes over a system of at least 32,768 cells run on rayon's threads (same result).
#[must_use]
pub fn validate(
    reference: &Alignment,
    system: &Alignment,
    onto1: Option<&EntityTypes>,
    onto2: Option<&EntityTypes>,
    interner: &Interner,
) -> Vec<Diagnostic> {
    validate_from(reference, system, onto1, onto2, interner, PAR_MIN)
}

/// [`validate`], its passes over the system on rayon's threads when the system has at least
/// `par_min` cells.
pub(crate) fn validate_from(
    reference: &Alignment,
    system: &Alignment,
    onto1: Option<&EntityTypes>,
    onto2: Option<&EntityTypes>,
    interner: &Interner,
    par_min: usize,
) -> Vec<Diagnostic> {
    let par = system.len() >= par_min;
    let mut out = Vec::new();
    swapped_sides(reference, system, onto1.zip(onto2), par, &mut out);
    if let (Some(o1), Some(o2)) = (onto1, onto2) {
        absent_entities("system", system, o1, o2, interner, &mut out);
        absent_entities("reference", reference, o1, o2, interner, &mut out);
    }
    for (role, alignment) in [("system", system), ("reference", reference)] {
        if alignment.duplicates() > 0 {
            let mut message = format!(
                "{role}: {} repeated correspondence keys dropped (the first occurrence's confidence is kept)",
                alignment.duplicates()
            );
            let lines: Vec<String> =
                alignment.duplicate_lines().iter().filter(|&&l| l > 0).take(5).map(u32::to_string).collect();
            if !lines.is_empty() {
                let _ = write!(message, "; repeats at lines {}", lines.join(", "));
                if alignment.duplicates() > lines.len() {
                    message.push_str(", …");
                }
            }
            out.push(Diagnostic::warning("duplicate-cell", message));
        }
    }
    let cells = system.cells();
    let [unknown] = tally(par, cells.len(), |i| [u64::from(cells[i].relation == Relation::Unknown)]);
    if unknown > 0 {
        out.push(Diagnostic::warning(
            "unknown-relation",
            format!("system: {unknown} correspondences have relation `?` (unknown); they can only match `?` reference cells"),
        ));
    }
    out
}

fn swapped_sides(
    reference: &Alignment,
    system: &Alignment,
    ontologies: Option<(&EntityTypes, &EntityTypes)>,
    par: bool,
    out: &mut Vec<Diagnostic>,
) {
    let cells = system.cells();
    // A large system: a cell can only be in the reference (either way round) when its
    // entities are on the reference's sides; one bit test each before the hash lookup.
    let sides = par.then(|| {
        let (sources, targets) = (reference.iter().map(|c| c.entity1), reference.iter().map(|c| c.entity2));
        (EntityBits::of(sources), EntityBits::of(targets))
    });
    let may = |a: TermId, b: TermId| sides.as_ref().is_none_or(|(s, t)| s.contains(a) && t.contains(b));
    let [straight, swapped] = tally(par, cells.len(), |i| {
        let c = &cells[i];
        [
            u64::from(may(c.entity1, c.entity2) && reference.contains(&c.key())),
            u64::from(may(c.entity2, c.entity1) && reference.contains(&(c.entity2, c.entity1, c.relation.reversed()))),
        ]
    });
    if swapped >= 3 && swapped >= 2 * straight {
        out.push(Diagnostic::warning(
            "swapped-sides",
            format!(
                "system entity1/entity2 look swapped: {swapped} correspondences match the reference when turned \
                 around, {straight} as given"
            ),
        ));
        return;
    }
    let Some((onto1, onto2)) = ontologies else { return };
    let sources: FxHashSet<TermId> = system.iter().map(|c| c.entity1).collect();
    let wrong_side = sources.iter().filter(|&&e| onto1.kind(e).is_none() && onto2.kind(e).is_some()).count();
    if !sources.is_empty() && 2 * wrong_side > sources.len() {
        out.push(Diagnostic::warning(
            "swapped-sides",
            format!(
                "system entity1/entity2 look swapped: {wrong_side} of {} distinct entity1 IRIs occur in the target \
                 ontology but not in the source ontology",
                sources.len()
            ),
        ));
    }
}

fn absent_entities(
    role: &str,
    alignment: &Alignment,
    onto1: &EntityTypes,
    onto2: &EntityTypes,
    interner: &Interner,
    out: &mut Vec<Diagnostic>,
) {
    let is_null = |id: TermId| {
        let s = interner.resolve(id).trim();
        s.is_empty() || s.eq_ignore_ascii_case("null")
    };
    let mut seen: FxHashSet<TermId> = FxHashSet::default();
    let mut absent: Vec<TermId> = Vec::new();
    for cell in alignment {
        for (entity, onto) in [(cell.entity1, onto1), (cell.entity2, onto2)] {
            if onto.kind(entity).is_none() && seen.insert(entity) && !is_null(entity) {
                absent.push(entity);
            }
        }
    }
    if absent.is_empty() {
        return;
    }
    let shown: Vec<&str> = absent.iter().take(SHOWN_IRIS).map(|&e| interner.resolve(e)).collect();
    let more = if absent.len() > SHOWN_IRIS { ", …" } else { "" };
    out.push(Diagnostic::warning(
        "absent-entity",
        format!(
            "{role}: {} entity IRIs do not occur in their ontology (entity1 in onto1, entity2 in onto2): {}{more}",
            absent.len(),
            shown.join(", ")
        ),
    ));
}
