//! The submissions' bytes, content-addressed in a folder beside the database
//! (`DB.blobs/ab/abcdef…`, the name the bytes' SHA-256): written to a temporary file, fsynced,
//! renamed into place, and the folder fsynced, so a stored file is whole after a crash. No
//! client-given name is ever part of a path.

use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::token::{new_token, sha256_hex};
use crate::Error;

/// The blob folder.
#[derive(Debug, Clone)]
pub struct Blobs {
    root: PathBuf,
}

impl Blobs {
    /// The folder `root`, created if missing.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be created.
    pub fn open(root: &Path) -> Result<Blobs, Error> {
        fs::create_dir_all(root).map_err(|e| io(root, &e))?;
        Ok(Blobs { root: root.to_path_buf() })
    }

    /// Checks that files can be created in the folder: a file written and removed.
    ///
    /// # Errors
    /// [`Error::Io`] `FOLDER: cannot write: …`.
    pub fn check_writable(&self) -> Result<(), Error> {
        let probe = self.root.join(format!(".write-check-{}", &new_token()?[..16]));
        let written = File::create_new(&probe).and_then(|mut file| file.write_all(b"kgeval"));
        let _ = fs::remove_file(&probe);
        written.map_err(|e| Error::Io(format!("{}: cannot write: {e}", self.root.display())))
    }

    /// Where the bytes of hash `sha256` (64 hex digits) are.
    #[must_use]
    pub fn path(&self, sha256: &str) -> PathBuf {
        self.root.join(sha256.get(..2).unwrap_or("xx")).join(sha256)
    }

    /// Stores `bytes` durably and returns their SHA-256 (hex).
    ///
    /// # Errors
    /// [`Error::Io`] when a write, fsync or rename fails.
    pub fn put(&self, bytes: &[u8]) -> Result<String, Error> {
        let sha256 = sha256_hex(bytes);
        let target = self.path(&sha256);
        let dir = target.parent().unwrap_or(&self.root).to_path_buf();
        if !dir.is_dir() {
            fs::create_dir_all(&dir).map_err(|e| io(&dir, &e))?;
            sync_dir(&self.root)?;
        }
        if target.is_file() && fs::metadata(&target).map(|m| m.len()).ok() == Some(bytes.len() as u64) {
            // The same content is already there, whole (it was renamed into place only after
            // its fsync).
            return Ok(sha256);
        }
        let temporary = dir.join(format!(".tmp-{}", &new_token()?[..16]));
        let written = (|| -> std::io::Result<()> {
            let mut file = File::create(&temporary)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            fs::rename(&temporary, &target)
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&temporary);
            return Err(io(&target, &e));
        }
        sync_dir(&dir)?;
        Ok(sha256)
    }

    /// The bytes stored under `sha256`.
    ///
    /// # Errors
    /// [`Error::Io`] when they cannot be read.
    pub fn get(&self, sha256: &str) -> Result<Vec<u8>, Error> {
        let path = self.path(sha256);
        fs::read(&path).map_err(|e| io(&path, &e))
    }
}

/// fsyncs a folder, so that a rename in it is durable.
fn sync_dir(dir: &Path) -> Result<(), Error> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| io(dir, &e))
}

fn io(path: &Path, error: &std::io::Error) -> Error {
    Error::Io(format!("{}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::Blobs;

    #[test]
    fn stores_by_content() {
        let dir = tempfile::tempdir().expect("a folder");
        let blobs = Blobs::open(&dir.path().join("db.blobs")).expect("blobs");
        let sha = blobs.put(b"abc").expect("stored");
        assert_eq!(sha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(blobs.put(b"abc").expect("stored again"), sha);
        assert_eq!(blobs.get(&sha).expect("read"), b"abc");
        let names: Vec<_> = std::fs::read_dir(blobs.path(&sha).parent().expect("a folder")).expect("listed").collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }
}
