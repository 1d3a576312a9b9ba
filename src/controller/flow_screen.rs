//! A screen read as the flows crate's selectors read it: [`crate::ui::Screen`] (the canonical
//! tree) and a [`Snapshot`] (by its screen) implement its [`Screen`], so the runner matches
//! Maestro's selectors on the controller's own reads, and a recording names the element an
//! operation resolved (`crate::flows::record::note`).

use mobilectl_flows::select::{Bounds, Node, Screen};

use super::Snapshot;

/// The canonical tree as selectors read it.
impl Screen for crate::ui::Screen {
    fn count(&self) -> usize {
        self.elements.len()
    }

    fn node(&self, i: usize) -> Node<'_> {
        let e = &self.elements[i];
        let b = e.bounds;
        Node {
            text: e.text.as_deref(),
            name: e.name.as_deref(),
            desc: e.desc.as_deref(),
            id: e.id.as_deref(),
            bounds: Bounds {
                x: b.x,
                y: b.y,
                w: b.w,
                h: b.h,
            },
            enabled: e.states.enabled,
            checked: e.states.checked,
            focused: e.states.focused,
            selected: e.states.selected,
            password: e.states.password,
        }
    }

    fn size(&self) -> (f64, f64) {
        (self.screen.w, self.screen.h)
    }

    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// A snapshot is read by its screen.
impl Screen for Snapshot {
    fn count(&self) -> usize {
        self.screen.count()
    }

    fn node(&self, i: usize) -> Node<'_> {
        self.screen.node(i)
    }

    fn size(&self) -> (f64, f64) {
        self.screen.size()
    }

    fn fingerprint(&self) -> &str {
        &self.screen.fingerprint
    }
}

#[cfg(test)]
mod tests {
    use mobilectl_flows::model::Selector;
    use mobilectl_flows::select::{candidates, pick};

    fn screen(path: &str) -> crate::ui::Screen {
        let text =
            std::fs::read_to_string(format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR")))
                .expect("fixture");
        let tree = crate::ui::parse::parse_any(&text).expect("dump");
        crate::ui::analyze_owned(tree, None, &Default::default())
    }

    fn sel(text: Option<&str>, id: Option<&str>) -> Selector {
        Selector {
            text: text.map(Into::into),
            id: id.map(Into::into),
            ..Selector::default()
        }
    }

    #[test]
    fn maestro_semantics_on_a_real_uiautomator_dump() {
        let s = screen("android_uiautomator/fdroid_app_list.xml");
        let count = |sel: &Selector| candidates(&s, sel).expect("regex").len();
        let cases: &[(Selector, usize)] = &[
            // Whole match: a prefix alone matches nothing; a regex spanning it does.
            (sel(Some("Send usage data"), None), 1),
            (sel(Some("Send usage"), None), 0),
            (sel(Some("Send usage.*"), None), 1),
            (sel(Some("(?i)send USAGE data"), None), 1),
            (sel(Some("Force old .*"), None), 2),
            // id: whole, or its last segment.
            (sel(None, Some("org.fdroid.fdroid:id/switchWidget")), 7),
            (sel(None, Some("switchWidget")), 7),
            (sel(None, Some("switch")), 0),
        ];
        for (sel, want) in cases {
            assert_eq!(count(sel), *want, "{}", sel.describe());
        }
        // index: the n-th match in reading order; out of range matches nothing.
        let force = sel(Some("Force old .*"), None);
        let all = candidates(&s, &force).expect("regex");
        let second = Selector {
            index: Some("1".into()),
            ..force.clone()
        };
        assert_eq!(pick(&s, &second).expect("pick"), vec![all[1]]);
        let tenth = Selector {
            index: Some("9".into()),
            ..force.clone()
        };
        assert!(pick(&s, &tenth).expect("pick").is_empty());
        // below: the second "Force old" is below the first.
        let below = Selector {
            below: Some(Box::new(sel(Some("Force old index format"), None))),
            ..force
        };
        assert_eq!(pick(&s, &below).expect("pick"), vec![all[1]]);
        // A bad regex is an error, not a panic.
        assert!(candidates(&s, &sel(Some("("), None)).is_err());
    }

    #[test]
    fn maestro_semantics_on_a_real_axe_tree() {
        let s = screen(
            "ios_axe/axe_describe_ui_contacts_search_subtree_ios18.5_axe1.8_reformatted.json",
        );
        let count = |sel: &Selector| candidates(&s, sel).expect("regex").len();
        let cases: &[(Selector, usize)] = &[
            // text: the accessibility label (the image's "Search"), whole.
            (sel(Some("Dictate"), None), 1),
            (sel(Some("Dict"), None), 0),
            (sel(Some("Dict.*"), None), 1),
            (sel(Some("(?i)dictate"), None), 1),
            // id: the accessibility identifier, whole.
            (sel(None, Some("magnifyingglass")), 1),
            (sel(None, Some("magnifying.*")), 1),
            (sel(None, Some("magnifying")), 0),
            (sel(Some("Nothing like it"), None), 0),
        ];
        for (sel, want) in cases {
            assert_eq!(count(sel), *want, "{}", sel.describe());
        }
        // Relations in points: the dictation button is right of the magnifying glass.
        let right = Selector {
            right_of: Some(Box::new(sel(None, Some("magnifyingglass")))),
            ..sel(None, Some("Dictate"))
        };
        assert_eq!(pick(&s, &right).expect("pick").len(), 1);
        let left = Selector {
            left_of: Some(Box::new(sel(None, Some("magnifyingglass")))),
            ..sel(None, Some("Dictate"))
        };
        assert!(pick(&s, &left).expect("pick").is_empty());
    }
}
