//! Determinism: the same inputs give the same output bytes at `RAYON_NUM_THREADS=1` and 2.
//! The inputs are generated here (nothing large is committed) and big enough that the
//! parallel paths are taken: the RDF/XML reader's stretches (files above 8 MiB), trec's
//! per-topic measures and index chunks, the `.npy` reader's 8 MiB row blocks.

use std::fmt::Write as _;
use std::path::Path;

use crate::{kgeval_threads, npy_f32, npy_matrix, NpyType};

/// A small deterministic generator (64-bit LCG, Knuth's constants): test data only.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Runs `kgeval args` with `threads` rayon threads and returns stdout (the run must succeed).
fn run_with_threads(args: &[&str], threads: &str) -> Vec<u8> {
    let out = kgeval_threads(args, threads);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(!out.stdout.is_empty());
    out.stdout
}

/// Asserts that 1 and 2 threads print the same bytes, in JSON with per-item scores and in text.
fn assert_thread_count_free(args: &[&str]) {
    assert_same_bytes(args, &[&["-f", "json", "--per-item"], &["-f", "text"]]);
}

/// Asserts that 1 and 2 threads print the same bytes with each of `formats` appended.
fn assert_same_bytes(args: &[&str], formats: &[&[&str]]) {
    for format in formats {
        let all: Vec<&str> = args.iter().copied().chain(format.iter().copied()).collect();
        let one = run_with_threads(&all, "1");
        let two = run_with_threads(&all, "2");
        assert!(one == two, "{all:?}: 1 and 2 threads differ");
    }
}

fn s(path: &Path) -> String {
    path.display().to_string()
}

/// An alignment in MELT's RDF/XML layout with `cells` (entity1, entity2, confidence).
fn alignment(cells: &[(u64, u64, f64)]) -> String {
    let mut out = String::from(
        "<?xml version='1.0' encoding='utf-8'?>\n<rdf:RDF xmlns='http://knowledgeweb.semanticweb.org/heterogeneity/alignment'\n \
         xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'\n xmlns:xsd='http://www.w3.org/2001/XMLSchema#'>\n\
         <Alignment>\n<xml>yes</xml>\n<level>0</level>\n<type>??</type>\n\
         <onto1><Ontology rdf:about=\"http://a\"><location>http://a</location></Ontology></onto1>\n\
         <onto2><Ontology rdf:about=\"http://b\"><location>http://b</location></Ontology></onto2>\n",
    );
    for (i, (e1, e2, c)) in cells.iter().enumerate() {
        let _ = write!(
            out,
            "<map>\n  <Cell cid=\"{i}\">\n    <entity1 rdf:resource=\"http://a#Entity_{e1}\"/>\n    \
             <entity2 rdf:resource=\"http://b#Entity_{e2}\"/>\n    \
             <measure rdf:datatype=\"http://www.w3.org/2001/XMLSchema#float\">{c}</measure>\n    \
             <relation>=</relation>\n  </Cell>\n</map>\n"
        );
    }
    out.push_str("</Alignment>\n</rdf:RDF>\n");
    out
}

#[test]
fn align_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rng = Lcg(15);
    let reference: Vec<(u64, u64, f64)> = (0..60_000).map(|i| (i, rng.below(90_000), 1.0)).collect();
    // A system: most reference cells (some duplicated, some with another target) plus noise.
    let mut system = Vec::new();
    for &(e1, e2, _) in &reference {
        let confidence = f64::from(u32::try_from(rng.below(1000)).expect("small")) / 1000.0;
        match rng.below(10) {
            0 => system.push((e1, rng.below(90_000), confidence)),
            1 => {
                system.push((e1, e2, confidence));
                system.push((e1, e2, confidence / 2.0));
            }
            _ => system.push((e1, e2, confidence)),
        }
        if rng.below(4) == 0 {
            system.push((60_000 + rng.below(30_000), rng.below(90_000), confidence));
        }
    }
    let (r, sys) = (dir.path().join("reference.rdf"), dir.path().join("system.rdf"));
    std::fs::write(&r, alignment(&reference)).expect("write");
    std::fs::write(&sys, alignment(&system)).expect("write");
    assert!(std::fs::metadata(&r).expect("size").len() > 8 << 20, "above the parallel threshold");
    assert_thread_count_free(&["align", "--reference", &s(&r), "--system", &s(&sys), "--completeness", "complete"]);
}

#[test]
fn trec_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rng = Lcg(7);
    let (mut qrels, mut run) = (String::new(), String::new());
    for topic in 0..600 {
        for doc in 0..40 {
            let _ = writeln!(qrels, "{topic} 0 D{doc} {}", rng.below(3));
        }
        for rank in 0..150 {
            // Few distinct scores: many ties, broken by docno.
            let _ = writeln!(run, "{topic} Q0 D{} {rank} {} sys", (rank * 7 + topic * 13) % 300, rng.below(20));
        }
    }
    let (q, r) = (dir.path().join("qrels.txt"), dir.path().join("run.txt"));
    std::fs::write(&q, qrels).expect("write");
    std::fs::write(&r, run).expect("write");
    assert_thread_count_free(&["trec", "-q", "-m", "all_trec", &s(&q), &s(&r)]);
}

/// Writes a C-order little-endian float32 `.npy` matrix.
fn write_npy(path: &Path, rows: usize, cols: usize, value: impl Fn(usize, usize) -> f32) {
    let values = (0..rows).flat_map(|row| (0..cols).map(move |col| (row, col))).map(|(row, col)| value(row, col));
    std::fs::write(path, npy_f32(rows, cols, values)).expect("write npy");
}

/// A score from a hash of (row, column), rounded to few values so ties are frequent.
fn hashed_score(row: usize, col: usize) -> f32 {
    let mut h = Lcg((row * 31 + col) as u64);
    h.next();
    (h.below(64) as f32) / 8.0
}

/// The text inputs of a kgc case in `dir` (600 test triples, 2,500 entities, 1,200 questions)
/// and the arguments that score `scores.npy` (written by the caller: 1,200 × 2,500) with them.
fn kgc_case(dir: &Path) -> Vec<String> {
    let (entities, relations, triples) = (2_500_usize, 7_u64, 600_usize);
    let mut rng = Lcg(3);
    let (mut test, mut train, mut questions) = (String::new(), String::new(), String::new());
    let names: String = (0..entities).map(|e| format!("e{e}\n")).collect();
    for i in 0..triples {
        // Distinct heads and tails: every question is asked once.
        let (h, r, t) = (i, rng.below(relations), triples + i);
        let _ = writeln!(test, "e{h}\tr{r}\te{t}");
        let _ = writeln!(questions, "head{i}\te{t}\tr{r}");
        let _ = writeln!(questions, "tail{i}\te{h}\tr{r}");
    }
    for _ in 0..20_000 {
        let _ = writeln!(
            train,
            "e{}\tr{}\te{}",
            rng.below(entities as u64),
            rng.below(relations),
            rng.below(entities as u64)
        );
    }
    let p = |name: &str| dir.join(name);
    std::fs::write(p("test.txt"), test).expect("write");
    std::fs::write(p("train.txt"), train).expect("write");
    std::fs::write(p("questions.txt"), questions).expect("write");
    std::fs::write(p("entities.txt"), names).expect("write");
    let mut args = vec!["kgc".to_owned()];
    for (flag, name) in [
        ("--test", "test.txt"),
        ("--filter", "train.txt"),
        ("--entities", "entities.txt"),
        ("--scores", "scores.npy"),
        ("--questions", "questions.txt"),
    ] {
        args.extend([flag.to_owned(), s(&p(name))]);
    }
    args
}

#[test]
fn kgc_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = kgc_case(dir.path());
    let scores = dir.path().join("scores.npy");
    write_npy(&scores, 1_200, 2_500, hashed_score);
    assert!(std::fs::metadata(&scores).expect("size").len() > 8 << 20, "more than one block");
    assert_thread_count_free(&args.iter().map(String::as_str).collect::<Vec<_>>());
}

/// The same on a float64 Fortran-order matrix (rows gathered from the columns block by block):
/// the hashed scores plus steps of 1e-12 that only float64 tells apart.
#[test]
fn kgc_float64_fortran_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = kgc_case(dir.path());
    let scores = dir.path().join("scores.npy");
    let value = |row: usize, col: usize| f64::from(hashed_score(row, col)) + ((row + col) % 3) as f64 * 1e-12;
    std::fs::write(&scores, npy_matrix(1_200, 2_500, NpyType::F64, true, value)).expect("write npy");
    assert!(std::fs::metadata(&scores).expect("size").len() > 2 * (8 << 20), "more than two blocks");
    assert_thread_count_free(&args.iter().map(String::as_str).collect::<Vec<_>>());
}

/// Qrels and `runs` runs over `topics` topics with many tied scores.
fn trec_files(dir: &Path, topics: usize, runs: usize) -> Vec<String> {
    let mut rng = Lcg(11);
    let mut qrels = String::new();
    let mut run_texts = vec![String::new(); runs];
    for topic in 0..topics {
        for doc in 0..40 {
            let _ = writeln!(qrels, "{topic} 0 D{doc} {}", rng.below(3));
        }
        for (i, run) in run_texts.iter_mut().enumerate() {
            for rank in 0..100 {
                let doc = (rank * 7 + topic * 13 + i * 3) % 300;
                let _ = writeln!(run, "{topic} Q0 D{doc} {rank} {} run{i}", rng.below(20 + 5 * i as u64));
            }
        }
    }
    std::fs::write(dir.join("qrels.txt"), qrels).expect("write");
    let mut paths = vec![s(&dir.join("qrels.txt"))];
    for (i, run) in run_texts.iter().enumerate() {
        let path = dir.join(format!("run{i}.txt"));
        std::fs::write(&path, run).expect("write");
        paths.push(s(&path));
    }
    paths
}

#[test]
fn compare_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = trec_files(dir.path(), 200, 3);
    let runs: Vec<String> = files[1..].iter().enumerate().map(|(i, p)| format!("--run=run{i}={p}")).collect();
    for test in ["tukey", "bootstrap"] {
        let mut args = vec!["compare", "--qrels", &files[0], "-m", "map", "-m", "P.10", "--test", test, "--intervals"];
        args.extend(runs.iter().map(String::as_str));
        assert_same_bytes(&args, &[&["-f", "json"], &["-f", "text"]]);
    }
}

#[test]
fn rank_does_not_depend_on_the_thread_count() {
    assert_thread_count_free(&[
        "rank",
        "--pools",
        "testdata/ranking/diso-oaei/pools/uco-stix/pools.jsonl",
        "--gold",
        "testdata/ranking/diso-synthetic/uco-stix/gold.tsv",
        "--system",
        "lexical=testdata/ranking/diso-synthetic/uco-stix/lexical.jsonl",
        "--sweep-tau",
    ]);
}

#[test]
fn qald_does_not_depend_on_the_thread_count() {
    assert_thread_count_free(&[
        "qald",
        "--gold",
        "testdata/qald/qald3/dbpedia-test-answers.xml",
        "--system",
        "testdata/qald/qald3/dbpedia-test-questions.xml",
        "--system",
        "gold=testdata/qald/qald3/dbpedia-test-answers.xml",
        "--rule",
        "qald3",
    ]);
}

#[test]
fn lexicon_does_not_depend_on_the_thread_count() {
    assert_thread_count_free(&[
        "lexicon",
        "--gold",
        "testdata/lemon/qald3-dbpedia_train_lexicon_en.ttl",
        "--system",
        "testdata/lemon/qald3-dbpedia_train_lexicon_en.ttl",
        "--system",
        "foaf=testdata/lemon/matoll-foaf.ttl",
        "--uris",
        "testdata/lemon/qald3-dbpedia_train_classes_properties.txt",
    ]);
}
