//! User strings in Markdown are escaped (a title with `<script>`, a system name with `|` or a
//! newline), and an error about a file echoes a capped token, never the file's whole line.

use std::path::Path;

use crate::{kgeval, root};

/// Runs `kgeval run` on `manifest` (written in `dir`) and returns the output folder.
fn run(dir: &Path, manifest: &str) -> std::path::PathBuf {
    let path = dir.join("m.toml");
    std::fs::write(&path, manifest).expect("manifest");
    let out = dir.join("out");
    let run = kgeval(&["run", path.to_str().expect("utf-8"), "-o", out.to_str().expect("utf-8")]);
    assert!(run.status.code().is_some_and(|c| c == 0 || c == 2), "{}", String::from_utf8_lossy(&run.stderr));
    out
}

/// `report.md` passed the title and system names through raw: `<script>` in a heading, and a
/// `|` or a newline in a name broke its table. Now every one is escaped; the table keeps one
/// row per system with as many cells as the header.
#[test]
fn report_md_escapes_title_and_system_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = root().join("testdata/trec_eval/test");
    let t = t.display();
    let manifest = format!(
        "title = \"<script>alert(1)</script> & co\"\n[[task]]\nname = \"t\"\nfamily = \"trec\"\n\
         qrels = \"{t}/qrels.test\"\nmeasures = [\"map\"]\n\
         runs = [\"a|b={t}/results.test\", \"two\\nlines={t}/results.trunc\"]\n"
    );
    let out = run(dir.path(), &manifest);
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(!report.contains("<script>"), "{report}");
    assert!(report.starts_with("# &lt;script&gt;alert(1)&lt;/script&gt; &amp; co\n"), "{report}");
    assert!(!report.contains("two\nlines"), "{report}");
    // Every table row has as many unescaped `|` as the header.
    let cells = |line: &str| line.replace("\\|", "").matches('|').count();
    let table: Vec<&str> = report.lines().filter(|l| l.starts_with('|')).collect();
    assert!(table.len() >= 3, "{report}");
    assert!(table.iter().all(|l| cells(l) == cells(table[0])), "{report}");
    assert!(report.contains("a\\|b"), "{report}");
}

/// A rank submission whose header (a Bio-ML one, `SrcEntity` then an unknown column) holds a
/// secret-looking cell: the error names the file, the header's size and its first cell (capped),
/// never the whole line; the secret reaches none of the campaign's files.
#[test]
fn secret_header_is_not_copied_into_the_outputs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tail = "TAIL-NEVER-ECHOED";
    let secret = format!("API_KEY=SECRET-{}{tail}", "k".repeat(kgeval_formats::MAX_ECHO));
    let submission = dir.path().join("submission.tsv");
    std::fs::write(&submission, format!("SrcEntity\t{secret}\na\tb\n")).expect("submission");
    let gold = root().join("testdata/ranking/oaei-bioml-eval-contract/equivalence-local-gold.tsv");
    let manifest = format!(
        "title = \"t\"\n[[task]]\nname = \"r\"\nfamily = \"rank\"\nprofile = \"bioml\"\n[[task.pair]]\n\
         name = \"p\"\ngold = \"{}\"\nsubmission = \"{}\"\n",
        gold.display(),
        submission.display()
    );
    let out = run(dir.path(), &manifest);
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(report.contains("submission.tsv:1:1: found a header of 2 cells starting \"SrcEntity\""), "{report}");
    for file in ["report.md", "results.json", "index.html", "tables.tex"] {
        let text = std::fs::read_to_string(out.join(file)).expect("output");
        assert!(!text.contains("API_KEY"), "{file} holds the secret header cell");
        assert!(!text.contains(tail), "{file} holds the whole header");
    }
}
