//! Files written so that nothing is ever half-written or left behind: every output goes to a
//! temporary file beside its place (`.kgeval-tmp-NAME-XXXXXX`), renamed over it when complete;
//! several outputs are written all or nothing. The temporary files that exist are registered,
//! so a front end's signal handler can remove them as it exits
//! ([`exit_removing_temp_files`]). [`OutputDirectory`] is `kgeval run`'s report folder.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::Error;

mod report_folder;

pub use report_folder::{OutputDirectory, MARKER};

/// An I/O failure as the facade's error: `WHAT: CAUSE` in one line.
trait Say<T> {
    /// The error as [`Error::Invalid`], `what()` before its text.
    fn say(self, what: impl FnOnce() -> String) -> Result<T, Error>;
}

impl<T, E: std::fmt::Display> Say<T> for Result<T, E> {
    fn say(self, what: impl FnOnce() -> String) -> Result<T, Error> {
        self.map_err(|e| Error::invalid(format!("{}: {e}", what())))
    }
}

/// Writes to a temporary file beside `path`, then renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    write_all_atomically(&[(path, bytes)])
}

/// The prefix of every temporary file: `.kgeval-tmp-NAME-XXXXXX` beside the output `NAME`.
pub const TEMP_PREFIX: &str = ".kgeval-tmp-";

/// The temporary files that exist right now. The signal handler removes them (under the lock,
/// so no file is created, renamed or forgotten meanwhile) before the process exits.
static LIVE_TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live_temp_files() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMP_FILES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes every temporary file or folder of a write in progress and exits the process with
/// `code`, holding the registry's lock to the end (no file is created, renamed or forgotten
/// meanwhile): what a signal handler calls, so every output is either complete or untouched.
pub fn exit_removing_temp_files(code: i32) -> ! {
    let live = live_temp_files();
    for path in live.iter() {
        // A temporary output folder (`kgeval run`) goes with its files.
        let _ = std::fs::remove_file(path).or_else(|_| std::fs::remove_dir_all(path));
    }
    std::process::exit(code)
}

/// Where writing `path` lands: the file a symbolic link points to (followed to the end, even
/// when it does not exist yet), so the link stays a link.
pub fn write_target(path: &Path) -> PathBuf {
    let mut target = path.to_path_buf();
    // The kernel's own limit on links followed (ELOOP).
    for _ in 0..40 {
        let Ok(link) = std::fs::read_link(&target) else { break };
        target = match target.parent() {
            Some(dir) if link.is_relative() => dir.join(link),
            _ => link,
        };
    }
    target
}

/// Creates the temporary file for `target` and registers it, under the registry's lock (a
/// signal never sees a file that is not registered). A new file is opened with mode 0666, so
/// it gets what the umask allows, like any new file; over an existing file it takes that
/// file's mode.
fn create_temp(target: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // The output's name, shortened so the temporary name stays within a file name's limit.
    let name: String = target.file_name().map(|n| n.to_string_lossy().chars().take(64).collect()).unwrap_or_default();
    let prefix = format!("{TEMP_PREFIX}{name}-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    let new_mode = {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::Permissions::from_mode(0o666)
    };
    #[cfg(unix)]
    builder.permissions(new_mode);
    let mut live = live_temp_files();
    let tmp = builder.tempfile_in(dir)?;
    live.push(tmp.path().to_path_buf());
    drop(live);
    if let Ok(existing) = std::fs::metadata(target) {
        tmp.as_file().set_permissions(existing.permissions())?;
    }
    Ok(tmp)
}

/// A test hook (not an option): `KGEVAL_TEST_HOLD_TEMP_MS=N` waits N ms once the temporary
/// files are written, before they are renamed, so a test can interrupt a write in progress.
pub(crate) fn hold_for_tests() {
    if let Some(ms) = std::env::var("KGEVAL_TEST_HOLD_TEMP_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Writes several files all or nothing: every temporary file is written first (a failure
/// removes them all and leaves every target untouched), then each is renamed over its path
/// (over the target of a symbolic link).
pub fn write_all_atomically(files: &[(&Path, &[u8])]) -> Result<(), Error> {
    let mut written = Vec::with_capacity(files.len());
    let result = (|| {
        for &(path, bytes) in files {
            let target = write_target(path);
            let mut tmp = create_temp(&target).say(|| format!("{}: cannot create", path.display()))?;
            written.push((path, target, tmp.path().to_path_buf()));
            tmp.write_all(bytes).say(|| format!("{}: cannot write", path.display()))?;
            // Kept on disk until renamed or removed below (a drop would race the registry).
            let (_, kept) = tmp.keep().map_err(|e| e.error).say(|| format!("{}: cannot write", path.display()))?;
            drop(kept);
        }
        hold_for_tests();
        // Renamed under the lock: an interruption waits until every output is complete.
        let mut live = live_temp_files();
        for (path, target, tmp) in &written {
            std::fs::rename(tmp, target).say(|| format!("{}: cannot write", path.display()))?;
            live.retain(|p| p != tmp);
        }
        Ok(())
    })();
    if result.is_err() {
        let mut live = live_temp_files();
        for (_, _, tmp) in &written {
            if live.contains(tmp) {
                let _ = std::fs::remove_file(tmp);
                live.retain(|p| p != tmp);
            }
        }
    }
    result
}

/// Creates a temporary file or folder with `create` and registers it, under the registry's
/// lock (a signal never sees one that is not registered).
pub(crate) fn register_temp(create: impl FnOnce() -> std::io::Result<PathBuf>) -> std::io::Result<PathBuf> {
    let mut live = live_temp_files();
    let path = create()?;
    live.push(path.clone());
    Ok(path)
}

/// Runs `finish` (a rename or a removal of the temporary `path`) under the registry's lock,
/// then forgets `path`: an interruption waits until it is done.
pub(crate) fn unregister_temp(path: &Path, finish: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
    let mut live = live_temp_files();
    let result = finish();
    if result.is_ok() {
        live.retain(|p| p != path);
    }
    result
}
