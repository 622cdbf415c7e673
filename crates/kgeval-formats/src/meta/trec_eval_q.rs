//! trec_eval's `-q` output read back as a score table (one file per run).
//!
//! Each line is `measure \t query \t value` (trec_eval pads the measure with spaces; any run
//! of whitespace separates the three fields). The query `all` is the summary line: it becomes
//! the system's headline, not an item. Values that are not numbers (`runid`, `relstring`) are
//! skipped; measures keep trec_eval's names (`map`, `P_10`, `ndcg_cut_10`) with the
//! vocabulary's info, summary-only measures (`num_q`, `gm_map`) aggregate-only.
//!
//! ```
//! use kgeval_formats::meta::trec_eval_q::read_trec_eval_q;
//! let out = b"map\t301\t0.5\nmap\t302\t0.25\nrunid\tall\tbm25\nmap\tall\t0.375\n";
//! let table = read_trec_eval_q(out, "bm25.txt", "bm25")?;
//! let (bm25, _, map) = table.find("bm25", "301", "map").unwrap();
//! assert_eq!(table.mean(bm25, map), Some(0.375));
//! assert_eq!(table.headline(bm25, map), Some(0.375));
//! # Ok::<(), kgeval_formats::FormatError>(())
//! ```

use kgeval_model::metric_names::metric_info;
use kgeval_model::ScoreTable;

use crate::error::utf8_text;
use crate::lines::lines;
use crate::FormatError;

/// Measures whose value is a string, not a number.
const TEXT_MEASURES: [&str; 2] = ["runid", "relstring"];

/// Reads one run's trec_eval `-q` output into a table with one system, `system`.
///
/// # Errors
/// [`FormatError::Syntax`] for an empty system name, an empty input, a line without three fields, a numeric
/// measure whose value is not a number, or a (measure, query) given twice with different
/// values.
pub fn read_trec_eval_q(input: &[u8], file: &str, system: &str) -> Result<ScoreTable, FormatError> {
    let text = utf8_text(file, input)?;
    if system.trim().is_empty() {
        return Err(FormatError::syntax(file, 1, 1, "found an empty system name, expected a name for the run"));
    }
    let mut table = ScoreTable::new();
    let s = table.system(system);
    let mut any = false;
    for line in lines(text).filter(|line| !line.is_blank()) {
        any = true;
        let fields: Vec<&str> = line.text.split_whitespace().collect();
        let [measure, query, value] = fields[..] else {
            return Err(FormatError::syntax(
                file,
                line.number,
                1,
                format!("found {} fields, expected `measure query value` (trec_eval -q output)", fields.len()),
            ));
        };
        if TEXT_MEASURES.contains(&measure) {
            continue;
        }
        let Ok(number) = value.parse::<f64>() else {
            let column = line.text.rfind(value).map_or(1, |at| line.text[..at].chars().count() as u32 + 1);
            return Err(FormatError::syntax(
                file,
                line.number,
                column,
                format!("found value {} for measure {}, expected a number", crate::echo(value), crate::echo(measure)),
            ));
        };
        let duplicate = |old: f64| {
            FormatError::syntax(
                file,
                line.number,
                1,
                format!(
                    "found a second value {number} for measure {}, query {} (first {old}), expected one",
                    crate::echo(measure),
                    crate::echo(query)
                ),
            )
        };
        if query == "all" {
            let info = metric_info(measure);
            let m = match table.find_metric(measure) {
                Some(m) => m,
                None if is_summary_only(measure) => table.metric_with_info(measure, info.aggregate()),
                None => table.metric(measure),
            };
            if let Some(old) = table.headline(s, m).filter(|old| old.to_bits() != number.to_bits()) {
                return Err(duplicate(old));
            }
            table.set_headline(s, m, number);
        } else {
            let m = table.metric(measure);
            let i = table.item(query, &[]);
            if let Some(old) = table.get(s, i, m).filter(|old| old.to_bits() != number.to_bits()) {
                return Err(duplicate(old));
            }
            table.set(s, i, m, number);
        }
    }
    if !any {
        return Err(FormatError::syntax(file, 1, 1, "found an empty file, expected trec_eval -q output"));
    }
    Ok(table)
}

/// trec_eval's measures that have a summary value only (no per-query line).
fn is_summary_only(measure: &str) -> bool {
    measure == "num_q" || measure.starts_with("gm_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_and_headlines() {
        let out = b"num_ret               \t301\t500\nmap                   \t301\t0.0324\nmap\t302\t0.5\nrunid\tall\tSTANDARD\nnum_q\tall\t2\nmap\tall\t0.2662\ngm_map\tall\t0.1\n";
        let table = read_trec_eval_q(out, "r.txt", "R").unwrap();
        assert_eq!(table.items().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["301", "302"]);
        let (r, q302, map) = table.find("R", "302", "map").unwrap();
        assert_eq!(table.get(r, q302, map), Some(0.5));
        assert_eq!(table.headline(r, map), Some(0.2662));
        let num_q = table.find_metric("num_q").unwrap();
        assert_eq!(table.metric_info(num_q).level, kgeval_model::metric_names::Level::Aggregate);
        assert_eq!(table.metrics().collect::<Vec<_>>(), ["num_ret", "map", "num_q", "gm_map"]);
    }

    #[test]
    fn bad_input_is_located() {
        let error = |out: &[u8]| read_trec_eval_q(out, "r.txt", "R").unwrap_err().to_string();
        assert_eq!(error(b"\n\n"), "r.txt:1:1: found an empty file, expected trec_eval -q output");
        assert_eq!(
            read_trec_eval_q(b"map 1 0.5\n", "r.txt", " ").unwrap_err().to_string(),
            "r.txt:1:1: found an empty system name, expected a name for the run"
        );
        assert_eq!(
            error(b"map\t301\t0.5\nmap 302\n"),
            "r.txt:2:1: found 2 fields, expected `measure query value` (trec_eval -q output)"
        );
        assert_eq!(error(b"map\t301\tx\n"), "r.txt:1:9: found value \"x\" for measure \"map\", expected a number");
        assert!(error(b"map\t301\t0.5\nmap\t301\t0.6\n").starts_with("r.txt:2:1: found a second value 0.6"));
    }
}
