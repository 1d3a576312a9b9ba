//! Which tools a connection offers (`mobilectl mcp --tools`, `/mcp?tools=`):
//! - by default, the agent's loop ([`crate::api::Mcp::Core`]: devices, read the screen, act,
//!   verify) with brief schemas ([`super::brief`]), plus `call` and `describe`
//!   ([`super::catalog`]), which reach every other operation on demand;
//! - `all`: every tool with its full schema, and nothing else (the list before the default
//!   was made small);
//! - group names (the table's tags): those groups' tools with full schemas, and only those.
//!
//! `core` may be named beside groups: the default list plus the groups' tools in full.

use rmcp::model::Tool;

use super::catalog;
use super::tools::{self, ToolDef};

/// What a connection offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// Every tool, full schemas.
    all: bool,
    /// The default list: core tools, `call` and `describe`.
    core: bool,
    /// Groups whose tools are offered with full schemas.
    groups: Vec<String>,
}

impl Default for Offer {
    fn default() -> Self {
        Offer {
            all: false,
            core: true,
            groups: Vec::new(),
        }
    }
}

/// A tool a connection offers.
#[derive(Debug, Clone, Copy)]
pub enum Offered {
    /// An operation's own tool.
    Operation(&'static ToolDef),
    /// `call`: any operation by name.
    Call,
    /// `describe`: the operations and their arguments.
    Describe,
}

/// What `--tools` takes: `all`, `core` and the groups.
pub fn choices() -> Vec<&'static str> {
    let mut c = vec![ALL, CORE];
    c.extend(tools::groups());
    c
}

const ALL: &str = "all";
const CORE: &str = "core";

impl Offer {
    /// The offer `values` name (none: the default). An unknown value is refused, naming the
    /// choices.
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<Offer, String> {
        if values.is_empty() {
            return Ok(Offer::default());
        }
        let groups = tools::groups();
        let mut offer = Offer {
            all: false,
            core: false,
            groups: Vec::new(),
        };
        for v in values {
            match v.as_ref().trim() {
                ALL => offer.all = true,
                CORE => offer.core = true,
                g if groups.contains(&g) => offer.groups.push(g.to_string()),
                other => {
                    return Err(format!(
                        "no tool group `{other}`; the choices are {}",
                        choices().join(", ")
                    ))
                }
            }
        }
        Ok(offer)
    }

    /// The offer of a `/mcp` request: its query's `tools` (comma-separated), else the default.
    pub fn from_query(query: Option<&str>) -> Result<Offer, String> {
        let value = query.and_then(|q| {
            form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "tools")
                .map(|(_, v)| v.into_owned())
        });
        match value {
            None => Ok(Offer::default()),
            Some(v) => Offer::parse(&v.split(',').collect::<Vec<_>>()),
        }
    }

    /// Whether `call` and `describe` are offered (and so every operation reachable).
    pub fn reaches_all(&self) -> bool {
        self.core && !self.all
    }

    /// The tool named `name`, if offered.
    pub fn find(&self, name: &str) -> Option<Offered> {
        if self.reaches_all() {
            match name {
                catalog::CALL => return Some(Offered::Call),
                catalog::DESCRIBE => return Some(Offered::Describe),
                _ => {}
            }
        }
        tools::find(name)
            .filter(|t| self.lists(t).is_some())
            .map(Offered::Operation)
    }

    /// How `tools/list` shows `t` here (brief or full), or `None` when it is not listed.
    fn lists(&self, t: &'static ToolDef) -> Option<&'static Tool> {
        if self.all || self.groups.iter().any(|g| g == t.group) {
            Some(&t.tool)
        } else if self.core && t.core {
            Some(&t.brief)
        } else {
            None
        }
    }

    /// The `tools/list` answer: offered operations in the table's order, then `call` and
    /// `describe` when offered.
    pub fn list(&self) -> Vec<Tool> {
        let mut list: Vec<Tool> = tools::tools()
            .iter()
            .filter_map(|t| self.lists(t).cloned())
            .collect();
        if self.reaches_all() {
            list.extend(catalog::tools());
        }
        list
    }

    /// What is offered, in words, for a refusal: "the groups act, verify".
    pub fn said(&self) -> String {
        let mut parts = Vec::new();
        if self.all {
            parts.push("every tool".to_string());
        }
        if self.core {
            parts.push("the default tools".to_string());
        }
        if !self.groups.is_empty() {
            parts.push(format!("the groups {}", self.groups.join(", ")));
        }
        parts.join(" and ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(o: &Offer) -> Vec<String> {
        o.list().into_iter().map(|t| t.name.to_string()).collect()
    }

    #[test]
    fn the_default_is_the_core_tools_then_call_and_describe() {
        let o = Offer::default();
        let listed = names(&o);
        let core: Vec<&str> = tools::tools()
            .iter()
            .filter(|t| t.core)
            .map(|t| t.tool.name.as_ref())
            .collect();
        assert!(core.len() >= 10, "{core:?}");
        assert_eq!(listed[..core.len()], core[..]);
        assert_eq!(listed[core.len()..], [catalog::CALL, catalog::DESCRIBE]);
        // Core tools are listed with their brief schema, and still found by name.
        let snapshot = o.list().into_iter().find(|t| t.name == "snapshot").unwrap();
        assert_eq!(
            snapshot.input_schema,
            tools::find("snapshot").unwrap().brief.input_schema
        );
        assert!(matches!(o.find("tap"), Some(Offered::Operation(_))));
        assert!(matches!(o.find("call"), Some(Offered::Call)));
        // Any other operation only through `call`.
        assert!(o.find("add_proxy_rule").is_none());
        assert!(o.reaches_all());
    }

    #[test]
    fn all_is_every_tool_in_full_and_nothing_else() {
        let o = Offer::parse(&["all"]).unwrap();
        let listed = o.list();
        assert_eq!(listed.len(), tools::tools().len());
        for (l, t) in listed.iter().zip(tools::tools()) {
            assert_eq!(l, &t.tool);
        }
        assert!(o.find("call").is_none() && !o.reaches_all());
    }

    #[test]
    fn groups_offer_their_tools_in_full_and_core_adds_the_default() {
        let o = Offer::parse(&["network"]).unwrap();
        assert!(names(&o)
            .iter()
            .all(|n| tools::find(n).unwrap().group == "network"));
        assert!(o.find("tap").is_none() && o.find("describe").is_none());
        assert_eq!(o.said(), "the groups network");

        let both = Offer::parse(&["core", "act"]).unwrap();
        let listed = both.list();
        // `tap` is core and in `act`: listed once, in full.
        let taps: Vec<_> = listed.iter().filter(|t| t.name == "tap").collect();
        assert_eq!(taps.len(), 1);
        assert_eq!(taps[0], &tools::find("tap").unwrap().tool);
        assert!(both.find("multi_touch").is_some() && both.find("call").is_some());
    }

    #[test]
    fn values_and_queries_are_checked() {
        let e = Offer::parse(&["acts"]).unwrap_err();
        assert!(e.contains("`acts`") && e.contains("all, core, "), "{e}");
        assert_eq!(Offer::from_query(None).unwrap(), Offer::default());
        assert_eq!(Offer::from_query(Some("x=1")).unwrap(), Offer::default());
        assert_eq!(
            Offer::from_query(Some("tools=act%2Cverify")).unwrap(),
            Offer::parse(&["act", "verify"]).unwrap()
        );
        assert!(Offer::from_query(Some("tools=nope")).is_err());
    }
}
