//! KGC metrics: PyKEEN's rank fixture and adjusted metrics, LibKGE's tie example, scope
//! conversion, macro from ranks against macro from an explicit run, judgments as qrels.

use std::borrow::Cow;

use kgeval_metrics::kgc::{
    depth_series_positives, evaluate_kgc, judgment_qrels, observe_run, KgcData, KgcInput, KgcOptions, ScorePlan,
};
use kgeval_metrics::ranking::{rank_row, RowOptions};
use kgeval_model::kgc::results::KgcEvaluation;
use kgeval_model::kgc::{
    AnswerObservation, FilterScope, Judgment, KgcVocabulary, KnownAnswers, PooledTriple, QuestionKey, RankObservation,
    Side, TestSet, Triple, TripleFile,
};
use kgeval_model::ranking::{NanPolicy, ScoreRow, TiePolicy, Tolerance};
use kgeval_model::trec::Run;

/// A test split and filter over entities `e0..e{n}` with relations named in the triples.
struct Dataset {
    vocabulary: KgcVocabulary,
    test: TestSet,
    filters: KnownAnswers,
    known: KnownAnswers,
}

impl Dataset {
    fn new(entities: usize, test: &[(usize, &str, usize)], filter: &[(usize, &str, usize)]) -> Self {
        let names: Vec<String> = (0..entities).map(|i| format!("e{i}")).collect();
        let mut vocabulary = KgcVocabulary::with_entities(names.iter().map(String::as_str));
        let mut triples = |list: &[(usize, &str, usize)]| -> Vec<Triple> {
            list.iter()
                .map(|&(h, r, t)| Triple {
                    head: vocabulary.entities.get(&names[h]).expect("fixture"),
                    relation: vocabulary.relations.intern(r),
                    tail: vocabulary.entities.get(&names[t]).expect("fixture"),
                })
                .collect()
        };
        let test_triples = triples(test);
        let filter_triples = triples(filter);
        let mut filters = KnownAnswers::new();
        filters.extend(&filter_triples);
        let mut known = filters.clone();
        known.extend(&test_triples);
        let lines = (1..=test_triples.len() as u32).collect();
        let test = TestSet::new(TripleFile { name: "test.txt".into(), triples: test_triples, lines });
        Dataset { vocabulary, test, filters, known }
    }

    fn data(&self) -> KgcData<'_> {
        KgcData { vocabulary: &self.vocabulary, test: &self.test, filters: &self.filters, known: &self.known }
    }

    fn evaluate(&self, observations: &[AnswerObservation], scope: FilterScope, options: &KgcOptions) -> KgcEvaluation {
        let input = KgcInput { observations, scope, ir_run: None, ir_qrels: None };
        evaluate_kgc(&self.data(), &input, options, "system").expect("evaluation")
    }

    fn key(&self, side: Side, relation: &str, anchor: usize) -> QuestionKey {
        QuestionKey {
            side,
            relation: self.vocabulary.relations.get(relation).expect("fixture"),
            anchor: self.vocabulary.entities.get(&format!("e{anchor}")).expect("fixture"),
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-7
}

fn options(ties: TiePolicy) -> KgcOptions {
    KgcOptions { ties, ks: vec![1, 3, 10], ..KgcOptions::default() }
}

/// The PyKEEN fixture as three tail questions (e5, r_i, ?) over entities e0..e4 (e5 is the
/// anchor, scored NaN so that it is never a candidate): rows [[2,2,1,3,5],[1,1,3,4,0],
/// [1,1,3,nan,0]], true columns 0, 2, 2 (true scores 2, 3, 3).
fn pykeen_fixture() -> (Dataset, Vec<AnswerObservation>) {
    let data = Dataset::new(6, &[(5, "r0", 0), (5, "r1", 2), (5, "r2", 2)], &[]);
    let nan = f32::NAN;
    let rows: [[f32; 6]; 3] = [[2., 2., 1., 3., 5., nan], [1., 1., 3., 4., 0., nan], [1., 1., 3., nan, 0., nan]];
    let keys: Vec<Option<QuestionKey>> = (0..3).map(|i| Some(data.key(Side::Tail, &format!("r{i}"), 5))).collect();
    let plan = ScorePlan::new(&data.data(), &keys);
    // The head questions (?, r_i, e0/e2) have no row here.
    assert_eq!(plan.missing_questions().len(), 3);
    let worst = RowOptions { nan: NanPolicy::Worst, ..RowOptions::default() };
    let mut observations = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        observations.extend(plan.observe(i, &ScoreRow::F32(Cow::Borrowed(row)), worst).expect("fixture"));
    }
    (data, observations)
}

#[test]
fn pykeen_rank_fixture_and_adjusted_metrics() {
    let (data, observations) = pykeen_fixture();
    let counts: Vec<_> = observations.iter().map(|o| (o.observed, o.candidates)).collect();
    let c = |greater, equal| RankObservation::Counts { greater, equal };
    assert_eq!(counts, vec![(c(2, 2), Some(5)), (c(1, 1), Some(5)), (c(0, 1), Some(4))]);
    for (ties, ranks) in [
        (TiePolicy::Optimistic, [3.0, 2.0, 1.0]),
        (TiePolicy::Pessimistic, [4.0, 2.0, 1.0]),
        (TiePolicy::Realistic, [3.5, 2.0, 1.0]),
    ] {
        let e = data.evaluate(&observations, FilterScope::Known, &options(ties));
        let tail = &e.micro[2].summary;
        assert_eq!(tail.queries, 3);
        assert!(close(tail.mean_rank.unwrap(), ranks.iter().sum::<f64>() / 3.0), "{ties}");
        assert!(close(tail.mrr, ranks.iter().map(|r| 1.0 / r).sum::<f64>() / 3.0), "{ties}");
    }
    // The spec's hand-checked values on the realistic ranks [3.5, 2, 1], N = [5, 5, 4].
    let e = data.evaluate(&observations, FilterScope::Known, &options(TiePolicy::Realistic));
    let (tail, adjusted) = (&e.micro[2].summary, e.micro[2].adjusted.as_ref().unwrap());
    let checks = [
        (tail.mean_rank.unwrap(), 2.1666667),
        (tail.mrr, 0.5952381),
        (tail.hits_at(1).unwrap(), 1.0 / 3.0),
        (adjusted.expected_mr, 2.8333333),
        (adjusted.amr, 0.7647059),
        (adjusted.amri, 0.3636364),
        (adjusted.z_mr, 0.8728716),
        (adjusted.expected_mrr, 0.4780556),
        (adjusted.amrr, 0.2245115),
        (adjusted.z_mrr, 0.6989267),
        (adjusted.hits[0].expected, 0.2166667),
        (adjusted.hits[0].adjusted, 0.1489362),
        (adjusted.hits[0].z, 0.4913037),
    ];
    for (i, (got, want)) in checks.into_iter().enumerate() {
        assert!(close(got, want), "check {i}: {got} vs {want}");
    }
    // One tied answer of three; head questions have no observation (absent, not tied).
    assert_eq!(e.ties.tied_answers, Some(1));
    assert_eq!(e.micro[1].summary.ranked, 0);
}

#[test]
fn nan_scores_are_an_error_by_default() {
    let data = Dataset::new(6, &[(5, "r0", 2)], &[]);
    let plan = ScorePlan::new(&data.data(), &[Some(data.key(Side::Tail, "r0", 5))]);
    let row = [1., 1., 3., f32::NAN, 0., 2.];
    let err = plan.observe(0, &ScoreRow::F32(Cow::Borrowed(&row)), RowOptions::default()).unwrap_err();
    assert_eq!(err.column, 3);
}

/// LibKGE's example: a 10, b 10, c 10, d 11, e 9, true a → best 2, worst 4, rounded mean 3
/// (ties by isclose with the default tolerance).
#[test]
fn libkge_tie_example() {
    // Entities e0..e4 = a..e; the question (e5, r, ?) with answer a. The anchor e5 is an
    // ordinary candidate: it scores lowest. c is 10.00001: a tie only under isclose.
    let data = Dataset::new(6, &[(5, "r", 0)], &[]);
    let plan = ScorePlan::new(&data.data(), &[Some(data.key(Side::Tail, "r", 5))]);
    let row = [10.0, 10.0, 10.00001, 11.0, 9.0, 1.0];
    let tolerant = RowOptions { tolerance: Some(Tolerance::LIBKGE), nan: NanPolicy::Error };
    let observations = plan.observe(0, &ScoreRow::F32(Cow::Borrowed(&row)), tolerant).unwrap();
    for (ties, rank) in [(TiePolicy::Optimistic, 2.0), (TiePolicy::Pessimistic, 4.0), (TiePolicy::RoundedMean, 3.0)] {
        let e = data.evaluate(&observations, FilterScope::Known, &options(ties));
        assert_eq!(e.micro[2].summary.mean_rank, Some(rank), "{ties}");
    }
    // Exact ties: 10.00001 is greater than 10 (f32 keeps it), so best 3, worst 4.
    let exact = plan.observe(0, &ScoreRow::F32(Cow::Borrowed(&row)), RowOptions::default()).unwrap();
    let e = data.evaluate(&exact, FilterScope::Known, &options(TiePolicy::RoundedMean));
    assert_eq!(e.micro[2].summary.mean_rank, Some(3.0 + 1.0));
}

/// A deterministic generator for the generated cases (xorshift64*).
struct Generator(u64);

impl Generator {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A score in [0, 1) with 53 random bits: no two scores of a case tie.
    fn score(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A generated case: entities, train and test triples with several answers per question, and
/// one untied score per (question, entity).
fn generated(seed: u64) -> (Dataset, Vec<Vec<f64>>) {
    let mut g = Generator(seed);
    let entities = 30 + g.below(30);
    let triple = |g: &mut Generator| (g.below(entities), ["r0", "r1", "r2"][g.below(3)], g.below(entities));
    let mut test: Vec<(usize, &str, usize)> = Vec::new();
    for _ in 0..25 {
        let t = triple(&mut g);
        // Several answers: repeat the head or tail with fresh partners.
        test.push(t);
        for _ in 0..g.below(4) {
            let other = g.below(entities);
            test.push(if g.below(2) == 0 { (t.0, t.1, other) } else { (other, t.1, t.2) });
        }
    }
    test.sort_unstable();
    test.dedup();
    let train: Vec<_> = (0..80).map(|_| triple(&mut g)).filter(|t| !test.contains(t)).collect();
    let data = Dataset::new(entities, &test, &train);
    let scores = (0..data.test.questions.len()).map(|_| (0..entities).map(|_| g.score()).collect()).collect();
    (data, scores)
}

/// Micro and macro from fully filtered counts (one `rank_row` per question), from per-answer
/// counts taken with the other answers still competing (converted), and from an explicit run
/// of every entity (trec_eval order): identical on untied scores, IR measures included.
#[test]
fn macro_from_ranks_equals_macro_from_a_run() {
    for seed in 1..=20u64 {
        let (data, scores) = generated(seed * 7919);
        let questions = data.test.questions.questions();
        let keys: Vec<Option<QuestionKey>> = questions.iter().map(|q| Some(q.key)).collect();
        let plan = ScorePlan::new(&data.data(), &keys);
        let mut known_scope = Vec::new();
        let mut filter_scope = Vec::new();
        let mut run = Run { run_id: "generated".into(), topics: Vec::new() };
        for (i, (q, row)) in questions.iter().zip(&scores).enumerate() {
            let row32: Vec<f32> = row.iter().map(|&s| s as f32).collect();
            let row_scores = ScoreRow::F32(Cow::Borrowed(&row32));
            known_scope.extend(plan.observe(i, &row_scores, RowOptions::default()).unwrap());
            // The other answers competing: one target at a time, only the filter removed.
            let excluded: Vec<u32> = data.filters.answers(&q.key).iter().map(|a| a.index()).collect();
            for &a in &q.answers {
                let ranked = rank_row(&row_scores, &[a.index()], &excluded, RowOptions::default()).unwrap();
                let p = ranked.positions[0];
                filter_scope.push(AnswerObservation {
                    question: i as u32,
                    answer: a,
                    observed: RankObservation::Counts { greater: p.greater as u64, equal: p.equal as u64 },
                    candidates: Some(ranked.candidates as u64),
                });
            }
            for (e, &s) in row32.iter().enumerate() {
                run.push(&format!("q{i}"), &format!("e{e}"), f64::from(s));
            }
        }
        let options = options(TiePolicy::Realistic);
        let from_counts = data.evaluate(&known_scope, FilterScope::Known, &options);
        let from_filter_counts = data.evaluate(&filter_scope, FilterScope::Filters, &options);
        let read = observe_run(&data.data(), &run, |qid| qid[1..].parse().ok()).unwrap();
        assert!(read.warnings.is_empty(), "{:?}", read.warnings);
        let input = KgcInput {
            observations: &read.observations,
            scope: FilterScope::Filters,
            ir_run: Some(&read.filtered),
            ir_qrels: None,
        };
        let from_run = evaluate_kgc(&data.data(), &input, &options, "run").expect("evaluation");
        for other in [&from_filter_counts, &from_run] {
            assert_eq!(other.macro_scores.best, from_counts.macro_scores.best, "seed {seed}");
            assert_eq!(other.macro_scores.answer_mean, from_counts.macro_scores.answer_mean, "seed {seed}");
            assert_eq!(other.micro[0].summary.mrr, from_counts.micro[0].summary.mrr, "seed {seed}");
            assert_eq!(other.micro[0].summary.mean_rank, from_counts.micro[0].summary.mean_rank, "seed {seed}");
            assert_eq!(other.micro[0].adjusted, from_counts.micro[0].adjusted, "seed {seed}");
            assert_eq!(other.macro_scores.ir.len(), 2);
            for ((name, a), (_, b)) in other.macro_scores.ir.iter().zip(&from_counts.macro_scores.ir) {
                assert!((a - b).abs() < 1e-12, "seed {seed} {name}: {a} vs {b}");
            }
        }
        assert_eq!(from_counts.ties.questions_with_tied_answers, 0);
    }
}

/// Judgments become per-question qrels: both questions of a judged triple, negatives kept,
/// unjudged test answers relevant, the first of two disagreeing judgments kept.
#[test]
fn judgments_as_qrels() {
    let data = Dataset::new(5, &[(0, "r", 1)], &[]);
    let t = |h: usize, tl: usize| Triple {
        head: data.vocabulary.entities.get(&format!("e{h}")).unwrap(),
        relation: data.vocabulary.relations.get("r").unwrap(),
        tail: data.vocabulary.entities.get(&format!("e{tl}")).unwrap(),
    };
    let judgments = [
        Judgment { triple: t(0, 2), relevant: true, line: 1 },
        Judgment { triple: t(0, 3), relevant: false, line: 2 },
        Judgment { triple: t(0, 3), relevant: true, line: 3 },
        Judgment { triple: t(4, 4), relevant: true, line: 4 },
    ];
    let read = judgment_qrels(&data.data(), &judgments, "annotations.txt");
    let tail0 = read.qrels.topic("tail0").unwrap();
    assert_eq!((tail0.get("e1"), tail0.get("e2"), tail0.get("e3"), tail0.get("e4")), (Some(1), Some(1), Some(0), None));
    assert_eq!(read.qrels.topic("head0").unwrap().get("e0"), Some(1));
    assert_eq!(read.unused, 1);
    assert_eq!(read.warnings.len(), 1);
    assert_eq!(
        read.warnings[0].to_string(),
        "warning: annotations.txt:3:1: this judgment disagrees with line 2 for question tail0; the first wins [conflicting-judgment]"
    );
    let pool =
        [PooledTriple { triple: t(0, 2), depth: 2, line: 1 }, PooledTriple { triple: t(0, 3), depth: 1, line: 2 }];
    // e0 r e2 (Y) at depth 2; e0 r e3 first judged N: not a positive.
    assert_eq!(depth_series_positives(&judgments, &pool, 3), vec![0, 1, 0]);
}

/// Plain ranks with the other answers competing move to the fully filtered scope by the
/// spec's rule (the j-th answer by rank has j answers above it); the IR list puts them back.
#[test]
fn plain_ranks_in_the_filter_scope() {
    // One tail question (e0, r, ?) with answers e1, e2, e3.
    let data = Dataset::new(10, &[(0, "r", 1), (0, "r", 2), (0, "r", 3)], &[]);
    let q = data.test.questions.index_of(&data.key(Side::Tail, "r", 0)).unwrap();
    let e = |i: usize| data.vocabulary.entities.get(&format!("e{i}")).unwrap();
    // Macro list: e2 at 1, e3 at 4, e1 at 6.
    let observations: Vec<AnswerObservation> = [(1, 6.0), (2, 1.0), (3, 4.0)]
        .into_iter()
        .map(|(a, r)| AnswerObservation {
            question: q,
            answer: e(a),
            observed: RankObservation::Rank(r),
            candidates: None,
        })
        .collect();
    let ev = data.evaluate(&observations, FilterScope::Filters, &options(TiePolicy::Realistic));
    // Fully filtered: e2 1, e3 3, e1 4. Tail micro MRR = (1 + 1/3 + 1/4) / 3.
    assert!(close(ev.micro[2].summary.mrr, (1.0 + 1.0 / 3.0 + 0.25) / 3.0));
    let question = data.test.questions.get(q);
    let table = &ev.score_table;
    let (s, item, rank) = table.find("system", &format!("{}/e1", question.id), "rank").unwrap();
    assert_eq!(table.get(s, item, rank), Some(4.0));
    // The IR list: relevant at 1, 4, 6 of 3 relevant: AP@20 = (1 + 2/4 + 3/6) / 3.
    let (s, item, map) = table.find("system", &question.id, "map_cut_20").unwrap();
    assert!(close(table.get(s, item, map).unwrap(), (1.0 + 0.5 + 0.5) / 3.0));
    // Candidates for adjusted metrics: 10 entities minus the 2 other known answers.
    assert!(close(ev.micro[2].adjusted.as_ref().unwrap().expected_mr, (8.0 + 1.0) / 2.0));
}

/// A system run that retrieves one document twice for a question is an error of the IR
/// measures, propagated to the caller (no silent empty IR list).
#[test]
fn a_run_with_a_repeated_document_is_an_error() {
    let data = Dataset::new(4, &[(0, "r", 1)], &[]);
    let doc = |docno: &str, score: f64| kgeval_model::trec::OwnedRunDoc { docno: docno.to_owned(), score, rank: 0 };
    let run = Run {
        run_id: "run".to_owned(),
        topics: vec![("tail0".to_owned(), vec![doc("e1", 2.0), doc("e2", 1.0), doc("e1", 0.5)])],
    };
    let input = KgcInput { observations: &[], scope: FilterScope::Filters, ir_run: Some(&run), ir_qrels: None };
    let error = evaluate_kgc(&data.data(), &input, &options(TiePolicy::Realistic), "run").unwrap_err();
    assert_eq!(error.to_string(), "topic tail0: document e1 is retrieved twice");
}
