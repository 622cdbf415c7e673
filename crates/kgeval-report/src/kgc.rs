//! Rendering of KGC evaluations.

use std::fmt::Write as _;

use kgeval_model::kgc::results::{summary_values, CategoryBreakdown, KgcEvaluation, TieShare};
use serde_json::{json, Map, Value};

use crate::common::{csv_field, diagnostic_json, per_item_json, pretty};
use crate::{format_fixed, OutputFormat, RenderOptions, Table};

/// Renders the evaluations of one or more systems on the same test split.
#[must_use]
pub fn render_kgc(evaluations: &[KgcEvaluation], format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Text => text(evaluations, options, false),
        OutputFormat::Markdown => text(evaluations, options, true),
        OutputFormat::Csv => csv(evaluations),
        OutputFormat::Json => pretty(&kgc_json(evaluations, options)),
    }
}

/// The JSON contract: `{"kgeval_version", "systems": [{"system", "conventions": {NAME:
/// TEXT}, "ks", "ties": {"answers", "tied_answers", "tied_answer_share", "questions",
/// "tied_questions", "tied_question_share", "questions_with_tied_answers"}, "scopes": {"both" |
/// "head" | "tail": {METRIC: VALUE}}, "category_counts": {"1-1": N, …}, "categories":
/// [{"category", "side", "micro": {METRIC: VALUE}, "macro": {METRIC: VALUE}}], "warnings",
/// "per_item"?}]}`. Metric names follow kgc-sparsity (`micro_mrr`, `macro_hits@10`,
/// `map_cut_20`) and PyKEEN (`micro_amri`, `micro_zmrr`); `tied_*` are null when the input
/// had no tie counts.
#[must_use]
pub fn kgc_json(evaluations: &[KgcEvaluation], options: &RenderOptions) -> Value {
    let systems: Vec<Value> = evaluations.iter().map(|e| evaluation_json(e, options)).collect();
    json!({"kgeval_version": options.version, "systems": systems})
}

fn values_json(values: &[(String, f64)]) -> Value {
    Value::Object(values.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

fn ties_json(t: &TieShare) -> Value {
    json!({
        "answers": t.answers, "tied_answers": t.tied_answers, "tied_answer_share": t.answer_share(),
        "questions": t.questions, "tied_questions": t.tied_questions, "tied_question_share": t.question_share(),
        "questions_with_tied_answers": t.questions_with_tied_answers,
    })
}

/// Named metric values.
type Values = Vec<(String, f64)>;

/// The category and side names and the micro and macro values of one breakdown row.
fn category_values(c: &CategoryBreakdown) -> (String, String, Values, Values) {
    let category = c.category.map_or_else(|| "none".to_owned(), |c| c.name().to_owned());
    let side = c.side.map_or_else(String::new, |s| s.name().to_owned());
    (category, side, summary_values("micro", &c.micro), summary_values("macro", &c.best))
}

fn evaluation_json(e: &KgcEvaluation, options: &RenderOptions) -> Value {
    let mut m = Map::new();
    m.insert("system".into(), json!(e.system));
    let conventions: Map<String, Value> =
        e.conventions.entries().into_iter().map(|(k, v)| (k.to_owned(), json!(v))).collect();
    m.insert("conventions".into(), Value::Object(conventions));
    m.insert("ks".into(), json!(e.ks));
    m.insert("ties".into(), ties_json(&e.ties));
    let scopes: Map<String, Value> =
        e.scope_values().into_iter().map(|(scope, values)| (scope.to_owned(), values_json(&values))).collect();
    m.insert("scopes".into(), Value::Object(scopes));
    let counts: Map<String, Value> = e.category_counts.iter().map(|(c, n)| (c.name().to_owned(), json!(n))).collect();
    m.insert("category_counts".into(), Value::Object(counts));
    let categories: Vec<Value> = e
        .categories
        .iter()
        .map(|c| {
            let (category, side, micro, macro_values) = category_values(c);
            json!({"category": category, "side": side, "micro": values_json(&micro), "macro": values_json(&macro_values)})
        })
        .collect();
    m.insert("categories".into(), Value::Array(categories));
    m.insert("warnings".into(), Value::Array(e.warnings.iter().map(diagnostic_json).collect()));
    if options.per_item {
        m.insert("per_item".into(), per_item_json(&e.score_table));
    }
    Value::Object(m)
}

fn ties_line(t: &TieShare) -> String {
    let share = |n: Option<usize>, total: usize, s: Option<f64>| match (n, s) {
        (Some(n), Some(s)) => format!("{n} of {total} ({:.2}%)", 100.0 * s),
        _ => format!("unknown of {total} (no tie counts)"),
    };
    format!(
        "ties: answers {}; questions {}; questions whose answers tie with each other: {}",
        share(t.tied_answers, t.answers, t.answer_share()),
        share(t.tied_questions, t.questions, t.question_share()),
        t.questions_with_tied_answers
    )
}

/// Metric rows × scope columns (`both`, `head`, `tail`).
fn scope_table(e: &KgcEvaluation, decimals: usize) -> Table {
    let scopes = e.scope_values();
    let mut table = Table::new(&["metric", "both", "head", "tail"], &[false, true, true, true]);
    for (name, value) in &scopes[0].1 {
        let mut cells = vec![name.clone(), format_fixed(*value, decimals)];
        for (_, values) in &scopes[1..] {
            cells.push(
                values.iter().find(|(n, _)| n == name).map_or_else(String::new, |(_, v)| format_fixed(*v, decimals)),
            );
        }
        table.row(cells);
    }
    table
}

/// One row per category × side: pairs, micro values, questions, macro values.
fn category_table(e: &KgcEvaluation, decimals: usize) -> Table {
    let Some(first) = e.categories.first() else { return Table::default() };
    let (_, _, micro, macro_values) = category_values(first);
    let mut header: Vec<String> = vec!["category".into(), "side".into(), "pairs".into()];
    header.extend(micro.iter().map(|(n, _)| n.clone()));
    header.push("questions".into());
    header.extend(macro_values.iter().map(|(n, _)| n.clone()));
    let names: Vec<&str> = header.iter().map(String::as_str).collect();
    let numeric: Vec<bool> = (0..names.len()).map(|i| i >= 2).collect();
    let mut table = Table::new(&names, &numeric);
    for c in &e.categories {
        let (category, side, micro, macro_values) = category_values(c);
        let mut cells = vec![category, side, c.micro.queries.to_string()];
        cells.extend(micro.iter().map(|(_, v)| format_fixed(*v, decimals)));
        cells.push(c.best.queries.to_string());
        cells.extend(macro_values.iter().map(|(_, v)| format_fixed(*v, decimals)));
        table.row(cells);
    }
    table
}

/// Several systems side by side: metric rows × one column per system, the `both` scope.
fn systems_table(evaluations: &[KgcEvaluation], decimals: usize) -> Table {
    let scopes: Vec<Vec<(String, f64)>> =
        evaluations.iter().map(|e| e.scope_values().into_iter().next().map(|(_, v)| v).unwrap_or_default()).collect();
    let mut header: Vec<&str> = vec!["metric"];
    header.extend(evaluations.iter().map(|e| e.system.as_str()));
    let numeric: Vec<bool> = (0..header.len()).map(|i| i > 0).collect();
    let mut table = Table::new(&header, &numeric);
    // Every metric once, in the order the systems first name it.
    let mut names: Vec<&str> = Vec::new();
    for values in &scopes {
        for (name, _) in values {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    for name in names {
        let mut cells = vec![name.to_owned()];
        for values in &scopes {
            cells.push(
                values.iter().find(|(n, _)| n == name).map_or_else(String::new, |(_, v)| format_fixed(*v, decimals)),
            );
        }
        table.row(cells);
    }
    table
}

fn text(evaluations: &[KgcEvaluation], options: &RenderOptions, markdown: bool) -> String {
    let mut out = String::new();
    let render = |t: &Table| if markdown { t.to_markdown() } else { t.to_text() };
    if evaluations.len() > 1 {
        let names: Vec<&str> = evaluations.iter().map(|e| e.system.as_str()).collect();
        let header = format!("kgeval kgc: {} systems side by side (scope both): {}", names.len(), names.join(", "));
        if markdown {
            let _ = writeln!(out, "{}\n", crate::markdown_comment(&header));
        } else {
            let _ = writeln!(out, "{}\n", crate::text_field(&header));
        }
        out.push_str(&render(&systems_table(evaluations, options.precision)));
        out.push('\n');
    }
    for (i, e) in evaluations.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if markdown && evaluations.len() > 1 {
            let _ = writeln!(out, "### System {}\n", crate::markdown_code(&e.system));
        }
        let conventions: Vec<String> = e.conventions.entries().iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let header = format!("kgeval kgc: system {}; {}", e.system, conventions.join("; "));
        if markdown {
            let _ = writeln!(
                out,
                "{}\n\n{}\n",
                crate::markdown_comment(&header),
                crate::markdown_comment(&ties_line(&e.ties))
            );
        } else {
            let _ = writeln!(out, "{}\n{}\n", crate::text_field(&header), ties_line(&e.ties));
        }
        out.push_str(&render(&scope_table(e, options.precision)));
        if !e.categories.is_empty() {
            let counts: Vec<String> = e.category_counts.iter().map(|(c, n)| format!("{c} {n}")).collect();
            let _ = writeln!(out, "\nrelation categories: {}", counts.join(", "));
            if markdown {
                out.push('\n');
            }
            out.push_str(&render(&category_table(e, options.precision)));
        }
    }
    out
}

/// Long format, full precision: `system,scope,metric,value`; scopes `both`, `head`, `tail`,
/// `ties` and `CATEGORY/SIDE`.
fn csv(evaluations: &[KgcEvaluation]) -> String {
    let mut out = String::from("system,scope,metric,value\n");
    for e in evaluations {
        let system = csv_field(&e.system);
        let mut row = |scope: &str, metric: &str, value: f64| {
            let _ = writeln!(out, "{system},{},{},{value}", csv_field(scope), csv_field(metric));
        };
        for (scope, values) in e.scope_values() {
            for (metric, value) in values {
                row(scope, &metric, value);
            }
        }
        let t = &e.ties;
        row("ties", "answers", t.answers as f64);
        if let Some(share) = t.answer_share() {
            row("ties", "tied_answer_share", share);
        }
        row("ties", "questions", t.questions as f64);
        if let Some(share) = t.question_share() {
            row("ties", "tied_question_share", share);
        }
        row("ties", "questions_with_tied_answers", t.questions_with_tied_answers as f64);
        for c in &e.categories {
            let (category, side, micro, macro_values) = category_values(c);
            let scope = format!("{category}/{side}");
            for (metric, value) in micro.iter().chain(&macro_values) {
                row(&scope, metric, *value);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kgeval_model::kgc::conventions::{KgcConventions, KgcSources};
    use kgeval_model::kgc::results::MicroScores;
    use kgeval_model::rank::results::RankSummary;
    use kgeval_model::ranking::TiePolicy;

    fn evaluation() -> KgcEvaluation {
        let summary = |mrr: f64| RankSummary {
            queries: 4,
            mrr,
            hits: vec![(1, 0.25), (10, 0.75)],
            mean_rank: Some(3.5),
            ranked: 4,
            gold_tied: 1,
        };
        KgcEvaluation {
            system: "TransE".into(),
            conventions: KgcConventions {
                sources: KgcSources { test: "test.txt".into(), ..KgcSources::default() },
                tie_policy: TiePolicy::Realistic,
                ..KgcConventions::default()
            },
            ks: vec![1, 10],
            micro: [
                MicroScores { summary: summary(0.5), adjusted: None },
                MicroScores { summary: summary(0.75), adjusted: None },
                MicroScores { summary: summary(0.25), adjusted: None },
            ],
            ties: TieShare {
                answers: 4,
                tied_answers: Some(1),
                questions: 3,
                tied_questions: Some(1),
                questions_with_tied_answers: 0,
            },
            ..KgcEvaluation::default()
        }
    }

    #[test]
    fn a_hostile_system_name_stays_on_its_line() {
        let mut e = evaluation();
        e.system = "TransE\nkgeval kgc: forged\x1b[31m".into();
        let text = text(&[e, evaluation()], &RenderOptions::default(), false);
        assert!(!text.contains('\x1b') && !text.lines().any(|l| l.starts_with("kgeval kgc: forged")), "{text}");
    }

    #[test]
    fn json_scopes_and_ties() {
        let v = kgc_json(&[evaluation()], &RenderOptions::default());
        let s = &v["systems"][0];
        assert_eq!(s["scopes"]["head"]["micro_mrr"].as_f64(), Some(0.75));
        assert_eq!(s["scopes"]["both"]["micro_hits@10"].as_f64(), Some(0.75));
        assert_eq!(s["ties"]["tied_answer_share"].as_f64(), Some(0.25));
        assert_eq!(s["conventions"]["tie_policy"], "realistic");
        assert_eq!(s["conventions"]["test"], "test.txt");
    }

    #[test]
    fn text_table_and_csv_rows() {
        let text = render_kgc(
            &[evaluation()],
            OutputFormat::Text,
            &RenderOptions { precision: 2, ..RenderOptions::default() },
        );
        assert!(
            text.starts_with(
                "kgeval kgc: system TransE; test: test.txt; filters: none; entity_list: the entities of the \
                 triple files; tie_policy: realistic; entities: 0;"
            ),
            "{text}"
        );
        assert!(text.contains("\nties: answers 1 of 4 (25.00%)"), "{text}");
        assert!(text.contains("\nmicro_mrr              0.50  0.75  0.25\n"), "{text}");
        assert!(text.contains("\nmacro_mrr              0.00\n"), "{text}");
        let csv = render_kgc(&[evaluation()], OutputFormat::Csv, &RenderOptions::default());
        assert!(csv.contains("TransE,tail,micro_mrr,0.25\n"), "{csv}");
        assert!(csv.contains("TransE,ties,tied_answer_share,0.25\n"), "{csv}");
    }
}
