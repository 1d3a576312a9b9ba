//! App and system operations of the controller: resolve the device, validate identifiers and
//! paths for its platform, then hand over to its backend.

use std::path::Path;
use std::time::Instant;

use crate::backend::types::{AppInfo, LaunchOptions, Launched, PermissionAction};
use crate::backend::{validate, Device, Platform};
use crate::error::{Error, ErrorCode, Result};

use super::DeviceController;

/// Checks an app identifier against the device's platform rules.
pub fn check_bundle_id<'a>(device: &Device, bundle_id: &'a str) -> Result<&'a str> {
    match device.platform {
        Platform::Android => validate::android_package(bundle_id),
        Platform::Ios => validate::ios_bundle_id(bundle_id),
    }
}

/// Checks that an install path exists and has the platform's package form.
/// Whether the file begins with a zip signature (`PK\x03\x04`), as every APK does.
fn starts_like_a_zip(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == *b"PK\x03\x04")
}

pub fn check_install_path(device: &Device, path: &Path) -> Result<()> {
    let shown = path.display();
    let meta = std::fs::symlink_metadata(path).map_err(|_| {
        Error::new(ErrorCode::NotFound, format!("`{shown}` does not exist"))
            .with_hint("pass an absolute path on the machine running the server")
    })?;
    if meta.file_type().is_symlink() {
        // A link could point the device tool at any file of this machine.
        return Err(Error::validation(format!("`{shown}` is a symbolic link"))
            .with_hint("pass the path of the app itself, not of a link to it"));
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match device.platform {
        Platform::Android if ext == "aab" => Err(Error::validation(
            "an Android App Bundle (.aab) cannot be installed directly",
        )
        .with_hint("build an .apk from it first: `bundletool build-apks --mode=universal`, then unzip universal.apk")),
        Platform::Android if ext != "apk" || !meta.is_file() => Err(Error::validation(format!(
            "`{shown}` is not an .apk file"
        ))
        .with_hint("Android installs take an .apk file")),
        Platform::Android if !starts_like_a_zip(path) => Err(Error::validation(format!(
            "`{shown}` is named .apk but is not an APK (an APK is a zip archive)"
        ))
        .with_hint("pass the .apk your build produced")),
        Platform::Ios if ext == "ipa" => Err(Error::validation(
            "an .ipa is built for devices; simulators install the .app folder",
        )
        .with_hint("build for the simulator (xcodebuild -sdk iphonesimulator) and pass the .app folder")),
        Platform::Ios if ext != "app" || !meta.is_dir() => Err(Error::validation(format!(
            "`{shown}` is not an .app folder"
        ))
        .with_hint("iOS Simulator installs take the .app folder from a simulator build")),
        _ => Ok(()),
    }
}

impl DeviceController {
    pub async fn install_app(&self, udid: Option<&str>, path: &Path) -> Result<Device> {
        let device = self.resolve_to_act(udid).await?;
        check_install_path(&device, path)?;
        self.backend(&device).install_app(&device, path).await?;
        Ok(device)
    }

    /// Launches an app; answers its crash or ANR too when it had one while starting.
    pub async fn launch_app(
        &self,
        udid: Option<&str>,
        bundle_id: &str,
        opts: &LaunchOptions,
    ) -> Result<(Device, Launched, Option<crate::logs::Crash>)> {
        let device = self.resolve_to_act(udid).await?;
        check_bundle_id(&device, bundle_id)?;
        if let Some(activity) = &opts.activity {
            validate::android_activity(activity)?;
        }
        let mark = self.log_mark(&device, Some(bundle_id.to_string()));
        let started = Instant::now();
        let mut launched = self
            .backend(&device)
            .launch_app(&device, bundle_id, opts)
            .await?;
        if launched.launch_time_ms == 0 {
            launched.launch_time_ms = started.elapsed().as_millis() as u64;
        }
        let crash = self.crash_in_window(&device, &mark, true).await;
        Ok((device, launched, crash))
    }

    pub async fn terminate_app(&self, udid: Option<&str>, bundle_id: &str) -> Result<Device> {
        let device = self.resolve_to_act(udid).await?;
        check_bundle_id(&device, bundle_id)?;
        self.backend(&device)
            .terminate_app(&device, bundle_id)
            .await?;
        Ok(device)
    }

    pub async fn reset_app(&self, udid: Option<&str>, bundle_id: &str) -> Result<Device> {
        let device = self.resolve_to_act(udid).await?;
        check_bundle_id(&device, bundle_id)?;
        self.backend(&device).reset_app(&device, bundle_id).await?;
        Ok(device)
    }

    pub async fn list_apps(&self, udid: Option<&str>) -> Result<(Device, Vec<AppInfo>)> {
        let device = self.resolve_ready(udid).await?;
        let apps = self.backend(&device).list_apps(&device).await?;
        Ok((device, apps))
    }

    pub async fn open_url(&self, udid: Option<&str>, url: &str, allow_any: bool) -> Result<Device> {
        validate::open_url(url, allow_any)?;
        let device = self.resolve_to_act(udid).await?;
        self.backend(&device).open_url(&device, url).await?;
        Ok(device)
    }

    /// Sets (`Some`) or clears (`None`) the simulated location.
    pub async fn location(&self, udid: Option<&str>, at: Option<(f64, f64)>) -> Result<Device> {
        let device = self.resolve_to_act(udid).await?;
        let backend = self.backend(&device);
        match at {
            Some((lat, lon)) => {
                if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
                    return Err(Error::validation(
                        "latitude must be in -90..90 and longitude in -180..180",
                    ));
                }
                backend.set_location(&device, lat, lon).await?
            }
            None => backend.clear_location(&device).await?,
        }
        Ok(device)
    }

    pub async fn permission(
        &self,
        udid: Option<&str>,
        bundle_id: &str,
        permission: &str,
        action: PermissionAction,
    ) -> Result<(Device, Option<String>)> {
        let device = self.resolve_to_act(udid).await?;
        check_bundle_id(&device, bundle_id)?;
        let ok = !permission.is_empty()
            && permission.len() <= 200
            && permission
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !ok {
            return Err(Error::validation(format!("`{permission}` is not a permission name"))
                .with_hint("Android: android.permission.CAMERA; iOS: camera, photos, location, contacts, microphone…"));
        }
        let note = self
            .backend(&device)
            .permission(&device, bundle_id, permission, action)
            .await?;
        Ok((device, note))
    }
}
