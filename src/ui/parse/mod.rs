//! Parsers from native dumps to the canonical [`Tree`]: kind detection, dispatch, the error
//! type and small shared helpers (lenient entity decoding, bounds and frame strings, booleans).
//! Every parser builds the tree iteratively: nesting depth never grows the call stack.

mod axe;
mod idb;
mod uiautomator;
mod wda;
mod xml;

pub(crate) use uiautomator::{is_ime_package, is_system_ui_package};

use super::model::{DumpKind, Rect, Tree};
use std::borrow::Cow;

/// Inputs larger than this are refused before parsing.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// Why a dump could not be turned into a tree.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    /// Nothing but whitespace (or a byte-order mark).
    #[error("the dump is empty")]
    Empty,
    /// Not any of the dump kinds mobilectl reads.
    #[error(
        "the dump is not a recognised UI dump (uiautomator/Appium XML, AXe/idb JSON, WDA XML/JSON)"
    )]
    UnknownFormat,
    /// Larger than [`MAX_INPUT_BYTES`]; its size in bytes.
    #[error("the dump is {0} bytes, more than the {MAX_INPUT_BYTES} allowed")]
    TooLarge(usize),
    /// XML that does not parse.
    #[error("malformed XML at byte {pos}: {msg}")]
    Xml {
        /// Byte offset of the fault in the input.
        pos: u64,
        /// The XML reader's message.
        msg: String,
    },
    /// JSON that does not parse; the JSON reader's message.
    #[error("malformed JSON: {0}")]
    Json(String),
    /// The input ends inside an element.
    #[error("the dump ends before its elements are closed (truncated?)")]
    Truncated,
    /// A well-formed dump without a single element.
    #[error("the dump holds no UI elements")]
    NoElements,
}

/// Guesses the kind of a dump from its content (not its file name).
pub fn detect_kind(text: &str) -> Option<DumpKind> {
    let t = strip_bom(text).trim_start();
    let head: &str = &t[..floor_char_boundary(t, 4096)];
    if t.starts_with('<') {
        // The first elements decide: WDA starts with XCUIElementTypeApplication (possibly in
        // an <AppiumAUT> wrapper), uiautomator with <hierarchy><node, Appium with class tags.
        if head.contains("<XCUIElementType") {
            Some(DumpKind::WdaXml)
        } else if head.contains("<hierarchy") || head.contains("<node") {
            if head.contains("<node") {
                Some(DumpKind::Uiautomator)
            } else {
                Some(DumpKind::AppiumSource)
            }
        } else {
            None
        }
    } else if t.starts_with('{') || t.starts_with('[') {
        if t.contains("\"AXFrame\"") || t.contains("\"AXLabel\"") {
            // AXe nests `children`; idb describe-all is flat (describe-point: one object).
            if t.contains("\"children\"") {
                Some(DumpKind::Axe)
            } else {
                Some(DumpKind::Idb)
            }
        } else if t.contains("XCUIElementType") || t.contains("\"UIA") || t.contains("\"rect\"") {
            Some(DumpKind::WdaJson)
        } else {
            None
        }
    } else {
        None
    }
}

/// Parses a dump of a known kind.
pub fn parse(kind: DumpKind, text: &str) -> Result<Tree, ParseError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(ParseError::TooLarge(text.len()));
    }
    let t = strip_bom(text).trim();
    if t.is_empty() {
        return Err(ParseError::Empty);
    }
    let mut tree = match kind {
        DumpKind::Uiautomator | DumpKind::AppiumSource => uiautomator::parse(kind, t)?,
        DumpKind::WdaXml => wda::parse_xml(t)?,
        DumpKind::WdaJson => wda::parse_json(t)?,
        DumpKind::Axe => axe::parse(t)?,
        DumpKind::Idb => idb::parse(t)?,
    };
    if tree.nodes.is_empty() {
        return Err(ParseError::NoElements);
    }
    tree.infer_screen();
    Ok(tree)
}

/// Detects the kind, then parses.
pub fn parse_any(text: &str) -> Result<Tree, ParseError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(ParseError::TooLarge(text.len()));
    }
    if strip_bom(text).trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let kind = detect_kind(text).ok_or(ParseError::UnknownFormat)?;
    parse(kind, text)
}

fn strip_bom(s: &str) -> &str {
    s.strip_prefix('\u{feff}').unwrap_or(s)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Decodes XML entities and character references; never fails. Unknown entities are kept
/// verbatim, UTF-16 surrogate pairs written as two references are joined, lone surrogates
/// and invalid code points become U+FFFD.
pub(crate) fn unescape(raw: &str) -> Cow<'_, str> {
    if !raw.contains('&') {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    let mut pending_high: Option<u32> = None;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let Some(semi) = after.find(';').filter(|&s| s <= 12) else {
            flush_high(&mut out, &mut pending_high);
            out.push('&');
            rest = after;
            continue;
        };
        let ent = &after[..semi];
        let code = if let Some(hex) = ent.strip_prefix("#x").or_else(|| ent.strip_prefix("#X")) {
            u32::from_str_radix(hex, 16).ok()
        } else if let Some(dec) = ent.strip_prefix('#') {
            dec.parse::<u32>().ok()
        } else {
            None
        };
        match code {
            Some(c) if (0xD800..0xDC00).contains(&c) => {
                flush_high(&mut out, &mut pending_high);
                pending_high = Some(c);
            }
            Some(c) if (0xDC00..0xE000).contains(&c) => match pending_high.take() {
                Some(h) => {
                    let cp = 0x10000 + ((h - 0xD800) << 10) + (c - 0xDC00);
                    out.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                }
                None => out.push('\u{fffd}'),
            },
            Some(c) => {
                flush_high(&mut out, &mut pending_high);
                out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
            }
            None => {
                flush_high(&mut out, &mut pending_high);
                match ent {
                    "amp" => out.push('&'),
                    "lt" => out.push('<'),
                    "gt" => out.push('>'),
                    "quot" => out.push('"'),
                    "apos" => out.push('\''),
                    _ => {
                        out.push('&');
                        out.push_str(ent);
                        out.push(';');
                    }
                }
            }
        }
        rest = &after[semi + 1..];
    }
    flush_high(&mut out, &mut pending_high);
    out.push_str(rest);
    Cow::Owned(out)
}

fn flush_high(out: &mut String, h: &mut Option<u32>) {
    if h.take().is_some() {
        out.push('\u{fffd}');
    }
}

/// The attributes of a start tag as `(name, raw value)` pairs, values still escaped. A fast
/// path for the well-formed `name="value"` / `name='value'` lists every dump uses; it stops
/// at the first malformed attribute (the rest of that tag is ignored, never a panic).
pub(crate) fn attrs<'a>(doc: &'a str, e: &'a quick_xml::events::BytesStart<'_>) -> AttrIter<'a> {
    let raw = e.attributes_raw();
    // The tag borrows from `doc`: slice the document instead of validating UTF-8 again.
    let start = (raw.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize);
    let s = doc
        .get(start..start.wrapping_add(raw.len()))
        .filter(|s| s.as_ptr() == raw.as_ptr())
        .or_else(|| std::str::from_utf8(raw).ok())
        .unwrap_or("");
    AttrIter { s }
}

pub(crate) struct AttrIter<'a> {
    s: &'a str,
}

impl<'a> Iterator for AttrIter<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let s = self.s;
        let b = s.as_bytes();
        let eq = b.iter().position(|&c| c == b'=')?;
        let key = s[..eq].trim_ascii();
        let mut i = eq + 1;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let q = *b.get(i).filter(|&&c| c == b'"' || c == b'\'')?;
        let start = i + 1;
        let len = b[start..].iter().position(|&c| c == q)?;
        self.s = &s[start + len + 1..];
        Some((key, &s[start..start + len]))
    }
}

/// `"true"`/`"1"`/`"yes"` → true; anything else false.
pub(crate) fn truthy(v: &str) -> bool {
    matches!(v, "true" | "1") || matches!(v.trim(), "true" | "1" | "yes" | "TRUE" | "True")
}

/// Android bounds `"[l,t][r,b]"` → rectangle; `None` when malformed.
pub(crate) fn android_bounds(s: &str) -> Option<Rect> {
    let s = s.trim();
    let s = s.strip_prefix('[')?.strip_suffix(']')?;
    let (a, b) = s.split_once("][")?;
    let (l, t) = a.split_once(',')?;
    let (r, btm) = b.split_once(',')?;
    let l: f64 = l.trim().parse().ok()?;
    let t: f64 = t.trim().parse().ok()?;
    let r: f64 = r.trim().parse().ok()?;
    let btm: f64 = btm.trim().parse().ok()?;
    let rect = Rect::new(l, t, r - l, btm - t);
    (rect.x.is_finite() && rect.y.is_finite() && rect.w.is_finite() && rect.h.is_finite())
        .then_some(rect)
}

/// Cocoa frame strings `"{{x, y}, {w, h}}"` (optionally prefixed, e.g. `"NSRect: "`).
pub(crate) fn frame_string(s: &str) -> Option<Rect> {
    let start = s.find("{{")?;
    let nums: Vec<f64> = s[start..]
        .split(['{', '}', ','])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| p.parse::<f64>())
        .collect::<Result<_, _>>()
        .ok()?;
    match nums.as_slice() {
        [x, y, w, h] => Some(Rect::new(*x, *y, *w, *h)),
        _ => None,
    }
}

/// Returns `Some(s)` when `s` has non-whitespace content.
pub(crate) fn non_empty(s: impl Into<String>) -> Option<String> {
    let s = s.into();
    (!s.trim().is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_entities_and_surrogates() {
        assert_eq!(unescape("a &amp; b"), "a & b");
        assert_eq!(unescape("&#129293;"), "\u{1F90D}");
        assert_eq!(unescape("&#x1F600;"), "😀");
        assert_eq!(unescape("&#55357;&#56832;"), "😀");
        assert_eq!(unescape("&#55357;x"), "\u{fffd}x");
        assert_eq!(unescape("&nbsp; &"), "&nbsp; &");
        assert_eq!(unescape("&lt;&gt;&quot;&apos;"), "<>\"'");
    }

    #[test]
    fn attribute_scanner() {
        let mut r =
            quick_xml::Reader::from_str("<node a=\"1\" b = 'x \"y\"' c=\"&amp;\" broken d=\"2\"/>");
        let ev = r.read_event().unwrap();
        let quick_xml::events::Event::Empty(e) = ev else {
            panic!("{ev:?}")
        };
        let v: Vec<_> = attrs("", &e).collect();
        assert_eq!(v[0], ("a", "1"));
        assert_eq!(v[1], ("b", "x \"y\""));
        assert_eq!(v[2], ("c", "&amp;"));
        assert_eq!(v[3], ("broken d", "2"));
        let mut r = quick_xml::Reader::from_str("<node a=1 b=\"2\"/>");
        let quick_xml::events::Event::Empty(e) = r.read_event().unwrap() else {
            panic!()
        };
        assert_eq!(attrs("", &e).count(), 0);
    }

    #[test]
    fn bounds_and_frames() {
        assert_eq!(
            android_bounds("[0,72][1080,1167]"),
            Some(Rect::new(0.0, 72.0, 1080.0, 1095.0))
        );
        assert_eq!(
            android_bounds("[-5,-2][10,10]"),
            Some(Rect::new(-5.0, -2.0, 15.0, 12.0))
        );
        assert_eq!(android_bounds("[0,0][10"), None);
        assert_eq!(android_bounds(""), None);
        assert_eq!(
            frame_string("NSRect: {{-35.98201, -64}, {446.96402, 795}}"),
            Some(Rect::new(-35.98201, -64.0, 446.96402, 795.0))
        );
        assert_eq!(frame_string("{{1, 2}, {3}}"), None);
    }

    #[test]
    fn detects_kinds() {
        assert_eq!(
            detect_kind("<?xml?><hierarchy rotation=\"0\"><node/></hierarchy>"),
            Some(DumpKind::Uiautomator)
        );
        assert_eq!(
            detect_kind("<hierarchy><android.widget.FrameLayout/></hierarchy>"),
            Some(DumpKind::AppiumSource)
        );
        assert_eq!(
            detect_kind("<XCUIElementTypeApplication/>"),
            Some(DumpKind::WdaXml)
        );
        assert_eq!(
            detect_kind("[{\"AXFrame\":\"\",\"children\":[]}]"),
            Some(DumpKind::Axe)
        );
        assert_eq!(detect_kind("[{\"AXFrame\":\"\"}]"), Some(DumpKind::Idb));
        assert_eq!(detect_kind("hello"), None);
    }
}
