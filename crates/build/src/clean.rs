//! What a line of build output is once the transport's decorations are gone: a UTF-8 BOM, a
//! carriage return (and what a progress bar wrote before the last one), ANSI colour and
//! control sequences, GitHub Actions' ISO-timestamp prefix. Also how much of a line is kept.

/// The most of one line that is read (bytes); the rest of a longer line is dropped.
pub const MAX_LINE: usize = 16 * 1024;
/// The most of a message or a phase detail that is kept (bytes).
pub const MAX_MESSAGE: usize = 4 * 1024;

/// The line as the tool wrote it.
pub fn line(raw: &str) -> String {
    let raw = cap(raw, MAX_LINE);
    let raw = raw.strip_prefix('\u{feff}').unwrap_or(raw);
    let raw = raw.trim_end_matches(['\r', '\n']);
    // A progress bar rewrites the line after each '\r': what shows is what came last.
    let raw = match raw.rfind('\r') {
        Some(at) => &raw[at + 1..],
        None => raw,
    };
    let text = strip_ansi(raw);
    let text = strip_timestamp(&text);
    text.strip_prefix('\u{feff}').unwrap_or(text).to_string()
}

/// At most `max` bytes of `text`, cut on a character boundary.
pub fn cap(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `text` without ESC sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL` or `ESC \`) and
/// two-character escapes.
fn strip_ansi(text: &str) -> String {
    if !text.contains('\u{1b}') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                // Parameters and intermediates, then one final byte in '@'..='~'.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `text` without a leading `2024-05-01T10:00:00.1234567Z ` (GitHub Actions' raw logs).
fn strip_timestamp(text: &str) -> &str {
    let b = text.as_bytes();
    let digits =
        |mut range: std::ops::Range<usize>| range.all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    let shape = digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && b.get(10) == Some(&b'T')
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19);
    if !shape {
        return text;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if b.get(i) == Some(&b'Z') && b.get(i + 1) == Some(&b' ') {
        &text[i + 2..]
    } else if b.get(i) == Some(&b'Z') && i + 1 == b.len() {
        ""
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_pass_unchanged() {
        assert_eq!(
            line("> Task :app:preBuild UP-TO-DATE"),
            "> Task :app:preBuild UP-TO-DATE"
        );
        assert_eq!(line("  indented"), "  indented");
        assert_eq!(line(""), "");
    }

    #[test]
    fn bom_and_carriage_return_go() {
        assert_eq!(
            line("\u{feff}2025-10-31T22:32:58.1953088Z Current runner version: '2.329.0'"),
            "Current runner version: '2.329.0'"
        );
        assert_eq!(line("BUILD SUCCESSFUL in 3s\r"), "BUILD SUCCESSFUL in 3s");
        assert_eq!(line("10%\r20%\r100%\r"), "100%");
    }

    #[test]
    fn ansi_sequences_go() {
        assert_eq!(
            line("\u{1b}[1m\u{1b}[31merror:\u{1b}[0m boom"),
            "error: boom"
        );
        assert_eq!(
            line("\u{1b}]8;;file:///x\u{7}link\u{1b}]8;;\u{7} text"),
            "link text"
        );
        assert_eq!(
            line("\u{1b}[2K\u{1b}[1A> Task :app:compileDebugKotlin"),
            "> Task :app:compileDebugKotlin"
        );
    }

    #[test]
    fn actions_timestamps_go_but_not_other_dates() {
        assert_eq!(
            line("2024-05-01T10:00:00.1234567Z e: file:///a.kt:1:2 x"),
            "e: file:///a.kt:1:2 x"
        );
        assert_eq!(
            line("2024-05-01T10:00:00Z ** BUILD FAILED **"),
            "** BUILD FAILED **"
        );
        assert_eq!(line("2024-05-01T10:00:00.1Z"), "");
        assert_eq!(
            line("2020-05-29 17:09:16.044 xcodebuild[11893:1049921] [MT] IDEBuildOperationTiming"),
            "2020-05-29 17:09:16.044 xcodebuild[11893:1049921] [MT] IDEBuildOperationTiming"
        );
    }

    #[test]
    fn huge_lines_are_capped_on_a_char_boundary() {
        let long = "é".repeat(MAX_LINE);
        let got = line(&long);
        assert!(got.len() <= MAX_LINE);
        assert!(got.chars().all(|c| c == 'é'));
        assert_eq!(cap("abcdef", 3), "abc");
        assert_eq!(cap("aé", 2), "a");
    }
}
