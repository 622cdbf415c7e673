//! User text echoed in a message is capped (issue 15 item 4): a megabyte-long name or value
//! in a QALD JSON warning or a meta-evaluation reader's error prints as its first
//! `MAX_ECHO` characters and its length, never whole.

use kgeval_formats::meta::{
    long_csv::read_long_csv, pvalues::read_pvalue_matrix, subsets::read_subsets, trec_eval_q::read_trec_eval_q,
    wide_csv::read_wide_csv,
};
use kgeval_formats::qald::read_qald;

const LONG: usize = 1_000_000;

fn long() -> String {
    "x".repeat(LONG)
}

/// A message quoting `long()` must hold its capped form, not the whole text.
fn assert_capped(message: &str) {
    assert!(message.len() < 1_000, "message of {} bytes: {}…", message.len(), &message[..200.min(message.len())]);
    assert!(message.contains(&format!("… ({LONG} bytes)")), "{message}");
}

#[test]
fn qald_json_warnings_cap_the_values_they_quote() {
    let x = long();
    let answertype = format!(
        r#"{{"questions":[{{"id":"1","answertype":"{x}","question":[{{"language":"en","string":"q"}}],"answers":[]}}]}}"#
    );
    let read = read_qald(answertype.as_bytes(), "q.json").expect("a non-standard answertype is a warning");
    let warning = read.warnings.iter().find(|w| w.code == "qald-nonstandard-answertype").expect("the warning");
    assert_capped(&warning.to_string());

    let binding = format!(
        r#"{{"questions":[{{"id":"1","question":[{{"language":"en","string":"q"}}],"answers":[{{"head":{{"vars":["a"]}},"results":{{"bindings":[{{"a":{{"type":"{x}","value":"v"}}}}]}}}}]}}]}}"#
    );
    let read = read_qald(binding.as_bytes(), "q.json").expect("an unknown binding type is a warning");
    let warning = read.warnings.iter().find(|w| w.code == "qald-nonstandard-binding").expect("the warning");
    assert_capped(&warning.to_string());
}

#[test]
fn meta_readers_cap_the_values_they_quote() {
    let x = long();
    let long_csv = format!("system,item,metric,value\nA,q1,map,{x}\n");
    assert_capped(&read_long_csv(long_csv.as_bytes(), "l.csv").expect_err("not a number").to_string());

    let wide = format!("system,map\nA,0.5\nB,{x}\n");
    assert_capped(&read_wide_csv(wide.as_bytes(), "w.csv").expect_err("not a number").to_string());
    let wide = format!("system,map\n{x},0.5\n{x},0.6\n");
    assert_capped(&read_wide_csv(wide.as_bytes(), "w.csv").expect_err("a system twice").to_string());

    let pvalues = format!("SystemA,SystemB,map\n{x},{x},0.5\n");
    assert_capped(&read_pvalue_matrix(pvalues.as_bytes(), "p.csv").expect_err("paired with itself").to_string());

    let subsets = format!("0 1 {x}\n");
    assert_capped(&read_subsets(subsets.as_bytes(), "s.txt").expect_err("not an index").to_string());

    let trec = format!("map q1 {x}\n");
    assert_capped(&read_trec_eval_q(trec.as_bytes(), "t.txt", "A").expect_err("not a number").to_string());
}
