//! The one input module: where a reader's bytes come from.
//!
//! Every family's text readers take `(bytes, name)`; an [`Input`] is a path, `-` (standard
//! input) or bytes already in memory, and [`Input::open`] turns it into [`InputBytes`]:
//! memory-mapped when it is a large plain file, read into memory otherwise, decompressed when
//! it is gzip (by the `.gz` extension or the gzip magic bytes, for every family).
//!
//! The same rules for every input: a path must be a regular file (a FIFO, a device or a
//! folder is refused before it is opened, so nothing blocks or grows without end); a UTF-8
//! byte-order mark is skipped; UTF-16 is refused with an error saying so; standard input and
//! decompressed gzip stop at [`decompressed_limit`] bytes (4 GiB unless set).
//!
//! ```
//! use kgeval_formats::input::Input;
//! use kgeval_formats::trec::read_qrels_bytes;
//! use kgeval_formats::Read;
//!
//! let input = Input::from_bytes("qrels", b"401 0 d1 1\n".to_vec());
//! let opened = input.open()?;
//! let Read { value: qrels, .. } = read_qrels_bytes(opened.bytes(), opened.name())?;
//! assert_eq!(qrels.len(), 1);
//! assert_eq!(Input::from("-"), Input::Stdin);
//! assert_eq!(Input::from("runs/bm25.run.gz").stem(), "bm25");
//! # Ok::<(), kgeval_formats::FormatError>(())
//! ```

use std::fmt;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::FormatError;

mod rules;

pub use rules::{
    check_regular_file, decompressed_limit, read_text_file, set_decompressed_limit, DEFAULT_DECOMPRESSED_LIMIT,
};
use rules::{read_limited, text_bytes, UTF8_BOM};

/// The name errors use for standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// The gzip magic number.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Files smaller than this are read rather than mapped (mapping costs a few system calls and
/// page faults that a small read does not).
const MAP_THRESHOLD: u64 = 1 << 20;

/// Where an input comes from: a file, standard input or bytes in memory.
///
/// Deserialises from a string (`"-"` is standard input, anything else a path) or from a table
/// `{ name = "…", text = "…" }` (content given inline), so a manifest names its inputs as
/// paths and a program can hand over bytes.
#[derive(Clone, PartialEq, Eq)]
pub enum Input {
    /// A file (gzip decompressed; large plain files memory-mapped).
    Path(PathBuf),
    /// Standard input (`-`), read whole (gzip decompressed).
    Stdin,
    /// Bytes in memory, named `name` in errors (gzip decompressed).
    Bytes {
        /// The name errors and outputs use.
        name: String,
        /// The content.
        bytes: Arc<[u8]>,
    },
}

impl Input {
    /// A path, or standard input when it is `-`.
    #[must_use]
    pub fn path(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        if path.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::Path(path)
        }
    }

    /// Bytes in memory named `name`.
    #[must_use]
    pub fn from_bytes(name: impl Into<String>, bytes: impl Into<Arc<[u8]>>) -> Self {
        Input::Bytes { name: name.into(), bytes: bytes.into() }
    }

    /// The name errors use: the path as displayed, `<stdin>`, or the given name.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Input::Path(path) => path.display().to_string(),
            Input::Stdin => STDIN_NAME.to_owned(),
            Input::Bytes { name, .. } => name.clone(),
        }
    }

    /// The file path, when the input is a file.
    #[must_use]
    pub fn as_path(&self) -> Option<&Path> {
        match self {
            Input::Path(path) => Some(path),
            _ => None,
        }
    }

    /// The default system name of this input: the file name without `.gz`, then without its
    /// last extension (`ranks.tsv.gz` → `ranks`, `AML.rdf` → `AML`); `stdin` for standard
    /// input.
    #[must_use]
    pub fn stem(&self) -> String {
        match self {
            Input::Path(path) => path_stem(path),
            Input::Stdin => "stdin".to_owned(),
            Input::Bytes { name, .. } => path_stem(Path::new(name)),
        }
    }

    /// A relative path joined to `base` (a manifest's folder); other inputs unchanged.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        match self {
            Input::Path(path) if path.is_relative() => Input::Path(base.join(path)),
            other => other.clone(),
        }
    }

    /// Reads (or maps) the input and decompresses gzip.
    ///
    /// # Errors
    /// [`FormatError::Io`] when the input cannot be read or its gzip stream is corrupt.
    pub fn open(&self) -> Result<InputBytes, FormatError> {
        match self {
            Input::Stdin => {
                let bytes = read_limited(io::stdin().lock(), STDIN_NAME, "standard input")?;
                let content = decompress_if_gzip(STDIN_NAME, bytes, false)?;
                InputBytes::checked(STDIN_NAME.to_owned(), content)
            }
            Input::Bytes { name, bytes } => {
                let content =
                    if bytes.starts_with(&GZIP_MAGIC) { gunzip(name, bytes)? } else { Content::Shared(bytes.clone()) };
                InputBytes::checked(name.clone(), content)
            }
            Input::Path(path) => open_file(path),
        }
    }
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Path(path) => write!(f, "Path({})", path.display()),
            Input::Stdin => f.write_str("Stdin"),
            Input::Bytes { name, bytes } => write!(f, "Bytes({name}, {} bytes)", bytes.len()),
        }
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl From<&str> for Input {
    fn from(path: &str) -> Self {
        Input::path(path)
    }
}

impl From<String> for Input {
    fn from(path: String) -> Self {
        Input::path(path)
    }
}

impl From<PathBuf> for Input {
    fn from(path: PathBuf) -> Self {
        Input::path(path)
    }
}

impl From<&Path> for Input {
    fn from(path: &Path) -> Self {
        Input::path(path)
    }
}

impl<'de> serde::Deserialize<'de> for Input {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(InputVisitor)
    }
}

/// A path (`"runs/a.txt"`) or an inline file (`{ name = "…", text = "…" }`), told apart by the
/// value's type, so that a wrong shape (an array, a number) is named in the error, with the
/// place the deserializer gives it.
struct InputVisitor;

impl<'de> serde::de::Visitor<'de> for InputVisitor {
    type Value = Input;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a path \"FILE\" or an inline file { name = \"…\", text = \"…\" }")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Input, E> {
        Ok(Input::path(text))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Input, A::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Inline {
            name: String,
            text: String,
        }
        let inline = <Inline as serde::Deserialize>::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(Input::from_bytes(inline.name, inline.text.into_bytes()))
    }
}

impl serde::Serialize for Input {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Input::Path(path) => path.serialize(serializer),
            Input::Stdin => serializer.serialize_str("-"),
            Input::Bytes { name, .. } => serializer.serialize_str(name),
        }
    }
}

/// A file name without `.gz`, then without its extension.
fn path_stem(path: &Path) -> String {
    let path = match path.extension() {
        Some(ext) if ext.eq_ignore_ascii_case("gz") => Path::new(path.file_stem().unwrap_or_default()),
        _ => path,
    };
    path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned())
}

/// The bytes of an opened [`Input`] and the name errors use.
pub struct InputBytes {
    name: String,
    content: Content,
}

/// Owned, mapped or shared bytes.
enum Content {
    Owned(Vec<u8>),
    Mapped(memmap2::Mmap),
    Shared(Arc<[u8]>),
}

impl InputBytes {
    /// The opened bytes, refused when they are UTF-16 (by its byte-order mark).
    fn checked(name: String, content: Content) -> Result<InputBytes, FormatError> {
        let opened = InputBytes { name, content };
        text_bytes(opened.raw(), &opened.name)?;
        Ok(opened)
    }

    /// The bytes as read, byte-order mark included.
    fn raw(&self) -> &[u8] {
        match &self.content {
            Content::Owned(bytes) => bytes,
            Content::Mapped(map) => map,
            Content::Shared(bytes) => bytes,
        }
    }

    /// The name errors use (the path as displayed, `<stdin>`, or the in-memory name).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The (decompressed) bytes, after a UTF-8 byte-order mark if there is one.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        let raw = self.raw();
        raw.strip_prefix(&UTF8_BOM[..]).unwrap_or(raw)
    }

    /// The (decompressed) bytes as shared [`bytes::Bytes`], without a copy (a mapped file
    /// stays mapped): what the Parquet and Arrow IPC readers take.
    #[cfg(feature = "arrow")]
    #[must_use]
    pub fn into_shared(self) -> bytes::Bytes {
        match self.content {
            Content::Owned(bytes) => bytes::Bytes::from(bytes),
            Content::Mapped(map) => bytes::Bytes::from_owner(map),
            Content::Shared(bytes) => bytes::Bytes::from_owner(bytes),
        }
    }

    /// Whether the bytes are memory-mapped from the file.
    #[must_use]
    pub fn is_mapped(&self) -> bool {
        matches!(self.content, Content::Mapped(_))
    }

    /// Bytes already in memory, named `name`, decompressed when they are gzip.
    ///
    /// # Errors
    /// [`FormatError::Io`] when the gzip stream is corrupt.
    pub fn from_vec(name: &str, bytes: Vec<u8>) -> Result<Self, FormatError> {
        InputBytes::checked(name.to_owned(), decompress_if_gzip(name, bytes, false)?)
    }
}

impl fmt::Debug for InputBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.content {
            Content::Owned(_) => "Owned",
            Content::Mapped(_) => "Mapped",
            Content::Shared(_) => "Shared",
        };
        write!(f, "{kind}({}, {} bytes)", self.name, self.bytes().len())
    }
}

/// Opens a file: read when small or named `.gz`, else mapped; gzip decompressed.
fn open_file(path: &Path) -> Result<InputBytes, FormatError> {
    let name = path.display().to_string();
    check_regular_file(path)?;
    let file = std::fs::File::open(path).map_err(|e| FormatError::io(&name, e))?;
    let len = file.metadata().map_err(|e| FormatError::io(&name, e))?.len();
    let named_gz = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    if len < MAP_THRESHOLD || named_gz {
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        (&file).read_to_end(&mut bytes).map_err(|e| FormatError::io(&name, e))?;
        let content = decompress_if_gzip(&name, bytes, named_gz)?;
        return InputBytes::checked(name, content);
    }
    // SAFETY: the map is read-only. Mapping is unsafe because another process could truncate
    // or rewrite the file while it is mapped (SIGBUS or torn reads); kgeval reads inputs that
    // are not being written, as every mmap-based reader (trec_eval itself, ripgrep) assumes.
    // When mapping fails (a pipe, a special file) the file is read instead.
    #[allow(unsafe_code)]
    let mapped = unsafe { map_options().map(&file) };
    let content = match mapped {
        Ok(map) if map.starts_with(&GZIP_MAGIC) => gunzip(&name, &map)?,
        Ok(map) => {
            populate(&map);
            Content::Mapped(map)
        }
        Err(_) => {
            let mut bytes = Vec::new();
            (&file).read_to_end(&mut bytes).map_err(|e| FormatError::io(&name, e))?;
            decompress_if_gzip(&name, bytes, false)?
        }
    };
    InputBytes::checked(name, content)
}

/// How a file is mapped: on Linux without `MAP_POPULATE` ([`populate`] then maps its pages on
/// every thread), elsewhere populated by the kernel where it can.
fn map_options() -> memmap2::MmapOptions {
    let mut options = memmap2::MmapOptions::new();
    if !cfg!(target_os = "linux") {
        options.populate();
    }
    options
}

/// Maps every page of a file mapping before it is read, piece by piece on rayon's threads
/// (`MADV_POPULATE_READ`): `MAP_POPULATE` does the same on the calling thread alone, which
/// took 50 ms of a one-second run on a 310 MB file, and faulting the pages in as the readers
/// touch them costs a fault per 64 kB. A kernel older than 5.14 refuses the advice: the pages
/// are then faulted in as they are read, with the same result.
#[cfg(target_os = "linux")]
fn populate(map: &memmap2::Mmap) {
    use rayon::prelude::*;
    /// The size of the pieces mapped in parallel.
    const POPULATE_PIECE: usize = 8 << 20;
    let pieces = map.len().div_ceil(POPULATE_PIECE);
    (0..pieces).into_par_iter().for_each(|k| {
        let start = k * POPULATE_PIECE;
        let len = POPULATE_PIECE.min(map.len() - start);
        // Advice only: a refusal changes nothing but the speed.
        let _ = map.advise_range(memmap2::Advice::PopulateRead, start, len);
    });
}

/// Elsewhere the mapping was populated when it was made ([`map_options`]).
#[cfg(not(target_os = "linux"))]
fn populate(_map: &memmap2::Mmap) {}

/// `bytes` decompressed when they are gzip (or `named_gz` says they must be), else as they are.
fn decompress_if_gzip(name: &str, bytes: Vec<u8>, named_gz: bool) -> Result<Content, FormatError> {
    if named_gz || bytes.starts_with(&GZIP_MAGIC) {
        gunzip(name, &bytes)
    } else {
        Ok(Content::Owned(bytes))
    }
}

/// Decompresses every gzip member of `compressed`, at most [`decompressed_limit`] bytes.
fn gunzip(name: &str, compressed: &[u8]) -> Result<Content, FormatError> {
    gunzip_within(name, compressed, decompressed_limit())
}

/// [`gunzip`] with the limit given.
fn gunzip_within(name: &str, compressed: &[u8], limit: u64) -> Result<Content, FormatError> {
    let reserve = usize::try_from(limit).unwrap_or(usize::MAX).min(compressed.len().saturating_mul(4));
    let mut bytes = Vec::with_capacity(reserve);
    flate2::read::MultiGzDecoder::new(compressed).take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(
        |e| {
            FormatError::io(name, io::Error::new(e.kind(), format!("found a corrupt gzip stream ({e}), expected gzip")))
        },
    )?;
    if bytes.len() as u64 > limit {
        return Err(FormatError::io(
            name,
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "found gzip that expands to more than {limit} bytes, expected at most the decompressed-size limit"
                ),
            ),
        ));
    }
    Ok(Content::Owned(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write as _;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).expect("in memory");
        encoder.finish().expect("in memory")
    }

    #[test]
    fn bytes_in_memory_are_decompressed_by_magic() {
        let plain = Input::from_bytes("x", b"a\tb\n".to_vec()).open().expect("plain");
        assert_eq!(plain.bytes(), b"a\tb\n");
        let zipped = Input::from_bytes("x", gzip(b"a\tb\n")).open().expect("gzip");
        assert_eq!(zipped.bytes(), b"a\tb\n");
        assert_eq!(zipped.name(), "x");
    }

    #[test]
    fn files_small_and_large_plain_and_gzip() {
        let dir = tempfile::tempdir().expect("tempdir");
        let big: Vec<u8> = b"0123456789abcdef\n".repeat(70_000);
        for (file, content) in [
            ("small.txt", b"abc\n".to_vec()),
            ("big.txt", big.clone()),
            ("big.txt.gz", gzip(&big)),
            ("hidden", gzip(&big)),
        ] {
            let path = dir.path().join(file);
            std::fs::write(&path, &content).expect("write");
            let opened = Input::path(&path).open().expect("open");
            let expected: &[u8] = if file == "small.txt" { b"abc\n" } else { &big };
            assert_eq!(opened.bytes(), expected, "{file}");
            assert_eq!(opened.is_mapped(), file == "big.txt", "{file}");
        }
    }

    #[test]
    fn errors_name_the_input() {
        let missing = Input::path("/nonexistent/kgeval/file.tsv").open().unwrap_err();
        assert!(missing.to_string().starts_with("/nonexistent/kgeval/file.tsv: "), "{missing}");
        let corrupt = Input::from_bytes("c.gz", vec![0x1f, 0x8b, 0, 1, 2]).open().unwrap_err();
        assert!(corrupt.to_string().contains("corrupt gzip"), "{corrupt}");
    }

    #[test]
    fn one_rule_for_marks_special_files_and_sizes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let bom = dir.path().join("bom.txt");
        std::fs::write(&bom, b"\xef\xbb\xbf301 0 d1 1\n").expect("write");
        assert_eq!(Input::path(&bom).open().expect("bom").bytes(), b"301 0 d1 1\n");
        assert_eq!(read_text_file(&bom).expect("text"), "301 0 d1 1\n");
        let zipped = Input::from_bytes("z", gzip(b"\xef\xbb\xbfx")).open().expect("gzip");
        assert_eq!(zipped.bytes(), b"x");
        let utf16 = Input::from_bytes("u", vec![0xff, 0xfe, b'a', 0]).open().unwrap_err();
        assert!(utf16.to_string().contains("UTF-16"), "{utf16}");
        let folder = Input::path(dir.path()).open().unwrap_err();
        assert!(folder.to_string().contains("found a folder, expected a regular file"), "{folder}");
        #[cfg(unix)]
        {
            let device = Input::path("/dev/zero").open().unwrap_err();
            assert!(device.to_string().contains("found a device"), "{device}");
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
            if made {
                let error = Input::path(&fifo).open().unwrap_err();
                assert!(error.to_string().contains("FIFO"), "{error}");
                assert!(read_text_file(&fifo).is_err());
            }
        }
        // The limit, at its edge: 1000 bytes pass under a limit of 1000, 1001 do not.
        // (The process-wide limit is not changed here: other tests read gzip meanwhile.)
        let at_limit = gunzip_within("g", &gzip(&[b'a'; 1000]), 1000).expect("at the limit");
        assert!(matches!(at_limit, Content::Owned(ref b) if b.len() == 1000));
        let over = gunzip_within("g", &gzip(&[b'a'; 1001]), 1000).err().expect("over the limit");
        assert!(over.to_string().contains("expands to more than 1000 bytes"), "{over}");
        assert_eq!(decompressed_limit(), DEFAULT_DECOMPRESSED_LIMIT);
    }

    #[test]
    fn names_stems_and_manifest_strings() {
        assert_eq!(Input::path("a/ranks.tsv.gz").stem(), "ranks");
        assert_eq!(Input::path("a/AML.rdf").stem(), "AML");
        assert_eq!(Input::Stdin.name(), STDIN_NAME);
        assert_eq!(Input::path("x.tsv").resolved(Path::new("base")), Input::Path(PathBuf::from("base/x.tsv")));
        assert_eq!(Input::Stdin.resolved(Path::new("base")), Input::Stdin);
        #[derive(serde::Deserialize)]
        struct T {
            a: Input,
            b: Input,
            c: Input,
        }
        let t: T =
            serde_json::from_str(r#"{"a": "x.tsv", "b": "-", "c": {"name": "mem", "text": "q\n"}}"#).expect("json");
        assert_eq!(t.a, Input::path("x.tsv"));
        assert_eq!(t.b, Input::Stdin);
        assert_eq!(t.c.open().expect("inline").bytes(), b"q\n");
    }
}
