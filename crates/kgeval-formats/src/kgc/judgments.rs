//! Judgments (`s p o {Y,N}`), pool depths (`s p o depth`) and relation weights
//! (`relation weight`).

use std::collections::HashMap;

use kgeval_model::kgc::{Judgment, KgcVocabulary, PooledTriple, Triple};
use kgeval_model::meta::pool::MAX_POOL_DEPTH;
use kgeval_model::{Diagnostic, TermId};

use super::lines::{quoted, Text};
use super::triples::triple;
use super::ReadJudgments;
use crate::warnings::Warnings;
use crate::FormatError;

pub(crate) fn read_judgments(
    input: &[u8],
    file: &str,
    vocabulary: &mut KgcVocabulary,
) -> Result<ReadJudgments, FormatError> {
    let text = Text::new(file, input)?;
    let mut judgments = Vec::new();
    let mut warnings = Warnings::default();
    let mut fields = Vec::with_capacity(4);
    // The first judgment of each triple (its line and label): a later, different label is a
    // `conflicting-judgment` warning naming both lines (the first is kept downstream).
    let mut first: HashMap<Triple, (u32, bool)> = HashMap::new();
    for line in text.lines() {
        if line.is_blank() {
            continue;
        }
        line.fields_into(&mut fields);
        let blank = fields.len() == 3 || (fields.len() == 4 && fields[3].text.trim().is_empty());
        if blank {
            if let Some(empty) = fields[..3].iter().find(|f| f.text.trim().is_empty()) {
                return Err(line.error(
                    file,
                    empty.start,
                    "found an empty field, expected `head<TAB>relation<TAB>tail<TAB>{Y,N}`",
                ));
            }
            warnings.push("blank-judgment", || {
                Diagnostic::warning("blank-judgment", "found no judgment; read as N (not relevant)")
                    .at(line.location(file, line.text.len()))
            });
        } else {
            line.expect_fields(file, &["head", "relation", "tail", "judgment"], &mut fields)?;
        }
        let relevant = match fields.get(3).map(|f| f.text.trim()) {
            None | Some("") => false,
            Some("Y" | "y") => true,
            Some("N" | "n") => false,
            Some(other) => {
                return Err(line.error(
                    file,
                    fields[3].start,
                    format!("found judgment {}, expected Y or N", quoted(other)),
                ))
            }
        };
        let triple = triple(vocabulary, &line, &fields, file)?;
        let &mut (first_line, first_label) = first.entry(triple).or_insert((line.number, relevant));
        if first_label != relevant {
            let column = fields.get(3).map_or(line.text.len(), |f| f.start);
            warnings.push("conflicting-judgment", || {
                let label = |r: bool| if r { "Y" } else { "N" };
                Diagnostic::warning(
                    "conflicting-judgment",
                    format!(
                        "found judgment {} for this triple, expected {} as at line {first_line} (the first judgment is kept)",
                        label(relevant),
                        label(first_label)
                    ),
                )
                .at(line.location(file, column))
            });
        }
        judgments.push(Judgment { triple, relevant, line: line.number });
    }
    Ok(ReadJudgments { judgments, warnings: warnings.finish(file) })
}

pub(crate) fn read_pool_depths(
    input: &[u8],
    file: &str,
    vocabulary: &mut KgcVocabulary,
) -> Result<Vec<PooledTriple>, FormatError> {
    let text = Text::new(file, input)?;
    let mut out = Vec::new();
    let mut fields = Vec::with_capacity(4);
    for line in text.lines() {
        if line.is_blank() {
            continue;
        }
        line.expect_fields(file, &["head", "relation", "tail", "depth"], &mut fields)?;
        let depth = match fields[3].text.trim().parse::<u32>() {
            Ok(depth) if depth <= MAX_POOL_DEPTH => depth,
            _ => {
                return Err(line.error(
                    file,
                    fields[3].start,
                    format!("found depth {}, expected a pool depth from 0 to {MAX_POOL_DEPTH}", quoted(fields[3].text)),
                ))
            }
        };
        let triple = triple(vocabulary, &line, &fields, file)?;
        out.push(PooledTriple { triple, depth, line: line.number });
    }
    Ok(out)
}

pub(crate) fn read_relation_weights(
    input: &[u8],
    file: &str,
    vocabulary: &mut KgcVocabulary,
) -> Result<Vec<(TermId, f64)>, FormatError> {
    let text = Text::new(file, input)?;
    let mut out: Vec<(TermId, f64)> = Vec::new();
    let mut fields = Vec::with_capacity(2);
    for line in text.lines() {
        if line.is_blank() || line.text.starts_with('#') {
            continue;
        }
        line.expect_fields(file, &["relation", "weight"], &mut fields)?;
        let weight = match fields[1].text.trim().parse::<f64>() {
            Ok(w) if w.is_finite() && w >= 0.0 => w,
            _ => {
                return Err(line.error(
                    file,
                    fields[1].start,
                    format!("found weight {}, expected a finite number ≥ 0", quoted(fields[1].text)),
                ))
            }
        };
        let relation = vocabulary.relations.intern(fields[0].text.trim());
        if out.iter().any(|(r, _)| *r == relation) {
            return Err(line.error(file, fields[0].start, "found this relation again, expected each relation once"));
        }
        out.push((relation, weight));
    }
    Ok(out)
}
