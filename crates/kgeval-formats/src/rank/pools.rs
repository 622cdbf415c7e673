//! DISO `pools.jsonl`.

use kgeval_model::rank::{Pool, PoolSet};
use kgeval_model::{Diagnostic, Interner};

use super::json::{self, key_offset, missing_key, LineKind};
use super::text::{quoted, Source};
use super::ReadPools;
use crate::FormatError;

const EXPECTED: &str = "a pool {\"qid\", \"source\", \"type\", \"candidates\"}";

pub(super) fn read(input: &[u8], file: &str, interner: &mut Interner) -> Result<ReadPools, FormatError> {
    let src = Source::new(file, input)?;
    let mut pools = PoolSet::new();
    let mut warnings = Vec::new();
    for line in src.lines() {
        if line.is_blank() {
            continue;
        }
        let parsed = json::parse_line(&src, &line, LineKind::Pool, interner, "")?;
        let qid = parsed.qid.ok_or_else(|| missing_key(&src, &line, "qid", EXPECTED))?;
        let source = parsed.source.ok_or_else(|| missing_key(&src, &line, "source", EXPECTED))?;
        let candidates = parsed.candidates.ok_or_else(|| missing_key(&src, &line, "candidates", EXPECTED))?;
        let entity_type = match parsed.entity_type {
            Some(entity_type) => entity_type,
            None => {
                warnings.push(
                    Diagnostic::warning("pool-without-type", format!("pool {} has no `type`", quoted(&qid)))
                        .at(src.location(line.offset)),
                );
                None
            }
        };
        let pool = Pool { qid, source, entity_type, candidates, line: line.number };
        if let Err(first) = pools.insert(pool) {
            let message = format!(
                "found qid {} again (first at line {}), expected each qid once",
                quoted(&first.qid),
                first.line
            );
            return Err(src.error(key_offset(&line, "qid"), message));
        }
    }
    if pools.is_empty() {
        return Err(src.empty_error("one JSON pool object per line"));
    }
    Ok(ReadPools { pools, warnings })
}
