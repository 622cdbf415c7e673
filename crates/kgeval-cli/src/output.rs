//! Writing results: stdout, or a file written atomically (temp file + rename).

use std::io::Write as _;
use std::path::Path;

use anyhow::Context as _;

/// Writes `content` to `path` atomically (never a half-written file), or to stdout.
pub(crate) fn write_output(path: Option<&Path>, content: &str) -> anyhow::Result<()> {
    match path {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(content.as_bytes())?;
            stdout.flush()?;
            Ok(())
        }
        Some(path) => write_atomically(path, content.as_bytes()),
    }
}

/// Writes to a temporary file beside `path`, then renames it over `path`.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("{}: cannot create", path.display()))?;
    tmp.write_all(bytes).with_context(|| format!("{}: cannot write", path.display()))?;
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}
