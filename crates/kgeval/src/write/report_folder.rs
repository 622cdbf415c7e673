//! `kgeval run -o DIR`: the output folder, written so that nothing kgeval did not write is
//! ever lost. A folder is written only when it is new, empty, or a previous `kgeval run`
//! output, recognised by the marker file [`MARKER`] that lists the files kgeval wrote there;
//! only those files are replaced or removed. A folder that holds the manifest or an input is
//! refused, and so is any other folder with something in it. Every check runs before any work.

use std::path::{Component, Path, PathBuf};

use super::{register_temp, unregister_temp, write_all_atomically, write_target, Say as _, TEMP_PREFIX};
use crate::Error;

/// The marker of a `kgeval run` output: a comment line, then the name of every file kgeval
/// wrote into the folder, one a line.
pub const MARKER: &str = ".kgeval-run";

/// The marker's first line.
const MARKER_HEADER: &str = "# Written by `kgeval run`: a later `kgeval run -o` on this folder replaces the files \
                             listed here, and only them.";

/// A checked `-o DIR` of `kgeval run`.
#[derive(Debug)]
pub struct OutputDirectory {
    /// The folder as the user wrote it (for messages).
    shown: PathBuf,
    /// Where the files land: the folder, or the one its symbolic link points to.
    target: PathBuf,
    /// The files of the previous output (its marker), or `None` when the folder does not
    /// exist yet (empty when it exists and is empty).
    previous: Option<Vec<String>>,
}

impl OutputDirectory {
    /// Checks `-o dir` against the run's `inputs` (the manifest and every file it names)
    /// before any work: a file, a folder holding an input (the manifest's folder among them),
    /// a folder inside an input folder, and a non-empty folder without kgeval's marker are
    /// refused.
    pub fn check(dir: &Path, inputs: &[PathBuf]) -> Result<OutputDirectory, Error> {
        let shown = dir.to_path_buf();
        let target = write_target(dir);
        match std::fs::metadata(&target) {
            Ok(meta) if !meta.is_dir() => {
                return Err(Error::invalid(format!(
                    "-o {}: found a file, expected a folder to write the report into",
                    shown.display()
                )))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::invalid(format!("-o {}: cannot read: {e}", shown.display()))),
        }
        // Where the folder is (or would be), links and `..` resolved.
        let resolved = resolve(&target).say(|| format!("-o {}: cannot resolve", shown.display()))?;
        for input in inputs {
            let Ok(input_path) = input.canonicalize() else { continue };
            let holds = input_path.starts_with(&resolved);
            let inside = input_path.is_dir() && resolved.starts_with(&input_path);
            if holds || inside {
                return Err(Error::invalid(format!(
                    "-o {}: found a folder {} an input of this run ({}), expected a folder apart from the manifest \
                     and its inputs",
                    shown.display(),
                    if holds { "that holds" } else { "inside" },
                    input.display()
                )));
            }
        }
        let previous = if target.is_dir() { Some(previous_files(&shown, &target)?) } else { None };
        Ok(OutputDirectory { shown, target, previous })
    }

    /// Writes `files` (`(name, bytes)`, plain file names) and the marker, all or nothing: a new
    /// folder is written beside its place and renamed into it (parents created for it are
    /// removed again on failure); an existing one gets each file through a temporary file
    /// renamed over it, then the previous output's files that this one does not write are
    /// removed. Nothing else in the folder is touched.
    pub fn write(&self, files: &[(String, Vec<u8>)]) -> Result<(), Error> {
        let names: Vec<String> = files.iter().map(|(name, _)| name.clone()).collect();
        match &self.previous {
            None => self.write_new(files, &names),
            Some(previous) => self.replace(files, &names, previous),
        }
    }

    fn write_new(&self, files: &[(String, Vec<u8>)], names: &[String]) -> Result<(), Error> {
        let parent = match self.target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let created = create_parents(&parent).say(|| format!("{}: cannot create", parent.display()))?;
        let result = self.write_new_in(&parent, files, names);
        if result.is_err() {
            // Innermost first: a folder another process filled meanwhile stays.
            for dir in created.iter().rev() {
                let _ = std::fs::remove_dir(dir);
            }
        }
        result
    }

    fn write_new_in(&self, parent: &Path, files: &[(String, Vec<u8>)], names: &[String]) -> Result<(), Error> {
        let name: String =
            self.target.file_name().map(|n| n.to_string_lossy().chars().take(64).collect()).unwrap_or_default();
        let tmp = register_temp(|| {
            Ok(tempfile::Builder::new().prefix(&format!("{TEMP_PREFIX}{name}-")).tempdir_in(parent)?.keep())
        })
        .say(|| format!("{}: cannot create", self.shown.display()))?;
        let result = (|| {
            for (file, bytes) in files {
                std::fs::write(tmp.join(file), bytes)
                    .say(|| format!("{}: cannot write", self.shown.join(file).display()))?;
            }
            std::fs::write(tmp.join(MARKER), marker_text(names))
                .say(|| format!("{}: cannot write", self.shown.join(MARKER).display()))?;
            super::hold_for_tests();
            // Renamed under the registry's lock: an interruption waits until it is done. A
            // folder that appeared meanwhile and is not empty makes the rename fail.
            unregister_temp(&tmp, || {
                std::fs::rename(&tmp, &self.target).say(|| format!("{}: cannot write", self.shown.display()))
            })
        })();
        if result.is_err() {
            unregister_temp(&tmp, || {
                let _ = std::fs::remove_dir_all(&tmp);
                Ok(())
            })?;
        }
        result
    }

    fn replace(&self, files: &[(String, Vec<u8>)], names: &[String], previous: &[String]) -> Result<(), Error> {
        let stale: Vec<&String> = previous.iter().filter(|p| !names.contains(p)).collect();
        // The marker lists the stale files too until they are gone: an interruption between
        // the two steps leaves nothing unlisted.
        let mut listed = names.to_vec();
        listed.extend(stale.iter().map(|s| (*s).clone()));
        let marker = marker_text(&listed);
        let paths: Vec<PathBuf> = files.iter().map(|(name, _)| self.target.join(name)).collect();
        let mut writes: Vec<(&Path, &[u8])> =
            paths.iter().zip(files).map(|(path, (_, bytes))| (path.as_path(), bytes.as_slice())).collect();
        let marker_path = self.target.join(MARKER);
        writes.push((&marker_path, marker.as_bytes()));
        write_all_atomically(&writes)?;
        if stale.is_empty() {
            return Ok(());
        }
        for name in &stale {
            let path = self.target.join(name);
            // Only a file: a folder of the same name is not something kgeval wrote.
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                std::fs::remove_file(&path).say(|| format!("{}: cannot remove", path.display()))?;
            }
        }
        super::write_atomically(&marker_path, marker_text(names).as_bytes())
    }
}

/// The files of the previous output in `target`: none when it is empty, its marker's list
/// when it has one; any other folder with something in it is refused.
fn previous_files(shown: &Path, target: &Path) -> Result<Vec<String>, Error> {
    let mut entries = std::fs::read_dir(target).say(|| format!("-o {}: cannot read", shown.display()))?;
    if entries.next().is_none() {
        return Ok(Vec::new());
    }
    let marker = target.join(MARKER);
    if !std::fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file()) {
        return Err(Error::invalid(format!(
            "-o {}: found a folder that kgeval did not write (it has files and no {MARKER} marker), expected a new \
             or empty folder or a previous `kgeval run` output",
            shown.display()
        )));
    }
    let text = std::fs::read_to_string(&marker).say(|| format!("{}: cannot read", marker.display()))?;
    let mut names = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !is_plain_file_name(line) {
            let token: String = line.chars().take(40).collect();
            return Err(Error::invalid(format!(
                "{}:{}:1: found {token:?}, expected the name of a file in this folder (a marker kgeval did not write)",
                marker.display(),
                i + 1
            )));
        }
        names.push(line.to_owned());
    }
    Ok(names)
}

/// A name that stays inside its folder: one normal path component, no separator.
fn is_plain_file_name(name: &str) -> bool {
    let mut components = Path::new(name).components();
    matches!(components.next(), Some(Component::Normal(_)))
        && components.next().is_none()
        && !name.contains(['/', '\\', '\0'])
        && name != MARKER
}

fn marker_text(names: &[String]) -> String {
    let mut text = format!("{MARKER_HEADER}\n");
    for name in names {
        text.push_str(name);
        text.push('\n');
    }
    text
}

/// `path` with links and `..` resolved, also when its last components do not exist yet.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        match existing.canonicalize() {
            Ok(found) => {
                let mut resolved = found;
                for part in missing.iter().rev() {
                    resolved.push(part);
                }
                return Ok(resolved);
            }
            Err(_) => {
                let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                    return Ok(absolute);
                };
                missing.push(name.to_os_string());
                existing = parent;
            }
        }
    }
}

/// Creates `dir` and its missing parents; returns those it created, outermost first.
fn create_parents(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut current = Some(dir);
    while let Some(path) = current {
        if path.as_os_str().is_empty() || path.exists() {
            break;
        }
        missing.push(path.to_path_buf());
        current = path.parent();
    }
    missing.reverse();
    let mut created = Vec::new();
    for path in missing {
        match std::fs::create_dir(&path) {
            Ok(()) => created.push(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                for dir in created.iter().rev() {
                    let _ = std::fs::remove_dir(dir);
                }
                return Err(e);
            }
        }
    }
    Ok(created)
}

#[cfg(test)]
mod tests {
    use super::{is_plain_file_name, resolve};

    #[test]
    fn plain_file_names_stay_in_the_folder() {
        for good in ["report.md", "a b.csv", "..x"] {
            assert!(is_plain_file_name(good), "{good}");
        }
        for bad in ["", ".", "..", "../x", "a/b", "/etc/passwd", ".kgeval-run", "a\\b"] {
            assert!(!is_plain_file_name(bad), "{bad}");
        }
    }

    #[test]
    fn missing_components_are_kept_after_the_existing_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().expect("canonical");
        let path = dir.path().join("x/../y/z");
        assert_eq!(resolve(&path).expect("resolve"), base.join("x/../y/z"));
        std::fs::create_dir(dir.path().join("x")).expect("mkdir");
        std::fs::create_dir(dir.path().join("y")).expect("mkdir");
        assert_eq!(resolve(&path).expect("resolve"), base.join("y/z"));
    }
}
