//! Scores an alignment built in code — no file, no `kgeval-formats`: any parser that produces a
//! `kgeval_model::Alignment` can feed the metric engine.
//!
//! ```sh
//! cargo run -p kgeval-metrics --example score_in_code
//! ```

use kgeval_metrics::align::{score_pair, AlignmentOptions, AlignmentProfile, CompletenessMode};
use kgeval_model::{Alignment, Correspondence, Interner, Relation};

fn main() {
    // One interner for every IRI of the evaluation.
    let mut iris = Interner::new();
    let mut cell = |source: &str, target: &str, confidence: f64| {
        let (s, t) = (iris.intern(&format!("http://cmt#{source}")), iris.intern(&format!("http://conf#{target}")));
        Correspondence::new(s, t, Relation::Equivalence, confidence)
    };
    let reference: Alignment =
        [cell("Paper", "Paper", 1.0), cell("Author", "Author", 1.0), cell("Review", "Review", 1.0)]
            .into_iter()
            .collect();
    let system: Alignment = [
        cell("Paper", "Paper", 0.95),
        cell("Author", "Author", 0.9),
        cell("Author", "Person", 0.6),
        cell("Chair", "Chairman", 0.5),
    ]
    .into_iter()
    .collect();

    for (profile, mode) in [
        (AlignmentProfile::Melt, CompletenessMode::Complete),
        (AlignmentProfile::Melt, CompletenessMode::Partial),
        (AlignmentProfile::AlignApi, CompletenessMode::Complete),
    ] {
        let options = AlignmentOptions { mode, ..AlignmentOptions::for_profile(profile) };
        let (scores, _) = score_pair(&reference, &system, None, &options, &iris);
        let (s, c) = (scores.scores, scores.counts);
        println!(
            "{:<9} {:<9} P {:.3}  R {:.3}  F1 {:.3}  (TP {} FP {} FN {} ignored {})",
            profile.name(),
            mode.name(),
            s.precision,
            s.recall,
            s.f_measure,
            c.tp,
            c.fp,
            c.fn_,
            c.ignored
        );
    }
}
