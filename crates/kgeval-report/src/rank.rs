//! Rendering of local-ranking evaluations (DISO Task 2 leaderboard layout, Bio-LLM and
//! OntoAligner reports).

use std::fmt::Write as _;

use kgeval_model::rank::results::{
    AbstentionScores, BiollmEvaluation, ConventionValue, OntoalignerEvaluation, PairRanking, RankConventions,
    RankResult, RankSummary, RankingEvaluation,
};
use serde_json::{json, Map, Value};

use crate::common::{csv_field, diagnostic_json, per_item_json, pretty};
use crate::{format_fixed, OutputFormat, RenderOptions, Table};

/// Keys of the top-level JSON object that are not pair names.
pub const RESERVED_PAIR_NAMES: [&str; 9] =
    ["MACRO", "MICRO", "kgeval_version", "system", "conventions", "abstention", "sweep", "warnings", "per_item"];

/// Renders any `kgeval rank` result: the leaderboard, or Bio-LLM's or OntoAligner's figures.
#[must_use]
pub fn render_rank(result: &RankResult, format: OutputFormat, options: &RenderOptions) -> String {
    match result {
        RankResult::Local(evaluation) => render_ranking(evaluation, format, options),
        RankResult::Biollm(evaluation) => render_biollm(evaluation, format, options),
        RankResult::Ontoaligner(evaluation) => render_ontoaligner(evaluation, format, options),
    }
}

/// Renders a local-ranking evaluation.
#[must_use]
pub fn render_ranking(evaluation: &RankingEvaluation, format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Json => pretty(&ranking_json(evaluation, options)),
        OutputFormat::Text => text(evaluation, options),
        OutputFormat::Markdown => markdown(evaluation, options),
        OutputFormat::Csv => csv(evaluation),
    }
}

/// The JSON in DISO's leaderboard layout: `{PAIR: {tau, n, overall|matched|NIL: {mrr, queries,
/// hits_at_1, …}, per_type: {CLS|OPROP|DPROP: {…}}, abstention, ties, missing_queries,
/// repaired_queries, baselines, risk_coverage}, "MACRO": {…}, "MICRO": {…}}` plus
/// `kgeval_version`, `system`, `conventions`, `abstention` (pooled), `sweep`, `warnings` and, with
/// `per_item`, the per-query table. Full f64 precision.
#[must_use]
pub fn ranking_json(evaluation: &RankingEvaluation, options: &RenderOptions) -> Value {
    let mut root = Map::new();
    root.insert("kgeval_version".into(), json!(options.version));
    root.insert("system".into(), json!(evaluation.system));
    root.insert("conventions".into(), conventions_json(&evaluation.conventions));
    for pair in &evaluation.pairs {
        root.insert(pair.pair.clone(), pair_json(pair));
    }
    root.insert("MACRO".into(), summary_json(&evaluation.macro_summary));
    root.insert("MICRO".into(), summary_json(&evaluation.micro_summary));
    root.insert("abstention".into(), abstention_json(&evaluation.abstention));
    if let Some(sweep) = &evaluation.sweep {
        let points: Vec<Value> = sweep
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                json!({
                    "tau": p.tau,
                    "oracle": i == sweep.oracle,
                    "MACRO": summary_json(&p.macro_summary),
                    "pairs": p.pairs.iter().map(summary_json).collect::<Vec<_>>(),
                    "abstention": abstention_json(&p.abstention),
                })
            })
            .collect();
        root.insert(
            "sweep".into(),
            json!({"oracle_tau": sweep.points.get(sweep.oracle).map(|p| p.tau), "note": "the oracle tau is chosen on the test data", "points": points}),
        );
    }
    root.insert("warnings".into(), evaluation.warnings.iter().map(diagnostic_json).collect());
    if options.per_item {
        root.insert("per_item".into(), per_item_json(&evaluation.score_table));
    }
    Value::Object(root)
}

/// The conventions as a JSON object, from [`RankConventions::entries`].
fn conventions_json(conventions: &RankConventions) -> Value {
    let entries: Map<String, Value> = conventions
        .entries()
        .into_iter()
        .map(|(key, value)| {
            let value = match value {
                ConventionValue::Text(text) => json!(text),
                ConventionValue::Number(number) => json!(number),
                ConventionValue::Integers(ks) => json!(ks),
            };
            (key.to_owned(), value)
        })
        .collect();
    Value::Object(entries)
}

fn summary_json(s: &RankSummary) -> Value {
    let mut m = Map::new();
    m.insert("mrr".into(), json!(s.mrr));
    m.insert("queries".into(), json!(s.queries));
    for (k, v) in &s.hits {
        m.insert(format!("hits_at_{k}"), json!(v));
    }
    Value::Object(m)
}

fn abstention_json(a: &AbstentionScores) -> Value {
    json!({
        "answered_matched": a.answered_matched,
        "abstained_matched": a.abstained_matched,
        "answered_nil": a.answered_nil,
        "abstained_nil": a.abstained_nil,
        "precision": a.precision,
        "recall": a.recall,
        "f1": a.f1,
        "false_abstention_rate": a.false_abstention_rate,
        "rejection_rate": a.recall,
    })
}

fn pair_json(p: &PairRanking) -> Value {
    let b = &p.breakdown;
    let per_type: Map<String, Value> = b.per_type.iter().map(|(t, s)| (t.clone(), summary_json(s))).collect();
    json!({
        "tau": p.tau,
        "n": p.n,
        "overall": summary_json(&b.overall),
        "matched": summary_json(&b.matched),
        "NIL": summary_json(&b.nil),
        "per_type": per_type,
        "abstention": abstention_json(&p.abstention),
        "ties": {"gold_tied": p.ties.gold_tied, "nil_tied": p.ties.nil_tied},
        "missing_queries": p.missing_queries,
        "repaired_queries": p.repaired_queries,
        "baselines": {
            "nil_share": p.baselines.nil_share,
            "nil_first": summary_json(&p.baselines.nil_first),
            "hedge": summary_json(&p.baselines.hedge),
        },
        "risk_coverage": p.risk_coverage.as_ref().map(|rc| json!({"aurc": rc.aurc, "points": rc.points})),
    })
}

fn header_line(e: &RankingEvaluation) -> String {
    let tau = e.pairs.iter().find_map(|p| p.tau).map_or_else(|| "n/a (rankings)".to_owned(), |t| t.to_string());
    // An IRI in angle brackets; Bio-ML's `UnMatched` as it is.
    let nil = &e.conventions.nil_iri;
    let nil = if nil.contains(':') { format!("<{nil}>") } else { nil.clone() };
    format!(
        "kgeval rank: profile {}, ties {}, tau {tau}, NIL {nil}; absent gold = rank 0, macro = mean of pairs",
        e.conventions.profile,
        e.conventions.ties_name(),
    )
}

/// What a mean over no query prints in text and Markdown.
const EMPTY_BLOCK: &str = "–";

/// One row per (pair, block): overall, matched, NIL, each type; then MACRO and micro.
fn leaderboard_table(e: &RankingEvaluation, decimals: usize) -> Table {
    let mut header = vec!["pair", "block", "queries", "MRR"];
    let hit_names: Vec<String> = e.conventions.ks.iter().map(|k| format!("H@{k}")).collect();
    header.extend(hit_names.iter().map(String::as_str));
    let mut numeric = vec![false, false, true, true];
    numeric.extend(e.conventions.ks.iter().map(|_| true));
    let mut table = Table::new(&header, &numeric);
    let mut row = |pair: &str, block: &str, s: &RankSummary| {
        // A block without queries has no mean: "–", not a 0.0000 that reads as a score.
        let value = |v: f64| if s.queries == 0 { EMPTY_BLOCK.to_owned() } else { format_fixed(v, decimals) };
        let mut cells = vec![pair.to_owned(), block.to_owned(), s.queries.to_string(), value(s.mrr)];
        cells.extend(s.hits.iter().map(|(_, v)| value(*v)));
        table.row(cells);
    };
    for p in &e.pairs {
        let b = &p.breakdown;
        row(&p.pair, "overall", &b.overall);
        row("", "matched", &b.matched);
        row("", "NIL", &b.nil);
        for (t, s) in &b.per_type {
            row("", t, s);
        }
    }
    row("MACRO", "", &e.macro_summary);
    row("micro", "", &e.micro_summary);
    table
}

fn text(e: &RankingEvaluation, options: &RenderOptions) -> String {
    let d = options.precision;
    let mut out = header_line(e);
    let _ = writeln!(out, "\nsystem: {}\n", crate::text_field(&e.system));
    out.push_str(&leaderboard_table(e, d).to_text());
    for (title, table) in extra_tables(e, &|v| format_fixed(v, d)) {
        let _ = writeln!(out, "\n{title}");
        out.push_str(&table.to_text());
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn markdown(e: &RankingEvaluation, options: &RenderOptions) -> String {
    let d = options.precision;
    let mut out = format!("{}\n\n", crate::markdown_comment(&header_line(e)));
    out.push_str(&leaderboard_table(e, d).to_markdown());
    for (title, table) in extra_tables(e, &|v| format_fixed(v, d)) {
        let _ = writeln!(out, "\n{title}\n");
        out.push_str(&table.to_markdown());
    }
    out
}

/// The tables after the leaderboard when NIL is involved (a NIL query or a τ): hard
/// abstention, trivial baselines with ties and AURC, and the τ sweep; values through `f`.
fn extra_tables(e: &RankingEvaluation, f: &dyn Fn(f64) -> String) -> Vec<(&'static str, Table)> {
    let mut tables = Vec::new();
    let nil_involved = e.pairs.iter().any(|p| p.breakdown.nil.queries > 0 || p.tau.is_some());
    if !nil_involved {
        return tables;
    }
    let mut abstention = Table::new(
        &[
            "pair",
            "abstain|NIL",
            "answer|NIL",
            "abstain|matched",
            "answer|matched",
            "abst. P",
            "abst. R",
            "abst. F1",
            "false abst.",
        ],
        &[false, true, true, true, true, true, true, true, true],
    );
    let mut add = |name: &str, a: &AbstentionScores| {
        abstention.row(vec![
            name.to_owned(),
            a.abstained_nil.to_string(),
            a.answered_nil.to_string(),
            a.abstained_matched.to_string(),
            a.answered_matched.to_string(),
            f(a.precision),
            f(a.recall),
            f(a.f1),
            f(a.false_abstention_rate),
        ]);
    };
    for p in &e.pairs {
        add(&p.pair, &p.abstention);
    }
    add("all", &e.abstention);
    tables.push(("Hard abstention (rank-1 NIL = abstain; recall = Bio-LLM rejection rate):", abstention));

    let mut baselines = Table::new(
        &[
            "pair",
            "NIL share",
            "NIL-first H@1",
            "NIL-first MRR",
            "hedge MRR",
            "gold tied",
            "NIL tied",
            "missing",
            "repaired",
            "AURC",
        ],
        &[false, true, true, true, true, true, true, true, true, true],
    );
    for p in &e.pairs {
        baselines.row(vec![
            p.pair.clone(),
            f(p.baselines.nil_share),
            p.baselines.nil_first.hits_at(1).map_or_else(String::new, f),
            f(p.baselines.nil_first.mrr),
            f(p.baselines.hedge.mrr),
            p.ties.gold_tied.to_string(),
            p.ties.nil_tied.to_string(),
            p.missing_queries.to_string(),
            p.repaired_queries.to_string(),
            p.risk_coverage.as_ref().map_or_else(|| "-".to_owned(), |rc| f(rc.aurc)),
        ]);
    }
    tables.push((
        "Trivial baselines (NIL first with gold second; hedge = gold first, NIL second), ties, AURC:",
        baselines,
    ));

    if let Some(sweep) = &e.sweep {
        let mut header = vec!["tau", "MACRO MRR", "MACRO H@1", "abst. F1", "false abst."];
        let names: Vec<&str> = e.pairs.iter().map(|p| p.pair.as_str()).collect();
        header.extend(names.iter().copied());
        let numeric = vec![true; header.len()];
        let mut table = Table::new(&header, &numeric);
        for (i, p) in sweep.points.iter().enumerate() {
            let marker = if i == sweep.oracle { " *" } else { "" };
            let mut cells = vec![
                format!("{}{marker}", p.tau),
                f(p.macro_summary.mrr),
                p.macro_summary.hits_at(1).map_or_else(String::new, f),
                f(p.abstention.f1),
                f(p.abstention.false_abstention_rate),
            ];
            cells.extend(p.pairs.iter().map(|s| f(s.mrr)));
            table.row(cells);
        }
        tables.push(("Tau sweep (pair columns: MRR; * = oracle tau, chosen on the test data):", table));
    }
    tables
}

fn csv(e: &RankingEvaluation) -> String {
    let mut out = String::from("system,pair,block,queries,mrr");
    for k in &e.conventions.ks {
        let _ = write!(out, ",hits_at_{k}");
    }
    out.push('\n');
    let mut row = |pair: &str, block: &str, s: &RankSummary| {
        let _ = write!(out, "{},{},{},{},", csv_field(&e.system), csv_field(pair), csv_field(block), s.queries);
        // A block without queries has no mean: empty cells.
        if s.queries > 0 {
            let _ = write!(out, "{}", s.mrr);
        }
        for (_, v) in &s.hits {
            out.push(',');
            if s.queries > 0 {
                let _ = write!(out, "{v}");
            }
        }
        out.push('\n');
    };
    for p in &e.pairs {
        let b = &p.breakdown;
        row(&p.pair, "overall", &b.overall);
        row(&p.pair, "matched", &b.matched);
        row(&p.pair, "NIL", &b.nil);
        for (t, s) in &b.per_type {
            row(&p.pair, t, s);
        }
    }
    row("MACRO", "overall", &e.macro_summary);
    row("MICRO", "overall", &e.micro_summary);
    // The abstention, baseline (AURC) and sweep tables follow, each after a blank line under
    // its own header, at full precision.
    for (_, table) in extra_tables(e, &|v| v.to_string()) {
        out.push('\n');
        out.push_str(&table.to_csv());
    }
    out
}

/// Renders DeepOnto `biollm_eval` figures.
#[must_use]
pub fn render_biollm(evaluation: &BiollmEvaluation, format: OutputFormat, options: &RenderOptions) -> String {
    let (system, s) = (evaluation.system.as_str(), &evaluation.scores);
    let rr = s.rejection_rate;
    match format {
        OutputFormat::Json => pretty(&json!({
            "kgeval_version": options.version,
            "system": system,
            "conventions": conventions_json(&evaluation.conventions),
            "P": s.precision, "R": s.recall, "F1": s.f1, "Hits@1": s.hits_at_1, "MRR": s.mrr, "RR": rr,
            "true_positives": s.true_positives, "predictions": s.predictions, "references": s.references, "unmatched": s.unmatched,
        })),
        OutputFormat::Csv => format!(
            "system,threshold,P,R,F1,Hits@1,MRR,RR\n{},{},{},{},{},{},{},{}\n",
            csv_field(system),
            s.threshold,
            s.precision,
            s.recall,
            s.f1,
            s.hits_at_1,
            s.mrr,
            rr.map_or_else(String::new, |v| v.to_string())
        ),
        OutputFormat::Text | OutputFormat::Markdown => {
            let d = options.precision;
            let mut t = Table::new(
                &["system", "P", "R", "F1", "Hits@1", "MRR", "RR"],
                &[false, true, true, true, true, true, true],
            );
            t.row(vec![
                system.to_owned(),
                format_fixed(s.precision, d),
                format_fixed(s.recall, d),
                format_fixed(s.f1, d),
                format_fixed(s.hits_at_1, d),
                format_fixed(s.mrr, d),
                rr.map_or_else(|| "n/a (no unmatched row)".to_owned(), |v| format_fixed(v, d)),
            ]);
            let header = format!(
                "kgeval rank: profile biollm (DeepOnto biollm_eval), threshold {}; TP {}, predictions {}, references {}, unmatched {}",
                s.threshold, s.true_positives, s.predictions, s.references, s.unmatched
            );
            if format == OutputFormat::Markdown {
                format!("{}\n\n{}", crate::markdown_comment(&header), t.to_markdown())
            } else {
                format!("{header}\n\n{}", t.to_text())
            }
        }
    }
}

/// Renders OntoAligner's `evaluation_report` (×100, as OntoAligner prints it) with `hit_at_k`
/// and `mrr` (fractions).
#[must_use]
pub fn render_ontoaligner(evaluation: &OntoalignerEvaluation, format: OutputFormat, options: &RenderOptions) -> String {
    let (system, s) = (evaluation.system.as_str(), &evaluation.scores);
    let mut hits = Map::new();
    for (k, v) in &s.hits {
        hits.insert(format!("hit_at_{k}"), json!(v));
    }
    match format {
        OutputFormat::Json => pretty(&json!({
            "kgeval_version": options.version,
            "system": system,
            "conventions": conventions_json(&evaluation.conventions),
            "evaluation_report": {
                "intersection": s.intersection,
                "precision": s.precision * 100.0,
                "recall": s.recall * 100.0,
                "f-score": s.f_score * 100.0,
                "predictions-len": s.predictions_len,
                "reference-len": s.reference_len,
            },
            "hit_at_k": hits,
            "mrr": s.mrr,
        })),
        OutputFormat::Csv => {
            let mut out =
                String::from("system,intersection,precision,recall,f-score,predictions-len,reference-len,mrr");
            for (k, _) in &s.hits {
                let _ = write!(out, ",hit_at_{k}");
            }
            let _ = write!(
                out,
                "\n{},{},{},{},{},{},{},{}",
                csv_field(system),
                s.intersection,
                s.precision * 100.0,
                s.recall * 100.0,
                s.f_score * 100.0,
                s.predictions_len,
                s.reference_len,
                s.mrr
            );
            for (_, v) in &s.hits {
                let _ = write!(out, ",{v}");
            }
            out.push('\n');
            out
        }
        OutputFormat::Text | OutputFormat::Markdown => {
            let d = options.precision;
            let mut header = vec!["system", "intersection", "precision", "recall", "f-score", "MRR"];
            let names: Vec<String> = s.hits.iter().map(|(k, _)| format!("Hit@{k}")).collect();
            header.extend(names.iter().map(String::as_str));
            let mut numeric = vec![false];
            numeric.extend(std::iter::repeat_n(true, header.len() - 1));
            let mut t = Table::new(&header, &numeric);
            let mut cells = vec![
                system.to_owned(),
                s.intersection.to_string(),
                format_fixed(s.precision * 100.0, 2),
                format_fixed(s.recall * 100.0, 2),
                format_fixed(s.f_score * 100.0, 2),
                format_fixed(s.mrr, d),
            ];
            cells.extend(s.hits.iter().map(|(_, v)| format_fixed(*v, d)));
            t.row(cells);
            let header = format!(
                "kgeval rank: profile ontoaligner (evaluation_report x100, beta {}); predictions {}, references {}",
                s.beta, s.predictions_len, s.reference_len
            );
            if format == OutputFormat::Markdown {
                format!("{}\n\n{}", crate::markdown_comment(&header), t.to_markdown())
            } else {
                format!("{header}\n\n{}", t.to_text())
            }
        }
    }
}
