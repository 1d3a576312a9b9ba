//! CSS selectors on web content: the page answers which DOM nodes a CSS selector matches
//! (through the backend's [`concern::Web`]), then the tree is searched for the web elements
//! read from those nodes. A selector without `css` passes through untouched, without asking
//! the device anything.

use std::borrow::Cow;

use super::DeviceController;
use crate::api::wire::verify::Expectation;
use crate::backend::concern;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::ui::select::Selector;

impl DeviceController {
    /// `selector` with the DOM nodes its `css` matches in the device's pages filled in.
    pub(super) async fn bind_css<'s>(
        &self,
        device: &Device,
        selector: &'s Selector,
    ) -> Result<Cow<'s, Selector>> {
        let Some(css) = selector.css.as_deref() else {
            return Ok(Cow::Borrowed(selector));
        };
        if css.trim().is_empty() {
            return Err(Error::validation(
                "`css` is empty: give a CSS selector such as `#email`",
            ));
        }
        let nodes = self
            .cap(device, concern::Web)?
            .css_nodes(device, css)
            .await?;
        let mut bound = selector.clone();
        bound.css_nodes = Some(nodes);
        Ok(Cow::Owned(bound))
    }

    /// `expectation` with the CSS of its selector bound (see [`Self::bind_css`]).
    pub(super) async fn bind_expectation<'e>(
        &self,
        device: &Device,
        expectation: &'e Expectation,
    ) -> Result<Cow<'e, Expectation>> {
        let bind = |selector: &Selector| selector.css.is_some().then(|| selector.clone());
        let (selector, rebuild): (Selector, fn(Selector, &Expectation) -> Expectation) =
            match expectation {
                Expectation::ElementVisible { selector } => match bind(selector) {
                    Some(s) => (s, |selector, _| Expectation::ElementVisible { selector }),
                    None => return Ok(Cow::Borrowed(expectation)),
                },
                Expectation::ElementNotVisible { selector } => match bind(selector) {
                    Some(s) => (s, |selector, _| Expectation::ElementNotVisible { selector }),
                    None => return Ok(Cow::Borrowed(expectation)),
                },
                Expectation::ElementHasText { selector, .. } => match bind(selector) {
                    Some(s) => (s, |selector, e| match e {
                        Expectation::ElementHasText { text, .. } => Expectation::ElementHasText {
                            selector,
                            text: text.clone(),
                        },
                        other => other.clone(),
                    }),
                    None => return Ok(Cow::Borrowed(expectation)),
                },
                _ => return Ok(Cow::Borrowed(expectation)),
            };
        let bound = self.bind_css(device, &selector).await?.into_owned();
        Ok(Cow::Owned(rebuild(bound, expectation)))
    }
}
