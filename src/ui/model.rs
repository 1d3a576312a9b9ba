//! The canonical, platform-free UI model: [`Element`], [`Rect`], [`Role`], [`States`] and the
//! parsed [`Tree`] (a flat arena of elements in document order, with parent/children indices).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A rectangle in the coordinate space of its [`Tree`] (Android pixels, iOS points). Whole
/// numbers are written without a fraction (`80`, not `80.0`): fewer tokens for every element.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, ToSchema)]
pub struct Rect {
    #[serde(serialize_with = "number")]
    pub x: f64,
    #[serde(serialize_with = "number")]
    pub y: f64,
    #[serde(serialize_with = "number")]
    pub w: f64,
    #[serde(serialize_with = "number")]
    pub h: f64,
}

/// A coordinate as JSON: an integer when whole, else the float.
pub fn number<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

impl Rect {
    /// The rectangle with its top-left corner at (`x`, `y`), `w` wide and `h` high.
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Self {
        Rect { x, y, w, h }
    }

    /// The point a tap on this element should hit.
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }

    /// Whether the point lies inside (left/top edges inclusive, right/bottom exclusive).
    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && y >= self.y && x < self.x + self.w && y < self.y + self.h
    }

    /// Positive width and height, all values finite.
    pub fn is_valid(&self) -> bool {
        self.x.is_finite()
            && self.y.is_finite()
            && self.w.is_finite()
            && self.h.is_finite()
            && self.w > 0.0
            && self.h > 0.0
    }

    /// The x of the right edge.
    pub fn right(&self) -> f64 {
        self.x + self.w
    }

    /// The y of the bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }

    /// Width times height; 0 for an invalid rectangle.
    pub fn area(&self) -> f64 {
        if self.is_valid() {
            self.w * self.h
        } else {
            0.0
        }
    }

    /// Whether the two rectangles share a region of positive area.
    pub fn intersects(&self, o: &Rect) -> bool {
        self.is_valid()
            && o.is_valid()
            && self.x < o.right()
            && o.x < self.right()
            && self.y < o.bottom()
            && o.y < self.bottom()
    }

    /// Whether `o` lies completely inside `self`.
    pub fn contains_rect(&self, o: &Rect) -> bool {
        o.x >= self.x && o.y >= self.y && o.right() <= self.right() && o.bottom() <= self.bottom()
    }

    /// The region both cover, when it has a positive area.
    pub fn intersection(&self, o: &Rect) -> Option<Rect> {
        if !self.intersects(o) {
            return None;
        }
        let (x, y) = (self.x.max(o.x), self.y.max(o.y));
        Some(Rect::new(
            x,
            y,
            self.right().min(o.right()) - x,
            self.bottom().min(o.bottom()) - y,
        ))
    }

    /// The smallest rectangle holding both (invalid rectangles are ignored).
    pub fn union(&self, o: &Rect) -> Rect {
        if !self.is_valid() {
            return *o;
        }
        if !o.is_valid() {
            return *self;
        }
        let x = self.x.min(o.x);
        let y = self.y.min(o.y);
        Rect::new(
            x,
            y,
            self.right().max(o.right()) - x,
            self.bottom().max(o.bottom()) - y,
        )
    }
}

/// A small fixed vocabulary of roles, serialized lowercase.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// A button, or any clickable view without a more specific role.
    Button,
    /// Static text (a label, a non-clickable view with a description).
    Text,
    /// An editable text field, search and secure fields included.
    Textbox,
    /// An image.
    Image,
    /// An on/off switch or toggle button.
    Switch,
    /// A checkbox.
    Checkbox,
    /// A radio button.
    Radio,
    /// A slider, seek bar, rating bar or stepper.
    Slider,
    /// A progress or activity indicator.
    Progress,
    /// A picker: spinner, date or time picker, segmented control.
    Picker,
    /// A scrolling container: list, grid, table, collection or scroll view.
    List,
    /// A cell or row of a list.
    Cell,
    /// One tab of a tab bar.
    Tab,
    /// A tab bar or bottom navigation bar.
    Tablist,
    /// A link.
    Link,
    /// A heading.
    Heading,
    /// A menu or menu bar.
    Menu,
    /// An item of a menu.
    Menuitem,
    /// A toolbar, action bar or navigation bar.
    Toolbar,
    /// An alert, dialog or action sheet.
    Alert,
    /// The soft keyboard.
    Keyboard,
    /// A key of the soft keyboard.
    Key,
    /// A web view.
    Webview,
    /// A window.
    Window,
    /// The application (the root of an iOS tree).
    Application,
    /// The status bar.
    Statusbar,
    /// A layout container with no role of its own.
    Group,
    /// Anything the mapping does not recognise.
    #[default]
    Other,
}

impl Role {
    /// The lowercase name used in JSON and in the compact text.
    pub fn as_str(self) -> &'static str {
        use Role::*;
        match self {
            Button => "button",
            Text => "text",
            Textbox => "textbox",
            Image => "image",
            Switch => "switch",
            Checkbox => "checkbox",
            Radio => "radio",
            Slider => "slider",
            Progress => "progress",
            Picker => "picker",
            List => "list",
            Cell => "cell",
            Tab => "tab",
            Tablist => "tablist",
            Link => "link",
            Heading => "heading",
            Menu => "menu",
            Menuitem => "menuitem",
            Toolbar => "toolbar",
            Alert => "alert",
            Keyboard => "keyboard",
            Key => "key",
            Webview => "webview",
            Window => "window",
            Application => "application",
            Statusbar => "statusbar",
            Group => "group",
            Other => "other",
        }
    }

    /// Parses the lowercase name (case-insensitive); `None` when unknown.
    pub fn parse(s: &str) -> Option<Role> {
        let s = s.trim().to_ascii_lowercase();
        serde_json::from_value(serde_json::Value::String(s)).ok()
    }

    /// Roles whose elements an agent acts on even when the dump has no clickable flag (iOS).
    pub fn is_control(self) -> bool {
        use Role::*;
        matches!(
            self,
            Button
                | Textbox
                | Switch
                | Checkbox
                | Radio
                | Slider
                | Picker
                | Cell
                | Tab
                | Link
                | Menuitem
                | Key
        )
    }

    /// Containers that never carry meaning on their own.
    pub fn is_structural(self) -> bool {
        matches!(
            self,
            Role::Group | Role::Other | Role::Window | Role::Application
        )
    }
}

/// Boolean states of an element.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct States {
    pub enabled: bool,
    pub visible: bool,
    pub focused: bool,
    pub checked: bool,
    pub selected: bool,
    pub clickable: bool,
    pub scrollable: bool,
    pub editable: bool,
    /// The element can be checked (Android `checkable`, iOS switches); `checked` is meaningful.
    #[serde(default)]
    pub checkable: bool,
    /// Android `long-clickable`.
    #[serde(default)]
    pub long_clickable: bool,
    /// A password field (its text is masked).
    #[serde(default)]
    pub password: bool,
}

impl Default for States {
    fn default() -> Self {
        States {
            enabled: true,
            visible: true,
            focused: false,
            checked: false,
            selected: false,
            clickable: false,
            scrollable: false,
            editable: false,
            checkable: false,
            long_clickable: false,
            password: false,
        }
    }
}

/// One node of the canonical tree.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
pub struct Element {
    /// `e1..eN` when the element got a ref in the latest analysis.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    /// What the element is, mapped from its native class or type.
    pub role: Role,
    /// The best human label: Android text or content-desc, iOS label (or name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A current value (iOS `value`, a slider position, a switch state string…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Android `text` (the displayed text), iOS text of a static text / field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Android `content-desc`; iOS accessibility label when it differs from `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    /// Android `hint`: what an empty field shows and a screen reader speaks for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Android resource-id, iOS accessibilityIdentifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The native class or type (`android.widget.Button`, `XCUIElementTypeButton`, `AXButton`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Android package of the window holding the element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// Where it is, in the tree's coordinate space.
    pub bounds: Rect,
    /// Its boolean states.
    pub states: States,
    /// Index of its parent in [`Tree::nodes`]; None for a root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// Indices of its children in [`Tree::nodes`], in document order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<usize>,
    /// The DOM node a web element was read from (the DevTools Protocol's `backendNodeId`),
    /// which CSS selectors are matched against; `None` for native elements. Not shown.
    #[serde(skip)]
    pub dom: Option<u64>,
}

impl Element {
    /// The label an agent would read: name, else text, else desc.
    pub fn label(&self) -> Option<&str> {
        self.name
            .as_deref()
            .or(self.text.as_deref())
            .or(self.desc.as_deref())
            .filter(|s| !s.trim().is_empty())
    }

    /// The last segment of the id (`com.app:id/send` → `send`).
    pub fn id_tail(&self) -> Option<&str> {
        let id = self.id.as_deref()?;
        let t = id.rsplit(['/', ':']).next().unwrap_or(id);
        (!t.is_empty()).then_some(t)
    }
}

/// How coordinates are expressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CoordinateSpace {
    /// Android: physical pixels, as `input tap` takes them.
    Pixels,
    /// iOS: points, as AXe/idb/WDA take them.
    Points,
}

/// Width and height of the screen in the tree's coordinate space.
// Its fields are described by the API schema, where descriptions are kept short on purpose
// (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, ToSchema)]
pub struct Size {
    pub w: f64,
    pub h: f64,
}

/// The kind of a native dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DumpKind {
    /// `uiautomator dump` XML (`<hierarchy><node …>`).
    Uiautomator,
    /// Appium UiAutomator2 page source (element tags are the classes).
    AppiumSource,
    /// AXe `describe-ui` JSON (nested `children`).
    Axe,
    /// idb `ui describe-all` / `describe-point` JSON (flat).
    Idb,
    /// WebDriverAgent `/source` XML (also Appium XCUITest page source).
    WdaXml,
    /// WebDriverAgent `/source?format=json` or the legacy `/tree` JSON.
    WdaJson,
}

impl DumpKind {
    /// The coordinate space this kind of dump is in: pixels for Android's, points for iOS's.
    pub fn coordinate_space(self) -> CoordinateSpace {
        match self {
            DumpKind::Uiautomator | DumpKind::AppiumSource => CoordinateSpace::Pixels,
            _ => CoordinateSpace::Points,
        }
    }
}

/// A parsed dump: elements in document (pre-)order; a parent always precedes its children.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Tree {
    /// The kind of dump it was parsed from.
    pub source: DumpKind,
    /// The space its coordinates are in (follows from `source`).
    pub coordinate_space: CoordinateSpace,
    /// Screen size; derived from the dump (declared size, or the extent of the top windows).
    pub screen: Size,
    /// Android `rotation` (0..3) when the dump states it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<u8>,
    /// Foreground package (Android) or bundle id / app name (iOS) when the dump says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foreground: Option<String>,
    /// Every element, in document order (a parent before its children).
    pub nodes: Vec<Element>,
    /// Indices of the top-level nodes (windows).
    pub roots: Vec<usize>,
}

impl Tree {
    /// An empty tree of a dump of this kind.
    pub fn new(source: DumpKind) -> Self {
        Tree {
            source,
            coordinate_space: source.coordinate_space(),
            screen: Size::default(),
            rotation: None,
            foreground: None,
            nodes: Vec::new(),
            roots: Vec::new(),
        }
    }

    /// The screen as a rectangle at the origin.
    pub fn screen_rect(&self) -> Rect {
        Rect::new(0.0, 0.0, self.screen.w, self.screen.h)
    }

    /// Appends a node under `parent` and returns its index.
    pub fn push(&mut self, mut el: Element, parent: Option<usize>) -> usize {
        let idx = self.nodes.len();
        el.parent = parent;
        match parent {
            Some(p) => self.nodes[p].children.push(idx),
            None => self.roots.push(idx),
        }
        self.nodes.push(el);
        idx
    }

    /// Index one past the last descendant of `i` (the subtree of `i` is `i..end`).
    pub fn subtree_end(&self, i: usize) -> usize {
        let mut cur = i;
        loop {
            match self.nodes[cur].children.last() {
                Some(&c) => cur = c,
                None => return cur + 1,
            }
        }
    }

    /// Whether `a` is an ancestor of `d` (or `d` itself).
    pub fn is_ancestor_or_self(&self, a: usize, d: usize) -> bool {
        a <= d && d < self.subtree_end(a)
    }

    /// A copy without the subtree of `i` (indices renumbered). Used to simulate a screen
    /// where one element disappeared.
    pub fn without(&self, i: usize) -> Tree {
        let end = self.subtree_end(i);
        let removed = end - i;
        let map = |j: usize| if j >= end { j - removed } else { j };
        let mut t = Tree {
            nodes: Vec::with_capacity(self.nodes.len() - removed),
            roots: Vec::new(),
            ..self.clone()
        };
        for (j, n) in self.nodes.iter().enumerate() {
            if (i..end).contains(&j) {
                continue;
            }
            let mut n = n.clone();
            n.parent = n.parent.map(map);
            n.children = n
                .children
                .iter()
                .filter(|c| !(i..end).contains(*c))
                .map(|&c| map(c))
                .collect();
            if n.parent.is_none() {
                t.roots.push(t.nodes.len());
            }
            t.nodes.push(n);
        }
        t
    }

    /// Fills the screen size from the union of the roots' bounds when the dump did not say.
    pub fn infer_screen(&mut self) {
        if self.screen.w > 0.0 && self.screen.h > 0.0 {
            return;
        }
        let mut w: f64 = 0.0;
        let mut h: f64 = 0.0;
        for &r in &self.roots {
            let b = self.nodes[r].bounds;
            if b.is_valid() {
                w = w.max(b.right());
                h = h.max(b.bottom());
            }
        }
        if w == 0.0 || h == 0.0 {
            for n in &self.nodes {
                if n.bounds.is_valid() && n.bounds.x >= 0.0 && n.bounds.y >= 0.0 {
                    w = w.max(n.bounds.right());
                    h = h.max(n.bounds.bottom());
                }
            }
        }
        self.screen = Size { w, h };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_geometry() {
        let r = Rect::new(10.0, 20.0, 100.0, 50.0);
        assert_eq!(r.center(), (60.0, 45.0));
        assert!(r.contains(10.0, 20.0));
        assert!(!r.contains(110.0, 45.0));
        assert!(r.intersects(&Rect::new(100.0, 60.0, 50.0, 50.0)));
        assert!(!r.intersects(&Rect::new(110.0, 60.0, 50.0, 50.0)));
        assert!(!Rect::new(0.0, 0.0, f64::INFINITY, 1.0).is_valid());
        let u = r.union(&Rect::new(0.0, 0.0, 5.0, 5.0));
        assert_eq!(u, Rect::new(0.0, 0.0, 110.0, 70.0));
        assert_eq!(
            r.intersection(&Rect::new(100.0, 60.0, 50.0, 50.0)),
            Some(Rect::new(100.0, 60.0, 10.0, 10.0))
        );
        assert_eq!(r.intersection(&Rect::new(110.0, 60.0, 50.0, 50.0)), None);
    }

    #[test]
    fn role_names_round_trip() {
        for r in [Role::Button, Role::Textbox, Role::Menuitem, Role::Other] {
            assert_eq!(Role::parse(r.as_str()), Some(r));
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
        assert_eq!(Role::parse("BUTTON"), Some(Role::Button));
        assert_eq!(Role::parse("nope"), None);
    }

    #[test]
    fn subtree_ranges() {
        let mut t = Tree::new(DumpKind::Uiautomator);
        let a = t.push(Element::default(), None);
        let b = t.push(Element::default(), Some(a));
        let _c = t.push(Element::default(), Some(b));
        let d = t.push(Element::default(), Some(a));
        let e = t.push(Element::default(), None);
        assert_eq!(t.subtree_end(a), 4);
        assert_eq!(t.subtree_end(b), 3);
        assert!(t.is_ancestor_or_self(a, d));
        assert!(!t.is_ancestor_or_self(b, d));
        assert_eq!(t.roots, vec![a, e]);
        let w = t.without(b);
        assert_eq!(w.nodes.len(), 3);
        assert_eq!(w.nodes[0].children, vec![1]);
        assert_eq!(w.roots, vec![0, 2]);
    }
}
