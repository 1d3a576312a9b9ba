//! What an Android package says about itself, read from the APK without a device: the
//! package name, version and instrumentations of its `AndroidManifest.xml`.
//!
//! An APK is a zip; its manifest is compiled to Android's binary XML (a string pool, then
//! start and end element chunks whose attributes point into the pool). [`read_manifest`]
//! opens the zip, takes the manifest entry and walks its chunks ([`axml`]) for the few
//! attributes this crate reports: nothing here resolves resources or writes XML back.
//!
//! Used by mobilectl to check that the files given as its Android helper are the helper's
//! packages before anything is installed, and by the virtual device to know which package
//! an install brought.

mod axml;

use std::io::Read;

/// The manifest facts of one APK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The application id (`<manifest package=…>`).
    pub package: String,
    /// `android:versionName`, when the manifest gives it as text.
    pub version_name: Option<String>,
    /// `android:versionCode`, when given.
    pub version_code: Option<u32>,
    /// The `<instrumentation>` elements: test runners this package brings.
    pub instrumentations: Vec<Instrumentation>,
}

/// One `<instrumentation android:name=… android:targetPackage=…>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrumentation {
    /// The runner class (`androidx.test.runner.AndroidJUnitRunner`).
    pub name: String,
    /// The package it instruments.
    pub target_package: String,
}

impl Manifest {
    /// The component `am instrument` takes for `runner`: `PACKAGE/RUNNER`.
    pub fn instrumentation_component(&self, runner: &Instrumentation) -> String {
        format!("{}/{}", self.package, runner.name)
    }
}

/// Why an APK could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ApkError {
    /// The bytes are not a zip archive.
    #[error("not a zip archive (an APK is one): {0}")]
    NotZip(String),
    /// The zip has no `AndroidManifest.xml` at its root.
    #[error("the archive has no AndroidManifest.xml: not an APK")]
    NoManifest,
    /// The manifest entry could not be read out of the zip.
    #[error("the manifest could not be read from the archive: {0}")]
    Unreadable(String),
    /// The manifest is not Android binary XML, or is cut short.
    #[error("the manifest is not valid Android binary XML: {0}")]
    Malformed(&'static str),
    /// The manifest has no `<manifest package=…>`.
    #[error("the manifest names no package")]
    NoPackage,
}

/// The name of the manifest entry in every APK.
pub const MANIFEST_ENTRY: &str = "AndroidManifest.xml";
/// Manifests above this size are refused (real ones are tens of kilobytes).
const MANIFEST_LIMIT: u64 = 8 * 1024 * 1024;

/// Reads the manifest of the APK in `apk`.
pub fn read_manifest(apk: &[u8]) -> Result<Manifest, ApkError> {
    read_manifest_from(std::io::Cursor::new(apk))
}

/// Reads the manifest of an APK from a seekable reader (an open file: only the zip's
/// directory and the manifest entry are read).
pub fn read_manifest_from(
    reader: impl std::io::Read + std::io::Seek,
) -> Result<Manifest, ApkError> {
    let mut zip = zip::ZipArchive::new(reader).map_err(|e| ApkError::NotZip(e.to_string()))?;
    let mut entry = match zip.by_name(MANIFEST_ENTRY) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => return Err(ApkError::NoManifest),
        Err(e) => return Err(ApkError::Unreadable(e.to_string())),
    };
    if entry.size() > MANIFEST_LIMIT {
        return Err(ApkError::Malformed(
            "the manifest is larger than any real one",
        ));
    }
    let mut bytes = Vec::with_capacity(entry.size() as usize);
    entry
        .by_ref()
        .take(MANIFEST_LIMIT)
        .read_to_end(&mut bytes)
        .map_err(|e| ApkError::Unreadable(e.to_string()))?;
    axml::manifest(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_with(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut out);
            for (name, data) in entries {
                w.start_file(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                w.write_all(data).unwrap();
            }
            w.finish().unwrap();
        }
        out.into_inner()
    }

    #[test]
    fn a_zip_without_a_manifest_is_not_an_apk() {
        let apk = zip_with(&[("classes.dex", b"dex\n035\0")]);
        assert_eq!(read_manifest(&apk), Err(ApkError::NoManifest));
    }

    #[test]
    fn bytes_that_are_no_zip_say_so() {
        assert!(matches!(
            read_manifest(b"<manifest package=\"a.b\"/>"),
            Err(ApkError::NotZip(_))
        ));
    }

    #[test]
    fn a_text_manifest_is_not_binary_xml() {
        let apk = zip_with(&[(MANIFEST_ENTRY, b"<manifest package=\"a.b\"/>")]);
        assert!(matches!(read_manifest(&apk), Err(ApkError::Malformed(_))));
    }

    #[test]
    fn a_built_manifest_reads_back_through_the_zip() {
        let axml = axml::tests::build_manifest("io.example.app", Some("1.2"), &[]);
        let apk = zip_with(&[(MANIFEST_ENTRY, &axml)]);
        let m = read_manifest(&apk).unwrap();
        assert_eq!(m.package, "io.example.app");
        assert_eq!(m.version_name.as_deref(), Some("1.2"));
    }
}
