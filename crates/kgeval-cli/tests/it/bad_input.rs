//! Every malformed file under `testdata/bad/`: exit 2, one `error:` line naming file:line:col,
//! no panic, no output.

use crate::{assert_clean_failure, kgeval, root};

const GOOD_ONTO: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt.owl";
const GOOD_REF: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf";

#[test]
fn malformed_inputs_fail_cleanly() {
    let dir = root().join("testdata/bad");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("testdata/bad")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name != "README.md" && !name.ends_with(".yml"))
        .collect();
    files.sort();
    assert!(files.len() >= 30, "only {} malformed fixtures", files.len());
    let out_dir = tempfile::tempdir().expect("tempdir");
    for name in &files {
        let file = format!("testdata/bad/{name}");
        let out_path = out_dir.path().join(format!("{name}.out"));
        let out_arg = out_path.to_str().expect("utf-8");
        let args: Vec<&str> = if name.starts_with("onto-") {
            vec![
                "align",
                "--reference",
                GOOD_REF,
                "--system",
                GOOD_REF,
                "--onto1",
                &file,
                "--onto2",
                GOOD_ONTO,
                "-o",
                out_arg,
            ]
        } else {
            vec!["align", "--reference", GOOD_REF, "--system", &file, "-o", out_arg]
        };
        let out = kgeval(&args);
        assert_clean_failure(name, &out, &file, &out_path);
    }
}
