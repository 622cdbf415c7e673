//! Per-answer rank files.

use kgeval_model::kgc::{AnswerObservation, FilterScope, KgcVocabulary, RankObservation, Side, TestSet, Triple};
use kgeval_model::{Diagnostic, TermId};
use rustc_hash::FxHashMap;

use super::lines::{quoted, Field, Line, Text};
use super::ReadRanks;
use crate::warnings::Warnings;
use crate::FormatError;

const BASIC: [&str; 5] = ["head", "relation", "tail", "side", "rank"];
const RICH: [&str; 8] = ["head", "relation", "tail", "side", "rank", "n_greater", "n_equal", "num_candidates"];

pub(crate) fn read_ranks(
    input: &[u8],
    file: &str,
    test: &TestSet,
    vocabulary: &KgcVocabulary,
) -> Result<ReadRanks, FormatError> {
    let (entities, relations) = (&vocabulary.entities, &vocabulary.relations);
    let bound = vocabulary.candidate_bound();
    let text = Text::new(file, input)?;
    let mut lines = text.lines().filter(|l| !l.is_blank());
    let mut scope = None;
    let header = loop {
        let Some(line) = lines.next() else {
            return Err(FormatError::syntax(
                file,
                1,
                1,
                "found no header, expected `head\trelation\ttail\tside\trank`",
            ));
        };
        let Some(comment) = line.text.trim_start().strip_prefix('#') else { break line };
        if let Some(names) = comment.trim_start().strip_prefix("filter:") {
            let names: Vec<String> =
                names.split([' ', ',', '+', '\t']).filter(|n| !n.is_empty()).map(str::to_owned).collect();
            scope = Some(names);
        }
    };
    let Some(scope_names) = scope else {
        return Err(header.error(
            file,
            0,
            "found no `# filter: …` line before the header, expected the splits whose known answers were \
             removed, e.g. `# filter: train valid test`",
        ));
    };
    let columns: Vec<&str> = header.text.split('\t').map(str::trim).collect();
    let rich = if columns == RICH {
        true
    } else if columns == BASIC {
        false
    } else {
        return Err(header.error(
            file,
            0,
            match columns.iter().zip(BASIC).find(|&(found, wanted)| *found != wanted) {
                Some((found, wanted)) => format!(
                    "found the column {} where `{wanted}` belongs, expected `{}`, optionally followed by \
                     `n_greater`, `n_equal`, `num_candidates`",
                    crate::echo_cell(found),
                    BASIC.join(" ")
                ),
                None => format!(
                    "found a header of {} columns, expected `{}`, optionally followed by `n_greater`, `n_equal`, \
                     `num_candidates`",
                    columns.len(),
                    BASIC.join(" ")
                ),
            },
        ));
    };
    let names: &[&str] = if rich { &RICH } else { &BASIC };
    let mut seen: FxHashMap<(u32, TermId), u32> = FxHashMap::default();
    let mut observations = Vec::with_capacity(test.answer_pairs());
    let mut warnings = Warnings::default();
    let mut fields = Vec::with_capacity(names.len());
    for line in lines {
        line.expect_fields(file, names, &mut fields)?;
        let triple = test_triple(&line, &fields, file, test, entities, relations)?;
        let side = Side::from_name(fields[3].text.trim()).ok_or_else(|| {
            line.error(
                file,
                fields[3].start,
                format!("found side {}, expected `head` or `tail`", quoted(fields[3].text)),
            )
        })?;
        let (question, answer) = test.question_of(triple, side);
        if let Some(first) = seen.insert((question, answer), line.number) {
            return Err(line.error(
                file,
                0,
                format!("found the {side} side of this triple again (first at line {first}), expected one rank each"),
            ));
        }
        let rank = number(&line, fields[4], file, "rank")?;
        if rank < 1.0 {
            return Err(line.error(file, fields[4].start, format!("found rank {rank}, expected a rank ≥ 1")));
        }
        if rank > bound.value() as f64 {
            return Err(line.error(
                file,
                fields[4].start,
                format!("found rank {rank}, expected at most {}, {}", bound.value(), bound.reason()),
            ));
        }
        let (observed, candidates) = if rich {
            let greater = count(&line, fields[5], file, "n_greater")?;
            let equal = count(&line, fields[6], file, "n_equal")?;
            let candidates = count(&line, fields[7], file, "num_candidates")?;
            if candidates > bound.value() {
                return Err(line.error(
                    file,
                    fields[7].start,
                    format!(
                        "found num_candidates {candidates}, expected at most {}, {}",
                        bound.value(),
                        bound.reason()
                    ),
                ));
            }
            if equal == 0 || greater.checked_add(equal).is_none_or(|tie_end| tie_end > candidates) {
                return Err(line.error(
                    file,
                    fields[6].start,
                    format!(
                        "found n_greater {greater}, n_equal {equal}, num_candidates {candidates}, expected \
                         n_equal ≥ 1 and n_greater + n_equal ≤ num_candidates"
                    ),
                ));
            }
            if rank < (greater + 1) as f64 || rank > (greater + equal) as f64 {
                warnings.push("rank-outside-tie", || {
                    Diagnostic::warning(
                        "rank-outside-tie",
                        format!("rank {rank} is outside the tie {}..={} its counts give", greater + 1, greater + equal),
                    )
                    .at(line.location(file, fields[4].start))
                });
            }
            (RankObservation::Counts { greater, equal }, Some(candidates))
        } else {
            (RankObservation::Rank(rank), None)
        };
        observations.push(AnswerObservation { question, answer, observed, candidates });
    }
    for (i, &triple) in test.file.triples.iter().enumerate() {
        for side in Side::BOTH {
            if !seen.contains_key(&test.question_of(triple, side)) {
                return Err(FormatError::unfit(
                    &test.file.name,
                    test.file.lines[i],
                    1,
                    format!("found no rank for the {side} side of this triple in {file}, expected one per test triple and side"),
                ));
            }
        }
    }
    let scope = if scope_names.iter().any(|n| n.eq_ignore_ascii_case("test")) {
        FilterScope::Known
    } else {
        FilterScope::Filters
    };
    Ok(ReadRanks { scope, scope_names, observations, warnings: warnings.finish(file) })
}

fn test_triple(
    line: &Line<'_>,
    fields: &[Field<'_>],
    file: &str,
    test: &TestSet,
    entities: &kgeval_model::Interner,
    relations: &kgeval_model::Interner,
) -> Result<Triple, FormatError> {
    let entity = |field: Field<'_>| {
        entities.get(field.text.trim()).ok_or_else(|| {
            line.unfit(
                file,
                field.start,
                format!(
                    "found entity {}, expected an entity of the gold (its splits or entity list)",
                    quoted(field.text.trim())
                ),
            )
        })
    };
    let head = entity(fields[0])?;
    let tail = entity(fields[2])?;
    let relation = relations.get(fields[1].text.trim());
    relation.map(|relation| Triple { head, relation, tail }).filter(|t| test.triple_index(t).is_some()).ok_or_else(
        || line.unfit(file, 0, format!("found a triple that is not in {}, expected a test triple", test.file.name)),
    )
}

fn number(line: &Line<'_>, field: Field<'_>, file: &str, name: &str) -> Result<f64, FormatError> {
    match field.text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(line.error(file, field.start, format!("found {name} {}, expected a number", quoted(field.text)))),
    }
}

fn count(line: &Line<'_>, field: Field<'_>, file: &str, name: &str) -> Result<u64, FormatError> {
    field.text.trim().parse::<u64>().map_err(|_| {
        line.error(file, field.start, format!("found {name} {}, expected a non-negative integer", quoted(field.text)))
    })
}
