//! The little-endian byte layout the mergeable accumulators serialise to: a header (magic,
//! kind, version), then counts, strings and exact sums. One writer and one reader, so every
//! accumulator spells its layout the same way (documented in `docs/ARCHITECTURE.md`).

use crate::exact::ExactSum;

/// The first eight bytes of every serialised accumulator.
pub(crate) const MAGIC: &[u8; 8] = b"KGEVACC\0";

/// Appends values to a buffer.
#[derive(Debug, Default)]
pub(crate) struct Writer {
    pub(crate) out: Vec<u8>,
}

impl Writer {
    /// A buffer starting with the header: [`MAGIC`], `kind` (u8), `version` (u16).
    pub(crate) fn with_header(kind: u8, version: u16) -> Self {
        let mut writer = Writer { out: MAGIC.to_vec() };
        writer.out.push(kind);
        writer.out.extend_from_slice(&version.to_le_bytes());
        writer
    }

    pub(crate) fn u8(&mut self, value: u8) {
        self.out.push(value);
    }

    pub(crate) fn u64(&mut self, value: u64) {
        self.out.extend_from_slice(&value.to_le_bytes());
    }

    pub(crate) fn i64(&mut self, value: i64) {
        self.out.extend_from_slice(&value.to_le_bytes());
    }

    /// A length as u64.
    pub(crate) fn len(&mut self, value: usize) {
        self.u64(value as u64);
    }

    /// UTF-8 bytes after their length (u64).
    pub(crate) fn str(&mut self, value: &str) {
        self.len(value.len());
        self.out.extend_from_slice(value.as_bytes());
    }

    /// A count (u64), then each string.
    pub(crate) fn strs<S: AsRef<str>>(&mut self, values: &[S]) {
        self.len(values.len());
        for value in values {
            self.str(value.as_ref());
        }
    }

    /// [`ExactSum::to_bytes`].
    pub(crate) fn sum(&mut self, value: &ExactSum) {
        self.out.extend_from_slice(&value.to_bytes());
    }
}

/// Reads values back; every method fails (`None`) past the end or on a malformed value.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// Checks the header; returns the reader after it and the version.
    ///
    /// # Errors
    /// A message saying what was found instead of the header of `kind`.
    pub(crate) fn with_header(bytes: &'a [u8], kind: u8, what: &str) -> Result<(Self, u16), String> {
        if bytes.len() < 11 || &bytes[..8] != MAGIC {
            return Err(format!(
                "found no kgeval accumulator (the bytes do not start with {MAGIC:?}), expected {what}"
            ));
        }
        if bytes[8] != kind {
            return Err(format!("found an accumulator of kind {}, expected {what} (kind {kind})", bytes[8]));
        }
        let version = u16::from_le_bytes([bytes[9], bytes[10]]);
        Ok((Reader { bytes, at: 11 }, version))
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    pub(crate) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A length, refused when it exceeds the bytes left (each item takes at least one byte).
    pub(crate) fn len(&mut self) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n <= self.bytes.len() - self.at).then_some(n)
    }

    pub(crate) fn str(&mut self) -> Option<String> {
        let n = self.len()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }

    pub(crate) fn strs(&mut self) -> Option<Vec<String>> {
        let n = self.len()?;
        (0..n).map(|_| self.str()).collect()
    }

    pub(crate) fn sum(&mut self) -> Option<ExactSum> {
        let (sum, read) = ExactSum::from_bytes(&self.bytes[self.at..])?;
        self.at += read;
        Some(sum)
    }

    /// Whether every byte was read.
    pub(crate) fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}
