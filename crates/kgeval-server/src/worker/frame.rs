//! The frames a worker process and the server exchange over the worker's standard input and
//! output: a JSON header (`u32` little-endian length, then the bytes) and, for a request, the
//! upload's bytes (`u64` little-endian length, then the bytes). The server writes requests and
//! reads answers asynchronously; the worker reads and writes them with blocking calls.

use std::io::{self, Read, Write};

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

/// The longest header accepted (a score's headlines and per-item values: a QALD task's
/// thousands of items fit many times over).
pub const MAX_HEADER: u32 = 256 << 20;

fn too_long(length: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("found a frame of {length} bytes, expected at most {MAX_HEADER}"),
    )
}

fn json_error(e: &serde_json::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("found a frame that is not the expected JSON: {e}"))
}

/// Writes `header` as one frame (blocking).
///
/// # Errors
/// The pipe is closed; `header` does not serialise.
pub fn write_header(out: &mut impl Write, header: &impl Serialize) -> io::Result<()> {
    let json = serde_json::to_vec(header).map_err(|e| json_error(&e))?;
    let length = u32::try_from(json.len()).map_err(|_| too_long(json.len() as u64))?;
    out.write_all(&length.to_le_bytes())?;
    out.write_all(&json)?;
    out.flush()
}

/// Reads one header frame (blocking); `None` at the end of the input before a frame starts.
///
/// # Errors
/// The input ends inside a frame; a frame too long or not the expected JSON.
pub fn read_header<T: DeserializeOwned>(input: &mut impl Read) -> io::Result<Option<T>> {
    let mut length = [0_u8; 4];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = u32::from_le_bytes(length);
    if length > MAX_HEADER {
        return Err(too_long(length.into()));
    }
    let mut json = vec![0_u8; length as usize];
    input.read_exact(&mut json)?;
    serde_json::from_slice(&json).map(Some).map_err(|e| json_error(&e))
}

/// Reads the bytes that follow a request's header (blocking), at most `max` of them, straight
/// into the shared buffer an [`kgeval::Input`] holds (one allocation, no copy after).
///
/// # Errors
/// The input ends early; more than `max` bytes are announced.
pub fn read_payload(input: &mut impl Read, max: u64) -> io::Result<std::sync::Arc<[u8]>> {
    let mut length = [0_u8; 8];
    input.read_exact(&mut length)?;
    let length = u64::from_le_bytes(length);
    if length > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("found an upload of {length} bytes, expected at most {max}"),
        ));
    }
    let length = usize::try_from(length).map_err(|_| too_long(length))?;
    // Collected from an iterator of known length, the slice is allocated once, in place.
    let mut bytes: std::sync::Arc<[u8]> = std::iter::repeat_n(0_u8, length).collect();
    let buffer = std::sync::Arc::get_mut(&mut bytes).ok_or_else(|| io::Error::other("a shared new buffer"))?;
    input.read_exact(buffer)?;
    Ok(bytes)
}

/// Writes a request: its header, then `payload` (asynchronously).
///
/// # Errors
/// The pipe is closed (the worker died).
pub async fn send_request(
    out: &mut (impl AsyncWrite + Unpin),
    header: &impl Serialize,
    payload: &[u8],
) -> io::Result<()> {
    let json = serde_json::to_vec(header).map_err(|e| json_error(&e))?;
    let length = u32::try_from(json.len()).map_err(|_| too_long(json.len() as u64))?;
    out.write_all(&length.to_le_bytes()).await?;
    out.write_all(&json).await?;
    out.write_all(&(payload.len() as u64).to_le_bytes()).await?;
    out.write_all(payload).await?;
    out.flush().await
}

/// Reads one header frame (asynchronously).
///
/// # Errors
/// The pipe is closed (the worker died); a frame too long or not the expected JSON.
pub async fn receive<T: DeserializeOwned>(input: &mut (impl AsyncRead + Unpin)) -> io::Result<T> {
    let mut length = [0_u8; 4];
    input.read_exact(&mut length).await?;
    let length = u32::from_le_bytes(length);
    if length > MAX_HEADER {
        return Err(too_long(length.into()));
    }
    let mut json = vec![0_u8; length as usize];
    input.read_exact(&mut json).await?;
    serde_json::from_slice(&json).map_err(|e| json_error(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Probe {
        task: String,
        n: u32,
    }

    #[test]
    fn a_header_and_its_payload_read_back_as_written() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        let mut wire = Vec::new();
        let probe = Probe { task: "t1".into(), n: 7 };
        runtime.block_on(send_request(&mut wire, &probe, b"abc")).expect("written");
        let mut input = &wire[..];
        let read: Probe = read_header(&mut input).expect("read").expect("a frame");
        assert_eq!(read, probe);
        assert_eq!(&read_payload(&mut input, 3).expect("payload")[..], b"abc");
        assert!(read_header::<Probe>(&mut input).expect("end").is_none(), "the end of the input is no frame");
    }

    #[test]
    fn a_payload_over_the_limit_and_a_cut_frame_are_errors() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        let mut wire = Vec::new();
        runtime.block_on(send_request(&mut wire, &Probe { task: "t".into(), n: 1 }, b"abcd")).expect("written");
        let mut input = &wire[..];
        let _: Probe = read_header(&mut input).expect("read").expect("a frame");
        let error = read_payload(&mut input, 3).expect_err("over the limit");
        assert!(error.to_string().contains("found an upload of 4 bytes, expected at most 3"), "{error}");
        let mut cut = &wire[..6];
        assert!(read_header::<Probe>(&mut cut).is_err(), "a frame cut in its JSON");
        let mut reply = Vec::new();
        write_header(&mut reply, &Probe { task: "x".into(), n: 2 }).expect("written");
        let read: Probe = runtime.block_on(receive(&mut &reply[..])).expect("read");
        assert_eq!(read.n, 2);
    }
}
