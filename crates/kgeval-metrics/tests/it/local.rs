//! Local ranking with NIL: hand-worked pairs, tie policies around the gold and NIL,
//! validation errors, warnings, τ sweep and leaderboard invariants (property tests).

use kgeval_metrics::rank::{evaluate_local, InputRole, LocalOptions, LocalPair};
use kgeval_model::rank::results::{RankingEvaluation, RankingProfile};
use kgeval_model::rank::{GoldEntry, GoldKey, Pool, PoolSet, Submission, SubmissionEntry, Submitted};
use kgeval_model::ranking::TiePolicy;
use kgeval_model::{Interner, TermId};
use proptest::prelude::*;

const NIL: &str = "nil";

struct Fixture {
    interner: Interner,
    pools: PoolSet,
    gold: GoldKey,
    submission: Submission,
}

impl Fixture {
    fn new() -> Self {
        Fixture {
            interner: Interner::new(),
            pools: PoolSet::new(),
            gold: GoldKey::new(),
            submission: Submission::default(),
        }
    }
    fn ids(&mut self, names: &[&str]) -> Vec<TermId> {
        names.iter().map(|n| self.interner.intern(n)).collect()
    }
    fn pool(&mut self, qid: &str, ty: &str, candidates: &[&str]) {
        let line = self.pools.len() as u32 + 1;
        let source = self.interner.intern(&format!("src-{qid}"));
        let candidates = self.ids(candidates);
        let pool = Pool { qid: qid.into(), source, entity_type: Some(ty.into()), candidates, line };
        assert!(self.pools.insert(pool).is_ok());
    }
    fn gold(&mut self, qid: &str, gold: &str) {
        let line = self.gold.entries.len() as u32 + 1;
        let gold = self.interner.intern(gold);
        self.gold.entries.push(GoldEntry { qid: qid.into(), gold, line });
    }
    fn ranking(&mut self, qid: &str, ranking: &[&str]) {
        let ranking = self.ids(ranking);
        self.entry(qid, Submitted::Ranking(ranking));
    }
    fn scores(&mut self, qid: &str, scores: &[(&str, f64)]) {
        let scores = scores.iter().map(|&(n, s)| (self.interner.intern(n), s)).collect();
        self.entry(qid, Submitted::Scores(scores));
    }
    fn entry(&mut self, qid: &str, submitted: Submitted) {
        let line = self.submission.entries.len() as u32 + 1;
        self.submission.entries.push(SubmissionEntry { qid: qid.into(), submitted, answers: None, line });
    }
    fn evaluate(&self, options: &LocalOptions) -> Result<RankingEvaluation, kgeval_metrics::rank::ValidationError> {
        let pair = LocalPair { name: "p", pools: Some(&self.pools), submission: &self.submission, gold: &self.gold };
        evaluate_local("sys", &[pair], &self.interner, options)
    }
}

fn options() -> LocalOptions {
    LocalOptions { nil_iri: NIL.to_owned(), pool_size: None, ..LocalOptions::for_profile(RankingProfile::Diso) }
}

/// Three queries: matched at rank 1 (CLS), matched at rank 3 (DPROP), NIL at rank 1 (CLS).
fn three_queries() -> Fixture {
    let mut f = Fixture::new();
    f.pool("0", "CLS", &["a", "b", "c", NIL]);
    f.pool("1", "DPROP", &["a", "d", "e", NIL]);
    f.pool("2", "CLS", &["b", "c", "f", NIL]);
    f.gold("0", "b");
    f.gold("1", "e");
    f.gold("2", NIL);
    f.ranking("0", &["b", "a", "c", NIL]);
    f.ranking("1", &["d", NIL, "e", "a"]);
    f.ranking("2", &[NIL, "b", "c", "f"]);
    f
}

#[test]
fn breakdowns_by_hand() {
    let r = three_queries().evaluate(&options()).unwrap();
    let p = &r.pairs[0];
    let b = &p.breakdown;
    assert_eq!(p.n, 3);
    assert_eq!(b.overall.mrr, (1.0 + 1.0 / 3.0 + 1.0) / 3.0);
    assert_eq!(b.overall.hits, vec![(1, 2.0 / 3.0), (3, 1.0), (5, 1.0), (10, 1.0)]);
    assert_eq!((b.matched.queries, b.matched.mrr), (2, (1.0 + 1.0 / 3.0) / 2.0));
    assert_eq!((b.nil.queries, b.nil.mrr), (1, 1.0));
    assert_eq!(b.per_type.len(), 2);
    assert_eq!((b.per_type[0].0.as_str(), b.per_type[0].1.queries, b.per_type[0].1.mrr), ("CLS", 2, 1.0));
    assert_eq!((b.per_type[1].0.as_str(), b.per_type[1].1.queries, b.per_type[1].1.mrr), ("DPROP", 1, 1.0 / 3.0));
    // Rankings carry no τ.
    assert_eq!(p.tau, None);
    // q2 abstained correctly; the matched queries answered.
    let a = p.abstention;
    assert_eq!((a.answered_matched, a.abstained_matched, a.answered_nil, a.abstained_nil), (2, 0, 0, 1));
    assert_eq!((a.precision, a.recall, a.f1, a.false_abstention_rate), (1.0, 1.0, 1.0, 0.0));
    // Baselines: 1 NIL of 3.
    assert_eq!(p.baselines.nil_share, 1.0 / 3.0);
    assert_eq!(p.baselines.nil_first.hits_at(1), Some(1.0 / 3.0));
    assert_eq!(p.baselines.hedge.mrr, 2.5 / 3.0);
    // One pair: MACRO = micro = overall.
    assert_eq!(r.macro_summary.mrr, b.overall.mrr);
    assert_eq!(r.micro_summary.mrr, b.overall.mrr);
    // The per-item table holds one rr per query.
    let (sys, item, rr) = r.score_table.find("sys", "p/1", "rr").unwrap();
    assert_eq!(r.score_table.get(sys, item, rr), Some(1.0 / 3.0));
    assert_eq!(r.score_table.item_info(item).group("type"), Some("DPROP"));
    assert_eq!(r.score_table.item_info(item).group("gold"), Some("matched"));
}

/// x 0.9 | y 0.5, g 0.5, NIL τ = 0.5 | z 0.1; gold g.
fn tied_pool(tau: f64, ties: TiePolicy) -> RankingEvaluation {
    let mut f = Fixture::new();
    f.pool("0", "CLS", &["x", "g", "y", NIL, "z"]);
    f.gold("0", "g");
    f.scores("0", &[("x", 0.9), ("y", 0.5), ("g", 0.5), ("z", 0.1)]);
    let options = LocalOptions { tau: Some(tau), ties, ..options() };
    f.evaluate(&options).expect("valid")
}

#[test]
fn tie_policies_around_the_gold_and_nil() {
    // (policy, gold rank at τ = 0.5, gold rank at τ = 0.95 where NIL leaves the tie for rank 1)
    let expected = [
        (TiePolicy::STABLE, 3.0, 4.0), // x, then y (earlier); NIL after every scored candidate
        (TiePolicy::LEXICOGRAPHIC, 2.0, 3.0), // g < nil < y
        (TiePolicy::TREC_EVAL, 4.0, 4.0), // y > nil > g: NIL was above g already
        (TiePolicy::Optimistic, 2.0, 3.0),
        (TiePolicy::Pessimistic, 4.0, 4.0),
        (TiePolicy::Realistic, 3.0, 3.5),
    ];
    for (policy, gold_rank, high_rank) in expected {
        let r = tied_pool(0.5, policy);
        let p = &r.pairs[0];
        assert_eq!(p.breakdown.overall.mrr, 1.0 / gold_rank, "{policy}");
        assert_eq!((p.ties.gold_tied, p.ties.nil_tied), (1, 1), "{policy}");
        assert_eq!(p.tau, Some(0.5));
        // NIL never first at τ = 0.5 (x scores 0.9).
        assert_eq!(p.abstention.abstained_matched, 0, "{policy}");
        // τ above every score: NIL first, the system abstains on a matched query.
        let high = tied_pool(0.95, policy);
        assert_eq!(high.pairs[0].abstention.abstained_matched, 1, "{policy}");
        assert_eq!(high.pairs[0].breakdown.overall.mrr, 1.0 / high_rank, "{policy}");
    }
    // τ = 0.6: no tie with NIL any more; the gold ties only with y.
    let r = tied_pool(0.6, TiePolicy::Realistic);
    assert_eq!(r.pairs[0].breakdown.overall.mrr, 1.0 / 3.5);
    assert_eq!(r.pairs[0].ties.nil_tied, 0);
}

#[test]
fn validation_errors_name_the_input_line_and_culprits() {
    let base = three_queries;
    let opts = options();

    let mut f = base();
    f.ranking("1", &["a", "d", "e", NIL]);
    let e = f.evaluate(&opts).unwrap_err();
    assert_eq!((e.role, e.line), (InputRole::Submission, 4));
    assert!(e.message.contains("duplicate qid 1 (first at line 2)"), "{e}");

    let mut f = base();
    f.ranking("9", &["a"]);
    let e = f.evaluate(&opts).unwrap_err();
    assert!(e.message.contains("unknown qid 9"), "{e}");

    let mut f = base();
    f.submission.entries.remove(1);
    let e = f.evaluate(&opts).unwrap_err();
    assert!(e.message.contains("1 qid(s) missing from the submission: 1"), "{e}");
    let r = f.evaluate(&LocalOptions { allow_missing: true, ..opts.clone() }).unwrap();
    assert_eq!(r.pairs[0].missing_queries, 1);
    assert_eq!(r.pairs[0].breakdown.overall.mrr, 2.0 / 3.0);
    assert!(r.warnings.iter().any(|w| w.code == "missing-qid"));

    let mut f = base();
    f.submission.entries[0].submitted = Submitted::Ranking(f.ids(&["b", "zz", "c", NIL]));
    let e = f.evaluate(&opts).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("qid 0: ranking is not a permutation of the pool"), "{e}");
    assert!(e.message.contains("1 not in the pool: <zz>"), "{e}");
    assert!(e.message.contains("1 missing: <a>"), "{e}");

    // Repair appends missing candidates in pool order; extras are never repaired.
    let mut f = base();
    f.submission.entries[1].submitted = Submitted::Ranking(f.ids(&["d", NIL]));
    assert!(f.evaluate(&opts).unwrap_err().message.contains("--repair appends them"));
    let r = f.evaluate(&LocalOptions { repair: true, ..opts.clone() }).unwrap();
    assert_eq!(r.pairs[0].repaired_queries, 1);
    // d, NIL, then a, e in pool order: e at rank 4.
    assert_eq!(r.pairs[0].breakdown.matched.mrr, (1.0 + 0.25) / 2.0);
    assert!(r.warnings.iter().any(|w| w.code == "repaired"));

    let e = base().evaluate(&LocalOptions { pool_size: Some(50), ..opts.clone() }).unwrap_err();
    assert_eq!((e.role, e.line), (InputRole::Pools, 1));
    assert!(e.message.contains("pool has 4 candidates, expected 50"), "{e}");

    let mut f = base();
    f.pool("3", "CLS", &["a", "b"]);
    let e = f.evaluate(&opts).unwrap_err();
    assert_eq!((e.role, e.line), (InputRole::Pools, 4));
    assert!(e.message.contains("NIL IRI <nil> is not in the pool"), "{e}");

    let mut f = base();
    f.gold("0", "a");
    let e = f.evaluate(&opts).unwrap_err();
    assert_eq!((e.role, e.line), (InputRole::Gold, 4));

    let mut f = base();
    f.gold("7", "a");
    assert!(f.evaluate(&opts).unwrap_err().message.contains("qid 7 has no pool"));

    // A sweep needs scores.
    let e = base().evaluate(&LocalOptions { tau_grid: Some(vec![0.5]), ..opts }).unwrap_err();
    assert!(e.message.contains("tau sweep needs scores"), "{e}");
}

#[test]
fn identical_pools_and_sibling_golds_warn() {
    let mut f = Fixture::new();
    let source = f.interner.intern("src");
    for (qid, line) in [("2", 1), ("3", 2)] {
        let candidates = f.ids(&["a", "b", NIL]);
        assert!(f.pools.insert(Pool { qid: qid.into(), source, entity_type: None, candidates, line }).is_ok());
    }
    f.gold("2", "a");
    f.gold("3", "b");
    f.ranking("2", &["a", "b", NIL]);
    f.ranking("3", &["a", "b", NIL]);
    let r = f.evaluate(&options()).unwrap();
    let codes: Vec<&str> = r.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, ["identical-pools", "sibling-gold", "sibling-gold"]);
    assert!(r.warnings[0].message.contains("qids 2 (line 1) and 3 (line 2) have identical pools"));
}

#[test]
fn tau_sweep_flags_the_oracle() {
    let mut f = Fixture::new();
    f.pool("0", "CLS", &["a", "b", NIL]);
    f.pool("1", "CLS", &["a", "b", NIL]);
    f.gold("0", "a");
    f.gold("1", NIL);
    f.scores("0", &[("a", 0.8), ("b", 0.3)]);
    f.scores("1", &[("a", 0.4), ("b", 0.2)]);
    let r = f.evaluate(&LocalOptions { tau_grid: Some(vec![0.1, 0.5, 0.9]), ..options() }).unwrap();
    let sweep = r.sweep.unwrap();
    // τ 0.1: NIL last → q0 rr 1, q1 rr 1/3; τ 0.5: q0 1, q1 1; τ 0.9: q0 1/2, q1 1.
    let mrrs: Vec<f64> = sweep.points.iter().map(|p| p.macro_summary.mrr).collect();
    assert_eq!(mrrs, vec![(1.0 + 1.0 / 3.0) / 2.0, 1.0, 0.75]);
    assert_eq!(sweep.oracle, 1);
    assert_eq!(sweep.points[1].abstention.f1, 1.0);
    // Risk–coverage: q0 (0.8, right), q1 (0.4, NIL query: wrong) → risks 0, 1/2.
    let rc = r.pairs[0].risk_coverage.as_ref().unwrap();
    assert_eq!(rc.points, vec![(0.5, 0.0), (1.0, 0.5)]);
    assert_eq!(rc.aurc, 0.25);
}

fn arbitrary_pair() -> impl Strategy<Value = Vec<(u8, u8, Vec<u8>)>> {
    // Per query: gold index (0..=4, 4 = NIL), type, scores of the 4 non-NIL candidates (coarse, for ties).
    prop::collection::vec((0u8..5, 0u8..3, prop::collection::vec(0u8..4, 4)), 1..30)
}

fn build(queries: &[(u8, u8, Vec<u8>)], policy: TiePolicy) -> RankingEvaluation {
    let mut f = Fixture::new();
    let names = ["c0", "c1", "c2", "c3", NIL];
    for (q, (gold, ty, scores)) in queries.iter().enumerate() {
        let qid = q.to_string();
        f.pool(&qid, ["CLS", "OPROP", "DPROP"][*ty as usize], &names);
        f.gold(&qid, names[*gold as usize]);
        let scored: Vec<(&str, f64)> = names[..4].iter().zip(scores).map(|(n, &s)| (*n, f64::from(s) / 4.0)).collect();
        f.scores(&qid, &scored);
    }
    f.evaluate(&LocalOptions { ties: policy, ..options() }).expect("valid")
}

proptest! {
    #[test]
    fn leaderboard_invariants(queries in arbitrary_pair()) {
        let r = build(&queries, TiePolicy::STABLE);
        let b = &r.pairs[0].breakdown;
        let weighted = |parts: &[&kgeval_model::rank::results::RankSummary]| {
            parts.iter().map(|s| s.mrr * s.queries as f64).sum::<f64>() / parts.iter().map(|s| s.queries as f64).sum::<f64>()
        };
        prop_assert!((weighted(&[&b.matched, &b.nil]) - b.overall.mrr).abs() < 1e-12);
        let types: Vec<_> = b.per_type.iter().map(|(_, s)| s).collect();
        prop_assert!((weighted(&types) - b.overall.mrr).abs() < 1e-12);
        prop_assert_eq!(types.iter().map(|s| s.queries).sum::<usize>(), b.overall.queries);
        for (k, v) in &b.overall.hits {
            prop_assert!((0.0..=1.0).contains(v), "hits@{}", k);
        }
    }

    #[test]
    fn policies_bracket_each_other(queries in arbitrary_pair()) {
        let mrr = |p| build(&queries, p).pairs[0].breakdown.overall.mrr;
        let (optimistic, pessimistic) = (mrr(TiePolicy::Optimistic), mrr(TiePolicy::Pessimistic));
        for policy in [TiePolicy::STABLE, TiePolicy::LEXICOGRAPHIC, TiePolicy::TREC_EVAL, TiePolicy::Realistic] {
            let m = mrr(policy);
            prop_assert!(pessimistic <= m + 1e-12 && m <= optimistic + 1e-12, "{} {} {} {}", policy, pessimistic, m, optimistic);
        }
    }
}
