//! Team tokens: 256 random bits from the operating system (getrandom), shown once as 64 hex
//! digits, stored only as their SHA-256, compared in constant time.

use sha2::{Digest as _, Sha256};

use crate::Error;

/// A new token: 32 random bytes as 64 lower-case hex digits.
///
/// # Errors
/// [`Error::Io`] when the operating system gives no randomness.
pub fn new_token() -> Result<String, Error> {
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::Io(format!("no randomness from the operating system: {e}")))?;
    Ok(hex(&bytes))
}

/// The SHA-256 of a token as it is stored.
#[must_use]
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.trim().as_bytes()).into()
}

/// Whether two hashes are equal, in time independent of where they differ.
#[must_use]
pub fn same_hash(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let difference = a.iter().zip(b).fold(0_u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

/// Lower-case hex digits of `bytes`.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    out
}

/// The SHA-256 of `bytes` in hex.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::{new_token, same_hash, sha256_hex, token_hash};

    #[test]
    fn tokens_are_random_and_hashed() {
        let (a, b) = (new_token().expect("a token"), new_token().expect("a token"));
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        assert!(same_hash(&token_hash(&a), &token_hash(&a)));
        assert!(!same_hash(&token_hash(&a), &token_hash(&b)));
        assert!(!same_hash(&token_hash(&a), &[0; 31]));
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
