//! A run's artifact index, `<run>/artifacts.json`: every artifact's name, kind, bytes, time
//! and content type. Artifacts are found through it only: a name is never joined to a path
//! unless the index lists it (and it passes [`super::names::check_name`] again).

use std::path::Path;

use crate::api::wire::runs::ArtifactEntry;

/// The index file of the run in `dir`.
pub fn path(dir: &Path) -> std::path::PathBuf {
    dir.join("artifacts.json")
}

/// The index of the run in `dir` (empty when it has none or it does not parse).
pub fn read(dir: &Path) -> Vec<ArtifactEntry> {
    std::fs::read(path(dir))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Writes the index of the run in `dir` (to a temporary file, then renamed over it).
pub fn write(dir: &Path, entries: &[ArtifactEntry]) -> std::io::Result<()> {
    let tmp = dir.join(".artifacts.json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(entries)?)?;
    std::fs::rename(tmp, path(dir))
}
