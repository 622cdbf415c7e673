//! Every command of the user docs runs as written: each ```sh block of `README.md` and
//! `docs/*.md` runs in a fresh folder that links the repository's `testdata/` (so commands
//! that write `-o report/` leave nothing behind), with `kgeval` the binary under test; a block
//! fails on exit 2 or more (exit 1 is a `--fail-under` gate doing its job, which a block shows
//! on purpose). A ```text block right after a ```sh block (no text between them) is its
//! output: every line but `…` must appear in what the block printed. `cargo run … -p
//! kgeval-cli -- ARGS` runs as `kgeval ARGS`; other lines starting with `cargo ` or `pip `
//! (installing, testing) are left out: `.ci/run` runs those itself. ```toml blocks that start with `# campaign.toml`
//! are written to that file before the next ```sh block runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::root;

/// One fenced block: its language, its text, the line it starts on and the line it ends on.
struct Block {
    language: String,
    text: String,
    line: usize,
    end: usize,
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for (n, line) in markdown.lines().enumerate() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(language)) => {
                current =
                    Some(Block { language: language.trim().to_owned(), text: String::new(), line: n + 1, end: 0 });
            }
            (Some(block), Some(_)) => {
                block.end = n + 1;
                out.extend(current.take());
            }
            (Some(block), None) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// The user docs: README.md and every page of docs/ but the developers' (architecture,
/// performance).
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut docs = vec![root.join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| !matches!(p.file_name().and_then(|n| n.to_str()), Some("ARCHITECTURE.md" | "PERFORMANCE.md")))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs
}

/// The header of every block's script: each command runs (a failing one does not stop the
/// block), and the block exits with the first exit status above 1.
const HEADER: &str =
    "set -o pipefail\nstatus=0\ntrap 'code=$?; [ $code -le 1 ] || [ $status != 0 ] || status=$code' ERR\n";

/// A shell script of the block's commands: install lines dropped, then `exit $status`.
fn script(block: &str) -> String {
    let mut out = String::from(HEADER);
    let mut skipping = false;
    for line in block.lines() {
        let trimmed = line.trim_start();
        if let Some(args) = trimmed.strip_prefix("cargo run").and_then(|rest| rest.split_once(" -p kgeval-cli -- ")) {
            out.push_str("kgeval ");
            out.push_str(args.1);
            out.push('\n');
            continue;
        }
        if !skipping && (trimmed.starts_with("cargo ") || trimmed.starts_with("pip ")) {
            skipping = line.ends_with('\\');
            continue;
        }
        if skipping {
            skipping = line.ends_with('\\');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("exit $status\n");
    out
}

fn run_block(dir: &Path, block: &Block, doc: &Path) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_kgeval")).parent().expect("bin dir").to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash")
        .arg("-c")
        .arg(script(&block.text))
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{}:{}: the block exits {:?}\n{}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        doc.display(),
        block.line,
        out.status.code(),
        block.text
    );
    stdout + &stderr
}

#[test]
fn every_command_in_the_user_docs_runs() {
    let mut ran = 0;
    for doc in documents() {
        let markdown = std::fs::read_to_string(&doc).expect("doc");
        let dir = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink(root().join("testdata"), dir.path().join("testdata")).expect("link testdata");
        let blocks = blocks(&markdown);
        for (i, block) in blocks.iter().enumerate() {
            match block.language.as_str() {
                "toml" => {
                    if let Some(name) = block.text.lines().next().and_then(|l| l.strip_prefix("# ")) {
                        if name.ends_with(".toml") && !name.contains(' ') {
                            std::fs::write(dir.path().join(name), &block.text).expect("write manifest");
                        }
                    }
                }
                "sh" => {
                    let output = run_block(dir.path(), block, &doc);
                    ran += 1;
                    let next = blocks.get(i + 1).filter(|b| b.language == "text" && b.line <= block.end + 2);
                    let Some(expected) = next else { continue };
                    for line in expected.text.lines().map(str::trim_end).filter(|l| !l.is_empty() && *l != "…") {
                        assert!(
                            output.lines().any(|o| o.trim_end() == line || o.contains(line)),
                            "{}:{}: the block's output has no line `{line}`:\n{output}",
                            doc.display(),
                            expected.line
                        );
                    }
                }
                _ => {}
            }
        }
    }
    assert!(ran >= 10, "only {ran} command blocks found");
}

#[test]
fn install_lines_are_left_out_and_the_rest_kept() {
    let written = script("cargo install --path crates/kgeval-cli \\\n  --locked\nkgeval --version\npip install x\n");
    assert_eq!(written, format!("{HEADER}kgeval --version\nexit $status\n"));
    // A failing command is reported, a gate (exit 1) is not.
    let status = |block: &str| Command::new("bash").arg("-c").arg(script(block)).status().expect("bash");
    assert_eq!(status("false\ntrue\n").code(), Some(0));
    assert_eq!(status("(exit 2)\ntrue\n").code(), Some(2));
    assert_eq!(status("(exit 3)\n(exit 2)\n").code(), Some(3));
    let found = blocks("a\n```sh\nkgeval x\n```\n```text\nout\n```\n");
    assert_eq!(found.iter().map(|b| b.language.as_str()).collect::<Vec<_>>(), ["sh", "text"]);
    assert_eq!((found[0].line, found[0].end, found[1].line), (2, 4, 5));
    assert_eq!(
        script("cargo run --release -p kgeval-cli -- run x.toml -o r/\n"),
        format!("{HEADER}kgeval run x.toml -o r/\nexit $status\n")
    );
}
