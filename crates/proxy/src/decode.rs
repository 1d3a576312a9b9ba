//! Recorded bodies for display: undoing `Content-Encoding` (gzip, deflate, br; several in
//! order) on the stored bytes, and telling text from binary. A body stored only up to the cap
//! decodes as far as its bytes go; the output is bounded too (a small body can inflate to a
//! lot), and what could not be decoded is said, never guessed.

use std::io::Read;

/// The most a stored body may inflate to for display.
pub const MAX_DECODED: usize = 16 * 1024 * 1024;

/// A body after decoding.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The bytes as far as decoding went (the stored ones when nothing could be undone).
    pub bytes: Vec<u8>,
    /// Every encoding was undone and the whole stored input used.
    pub complete: bool,
    /// Why decoding stopped short (an unknown encoding, a cut or corrupt stream).
    pub problem: Option<String>,
}

/// Undoes the encodings named by a `Content-Encoding` value (last applied first).
pub fn decode(bytes: &[u8], content_encoding: Option<&str>) -> Decoded {
    let encodings: Vec<String> = content_encoding
        .unwrap_or("")
        .split(',')
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty() && e != "identity")
        .collect();
    let mut out = Decoded {
        bytes: bytes.to_vec(),
        complete: true,
        problem: None,
    };
    for enc in encodings.iter().rev() {
        let input = std::mem::take(&mut out.bytes);
        let (bytes, problem) = match enc.as_str() {
            "gzip" | "x-gzip" => inflate(flate2::read::MultiGzDecoder::new(&input[..])),
            // `deflate` is zlib-wrapped by the standard, raw in some servers: try both.
            "deflate" => match inflate(flate2::read::ZlibDecoder::new(&input[..])) {
                (b, None) => (b, None),
                (b, Some(p)) => match inflate(flate2::read::DeflateDecoder::new(&input[..])) {
                    (raw, None) => (raw, None),
                    _ => (b, Some(p)),
                },
            },
            "br" => inflate(brotli_decompressor::Decompressor::new(&input[..], 4096)),
            other => {
                out.bytes = input;
                out.complete = false;
                out.problem = Some(format!("the `{other}` encoding is not decoded"));
                return out;
            }
        };
        out.bytes = bytes;
        if let Some(p) = problem {
            out.complete = false;
            out.problem = Some(format!("{enc}: {p}"));
            return out;
        }
    }
    out
}

/// Reads a decoder to its end, the error, or [`MAX_DECODED`]; keeps what came out.
fn inflate(mut r: impl Read) -> (Vec<u8>, Option<String>) {
    let mut out = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return (out, None),
            Ok(n) => {
                if out.len() + n > MAX_DECODED {
                    out.extend_from_slice(&buf[..MAX_DECODED - out.len()]);
                    return (out, Some(format!("cut at {MAX_DECODED} decoded bytes")));
                }
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let why = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    "the stored bytes end mid-stream".to_string()
                } else {
                    e.to_string()
                };
                return (out, Some(why));
            }
        }
    }
}

/// Whether a body of this content type (and these bytes) reads as text.
pub fn is_text(content_type: Option<&str>, bytes: &[u8]) -> bool {
    let mime = content_type
        .and_then(|c| c.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase());
    let textual = |m: &str| {
        m.starts_with("text/")
            || m.ends_with("+json")
            || m.ends_with("+xml")
            || [
                "application/json",
                "application/xml",
                "application/javascript",
                "application/x-www-form-urlencoded",
                "application/graphql",
                "application/x-ndjson",
            ]
            .contains(&m)
    };
    match mime {
        Some(m) if textual(&m) => true,
        // Unlabelled: text when it is UTF-8 without control bytes (a cut character at the
        // end is allowed).
        None => looks_like_text(bytes),
        Some(_) => false,
    }
}

fn looks_like_text(bytes: &[u8]) -> bool {
    let valid = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) if e.error_len().is_none() => match std::str::from_utf8(&bytes[..e.valid_up_to()]) {
            Ok(s) => s,
            Err(_) => return false,
        },
        Err(_) => return false,
    };
    !valid
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &str = "{\"items\": [1, 2, 3], \"note\": \"héllo\"}";

    fn gzip(b: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    }

    fn zlib(b: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    }

    fn raw_deflate(b: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn encodings_are_undone_in_order() {
        let d = decode(&gzip(TEXT.as_bytes()), Some("gzip"));
        assert_eq!((d.bytes.as_slice(), d.complete), (TEXT.as_bytes(), true));
        assert_eq!(
            decode(&zlib(TEXT.as_bytes()), Some("deflate")).bytes,
            TEXT.as_bytes()
        );
        assert_eq!(
            decode(&raw_deflate(TEXT.as_bytes()), Some("Deflate")).bytes,
            TEXT.as_bytes()
        );
        // gzip applied first, then deflate: undone deflate first.
        let twice = zlib(&gzip(TEXT.as_bytes()));
        let d = decode(&twice, Some("gzip, deflate"));
        assert_eq!((d.bytes.as_slice(), d.complete), (TEXT.as_bytes(), true));
        assert_eq!(decode(b"plain", Some("identity")).bytes, b"plain");
        assert_eq!(decode(b"plain", None).bytes, b"plain");
    }

    #[test]
    fn brotli_is_decoded() {
        // `brotli.compress(b"hello hello hello brotli", quality=11)` (Python brotli 1.2.1).
        let br: &[u8] = &[
            0x1b, 0x17, 0x00, 0xf8, 0x8d, 0x94, 0x6e, 0xde, 0x44, 0x55, 0x86, 0xd6, 0x6c, 0x20,
            0x69, 0x6f, 0xd3, 0x10, 0x49, 0xe2, 0xa9, 0x03, 0x56, 0x9a, 0x78, 0xb4, 0x68, 0x06,
        ];
        let d = decode(br, Some("br"));
        assert_eq!(d.problem, None);
        assert_eq!(
            String::from_utf8_lossy(&d.bytes),
            "hello hello hello brotli"
        );
    }

    #[test]
    fn a_cut_stream_decodes_as_far_as_it_goes_and_says_so() {
        let long: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let z = gzip(long.as_bytes());
        let d = decode(&z[..z.len() / 2], Some("gzip"));
        assert!(!d.complete);
        assert!(d.problem.as_deref().unwrap().contains("gzip"), "{d:?}");
        assert!(!d.bytes.is_empty() && long.as_bytes().starts_with(&d.bytes));
        let d = decode(b"xyz", Some("zstd"));
        assert_eq!((d.bytes.as_slice(), d.complete), (&b"xyz"[..], false));
        assert!(d.problem.unwrap().contains("zstd"));
    }

    #[test]
    fn a_bomb_is_cut() {
        let zeros = vec![0u8; MAX_DECODED + 4096];
        let d = decode(&gzip(&zeros), Some("gzip"));
        assert_eq!(d.bytes.len(), MAX_DECODED);
        assert!(!d.complete);
    }

    #[test]
    fn text_or_binary() {
        assert!(is_text(Some("application/json; charset=utf-8"), b"{}"));
        assert!(is_text(Some("application/problem+json"), b"{}"));
        assert!(is_text(Some("text/html"), b"<p>"));
        assert!(!is_text(Some("image/png"), b"\x89PNG"));
        assert!(is_text(None, "héllo\n".as_bytes()));
        // A character cut by the storage cap still reads as text.
        assert!(is_text(None, &"é".as_bytes()[..1]));
        assert!(!is_text(None, b"\x00\x01\x02"));
        assert!(!is_text(None, b"\xff\xfe"));
    }
}
