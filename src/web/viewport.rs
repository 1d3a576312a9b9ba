//! Large pages, read near their viewport. Chromium's full accessibility tree costs about
//! 0.6 ms per element (12 s and 25 MB for a page of 20,000 here), and a screen shows a few
//! dozen of them: a page with more than [`LARGE_PAGE`] elements is read instead by a script in
//! the page ([`SCRIPT`]) that walks the DOM in document order and keeps, at most `max` of them,
//! the visible elements within one screen's height of the viewport — roles from ARIA or the
//! tag, names from ARIA, labels, `alt`, `title` or the text — with their boxes. [`read_items`]
//! turns its answer into the same elements as the accessibility read (pure).

use serde::Deserialize;

use super::page::{is_control, role_of, PageRead};
use crate::ui::model::{Element, Rect, Role, States};
use crate::ui::web::{WebContent, WEB_CLASS_PREFIX};

/// Pages with more elements than this are read near their viewport.
pub const LARGE_PAGE: u64 = 1500;

/// How many elements the page has, and whether it is hidden (a WebView not shown: detached, or
/// behind another screen); `Runtime.evaluate` answers `{n, hidden}`.
pub const PROBE: &str =
    "({n: document.getElementsByTagName('*').length, hidden: document.visibilityState === 'hidden'})";

/// The script's body: a function of the most elements to keep, answering
/// `{url, title, vx, vy, vw, vh, total, items: [{p, tag, role, name, value, id, type, x, y, w,
/// h, focused, disabled, checked, click}]}` (boxes in CSS px relative to the visual viewport;
/// `p` the index of the nearest kept ancestor, -1 for none).
pub const SCRIPT: &str = r#"(max) => {
  const vv = window.visualViewport || {offsetLeft: 0, offsetTop: 0, width: innerWidth, height: innerHeight};
  const top = -vv.height, bottom = 2 * vv.height;
  const roleOf = (e) => {
    const r = e.getAttribute('role'); if (r) return r.split(' ')[0];
    const t = e.tagName.toLowerCase(), type = (e.getAttribute('type') || 'text').toLowerCase();
    if (t === 'a' && e.hasAttribute('href')) return 'link';
    if (t === 'button' || t === 'summary') return 'button';
    if (t === 'input') return ({checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button', image: 'button', range: 'slider', hidden: ''})[type] ?? 'textbox';
    if (t === 'textarea') return 'textbox';
    if (t === 'select') return 'combobox';
    if (/^h[1-6]$/.test(t)) return 'heading';
    if (t === 'img') return 'image';
    if (t === 'ul' || t === 'ol') return 'list';
    if (t === 'li') return 'listitem';
    if (t === 'dialog' && e.open) return 'dialog';
    return '';
  };
  const nameOf = (e) => {
    const l = e.getAttribute('aria-label'); if (l) return l;
    if (e.labels && e.labels.length) return e.labels[0].innerText;
    return e.getAttribute('alt') || e.getAttribute('title') || '';
  };
  const leaf = new Set(['link', 'button', 'textbox', 'checkbox', 'radio', 'slider', 'heading', 'image', 'combobox', 'tab', 'menuitem', 'switch']);
  const items = []; let total = 0;
  const walk = (e, parent) => {
    total++;
    if (e.getAttribute('aria-hidden') === 'true') return;
    const cs = getComputedStyle(e);
    if (cs.display === 'none') return;
    const role = roleOf(e);
    const r = e.getBoundingClientRect();
    const near = r.bottom >= top && r.top <= bottom && r.width > 0 && r.height > 0 && cs.visibility !== 'hidden';
    let me = parent;
    if (role && near && items.length < max) {
      let name = nameOf(e);
      if (!name && leaf.has(role) && role !== 'textbox' && role !== 'combobox') name = e.innerText || '';
      items.push({p: parent, tag: e.tagName.toLowerCase(), role, name: name.trim().slice(0, 500),
        value: ('value' in e && role !== 'button') ? String(e.value) : null, id: e.id || null,
        type: e.getAttribute('type'), x: r.left - vv.offsetLeft, y: r.top - vv.offsetTop, w: r.width, h: r.height,
        focused: document.activeElement === e, disabled: !!e.disabled, checked: !!e.checked,
        click: typeof e.onclick === 'function'});
      me = items.length - 1;
      if (leaf.has(role)) { total += e.getElementsByTagName('*').length; return; }
    }
    for (const n of e.childNodes) {
      if (n.nodeType === 1) walk(n, me);
      else if (n.nodeType === 3 && n.data.trim() && items.length < max) {
        const range = document.createRange(); range.selectNodeContents(n);
        const b = range.getBoundingClientRect();
        if (b.bottom >= top && b.top <= bottom && b.width > 0)
          items.push({p: me, tag: 'text', role: 'StaticText', name: n.data.trim().slice(0, 500), value: null, id: null,
            type: null, x: b.left - vv.offsetLeft, y: b.top - vv.offsetTop, w: b.width, h: b.height,
            focused: false, disabled: false, checked: false, click: false});
      }
    }
  };
  if (document.body) walk(document.body, -1);
  return {url: location.href, title: document.title, vw: vv.width, vh: vv.height, total, items};
}"#;

/// One element the script kept.
#[derive(Debug, Deserialize)]
struct Item {
    p: i64,
    tag: String,
    role: String,
    #[serde(default)]
    name: String,
    value: Option<String>,
    id: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    #[serde(default)]
    focused: bool,
    #[serde(default)]
    disabled: bool,
    #[serde(default)]
    checked: bool,
    #[serde(default)]
    click: bool,
}

/// The script's answer.
#[derive(Debug, Deserialize)]
struct Answer {
    url: String,
    title: String,
    vw: f64,
    total: u64,
    items: Vec<Item>,
}

/// The script's answer as elements under a WebView at `host`; `None` when it is not the
/// script's answer.
pub fn read_items(answer: &serde_json::Value, host: Rect) -> Option<PageRead> {
    let a: Answer = serde_json::from_value(answer.clone()).ok()?;
    let scale = host.w / a.vw.max(1.0);
    let r = |v: f64| (v * 10.0).round() / 10.0;
    let mut content = WebContent {
        host,
        url: a.url,
        title: a.title,
        scrollable: true,
        ..Default::default()
    };
    // Script index → element index (items the mapping drops hang their children higher).
    let mut at: Vec<Option<usize>> = Vec::with_capacity(a.items.len());
    for item in &a.items {
        let parent = usize::try_from(item.p)
            .ok()
            .and_then(|p| at.get(p).copied().flatten());
        let editable = item.role == "textbox" || item.role == "searchbox";
        let role = role_of(&item.role, editable, item.role == "dialog");
        let name = Some(item.name.clone()).filter(|n| !n.trim().is_empty());
        if matches!(role, Role::Group | Role::Text) && name.is_none() && !item.click {
            at.push(parent);
            continue;
        }
        let clickable = !item.disabled && (is_control(role) || item.click);
        let el = Element {
            role,
            text: (role == Role::Textbox)
                .then(|| item.value.clone())
                .flatten(),
            value: item.value.clone().filter(|v| !v.is_empty()),
            name,
            id: item.id.clone(),
            class: Some(format!("{WEB_CLASS_PREFIX}{}", item.tag)),
            bounds: Rect::new(
                r(host.x + item.x * scale),
                r(host.y + item.y * scale),
                r(item.w * scale),
                r(item.h * scale),
            ),
            states: States {
                enabled: !item.disabled,
                focused: item.focused,
                checked: item.checked,
                clickable,
                editable: role == Role::Textbox && !item.disabled,
                checkable: matches!(role, Role::Checkbox | Role::Radio | Role::Switch),
                password: item
                    .kind
                    .as_deref()
                    .is_some_and(|t| t.eq_ignore_ascii_case("password")),
                ..States::default()
            },
            ..Default::default()
        };
        at.push(Some(content.push(el, parent)));
    }
    let listed = content.nodes.len() as u64;
    Some(PageRead {
        content,
        left_out: a.total.saturating_sub(listed) as usize,
        near_viewport: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_scripts_answer_becomes_elements_with_screen_boxes() {
        let answer = json!({
            "url": "https://example.com/list", "title": "Items", "vw": 400.0, "vh": 800.0,
            "total": 20003,
            "items": [
                {"p": -1, "tag": "ul", "role": "list", "name": "", "value": null, "id": "items",
                 "type": null, "x": 0, "y": 0, "w": 400, "h": 30000},
                {"p": 0, "tag": "li", "role": "listitem", "name": "", "value": null, "id": null,
                 "type": null, "x": 0, "y": 10, "w": 400, "h": 30},
                {"p": 1, "tag": "a", "role": "link", "name": "Item 0", "value": null, "id": null,
                 "type": null, "x": 8, "y": 10, "w": 100, "h": 30},
                {"p": -1, "tag": "input", "role": "textbox", "name": "Search", "value": "abc",
                 "id": "q", "type": "search", "x": 0, "y": 700, "w": 400, "h": 40, "focused": true}
            ]
        });
        let host = Rect::new(0.0, 252.0, 1080.0, 2148.0);
        let read = read_items(&answer, host).unwrap();
        let c = &read.content;
        assert_eq!(c.title, "Items");
        let link = c.nodes.iter().find(|e| e.role == Role::Link).unwrap();
        assert_eq!(link.name.as_deref(), Some("Item 0"));
        assert_eq!(link.bounds, Rect::new(21.6, 279.0, 270.0, 81.0));
        assert!(link.states.clickable);
        assert_eq!(link.class.as_deref(), Some("html:a"));
        // The tree follows the page's: the link in its item, the item in the list.
        let list = c.nodes.iter().position(|e| e.role == Role::List).unwrap();
        let item = link.parent.unwrap();
        assert_eq!(c.nodes[item].role, Role::Cell);
        assert_eq!(c.nodes[item].parent, Some(list));
        let q = c
            .nodes
            .iter()
            .find(|e| e.id.as_deref() == Some("q"))
            .unwrap();
        assert!(q.states.editable && q.states.focused);
        assert_eq!(q.text.as_deref(), Some("abc"));
        assert_eq!(read.left_out, 20003 - c.nodes.len());
        assert!(read_items(&json!({"nope": 1}), host).is_none());
    }
}
