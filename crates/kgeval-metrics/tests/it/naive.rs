//! A literal transcription of the specification's pseudocode (sets as vectors, quadratic), used
//! as an oracle for the indexed engine in the property tests.

use kgeval_metrics::align::CompletenessMode;
use kgeval_model::{Alignment, CellKey, Interner, Relation};

/// `(tp, fp, fn, ignored)` of the melt profile, relation-sensitive.
pub fn naive_counts(
    reference: &Alignment,
    system: &Alignment,
    mode: CompletenessMode,
    interner: &Interner,
) -> (u64, u64, u64, u64) {
    let s: Vec<CellKey> = system.iter().map(|c| c.key()).collect();
    let is_null = |id| {
        let text: &str = interner.resolve(id).trim();
        text.is_empty() || text.eq_ignore_ascii_case("null")
    };
    let mut tp: Vec<CellKey> = Vec::new();
    let mut fp: Vec<CellKey> = Vec::new();
    let mut fn_ = 0u64;
    let add = |set: &mut Vec<CellKey>, k: CellKey| {
        if !set.contains(&k) {
            set.push(k);
        }
    };
    if mode == CompletenessMode::Complete {
        fp = s.clone();
        for r in reference {
            if r.relation == Relation::Unknown {
                fp.retain(|k| (k.0, k.1) != (r.entity1, r.entity2));
            } else if s.contains(&r.key()) {
                add(&mut tp, r.key());
                fp.retain(|k| *k != r.key());
            } else {
                fn_ += 1;
            }
        }
    } else {
        let (source_complete, target_complete) = match mode {
            CompletenessMode::Partial => (true, true),
            CompletenessMode::PartialSource => (true, false),
            CompletenessMode::PartialTarget => (false, true),
            _ => (false, false),
        };
        for r in reference {
            if r.relation == Relation::Unknown {
                continue;
            }
            if r.relation == Relation::Incompatible {
                for &k in &s {
                    let hit = if is_null(r.entity2) {
                        k.0 == r.entity1 && k.2 == Relation::Equivalence
                    } else if is_null(r.entity1) {
                        k.1 == r.entity2 && k.2 == Relation::Equivalence
                    } else {
                        k == (r.entity1, r.entity2, Relation::Equivalence)
                    };
                    if hit {
                        add(&mut fp, k);
                    }
                }
                continue;
            }
            if s.contains(&r.key()) {
                add(&mut tp, r.key());
            } else {
                fn_ += 1;
            }
            for &k in &s {
                if target_complete && k.1 == r.entity2 && k.2 == r.relation && k != r.key() {
                    add(&mut fp, k);
                }
                if source_complete && k.0 == r.entity1 && k.2 == r.relation && k != r.key() {
                    add(&mut fp, k);
                }
            }
        }
        fp.retain(|k| !tp.contains(k));
    }
    let ignored = s.len() as u64 - tp.len() as u64 - fp.len() as u64;
    (tp.len() as u64, fp.len() as u64, fn_, ignored)
}
