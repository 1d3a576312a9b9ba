use super::*;
use crate::device::DeviceState;

fn device(platform: Platform, kind: DeviceKind) -> Device {
    Device {
        udid: "SIM-1".into(),
        name: "phone".into(),
        platform,
        kind,
        state: DeviceState::Online,
        os_version: None,
        api_level: None,
        model: None,
        backend: "test",
        capabilities: Vec::new(),
    }
}

/// A build root holding an Android project (`android/`, with `app/`) and an iOS one (`ios/`).
fn root() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let android = t.path().join("android");
    std::fs::create_dir_all(android.join("app")).unwrap();
    std::fs::write(android.join(GRADLE_WRAPPER), "#!/bin/sh\n").unwrap();
    std::fs::create_dir_all(t.path().join("ios/Shop.xcodeproj")).unwrap();
    t
}

fn inputs<'a>(root: &'a Path, defaults: &'a BuildDefaults, dd: &'a Path) -> Inputs<'a> {
    Inputs {
        root: Some(root),
        defaults,
        device: None,
        device_asked: false,
        xcodebuild: Some(Path::new("/usr/bin/xcodebuild")),
        derived_data: dd,
    }
}

fn request(dir: &str) -> BuildRequest {
    BuildRequest {
        project_dir: Some(dir.into()),
        ..BuildRequest::default()
    }
}

#[test]
fn a_gradle_folder_builds_the_app_modules_debug_variant() {
    let t = root();
    let d = BuildDefaults::default();
    let p = plan(&request("android"), &inputs(t.path(), &d, Path::new("/dd"))).unwrap();
    assert_eq!(p.platform, Platform::Android);
    let (program, args) = p.tool.argv(&["build"]);
    assert_eq!(
        program,
        t.path()
            .canonicalize()
            .unwrap()
            .join("android")
            .join(GRADLE_WRAPPER)
    );
    assert_eq!(args, vec!["--console=plain", ":app:assembleDebug"]);
    assert_eq!(p.remembered.project_dir.as_deref(), Some("android"));
}

#[test]
fn an_xcode_folder_builds_its_only_project_for_a_generic_simulator_without_a_device() {
    let t = root();
    let d = BuildDefaults::default();
    let p = plan(&request("ios"), &inputs(t.path(), &d, Path::new("/dd"))).unwrap();
    assert_eq!(p.platform, Platform::Ios);
    let (_, args) = p.tool.argv(&["build"]);
    assert_eq!(
        args,
        vec![
            "-project",
            "Shop.xcodeproj",
            "-configuration",
            "Debug",
            "-destination",
            "generic/platform=iOS Simulator",
            "-derivedDataPath",
            "/dd",
            "build"
        ]
    );
}

#[test]
fn the_device_picks_the_destination_and_a_workspace_beats_a_project() {
    let t = root();
    std::fs::create_dir_all(t.path().join("ios/Shop.xcworkspace")).unwrap();
    let d = BuildDefaults::default();
    let sim = device(Platform::Ios, DeviceKind::Simulator);
    let mut i = inputs(t.path(), &d, Path::new("/dd"));
    i.device = Some(&sim);
    let p = plan(&request("ios"), &i).unwrap();
    let (_, args) = p.tool.argv(&["build"]);
    assert_eq!(&args[..2], &["-workspace", "Shop.xcworkspace"]);
    assert!(
        args.contains(&"platform=iOS Simulator,id=SIM-1".to_string()),
        "{args:?}"
    );
    let phone = device(Platform::Ios, DeviceKind::Device);
    i.device = Some(&phone);
    let (_, args) = plan(&request("ios"), &i).unwrap().tool.argv(&["build"]);
    assert!(
        args.contains(&"generic/platform=iOS".to_string()),
        "{args:?}"
    );
}

#[test]
fn the_session_fills_what_the_request_leaves_out_and_the_request_wins() {
    let t = root();
    let d = BuildDefaults {
        project_dir: Some("android".into()),
        android: AndroidBuild {
            module: Some("app".into()),
            variant: Some("release".into()),
        },
        ..BuildDefaults::default()
    };
    let i = inputs(t.path(), &d, Path::new("/dd"));
    let p = plan(&BuildRequest::default(), &i).unwrap();
    assert_eq!(p.tool.argv(&[]).1[1], ":app:assembleRelease");
    let mut r = BuildRequest::default();
    r.android.variant = Some("freeDebug".into());
    let p = plan(&r, &i).unwrap();
    assert_eq!(p.tool.argv(&[]).1[1], ":app:assembleFreeDebug");
    assert_eq!(p.remembered.android.variant.as_deref(), Some("freeDebug"));
}

#[test]
fn bad_input_is_refused_with_its_reason() {
    let t = root();
    let d = BuildDefaults::default();
    let i = inputs(t.path(), &d, Path::new("/dd"));
    let code = |r: &BuildRequest, i: &Inputs<'_>| plan(r, i).unwrap_err().code;
    // No folder at all, one outside the root (`..`, an absolute path, a symlink), none there.
    assert_eq!(
        code(&BuildRequest::default(), &i),
        ErrorCode::ValidationFailed
    );
    assert_eq!(code(&request(".."), &i), ErrorCode::Forbidden);
    assert_eq!(code(&request("/"), &i), ErrorCode::Forbidden);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/", t.path().join("out")).unwrap();
        assert_eq!(code(&request("out"), &i), ErrorCode::Forbidden);
    }
    assert_eq!(code(&request("nope"), &i), ErrorCode::NotFound);
    // A folder that holds no project; a module or variant that is no Gradle name.
    std::fs::create_dir(t.path().join("empty")).unwrap();
    assert_eq!(code(&request("empty"), &i), ErrorCode::ValidationFailed);
    let mut r = request("android");
    r.android.module = Some("../x".into());
    assert_eq!(code(&r, &i), ErrorCode::ValidationFailed);
    r.android.module = Some("wear".into());
    assert_eq!(code(&r, &i), ErrorCode::ValidationFailed);
    // An iOS setting that would read as a flag; a path out of the project folder.
    let mut r = request("ios");
    r.ios.scheme = Some("-quiet".into());
    assert_eq!(code(&r, &i), ErrorCode::ValidationFailed);
    let mut r = request("ios");
    r.ios.derived_data = Some("../../dd".into());
    assert_eq!(code(&r, &i), ErrorCode::ValidationFailed);
    // No build root: builds are off; no xcodebuild: the tool is missing.
    let off = Inputs {
        root: None,
        ..inputs(t.path(), &d, Path::new("/dd"))
    };
    assert_eq!(code(&request("android"), &off), ErrorCode::Forbidden);
    let no_xcode = Inputs {
        xcodebuild: None,
        ..inputs(t.path(), &d, Path::new("/dd"))
    };
    assert_eq!(code(&request("ios"), &no_xcode), ErrorCode::ToolMissing);
    // A platform the device contradicts.
    let pixel = device(Platform::Android, DeviceKind::Emulator);
    let with_device = Inputs {
        device: Some(&pixel),
        device_asked: true,
        ..inputs(t.path(), &d, Path::new("/dd"))
    };
    let mut r = request("ios");
    r.platform = Some(Platform::Ios);
    assert_eq!(code(&r, &with_device), ErrorCode::ValidationFailed);
}

#[test]
fn a_device_nobody_asked_for_does_not_override_the_folder() {
    let t = root();
    let d = BuildDefaults::default();
    // The only device is an Android emulator; the folder is an iOS project: an iOS build for a
    // generic Simulator, the emulator saying nothing of its destination.
    let pixel = device(Platform::Android, DeviceKind::Emulator);
    let i = Inputs {
        device: Some(&pixel),
        ..inputs(t.path(), &d, Path::new("/dd"))
    };
    let p = plan(&request("ios"), &i).unwrap();
    assert_eq!(p.platform, Platform::Ios);
    let (_, args) = p.tool.argv(&["build"]);
    assert!(
        args.contains(&"generic/platform=iOS Simulator".to_string()),
        "{args:?}"
    );
    // Asked for by the request, it is the device the build is for: its platform holds.
    let asked = Inputs {
        device_asked: true,
        ..i
    };
    assert_eq!(
        plan(&request("ios"), &asked).unwrap_err().code,
        ErrorCode::ValidationFailed
    );
}
