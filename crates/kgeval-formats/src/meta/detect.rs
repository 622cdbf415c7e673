//! Which score-table format a meta-evaluation input is, told from its content.
//!
//! The rules, in order, on the (decompressed) bytes: a first non-blank character `{` or `[`
//! is kgeval's JSON with `per_item`; a first non-blank line of three whitespace-separated
//! fields without a comma, the last a number (or `runid all NAME`), is trec_eval's `-q`
//! output; a CSV header naming `system`, `item`,
//! `metric` and `value` is the long CSV; any other comma-separated header is the wide
//! system × metric CSV (kgc-sparsity `evaluation.csv`).
//!
//! ```
//! use kgeval_formats::meta::detect::{detect, MetaInputFormat};
//! assert_eq!(detect(b"{\"per_item\": []}"), Some(MetaInputFormat::PerItemJson));
//! assert_eq!(detect(b"map   \t301\t0.25\n"), Some(MetaInputFormat::TrecEval));
//! assert_eq!(detect(b"system,item,metric,value\n"), Some(MetaInputFormat::LongCsv));
//! assert_eq!(detect(b"System,micro_mrr\nA,0.3\n"), Some(MetaInputFormat::WideCsv));
//! assert_eq!(detect(b"hello\n"), None);
//! ```

use super::long_csv::split_csv;

/// The score-table formats `kgeval compare` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MetaInputFormat {
    /// A kgeval JSON result written with `--per-item` (any family).
    PerItemJson,
    /// trec_eval's `-q` output (`measure \t query \t value`), one file per run.
    TrecEval,
    /// A long CSV, `system,item,metric,value`.
    LongCsv,
    /// A wide system × metric CSV (kgc-sparsity `evaluation.csv`, `pooling_depth.csv`): no
    /// per-item values, so ranking agreement only.
    WideCsv,
}

impl MetaInputFormat {
    /// Every format, in `--input-format` order.
    pub const ALL: [MetaInputFormat; 4] =
        [MetaInputFormat::PerItemJson, MetaInputFormat::TrecEval, MetaInputFormat::LongCsv, MetaInputFormat::WideCsv];

    /// The `--input-format` name: `per-item-json`, `trec-eval`, `long-csv`, `wide-csv`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            MetaInputFormat::PerItemJson => "per-item-json",
            MetaInputFormat::TrecEval => "trec-eval",
            MetaInputFormat::LongCsv => "long-csv",
            MetaInputFormat::WideCsv => "wide-csv",
        }
    }

    /// Parses an `--input-format` name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether the format carries per-item values (what significance tests need).
    #[must_use]
    pub const fn has_items(self) -> bool {
        !matches!(self, MetaInputFormat::WideCsv)
    }
}

impl std::fmt::Display for MetaInputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The format of `input` by its content, `None` when no rule fits.
#[must_use]
pub fn detect(input: &[u8]) -> Option<MetaInputFormat> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let start = input.iter().position(|b| !b.is_ascii_whitespace())?;
    if matches!(input[start], b'{' | b'[') {
        return Some(MetaInputFormat::PerItemJson);
    }
    let rest = &input[start..];
    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    let line = String::from_utf8_lossy(&rest[..end]);
    let line = line.trim_end_matches('\r');
    if !line.contains(',') {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let trec_eval = match fields[..] {
            ["runid", "all", _] => true,
            [_, _, value] => value.parse::<f64>().is_ok(),
            _ => false,
        };
        return trec_eval.then_some(MetaInputFormat::TrecEval);
    }
    let header = split_csv("", 1, line).ok()?;
    let has = |name: &str| header.iter().any(|h| h.trim().eq_ignore_ascii_case(name));
    if ["system", "item", "metric", "value"].into_iter().all(has) {
        Some(MetaInputFormat::LongCsv)
    } else {
        Some(MetaInputFormat::WideCsv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_edge_cases() {
        for format in MetaInputFormat::ALL {
            assert_eq!(MetaInputFormat::from_name(format.name()), Some(format));
        }
        assert_eq!(detect(b""), None);
        assert_eq!(detect(b"  \n\t"), None);
        assert_eq!(detect(b"\xEF\xBB\xBF\n  [ ]"), Some(MetaInputFormat::PerItemJson));
        assert_eq!(detect(b"\nP_10 all 0.5\r\n"), Some(MetaInputFormat::TrecEval));
        assert_eq!(detect(b"runid  \tall\tbm25\n"), Some(MetaInputFormat::TrecEval));
        assert_eq!(detect(b"these are notes\n"), None);
        assert_eq!(detect(b"Value,Metric,Item,System\r\n"), Some(MetaInputFormat::LongCsv));
        assert!(!MetaInputFormat::WideCsv.has_items());
    }
}
