//! What every rule needs to know of a screen, computed once: which elements are audited
//! (shown, not the keyboard's), which are controls, which have a labelled child, how many
//! tree units make a dp, and the stable identity a finding is keyed by.

use std::collections::HashMap;

use crate::ui::{CoordinateSpace, Element, Role, Screen};

use super::finding::{Engine, Finding, Measure, Rule};
use super::MAX_ELEMENTS;

/// The per-screen facts the rules share.
pub(super) struct Context<'a> {
    pub screen: &'a Screen,
    /// Android density (dpi) when known.
    pub density: Option<f64>,
    /// Per element: shown on screen and not part of the soft keyboard.
    pub audited: Vec<bool>,
    /// Per element: a control a user acts on (clickable, long-clickable or editable).
    pub control: Vec<bool>,
    /// Per element: a child that is not a control has a label, or has such a child: a screen
    /// reader speaks it as part of this element.
    pub labelled_below: Vec<bool>,
    /// The tree was longer than [`MAX_ELEMENTS`].
    pub truncated: bool,
}

impl<'a> Context<'a> {
    pub fn new(screen: &'a Screen, density: Option<f64>) -> Self {
        let els = &screen.elements;
        let n = els.len().min(MAX_ELEMENTS);
        let mut audited = vec![false; n];
        let mut in_keyboard = vec![false; n];
        for i in 0..n {
            let e = &els[i];
            in_keyboard[i] =
                e.role == Role::Keyboard || e.parent.is_some_and(|p| p < i && in_keyboard[p]);
            audited[i] = !in_keyboard[i] && screen.shown.get(i).copied().unwrap_or(false);
        }
        let control: Vec<bool> = els[..n].iter().map(is_control).collect();
        // A control exposed twice (same bounds, same label: WDA lists some twice) is one.
        let mut seen: HashMap<([u64; 4], Option<&str>), usize> = HashMap::new();
        for i in 0..n {
            if audited[i] && control[i] {
                let b = els[i].bounds;
                let k = ([b.x, b.y, b.w, b.h].map(f64::to_bits), els[i].label());
                if seen.insert(k, i).is_some() {
                    audited[i] = false;
                }
            }
        }
        let mut labelled_below = vec![false; n];
        for i in (0..n).rev() {
            labelled_below[i] = els[i].children.iter().any(|&c| {
                c < n && c > i && !control[c] && (els[c].label().is_some() || labelled_below[c])
            });
        }
        Context {
            screen,
            density,
            audited,
            control,
            labelled_below,
            truncated: els.len() > n,
        }
    }

    /// The elements looked at, by index.
    pub fn nodes(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.audited.len()).filter(|&i| self.audited[i])
    }

    pub fn audited_count(&self) -> usize {
        self.audited.iter().filter(|&&a| a).count()
    }

    pub fn el(&self, i: usize) -> &'a Element {
        &self.screen.elements[i]
    }

    pub fn ios(&self) -> bool {
        self.screen.coordinate_space == CoordinateSpace::Points
    }

    /// Tree units in one dp (Android pixels at the density) or one pt (iOS: 1).
    pub fn units_per_dp(&self) -> Option<f64> {
        match self.screen.coordinate_space {
            CoordinateSpace::Points => Some(1.0),
            CoordinateSpace::Pixels => self.density.map(|d| d / 160.0),
        }
    }

    /// `dp` or `pt`.
    pub fn size_unit(&self) -> &'static str {
        if self.ios() {
            "pt"
        } else {
            "dp"
        }
    }

    /// The name a screen reader speaks: the element's label, else the name its line of the
    /// compact text prints (a row takes its children's text), else an empty field's hint.
    pub fn spoken(&self, i: usize) -> Option<String> {
        self.screen
            .name_of(i)
            .or_else(|| self.el(i).hint.clone())
            .filter(|s| !s.trim().is_empty())
    }

    /// Whether `a` is `d` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, a: usize, d: usize) -> bool {
        let mut c = Some(d);
        let mut steps = 0;
        while let Some(x) = c {
            if x == a {
                return true;
            }
            if x < a || steps > 512 {
                return false;
            }
            steps += 1;
            c = self.el(x).parent;
        }
        false
    }

    /// A finding on element `i`, keyed by the rule and the element's identity.
    pub fn finding(
        &self,
        rule: Rule,
        severity: super::Severity,
        i: usize,
        measured: Option<Measure>,
        detail: String,
        fix: &str,
    ) -> Finding {
        let e = self.el(i);
        Finding {
            rule,
            severity,
            engine: Engine::Mobilectl,
            r#ref: self
                .screen
                .ref_owner(i)
                .and_then(|o| self.el(o).r#ref.clone()),
            role: e.role,
            name: self.spoken(i),
            bounds: e.bounds,
            measured,
            detail,
            wcag: rule.wcag().to_string(),
            fix: fix.to_string(),
            key: self.identity(rule, i),
        }
    }

    /// The rule and the element's place: its ancestors' classes, its id, its class, and its
    /// own label when it has no id. Not its ref, its index or its bounds, which change when
    /// something else on the screen does. Equal identities are told apart by [`number_keys`].
    fn identity(&self, rule: Rule, i: usize) -> String {
        let mut h = blake3::Hasher::new();
        h.update(rule.id().as_bytes());
        let mut c = Some(i);
        let mut depth = 0;
        while let Some(x) = c {
            if depth > 256 {
                break;
            }
            h.update(b"\0");
            h.update(self.el(x).class.as_deref().unwrap_or("").as_bytes());
            c = self.el(x).parent;
            depth += 1;
        }
        let e = self.el(i);
        h.update(b"\x01");
        match &e.id {
            Some(id) => h.update(id.as_bytes()),
            None => h.update(e.label().unwrap_or("").as_bytes()),
        };
        h.finalize().to_hex()[..16].to_string()
    }
}

/// Makes keys unique: the second finding of an identity gets `-2`, the third `-3` (in the
/// order given, which is reading order for one rule).
pub(super) fn number_keys(findings: &mut [Finding]) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for f in findings {
        let n = seen.entry(f.key.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            f.key = format!("{}-{}", f.key, n);
        }
    }
}

/// A control: something a user acts on. Lists, web views and keys are containers or the
/// keyboard's, not the app's controls.
fn is_control(e: &Element) -> bool {
    let s = &e.states;
    (s.clickable || s.long_clickable || s.editable)
        && !matches!(
            e.role,
            Role::List
                | Role::Webview
                | Role::Key
                | Role::Keyboard
                | Role::Window
                | Role::Application
        )
}
