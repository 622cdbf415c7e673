//! Judgments (`s p o {Y,N}`), pool depths (`s p o depth`) and relation weights
//! (`relation weight`).

use kgeval_model::kgc::{Judgment, KgcVocabulary, PooledTriple};
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
        let depth = fields[3].text.trim().parse::<u32>().map_err(|_| {
            line.error(
                file,
                fields[3].start,
                format!("found depth {}, expected a pool depth (an integer)", quoted(fields[3].text)),
            )
        })?;
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
