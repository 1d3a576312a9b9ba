//! A host for the crate's tests: it answers every operation with `{}` and notes it, reads
//! the screens it was given in turn (the last one again and again), keeps files in memory, and
//! answers scripts from a table of values by code (notes each; unknown code is `undefined`,
//! code starting `throw` fails).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use mobilectl_error::Op;
use serde_json::{json, Value};

use crate::host::{Host, Script, ScriptDone, R};
use crate::select::tests::Made;

/// The fake host; see the module's doc.
#[derive(Default)]
pub(crate) struct Fake {
    /// The screens to read, in turn.
    pub screens: Mutex<VecDeque<Arc<Made>>>,
    /// Each operation called, with its arguments.
    pub calls: Mutex<Vec<(Op, Value)>>,
    /// Each file kept, by name.
    pub kept: Mutex<Vec<(String, Vec<u8>)>>,
    /// What each script evaluates to, by its code.
    pub values: Mutex<Vec<(String, String)>>,
    /// Each script evaluated, in order.
    pub scripts: Mutex<Vec<Script>>,
    /// The device is an iPhone or a Simulator (else Android).
    pub ios: bool,
}

impl Fake {
    /// A host reading `screens` in turn.
    pub fn reading(screens: Vec<Made>) -> Fake {
        Fake {
            screens: Mutex::new(screens.into_iter().map(Arc::new).collect()),
            ..Fake::default()
        }
    }

    /// The operations called, by name.
    pub fn ops(&self) -> Vec<Op> {
        let calls = self.calls.lock().unwrap();
        calls.iter().map(|(op, _)| *op).collect()
    }

    /// Scripts evaluate to these values, by code.
    pub fn evaluating(self, values: &[(&str, &str)]) -> Fake {
        *self.values.lock().unwrap() = values
            .iter()
            .map(|(c, v)| (c.to_string(), v.to_string()))
            .collect();
        self
    }

    /// The code of each script evaluated, in order.
    pub fn codes(&self) -> Vec<String> {
        let scripts = self.scripts.lock().unwrap();
        scripts.iter().map(|s| s.code.clone()).collect()
    }

    /// The files kept, by name.
    pub fn kept(&self) -> Vec<String> {
        let kept = self.kept.lock().unwrap();
        kept.iter().map(|(name, _)| name.clone()).collect()
    }
}

impl Host for &Fake {
    type Screen = Made;

    fn udid(&self) -> &str {
        "emulator-5554"
    }

    fn platform(&self) -> &str {
        if self.ios {
            "ios"
        } else {
            "android"
        }
    }

    async fn call(&self, op: Op, args: Value) -> R<Value> {
        self.calls.lock().unwrap().push((op, args));
        Ok(json!({}))
    }

    async fn read(&self, _after_op: bool) -> R<Arc<Made>> {
        let mut screens = self.screens.lock().unwrap();
        match screens.len() {
            0 => Err("no screen".into()),
            1 => Ok(screens[0].clone()),
            _ => Ok(screens.pop_front().unwrap()),
        }
    }

    async fn screenshot(&self) -> R<Vec<u8>> {
        Ok(b"\x89PNG".to_vec())
    }

    async fn start_recording(&self, _name: &str) -> R<()> {
        Ok(())
    }

    async fn stop_recording(&self, name: &str) -> R<()> {
        self.keep(&format!("{name}.mp4"), b"mp4")
    }

    fn keep(&self, name: &str, bytes: &[u8]) -> R<()> {
        let mut kept = self.kept.lock().unwrap();
        kept.push((name.to_string(), bytes.to_vec()));
        Ok(())
    }

    fn kept_in(&self) -> PathBuf {
        PathBuf::from("/runs/artifacts")
    }

    async fn add_media(&self, name: &str, bytes: &[u8]) -> R<()> {
        self.keep(&format!("media:{name}"), bytes)
    }

    async fn script(&self, script: Script) -> R<ScriptDone> {
        self.scripts.lock().unwrap().push(script.clone());
        if script.code.starts_with("throw") {
            return Err(format!("Error: thrown by {}", script.name));
        }
        let values = self.values.lock().unwrap();
        let value = values
            .iter()
            .find(|(code, _)| *code == script.code)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| "undefined".into());
        Ok(ScriptDone {
            value,
            console: vec![format!("ran {}", script.name)],
        })
    }
}
