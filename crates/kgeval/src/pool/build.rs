//! `pool build`: the ranked lists of every question from TREC or KGC runs, then the pure pool
//! of `kgeval_meta::pool` and its template lines.

use std::collections::{HashMap, HashSet};

use kgeval_formats::kgc::{read_judgments, read_queries, read_triples};
use kgeval_formats::trec::{read_qrels_bytes, RunFile};
use kgeval_formats::Input;
use kgeval_meta::pool::{build_pool, is_trivial_question, PoolQuestion};
use kgeval_metrics::kgc::relation_categories;
use kgeval_metrics::ranking::sort_run;
use kgeval_model::kgc::{CategoryRule, KgcVocabulary, KnownAnswers, QuestionKey, RelationCategory, Side, TripleFile};
use kgeval_model::meta::pool::{BuiltPool, TemplateKey, TemplateRow};
use kgeval_model::trec::{RunDoc, RunSource, TieBreak};
use kgeval_model::{Diagnostic, TermId};

use super::{PoolResult, PoolTask, DEFAULT_POOL_DEPTH};
use crate::{system_names, Error, Warning};

/// At most this many warnings per kind (qids without a question, topics in no question list).
const MAX_WARNINGS: usize = 20;

pub(super) fn build(task: &PoolTask, warnings: &mut Vec<Warning>) -> Result<PoolResult, Error> {
    if task.runs.is_empty() {
        return Err(Error::invalid("pool build: expected at least one --run NAME=PATH"));
    }
    let depth = task.depth.unwrap_or(DEFAULT_POOL_DEPTH);
    let names = system_names(&task.runs)?;
    let runs =
        task.runs.iter().map(|r| Ok(RunFile::from_input(r.input.open()?)?)).collect::<Result<Vec<RunFile>, Error>>()?;
    match &task.queries {
        Some(queries) => build_kgc(task, &runs, &names, queries, depth, warnings),
        None => build_trec(task, &runs, &names, depth, warnings),
    }
}

/// The documents of topic `qid` of `run` in trec_eval's order (score descending, docno
/// descending); empty when the run lacks the topic.
fn ranked(run: &RunFile, qid: &str) -> Result<Vec<String>, Error> {
    let Some(index) = run.topic_index(qid) else { return Ok(Vec::new()) };
    let mut docs: Vec<RunDoc<'_>> = Vec::new();
    run.topic_docs(index, &mut docs)?;
    sort_run(&mut docs, TieBreak::DocnoDescending);
    Ok(docs.iter().map(|d| d.docno.to_owned()).collect())
}

fn build_trec(
    task: &PoolTask,
    runs: &[RunFile],
    names: &[String],
    depth: u32,
    warnings: &mut Vec<Warning>,
) -> Result<PoolResult, Error> {
    for (flag, given) in [
        ("--judgments", task.judgments.is_some()),
        ("--test", task.test.is_some()),
        ("--filter", !task.filters.is_empty()),
        ("--trivial-filter", task.trivial_filter),
    ] {
        if given {
            return Err(Error::invalid(format!(
                "pool build: {flag} is for KGC runs (give --queries), found TREC runs; TREC judgments come from --qrels"
            )));
        }
    }
    let mut judged: HashMap<String, HashSet<String>> = HashMap::new();
    if let Some(qrels) = &task.qrels {
        let opened = qrels.open()?;
        let read = read_qrels_bytes(opened.bytes(), opened.name())?;
        let scope = format!("qrels {}", opened.name());
        warnings.extend(read.warnings.into_iter().map(|diagnostic| Warning { scope: scope.clone(), diagnostic }));
        for (qid, topic) in read.value.topics() {
            judged.entry(qid.to_owned()).or_default().extend(topic.iter().map(|(doc, _)| doc.to_owned()));
        }
    }
    // Topics in first-seen order over the runs.
    let mut topics: Vec<&str> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for run in runs {
        for index in 0..run.topic_count() {
            let qid = run.topic_id(index);
            if seen.insert(qid) {
                topics.push(qid);
            }
        }
    }
    let questions = topics
        .iter()
        .map(|&qid| {
            Ok(PoolQuestion {
                id: qid.to_owned(),
                lists: runs.iter().map(|run| ranked(run, qid)).collect::<Result<_, Error>>()?,
                judged: judged.remove(qid).unwrap_or_default(),
                ..PoolQuestion::default()
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let pool = build_pool(&questions, names, depth).map_err(|e| Error::invalid(e.to_string()))?;
    let rows = pool
        .items
        .iter()
        .map(|i| TemplateRow {
            key: TemplateKey::Document { qid: pool.questions[i.question as usize].clone(), docno: i.item.clone() },
            depth: i.depth,
            auto_negative: false,
        })
        .collect();
    Ok(PoolResult::Build { built: BuiltPool { pool, rows }, kgc: false })
}

fn read_split(input: &Input, vocabulary: &mut KgcVocabulary) -> Result<TripleFile, Error> {
    let opened = input.open()?;
    Ok(read_triples(opened.bytes(), opened.name(), vocabulary)?)
}

fn build_kgc(
    task: &PoolTask,
    runs: &[RunFile],
    names: &[String],
    queries: &Input,
    depth: u32,
    warnings: &mut Vec<Warning>,
) -> Result<PoolResult, Error> {
    if task.qrels.is_some() {
        return Err(Error::invalid(
            "pool build: --qrels is for TREC runs, found KGC runs (--queries); KGC judgments come from --judgments",
        ));
    }
    let Some(test) = &task.test else {
        return Err(Error::invalid("pool build: KGC runs (--queries) expect --test FILE (its answers are known)"));
    };
    let mut vocabulary = KgcVocabulary::open();
    let test = read_split(test, &mut vocabulary)?;
    let filters = task.filters.iter().map(|f| read_split(f, &mut vocabulary)).collect::<Result<Vec<_>, _>>()?;
    let mut known = KnownAnswers::new();
    known.extend(test.triples.iter().chain(filters.iter().flat_map(|f| &f.triples)));
    let mut judged: HashMap<QuestionKey, HashSet<TermId>> = HashMap::new();
    if let Some(input) = &task.judgments {
        let opened = input.open()?;
        let read = read_judgments(opened.bytes(), opened.name(), &mut vocabulary)?;
        let scope = format!("judgments {}", opened.name());
        warnings.extend(read.warnings.into_iter().map(|diagnostic| Warning { scope: scope.clone(), diagnostic }));
        for j in &read.judgments {
            for side in Side::BOTH {
                let (key, answer) = side.question_of(j.triple);
                judged.entry(key).or_default().insert(answer);
            }
        }
    }
    let categories = if task.trivial_filter { Some(categories(task, &filters, &mut vocabulary)?) } else { None };
    let opened = queries.open()?;
    let lines = read_queries(opened.bytes(), opened.name(), &vocabulary)?;
    let scope = format!("queries {}", opened.name());
    let mut keys: Vec<QuestionKey> = Vec::with_capacity(lines.len());
    let mut questions: Vec<PoolQuestion> = Vec::with_capacity(lines.len());
    let mut skipped = 0usize;
    let entity = |id: &TermId| vocabulary.entities.resolve(*id).to_owned();
    for line in &lines {
        let Some(key) = line.key else {
            skipped += 1;
            if skipped <= MAX_WARNINGS {
                warnings.push(Warning {
                    scope: scope.clone(),
                    diagnostic: Diagnostic::warning(
                        "query-without-known-entity",
                        format!("{} names an entity or relation of no triple file read; not pooled", line.qid),
                    )
                    .at(kgeval_model::Location {
                        file: opened.name().to_owned(),
                        line: line.line,
                        column: 1,
                    }),
                });
            }
            continue;
        };
        let trivial = categories
            .as_ref()
            .and_then(|c| c.get(&key.relation))
            .is_some_and(|&category| is_trivial_question(key.side, category));
        keys.push(key);
        questions.push(PoolQuestion {
            id: line.qid.clone(),
            lists: runs.iter().map(|run| ranked(run, &line.qid)).collect::<Result<_, Error>>()?,
            known: known.answers(&key).iter().map(entity).collect(),
            judged: judged.get(&key).map(|set| set.iter().map(entity).collect()).unwrap_or_default(),
            trivial,
        });
    }
    let asked: HashSet<&str> = lines.iter().map(|l| l.qid.as_str()).collect();
    for (run, name) in runs.iter().zip(names) {
        let outside = (0..run.topic_count()).filter(|&i| !asked.contains(run.topic_id(i))).count();
        if outside > 0 {
            warnings.push(Warning {
                scope: format!("run {name}"),
                diagnostic: Diagnostic::warning(
                    "topic-without-query",
                    format!("{outside} topic(s) of the run are not in {}; not pooled", opened.name()),
                ),
            });
        }
    }
    let pool = build_pool(&questions, names, depth).map_err(|e| Error::invalid(e.to_string()))?;
    let rows = kgc_rows(&pool, &keys, &vocabulary);
    Ok(PoolResult::Build { built: BuiltPool { pool, rows }, kgc: true })
}

/// The relation categories of `kgeval kgc`: counted on `categories_from`, else the first
/// filter file.
fn categories(
    task: &PoolTask,
    filters: &[TripleFile],
    vocabulary: &mut KgcVocabulary,
) -> Result<HashMap<TermId, RelationCategory>, Error> {
    let mut triples = Vec::new();
    let mut names = Vec::new();
    if task.categories_from.is_empty() {
        let Some(first) = filters.first() else {
            return Err(Error::invalid(
                "--trivial-filter: expected --filter FILE or --categories-from FILE (the relation categories are counted there)",
            ));
        };
        triples.extend_from_slice(&first.triples);
        names.push(first.name.clone());
    }
    for input in &task.categories_from {
        let file = read_split(input, vocabulary)?;
        triples.extend(file.triples);
        names.push(file.name);
    }
    let rule = CategoryRule { threshold: task.category_threshold, inclusive: false, source: names.join(" + ") };
    Ok(relation_categories(&triples, &rule).into_iter().map(|c| (c.relation, c.category)).collect())
}

/// Template lines of a KGC pool: each triple once, with the smallest depth over the questions
/// pooling it; to judge if any question pools it for judging. Items to judge first, then the
/// trivial-triple filter's, each in pool order.
fn kgc_rows(
    pool: &kgeval_model::meta::pool::Pool,
    keys: &[QuestionKey],
    vocabulary: &KgcVocabulary,
) -> Vec<TemplateRow> {
    let mut rows: Vec<TemplateRow> = Vec::new();
    let mut at: HashMap<(String, String, String), usize> = HashMap::new();
    let tagged = pool.items.iter().map(|i| (i, false)).chain(pool.auto_negative.iter().map(|i| (i, true)));
    for (item, auto_negative) in tagged {
        let key = keys[item.question as usize];
        let anchor = vocabulary.entities.resolve(key.anchor).to_owned();
        let relation = vocabulary.relations.resolve(key.relation).to_owned();
        let (head, tail) = match key.side {
            Side::Head => (item.item.clone(), anchor),
            Side::Tail => (anchor, item.item.clone()),
        };
        match at.get(&(head.clone(), relation.clone(), tail.clone())) {
            Some(&index) => {
                let row = &mut rows[index];
                row.depth = row.depth.min(item.depth);
                row.auto_negative &= auto_negative;
            }
            None => {
                at.insert((head.clone(), relation.clone(), tail.clone()), rows.len());
                rows.push(TemplateRow {
                    key: TemplateKey::Triple { head, relation, tail },
                    depth: item.depth,
                    auto_negative,
                });
            }
        }
    }
    rows
}
