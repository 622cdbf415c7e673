//! The rules every input follows (see `docs/inputs.md`): regular files only, a UTF-8
//! byte-order mark skipped, UTF-16 refused, decompressed and standard-input sizes bounded.

use std::io::{self, Read as _};
use std::path::Path;

use crate::FormatError;

/// The UTF-8 byte-order mark, skipped wherever it starts an input.
pub(super) const UTF8_BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// The largest input read into memory from gzip or standard input unless set otherwise.
pub const DEFAULT_DECOMPRESSED_LIMIT: u64 = 4 << 30;

static DECOMPRESSED_LIMIT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(DEFAULT_DECOMPRESSED_LIMIT);

/// The most bytes an input may hold once decompressed (gzip) or read from standard input.
#[must_use]
pub fn decompressed_limit() -> u64 {
    DECOMPRESSED_LIMIT.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sets [`decompressed_limit`] for the whole process (a server sets a small one).
pub fn set_decompressed_limit(bytes: u64) {
    DECOMPRESSED_LIMIT.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// Refuses a path that is not a regular file (after links), before it is opened: opening a
/// FIFO blocks until a writer comes, and a device such as `/dev/zero` never ends.
///
/// # Errors
/// [`FormatError::Io`] when the path cannot be read or is not a regular file.
pub fn check_regular_file(path: &Path) -> Result<(), FormatError> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| FormatError::io(&name, e))?;
    if meta.is_file() {
        return Ok(());
    }
    let kind = if meta.is_dir() {
        "a folder"
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt as _;
            let t = meta.file_type();
            if t.is_fifo() {
                "a FIFO (named pipe)"
            } else if t.is_char_device() || t.is_block_device() {
                "a device"
            } else if t.is_socket() {
                "a socket"
            } else {
                "a special file"
            }
        }
        #[cfg(not(unix))]
        {
            "a special file"
        }
    };
    Err(FormatError::io(
        &name,
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("found {kind}, expected a regular file (or - for standard input)"),
        ),
    ))
}

/// Reads a small text file (a manifest): a regular file, at most 64 MiB, UTF-8 with its
/// byte-order mark skipped; UTF-16 refused.
///
/// # Errors
/// [`FormatError::Io`] when it cannot be read, is not a regular file or is too large;
/// [`FormatError::Syntax`] at the first byte that is not UTF-8.
pub fn read_text_file(path: &Path) -> Result<String, FormatError> {
    /// A manifest larger than this is not a manifest.
    const MAX_TEXT_FILE: u64 = 64 << 20;
    let name = path.display().to_string();
    check_regular_file(path)?;
    let file = std::fs::File::open(path).map_err(|e| FormatError::io(&name, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_TEXT_FILE + 1).read_to_end(&mut bytes).map_err(|e| FormatError::io(&name, e))?;
    if bytes.len() as u64 > MAX_TEXT_FILE {
        return Err(FormatError::io(
            &name,
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("found more than {MAX_TEXT_FILE} bytes, expected a manifest"),
            ),
        ));
    }
    let text = text_bytes(&bytes, &name)?;
    Ok(crate::error::utf8_text(&name, text)?.to_owned())
}

/// `bytes` without a UTF-8 byte-order mark; UTF-16 (by its mark) refused.
pub(super) fn text_bytes<'a>(bytes: &'a [u8], name: &str) -> Result<&'a [u8], FormatError> {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(FormatError::io(
            name,
            io::Error::new(
                io::ErrorKind::InvalidData,
                "found a UTF-16 byte-order mark, expected UTF-8 (convert with `iconv -f UTF-16 -t UTF-8`)",
            ),
        ));
    }
    Ok(bytes.strip_prefix(&UTF8_BOM[..]).unwrap_or(bytes))
}

/// Reads `reader` to its end, at most [`decompressed_limit`] bytes.
pub(super) fn read_limited(reader: impl io::Read, name: &str, what: &str) -> Result<Vec<u8>, FormatError> {
    let limit = decompressed_limit();
    let mut bytes = Vec::new();
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| FormatError::io(name, e))?;
    if bytes.len() as u64 > limit {
        return Err(FormatError::io(
            name,
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("found {what} of more than {limit} bytes, expected at most the decompressed-size limit"),
            ),
        ));
    }
    Ok(bytes)
}
