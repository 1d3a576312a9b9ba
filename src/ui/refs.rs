//! Element refs `e1..eN` and their stability across snapshots. An element's identity is a hash
//! of its id, class, own label and the chain of its ancestors' classes (its position in the
//! tree, without sibling indices, so removing a sibling changes nothing). [`assign`] is a pure
//! function from the previous [`RefTable`] and the new candidates to the new table.

use super::model::{Element, Rect, Role};
use serde::Serialize;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use utoipa::ToSchema;

/// One ref of a snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct RefEntry {
    /// The ref, `e1..eN` (without the `@`).
    #[serde(rename = "ref")]
    pub r#ref: String,
    /// Index of the element in the snapshot's element list.
    pub node: usize,
    /// The element's role.
    pub role: Role,
    /// The element's label, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The element's bounds, in the tree's coordinate space.
    pub bounds: Rect,
    /// Identity hash used to carry the ref over to the next snapshot.
    #[serde(skip)]
    pub identity: u64,
}

/// The refs of one snapshot, in reading order. The controller keeps it for the next one.
#[derive(Debug, Clone, PartialEq, Default, Serialize, ToSchema)]
pub struct RefTable {
    /// One entry per ref, in reading order.
    pub entries: Vec<RefEntry>,
}

impl RefTable {
    /// The entry of a ref (`e12` or `@e12`).
    pub fn get(&self, r: &str) -> Option<&RefEntry> {
        let r = r.strip_prefix('@').unwrap_or(r);
        self.entries.iter().find(|e| e.r#ref == r)
    }

    /// The ref of an element index.
    pub fn ref_of(&self, node: usize) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.node == node)
            .map(|e| e.r#ref.as_str())
    }

    /// How many refs the snapshot handed out.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it handed out none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Per-element path hashes (ancestor class chain); parents precede children.
pub fn path_hashes(elements: &[Element]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::with_capacity(elements.len());
    for e in elements.iter() {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        if let Some(p) = e.parent.filter(|&p| p < out.len()) {
            out[p].hash(&mut h);
        }
        e.class.hash(&mut h);
        out.push(h.finish());
    }
    out
}

/// Identity of an element given its path hash.
pub fn identity(e: &Element, path: u64) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut h);
    e.id.hash(&mut h);
    e.class.hash(&mut h);
    e.role.hash(&mut h);
    // A text field is the same field whatever it holds: typing must not renumber it.
    if !e.states.editable {
        e.label().hash(&mut h);
    }
    h.finish()
}

fn num(r: &str) -> Option<u32> {
    r.strip_prefix('e')?.parse().ok()
}

/// Assigns refs to `candidates` (element indices in reading order). Elements whose identity
/// was in `previous` keep their number (several with one identity: the nearest bounds win);
/// new ones take numbers after the highest kept one. When fewer than half of the elements
/// match (another screen), numbering restarts at `e1` in reading order.
pub fn assign(
    elements: &[Element],
    paths: &[u64],
    candidates: &[usize],
    previous: Option<&RefTable>,
) -> RefTable {
    let ids: Vec<u64> = candidates
        .iter()
        .map(|&i| identity(&elements[i], paths[i]))
        .collect();
    let mut numbers: Vec<Option<u32>> = vec![None; candidates.len()];
    if let Some(prev) = previous.filter(|p| !p.is_empty()) {
        let mut by_id: HashMap<u64, Vec<(usize, bool)>> = HashMap::new();
        for (k, e) in prev.entries.iter().enumerate() {
            by_id.entry(e.identity).or_default().push((k, false));
        }
        let mut matched = 0usize;
        for (c, &i) in candidates.iter().enumerate() {
            let Some(olds) = by_id.get_mut(&ids[c]) else {
                continue;
            };
            let b = elements[i].bounds;
            let best = olds.iter_mut().filter(|(_, used)| !used).min_by(|a, z| {
                dist(&prev.entries[a.0].bounds, &b).total_cmp(&dist(&prev.entries[z.0].bounds, &b))
            });
            if let Some(slot) = best {
                slot.1 = true;
                numbers[c] = num(&prev.entries[slot.0].r#ref);
                matched += 1;
            }
        }
        if matched * 2 < candidates.len().max(prev.len()) {
            numbers.iter_mut().for_each(|n| *n = None);
        }
    }
    let mut next = numbers.iter().flatten().max().copied().unwrap_or(0) + 1;
    let mut entries = Vec::with_capacity(candidates.len());
    for (c, &i) in candidates.iter().enumerate() {
        let n = numbers[c].unwrap_or_else(|| {
            next += 1;
            next - 1
        });
        let e = &elements[i];
        entries.push(RefEntry {
            r#ref: format!("e{n}"),
            node: i,
            role: e.role,
            name: e.label().map(str::to_string),
            bounds: e.bounds,
            identity: ids[c],
        });
    }
    RefTable { entries }
}

fn dist(a: &Rect, b: &Rect) -> f64 {
    let (ax, ay) = a.center();
    let (bx, by) = b.center();
    let d = (ax - bx).abs() + (ay - by).abs() + (a.w - b.w).abs() + (a.h - b.h).abs();
    if d.is_finite() {
        d
    } else {
        f64::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn els(names: &[&str]) -> Vec<Element> {
        names
            .iter()
            .enumerate()
            .map(|(k, n)| Element {
                name: Some(n.to_string()),
                class: Some("Button".into()),
                bounds: Rect::new(0.0, k as f64 * 10.0, 10.0, 10.0),
                ..Element::default()
            })
            .collect()
    }

    fn run(e: &[Element], prev: Option<&RefTable>) -> RefTable {
        let p = path_hashes(e);
        let c: Vec<usize> = (0..e.len()).collect();
        assign(e, &p, &c, prev)
    }

    fn refs(t: &RefTable) -> Vec<&str> {
        t.entries.iter().map(|e| e.r#ref.as_str()).collect()
    }

    #[test]
    fn same_tree_same_refs_and_removal_keeps_others() {
        let a = els(&["A", "B", "C", "D"]);
        let t1 = run(&a, None);
        assert_eq!(refs(&t1), ["e1", "e2", "e3", "e4"]);
        assert_eq!(run(&a, Some(&t1)), t1);
        let b = els(&["A", "C", "D"]);
        let t2 = run(&b, Some(&t1));
        assert_eq!(refs(&t2), ["e1", "e3", "e4"]);
        let c = els(&["A", "C", "D", "E"]);
        let t3 = run(&c, Some(&t2));
        assert_eq!(refs(&t3), ["e1", "e3", "e4", "e5"]);
    }

    #[test]
    fn another_screen_restarts() {
        let t1 = run(&els(&["A", "B", "C"]), None);
        let t2 = run(&els(&["X", "Y", "Z"]), Some(&t1));
        assert_eq!(refs(&t2), ["e1", "e2", "e3"]);
        assert_eq!(t2.get("@e2").unwrap().name.as_deref(), Some("Y"));
    }

    #[test]
    fn duplicates_follow_nearest_bounds() {
        let mut a = els(&["Row", "Row", "Row"]);
        let t1 = run(&a, None);
        a.remove(0);
        // The remaining rows keep their positions: they keep e2 and e3.
        let t2 = run(&a, Some(&t1));
        assert_eq!(refs(&t2), ["e2", "e3"]);
    }
}
