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

/// `--data` RDF/XML goes through the XML guard before oxrdfxml: the 736-byte billion laughs
/// (10 levels of 10 references, 3·10⁹ bytes expanded) is refused at its first entity over
/// 1 MiB, at once (today's main grows past 2.8 GB in 6 s and aborts), and an external entity is
/// refused where it is declared, with the message every XML reader gives.
#[test]
fn data_rdfxml_entity_bomb_and_external_entity_are_refused() {
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out_path = out_dir.path().join("out.txt");
    let out_arg = out_path.to_str().expect("utf-8");
    let cases = [
        (
            "testdata/qald/bad/data-billion-laughs.rdf",
            "data-billion-laughs.rdf:9:1: entity expansion limit exceeded: found &g; expanding to more than 1048576 bytes, expected at most 1048576 bytes per entity",
        ),
        (
            // A DOCTYPE in element content: not the prolog's, so the prolog's bounds did not
            // apply and oxrdfxml expanded it (past 3.5 GB before the guard refused it).
            "testdata/qald/bad/data-doctype-in-content.rdf",
            "data-doctype-in-content.rdf:3:47: found <!DOCTYPE> after the root element: expected it before",
        ),
        (
            "testdata/qald/bad/data-xxe-system-entity.rdf",
            "data-xxe-system-entity.rdf:2:20: found external entity &xxe; (SYSTEM \"file:///etc/passwd\"): expected internal entities only (external entities are never read)",
        ),
    ];
    assert_eq!(std::fs::metadata(root().join(cases[0].0)).expect("fixture").len(), 736);
    for (file, expected) in cases {
        let start = std::time::Instant::now();
        let out = kgeval(&["qald", "--gold", GOLD, "--system", GOLD, "--data", file, "-o", out_arg]);
        // A hang guard (the unbounded expansion ran for minutes), not a speed test.
        assert!(start.elapsed().as_secs_f64() < 30.0, "{file}: took {:?}", start.elapsed());
        assert_clean_failure(file, &out, file, &out_path);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.trim_end().ends_with(expected), "{file}: {stderr}");
    }
    // The same guard and messages on the gold XML path.
    for (file, expected) in [
        (
            "testdata/qald/bad/xml-billion-laughs.xml",
            "xml-billion-laughs.xml:9:1: entity expansion limit exceeded: found &g;",
        ),
        (
            "testdata/qald/bad/xml-xxe-system-entity.xml",
            "xml-xxe-system-entity.xml:2:20: found external entity &xxe; (SYSTEM",
        ),
    ] {
        let out = kgeval(&["qald", "--gold", file, "--system", GOLD]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{file}: {stderr}");
    }
}
