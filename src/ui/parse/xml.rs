//! The XML event loop the XML dump parsers share (uiautomator/Appium and WDA `/source`): it
//! reads the document with quick-xml, keeps the stack of open tags, hands every start tag to
//! the parser with where it stands, and stops at the end of the document element. Each parser
//! keeps only the mapping of its tags and attributes onto the canonical tree.

use super::ParseError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// Where a start tag stands in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    /// How many tags enclose it: 0 for the document element.
    pub depth: usize,
    /// The nearest enclosing tag that became a tree node.
    pub parent: Option<usize>,
}

/// Walks the document element of `text`, calling `open` for each start or empty tag in
/// document order. `open` answers the tree node the tag became, or `None` for a wrapper (such
/// as `<hierarchy>`), whose children then hang from the wrapper's own parent. Content after
/// the document element is not read. Answers whether any tag was seen; a closing tag without
/// its opening one is malformed, a document that ends with tags open is truncated.
pub(super) fn walk<'a>(
    text: &'a str,
    mut open: impl FnMut(&BytesStart<'a>, Place) -> Option<usize>,
) -> Result<bool, ParseError> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(true);
    // `Some(i)` for a tag that became node `i`, `None` for a wrapper.
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut saw_tag = false;
    loop {
        let ev = reader.read_event().map_err(|e| ParseError::Xml {
            pos: reader.buffer_position(),
            msg: e.to_string(),
        })?;
        match ev {
            Event::Start(e) => {
                saw_tag = true;
                let node = open(&e, place(&stack));
                stack.push(node);
            }
            Event::Empty(e) => {
                saw_tag = true;
                open(&e, place(&stack));
            }
            Event::End(_) => {
                if stack.pop().is_none() {
                    return Err(ParseError::Xml {
                        pos: reader.buffer_position(),
                        msg: "unexpected closing tag".into(),
                    });
                }
                if stack.is_empty() {
                    break; // the document element is closed; anything after it is not the dump
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(ParseError::Truncated);
    }
    Ok(saw_tag)
}

fn place(stack: &[Option<usize>]) -> Place {
    Place {
        depth: stack.len(),
        parent: stack.iter().rev().find_map(|s| *s),
    }
}

/// The name of a tag, `""` when it is not UTF-8.
pub(super) fn tag_name<'a>(e: &'a BytesStart<'_>) -> &'a str {
    std::str::from_utf8(e.name().into_inner()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records each tag's name and place; tags named `wrap` are wrappers.
    fn tags(text: &str) -> Result<(bool, Vec<(String, Place)>), ParseError> {
        let mut seen = Vec::new();
        let saw = walk(text, |e, at| {
            let name = tag_name(e).to_string();
            let node = (name != "wrap").then_some(seen.len());
            seen.push((name, at));
            node
        })?;
        Ok((saw, seen))
    }

    fn at(depth: usize, parent: Option<usize>) -> Place {
        Place { depth, parent }
    }

    #[test]
    fn wrappers_pass_their_parent_on() {
        let (saw, seen) =
            tags("<?xml version='1.0'?><wrap><a><b/><wrap><c/></wrap></a><d/></wrap>").unwrap();
        assert!(saw);
        let places: Vec<_> = seen.iter().map(|(n, p)| (n.as_str(), *p)).collect();
        assert_eq!(
            places,
            vec![
                ("wrap", at(0, None)),
                ("a", at(1, None)),
                ("b", at(2, Some(1))),
                ("wrap", at(2, Some(1))),
                ("c", at(3, Some(1))),
                ("d", at(1, None)),
            ]
        );
    }

    #[test]
    fn stops_after_the_document_element() {
        let (_, seen) = tags("<a><b/></a><c/>").unwrap();
        assert_eq!(seen.len(), 2);
    }

    #[test]
    fn no_tags_truncated_and_unbalanced() {
        assert!(!tags("<?xml version='1.0'?>").unwrap().0);
        assert_eq!(tags("<a><b>").unwrap_err(), ParseError::Truncated);
        assert!(matches!(
            tags("<a></b></a></c>"),
            Err(ParseError::Xml { .. })
        ));
    }
}
