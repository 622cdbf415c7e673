//! Every malformed file under `testdata/bad/`: exit 2, one `error:` line naming file:line:col,
//! no panic, no output.

use crate::{kgeval, root};

const GOOD_ONTO: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt.owl";
const GOOD_REF: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf";

/// `FILE:LINE:COL:` with LINE ≥ 1 and COL ≥ 1 somewhere in the line.
fn has_position(line: &str, file: &str) -> bool {
    let Some(at) = line.find(&format!("{file}:")) else { return false };
    let mut parts = line[at + file.len() + 1..].splitn(3, ':');
    let line_no = parts.next().and_then(|s| s.parse::<u32>().ok());
    let col = parts.next().and_then(|s| s.parse::<u32>().ok());
    matches!((line_no, col), (Some(l), Some(c)) if l >= 1 && c >= 1)
}

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
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        let last = stderr.lines().last().unwrap_or_default();
        assert!(last.starts_with("error: "), "{name}: {stderr}");
        assert!(has_position(last, &file), "{name}: no {file}:LINE:COL in {last:?}");
        assert!(!out_path.exists(), "{name}: partial output written");
        assert!(out.stdout.is_empty(), "{name}: output on stdout");
    }
}
