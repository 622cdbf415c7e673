//! The end of a cell: its measure and relation (with their warnings) and the record.

use kgeval_model::{Diagnostic, Relation};

use super::parser::Parser;
use super::records::CellRecord;
use crate::align::measure::{is_out_of_range, measure_value, out_of_range_warning, OUT_OF_RANGE};
use crate::FormatError;

impl Parser<'_, '_> {
    /// Parses a trimmed measure; a value outside [0, 1] is kept with a warning.
    pub(super) fn measure(&mut self, raw: &str, at: usize) -> Result<f64, FormatError> {
        let Some(value) = measure_value(raw) else {
            let text_at = self.starts_text_offset(at);
            return Err(self.err(
                text_at,
                format!("found measure {}: expected a number such as 0.75 (a confidence in [0, 1])", crate::echo(raw)),
            ));
        };
        if is_out_of_range(value) && self.out.keeps(OUT_OF_RANGE) {
            let location = self.location(at);
            self.out.warn(out_of_range_warning(&format!("measure {raw}"), location));
        }
        Ok(value)
    }

    /// Best-effort start of the text of the element that ends at `end_tag` (for messages).
    fn starts_text_offset(&self, end_tag: usize) -> usize {
        let before = &self.doc.as_bytes()[..end_tag.min(self.doc.len())];
        memchr::memrchr(b'>', before).map_or(end_tag, |i| i + 1)
    }

    /// Reads a relation token (trimmed unless MELT's reading is asked for).
    pub(super) fn relation(&mut self, raw: &str, at: usize) -> Relation {
        if self.options.melt_relations {
            return Relation::parse(raw).unwrap_or(Relation::Unknown);
        }
        let token = raw.trim();
        match Relation::parse(token) {
            Some(r) => r,
            None => {
                if self.out.keeps("unknown-relation") {
                    let message = format!("unknown relation {}: read as '?'", crate::echo(token));
                    let location = self.location(at);
                    self.out.warn(Diagnostic::warning("unknown-relation", message).at(location));
                }
                Relation::Unknown
            }
        }
    }

    pub(super) fn finish_cell(&mut self) -> Result<(), FormatError> {
        let cell = std::mem::take(&mut self.cell);
        if let Some(what) = cell.edoal {
            if self.options.skip_edoal {
                self.out.skipped += 1;
                return Ok(());
            }
            return Err(self.err(
                cell.at,
                format!(
                    "EDOAL / level-2 cell (entity is the expression {what}): expected entities given as IRIs (rdf:resource); skip such cells with --skip-edoal"
                ),
            ));
        }
        let [Some(entity1), Some(entity2)] = cell.entity else {
            let missing = if cell.entity[0].is_none() { "entity1" } else { "entity2" };
            return Err(
                self.err(cell.at, format!("found a Cell without {missing}: expected <{missing} rdf:resource=\"…\"/>"))
            );
        };
        self.out.cells.push(CellRecord {
            entity: [entity1, entity2],
            relation: cell.relation.unwrap_or(Relation::Equivalence),
            confidence: cell.measure.unwrap_or(1.0),
            line: cell.line,
            at: cell.at,
        });
        Ok(())
    }
}
