//! The bytes of a qrels or run file: memory-mapped when it is a plain file, read into memory
//! for stdin (`-`), decompressed when it is gzip (by the `.gz` extension or the gzip magic).

use std::io::{self, Read as _};

use crate::FormatError;

/// The name errors use for standard input.
pub(super) const STDIN_NAME: &str = "<stdin>";

/// The gzip magic number.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Files smaller than this are read rather than mapped (mapping costs a few system calls and
/// page faults that a small read does not).
const MAP_THRESHOLD: u64 = 1 << 20;

/// The bytes of an input, owned or mapped.
pub(super) enum InputBytes {
    /// Read or decompressed into memory.
    Owned(Vec<u8>),
    /// Mapped read-only.
    Mapped(memmap2::Mmap),
}

impl InputBytes {
    /// The bytes.
    pub(super) fn as_slice(&self) -> &[u8] {
        match self {
            InputBytes::Owned(bytes) => bytes,
            InputBytes::Mapped(map) => map,
        }
    }
}

impl std::fmt::Debug for InputBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self {
            InputBytes::Owned(_) => "Owned",
            InputBytes::Mapped(_) => "Mapped",
        };
        write!(f, "{kind}({} bytes)", self.as_slice().len())
    }
}

/// Opens `path` (`-` = stdin) and returns the name errors use and the (decompressed) bytes.
pub(super) fn open(path: &str) -> Result<(String, InputBytes), FormatError> {
    if path == "-" {
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes).map_err(|e| FormatError::io(STDIN_NAME, e))?;
        let bytes = decompress_if_gzip(STDIN_NAME, bytes, false)?;
        return Ok((STDIN_NAME.to_owned(), bytes));
    }
    let file = std::fs::File::open(path).map_err(|e| FormatError::io(path, e))?;
    let len = file.metadata().map_err(|e| FormatError::io(path, e))?.len();
    let named_gz = path.to_ascii_lowercase().ends_with(".gz");
    if len < MAP_THRESHOLD || named_gz {
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        (&file).read_to_end(&mut bytes).map_err(|e| FormatError::io(path, e))?;
        return Ok((path.to_owned(), decompress_if_gzip(path, bytes, named_gz)?));
    }
    // SAFETY: the map is read-only. Mapping is unsafe because another process could truncate
    // or rewrite the file while it is mapped (SIGBUS or torn reads); kgeval reads runs that are
    // not being written, as every mmap-based reader (trec_eval itself, ripgrep) assumes. When
    // mapping fails (a pipe, a special file) the file is read instead.
    #[allow(unsafe_code)]
    let mapped = unsafe { memmap2::MmapOptions::new().populate().map(&file) };
    match mapped {
        Ok(map) if map.starts_with(&GZIP_MAGIC) => Ok((path.to_owned(), gunzip(path, &map)?)),
        Ok(map) => Ok((path.to_owned(), InputBytes::Mapped(map))),
        Err(_) => {
            let mut bytes = Vec::new();
            (&file).read_to_end(&mut bytes).map_err(|e| FormatError::io(path, e))?;
            Ok((path.to_owned(), decompress_if_gzip(path, bytes, false)?))
        }
    }
}

/// `bytes` decompressed when they are gzip (or `named_gz` says they must be), else as they are.
pub(super) fn decompress_if_gzip(name: &str, bytes: Vec<u8>, named_gz: bool) -> Result<InputBytes, FormatError> {
    if named_gz || bytes.starts_with(&GZIP_MAGIC) {
        gunzip(name, &bytes)
    } else {
        Ok(InputBytes::Owned(bytes))
    }
}

/// Decompresses every gzip member of `compressed`.
fn gunzip(name: &str, compressed: &[u8]) -> Result<InputBytes, FormatError> {
    let mut bytes = Vec::with_capacity(compressed.len().saturating_mul(4));
    flate2::read::MultiGzDecoder::new(compressed).read_to_end(&mut bytes).map_err(|e| {
        FormatError::io(name, io::Error::new(e.kind(), format!("found a corrupt gzip stream ({e}), expected gzip")))
    })?;
    Ok(InputBytes::Owned(bytes))
}
