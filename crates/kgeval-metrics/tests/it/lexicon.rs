//! Lexicon scoring on hand-built lexicons: each accuracy component, the 0/0 conventions, the
//! averages and micro scores, and the `qald3-script` quirks, with values worked out by hand.

use kgeval_metrics::lexicon::{evaluate_lexicon, SCRIPT_DENOMINATOR};
use kgeval_model::lexicon::{
    Frame, LexicalEntry, Lexicon, LexiconEvaluation, LexiconMode, ListedUri, Sense, SyntacticArgument, UriKind, UriList,
};

const P: &str = "http://x/crosses";
const C: &str = "http://x/Bridge";

fn uris() -> UriList {
    UriList {
        uris: vec![
            ListedUri { uri: C.into(), kind: UriKind::Class },
            ListedUri { uri: P.into(), kind: UriKind::Property },
        ],
    }
}

/// An entry for `reference` with one frame of `(role, node)` arguments, mapping the nodes in
/// `subject` / `object`.
fn entry(
    lemma: &str,
    pos: &str,
    reference: &str,
    frame: Option<&str>,
    args: &[(&str, &str)],
    subject: &[&str],
    object: &[&str],
) -> LexicalEntry {
    let strings = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
    LexicalEntry {
        node: format!("http://lex/{lemma}"),
        written_rep: Some(lemma.into()),
        part_of_speech: Some(pos.into()),
        senses: vec![Sense {
            references: vec![reference.into()],
            subject_nodes: strings(subject),
            object_nodes: strings(object),
            ..Sense::default()
        }],
        frames: frame
            .map(|f| Frame {
                frame_type: Some(f.into()),
                arguments: args
                    .iter()
                    .map(|(role, node)| SyntacticArgument { role: (*role).into(), node: (*node).into(), marker: None })
                    .collect(),
            })
            .into_iter()
            .collect(),
        line: 0,
    }
}

fn cross() -> LexicalEntry {
    entry("cross", "verb", P, Some("TransitiveFrame"), &[("subject", "s"), ("directObject", "o")], &["s"], &["o"])
}

fn bridge() -> LexicalEntry {
    entry("bridge", "noun", C, None, &[], &[], &[])
}

fn score(gold: Vec<LexicalEntry>, system: Vec<LexicalEntry>, mode: LexiconMode) -> LexiconEvaluation {
    evaluate_lexicon(&Lexicon { entries: gold }, &Lexicon { entries: system }, &uris(), mode, "sys")
}

fn property_entry(result: &LexiconEvaluation) -> &kgeval_model::lexicon::EntryAccuracy {
    &result.uris[1].entries[0]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn identical_entry_scores_one_everywhere() {
    let r = score(vec![bridge(), cross()], vec![bridge(), cross()], LexiconMode::Paper);
    for row in &r.uris {
        assert_eq!((row.scores.precision, row.scores.recall, row.scores.f_measure, row.accuracy), (1.0, 1.0, 1.0, 1.0));
    }
    assert_eq!(r.uris[1].accuracy_raw, 3.0);
    assert_eq!(r.uris[0].accuracy_raw, 1.0, "a class: frameEq only");
}

#[test]
fn frame_differs() {
    // frameEq 0; both roles shared (2/2); both mappings right (2/2): A = (0 + 1 + 1) / 3.
    let sys = entry(
        "cross",
        "verb",
        P,
        Some("IntransitivePPFrame"),
        &[("subject", "s"), ("directObject", "o")],
        &["s"],
        &["o"],
    );
    let r = score(vec![cross()], vec![sys], LexiconMode::Paper);
    let e = property_entry(&r);
    assert_eq!((e.frame, e.arguments, e.mapping, e.raw), (0.0, Some(1.0), Some(1.0), 2.0));
    assert!(close(e.accuracy, 2.0 / 3.0));
    assert!(close(r.uris[1].accuracy, 2.0 / 3.0));
    assert_eq!(r.uris[1].scores.precision, 1.0, "P/R/F look at lemma, POS and reference only");
}

#[test]
fn an_argument_missing() {
    // The object is missing: frameEq 1; |{subject} ∩ {subject, directObject}| / 2 = 1/2;
    // the one submitted argument is mapped right: 1/1. A = 2.5 / 3.
    let sys = entry("cross", "verb", P, Some("TransitiveFrame"), &[("subject", "s")], &["s"], &[]);
    let r = score(vec![cross()], vec![sys], LexiconMode::Paper);
    let e = property_entry(&r);
    assert_eq!((e.frame, e.arguments, e.mapping, e.raw), (1.0, Some(0.5), Some(1.0), 2.5));
    assert!(close(e.accuracy, 2.5 / 3.0));
}

#[test]
fn subject_and_object_swapped() {
    // subjOfProp names the object node and vice versa: every map(a) = 0. A = (1 + 1 + 0) / 3.
    let sys =
        entry("cross", "verb", P, Some("TransitiveFrame"), &[("subject", "s"), ("directObject", "o")], &["o"], &["s"]);
    let r = score(vec![cross()], vec![sys], LexiconMode::Paper);
    let e = property_entry(&r);
    assert_eq!((e.frame, e.arguments, e.mapping), (1.0, Some(1.0), Some(0.0)));
    assert!(close(e.accuracy, 2.0 / 3.0));
}

fn similar(role: &str) -> LexicalEntry {
    entry(
        "similar",
        "adjective",
        P,
        Some("AdjectivePPFrame"),
        &[(role, "a1"), ("prepositionalObject", "a2")],
        &["a1"],
        &["a2"],
    )
}

#[test]
fn adjective_frame_with_copulative_subject() {
    // Gold copulativeArg, system copulativeSubject: roles share 1 of 2 (1/2); both are subject
    // roles mapped to subjOfProp, so the mapping is right for both arguments (2/2).
    // A = (1 + 0.5 + 1) / 3 = 5/6.
    let r = score(vec![similar("copulativeArg")], vec![similar("copulativeSubject")], LexiconMode::Paper);
    let e = property_entry(&r);
    assert_eq!((e.frame, e.arguments, e.mapping, e.raw), (1.0, Some(0.5), Some(1.0), 2.5));
    assert!(close(e.accuracy, 5.0 / 6.0));
    // The script has copulativeSubject in neither role map, so the system's fingerprint lacks
    // the subject mark (mapping point 0), and the role counts differ (role point 0): 1/3.
    let r = score(vec![similar("copulativeArg")], vec![similar("copulativeSubject")], LexiconMode::Qald3Script);
    let e = property_entry(&r);
    assert_eq!((e.frame, e.arguments, e.mapping, e.raw), (1.0, Some(0.0), Some(0.0), 1.0));
    assert!(close(e.accuracy, 1.0 / 3.0));
}

#[test]
fn several_frames_average_over_submitted_frames() {
    // Frame 1 identical (raw 3); frame 2 has only the subject: best gold frame gives
    // 1 + 1/2 + 1 = 2.5. Entry raw = (3 + 2.5) / 2 = 2.75, A = 2.75 / 3.
    let mut sys = cross();
    sys.frames.push(Frame {
        frame_type: Some("TransitiveFrame".into()),
        arguments: vec![SyntacticArgument { role: "subject".into(), node: "s".into(), marker: None }],
    });
    let r = score(vec![cross()], vec![sys], LexiconMode::Paper);
    let e = property_entry(&r);
    assert!(close(e.raw, 2.75) && close(e.accuracy, 2.75 / 3.0), "{e:?}");
}

#[test]
fn class_frame_only() {
    // A class entry with a spurious frame: frameEq 0, nothing else counts.
    let sys = entry("bridge", "noun", C, Some("NounPPFrame"), &[("copulativeArg", "x")], &[], &[]);
    let r = score(vec![bridge()], vec![sys], LexiconMode::Paper);
    let e = &r.uris[0].entries[0];
    assert_eq!((e.frame, e.arguments, e.mapping, e.raw, e.accuracy), (0.0, None, None, 0.0, 0.0));
}

#[test]
fn precision_recall_averages_and_micro() {
    // Class: gold {bridge}, system {bridge, viaduct}: P 1/2, R 1, F 2/3.
    // Property: gold {cross, span}, system {}: all 0 (an unmentioned URI counts 0).
    let gold = vec![bridge(), cross(), entry("span", "verb", P, None, &[], &[], &[])];
    let system = vec![bridge(), entry("viaduct", "noun", C, None, &[], &[], &[])];
    let r = score(gold, system, LexiconMode::Paper);
    let class = &r.uris[0];
    assert_eq!((class.matched.len(), class.extra.len(), class.missing.len()), (1, 1, 0));
    assert!(close(class.scores.f_measure, 2.0 / 3.0));
    let property = &r.uris[1];
    assert_eq!((property.scores.precision, property.accuracy, property.missing.len()), (0.0, 0.0, 2));
    assert!(close(r.average.precision, 0.25) && close(r.average.recall, 0.5) && close(r.average.f_measure, 1.0 / 3.0));
    assert!(close(r.average_accuracy, 0.5));
    // Micro: 1 matched, 1 extra, 2 missing: P 1/2, R 1/3.
    assert_eq!((r.micro_counts.tp, r.micro_counts.fp, r.micro_counts.fn_), (1, 1, 2));
    assert!(close(r.micro.precision, 0.5) && close(r.micro.recall, 1.0 / 3.0));
    // The score table holds the same per-URI values.
    let (s, i, m) = r.score_table.find("sys", C, "precision").expect("in the table");
    assert_eq!(r.score_table.get(s, i, m), Some(0.5));
    assert_eq!(r.score_table.item_info(i).group("kind"), Some("class"));
}

#[test]
fn both_sides_empty_is_one() {
    let r = score(vec![cross()], vec![cross()], LexiconMode::Paper);
    let class = &r.uris[0];
    assert_eq!((class.scores.precision, class.scores.recall, class.accuracy), (1.0, 1.0, 1.0));
}

#[test]
fn lemma_normalisation_differs_between_modes() {
    // Paper: whitespace collapsed, case folded ("Trade  Union" = "trade union").
    // Script: spaces removed ("tradeunion" = "trade union" = "TradeUnion").
    let gold = vec![entry("trade union", "noun", C, None, &[], &[], &[])];
    let spaced = vec![entry("Trade  Union", "noun", C, None, &[], &[], &[])];
    let joined = vec![entry("TradeUnion", "noun", C, None, &[], &[], &[])];
    assert_eq!(score(gold.clone(), spaced, LexiconMode::Paper).uris[0].scores.precision, 1.0);
    assert_eq!(score(gold.clone(), joined.clone(), LexiconMode::Paper).uris[0].scores.precision, 0.0);
    assert_eq!(score(gold, joined, LexiconMode::Qald3Script).uris[0].scores.precision, 1.0);
}

#[test]
fn script_divides_by_40_and_rounds() {
    // Property: gold {cross, span, traverse}, system {cross}: R = round(1/3, 5) = 0.33333,
    // P = 1, F = round(2 · 0.33333 / 1.33333, 5) = 0.5. The class is not mentioned: 0.
    // Averages: sums / 40.
    let gold = vec![
        bridge(),
        cross(),
        entry("span", "verb", P, None, &[], &[], &[]),
        entry("traverse", "verb", P, None, &[], &[], &[]),
    ];
    let r = score(gold, vec![cross()], LexiconMode::Qald3Script);
    let property = &r.uris[1];
    assert_eq!((property.scores.precision, property.scores.recall, property.scores.f_measure), (1.0, 0.33333, 0.5));
    assert_eq!(r.uris[0].scores.recall, 0.0);
    assert_eq!(SCRIPT_DENOMINATOR, 40.0);
    assert!(close(r.average.recall, 0.33333 / 40.0));
    assert!(close(r.average_accuracy, 1.0 / 40.0), "cross is identical: accuracy 1");
}

#[test]
fn script_partial_mapping_is_zero_by_integer_division() {
    // Gold maps both arguments; the system maps only the subject node and adds an object
    // mapping to a node that is no argument: user fingerprint {3}, gold {3, 4}; the lengths
    // differ and 1/2 in Python 2 is 0, so the mapping point is lost. Syntactic arguments (2)
    // and sense arguments (2) agree in number, role point 1, frame 1: A = 2/3.
    let sys = entry(
        "cross",
        "verb",
        P,
        Some("TransitiveFrame"),
        &[("subject", "s"), ("directObject", "o")],
        &["s"],
        &["elsewhere"],
    );
    let r = score(vec![cross()], vec![sys.clone()], LexiconMode::Qald3Script);
    let e = property_entry(&r);
    assert_eq!((e.frame, e.mapping, e.arguments), (1.0, Some(0.0), Some(1.0)));
    // The paper gives the subject its point: map = 1/2, A = (1 + 1 + 0.5) / 3.
    let r = score(vec![cross()], vec![sys], LexiconMode::Paper);
    assert!(close(property_entry(&r).accuracy, 2.5 / 3.0));
}

#[test]
fn script_counts_a_lemma_once_and_scores_unlisted_uris() {
    // Two system entries with the same lemma, one as noun, one as verb; gold has both.
    // The script counts the lemma once: correct 1 of 2 (P = R = 0.5); the paper counts 2.
    let gold = vec![cross(), entry("cross", "noun", P, None, &[], &[], &[])];
    let system = vec![
        cross(),
        entry("cross", "noun", P, None, &[], &[], &[]),
        entry("bridge", "noun", "http://x/Other", None, &[], &[], &[]),
    ];
    let script = score(gold.clone(), system.clone(), LexiconMode::Qald3Script);
    assert_eq!((script.uris[1].scores.precision, script.uris[1].scores.recall), (0.5, 0.5));
    // http://x/Other is not listed: the script still scores it (here 0: no gold entry).
    assert_eq!(script.uris.len(), 3);
    assert_eq!(script.uris[2].kind, None);
    let paper = score(gold, system, LexiconMode::Paper);
    assert_eq!((paper.uris[1].scores.precision, paper.uris.len()), (1.0, 2));
}
