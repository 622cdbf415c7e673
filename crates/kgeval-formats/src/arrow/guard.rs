//! The Parquet and Arrow IPC decoders (arrow-rs) can panic on a malformed file (an `unimplemented!`
//! for an unknown type id in an embedded schema, an index out of range): every call into them
//! runs through [`guarded`], which turns a panic into an error naming what the decoder said,
//! and keeps the panic's own report off standard error so a bad input still gives one line.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use arrow_array::RecordBatch;
use arrow_schema::ArrowError;

thread_local! {
    /// Set while this thread runs a guarded decoder call: its panics are not reported.
    static DECODING: Cell<bool> = const { Cell::new(false) };
}

/// Installs, once per process, a panic hook that stays silent for a guarded decoder call and
/// hands every other panic to the hook that was there before.
fn install_quiet_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !DECODING.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `decode`; `Err` with the panic's message when it panics.
pub(crate) fn guarded<T>(decode: impl FnOnce() -> T) -> Result<T, String> {
    install_quiet_hook();
    let was = DECODING.with(|d| d.replace(true));
    let outcome = catch_unwind(AssertUnwindSafe(decode));
    DECODING.with(|d| d.set(was));
    outcome.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_owned());
        format!("the decoder failed: {message}")
    })
}

/// A decoder's batches, each read through [`guarded`]: a panic becomes an error item, and
/// the decoder, whose state is then unknown, is not called again.
pub(crate) struct GuardedBatches<I> {
    /// The decoder, until it panics.
    pub(crate) inner: Option<I>,
}

impl<I: Iterator<Item = Result<RecordBatch, ArrowError>>> Iterator for GuardedBatches<I> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        match guarded(|| inner.next()) {
            Ok(item) => item,
            Err(message) => {
                self.inner = None;
                Some(Err(ArrowError::ParseError(message)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_decoder_is_an_error_item_and_is_not_called_again() {
        assert_eq!(guarded(|| 7), Ok(7));
        assert_eq!(
            guarded(|| -> u8 { panic!("Type NONE not supported") }),
            Err("the decoder failed: Type NONE not supported".to_owned())
        );
        let mut calls = 0;
        let decoder = std::iter::from_fn(|| {
            calls += 1;
            if calls == 2 {
                panic!("index out of bounds: {calls}");
            }
            Some(Ok(RecordBatch::new_empty(std::sync::Arc::new(arrow_schema::Schema::empty()))))
        });
        let items: Vec<_> = GuardedBatches { inner: Some(decoder) }.collect();
        assert_eq!(items.len(), 2);
        assert!(items[0].is_ok());
        assert_eq!(
            items[1].as_ref().unwrap_err().to_string(),
            "Parser error: the decoder failed: index out of bounds: 2"
        );
        // Outside a guarded call, panics reach the previous hook again.
        assert!(!DECODING.with(Cell::get));
    }
}
