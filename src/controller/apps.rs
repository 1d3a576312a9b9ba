//! App and system operations of the controller: resolve the device, have its backend check
//! identifiers and paths, then hand over to that backend.

use std::path::Path;
use std::time::Instant;

use super::reach::Reach;
use crate::backend::concern;
use crate::backend::{validate, Apps};
use crate::device::{
    AppInfo, Device, LaunchOptions, LaunchValue, Launched, PermissionAction, MAX_EXTRAS,
};
use crate::error::{Error, ErrorCode, Result};

use super::DeviceController;

/// Checks that an install path exists, is not a link, and has the package form `apps`
/// installs.
pub fn check_install_path(apps: &dyn Apps, path: &Path) -> Result<()> {
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
    apps.check_app_package(path, &meta)
}

/// Checks the named launch values as an intent's extras are checked: how many, their names
/// (1-512 characters, no spaces), their texts (bounded, no NUL or line break).
pub fn check_extras(extras: &[(String, LaunchValue)]) -> Result<()> {
    if extras.len() > MAX_EXTRAS {
        return Err(Error::validation(format!(
            "{} `extras`; a launch takes at most {MAX_EXTRAS}",
            extras.len()
        )));
    }
    for (key, value) in extras {
        crate::device::check_name("a launch value's name", key)?;
        if let LaunchValue::Text(t) = value {
            crate::device::check_plain(&format!("launch value `{key}`"), t)?;
        }
    }
    Ok(())
}

impl DeviceController {
    /// Installs the app package at `path` (on this machine) in the form the backend takes
    /// (`.apk`, `.app`).
    pub async fn install_app(&self, udid: Option<&str>, path: &Path) -> Result<Device> {
        let on = self.reach(udid, Reach::Act).await?;
        let apps = on.cap(concern::Apps)?;
        check_install_path(apps, path)?;
        apps.install_app(&on.device, path).await?;
        Ok(on.into_device())
    }

    /// Launches an app; answers its crash or ANR too when it had one while starting.
    pub async fn launch_app(
        &self,
        udid: Option<&str>,
        bundle_id: &str,
        opts: &LaunchOptions,
    ) -> Result<(Device, Launched, Option<crate::logs::Crash>)> {
        check_extras(&opts.extras)?;
        let on = self.reach(udid, Reach::Act).await?;
        on.backend.check_app_id(bundle_id)?;
        on.backend.check_launch(opts)?;
        let apps = on.cap(concern::Apps)?;
        let device = on.into_device();
        if opts.clear_keychain {
            apps.reset_keychain(&device).await?;
        }
        let mark = self.log_mark(&device, Some(bundle_id.to_string()));
        let started = Instant::now();
        let mut launched = apps.launch_app(&device, bundle_id, opts).await?;
        if launched.launch_time_ms == 0 {
            launched.launch_time_ms = started.elapsed().as_millis() as u64;
        }
        let crash = self.crash_in_window(&device, &mark, true, None).await;
        Ok((device, launched, crash))
    }

    /// Stops the app if it runs.
    pub async fn terminate_app(&self, udid: Option<&str>, bundle_id: &str) -> Result<Device> {
        let on = self.reach(udid, Reach::Act).await?;
        on.backend.check_app_id(bundle_id)?;
        let apps = on.cap(concern::Apps)?;
        apps.terminate_app(&on.device, bundle_id).await?;
        Ok(on.into_device())
    }

    /// Clears the app's data, as if it were newly installed.
    pub async fn reset_app(&self, udid: Option<&str>, bundle_id: &str) -> Result<Device> {
        let on = self.reach(udid, Reach::Act).await?;
        on.backend.check_app_id(bundle_id)?;
        let apps = on.cap(concern::Apps)?;
        apps.reset_app(&on.device, bundle_id).await?;
        Ok(on.into_device())
    }

    /// Empties the device's keychain (every app's saved passwords and tokens).
    pub async fn reset_keychain(&self, udid: Option<&str>) -> Result<Device> {
        let on = self.reach(udid, Reach::Act).await?;
        let apps = on.cap(concern::Apps)?;
        apps.reset_keychain(&on.device).await?;
        Ok(on.into_device())
    }

    /// Installs the device's helper (Android: the UiAutomator2 server) from `given` files,
    /// else from where it is found on this machine.
    pub async fn install_helper(
        &self,
        udid: Option<&str>,
        given: &[std::path::PathBuf],
    ) -> Result<crate::api::wire::devices::HelperInstalled> {
        let on = self.reach(udid, Reach::Act).await?;
        let helper = on.cap(concern::DeviceHelper)?;
        let mut done = helper.install_helper(&on.device, given).await?;
        done.device = on.into_device();
        Ok(done)
    }

    /// The apps installed on the device.
    pub async fn list_apps(&self, udid: Option<&str>) -> Result<(Device, Vec<AppInfo>)> {
        let on = self.reach(udid, Reach::Read).await?;
        let apps = on.cap(concern::Apps)?;
        let list = apps.list_apps(&on.device).await?;
        Ok((on.into_device(), list))
    }

    /// Opens a URL or deep link on the device; `javascript:`, `file:`, `content:` and `data:`
    /// URLs only with `allow_any`.
    pub async fn open_url(&self, udid: Option<&str>, url: &str, allow_any: bool) -> Result<Device> {
        validate::open_url(url, allow_any)?;
        let on = self.reach(udid, Reach::Act).await?;
        let apps = on.cap(concern::Apps)?;
        apps.open_url(&on.device, url).await?;
        Ok(on.into_device())
    }

    /// Sets (`Some`) or clears (`None`) the simulated location.
    pub async fn location(&self, udid: Option<&str>, at: Option<(f64, f64)>) -> Result<Device> {
        let on = self.reach(udid, Reach::Act).await?;
        let device = &on.device;
        match at {
            Some((lat, lon)) => {
                if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
                    return Err(Error::validation(
                        "latitude must be in -90..90 and longitude in -180..180",
                    ));
                }
                let location = on.cap(concern::Location)?;
                location.set_location(device, lat, lon).await?
            }
            None => {
                let location = on.cap(concern::Location)?;
                location.clear_location(device).await?
            }
        }
        Ok(on.into_device())
    }

    /// Grants, revokes or resets one permission of an app; answers a note when less than
    /// asked could be done.
    pub async fn permission(
        &self,
        udid: Option<&str>,
        bundle_id: &str,
        permission: &str,
        action: PermissionAction,
    ) -> Result<(Device, Option<String>)> {
        let on = self.reach(udid, Reach::Act).await?;
        on.backend.check_app_id(bundle_id)?;
        let ok = !permission.is_empty()
            && permission.len() <= 200
            && permission
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !ok {
            return Err(Error::validation(format!("`{permission}` is not a permission name"))
                .with_hint("Android: android.permission.CAMERA; iOS: camera, photos, location, contacts, microphone…"));
        }
        let permissions = on.cap(concern::Permissions)?;
        let note = permissions
            .permission(&on.device, bundle_id, permission, action)
            .await?;
        let device = on.into_device();
        Ok((device, note))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(name: &str, value: &str) -> (String, LaunchValue) {
        (name.into(), LaunchValue::Text(value.into()))
    }

    #[test]
    fn launch_values_are_bounded_and_named() {
        assert!(check_extras(&[text("user", "ada"), ("n".into(), LaunchValue::Int(3))]).is_ok());
        assert!(check_extras(&[text("", "x")]).is_err());
        assert!(check_extras(&[text("a\nb", "x")]).is_err());
        assert!(check_extras(&[text("a b", "x")]).is_err());
        assert!(check_extras(&[text(&"k".repeat(513), "x")]).is_err());
        assert!(check_extras(&[text("k", "a\0b")]).is_err());
        assert!(check_extras(&[text("k", "two\nlines")]).is_err());
        assert!(check_extras(&[text("k", &"v".repeat(4097))]).is_err());
        let many: Vec<_> = (0..65).map(|i| text(&format!("k{i}"), "v")).collect();
        assert!(check_extras(&many).is_err());
        assert!(check_extras(&many[..64]).is_ok());
    }
}
