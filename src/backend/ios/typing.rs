//! Typing on a simulator. AXe and idb type through HID key codes of a US keyboard, so only
//! printable US-ASCII goes that way: `axe type --stdin --udid U` (text on stdin, so no text is
//! ever read as a flag) or `idb ui text TEXT --udid U` (leading `-` sent as HID key 45 first,
//! since argparse would take `-x…` for an option). Other text — and any text when the
//! simulator's keyboard layout is not US — goes through the pasteboard: `xcrun simctl pbcopy U`
//! with the text on stdin, then Cmd+V as `axe key-combo --modifiers 227 --key 25 --udid U`
//! (HID Left-GUI + `v`). idb has no modifier combos, so with idb only non-ASCII text is
//! `422 UNSUPPORTED_TEXT`. Pasting replaces the simulator's pasteboard contents.

use super::ui::UiTool;
use super::{SimctlBackend, QUICK_TIMEOUT};
use crate::backend::TypedWith;
use crate::error::{Error, ErrorCode, Result};
use crate::exec::Tool;

/// HID usage of the `-` key.
pub(super) const HID_MINUS: &str = "45";
/// HID usages of Left-GUI (Cmd) and `v`.
const HID_CMD: &str = "227";
const HID_V: &str = "25";

/// Whether AXe/idb can type `text` key by key (printable US-ASCII, no newlines).
pub fn is_hid_typeable(text: &str) -> bool {
    text.chars().all(|c| (' '..='~').contains(&c))
}

impl SimctlBackend {
    /// Types any text by putting it on the simulator's pasteboard and pressing Cmd+V (AXe).
    /// Use it for non-ASCII text or when the simulator's keyboard layout is not US.
    pub async fn paste_text(&self, udid: &str, text: &str) -> Result<TypedWith> {
        if self.ui_tool()? != UiTool::Axe {
            return Err(Error::new(
                ErrorCode::UnsupportedText,
                "idb can type only US-ASCII text and cannot paste",
            )
            .with_hint(format!(
                "type ASCII text only, or {}: mobilectl then pastes other text through \
                 `simctl pbcopy` and Cmd+V",
                Tool::Axe.install_hint()
            )));
        }
        self.simctl_ok_stdin(["pbcopy", udid], text, "simctl pbcopy")
            .await?;
        let args = ["key-combo", "--modifiers", HID_CMD, "--key", HID_V];
        self.gesture(
            UiTool::Axe,
            udid,
            args.iter().map(|a| a.to_string()).collect(),
            0,
            "pasting",
        )
        .await?;
        Ok(TypedWith("pasteboard"))
    }

    async fn simctl_ok_stdin(&self, args: [&str; 2], input: &str, what: &str) -> Result<()> {
        let cmd = self
            .simctl()?
            .args(args)
            .stdin(input.as_bytes().to_vec())
            .timeout(QUICK_TIMEOUT);
        let out = self.run(cmd).await?;
        if out.success() {
            Ok(())
        } else {
            Err(crate::backend::command_failed(Tool::Xcrun, what, &out))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_hid_typeable;

    #[test]
    fn typeable_text() {
        assert!(is_hid_typeable("Hello, World! ~`{}[]|\\:\";'<>?,./"));
        assert!(!is_hid_typeable("café"));
        assert!(!is_hid_typeable("日本語"));
        assert!(!is_hid_typeable("two\nlines"));
    }
}
