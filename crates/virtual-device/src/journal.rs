//! The journal: one JSON object per line, appended for every service request
//! (`{"seq":1,"t_ms":…,"service":"shell:echo hi"}`) and every program a device command ran, as
//! the argv mksh produced (`{"seq":2,"t_ms":…,"argv":["input","text","a;b$(id)"]}`); sync
//! requests appear as argv `["sync","SEND","/sdcard/x"]`, and a host whose key is not
//! authorised as `{"seq":3,"t_ms":…,"auth_refused":"user@host"}` (the comment of its key); a
//! request to the UiAutomator2 server stand-in as `{"seq":4,"t_ms":…,"uia2":"GET /status"}`;
//! what the device does with the WebView's Chromium as `{"seq":5,"t_ms":…,"web":"tap 205.7
//! 209.1"}` (see `web`). `t_ms` is milliseconds since the Unix
//! epoch; `seq` starts at 1 and increases by one per line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub struct Journal {
    path: PathBuf,
    file: Mutex<std::fs::File>,
    seq: AtomicU64,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Journal {
    pub fn create(path: &Path) -> std::io::Result<Journal> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Journal {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            seq: AtomicU64::new(0),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn append(&self, key: &str, value: serde_json::Value) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        let mut obj = serde_json::Map::new();
        obj.insert("seq".into(), seq.into());
        obj.insert("t_ms".into(), now_ms().into());
        obj.insert(key.into(), value);
        let mut line = serde_json::Value::Object(obj).to_string();
        line.push('\n');
        let _ = file.write_all(line.as_bytes());
    }

    pub fn service(&self, service: &str) {
        self.append("service", service.into());
    }

    /// A host offered a public key that is not authorised (`comment`: its `user@host`).
    pub fn auth_refused(&self, comment: &str) {
        self.append("auth_refused", comment.into());
    }

    /// A request to the UiAutomator2 server stand-in: `POST /session/ID/actions`.
    pub fn uia2(&self, request: &str) {
        self.append("uia2", request.into());
    }

    /// What the device did with the WebView's Chromium: `start pid=… socket=… port=… ms=…`, `tap X Y`.
    pub fn web(&self, what: &str) {
        self.append("web", what.into());
    }

    pub fn argv<S: AsRef<str>>(&self, argv: &[S]) {
        let v: Vec<serde_json::Value> = argv.iter().map(|s| s.as_ref().into()).collect();
        self.append("argv", serde_json::Value::Array(v));
    }
}
