//! `kgeval trec` against trec_eval 10.0's own bytes, whole files: NIST's expected outputs
//! (`testdata/trec_eval/test`, `make quicktest`) and the 200-topic tie-heavy case produced by
//! trec_eval 10.0 built from source (`testdata/trec_eval/ties200`, see SOURCES.md).

use std::io::Read as _;

use crate::kgeval;

const T: &str = "testdata/trec_eval/test";
const TIES: &str = "testdata/trec_eval/ties200";

fn stdout(args: &[&str]) -> String {
    let mut all = vec!["trec"];
    all.extend_from_slice(args);
    let out = kgeval(&all);
    assert!(out.status.success(), "kgeval {} failed: {}", all.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn expected(path: &str) -> String {
    let bytes = std::fs::read(crate::root().join(path)).expect("expected output");
    if !path.ends_with(".gz") {
        return String::from_utf8(bytes).expect("UTF-8");
    }
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text).expect("gzip");
    text
}

/// Every line of trec_eval's output, byte for byte, and nothing else; on failure the first
/// differing line is named.
fn assert_identical(expected_file: &str, args: &[&str]) {
    let (ours, theirs) = (stdout(args), expected(expected_file));
    if ours == theirs {
        return;
    }
    let first = ours.lines().zip(theirs.lines()).position(|(a, b)| a != b);
    let detail = match first {
        Some(i) => format!("line {}: ours {:?}, trec_eval {:?}", i + 1, ours.lines().nth(i), theirs.lines().nth(i)),
        None => format!("{} lines, trec_eval {}", ours.lines().count(), theirs.lines().count()),
    };
    panic!("{expected_file}: {detail}");
}

#[test]
fn all_trec_whole_files() {
    let (q, r, trunc) = (format!("{T}/qrels.test"), format!("{T}/results.test"), format!("{T}/results.trunc"));
    assert_identical(&format!("{T}/out.test.a"), &["-m", "all_trec", &q, &r]);
    assert_identical(&format!("{T}/out.test.aq"), &["-m", "all_trec", "-q", &q, &r]);
    assert_identical(&format!("{T}/out.test.aqc"), &["-m", "all_trec", "-q", "-c", &q, &trunc]);
    assert_identical(&format!("{T}/out.test.aqcM"), &["-m", "all_trec", "-q", "-c", "-M100", &q, &trunc]);
    // Graded qrels (−1..4) at relevance level 2, with a longer relevance string.
    let graded = format!("{T}/qrels.rel_level");
    assert_identical(&format!("{T}/out.test.aql"), &["-m", "all_trec", "-mrelstring.20", "-q", "-l2", &graded, &r]);
}

#[test]
fn measure_parameters_whole_file() {
    let (q, r) = (format!("{T}/qrels.test"), format!("{T}/results.test"));
    #[rustfmt::skip]
    let args = [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", &q, &r,
    ];
    assert_identical(&format!("{T}/out.test.meas_params"), &args);
}

#[test]
fn tie_heavy_200_topics_all_trec() {
    let (q, r) = (format!("{TIES}/qrels"), format!("{TIES}/run"));
    assert_identical(&format!("{TIES}/out.aq.gz"), &["-q", "-m", "all_trec", &q, &r]);
}

#[test]
fn tie_heavy_200_topics_with_parameters() {
    let (q, r) = (format!("{TIES}/qrels"), format!("{TIES}/run"));
    #[rustfmt::skip]
    let args = [
        "-q", "-c", "-l2", "-M40", "-m", "all_trec", "-mrelstring.30", "-m", "yaap", "-m", "set",
        "-mG.1=2,2=0.5", "-mrbp.p=0.8,1=-1", "-mrbp_resid.p=0.5", "-mRprec_mult.0.5,3",
        "-mutility.3,-1,-2,0.5", "-m11pt_avg..8,.2,.5", "-mndcg.1=1.5,2=1.2,3=2",
        "-mndcg_rel.4=0.5,2=1.2", "-mRndcg.2=0.5", "-mrelative_P.3,50", "-munj.1,2,100",
        "-miprec_at_recall..33", &q, &r,
    ];
    assert_identical(&format!("{TIES}/out.params.gz"), &args);
    let args = ["-q", "-l2", "-m", "dcg", "-m", "ideal_dcg", "-m", "yaap", "-m", "set", "-m", "ndcg", &q, &r];
    assert_identical(&format!("{TIES}/out.dcg.gz"), &args);
}

#[test]
fn relstring_is_per_topic_text_everywhere() {
    let (q, r) = (format!("{T}/qrels.rel_level"), format!("{T}/results.test"));
    // out.test.aql: topic 303 at -l2 reads '0000.....00..0.0.02.'.
    let v = crate::kgeval_json(&["trec", "-q", "-l2", "-mrelstring.20", "-m", "map", &q, &r]);
    assert_eq!(v["runs"][0]["topics"]["303"]["relstring_20"], "0000.....00..0.0.02.");
    assert!(v["runs"][0]["summary"].get("relstring_20").is_none());
    let csv = stdout(&["-mrelstring.5", "--format", "csv", &q, &r]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "run,runid,qid,relstring_5");
    assert!(lines[1].ends_with(",301,00000"), "{}", lines[1]);
    assert!(lines[4].ends_with(",all,"), "{}", lines[4]);
}
