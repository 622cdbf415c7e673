//! Rendering of IR-run evaluations: trec_eval's text output byte for byte, JSON, CSV/TSV and
//! a Markdown summary table.

use std::fmt::Write as _;

use kgeval_model::trec::{IrEvaluation, Measure, MeasureFamily, RunEvaluation};
use kgeval_model::ScoreTable;
use serde_json::{json, Map, Value};

use crate::common::{csv_field, per_item_json, pretty, text_field};
use crate::{format_fixed, OutputFormat, RenderOptions, Table};

/// What trec_eval's text mode prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrecTextLines {
    /// Per-topic lines (`-q`).
    pub per_topic: bool,
    /// The `all` summary (off with `-n`).
    pub summary: bool,
}

impl Default for TrecTextLines {
    fn default() -> Self {
        TrecTextLines { per_topic: false, summary: true }
    }
}

/// Renders `evaluation` in `format`: [`OutputFormat::Text`] is trec_eval's text output
/// (lines chosen by `options.trec_lines`), [`OutputFormat::Csv`] is TSV when
/// `options.tab_separated`. `table` (the per-item score table) is embedded in JSON when
/// `options.per_item`.
///
/// With two runs or more, the text output puts a `# run: NAME` line before each run's block
/// (the run's [`name`](RunEvaluation::name), else its source), so the blocks can be told
/// apart; one run prints trec_eval's bytes, with no such line.
#[must_use]
pub fn render_ir(
    evaluation: &IrEvaluation,
    format: OutputFormat,
    options: &RenderOptions,
    table: &ScoreTable,
) -> String {
    match format {
        OutputFormat::Text => {
            let several = evaluation.runs.len() > 1;
            let mut out = String::new();
            for run in &evaluation.runs {
                if several {
                    let _ = writeln!(out, "# run: {}", text_field(run_name(run)));
                }
                out.push_str(&trec_eval_text(run, evaluation, options.trec_lines, options.precision));
            }
            out
        }
        OutputFormat::Json => pretty(&ir_json(evaluation, options, table)),
        OutputFormat::Csv => delimited(evaluation, if options.tab_separated { '\t' } else { ',' }),
        OutputFormat::Markdown => markdown(evaluation, options),
    }
}

/// One run as trec_eval prints it: per-topic lines in qid order (with `-q`), then the summary
/// lines, `runid` first among them in trec_eval's measure order. Values have `precision`
/// decimals (trec_eval's `%6.4f` at 4, [`RenderOptions`]'s default); qids and the run id are
/// printed through [`text_field`] (no id can add a line or an escape sequence).
#[must_use]
pub fn trec_eval_text(
    run: &RunEvaluation,
    evaluation: &IrEvaluation,
    lines: TrecTextLines,
    precision: usize,
) -> String {
    let measures = evaluation.measures.measures();
    let mut out = String::new();
    if lines.per_topic {
        for (index, topic) in run.topics.iter().enumerate() {
            let relstring = run.relstrings.get(index).map_or("", String::as_str);
            for (i, (measure, &value)) in measures.iter().zip(&topic.values).enumerate() {
                if measure.family.per_topic() {
                    let beside = Beside {
                        range: topic.ranges.get(i).copied(),
                        std_error: topic.std_errors.get(i).copied().flatten(),
                    };
                    trec_line(&mut out, measure, &text_field(&topic.qid), value, relstring, beside, precision);
                }
            }
        }
    }
    if lines.summary {
        for (i, (measure, &value)) in measures.iter().zip(&run.summary).enumerate() {
            if measure.family.has_summary() {
                let beside = Beside {
                    range: run.summary_ranges.get(i).copied(),
                    std_error: run.summary_std_errors.get(i).copied().flatten(),
                };
                trec_line(&mut out, measure, "all", value, &text_field(&run.run_id), beside, precision);
            }
        }
    }
    out
}

/// What a line prints after its value under a tie policy: the standard error of an estimate
/// and the [pessimistic, optimistic] interval.
#[derive(Debug, Clone, Copy, Default)]
struct Beside {
    range: Option<(f64, f64)>,
    std_error: Option<f64>,
}

/// One line: `text` is the run id (`runid`) or the relevance string (`relstring`, quoted).
/// Under a tie policy an estimate adds `\t±SE estimate` and `--ties range` adds
/// `\t[LOW, HIGH]`; the first three columns stay trec_eval's. Values and intervals have
/// `precision` decimals.
fn trec_line(out: &mut String, measure: &Measure, qid: &str, value: f64, text: &str, beside: Beside, precision: usize) {
    let name = &measure.name;
    // Writing to a String cannot fail.
    let _ = if measure.family == MeasureFamily::Runid {
        write!(out, "{name:<22}\t{qid}\t{text}")
    } else if measure.family == MeasureFamily::Relstring {
        write!(out, "{name:<22}\t{qid}\t'{text}'")
    } else if measure.family.is_count() && value.fract() == 0.0 {
        write!(out, "{name:<22}\t{qid}\t{}", value.round() as i64)
    } else {
        write!(out, "{name:<22}\t{qid}\t{value:6.precision$}")
    };
    let counted = measure.family.is_count();
    let number =
        |v: f64| if counted && v.fract() == 0.0 { format!("{}", v as i64) } else { format!("{v:.precision$}") };
    if let Some(se) = beside.std_error {
        let _ = if se > 0.0 && se < 0.000_05 {
            write!(out, "\t±{se:.1e} estimate")
        } else {
            write!(out, "\t±{se:.precision$} estimate")
        };
    }
    if let Some((low, high)) =
        beside.range.filter(|_| !matches!(measure.family, MeasureFamily::Runid | MeasureFamily::Relstring))
    {
        let _ = write!(out, "\t[{}, {}]", number(low), number(high));
    }
    out.push('\n');
}

/// The JSON contract: `{"kgeval_version", "qrels", "conventions": {"tie_break", "ties",
/// "query_set", "relevance_level", "ndcg_uses_relevance_level", "max_docs", "reference"},
/// "measures": [NAME…], "runs": [{"run", "runid", "topics_evaluated",
/// "qrels_topics_missing_from_run", "run_topics_missing_from_qrels", "topics_with_tied_scores",
/// "summary": {NAME: value}, "topics": {QID: {NAME: value}}, "ranges"?: {"summary": {NAME:
/// [low, high]}, "topics": {QID: {NAME: [low, high]}}}, "std_errors"?: {"summary": {NAME: se},
/// "topics": {QID: {NAME: se}}}}], "per_item"?}`. `runid` is not repeated in `summary`;
/// `ranges` comes with `--ties range`, `std_errors` (estimated values only) when a value was
/// estimated from random orders of the tie groups.
#[must_use]
pub fn ir_json(evaluation: &IrEvaluation, options: &RenderOptions, table: &ScoreTable) -> Value {
    let o = &evaluation.options;
    let conventions = json!({
        "tie_break": o.tie_break.name(),
        "ties": o.ties.name(),
        "query_set": o.query_set.name(),
        "relevance_level": o.relevance_level,
        "ndcg_uses_relevance_level": o.ndcg_uses_level,
        "max_docs": o.max_docs,
        "reference": if o.ties.follows_tie_break() {
            "trec_eval 10.0 definitions; score descending, ties by the tie_break"
        } else {
            "trec_eval 10.0 definitions; score descending; each group of tied scores valued by `ties` (expected: the exact mean over uniformly random orders of every group, McSherry & Najork 2008), never by document names"
        },
    });
    let measures = evaluation.measures.measures();
    let names: Vec<&str> =
        measures.iter().filter(|m| m.family != MeasureFamily::Runid).map(|m| m.name.as_str()).collect();
    let runs: Vec<Value> = evaluation
        .runs
        .iter()
        .map(|run| {
            let summary = values_json(measures, &run.summary, None);
            let topics: Map<String, Value> = run
                .topics
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let relstring = run.relstrings.get(i).map_or("", String::as_str);
                    (t.qid.clone(), values_json(measures, &t.values, Some(relstring)))
                })
                .collect();
            let mut value = json!({
                "run": run_name(run),
                "source": run.source,
                "runid": run.run_id,
                "topics_evaluated": run.topics.len(),
                "qrels_topics_missing_from_run": run.qrels_topics_missing_from_run,
                "run_topics_missing_from_qrels": run.run_topics_missing_from_qrels,
                "topics_with_tied_scores": run.topics_with_tied_scores,
                "summary": summary,
                "topics": topics,
            });
            tie_fields(&mut value, run, measures);
            value
        })
        .collect();
    let mut root = json!({
        "kgeval_version": options.version,
        "qrels": evaluation.qrels_source,
        "conventions": conventions,
        "measures": names,
        "runs": runs,
    });
    if options.per_item {
        root["per_item"] = per_item_json(table);
    }
    root
}

/// The values of a topic (`relstring` = its relevance string) or of the summary (`None`).
fn values_json(measures: &[Measure], values: &[f64], relstring: Option<&str>) -> Value {
    let mut map = Map::new();
    for (measure, &value) in measures.iter().zip(values) {
        let shown = match relstring {
            Some(_) => measure.family.per_topic(),
            None => measure.family.has_summary(),
        };
        if measure.family == MeasureFamily::Runid || !shown {
            continue;
        }
        let value = if measure.family == MeasureFamily::Relstring {
            json!(relstring.unwrap_or(""))
        } else if measure.family.is_count() {
            json!(value.round() as i64)
        } else {
            json!(value)
        };
        map.insert(measure.name.clone(), value);
    }
    Value::Object(map)
}

/// `run,runid,qid,MEASURE…` rows: every evaluated topic, then `all`; full precision. Summary-only
/// measures are empty on topic rows, `relstring` on the `all` row.
fn delimited(evaluation: &IrEvaluation, separator: char) -> String {
    let measures: Vec<&Measure> =
        evaluation.measures.measures().iter().filter(|m| m.family != MeasureFamily::Runid).collect();
    let field = |s: &str| if separator == ',' { csv_field(s) } else { s.replace(['\t', '\n'], " ") };
    let mut out = String::new();
    let header: Vec<String> =
        ["run", "runid", "qid"].into_iter().map(str::to_owned).chain(measures.iter().map(|m| field(&m.name))).collect();
    out.push_str(&header.join(&separator.to_string()));
    out.push('\n');
    let all = evaluation.measures.measures();
    for run in &evaluation.runs {
        let rows = run
            .topics
            .iter()
            .enumerate()
            .map(|(i, t)| (t.qid.as_str(), &t.values, Some(run.relstrings.get(i).map_or("", String::as_str))))
            .chain([("all", &run.summary, None)]);
        for (qid, values, relstring) in rows {
            let per_topic = relstring.is_some();
            let mut cells = vec![field(run_name(run)), field(&run.run_id), field(qid)];
            for (measure, &value) in all.iter().zip(values.iter()) {
                if measure.family == MeasureFamily::Runid {
                    continue;
                }
                cells.push(
                    if per_topic && !measure.family.per_topic() || !per_topic && !measure.family.has_summary() {
                        String::new()
                    } else if measure.family == MeasureFamily::Relstring {
                        field(relstring.unwrap_or(""))
                    } else if measure.family.is_count() {
                        (value.round() as i64).to_string()
                    } else {
                        value.to_string()
                    },
                );
            }
            out.push_str(&cells.join(&separator.to_string()));
            out.push('\n');
        }
    }
    out
}

/// The run's name (`NAME=PATH`'s name, else the facade's default), else its source: the one
/// identity every format shows.
fn run_name(run: &RunEvaluation) -> &str {
    if run.name.is_empty() {
        &run.source
    } else {
        &run.name
    }
}

/// Adds `ranges` and `std_errors` to a run's JSON when the tie policy produced them.
fn tie_fields(value: &mut Value, run: &RunEvaluation, measures: &[Measure]) {
    let named = |values: Vec<(usize, Value)>| -> Map<String, Value> {
        values.into_iter().map(|(i, v)| (measures[i].name.clone(), v)).collect()
    };
    let has_value = |i: usize| !matches!(measures[i].family, MeasureFamily::Runid | MeasureFamily::Relstring);
    let range = |ranges: &[(f64, f64)]| {
        named(ranges.iter().enumerate().filter(|(i, _)| has_value(*i)).map(|(i, r)| (i, json!([r.0, r.1]))).collect())
    };
    let errors = |errors: &[Option<f64>]| {
        named(errors.iter().enumerate().filter_map(|(i, se)| se.map(|se| (i, json!(se)))).collect())
    };
    if !run.summary_ranges.is_empty() {
        let topics: Map<String, Value> =
            run.topics.iter().map(|t| (t.qid.clone(), Value::Object(range(&t.ranges)))).collect();
        value["ranges"] = json!({"summary": range(&run.summary_ranges), "topics": topics});
    }
    if !run.summary_std_errors.is_empty() {
        let topics: Map<String, Value> = run
            .topics
            .iter()
            .filter(|t| t.std_errors.iter().any(Option::is_some))
            .map(|t| (t.qid.clone(), Value::Object(errors(&t.std_errors))))
            .collect();
        value["std_errors"] = json!({"summary": errors(&run.summary_std_errors), "topics": topics});
    }
}

/// A measures × runs table of the summaries, with a header row of run names and a footer
/// stating the conventions.
fn markdown(evaluation: &IrEvaluation, options: &RenderOptions) -> String {
    let mut header = vec!["measure"];
    header.extend(evaluation.runs.iter().map(run_name));
    let numeric: Vec<bool> = header.iter().enumerate().map(|(i, _)| i > 0).collect();
    let mut table = Table::new(&header, &numeric);
    for (i, measure) in evaluation.measures.measures().iter().enumerate() {
        if !measure.family.has_summary() {
            continue;
        }
        let mut row = vec![measure.name.clone()];
        for run in &evaluation.runs {
            row.push(match measure.family {
                MeasureFamily::Runid => run.run_id.clone(),
                f if f.is_count() => (run.summary[i].round() as i64).to_string(),
                _ => format_fixed(run.summary[i], options.precision),
            });
        }
        table.row(row);
    }
    let o = &evaluation.options;
    let mut out = table.to_markdown();
    let _ = writeln!(
        out,
        "\nQrels {}; ties by {}; topics: {}; relevant iff rel ≥ {}.",
        crate::markdown_code(&evaluation.qrels_source),
        if o.ties.follows_tie_break() {
            o.tie_break.to_string()
        } else {
            format!("`--ties {}` (never by document names)", o.ties)
        },
        o.query_set.name(),
        o.relevance_level
    );
    out
}

#[cfg(test)]
mod tests {
    use kgeval_model::trec::{IrOptions, MeasureRequest, MeasureSet, TopicScores};

    use super::*;

    fn evaluation() -> IrEvaluation {
        let measures = MeasureSet::from_requests(&[
            MeasureRequest::parse("runid").expect("parses"),
            MeasureRequest::parse("num_q").expect("parses"),
            MeasureRequest::parse("num_ret").expect("parses"),
            MeasureRequest::parse("map").expect("parses"),
            MeasureRequest::parse("gm_map").expect("parses"),
        ]);
        let topic = |qid: &str, ap: f64| TopicScores {
            qid: qid.into(),
            missing_from_run: false,
            values: vec![0.0, 1.0, 10.0, ap, ap],
            ranges: Vec::new(),
            std_errors: Vec::new(),
        };
        IrEvaluation {
            qrels_source: "qrels".into(),
            options: IrOptions::default(),
            measures,
            runs: vec![RunEvaluation {
                run_id: "STANDARD".into(),
                name: "run".into(),
                source: "run.txt".into(),
                topics: vec![topic("301", 0.03245), topic("302", 0.5)],
                relstrings: Vec::new(),
                summary: vec![0.0, 2.0, 20.0, 0.266225, 0.1273],
                qrels_topics_missing_from_run: vec![],
                run_topics_missing_from_qrels: vec![],
                topics_with_tied_scores: 0,
                summary_ranges: Vec::new(),
                summary_std_errors: Vec::new(),
            }],
        }
    }

    #[test]
    fn trec_eval_text_layout() {
        let e = evaluation();
        let text = trec_eval_text(&e.runs[0], &e, TrecTextLines { per_topic: true, summary: true }, 4);
        // 0.03245 is 0.0324499… in binary: printf("%6.4f") and Rust both print 0.0324.
        let expected = "num_ret               \t301\t10\nmap                   \t301\t0.0324\n\
                        num_ret               \t302\t10\nmap                   \t302\t0.5000\n\
                        runid                 \tall\tSTANDARD\nnum_q                 \tall\t2\n\
                        num_ret               \tall\t20\nmap                   \tall\t0.2662\n\
                        gm_map                \tall\t0.1273\n";
        assert_eq!(text, expected);
        let summary_only = trec_eval_text(&e.runs[0], &e, TrecTextLines::default(), 4);
        assert!(summary_only.starts_with("runid"));
        let six = trec_eval_text(&e.runs[0], &e, TrecTextLines::default(), 6);
        assert!(six.contains("map                   \tall\t0.266225\n"), "{six}");
        assert!(six.contains("num_q                 \tall\t2\n"), "{six}");
    }

    #[test]
    fn csv_and_json_keep_full_precision() {
        let e = evaluation();
        let csv = delimited(&e, ',');
        assert!(csv.starts_with("run,runid,qid,num_q,num_ret,map,gm_map\n"));
        // The run's name (NAME=PATH's NAME), not its path, in every format; JSON keeps both.
        assert!(csv.contains("run,STANDARD,301,,10,0.03245,\n"));
        assert!(csv.ends_with("run,STANDARD,all,2,20,0.266225,0.1273\n"));
        let json = ir_json(&e, &RenderOptions::default(), &ScoreTable::new());
        assert_eq!(json["runs"][0]["run"], json!("run"));
        assert_eq!(json["runs"][0]["source"], json!("run.txt"));
        let markdown = markdown(&e, &RenderOptions::default());
        assert!(markdown.starts_with("| measure | run |"), "{markdown}");
        assert_eq!(json["runs"][0]["topics"]["301"]["map"], json!(0.03245));
        assert_eq!(json["runs"][0]["summary"]["num_q"], json!(2));
        assert!(json["runs"][0]["topics"]["301"].get("gm_map").is_none());
    }

    #[test]
    fn several_runs_are_labelled_in_text_only() {
        let mut e = evaluation();
        let options = RenderOptions::default();
        let one = render_ir(&e, OutputFormat::Text, &options, &ScoreTable::new());
        assert!(one.starts_with("runid"), "one run: trec_eval's bytes");
        let mut second = e.runs[0].clone();
        second.name = "bm25".into();
        e.runs.push(second);
        let two = render_ir(&e, OutputFormat::Text, &options, &ScoreTable::new());
        assert_eq!(two, format!("# run: run\n{one}# run: bm25\n{one}"));
        let tsv =
            render_ir(&e, OutputFormat::Csv, &RenderOptions { tab_separated: true, ..options }, &ScoreTable::new());
        assert!(tsv.starts_with("run\trunid\tqid\t"));
    }

    /// A qid, run id or run name holding a line feed, a tab or an escape printed as written:
    /// a forged line, a shifted column, a colour. Every one is escaped, in text (with and
    /// without `-q`) and in Markdown.
    #[test]
    fn hostile_names_cannot_add_a_line_or_an_escape() {
        let mut e = evaluation();
        let hostile = "x\nmap                   \tall\t0.9999\x1b[31m";
        e.runs[0].topics[0].qid = hostile.into();
        e.runs[0].run_id = hostile.into();
        e.runs[0].name = hostile.into();
        let mut second = e.runs[0].clone();
        second.name = format!("{hostile}2");
        e.runs.push(second);
        let options =
            RenderOptions { trec_lines: TrecTextLines { per_topic: true, summary: true }, ..RenderOptions::default() };
        for format in [OutputFormat::Text, OutputFormat::Markdown] {
            let out = render_ir(&e, format, &options, &ScoreTable::new());
            assert!(!out.contains('\x1b'), "{format:?}: {out}");
            assert!(!out.lines().any(|l| l.starts_with("map                   \tall\t0.9999")), "{out}");
            if format == OutputFormat::Text {
                // Every line keeps trec_eval's three tab-separated columns (or is a `# run:` line).
                for line in out.lines().filter(|l| !l.starts_with("# run: ")) {
                    assert_eq!(line.split('\t').count(), 3, "{line:?}");
                }
                assert_eq!(out.lines().count(), 2 * (1 + 4 + 5), "{out}");
            }
        }
    }
}
