//! Judgments as per-question qrels, and the pool-depth series of seed 004 §3.

use kgeval_model::kgc::{Judgment, PooledTriple, Side, Triple};
use kgeval_model::trec::Qrels;
use kgeval_model::{Diagnostic, Location};
use rustc_hash::{FxHashMap, FxHashSet};

use super::data::KgcData;

/// Judgments turned into qrels over the test questions.
#[derive(Debug, Clone, Default)]
pub struct JudgmentQrels {
    /// Per question id: judged answers (1 = `Y`, 0 = `N`, judged negatives kept) and the test
    /// answers nobody judged (1).
    pub qrels: Qrels,
    /// Judgments whose questions are both outside the test split (unused).
    pub unused: usize,
    /// Repeated judgments that disagree, and test answers judged `N`.
    pub warnings: Vec<Diagnostic>,
}

/// Qrels for the IR measures from judgments `s p o {Y,N}`: a judged triple is a judged
/// document of its head question `(?, p, o)` (document `s`) and of its tail question
/// `(s, p, ?)` (document `o`), where those are test questions. The first judgment of a
/// (question, document) wins (a disagreeing repeat is a warning); test answers without a
/// judgment are relevant.
///
/// `file` names the judgment file in warnings.
#[must_use]
pub fn judgment_qrels(data: &KgcData<'_>, judgments: &[Judgment], file: &str) -> JudgmentQrels {
    let questions = &data.test.questions;
    let names = &data.vocabulary.entities;
    let mut out = JudgmentQrels::default();
    let mut first: FxHashMap<(u32, kgeval_model::TermId), (bool, u32)> = FxHashMap::default();
    let mut warn = |code: &'static str, message: String, line: u32| {
        out.warnings.push(Diagnostic::warning(code, message).at(Location { file: file.to_owned(), line, column: 1 }));
    };
    let mut unused = 0;
    for j in judgments {
        let mut used = false;
        for side in Side::BOTH {
            let (key, doc) = side.question_of(j.triple);
            let Some(index) = questions.index_of(&key) else { continue };
            used = true;
            let id = &questions.get(index).id;
            match first.get(&(index, doc)) {
                Some(&(relevant, line)) if relevant != j.relevant => warn(
                    "conflicting-judgment",
                    format!("this judgment disagrees with line {line} for question {id}; the first wins"),
                    j.line,
                ),
                Some(_) => {}
                None => {
                    first.insert((index, doc), (j.relevant, j.line));
                    if !j.relevant && questions.get(index).answers.contains(&doc) {
                        warn(
                            "test-answer-judged-not-relevant",
                            format!("a test answer of question {id} is judged N; the judgment is kept"),
                            j.line,
                        );
                    }
                }
            }
        }
        unused += usize::from(!used);
    }
    out.unused = unused;
    for (index, question) in questions.questions().iter().enumerate() {
        let topic = out.qrels.topic_mut(&question.id);
        for &answer in &question.answers {
            if !first.contains_key(&(index as u32, answer)) {
                topic.insert(names.resolve(answer), 1);
            }
        }
    }
    let mut judged: Vec<_> = first.iter().collect();
    judged.sort_unstable_by_key(|(k, _)| (k.0, names.resolve(k.1)));
    for ((index, doc), (relevant, _)) in judged {
        out.qrels.topic_mut(&questions.get(*index).id).insert(names.resolve(*doc), i64::from(*relevant));
    }
    out
}

/// The positives each pool depth adds (seed 004 §3): for d = 1..=`max_depth`, the pooled
/// triples judged `Y` (first judgment) whose smallest pool depth is d. Judged triples outside the pool (the
/// original test triples) are depth 0 and not counted.
///
/// ```
/// use kgeval_metrics::kgc::depth_series_positives;
/// use kgeval_model::kgc::{Judgment, PooledTriple, Triple};
/// use kgeval_model::Interner;
/// let mut n = Interner::new();
/// let (r, x) = (n.intern("r"), n.intern("x"));
/// let [a, b, c] = ["a", "b", "c"].map(|h| Triple { head: n.intern(h), relation: r, tail: x });
/// let judgments = [(a, true), (b, true), (c, false)].map(|(triple, relevant)| Judgment { triple, relevant, line: 1 });
/// let pool = [PooledTriple { triple: b, depth: 2, line: 1 }, PooledTriple { triple: c, depth: 1, line: 2 }];
/// assert_eq!(depth_series_positives(&judgments, &pool, 3), vec![0, 1, 0]);
/// ```
#[must_use]
pub fn depth_series_positives(judgments: &[Judgment], pool: &[PooledTriple], max_depth: u32) -> Vec<usize> {
    // The first judgment of a triple wins, as in [`judgment_qrels`].
    let mut first: FxHashMap<Triple, bool> = FxHashMap::default();
    for j in judgments {
        first.entry(j.triple).or_insert(j.relevant);
    }
    let positive: FxHashSet<Triple> = first.into_iter().filter(|(_, relevant)| *relevant).map(|(t, _)| t).collect();
    let mut counts = vec![0usize; max_depth as usize];
    let mut seen: FxHashSet<Triple> = FxHashSet::default();
    for p in pool {
        if p.depth >= 1 && p.depth <= max_depth && positive.contains(&p.triple) && seen.insert(p.triple) {
            counts[p.depth as usize - 1] += 1;
        }
    }
    counts
}

/// The judgments of the depth-`depth` series point: every judged triple outside the pool (the
/// originals) and the pooled ones with depth ≤ `depth` (`pooling_depth.csv`'s qrels).
#[must_use]
pub fn judgments_up_to_depth(judgments: &[Judgment], pool: &[PooledTriple], depth: u32) -> Vec<Judgment> {
    let depth_of: FxHashMap<Triple, u32> = pool.iter().map(|p| (p.triple, p.depth)).collect();
    judgments.iter().filter(|j| depth_of.get(&j.triple).is_none_or(|&d| d <= depth)).copied().collect()
}
