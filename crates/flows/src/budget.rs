//! One budget for a whole flow, with all its sub-flows and repeats: the steps it comes to, and
//! the flow text and YAML nodes read to get them. A sub-flow file is read and parsed once per
//! `runFlow` naming it (a fan-out of files that each run the next twice doubles per file), so
//! each reading is charged; a `repeat` with a literal `times` charges its steps that many
//! times and a `retry` once per attempt. Past any limit the flow is refused where it went over
//! (file and line), and the parse stops there. At run time the same [`MAX_STEPS`] bounds the
//! step results one run records (a `while` loop, a `times: ${N}`), in the runner.

use super::yaml::{MAX_FLOW_BYTES, MAX_NODES};

/// Most steps one flow comes to: every command parsed (a sub-flow's once per `runFlow` naming
/// it), a `repeat`'s by its literal `times`, a `retry`'s by its attempts; and the most step
/// results one run records. A step costs some hundreds of bytes parsed and as a result.
pub const MAX_STEPS: usize = 20_000;
/// Most flow text read for one flow: its file, and each sub-flow's once per `runFlow` naming
/// it (16 of the largest file).
pub const MAX_TEXT_BYTES: usize = 16 * MAX_FLOW_BYTES;
/// Most YAML nodes read for one flow (aliases expanded), counted as its text is (5 of the
/// largest file).
pub const MAX_TEXT_NODES: usize = 5 * MAX_NODES;

/// What a flow has used of its budget so far; once over, it stays spent.
#[derive(Debug, Default)]
pub struct Budget {
    steps: usize,
    bytes: usize,
    nodes: usize,
    spent: bool,
}

impl Budget {
    /// Whether a charge went over: what comes after is not parsed (nor refused again).
    pub fn spent(&self) -> bool {
        self.spent
    }

    /// The steps charged so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Charges `n` steps; why not, the first time the flow goes over [`MAX_STEPS`].
    pub fn charge_steps(&mut self, n: usize) -> Result<(), String> {
        self.steps = self.steps.saturating_add(n);
        self.check(self.steps > MAX_STEPS, || {
            format!(
                "the flow comes to more than {MAX_STEPS} steps, the most one flow runs (each \
                 sub-flow counted once per `runFlow` naming it, a `repeat` by its `times`, a \
                 `retry` by its attempts)"
            )
        })
    }

    /// Charges a reading of flow text: its bytes, then (once parsed) its YAML nodes.
    pub fn charge_text(&mut self, bytes: usize, nodes: usize) -> Result<(), String> {
        self.bytes = self.bytes.saturating_add(bytes);
        self.nodes = self.nodes.saturating_add(nodes);
        self.check(self.bytes > MAX_TEXT_BYTES, || {
            format!(
                "the flow and its sub-flows come to more than {} MiB of text, the most one flow \
                 reads (each sub-flow read once per `runFlow` naming it)",
                MAX_TEXT_BYTES >> 20
            )
        })?;
        self.check(self.nodes > MAX_TEXT_NODES, || {
            format!(
                "the flow and its sub-flows come to more than {MAX_TEXT_NODES} YAML nodes, the \
                 most one flow reads (each sub-flow read once per `runFlow` naming it)"
            )
        })
    }

    /// Spends the budget when `over`, with the message; a budget already spent answers Ok:
    /// its first refusal stands alone.
    fn check(&mut self, over: bool, message: impl FnOnce() -> String) -> Result<(), String> {
        if !over || self.spent {
            return Ok(());
        }
        self.spent = true;
        Err(message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_refuses_once_then_stays_spent() {
        let mut b = Budget::default();
        assert!(b.charge_steps(MAX_STEPS).is_ok());
        assert!(!b.spent());
        let e = b.charge_steps(1).expect_err("one step over");
        assert!(e.contains("more than 20000 steps"), "{e}");
        assert!(b.spent());
        assert!(b.charge_steps(1).is_ok(), "refused once only");

        let mut b = Budget::default();
        assert!(b.charge_text(MAX_TEXT_BYTES, 10).is_ok());
        let e = b.charge_text(1, 0).expect_err("a byte over");
        assert!(e.contains("MiB of text"), "{e}");

        let mut b = Budget::default();
        assert!(b.charge_text(10, MAX_TEXT_NODES).is_ok());
        let e = b.charge_text(0, 1).expect_err("a node over");
        assert!(e.contains("YAML nodes"), "{e}");
        assert!(b.charge_steps(usize::MAX).is_ok() && b.spent());
    }
}
