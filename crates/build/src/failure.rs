//! Which failure a line of output tells, and the hint that goes with it: signing, missing SDKs,
//! destinations, schemes, projects, dependencies (recognised anywhere in the output), and the
//! hints for compile, link and other failures the reader derives from its diagnostics. Also
//! which failure wins when the output shows several.

use std::sync::LazyLock;

use regex::Regex;

use crate::wire::{FailureKind, Toolchain};

/// How specific a failure is: the highest wins, the first seen among equals. What stops a build
/// before it compiles (the environment, the project) beats what it found compiling.
pub fn rank(kind: FailureKind) -> u8 {
    match kind {
        FailureKind::Signing
        | FailureKind::SdkMissing
        | FailureKind::SchemeMissing
        | FailureKind::ProjectMissing => 6,
        FailureKind::Dependency => 5,
        FailureKind::Compile => 4,
        FailureKind::Link => 3,
        FailureKind::Other => 1,
    }
}

/// Whether a message (of an error line, or a line of its own) is about code signing.
pub fn is_signing(text: &str) -> bool {
    const SIGNING: &[&str] = &[
        "Code Sign error",
        "CodeSign error",
        "code signing is required",
        "Code signing is required",
        "requires a development team",
        "requires a provisioning profile",
        "No signing certificate",
        "No certificate matching",
        "No profile matching",
        "No profiles for '",
        "errSecInternalComponent",
        "No code signing identities found",
        "No Accounts: Add a new account",
    ];
    SIGNING.iter().any(|s| text.contains(s)) || PROFILE_DOESNT.is_match(text)
}

static PROFILE_DOESNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"[Pp]rovisioning profile "[^"]*" (doesn't|does not) (include|support|match)"#)
        .expect("regex")
});
static XCODE_SDK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"SDK "([^"]+)" cannot be located"#).expect("regex"));
static NOT_INSTALLED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"((?:iOS|watchOS|tvOS|visionOS|xrOS|macOS) [0-9.]+) is not installed")
        .expect("regex")
});
static HASH_STRING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Failed to find target with hash string '([^']+)'").expect("regex")
});
static BUILD_TOOLS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Failed to find Build Tools revision ([0-9][0-9.]*)").expect("regex")
});
static ARTIFACT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Could not (?:find|resolve) ([A-Za-z0-9_.\-]+:[A-Za-z0-9_.\-]+(?::[A-Za-z0-9_.\-+\[\],()]+)?)").expect("regex")
});

/// The failure a line tells, with its hint, if it tells one of the specific kinds.
pub fn classify(toolchain: Toolchain, text: &str) -> Option<(FailureKind, String)> {
    let android = toolchain == Toolchain::Gradle;
    if android {
        if text.contains("SDK location not found") {
            return Some((
                FailureKind::SdkMissing,
                "Point Gradle at the Android SDK: set ANDROID_HOME (or ANDROID_SDK_ROOT) to its folder, or write sdk.dir=<path> in local.properties next to settings.gradle.".into(),
            ));
        }
        if let Some(c) = HASH_STRING.captures(text) {
            return Some((
                FailureKind::SdkMissing,
                format!("Install the missing platform with `sdkmanager \"platforms;{}\"` (or lower compileSdk to an installed one).", &c[1]),
            ));
        }
        if let Some(c) = BUILD_TOOLS.captures(text) {
            return Some((
                FailureKind::SdkMissing,
                format!("Install the build tools with `sdkmanager \"build-tools;{}\"`, or set buildToolsVersion to an installed one.", &c[1]),
            ));
        }
        if text.contains("Failed to find Build Tools") {
            return Some((FailureKind::SdkMissing, "Install the build tools the module asks for with `sdkmanager \"build-tools;<version>\"`.".into()));
        }
        // Gradle's words; `sdkmanager --licenses` asking ("6 of 7 SDK package licenses not
        // accepted.", "Review licenses that have not been accepted (y/N)?") is not a failure.
        if (text.contains("Failed to install the following") && text.contains("not been accepted"))
            || text.contains("You have not accepted the license agreements")
        {
            return Some((FailureKind::SdkMissing, "Accept the Android SDK licences with `sdkmanager --licenses` (answer y), then build again.".into()));
        }
        if text.contains("NDK not configured")
            || text.contains("NDK is not installed")
            || text.contains("No version of NDK matched")
        {
            return Some((FailureKind::SdkMissing, "Install the NDK the module asks for with `sdkmanager \"ndk;<version>\"` (its version is ndkVersion in build.gradle).".into()));
        }
        if text.contains("Keystore file") && text.contains("not found for signing config") {
            return Some((
                FailureKind::Signing,
                "The signing config points at a keystore that is not there: fix storeFile in the module's signingConfigs (or build the debug variant, signed with the debug keystore).".into(),
            ));
        }
        if (text.contains("Failed to read key") && text.contains("from store"))
            || text.contains("KeytoolException")
        {
            return Some((
                FailureKind::Signing,
                "The keystore could not be read with the key alias and passwords given: check keyAlias, keyPassword and storePassword of the signing config.".into(),
            ));
        }
        if text.contains("Could not resolve all files for configuration")
            || text.contains("Could not resolve all dependencies for configuration")
            || text.contains("Could not resolve all artifacts for configuration")
            || ARTIFACT.is_match(text)
        {
            let what = ARTIFACT
                .captures(text)
                .map(|c| format!(" ({})", &c[1]))
                .unwrap_or_default();
            return Some((
                FailureKind::Dependency,
                format!("A dependency could not be downloaded{what}: check its coordinates and version, the repositories in settings.gradle (google(), mavenCentral()) and network access, then build with --refresh-dependencies."),
            ));
        }
        if (text.contains("Task '") && text.contains("' not found in"))
            || (text.contains("Project '") && text.contains("' not found in"))
            || text.contains("does not contain a Gradle build")
        {
            return Some((
                FailureKind::ProjectMissing,
                "Gradle has no such module or task here: list them with `./gradlew projects` and `./gradlew tasks --all`, and run from the folder with settings.gradle.".into(),
            ));
        }
        if text.contains("Compilation failed; see the compiler error output")
            || text.contains("Compilation error. See log for more details")
        {
            return Some((FailureKind::Compile, compile_hint(None)));
        }
        return None;
    }
    if is_signing(text) {
        let hint = if text.contains("requires a development team") || text.contains("No Accounts") {
            "Set a development team (DEVELOPMENT_TEAM=<team id> on the command line or in Signing & Capabilities), or build for the Simulator, which needs no signing."
        } else if text.contains("errSecInternalComponent") {
            "The keychain holding the signing key is locked: unlock it (`security unlock-keychain`) before building, or build for the Simulator."
        } else {
            "Signing found no matching certificate or provisioning profile: build for the Simulator (no signing needed), or set a development team with -allowProvisioningUpdates so Xcode makes one."
        };
        return Some((FailureKind::Signing, hint.into()));
    }
    if let Some(c) = XCODE_SDK.captures(text) {
        return Some((
            FailureKind::SdkMissing,
            format!("The SDK \"{}\" is not installed: list the installed ones with `xcodebuild -showsdks` and pass one of them, or install the platform with `xcodebuild -downloadPlatform iOS`.", &c[1]),
        ));
    }
    if text.contains("Unable to find a destination matching")
        || text.contains("Unable to find a device matching")
        || NOT_INSTALLED.is_match(text)
    {
        let missing = NOT_INSTALLED
            .captures(text)
            .map(|c| format!(" ({} is not installed)", &c[1]))
            .unwrap_or_default();
        return Some((
            FailureKind::SdkMissing,
            format!("No destination matches{missing}: list the scheme's with `xcodebuild -showdestinations -scheme <scheme>` and pass one (or a booted Simulator's id), or install the runtime with `xcodebuild -downloadPlatform iOS`."),
        ));
    }
    if text.contains("requires Xcode, but active developer directory") {
        return Some((FailureKind::SdkMissing, "Select a full Xcode: `sudo xcode-select -s /Applications/Xcode.app/Contents/Developer` (the Command Line Tools cannot build apps).".into()));
    }
    if text.contains("does not contain a scheme named")
        || text.contains("must also specify a scheme")
        || text.contains("is not currently configured for the")
    {
        return Some((
            FailureKind::SchemeMissing,
            "List the schemes with `xcodebuild -list` and pass one of them with -scheme (a scheme must be shared, in xcshareddata, to exist on another machine).".into(),
        ));
    }
    if text.contains("does not contain an Xcode project")
        || (text.contains("does not exist")
            && (text.contains(".xcodeproj") || text.contains(".xcworkspace")))
        || (text.contains("contains") && text.contains("projects") && text.contains("Specify the"))
    {
        return Some((
            FailureKind::ProjectMissing,
            "Pass the project or workspace with -project <name>.xcodeproj or -workspace <name>.xcworkspace, or run from the folder that holds it.".into(),
        ));
    }
    if text.contains("Could not resolve package dependencies")
        || text.contains("Dependencies could not be resolved")
    {
        return Some((
            FailureKind::Dependency,
            "Swift packages could not be resolved: run `xcodebuild -resolvePackageDependencies`, check network access and Package.resolved.".into(),
        ));
    }
    if text.contains("The sandbox is not in sync with the Podfile.lock")
        || text.contains("Unable to find a specification for")
    {
        return Some((FailureKind::Dependency, "Run `pod install` (with --repo-update if a spec is not found) and build the .xcworkspace.".into()));
    }
    None
}

/// What to do about errors from the compilers; `at` is the first error's place.
pub fn compile_hint(at: Option<&str>) -> String {
    match at {
        Some(at) => format!(
            "Fix the first error, at {at}, and build again: later errors often follow from it."
        ),
        None => "Fix the compiler errors above the failure, the first one first, and build again."
            .into(),
    }
}

/// What to do about a link failure.
pub fn link_hint(toolchain: Toolchain) -> String {
    match toolchain {
        Toolchain::Xcode => "A symbol is missing or defined twice at link time: check that the framework or library defining it is linked to the target (Link Binary With Libraries) and built for this architecture.".into(),
        Toolchain::Gradle => "Native linking failed: check the libraries listed in CMakeLists.txt or Android.mk and their ABIs.".into(),
    }
}

/// What to do when the output says it failed without a more specific reason.
pub fn other_hint(toolchain: Toolchain) -> String {
    match toolchain {
        Toolchain::Xcode => "Read the first error in the output; if there is none, build again with the log kept (`xcodebuild ... 2>&1 | tee build.log`).".into(),
        Toolchain::Gradle => "Read \"What went wrong\" in the output; run again with --stacktrace for the cause if it does not say.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(toolchain: Toolchain, text: &str) -> Option<FailureKind> {
        classify(toolchain, text).map(|(k, _)| k)
    }

    #[test]
    fn xcode_signing_lines() {
        for text in [
            "Code Sign error: No code signing identites found: No valid signing identities",
            "CodeSign error: code signing is required for product type 'Application' in SDK 'iOS 7.0'",
            "/x/App.xcodeproj: error: No profiles for 'com.x.app' were found: Xcode couldn't find any iOS App Development provisioning profiles matching 'com.x.app'.",
            "/x/App.xcodeproj: error: Signing for \"App\" requires a development team. Select a development team in the Signing & Capabilities editor.",
            "error: No signing certificate \"iOS Development\" found",
            "/usr/bin/codesign: errSecInternalComponent",
            "Provisioning profile \"Profile Name\" doesn't include the aps-environment entitlement.",
        ] {
            assert_eq!(kind(Toolchain::Xcode, text), Some(FailureKind::Signing), "{text}");
        }
        let (_, hint) = classify(
            Toolchain::Xcode,
            "error: Signing for \"App\" requires a development team.",
        )
        .unwrap();
        assert!(
            hint.contains("development team") && hint.contains("Simulator"),
            "{hint}"
        );
    }

    #[test]
    fn xcode_sdk_destination_scheme_project() {
        let (k, hint) = classify(
            Toolchain::Xcode,
            "xcodebuild: error: SDK \"iphoneos17.0\" cannot be located.",
        )
        .unwrap();
        assert_eq!(k, FailureKind::SdkMissing);
        assert!(hint.contains("iphoneos17.0"));
        assert_eq!(
            kind(Toolchain::Xcode, "xcodebuild: error: Unable to find a destination matching the provided destination specifier:"),
            Some(FailureKind::SdkMissing)
        );
        assert_eq!(
            kind(Toolchain::Xcode, "xcodebuild: error: The project named \"X\" does not contain a scheme named \"Y\". The \"-list\" option can be used to find the names of the schemes in the project."),
            Some(FailureKind::SchemeMissing)
        );
        assert_eq!(
            kind(
                Toolchain::Xcode,
                "xcodebuild: error: 'App.xcodeproj' does not exist."
            ),
            Some(FailureKind::ProjectMissing)
        );
        assert_eq!(
            kind(Toolchain::Xcode, "xcodebuild: error: The directory /tmp does not contain an Xcode project, workspace or package."),
            Some(FailureKind::ProjectMissing)
        );
        assert_eq!(
            kind(
                Toolchain::Xcode,
                "xcodebuild: error: Could not resolve package dependencies:"
            ),
            Some(FailureKind::Dependency)
        );
        assert_eq!(
            kind(
                Toolchain::Xcode,
                "/x/A.swift:1:2: error: cannot find 'x' in scope"
            ),
            None
        );
    }

    #[test]
    fn gradle_sdk_signing_dependency_project() {
        let (k, hint) = classify(Toolchain::Gradle, "> SDK location not found. Define a valid SDK location with an ANDROID_HOME environment variable").unwrap();
        assert_eq!(k, FailureKind::SdkMissing);
        assert!(hint.contains("ANDROID_HOME") && hint.contains("local.properties"));
        let (k, hint) = classify(
            Toolchain::Gradle,
            "Failed to find target with hash string 'android-34' in: /sdk",
        )
        .unwrap();
        assert_eq!(k, FailureKind::SdkMissing);
        assert!(hint.contains("platforms;android-34"));
        assert_eq!(
            kind(
                Toolchain::Gradle,
                "Failed to find Build Tools revision 30.0.3"
            ),
            Some(FailureKind::SdkMissing)
        );
        assert_eq!(
            kind(Toolchain::Gradle, "> Failed to install the following Android SDK packages as some licences have not been accepted."),
            Some(FailureKind::SdkMissing)
        );
        assert_eq!(
            kind(
                Toolchain::Gradle,
                "License for package Android SDK Build-Tools 33.0.1 accepted."
            ),
            None
        );
        assert_eq!(
            kind(
                Toolchain::Gradle,
                "6 of 7 SDK package licenses not accepted."
            ),
            None
        );
        assert_eq!(
            kind(
                Toolchain::Gradle,
                "Review licenses that have not been accepted (y/N)? "
            ),
            None
        );
        assert_eq!(
            kind(
                Toolchain::Gradle,
                "> Keystore file '/x/release.jks' not found for signing config 'release'."
            ),
            Some(FailureKind::Signing)
        );
        assert_eq!(
            kind(Toolchain::Gradle, "> Failed to read key upload from store \"/x/k.jks\": Keystore was tampered with, or password was incorrect"),
            Some(FailureKind::Signing)
        );
        assert_eq!(
            kind(
                Toolchain::Gradle,
                "> Could not resolve all files for configuration ':app:debugRuntimeClasspath'."
            ),
            Some(FailureKind::Dependency)
        );
        let (k, hint) = classify(
            Toolchain::Gradle,
            "   > Could not find com.example:lib:1.2.3.",
        )
        .unwrap();
        assert_eq!(k, FailureKind::Dependency);
        assert!(hint.contains("com.example:lib:1.2.3"), "{hint}");
        assert_eq!(
            kind(
                Toolchain::Gradle,
                "Could not find method implementation() for arguments"
            ),
            None
        );
        assert_eq!(
            kind(
                Toolchain::Gradle,
                "Task 'assembleFree' not found in root project 'x'."
            ),
            Some(FailureKind::ProjectMissing)
        );
    }

    #[test]
    fn ranks_order_the_kinds() {
        assert!(rank(FailureKind::Signing) > rank(FailureKind::Compile));
        assert!(rank(FailureKind::SdkMissing) > rank(FailureKind::Compile));
        assert!(rank(FailureKind::Compile) > rank(FailureKind::Link));
        assert!(rank(FailureKind::Compile) > rank(FailureKind::Other));
        assert_eq!(rank(FailureKind::Signing), rank(FailureKind::SdkMissing));
    }
}
