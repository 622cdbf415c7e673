//! Arrow IPC tables held in memory (a memory-mapped, decompressed or piped input), decoded in
//! place: each record batch's buffers are slices of the input, and every length the file
//! declares (footer, blocks, messages) is checked against the bytes there are before anything
//! is read — a malformed length is an error, never an allocation of its size.

use std::sync::Arc;

use arrow_buffer::Buffer;
use arrow_ipc::convert::fb_to_schema;
use arrow_ipc::reader::{read_footer_length, FileDecoder, StreamDecoder};
use arrow_ipc::{root_as_footer, Block};
use arrow_schema::{ArrowError, SchemaRef};

use super::files::Batches;

/// The IPC file format's magic bytes, at its start and end.
pub(crate) const IPC_FILE_MAGIC: &[u8; 6] = b"ARROW1";

/// The batches of an IPC table in `bytes`: the file format when it starts with its magic, the
/// stream format otherwise.
///
/// # Errors
/// A length or offset past the bytes, a footer or message that does not parse, a schema or
/// batch the decoder refuses.
pub(crate) fn ipc_batches(bytes: bytes::Bytes) -> Result<Batches, ArrowError> {
    let buffer = Buffer::from(bytes);
    if buffer.starts_with(IPC_FILE_MAGIC) {
        file_batches(buffer)
    } else {
        stream_batches(buffer)
    }
}

/// An error of the IPC input itself.
fn malformed(message: &str) -> ArrowError {
    ArrowError::ParseError(message.to_owned())
}

/// The file format: the footer (its length checked) names the schema and the blocks.
fn file_batches(buffer: Buffer) -> Result<Batches, ArrowError> {
    // Magic (6 bytes, padded to 8) … footer, footer length (4 bytes), magic (6 bytes).
    let trailer = buffer
        .len()
        .checked_sub(10)
        .filter(|&at| at >= 8)
        .ok_or_else(|| malformed("too short for an Arrow IPC file"))?;
    let trailer_bytes: [u8; 10] = buffer[trailer..].try_into().map_err(|_| malformed("no footer"))?;
    let footer_len = read_footer_length(trailer_bytes)?;
    let footer_start = trailer
        .checked_sub(footer_len)
        .filter(|&at| at >= 8)
        .ok_or_else(|| malformed("a footer longer than the file"))?;
    let footer = root_as_footer(&buffer[footer_start..trailer])
        .map_err(|e| ArrowError::ParseError(format!("the footer does not parse: {e}")))?;
    let ipc_schema = footer.schema().ok_or_else(|| malformed("the footer has no schema"))?;
    if !ipc_schema.endianness().equals_to_target_endianness() {
        return Err(malformed("a file of the other byte order"));
    }
    let schema: SchemaRef = Arc::new(fb_to_schema(ipc_schema));
    let mut decoder = FileDecoder::new(Arc::clone(&schema), footer.version());
    for block in footer.dictionaries().iter().flatten() {
        decoder.read_dictionary(block, &block_bytes(&buffer, footer_start, block)?)?;
    }
    let blocks: Vec<Block> = footer.recordBatches().map(|b| b.iter().copied().collect()).unwrap_or_default();
    let mut blocks = blocks.into_iter();
    let batches = std::iter::from_fn(move || loop {
        let block = blocks.next()?;
        match block_bytes(&buffer, footer_start, &block).and_then(|bytes| decoder.read_record_batch(&block, &bytes)) {
            Ok(Some(batch)) => return Some(Ok(batch)),
            Ok(None) => {}
            Err(e) => {
                blocks = Vec::new().into_iter();
                return Some(Err(e));
            }
        }
    });
    Ok(Batches { schema, batches: Box::new(batches) })
}

/// A block's bytes (its message and body): `Err` unless they lie within `buffer` before
/// `footer_start`.
fn block_bytes(buffer: &Buffer, footer_start: usize, block: &Block) -> Result<Buffer, ArrowError> {
    let offset = usize::try_from(block.offset()).ok();
    let len = usize::try_from(block.metaDataLength()).ok().zip(usize::try_from(block.bodyLength()).ok());
    match (offset, len) {
        (Some(offset), Some((meta, body)))
            if meta
                .checked_add(body)
                .and_then(|len| len.checked_add(offset))
                .is_some_and(|end| end <= footer_start) =>
        {
            Ok(buffer.slice_with_length(offset, meta + body))
        }
        _ => Err(malformed("a block outside the file")),
    }
}

/// The stream format: messages decoded from the buffer as it goes, a message or body longer
/// than what is left ending in an error at the end.
fn stream_batches(buffer: Buffer) -> Result<Batches, ArrowError> {
    let mut decoder = StreamDecoder::new();
    let mut rest = buffer;
    let first = decoder.decode(&mut rest)?;
    let schema = decoder.schema().ok_or_else(|| malformed("no schema message"))?;
    let mut first = first.map(Ok);
    let mut done = false;
    let batches = std::iter::from_fn(move || {
        if let Some(batch) = first.take() {
            return Some(batch);
        }
        if done {
            return None;
        }
        match decoder.decode(&mut rest) {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => {
                done = true;
                decoder.finish().err().map(Err)
            }
            Err(e) => {
                done = true;
                Some(Err(e))
            }
        }
    });
    Ok(Batches { schema, batches: Box::new(batches) })
}
