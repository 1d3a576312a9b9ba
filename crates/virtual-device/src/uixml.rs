//! A minimal uiautomator dump model of the virtual device's own: parse a `<hierarchy>` of
//! `<node>`s keeping every attribute in order, edit attributes, and write it back in the
//! compact format `uiautomator dump` produces. (Deliberately independent of the product's
//! `ui` parser: the device must not share code with what it tests.)

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Node {
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hierarchy {
    pub rotation: String,
    pub roots: Vec<Node>,
}

/// Screen rectangle `[x1,y1][x2,y2]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rect {
    pub x1: i32,
    pub y1: i32,
    pub x2: i32,
    pub y2: i32,
}

impl Rect {
    pub fn parse(s: &str) -> Option<Rect> {
        let nums: Vec<i32> = s
            .split(['[', ']', ','])
            .filter(|p| !p.is_empty())
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        match nums[..] {
            [x1, y1, x2, y2] => Some(Rect { x1, y1, x2, y2 }),
            _ => None,
        }
    }

    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x1 && x < self.x2 && y >= self.y1 && y < self.y2
    }

    pub fn is_empty(&self) -> bool {
        self.x2 <= self.x1 || self.y2 <= self.y1
    }
}

impl Node {
    pub fn get(&self, key: &str) -> &str {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    pub fn set(&mut self, key: &str, value: &str) {
        match self.attrs.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value.to_string(),
            None => self.attrs.push((key.to_string(), value.to_string())),
        }
    }

    pub fn flag(&self, key: &str) -> bool {
        self.get(key) == "true"
    }

    pub fn bounds(&self) -> Rect {
        Rect::parse(self.get("bounds")).unwrap_or_default()
    }
}

fn attrs_of(e: &BytesStart<'_>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for a in e.attributes().with_checks(false) {
        let a = a.map_err(|e| e.to_string())?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a.unescape_value().map_err(|e| e.to_string())?.into_owned();
        out.push((key, value));
    }
    Ok(out)
}

impl Hierarchy {
    pub fn parse(xml: &str) -> Result<Hierarchy, String> {
        let mut reader = Reader::from_str(xml);
        let mut h = Hierarchy {
            rotation: "0".into(),
            roots: Vec::new(),
        };
        let mut stack: Vec<Node> = Vec::new();
        let mut seen_root = false;
        loop {
            match reader.read_event().map_err(|e| e.to_string())? {
                Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"hierarchy" => {
                    seen_root = true;
                    if let Some((_, r)) = attrs_of(&e)?.into_iter().find(|(k, _)| k == "rotation") {
                        h.rotation = r;
                    }
                }
                Event::Start(e) if e.name().as_ref() == b"node" => {
                    stack.push(Node {
                        attrs: attrs_of(&e)?,
                        children: Vec::new(),
                    });
                }
                Event::Empty(e) if e.name().as_ref() == b"node" => {
                    let n = Node {
                        attrs: attrs_of(&e)?,
                        children: Vec::new(),
                    };
                    match stack.last_mut() {
                        Some(p) => p.children.push(n),
                        None => h.roots.push(n),
                    }
                }
                Event::End(e) if e.name().as_ref() == b"node" => {
                    let n = stack.pop().ok_or("unbalanced </node>")?;
                    match stack.last_mut() {
                        Some(p) => p.children.push(n),
                        None => h.roots.push(n),
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if !seen_root {
            return Err("no <hierarchy> element".into());
        }
        Ok(h)
    }

    /// The dump as `uiautomator dump` writes it (single line, XML declaration first).
    pub fn to_xml(&self) -> String {
        let mut s = String::from("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>");
        s.push_str(&format!(
            "<hierarchy rotation=\"{}\">",
            escape(&self.rotation)
        ));
        for n in &self.roots {
            write_node(n, &mut s);
        }
        s.push_str("</hierarchy>");
        s
    }

    pub fn node(&self, path: &[usize]) -> Option<&Node> {
        let (first, rest) = path.split_first()?;
        rest.iter()
            .try_fold(self.roots.get(*first)?, |n, &i| n.children.get(i))
    }

    pub fn node_mut(&mut self, path: &[usize]) -> Option<&mut Node> {
        let (first, rest) = path.split_first()?;
        let mut n = self.roots.get_mut(*first)?;
        for &i in rest {
            n = n.children.get_mut(i)?;
        }
        Some(n)
    }

    /// Every node with its index path, in document (drawing) order.
    pub fn walk(&self) -> Vec<(Vec<usize>, &Node)> {
        fn rec<'a>(n: &'a Node, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, &'a Node)>) {
            out.push((path.clone(), n));
            for (i, c) in n.children.iter().enumerate() {
                path.push(i);
                rec(c, path, out);
                path.pop();
            }
        }
        let mut out = Vec::new();
        for (i, r) in self.roots.iter().enumerate() {
            rec(r, &mut vec![i], &mut out);
        }
        out
    }
}

fn write_node(n: &Node, s: &mut String) {
    s.push_str("<node");
    for (k, v) in &n.attrs {
        s.push_str(&format!(" {}=\"{}\"", k, escape(v)));
    }
    if n.children.is_empty() {
        s.push_str(" />");
    } else {
        s.push('>');
        for c in &n.children {
            write_node(c, s);
        }
        s.push_str("</node>");
    }
}

fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_round_trips_through_the_model() {
        let xml =
            include_str!("../../../fixtures/android_uiautomator/tiktok_hebrew_emoji_charref.xml");
        let h = Hierarchy::parse(xml).unwrap();
        assert!(h.walk().len() > 100);
        let again = Hierarchy::parse(&h.to_xml()).unwrap();
        assert_eq!(h, again);
    }

    #[test]
    fn rect_parsing() {
        assert_eq!(
            Rect::parse("[0,84][1080,2400]"),
            Some(Rect {
                x1: 0,
                y1: 84,
                x2: 1080,
                y2: 2400
            })
        );
        assert_eq!(Rect::parse("junk"), None);
    }
}
