//! YAML text to a tree of nodes that keep their line: what the flow parser reads. Built from
//! yaml-rust2's events (not its `Yaml` tree, which drops positions), with the limits a
//! request's text needs: a flow is at most [`MAX_FLOW_BYTES`], aliases are expanded within a
//! budget of [`MAX_NODES`] nodes (no "billion laughs"), nesting is at most [`MAX_DEPTH`], aliases
//! included. The events are pulled one at a time, never through yaml-rust2's `Parser::load`,
//! which recurses once per level of nesting: no text, however deep, recurses on the stack here.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Largest flow file read.
pub const MAX_FLOW_BYTES: usize = 1024 * 1024;
/// Most nodes in one file, aliases expanded.
pub const MAX_NODES: usize = 200_000;
/// Deepest nesting of sequences and maps (an alias counts with the depth of what it names).
pub const MAX_DEPTH: usize = 64;

/// A node and the line (1-based) it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The line it starts on, from 1.
    pub line: usize,
    /// What it holds.
    pub value: Value,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A scalar as written; `plain` when unquoted (so `null`, `true` and numbers mean those).
    Scalar {
        /// The text, quotes and escapes resolved.
        text: String,
        /// Written without quotes.
        plain: bool,
    },
    /// A sequence's items, in order.
    Seq(Vec<Node>),
    /// A map's keys and values, in file order (aliases expanded).
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The scalar's text, whatever its style.
    pub fn str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// An unquoted `null`, `~` or empty scalar.
    pub fn is_null(&self) -> bool {
        matches!(&self.value, Value::Scalar { text, plain: true } if matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL"))
    }

    /// The scalar as a boolean (`true`/`false`, any case).
    pub fn bool(&self) -> Option<bool> {
        match self.str()?.to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    /// The map's pairs, or none for other nodes.
    pub fn map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The value of `key` in a map.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.map()?
            .iter()
            .find(|(k, _)| k.str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The sequence's items.
    pub fn seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// What kind of node this is, for messages.
    pub fn kind(&self) -> &'static str {
        match &self.value {
            Value::Scalar { .. } => "a scalar",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a map",
        }
    }

    /// How many nodes it holds, itself included (what it costs to read).
    pub fn size(&self) -> usize {
        match &self.value {
            Value::Scalar { .. } => 1,
            Value::Seq(s) => 1 + s.iter().map(Node::size).sum::<usize>(),
            Value::Map(m) => 1 + m.iter().map(|(k, v)| k.size() + v.size()).sum::<usize>(),
        }
    }

    /// How many sequences and maps deep it goes (a scalar: 0). Every node [`parse`] makes is
    /// at most [`MAX_DEPTH`] deep, so this recursion is bounded.
    fn height(&self) -> usize {
        let deepest = |nodes: &mut dyn Iterator<Item = &Node>| nodes.map(Node::height).max();
        match &self.value {
            Value::Scalar { .. } => 0,
            Value::Seq(s) => 1 + deepest(&mut s.iter()).unwrap_or(0),
            Value::Map(m) => 1 + deepest(&mut m.iter().flat_map(|(k, v)| [k, v])).unwrap_or(0),
        }
    }
}

/// Why a text is not YAML this parser takes, and the line (1-based) where it went wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    /// Where it went wrong, from 1.
    pub line: usize,
    /// What is wrong, for the flow's author.
    pub message: String,
}

/// Parses every document of `text` (a flow has a header and a command list, split by `---`).
pub fn parse(text: &str) -> Result<Vec<Node>, YamlError> {
    if text.len() > MAX_FLOW_BYTES {
        return Err(YamlError {
            line: 1,
            message: format!(
                "the flow is {} bytes; a flow is at most {} bytes",
                text.len(),
                MAX_FLOW_BYTES
            ),
        });
    }
    let mut b = Builder::default();
    let mut parser = Parser::new_from_str(text);
    // One event at a time, up to the first error: `Parser::load` would recurse per level.
    loop {
        match parser.next_token() {
            Ok((Event::StreamEnd, _)) => break,
            Ok((ev, mark)) => b.on_event(ev, mark),
            Err(e) => {
                return Err(YamlError {
                    line: e.marker().line(),
                    message: format!("invalid YAML: {}", e.info()),
                })
            }
        }
        if let Some(e) = b.error.take() {
            return Err(e);
        }
    }
    Ok(b.docs)
}

enum Open {
    Seq(Node, usize),
    Map(Node, usize, Option<Node>),
}

#[derive(Default)]
struct Builder {
    docs: Vec<Node>,
    stack: Vec<Open>,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    error: Option<YamlError>,
}

impl Builder {
    fn fail(&mut self, line: usize, message: String) {
        if self.error.is_none() {
            self.error = Some(YamlError { line, message });
        }
    }

    fn count(&mut self, n: usize, line: usize) -> bool {
        self.nodes += n;
        if self.nodes > MAX_NODES {
            self.fail(
                line,
                format!("the flow has more than {MAX_NODES} YAML nodes (aliases expanded)"),
            );
            return false;
        }
        true
    }

    fn open(&mut self, o: Open, line: usize) {
        if self.stack.len() >= MAX_DEPTH {
            return self.too_deep(line);
        }
        self.stack.push(o);
    }

    fn too_deep(&mut self, line: usize) {
        self.fail(
            line,
            format!("the flow nests deeper than {MAX_DEPTH} levels"),
        );
    }

    fn push(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.docs.push(node),
            Some(Open::Seq(parent, _)) => {
                if let Value::Seq(items) = &mut parent.value {
                    items.push(node);
                }
            }
            Some(Open::Map(parent, _, key)) => match key.take() {
                None => *key = Some(node),
                Some(k) => {
                    if let Value::Map(pairs) = &mut parent.value {
                        pairs.push((k, node));
                    }
                }
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        let line = mark.line().max(1);
        let opens = matches!(
            ev,
            Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..)
        );
        if opens && !self.count(1, line) {
            return;
        }
        match ev {
            Event::Scalar(text, style, anchor, _) => {
                let plain = matches!(style, TScalarStyle::Plain);
                let value = Value::Scalar { text, plain };
                self.push(Node { line, value }, anchor);
            }
            Event::SequenceStart(anchor, _) => {
                let node = Node {
                    line,
                    value: Value::Seq(vec![]),
                };
                self.open(Open::Seq(node, anchor), line);
            }
            Event::MappingStart(anchor, _) => {
                let node = Node {
                    line,
                    value: Value::Map(vec![]),
                };
                self.open(Open::Map(node, anchor, None), line);
            }
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Open::Seq(n, a)) | Some(Open::Map(n, a, _)) => self.push(n, a),
                None => {}
            },
            Event::Alias(id) => match self.anchors.get(&id).cloned() {
                Some(n) if self.stack.len() + n.height() > MAX_DEPTH => self.too_deep(line),
                Some(n) => {
                    if self.count(n.size(), line) {
                        self.push(n, 0);
                    }
                }
                None => self.fail(line, "an alias to an unknown anchor".into()),
            },
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_lines_and_documents() {
        let docs = parse("appId: a.b\n---\n- launchApp\n- tapOn:\n    id: x\n").expect("yaml");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].get("appId").and_then(Node::str), Some("a.b"));
        let cmds = docs[1].seq().expect("list");
        assert_eq!(cmds[0].line, 3);
        assert_eq!(cmds[1].line, 4);
        assert_eq!(
            cmds[1]
                .get("tapOn")
                .and_then(|t| t.get("id"))
                .map(|n| n.line),
            Some(5)
        );
    }

    #[test]
    fn invalid_yaml_has_a_line() {
        let e = parse("- tapOn: [\n- x: {\n").expect_err("invalid");
        assert!(e.line >= 1 && e.message.contains("invalid YAML"), "{e:?}");
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..12 {
            let prev = if i == 0 {
                "a".to_string()
            } else {
                format!("a{}", i - 1)
            };
            text += &format!("a{i}: &a{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n");
        }
        let started = std::time::Instant::now();
        let e = parse(&text).expect_err("too big");
        assert!(e.message.contains("YAML nodes"), "{e:?}");
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn big_text_is_refused_before_parsing() {
        let text = "- back\n".repeat(2 * 1024 * 1024);
        let e = parse(&text).expect_err("too big");
        assert!(e.message.contains("at most"), "{e:?}");
    }

    #[test]
    fn deep_nesting_is_refused_without_recursing() {
        // On a small stack: yaml-rust2's `Parser::load` recursed once per level.
        let worker = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let texts = [
                    "[".repeat(100_000),
                    format!("{}x\n", "- ".repeat(300_000)),
                    format!("{}1", "{a: ".repeat(100_000)),
                ];
                texts.map(|t| parse(&t))
            })
            .expect("thread");
        let [flow_seq, block_seq, flow_map] = worker.join().expect("no overflow");
        // Flow style, the scanner looks ahead past its own limit of 255 levels.
        for e in [flow_seq, flow_map].map(|r| r.expect_err("too deep")) {
            assert!(
                e.message.contains("deeper than 64 levels")
                    || e.message.contains("recursion limit exceeded"),
                "{e:?}"
            );
        }
        let e = block_seq.expect_err("too deep");
        assert!(e.message.contains("deeper than 64 levels"), "{e:?}");
    }

    #[test]
    fn an_alias_counts_with_the_depth_it_names() {
        let deep = format!("{}x{}", "[".repeat(40), "]".repeat(40));
        let ok = parse(&format!("a: &a {deep}\nb: *a\n")).expect("40 deep");
        assert_eq!(ok[0].get("b").map(Node::height), Some(40));
        let e = parse(&format!(
            "a: &a {deep}\nb: [{}*a{}]\n",
            "[".repeat(30),
            "]".repeat(30)
        ))
        .expect_err("71 deep");
        assert!(
            e.message.contains("deeper than 64 levels") && e.line == 2,
            "{e:?}"
        );
    }
}
