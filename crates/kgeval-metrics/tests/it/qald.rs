//! QALD scoring, worked out by hand from the spec (`spec/qald.md`): the edge-case table one
//! test per cell and preset, the GERBIL counter example, aggregates, breakdowns, label maps,
//! and property tests.

use kgeval_metrics::qald::{evaluate_qald, Normalisation, QaldOptions};
use kgeval_model::qald::{
    Answer, AnswerValue, LabelMap, LocalizedText, QaldDataset, QaldEvaluation, QaldRule, Question, QuestionStatus,
};
use proptest::prelude::*;

fn question(id: &str, answers: Option<&[&str]>) -> Question {
    Question {
        id: id.into(),
        answers: answers.map(|a| a.iter().map(|x| Answer::new(AnswerValue::plain(*x))).collect()),
        ..Question::default()
    }
}

fn dataset(questions: Vec<Question>) -> QaldDataset {
    QaldDataset { id: None, questions }
}

/// One gold question against one system answer (`None`: missing from the submission).
fn one(gold: &[&str], system: Option<&[&str]>, rule: QaldRule) -> (f64, f64, f64, QuestionStatus) {
    let gold = dataset(vec![question("1", Some(gold))]);
    let system = dataset(system.map(|s| question("1", Some(s))).into_iter().collect());
    let eval = evaluate_qald(&gold, &system, "s", &QaldOptions { rule, ..QaldOptions::default() });
    let q = &eval.questions[0];
    (q.scores.precision, q.scores.recall, q.scores.f_measure, q.status)
}

/// The spec's edge-case table: one test per (cell, preset).
macro_rules! cell {
    ($name:ident, $gold:expr, $system:expr, $rule:expr, $expected:expr) => {
        #[test]
        fn $name() {
            let (p, r, f, _) = one($gold, $system, $rule);
            let (ep, er, ef): (f64, f64, f64) = $expected;
            assert!((p - ep).abs() < 1e-12 && (r - er).abs() < 1e-12 && (f - ef).abs() < 1e-12, "{:?}", (p, r, f));
        }
    };
}

const NONE: &[&str] = &[];
const PARTIAL: (f64, f64, f64) = (0.5, 1.0 / 3.0, 0.4); // system {a, x}, gold {a, b, c}

cell!(oos_answered_empty_qald3, NONE, Some(NONE), QaldRule::Qald3, (1.0, 1.0, 1.0));
cell!(oos_answered_empty_qald6, NONE, Some(NONE), QaldRule::Qald6, (1.0, 1.0, 1.0));
cell!(oos_answered_empty_gerbil, NONE, Some(NONE), QaldRule::Gerbil, (1.0, 1.0, 1.0));
cell!(oos_answered_something_qald3, NONE, Some(&["a"]), QaldRule::Qald3, (0.0, 0.0, 0.0));
cell!(oos_answered_something_qald6, NONE, Some(&["a"]), QaldRule::Qald6, (0.0, 0.0, 0.0));
cell!(oos_answered_something_gerbil, NONE, Some(&["a"]), QaldRule::Gerbil, (0.0, 0.0, 0.0));
cell!(gold_answered_empty_qald3, &["a"], Some(NONE), QaldRule::Qald3, (0.0, 0.0, 0.0));
cell!(gold_answered_empty_qald6, &["a"], Some(NONE), QaldRule::Qald6, (1.0, 0.0, 0.0));
cell!(gold_answered_empty_gerbil, &["a"], Some(NONE), QaldRule::Gerbil, (1.0, 0.0, 0.0));
cell!(overlap_qald3, &["a", "b", "c"], Some(&["a", "x"]), QaldRule::Qald3, PARTIAL);
cell!(overlap_qald6, &["a", "b", "c"], Some(&["a", "x"]), QaldRule::Qald6, PARTIAL);
cell!(overlap_gerbil, &["a", "b", "c"], Some(&["a", "x"]), QaldRule::Gerbil, PARTIAL);
cell!(disjoint_qald3, &["a"], Some(&["x"]), QaldRule::Qald3, (0.0, 0.0, 0.0));
cell!(disjoint_qald6, &["a"], Some(&["x"]), QaldRule::Qald6, (0.0, 0.0, 0.0));
cell!(disjoint_gerbil, &["a"], Some(&["x"]), QaldRule::Gerbil, (0.0, 0.0, 0.0));
cell!(missing_qald3, &["a"], None, QaldRule::Qald3, (0.0, 0.0, 0.0));
cell!(missing_qald6, &["a"], None, QaldRule::Qald6, (0.0, 0.0, 0.0));
cell!(missing_gerbil, &["a"], None, QaldRule::Gerbil, (0.0, 0.0, 0.0));
cell!(missing_oos_qald3, NONE, None, QaldRule::Qald3, (0.0, 0.0, 0.0));
cell!(missing_oos_qald6, NONE, None, QaldRule::Qald6, (0.0, 0.0, 0.0));
cell!(missing_oos_gerbil, NONE, None, QaldRule::Gerbil, (0.0, 0.0, 0.0));

#[test]
fn missing_and_empty_stay_distinguishable() {
    for rule in QaldRule::ALL {
        assert_eq!(one(&["a"], None, rule).3, QuestionStatus::NotProcessed);
        assert_eq!(one(&["a"], Some(NONE), rule).3, QuestionStatus::Empty);
        assert_eq!(one(&["a"], Some(&["a"]), rule).3, QuestionStatus::Answered);
    }
}

#[test]
fn gerbil_counter_example() {
    let gold = dataset(vec![question("1", Some(&["exact", "more1", "more2"]))]);
    let system = dataset(vec![question("1", Some(&["exact", "wrong"]))]);
    let eval = evaluate_qald(&gold, &system, "s", &QaldOptions { rule: QaldRule::Gerbil, ..QaldOptions::default() });
    let q = &eval.questions[0];
    assert_eq!((q.true_positives, q.false_positives, q.false_negatives), (1, 1, 2));
    let g = &eval.global;
    assert_eq!((g.true_positives, g.false_positives, g.false_negatives), (1, 1, 2));
    assert_eq!((g.micro.precision, g.micro.recall), (0.5, 1.0 / 3.0));
}

/// Four gold questions: q1 right, q2 partial, q3 out of scope answered empty, q4 not processed.
fn four() -> (QaldDataset, QaldDataset) {
    let mut gold = dataset(vec![
        question("1", Some(&["a"])),
        question("2", Some(&["b", "c"])),
        question("3", Some(NONE)),
        question("4", Some(&["d"])),
    ]);
    for (q, (answertype, language)) in
        gold.questions.iter_mut().zip([("resource", "en"), ("number", "en"), ("resource", "de"), ("resource", "en")])
    {
        q.answertype = Some(answertype.into());
        q.strings = vec![LocalizedText { language: language.into(), text: format!("question {}", q.id) }];
    }
    let mut system = dataset(vec![
        question("1", Some(&["a"])),
        question("2", Some(&["b", "x", "y", "z"])),
        question("3", Some(NONE)),
    ]);
    system.questions[2].strings = vec![LocalizedText { language: "de".into(), text: "Frage 3".into() }];
    (gold, system)
}

#[test]
fn aggregates_worked_by_hand() {
    let (gold, system) = four();
    let eval: QaldEvaluation = evaluate_qald(&gold, &system, "s", &QaldOptions::default());
    let g = &eval.global;
    // per question P: 1, 1/4, 1, 0; R: 1, 1/2, 1, 0; F: 1, 1/3, 1, 0.
    assert_eq!(g.questions, 4);
    assert!((g.macro_precision - 2.25 / 4.0).abs() < 1e-12);
    assert!((g.macro_recall - 2.5 / 4.0).abs() < 1e-12);
    let hm = 2.0 * (2.25 / 4.0) * (2.5 / 4.0) / (2.25 / 4.0 + 2.5 / 4.0);
    assert!((g.qald_f - hm).abs() < 1e-12);
    assert!((g.mean_f - (7.0 / 3.0) / 4.0).abs() < 1e-12);
    // micro: TP 2, FP 3, FN 2.
    assert_eq!((g.true_positives, g.false_positives, g.false_negatives), (2, 3, 2));
    assert!((g.micro.precision - 0.4).abs() < 1e-12 && (g.micro.recall - 0.5).abs() < 1e-12);
    assert_eq!((g.processed, g.right, g.partial, g.out_of_scope), (3, 2, 1, 1));
    let l = &eval.local;
    assert_eq!(l.questions, 3);
    assert!((l.macro_precision - 2.25 / 3.0).abs() < 1e-12);

    let by_type = eval.breakdowns.iter().find(|b| b.key == "answertype").expect("answertype");
    let names: Vec<&str> = by_type.groups.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(names, ["resource", "number"]);
    assert!((by_type.groups[0].1.macro_precision - 2.0 / 3.0).abs() < 1e-12);
    let by_language = eval.breakdowns.iter().find(|b| b.key == "language").expect("language");
    assert_eq!(
        by_language.groups.iter().map(|(v, a)| (v.as_str(), a.questions)).collect::<Vec<_>>(),
        [("en", 3), ("de", 1)]
    );
    assert!(eval.breakdowns.iter().all(|b| b.key != "onlydbo"), "all unknown: left out");

    let failed: Vec<(&str, bool)> = eval.failed.iter().map(|f| (f.id.as_str(), f.not_processed)).collect();
    assert_eq!(failed, [("2", false), ("4", true)]);
    assert_eq!(eval.failed[0].gold, ["\"b\"", "\"c\""]);
    assert_eq!(eval.failed[0].text, "question 2");

    let table = &eval.score_table;
    let (s, item, f1) = table.find("s", "2", "f1").expect("per-item f1");
    assert!((table.get(s, item, f1).unwrap_or_default() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(table.item_info(item).group("answertype"), Some("number"));
    assert!(eval.conventions.entries().iter().any(|(k, v)| *k == "rule" && v == "qald3"));
}

#[test]
fn label_map_and_aliases_match_a_uri_gold() {
    let iri = |s: &str| Answer::new(AnswerValue::Iri(s.into()));
    let mut gold_q = question("1", None);
    let mut aliased = iri("http://x.org/East_River");
    aliased.aliases.push("East River".into());
    gold_q.answers = Some(vec![aliased, iri("http://x.org/Berlin")]);
    let gold = dataset(vec![gold_q]);
    let system = dataset(vec![question("1", Some(&[" East River", "Berlin"]))]);
    let without = evaluate_qald(&gold, &system, "s", &QaldOptions::default());
    assert_eq!(without.questions[0].true_positives, 1, "the QALD-2 alias matches without a map");
    let mut labels = LabelMap::new();
    labels.insert("http://x.org/Berlin".into(), vec!["Berlin".into()]);
    let with = evaluate_qald(&gold, &system, "s", &QaldOptions { labels: Some(&labels), ..QaldOptions::default() });
    assert_eq!(with.questions[0].scores.f_measure, 1.0);
}

#[test]
fn normalisation_is_applied_and_printed() {
    let gold = dataset(vec![Question {
        id: "1".into(),
        answers: Some(vec![Answer::new(AnswerValue::Number("42".into()))]),
        ..Question::default()
    }]);
    let system = dataset(vec![Question {
        id: "1".into(),
        answers: Some(vec![Answer::new(AnswerValue::Literal {
            lexical: "+42.0".into(),
            datatype: Some("http://www.w3.org/2001/XMLSchema#decimal".into()),
            language: None,
        })]),
        ..Question::default()
    }]);
    let on = evaluate_qald(&gold, &system, "s", &QaldOptions::default());
    assert_eq!(on.global.qald_f, 1.0);
    let off = QaldOptions { normalisation: Normalisation::none(), ..QaldOptions::default() };
    assert_eq!(evaluate_qald(&gold, &system, "s", &off).global.qald_f, 0.0);
    let entries = on.conventions.entries();
    let printed = &entries.iter().find(|(k, _)| *k == "normalisation").expect("printed").1;
    assert!(printed.contains("numbers-as-decimals on") && printed.contains("respect-literal-type off"), "{printed}");
}

fn arbitrary_dataset() -> impl Strategy<Value = QaldDataset> {
    prop::collection::vec(prop::option::of(prop::collection::vec("[a-e]", 0..5)), 1..8).prop_map(|questions| {
        dataset(
            questions
                .into_iter()
                .enumerate()
                .map(|(i, answers)| {
                    let refs: Option<Vec<&str>> = answers.as_ref().map(|a| a.iter().map(String::as_str).collect());
                    question(&i.to_string(), refs.as_deref())
                })
                .collect(),
        )
    })
}

proptest! {
    #[test]
    fn scores_in_unit_interval_and_identity_is_one(gold in arbitrary_dataset(), system in arbitrary_dataset(), r in 0..3usize) {
        let options = QaldOptions { rule: QaldRule::ALL[r], ..QaldOptions::default() };
        let eval = evaluate_qald(&gold, &system, "s", &options);
        for a in [eval.global, eval.local] {
            for v in [a.macro_precision, a.macro_recall, a.qald_f, a.mean_f, a.micro.precision, a.micro.recall, a.micro.f_measure] {
                prop_assert!((0.0..=1.0).contains(&v), "{v}");
            }
        }
        let identity = evaluate_qald(&gold, &gold, "s", &options);
        let g = identity.global;
        prop_assert_eq!((g.macro_precision, g.macro_recall, g.qald_f, g.mean_f), (1.0, 1.0, 1.0, 1.0));
        prop_assert_eq!((g.micro.precision, g.micro.recall, g.micro.f_measure), (1.0, 1.0, 1.0));
        prop_assert!(identity.failed.is_empty());
    }

    #[test]
    fn question_order_is_irrelevant(gold in arbitrary_dataset(), system in arbitrary_dataset()) {
        let mut reversed = system.clone();
        reversed.questions.reverse();
        let a = evaluate_qald(&gold, &system, "s", &QaldOptions::default());
        let b = evaluate_qald(&gold, &reversed, "s", &QaldOptions::default());
        prop_assert_eq!(a.global, b.global);
    }
}
