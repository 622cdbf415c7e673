//! Outputs never destroy what kgeval did not write (issue 31, item 1): `kgeval run -o DIR`
//! writes only into a new or empty folder or a previous output (its `.kgeval-run` marker lists
//! the files it may replace), refuses the manifest's folder and any folder holding an input
//! before any work, and leaves no temporary folder behind; one command's outputs are distinct
//! files. Each case is a reproduction from the adversarial trial.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::files::temp_files;
use crate::root;

/// Runs `kgeval` with `args` from `dir`.
fn kgeval_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kgeval")).args(args).current_dir(dir).output().expect("run kgeval")
}

/// A trec campaign in `dir/camp/` whose inputs are absolute paths into the repository.
fn campaign_in(dir: &Path) -> PathBuf {
    let camp = dir.join("camp");
    std::fs::create_dir_all(&camp).expect("mkdir");
    let test = root().join("testdata/trec_eval/test");
    let manifest = format!(
        "title = \"t\"\n[[task]]\nname = \"trec\"\nfamily = \"trec\"\nqrels = \"{q}\"\nruns = [\"full={r}\"]\n",
        q = test.join("qrels.test").display(),
        r = test.join("results.test").display()
    );
    let path = camp.join("camp.toml");
    std::fs::write(&path, manifest).expect("write");
    path
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_unstable();
    names
}

/// `mkdir d; echo '{}' > d/results.json; echo keep > d/precious.txt; kgeval run … -o d`
/// removed the whole folder and exited 0.
#[test]
fn a_folder_with_a_results_json_is_not_an_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = campaign_in(dir.path());
    let d = dir.path().join("d");
    std::fs::create_dir(&d).expect("mkdir");
    std::fs::write(d.join("results.json"), "{}").expect("write");
    std::fs::write(d.join("precious.txt"), "keep").expect("write");
    let out = kgeval_in(dir.path(), &["run", manifest.to_str().expect("utf-8"), "-o", "d"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("-o d: found a folder that kgeval did not write"), "{}", stderr(&out));
    assert_eq!(entries(&d), ["precious.txt", "results.json"]);
    assert_eq!(std::fs::read_to_string(d.join("results.json")).expect("kept"), "{}");
    assert!(temp_files(dir.path()).is_empty());
}

/// `-o` the manifest's folder (or `.` from there) would have removed the manifest and its
/// inputs; `-o .` failed with "Device or resource busy" and left `.kgeval-tmp--old-*`.
#[test]
fn the_manifest_folder_and_folders_holding_inputs_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = campaign_in(dir.path());
    let camp = manifest.parent().expect("folder");
    for (cwd, output) in [(dir.path(), "camp"), (camp, "."), (dir.path(), ".")] {
        let out = kgeval_in(cwd, &["run", manifest.to_str().expect("utf-8"), "-o", output]);
        assert_eq!(out.status.code(), Some(2), "-o {output}: {}", stderr(&out));
        assert!(stderr(&out).contains("found a folder that holds an input of this run"), "{}", stderr(&out));
        assert_eq!(entries(camp), ["camp.toml"], "-o {output}");
        assert!(temp_files(cwd).is_empty() && temp_files(dir.path()).is_empty());
    }
    // A `[[compare]]` reading `out/x.csv` with `-o out`: the input would be read, then deleted.
    let out_dir = camp.join("out");
    std::fs::create_dir(&out_dir).expect("mkdir");
    let published = root().join("testdata/kgc/kgc-sparsity/result/FB-Test-S/evaluation.csv");
    std::fs::copy(&published, out_dir.join("x.csv")).expect("copy");
    let text = std::fs::read_to_string(&manifest).expect("read")
        + &format!("[[compare]]\nname = \"c\"\ninputs = \"out/x.csv\"\nagainst = \"{}\"\n", published.display());
    std::fs::write(&manifest, text).expect("write");
    let out = kgeval_in(camp, &["run", "camp.toml", "-o", "out"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-o out: found a folder that holds an input of this run (out/x.csv)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(entries(&out_dir), ["x.csv"]);
}

/// A previous output is replaced file by file: what the user added stays, files of the
/// previous output that this run does not write go; through a symbolic link too (which used
/// to leave a temporary folder).
#[test]
fn a_previous_output_keeps_what_the_user_added() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = campaign_in(dir.path());
    let manifest = manifest.to_str().expect("utf-8");
    let out = kgeval_in(dir.path(), &["run", manifest, "-o", "report"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = dir.path().join("report");
    assert_eq!(entries(&report), [".kgeval-run", "index.html", "report.md", "results.json", "tables.tex", "trec.csv"]);
    let marker = std::fs::read_to_string(report.join(".kgeval-run")).expect("marker");
    assert_eq!(
        marker.lines().skip(1).collect::<Vec<_>>(),
        ["results.json", "report.md", "tables.tex", "index.html", "trec.csv"]
    );
    std::fs::write(report.join("notes.txt"), "mine").expect("write");
    // The task renamed: trec.csv is the previous output's and goes, notes.txt stays.
    let renamed = std::fs::read_to_string(manifest).expect("read").replace("name = \"trec\"", "name = \"trec2\"");
    std::fs::write(manifest, renamed).expect("write");
    std::os::unix::fs::symlink("report", dir.path().join("link")).expect("symlink");
    let out = kgeval_in(dir.path(), &["run", manifest, "-o", "link"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(dir.path().join("link")).expect("link").file_type().is_symlink());
    assert_eq!(
        entries(&report),
        [".kgeval-run", "index.html", "notes.txt", "report.md", "results.json", "tables.tex", "trec2.csv"]
    );
    assert_eq!(std::fs::read_to_string(report.join("notes.txt")).expect("kept"), "mine");
    assert!(temp_files(dir.path()).is_empty() && temp_files(&report).is_empty());
    // A marker naming a path outside the folder is not followed.
    std::fs::write(report.join(".kgeval-run"), "# x\n../camp/camp.toml\n").expect("write");
    let out = kgeval_in(dir.path(), &["run", manifest, "-o", "report"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(".kgeval-run:2:1: found \"../camp/camp.toml\""), "{}", stderr(&out));
    assert!(dir.path().join("camp/camp.toml").is_file());
}

/// A new output folder under missing parents: created with them; a file in the way is
/// refused before any work.
#[test]
fn new_folders_and_files_in_the_way() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = campaign_in(dir.path());
    let manifest = manifest.to_str().expect("utf-8");
    let out = kgeval_in(dir.path(), &["run", manifest, "-o", "a/b/c"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("a/b/c/report.md").is_file());
    std::fs::write(dir.path().join("file"), "x").expect("write");
    let out = kgeval_in(dir.path(), &["run", manifest, "-o", "file"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("-o file: found a file, expected a folder"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(dir.path().join("file")).expect("kept"), "x");
}

/// `kgeval pool build … -o X --annotations X` exited 0 and the annotations were lost.
#[test]
fn one_commands_outputs_are_distinct_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mini = root().join("testdata/kgc/mini");
    let same = dir.path().join("x.txt");
    let same = same.to_str().expect("utf-8");
    let via_dot = format!("{}/./x.txt", dir.path().display());
    let m = |f: &str| mini.join(f).display().to_string();
    let out = kgeval_in(
        dir.path(),
        &[
            "pool",
            "build",
            "--depth",
            "3",
            "--test",
            &m("test.txt"),
            "--filter",
            &m("train.txt"),
            "--queries",
            &m("questions.txt"),
            "--run",
            &format!("mini={}", m("run.txt")),
            "--judgments",
            &m("judgments.txt"),
            "-o",
            same,
            "--annotations",
            &via_dot,
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("found the same file as -o"), "{}", stderr(&out));
    assert!(!Path::new(same).exists());
}
