//! OntoAligner-style scored pairs: TSV `source, target[, score]` under a header, or a JSON
//! array of `{"source", "target", "score"?}` objects.

use kgeval_model::rank::ScoredPair;
use kgeval_model::Interner;
use serde::Deserialize;

use super::json::json_error;
use super::text::{parse_score, Cell, Source};
use crate::FormatError;

pub(super) fn read(input: &[u8], file: &str, interner: &mut Interner) -> Result<Vec<ScoredPair>, FormatError> {
    let src = Source::new(file, input)?;
    let Some(first) = src.first_content_line() else {
        return Err(
            src.empty_error("scored pairs (a `source<TAB>target[<TAB>score]` header and rows, or a JSON array)")
        );
    };
    if first.text.trim_start().starts_with('[') {
        return read_json(&src, interner);
    }
    read_tsv(&src, interner)
}

#[derive(Deserialize)]
struct JsonPair {
    source: String,
    target: String,
    #[serde(default)]
    score: Option<f64>,
}

fn read_json(src: &Source<'_>, interner: &mut Interner) -> Result<Vec<ScoredPair>, FormatError> {
    let pairs: Vec<JsonPair> = serde_json::from_str(src.text).map_err(|e| json_error(src, 0, src.text, &e))?;
    let mut out = Vec::with_capacity(pairs.len());
    for (index, pair) in pairs.into_iter().enumerate() {
        if pair.source.trim().is_empty() || pair.target.trim().is_empty() {
            let message = format!("found an empty IRI in pair {}, expected `source` and `target` IRIs", index + 1);
            return Err(src.error(0, message));
        }
        let score = pair.score.unwrap_or(0.0);
        out.push(ScoredPair { source: interner.intern(&pair.source), target: interner.intern(&pair.target), score });
    }
    Ok(out)
}

fn read_tsv(src: &Source<'_>, interner: &mut Interner) -> Result<Vec<ScoredPair>, FormatError> {
    let mut cells: Vec<Cell<'_>> = Vec::new();
    let mut width: Option<usize> = None;
    let mut out = Vec::new();
    for line in src.lines() {
        if line.is_blank() {
            continue;
        }
        line.cells_into(&mut cells);
        let Some(width) = width else {
            let names: Vec<String> = cells.iter().map(|c| c.text.to_ascii_lowercase()).collect();
            let known = matches!(
                names.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
                ["source" | "srcentity", "target" | "tgtentity"]
                    | ["source" | "srcentity", "target" | "tgtentity", "score"]
            );
            if !known {
                let first = cells.first().map_or("", |c| c.text.as_ref());
                let message = format!(
                    "found a header of {} cells starting {}, expected `source<TAB>target` or \
                     `source<TAB>target<TAB>score`",
                    cells.len(),
                    crate::echo_cell(first)
                );
                return Err(src.error(line.offset, message));
            }
            width = Some(cells.len());
            continue;
        };
        if cells.len() != width {
            let at = cells.get(width).map_or(line.offset + line.text.len(), |c| c.offset);
            return Err(src.error(at, format!("found {} cells, expected {width} as in the header", cells.len())));
        }
        for cell in &cells[..2] {
            if cell.text.is_empty() {
                return Err(src.error(cell.offset, "found an empty IRI, expected a value"));
            }
        }
        let score = match cells.get(2) {
            Some(cell) if !cell.text.is_empty() => parse_score(&cell.text).map_err(|m| src.error(cell.offset, m))?,
            _ => 0.0,
        };
        out.push(ScoredPair {
            source: interner.intern(&cells[0].text),
            target: interner.intern(&cells[1].text),
            score,
        });
    }
    Ok(out)
}
