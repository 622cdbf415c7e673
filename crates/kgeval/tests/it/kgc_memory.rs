//! KGC scores given in memory (`KgcTask::run_scores`, `KgcTask::score_evaluator`): the same
//! JSON as `KgcTask::run` on the bundled `.npy` files, batch by batch as in one shot, and the
//! same checks.

use half::f16;
use kgeval::kgc::{KgcTask, ScoreRows, ScoreValues};
use kgeval::{Error, Evaluation, NoProgress, OutputFormat, RenderOptions, SystemInput};
use kgeval_formats::kgc::npy::ScoreMatrix;
use kgeval_model::ranking::{NanPolicy, ScoreRow, TiePolicy};

use crate::root;

const MINI: &str = "testdata/kgc/mini";

/// The mini case (PyKEEN's rank fixture as the tail rows) with `scores` naming the system
/// output; NaN ranked worst.
fn mini_task(scores: &str, ties: TiePolicy) -> KgcTask {
    let at = |file: &str| root().join(MINI).join(file);
    let mut task = KgcTask::new(at("test.txt")).filter(at("train.txt"));
    task.entities = Some(at("entities.txt").into());
    task.questions = Some(at("questions.txt").into());
    task.scores = vec![SystemInput::named("TransE", at(scores))];
    task.nan = NanPolicy::Worst;
    task.ties = ties;
    task
}

/// Every value of a `.npy` file, row-major, by element type.
enum Matrix {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

fn read_npy(file: &str) -> (Matrix, usize) {
    let matrix = ScoreMatrix::open(&root().join(MINI).join(file)).expect("npy");
    let block = matrix.map_rows(0..matrix.rows()).expect("rows");
    let (mut f64s, mut f32s) = (Vec::new(), Vec::new());
    for i in 0..matrix.rows() {
        match block.row(i) {
            ScoreRow::F64(values) => f64s.extend_from_slice(&values),
            ScoreRow::F32(values) => f32s.extend_from_slice(&values),
            ScoreRow::F16(_) => panic!("no float16 file here"),
        }
    }
    let values = if f64s.is_empty() { Matrix::F32(f32s) } else { Matrix::F64(f64s) };
    (values, matrix.cols())
}

fn json(evaluation: &Evaluation) -> String {
    evaluation.render(OutputFormat::Json, &RenderOptions::default())
}

fn invalid(error: Error) -> String {
    match error {
        Error::Invalid(message) => message,
        other => panic!("expected an invalid-input error, found {other:?}"),
    }
}

#[test]
fn in_memory_float32_and_float64_equal_the_npy_files_byte_for_byte() {
    for ties in [TiePolicy::Realistic, TiePolicy::Optimistic, TiePolicy::Pessimistic, TiePolicy::RoundedMean] {
        for file in ["scores.npy", "scores-float64.npy"] {
            let task = mini_task(file, ties);
            let expected = json(&task.run(&NoProgress).expect("file"));
            let (values, columns) = read_npy(file);
            let values = match &values {
                Matrix::F64(v) => ScoreValues::F64(v),
                Matrix::F32(v) => ScoreValues::F32(v),
            };
            let rows = ScoreRows::new(values, columns).expect("rows");
            let found = task.run_scores(rows, &NoProgress).expect("memory");
            assert_eq!(json(&found), expected, "{file} {ties:?}");
        }
    }
    // The values the file gives (PyKEEN's fixture, realistic): tail MRR (1/3.5 + 1/2 + 1) / 3.
    let task = mini_task("scores.npy", TiePolicy::Realistic);
    let (Matrix::F32(values), columns) = read_npy("scores.npy") else { panic!("float32") };
    let evaluation = task.run_scores(ScoreRows::new(ScoreValues::F32(&values), columns).expect("rows"), &NoProgress);
    let kgeval::FamilyResult::Kgc(results) = &evaluation.expect("memory").result else { panic!("kgc") };
    let tail = &results[0].micro[2].summary;
    assert!((tail.mrr - (1.0 / 3.5 + 0.5 + 1.0) / 3.0).abs() < 1e-15, "{}", tail.mrr);
    let mr = tail.mean_rank.expect("mean rank");
    assert!((mr - 6.5 / 3.0).abs() < 1e-15, "{mr}");
}

#[test]
fn in_memory_float16_ranks_as_float32() {
    let task = mini_task("scores.npy", TiePolicy::Realistic);
    let expected = json(&task.run(&NoProgress).expect("file"));
    let (Matrix::F32(values), columns) = read_npy("scores.npy") else { panic!("float32") };
    let halves: Vec<f16> = values.iter().map(|&v| f16::from_f32(v)).collect();
    let found = task.run_scores(ScoreRows::new(ScoreValues::F16(&halves), columns).expect("rows"), &NoProgress);
    assert_eq!(json(&found.expect("memory")), expected);
}

#[test]
fn batches_in_any_order_equal_one_shot() {
    let task = mini_task("scores.npy", TiePolicy::Realistic);
    let expected = json(&task.run(&NoProgress).expect("file"));
    let (Matrix::F32(values), columns) = read_npy("scores.npy") else { panic!("float32") };
    let block = |rows: std::ops::Range<usize>| {
        ScoreRows::new(ScoreValues::F32(&values[rows.start * columns..rows.end * columns]), columns).expect("rows")
    };
    let mut evaluator = task.score_evaluator().expect("evaluator");
    assert_eq!((evaluator.rows(), evaluator.columns(), evaluator.name()), (6, 6, "TransE"));
    for rows in [4..6, 0..1, 1..1, 1..4] {
        evaluator.add_batch(rows.start, block(rows)).expect("batch");
    }
    assert_eq!(evaluator.given_rows(), 6);
    assert_eq!(json(&evaluator.finalize().expect("evaluation")), expected);
}

#[test]
fn without_a_name_the_system_is_scores_in_memory() {
    let mut task = mini_task("scores.npy", TiePolicy::Realistic);
    task.scores = Vec::new();
    let (Matrix::F32(values), columns) = read_npy("scores.npy") else { panic!("float32") };
    let evaluation = task.run_scores(ScoreRows::new(ScoreValues::F32(&values), columns).expect("rows"), &NoProgress);
    let evaluation = evaluation.expect("memory");
    assert_eq!(evaluation.systems, ["scores"]);
    assert!(json(&evaluation).contains("scores (in memory) (rows: "), "{}", json(&evaluation));
}

#[test]
fn bad_blocks_are_refused_with_one_line_and_take_no_row() {
    let mut task = mini_task("scores.npy", TiePolicy::Realistic);
    task.nan = NanPolicy::Error;
    let (Matrix::F32(values), columns) = read_npy("scores.npy") else { panic!("float32") };
    let source = root().join(MINI).join("scores.npy").display().to_string();
    let block = |rows: std::ops::Range<usize>| {
        ScoreRows::new(ScoreValues::F32(&values[rows.start * columns..rows.end * columns]), columns).expect("rows")
    };

    // Not whole rows.
    let message = invalid(ScoreRows::new(ScoreValues::F32(&values[..7]), 6).expect_err("ragged"));
    assert_eq!(message, "scores: found 7 values, expected whole rows of 6 (a multiple of the column count)");

    let mut evaluator = task.score_evaluator().expect("evaluator");
    // Rows of another width.
    let narrow = ScoreRows::new(ScoreValues::F32(&values[..10]), 5).expect("rows");
    let message = invalid(evaluator.add_batch(0, narrow).expect_err("width"));
    assert_eq!(message, format!("{source}: found rows of 5 columns, expected 6: one column per entity"));
    // Past the last row.
    let message = invalid(evaluator.add_batch(5, block(0..2)).expect_err("past"));
    assert_eq!(message, format!("{source}: found 2 rows from row 6, expected rows 1 to 6 (one per question line)"));
    // The first NaN in row order (row 4 = tail0, column 6 = the anchor e5): the block takes no row.
    evaluator.add_batch(0, block(0..2)).expect("head rows");
    let message = invalid(evaluator.add_batch(2, block(2..6)).expect_err("nan"));
    assert_eq!(
        message,
        format!(
            "{source}:4:6: found a NaN score (question tail0, entity column 6), expected a number (or the NaN policy worst)"
        )
    );
    assert_eq!(evaluator.given_rows(), 2);
    // A row given twice.
    let message = invalid(evaluator.add_batch(1, block(1..3)).expect_err("twice"));
    assert_eq!(message, format!("{source}:2: found row 2 (question head1) again, expected each row once"));
    evaluator.add_batch(2, block(2..3)).expect("head2");
    // Rows never given.
    let message = invalid(evaluator.finalize().expect_err("missing"));
    assert_eq!(
        message,
        format!("{source}: found no scores for 3 of 6 rows (the first: row 4, question tail0), expected every row")
    );

    // One shot: the whole matrix's shape, as the .npy reader checks it.
    let message = invalid(task.run_scores(block(0..5), &NoProgress).expect_err("shape"));
    assert_eq!(
        message,
        format!("{source}: found shape (5, 6), expected (6, 6): one row per question, one column per entity")
    );
    // The file's NaN message names the same place.
    let file = task.run(&NoProgress).expect_err("nan").to_string();
    assert!(file.contains(":4:6: found a NaN score (question tail0, entity column 6)"), "{file}");

    // Another system output besides the scores in memory; no question list.
    let mut both = task.clone();
    both.ranks = vec![SystemInput::new(root().join(MINI).join("ranks.tsv"))];
    let message = invalid(both.score_evaluator().expect_err("two outputs"));
    assert_eq!(
        message,
        "kgc: expected one system output (scores in memory), found ranks, a run or several scores as well"
    );
    let mut no_questions = task;
    no_questions.questions = None;
    let message = invalid(no_questions.score_evaluator().expect_err("questions"));
    assert_eq!(message, "scores in memory: expected questions and entities as well");
}

/// A `.npy` file (version 1.0, little-endian float32, C order) of `values`.
fn npy_f32(rows: usize, columns: usize, values: &[f32]) -> Vec<u8> {
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {columns}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&u16::try_from(header.len()).expect("short header").to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    bytes
}

/// A question-list line that asks no test question: the same warning, in the same place, from
/// the file and from memory.
#[test]
fn rows_asking_no_test_question_warn_as_from_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (Matrix::F32(mut values), columns) = read_npy("scores.npy") else { panic!("float32") };
    values.extend_from_slice(&[0.5; 6]);
    let scores = dir.path().join("scores.npy");
    std::fs::write(&scores, npy_f32(7, columns, &values)).expect("write npy");
    let questions = dir.path().join("questions.txt");
    let mut text = std::fs::read_to_string(root().join(MINI).join("questions.txt")).expect("questions");
    text.push_str("tail9\te4\tr2\n");
    std::fs::write(&questions, text).expect("write questions");
    let mut task = mini_task("scores.npy", TiePolicy::Realistic);
    task.scores = vec![SystemInput::named("TransE", scores)];
    task.questions = Some(questions.into());
    let from_file = task.run(&NoProgress).expect("file");
    assert_eq!(from_file.warnings.len(), 1, "{:?}", from_file.warnings);
    assert!(from_file.warnings[0].diagnostic.message.contains("row 7 asks no test question"));
    let rows = ScoreRows::new(ScoreValues::F32(&values), columns).expect("rows");
    assert_eq!(json(&task.run_scores(rows, &NoProgress).expect("memory")), json(&from_file));
}
