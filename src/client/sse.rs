//! Server-Sent Events as the client reads them: a byte stream split into the `data` of its
//! events.

/// Splits a Server-Sent Events byte stream into the `data` of its events.
#[derive(Default)]
pub struct SseSplitter {
    pending: Vec<u8>,
}

impl SseSplitter {
    /// Takes the next bytes; returns the data of every event they completed. Works on bytes,
    /// so a character split across chunks is decoded whole.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        // Lines may end with CRLF; JSON data never holds a raw CR.
        self.pending.extend(bytes.iter().filter(|b| **b != b'\r'));
        let mut out = Vec::new();
        while let Some(end) = self.pending.windows(2).position(|w| w == b"\n\n") {
            let block: Vec<u8> = self.pending.drain(..end + 2).collect();
            let block = String::from_utf8_lossy(&block[..end]);
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if !data.is_empty() {
                out.push(data.join("\n"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::SseSplitter;

    #[test]
    fn events_are_split_across_chunks_and_comments_skipped() {
        let mut s = SseSplitter::default();
        assert!(s.push(b": heartbeat\n\nid: 1\ndata: {\"a\"").is_empty());
        assert_eq!(
            s.push(b":1}\n\nid: 2\r\ndata: x\r\ndata: y\r\n\r\n"),
            [r#"{"a":1}"#, "x\ny"]
        );
        assert!(s.push(b"event: dropped\n").is_empty());
        assert_eq!(s.push(b"data:{}\n\n"), ["{}"]);
        // A character split across chunks arrives whole.
        let e = "data: é\n\n".as_bytes();
        assert!(s.push(&e[..7]).is_empty());
        assert_eq!(s.push(&e[7..]), ["é"]);
    }
}
