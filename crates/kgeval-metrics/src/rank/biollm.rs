//! DeepOnto's `biollm_eval`: ranking metrics on matched rows, answer P/R/F1 and the rejection
//! rate on unmatched rows.

use kgeval_model::rank::results::BiollmScores;
use kgeval_model::rank::{GoldKey, Submission, Submitted};
use kgeval_model::ranking::TiePolicy;
use kgeval_model::TermId;
use rustc_hash::FxHashMap;

use crate::ranking::{rank_of, summarize, RankRecord};

/// Scores a Bio-LLM run: rows whose gold is NIL (`UnMatched`) are unmatched. A candidate is
/// *predicted* when its answer flag is true and its score is ≥ `threshold` (DeepOnto's
/// default threshold is 0.0). Precision = predicted golds of matched rows / predictions over
/// every row; recall = that / matched rows; Hits@1 and MRR rank matched rows by score
/// (stable, descending); the rejection rate is the share of unmatched rows with no prediction.
/// A gold query absent from the submission has no prediction and an absent gold.
#[must_use]
pub fn evaluate_biollm(submission: &Submission, gold: &GoldKey, nil: Option<TermId>, threshold: f64) -> BiollmScores {
    let entries: FxHashMap<&str, usize> =
        submission.entries.iter().enumerate().map(|(i, e)| (e.qid.as_ref(), i)).collect();
    let mut s = BiollmScores { threshold, ..BiollmScores::default() };
    let mut records = Vec::new();
    let mut rejected = 0;
    for g in &gold.entries {
        let entry = entries.get(g.qid.as_ref()).map(|&i| &submission.entries[i]);
        let predicted: Vec<TermId> = match entry {
            Some(e) => match (&e.submitted, &e.answers) {
                (Submitted::Scores(scores), Some(answers)) => scores
                    .iter()
                    .zip(answers)
                    .filter(|((_, score), &answer)| answer && *score >= threshold)
                    .map(|((id, _), _)| *id)
                    .collect(),
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        s.predictions += predicted.len();
        if Some(g.gold) == nil {
            s.unmatched += 1;
            rejected += usize::from(predicted.is_empty());
            continue;
        }
        s.references += 1;
        s.true_positives += usize::from(predicted.contains(&g.gold));
        records.push(match entry.map(|e| &e.submitted) {
            Some(Submitted::Scores(scores)) => {
                let list: Vec<(u32, f64)> = scores.iter().map(|&(id, score)| (id.index(), score)).collect();
                match scores.iter().position(|&(id, _)| id == g.gold) {
                    Some(i) => RankRecord::at(rank_of(&list, i, TiePolicy::STABLE)),
                    None => RankRecord::absent(),
                }
            }
            Some(Submitted::Ranking(ranking)) => match ranking.iter().position(|&id| id == g.gold) {
                Some(i) => RankRecord::at((i + 1) as f64),
                None => RankRecord::absent(),
            },
            None => RankRecord::absent(),
        });
    }
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    s.precision = ratio(s.true_positives, s.predictions);
    s.recall = ratio(s.true_positives, s.references);
    s.f1 = if s.precision + s.recall == 0.0 { 0.0 } else { 2.0 * s.precision * s.recall / (s.precision + s.recall) };
    let summary = summarize(&records, &[1]);
    s.hits_at_1 = summary.hits_at(1).unwrap_or(0.0);
    s.mrr = summary.mrr;
    s.rejection_rate = (s.unmatched > 0).then(|| ratio(rejected, s.unmatched));
    s
}
