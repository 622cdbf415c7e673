//! Every malformed QALD file under `testdata/qald/bad/`: exit 2, one `error:` line naming
//! file:line:col, no panic, no output, the submission untouched.

use crate::{assert_clean_failure, kgeval, root};

const GOLD: &str = "testdata/qald/sparql/gold.xml";
const DATA: &str = "testdata/qald/sparql/data.ttl";

#[test]
fn malformed_qald_inputs_fail_cleanly() {
    let dir = root().join("testdata/qald/bad");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("testdata/qald/bad")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name != "README.md" && !name.starts_with("data-"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "only {} malformed fixtures", files.len());
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("README");
    let out_dir = tempfile::tempdir().expect("tempdir");
    for name in &files {
        assert!(readme.contains(&format!("`{name}`")), "{name} is not described in the README");
        let file = format!("testdata/qald/bad/{name}");
        let before = std::fs::read(root().join(&file)).expect("fixture");
        let out_path = out_dir.path().join(format!("{name}.out"));
        let out_arg = out_path.to_str().expect("utf-8");
        let mut args = vec!["qald", "--gold", GOLD, "--system", &file, "-o", out_arg];
        if name.starts_with("sparql-") {
            args.extend(["--data", DATA]);
        }
        let out = kgeval(&args);
        assert_clean_failure(name, &out, &file, &out_path);
        assert_eq!(std::fs::read(root().join(&file)).expect("fixture"), before, "{name}: rewritten");
        // As the gold, the same file fails the same way (except the one only wrong as a submission).
        if name != "xml-unknown-id.xml" && !name.starts_with("sparql-") {
            let out = kgeval(&["qald", "--gold", &file, "--system", GOLD, "-o", out_arg]);
            assert_eq!(out.status.code(), Some(2), "{name} as gold");
            assert!(!out_path.exists(), "{name}: partial output written");
        }
    }
}
