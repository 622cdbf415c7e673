//! `multipart/form-data` (RFC 7578) over a body already read within the upload limit: the
//! boundary from the `Content-Type`, then each part's `Content-Disposition` name and file
//! name and its bytes. Small and strict on purpose (the only client is a browser's form or
//! curl `-F`): no nested multipart, no `Content-Transfer-Encoding`, at most [`MAX_PARTS`]
//! parts and [`MAX_HEADERS`] bytes of headers per part. A client's file name is kept only to
//! be shown, never used as a path.

use memchr::memmem;

/// The most parts a form may have.
pub const MAX_PARTS: usize = 1000;

/// The most bytes of headers one part may have.
pub const MAX_HEADERS: usize = 8 << 10;

/// One part of a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Its field name.
    pub name: String,
    /// The client's file name, for a file field (shown, never used as a path).
    pub filename: Option<String>,
    /// Its bytes.
    pub body: Vec<u8>,
}

/// Why a body is not a well-formed form, one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("multipart/form-data: {0}")]
pub struct MultipartError(String);

fn error(message: impl Into<String>) -> MultipartError {
    MultipartError(message.into())
}

/// The `boundary` parameter of a `multipart/form-data` content type.
///
/// ```
/// use kgeval_server::multipart::boundary;
/// assert_eq!(boundary("multipart/form-data; boundary=\"a b\"").as_deref(), Some("a b"));
/// assert_eq!(boundary("multipart/form-data; charset=utf-8; boundary=xyz").as_deref(), Some("xyz"));
/// assert_eq!(boundary("text/plain; boundary=xyz"), None);
/// ```
#[must_use]
pub fn boundary(content_type: &str) -> Option<String> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    let boundary = parameters(params).into_iter().find(|(k, _)| k.eq_ignore_ascii_case("boundary"))?.1;
    (!boundary.is_empty() && boundary.len() <= 70).then_some(boundary)
}

/// `; key=value; key="quoted \" value"` parameters, keys as written.
fn parameters(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches([';', ' ', '\t']);
        let Some(eq) = rest.find('=') else { break };
        let key = rest[..eq].trim().to_owned();
        rest = &rest[eq + 1..];
        let value = if let Some(quoted) = rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            rest = &quoted[end.min(quoted.len())..];
            value
        } else {
            let end = rest.find(';').unwrap_or(rest.len());
            let value = rest[..end].trim().to_owned();
            rest = &rest[end..];
            value
        };
        out.push((key, value));
    }
    out
}

/// Every part of `body` delimited by `boundary`, in order.
///
/// ```
/// use kgeval_server::multipart::parse;
/// let body = b"--X\r\nContent-Disposition: form-data; name=\"task\"\r\n\r\nadhoc\r\n\
///              --X\r\nContent-Disposition: form-data; name=\"file\"; filename=\"run.txt\"\r\n\
///              Content-Type: text/plain\r\n\r\n301 Q0 d 1 1 r\n\r\n--X--\r\n";
/// let parts = parse(body, "X")?;
/// assert_eq!((parts[0].name.as_str(), parts[0].body.as_slice()), ("task", &b"adhoc"[..]));
/// assert_eq!(parts[1].filename.as_deref(), Some("run.txt"));
/// assert_eq!(parts[1].body, b"301 Q0 d 1 1 r\n");
/// # Ok::<(), kgeval_server::multipart::MultipartError>(())
/// ```
///
/// # Errors
/// No opening boundary, a part without a closing boundary, headers over [`MAX_HEADERS`], a
/// part without `Content-Disposition: form-data; name=…`, more than [`MAX_PARTS`] parts.
pub fn parse(body: &[u8], boundary: &str) -> Result<Vec<Part>, MultipartError> {
    let opening = format!("--{boundary}");
    let delimiter = format!("\r\n--{boundary}");
    let finder = memmem::Finder::new(delimiter.as_bytes());
    let mut at = if body.starts_with(opening.as_bytes()) {
        opening.len()
    } else {
        finder.find(body).ok_or_else(|| error("found no opening boundary"))? + delimiter.len()
    };
    let mut parts = Vec::new();
    loop {
        let rest = &body[at..];
        if rest.starts_with(b"--") {
            return Ok(parts);
        }
        let rest = rest
            .strip_prefix(b"\r\n")
            .ok_or_else(|| error(format!("found {:?} after a boundary, expected a line break", snippet(rest))))?;
        if parts.len() == MAX_PARTS {
            return Err(error(format!("found more than {MAX_PARTS} parts")));
        }
        let head_end = memmem::find(&rest[..rest.len().min(MAX_HEADERS + 4)], b"\r\n\r\n")
            .ok_or_else(|| error(format!("found a part whose headers do not end within {MAX_HEADERS} bytes")))?;
        let head = std::str::from_utf8(&rest[..head_end]).map_err(|_| error("found headers that are not UTF-8"))?;
        let (name, filename) = disposition(head)?;
        let content = &rest[head_end + 4..];
        let end =
            finder.find(content).ok_or_else(|| error(format!("found part {name:?} without a closing boundary")))?;
        parts.push(Part { name, filename, body: content[..end].to_vec() });
        at = body.len() - content.len() + end + delimiter.len();
    }
}

/// The field name and file name of a part's headers.
fn disposition(head: &str) -> Result<(String, Option<String>), MultipartError> {
    for line in head.split("\r\n") {
        let Some((key, value)) = line.split_once(':') else { continue };
        if !key.trim().eq_ignore_ascii_case("content-disposition") {
            continue;
        }
        let (kind, params) = value.split_once(';').unwrap_or((value, ""));
        if !kind.trim().eq_ignore_ascii_case("form-data") {
            return Err(error(format!("found Content-Disposition {:?}, expected form-data", kind.trim())));
        }
        let params = parameters(params);
        let get = |k: &str| params.iter().find(|(key, _)| key.eq_ignore_ascii_case(k)).map(|(_, v)| v.clone());
        let name = get("name").ok_or_else(|| error("found a part without a name"))?;
        return Ok((name, get("filename")));
    }
    Err(error("found a part without Content-Disposition"))
}

/// The first bytes of `rest`, for a message.
fn snippet(rest: &[u8]) -> String {
    String::from_utf8_lossy(&rest[..rest.len().min(16)]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{boundary, parse, MAX_PARTS};

    #[test]
    fn forms_as_browsers_and_curl_send_them() {
        // A preamble, a quoted boundary, an empty file, a file name with a quote and a path.
        let body = b"preamble\r\n--b\r\ncontent-disposition: form-data; name=\"token\"\r\n\r\nabc\r\n\
                     --b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"..\\\\x\\\".txt\"\r\n\r\n\r\n\
                     --b--";
        let parts = parse(body, "b").expect("a form");
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].body, b"abc");
        assert_eq!(parts[1].filename.as_deref(), Some("..\\x\".txt"));
        assert!(parts[1].body.is_empty());
        assert_eq!(
            boundary("Multipart/Form-Data; boundary=----WebKitFormBoundaryQ").as_deref(),
            Some("----WebKitFormBoundaryQ")
        );
    }

    #[test]
    fn malformed_forms_are_one_line_errors() {
        let error = |body: &[u8]| parse(body, "b").expect_err("malformed").to_string();
        assert_eq!(error(b"no boundary"), "multipart/form-data: found no opening boundary");
        assert!(error(b"--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end").contains("without a closing"));
        assert!(error(b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--").contains("without Content-Disposition"));
        assert!(error(b"--b\r\nContent-Disposition: attachment\r\n\r\nx\r\n--b--").contains("expected form-data"));
        assert!(error(b"--bXY").contains("expected a line break"));
        let many = "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n".repeat(MAX_PARTS + 1) + "--b--";
        assert!(error(many.as_bytes()).contains("more than 1000 parts"));
        let long = format!("--b\r\nX: {}\r\n\r\nx\r\n--b--", "y".repeat(9000));
        assert!(error(long.as_bytes()).contains("do not end within"));
    }
}
