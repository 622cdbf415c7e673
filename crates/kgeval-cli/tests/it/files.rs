//! What `-o` leaves on disk: the mode a new file gets under the umask (an existing file keeps
//! its own), symbolic links written through, inputs never overwritten, and no temporary file
//! left behind when the run is interrupted (SIGINT, SIGTERM).
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::root;

const FOAF: &str = "testdata/lemon/matoll-foaf.ttl";
const FOAF_1: &str = "testdata/lemon/matoll-foaf_1.ttl";
const FOAF_URIS: &str = "testdata/lemon/matoll-foaf-uris.txt";
const REFERENCE: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf";

/// Runs `kgeval lexicon … -o OUTPUT` under `umask` (through `sh`, which sets it), from the
/// workspace root.
fn lexicon_under_umask(umask: &str, output: &Path) -> Output {
    let bin = env!("CARGO_BIN_EXE_kgeval");
    let script =
        format!("umask {umask} && exec \"$0\" lexicon --gold {FOAF} --system {FOAF_1} --uris {FOAF_URIS} -o \"$1\"");
    Command::new("sh").arg("-c").arg(script).arg(bin).arg(output).current_dir(root()).output().expect("run kgeval")
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("metadata").permissions().mode() & 0o7777
}

/// The temporary files and directories `-o` writes (`.kgeval-tmp-*`) in `dir`.
pub(crate) fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(".kgeval-tmp")))
        .collect()
}

#[test]
fn a_new_output_gets_the_mode_the_umask_allows() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (umask, expected) in [("022", 0o644), ("027", 0o640), ("077", 0o600)] {
        let out = dir.path().join(format!("out-{umask}.txt"));
        let run = lexicon_under_umask(umask, &out);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert_eq!(mode(&out), expected, "umask {umask}");
    }
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn an_existing_output_keeps_its_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (before, umask) in [(0o644, "077"), (0o640, "022"), (0o664, "002")] {
        let out = dir.path().join(format!("out-{before:o}.txt"));
        std::fs::write(&out, "old").expect("write");
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(before)).expect("chmod");
        let run = lexicon_under_umask(umask, &out);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert_eq!(mode(&out), before, "{before:o} under umask {umask}");
        assert_ne!(std::fs::read_to_string(&out).expect("read"), "old");
    }
}

#[test]
fn output_onto_a_symbolic_link_writes_its_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("results").join("real.txt");
    std::fs::create_dir(target.parent().expect("parent")).expect("mkdir");
    std::fs::write(&target, "old").expect("write");
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink("results/real.txt", &link).expect("symlink");
    let run = lexicon_under_umask("022", &link);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(std::fs::symlink_metadata(&link).expect("link").file_type().is_symlink(), "the link stays a link");
    let written = std::fs::read_to_string(&target).expect("target");
    assert!(written.contains("matoll-foaf_1"), "{written}");
    // A link to a file that does not exist yet: the file is created where the link points.
    let dangling = dir.path().join("dangling.txt");
    std::os::unix::fs::symlink("results/new.txt", &dangling).expect("symlink");
    let run = lexicon_under_umask("022", &dangling);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(std::fs::symlink_metadata(&dangling).expect("link").file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(dir.path().join("results/new.txt")).expect("new"), written);
    assert!(temp_files(dir.path()).is_empty() && temp_files(&dir.path().join("results")).is_empty());
}

#[test]
fn output_naming_an_input_is_an_error_and_the_input_stays() {
    let dir = tempfile::tempdir().expect("tempdir");
    let system = dir.path().join("system.ttl");
    std::fs::copy(root().join(FOAF_1), &system).expect("copy");
    let link = dir.path().join("system-link.ttl");
    std::os::unix::fs::symlink(&system, &link).expect("symlink");
    let before = std::fs::read(&system).expect("read");
    for output in [&system, &link] {
        let out = crate::kgeval(&[
            "lexicon",
            "--gold",
            FOAF,
            "--system",
            &system.display().to_string(),
            "--uris",
            FOAF_URIS,
            "-o",
            &output.display().to_string(),
        ]);
        assert_eq!(out.status.code(), Some(2), "-o {}", output.display());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr,
            format!(
                "error: -o {}: found an input of this run ({}), expected a file that is not read\n",
                output.display(),
                system.display()
            )
        );
        assert_eq!(std::fs::read(&system).expect("read"), before);
    }
    // The extra files written with -o are checked too (`kgeval align --write-labels`).
    let reference = dir.path().join("reference.rdf");
    std::fs::copy(root().join(REFERENCE), &reference).expect("copy");
    let before = std::fs::read(&reference).expect("read");
    let r = reference.display().to_string();
    let out = crate::kgeval(&["align", "--reference", &r, "--system", &r, "--write-labels", &r]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: --write-labels {r}: found an input of this run ({r}), expected a file that is not read\n")
    );
    assert_eq!(std::fs::read(&reference).expect("read"), before);
    assert!(temp_files(dir.path()).is_empty());
}

/// Starts `kgeval lexicon -o OUT` holding its temporary file (the hidden test hook
/// `KGEVAL_TEST_HOLD_TEMP_MS`), waits until the temporary file exists, sends `signal`, and
/// returns the exit status.
fn interrupted(signal: &str, dir: &Path) -> std::process::ExitStatus {
    let out = dir.join("out.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kgeval"))
        .args(["lexicon", "--gold", FOAF, "--system", FOAF_1, "--uris", FOAF_URIS, "-f", "json", "-o"])
        .arg(&out)
        .env("KGEVAL_TEST_HOLD_TEMP_MS", "60000")
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run kgeval");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while temp_files(dir).is_empty() {
        assert!(std::time::Instant::now() < deadline, "no temporary file appeared");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = Command::new("kill").arg(format!("-{signal}")).arg(child.id().to_string()).status().expect("kill");
    assert!(kill.success());
    let status = child.wait().expect("wait");
    assert!(!out.exists(), "{signal}: no output");
    status
}

#[test]
fn an_interrupted_run_leaves_no_temporary_file() {
    for signal in ["INT", "TERM"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let status = interrupted(signal, dir.path());
        assert!(!status.success(), "{signal}");
        assert_eq!(temp_files(dir.path()), Vec::<PathBuf>::new(), "{signal}");
    }
}
