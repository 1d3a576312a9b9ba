//! Finding the UiAutomator2 server's two APKs and installing them. The APKs are the npm
//! package `appium-uiautomator2-server`'s (`apks/`), found where npm or Appium put it, or
//! given by the user; either way each file's manifest is read first (`apk_manifest`), so only
//! the server's packages reach the device, and a wrong file is refused before anything is
//! installed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_trait::async_trait;

use super::protocol::{INSTRUMENTATION, SERVER_PACKAGE, TEST_PACKAGE};
use crate::api::wire::devices::{HelperInstalled, HelperPackage};
use crate::backend::android::AdbBackend;
use crate::backend::{Apps, DeviceHelper};
use crate::device::Device;
use crate::error::{Error, ErrorCode, Result};

/// A folder of the user's with the two APKs, looked in first.
pub const APKS_ENV: &str = "MOBILECTL_UIA2_APKS";

/// The npm package carrying the APKs.
pub const NPM_PACKAGE: &str = "appium-uiautomator2-server";
/// The Appium driver that depends on it (Appium installs drivers under `APPIUM_HOME`).
const APPIUM_DRIVER: &str = "appium-uiautomator2-driver";
/// Time limit of `npm root -g`.
const NPM_TIMEOUT: Duration = Duration::from_secs(15);

/// One APK of the pair, as its manifest says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperApk {
    /// Where it is.
    pub path: PathBuf,
    /// Its package.
    pub package: String,
    /// Its version name.
    pub version: Option<String>,
}

/// The pair: the server and its test package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperApks {
    /// `io.appium.uiautomator2.server`.
    pub server: HelperApk,
    /// `io.appium.uiautomator2.server.test`, which instruments the server.
    pub test: HelperApk,
}

/// Reads one file's manifest.
fn read(path: &Path) -> std::result::Result<apk_manifest::Manifest, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    apk_manifest::read_manifest_from(std::io::BufReader::new(file)).map_err(|e| e.to_string())
}

/// The pair among `files`: every file must be an APK of the server's, both packages present.
pub fn pair_of(files: &[PathBuf]) -> Result<HelperApks> {
    let mut server = None;
    let mut test = None;
    for path in files {
        let shown = path.display();
        let m = read(path).map_err(|why| {
            Error::validation(format!("`{shown}` is not an APK: {why}"))
                .with_hint("pass the two APKs of the npm package appium-uiautomator2-server (its apks/ folder)")
        })?;
        let apk = HelperApk {
            path: path.clone(),
            package: m.package.clone(),
            version: m.version_name.clone(),
        };
        match m.package.as_str() {
            SERVER_PACKAGE => server = Some(apk),
            TEST_PACKAGE
                if m
                    .instrumentations
                    .iter()
                    .any(|i| m.instrumentation_component(i) == INSTRUMENTATION) =>
            {
                test = Some(apk)
            }
            other => {
                return Err(Error::validation(format!(
                    "`{shown}` is the package `{other}`, not the UiAutomator2 server's"
                ))
                .with_hint(format!(
                    "the helper is {SERVER_PACKAGE} and {TEST_PACKAGE}: the APKs of the npm package {NPM_PACKAGE}"
                )))
            }
        }
    }
    match (server, test) {
        (Some(server), Some(test)) => Ok(HelperApks { server, test }),
        (s, _) => Err(Error::validation(format!(
            "the UiAutomator2 server needs two APKs; {} is missing",
            if s.is_none() {
                SERVER_PACKAGE
            } else {
                TEST_PACKAGE
            }
        ))
        .with_hint(format!(
            "pass both APKs of the npm package {NPM_PACKAGE} (its apks/ folder)"
        ))),
    }
}

/// The `.apk` files of a folder.
fn apks_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "apk") && p.is_file())
        .collect();
    out.sort();
    out
}

/// The folders looked in for the npm package's `apks/`, in order: the folder
/// [`APKS_ENV`] names, the working folder's `node_modules`, npm's global root, and Appium's
/// home.
pub async fn places() -> Vec<PathBuf> {
    let configured = std::env::var_os(APKS_ENV).map(PathBuf::from);
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        roots.push(cwd.join("node_modules"));
    }
    if let Some(global) = npm_global_root().await {
        roots.push(global);
    }
    let appium_home = std::env::var_os("APPIUM_HOME")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".appium")));
    if let Some(home) = appium_home {
        roots.push(home.join("node_modules"));
    }
    let mut places: Vec<PathBuf> = configured.into_iter().collect();
    for root in roots {
        places.push(root.join(NPM_PACKAGE).join("apks"));
        places.push(
            root.join(APPIUM_DRIVER)
                .join("node_modules")
                .join(NPM_PACKAGE)
                .join("apks"),
        );
    }
    places.dedup();
    places
}

/// `npm root -g`, when npm is installed and answers.
async fn npm_global_root() -> Option<PathBuf> {
    let npm = which::which("npm").ok()?;
    let out = crate::exec::Command::new(npm)
        .args(["root", "-g"])
        .timeout(NPM_TIMEOUT)
        .run()
        .await
        .ok()?;
    let root = out.stdout_text().trim().to_string();
    (out.success() && !root.is_empty()).then(|| PathBuf::from(root))
}

/// The pair in the first of `places` that has one; `NOT_FOUND` naming where it looked.
pub fn find(places: &[PathBuf]) -> Result<(HelperApks, PathBuf)> {
    let mut refused = Vec::new();
    for place in places {
        let files = apks_in(place);
        if files.is_empty() {
            continue;
        }
        match pair_of(&files) {
            Ok(pair) => return Ok((pair, place.clone())),
            Err(e) => refused.push(format!("{}: {}", place.display(), e.message)),
        }
    }
    Err(Error::new(
        ErrorCode::NotFound,
        "the UiAutomator2 server's APKs were not found",
    )
    .with_hint(format!(
        "`npm install -g {NPM_PACKAGE}` (or install Appium's uiautomator2 driver), or pass the two APKs"
    ))
    .with_details(serde_json::json!({
        "looked_in": places.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "refused": refused,
    })))
}

#[async_trait]
impl DeviceHelper for AdbBackend {
    /// Both APKs checked, then installed (`adb install -r`), the server first; the device's
    /// fast path is looked at again at its next read.
    async fn install_helper(&self, device: &Device, given: &[PathBuf]) -> Result<HelperInstalled> {
        let started = std::time::Instant::now();
        let (pair, source, looked_in) = if given.is_empty() {
            let places = places().await;
            let (pair, place) = find(&places)?;
            let shown = places.iter().map(|p| p.display().to_string()).collect();
            (pair, place.display().to_string(), shown)
        } else {
            (pair_of(given)?, "given".to_string(), Vec::new())
        };
        let mut packages = Vec::new();
        for apk in [&pair.server, &pair.test] {
            self.install_app(device, &apk.path).await?;
            packages.push(HelperPackage {
                package: apk.package.clone(),
                version: apk.version.clone(),
                path: apk.path.display().to_string(),
            });
        }
        self.note_helper_installed(&device.udid);
        self.reset_resident(&device.udid).await;
        Ok(HelperInstalled {
            device: device.clone(),
            packages,
            source,
            looked_in,
            install_ms: started.elapsed().as_millis() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_are_not_apks_or_not_the_server_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.apk");
        std::fs::write(&text, "not a zip").unwrap();
        let e = pair_of(std::slice::from_ref(&text)).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationFailed);
        assert!(e.message.contains("is not an APK"), "{}", e.message);
        let e = pair_of(&[dir.path().join("absent.apk")]).unwrap_err();
        assert!(e.message.contains("cannot open it"), "{}", e.message);
    }

    /// The real test package's manifest with its package renamed (same length, UTF-16 in the
    /// string pool), in an APK of its own.
    fn apk_of_another_package(dir: &Path) -> PathBuf {
        use std::io::Write;
        let mut manifest =
            include_bytes!("../../../../crates/apk/tests/data/uia2_server_test_10.6.6.axml")
                .to_vec();
        let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        let (from, to) = (
            utf16("uiautomator2.server.test"),
            utf16("uiautomator2.server.tesX"),
        );
        let at = manifest
            .windows(from.len())
            .position(|w| w == from.as_slice())
            .unwrap();
        manifest[at..at + to.len()].copy_from_slice(&to);
        let path = dir.join("other.apk");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        zip.start_file(
            "AndroidManifest.xml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.write_all(&manifest).unwrap();
        zip.finish().unwrap();
        path
    }

    #[test]
    fn an_apk_of_another_package_is_refused_by_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let other = apk_of_another_package(dir.path());
        let e = pair_of(&[other]).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationFailed);
        assert!(
            e.message
                .contains("`io.appium.uiautomator2.server.tesX`, not the UiAutomator2 server's"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_folder_without_the_pair_is_reported_with_where_it_looked() {
        let dir = tempfile::tempdir().unwrap();
        let e = find(&[dir.path().to_path_buf()]).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        let details = e.details.unwrap();
        assert_eq!(details["looked_in"][0], dir.path().display().to_string());
    }
}
