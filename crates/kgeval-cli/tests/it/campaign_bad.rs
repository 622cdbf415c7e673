//! Every malformed campaign manifest under `testdata/campaigns/bad/`: exit 2 before running,
//! one `error: FILE:LINE:COL: …` line equal to the one its README lists, no panic, nothing on
//! stdout, no output directory and no temporary one.

use crate::{assert_clean_failure, kgeval, root};

/// `(file, message after FILE:)` of every entry of the README.
fn listed() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(root().join("testdata/campaigns/bad/README.md")).expect("README");
    let lines: Vec<&str> = readme.lines().collect();
    lines
        .windows(2)
        .filter_map(|w| {
            let name = w[0].strip_prefix("- `")?.split('`').next()?;
            let message = w[1].trim().strip_prefix("`` ")?.strip_suffix(" ``")?;
            Some((name.to_owned(), message.to_owned()))
        })
        .collect()
}

#[test]
fn every_malformed_manifest_fails_with_its_message() {
    let dir = root().join("testdata/campaigns/bad");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("testdata/campaigns/bad")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".toml"))
        .collect();
    files.sort();
    let listed = listed();
    let mut names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, files, "the README lists every file, once");
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out_path = out_dir.path().join("report");
    for (name, message) in &listed {
        let file = format!("testdata/campaigns/bad/{name}");
        let out = kgeval(&["run", &file, "-o", out_path.to_str().expect("utf-8")]);
        assert_clean_failure(name, &out, name, &out_path);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr, format!("error: {file}:{message}\n"), "{name}");
        assert_eq!(std::fs::read_dir(out_dir.path()).expect("dir").count(), 0, "{name}: a temporary directory is left");
    }
}
