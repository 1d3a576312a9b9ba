//! Maestro flows: YAML files of UI steps that mobilectl checks without a device and runs
//! natively against its own operations. [`yaml`] reads text into nodes with lines, [`parse`]
//! turns them into a [`model::Flow`] or refusals with file and line, [`load`] reads files and
//! sub-flows and checks variables, [`vars`] fills `${NAME}` in, [`select`] matches Maestro's
//! selectors on a screen read, [`check`] reports a file or folder without running it,
//! [`run`] runs a flow on a device through the API's own operations, [`report`] writes JUnit.
//! [`budget`] bounds what one flow, with all its sub-flows and repeats, comes to.

pub mod budget;
pub mod check;
pub mod commands;
pub mod load;
pub mod model;
pub mod parse;
pub mod record;
pub mod report;
pub mod run;
pub mod select;
pub mod vars;
pub mod yaml;
