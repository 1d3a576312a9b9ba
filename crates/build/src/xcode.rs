//! xcodebuild: which of its lines are build steps and what stage each is (`CompileSwift`,
//! `SwiftCompile`, `CompileC`, `Ld`, `CodeSign`, `ProcessInfoPlistFile`, `CompileAssetCatalog`,
//! `CopySwiftLibs`, `PhaseScriptExecution`, `Resolve Package Graph`…), and the products:
//! the built `.app` from `xcodebuild -showBuildSettings -json` and the schemes from
//! `xcodebuild -list -json`. Both JSON readers skip what xcodebuild writes before the document
//! (its stderr, merged: `DTDeviceKit` and `IDERunDestination` lines).

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::clean;
use crate::wire::{AppProduct, PhaseName};

/// The build steps xcodebuild announces at the start of a line, and their stage. Lines that
/// only report (`SwiftDriverJobDiscovery`), set up (`CreateBuildDirectory`, `MkDir`,
/// `WriteAuxiliaryFile`, `ClangStatCache`) or plan are not steps.
const STEPS: &[(&str, PhaseName)] = &[
    ("CompileSwift", PhaseName::Compile),
    ("CompileSwiftSources", PhaseName::Compile),
    ("SwiftCompile", PhaseName::Compile),
    ("SwiftDriver", PhaseName::Compile),
    ("SwiftEmitModule", PhaseName::Compile),
    ("EmitSwiftModule", PhaseName::Compile),
    ("SwiftMergeGeneratedHeaders", PhaseName::Compile),
    ("CompileC", PhaseName::Compile),
    ("ProcessPCH", PhaseName::Compile),
    ("ProcessPCH++", PhaseName::Compile),
    ("PrecompileModule", PhaseName::Compile),
    ("ScanDependencies", PhaseName::Compile),
    ("CompileMetalFile", PhaseName::Compile),
    ("MetalLink", PhaseName::Link),
    ("Ld", PhaseName::Link),
    ("Libtool", PhaseName::Link),
    ("CreateUniversalBinary", PhaseName::Link),
    ("GenerateDSYMFile", PhaseName::Link),
    ("ProcessInfoPlistFile", PhaseName::Resources),
    ("CompileAssetCatalog", PhaseName::Resources),
    ("CompileAssetCatalogVariant", PhaseName::Resources),
    ("GenerateAssetSymbols", PhaseName::Resources),
    ("CompileStoryboard", PhaseName::Resources),
    ("CompileXIB", PhaseName::Resources),
    ("LinkStoryboards", PhaseName::Resources),
    ("CopyStringsFile", PhaseName::Resources),
    ("CompileXCStrings", PhaseName::Resources),
    ("CopyPlistFile", PhaseName::Resources),
    ("CopyPNGFile", PhaseName::Resources),
    ("CpResource", PhaseName::Resources),
    ("CompileDataModel", PhaseName::Resources),
    ("CompileCoreMLModel", PhaseName::Resources),
    ("ProcessProductPackaging", PhaseName::Sign),
    ("ProcessProductPackagingDER", PhaseName::Sign),
    ("CodeSign", PhaseName::Sign),
    ("CopySwiftLibs", PhaseName::Package),
    ("Copy", PhaseName::Package),
    ("Ditto", PhaseName::Package),
    ("Touch", PhaseName::Package),
    ("Validate", PhaseName::Package),
    ("RegisterExecutionPolicyException", PhaseName::Package),
    ("RegisterWithLaunchServices", PhaseName::Package),
    ("ProcessXCFramework", PhaseName::Package),
    ("PhaseScriptExecution", PhaseName::Other),
    ("ExtractAppIntentsMetadata", PhaseName::Other),
];

/// The stage and detail of a step line (`CompileC obj.o /x/File.m normal arm64 …`), if it is one.
/// Steps start at the beginning of the line: the indented lines under "The following build
/// commands failed:" repeat them and are not steps.
pub fn step(line: &str) -> Option<(PhaseName, String)> {
    if line.starts_with("Resolve Package Graph") {
        return Some((PhaseName::Resolve, String::new()));
    }
    let (word, rest) = line.split_once(' ')?;
    if rest.starts_with("error") {
        // "CodeSign error: code signing is required…" is a failure, not a step.
        return None;
    }
    let (_, phase) = STEPS.iter().find(|(name, _)| *name == word)?;
    Some((*phase, detail(*phase, rest)))
}

/// What a step works on: for compiling, the first source file of the line; otherwise its first
/// argument (a product, a script phase's name), with `\ ` unescaped.
fn detail(phase: PhaseName, rest: &str) -> String {
    let rest = match rest.rfind(" (in target '") {
        Some(at) => &rest[..at],
        None => rest,
    };
    let words = words(rest);
    const SOURCES: &[&str] = &[
        ".swift", ".m", ".mm", ".c", ".cc", ".cpp", ".cxx", ".metal", ".pch", ".h",
    ];
    let pick = if phase == PhaseName::Compile {
        words
            .iter()
            .find(|w| SOURCES.iter().any(|e| w.ends_with(e)) && w.contains('/'))
    } else {
        None
    };
    let text = pick
        .or_else(|| {
            words
                .iter()
                .find(|w| !matches!(w.as_str(), "normal" | "arm64" | "x86_64"))
        })
        .cloned()
        .unwrap_or_default();
    clean::cap(&text, clean::MAX_MESSAGE).to_string()
}

/// A command line's words, split on unescaped spaces, `\ ` made a space.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => word.push(next),
                None => word.push('\\'),
            },
            ' ' => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The first JSON document in `text` (an array or object starting a line), what is before it
/// skipped.
fn document(text: &str) -> Result<Value, String> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start_matches('\u{feff}').trim_start();
        if trimmed.starts_with('[') || trimmed.starts_with('{') {
            let start = offset + (line.len() - trimmed.len());
            let mut stream =
                serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
            return match stream.next() {
                Some(Ok(value)) => Ok(value),
                Some(Err(e)) => Err(format!("not JSON: {e}")),
                None => Err("no JSON document in the output".into()),
            };
        }
        offset += line.len();
    }
    Err("no JSON document in the output".into())
}

#[derive(Deserialize)]
struct TargetSettings {
    #[serde(default)]
    target: Option<String>,
    #[serde(rename = "buildSettings", default)]
    build_settings: Map<String, Value>,
}

/// The application `xcodebuild -showBuildSettings -json` describes: of the targets it lists, the
/// first whose `PRODUCT_TYPE` is `com.apple.product-type.application` (else whose
/// `WRAPPER_EXTENSION` is `app`); its path is `TARGET_BUILD_DIR/FULL_PRODUCT_NAME` (or
/// `WRAPPER_NAME`).
pub fn app_product(build_settings_json: &str) -> Result<AppProduct, String> {
    let value = document(build_settings_json)?;
    let targets: Vec<TargetSettings> = serde_json::from_value(value)
        .map_err(|e| format!("not xcodebuild -showBuildSettings -json output: {e}"))?;
    let setting = |t: &TargetSettings, key: &str| {
        t.build_settings
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let is_app = |t: &&TargetSettings| {
        setting(t, "PRODUCT_TYPE").as_deref() == Some("com.apple.product-type.application")
    };
    let wraps_app = |t: &&TargetSettings| setting(t, "WRAPPER_EXTENSION").as_deref() == Some("app");
    let Some(app) = targets
        .iter()
        .find(is_app)
        .or_else(|| targets.iter().find(wraps_app))
    else {
        let names: Vec<String> = targets
            .iter()
            .filter_map(|t| t.target.clone().or_else(|| setting(t, "TARGET_NAME")))
            .collect();
        return Err(format!(
            "no application target in the build settings (targets: {})",
            names.join(", ")
        ));
    };
    let target = app
        .target
        .clone()
        .or_else(|| setting(app, "TARGET_NAME"))
        .unwrap_or_default();
    let dir = setting(app, "TARGET_BUILD_DIR")
        .ok_or_else(|| format!("target {target} has no TARGET_BUILD_DIR"))?;
    let name = setting(app, "FULL_PRODUCT_NAME")
        .or_else(|| setting(app, "WRAPPER_NAME"))
        .ok_or_else(|| format!("target {target} has neither FULL_PRODUCT_NAME nor WRAPPER_NAME"))?;
    Ok(AppProduct {
        path: format!("{}/{}", dir.trim_end_matches('/'), name),
        bundle_id: setting(app, "PRODUCT_BUNDLE_IDENTIFIER"),
        target,
        sdk: setting(app, "PLATFORM_NAME"),
    })
}

/// The schemes `xcodebuild -list -json` lists, for a project or a workspace.
pub fn schemes(list_json: &str) -> Result<Vec<String>, String> {
    let value = document(list_json)?;
    let container = value
        .get("project")
        .or_else(|| value.get("workspace"))
        .ok_or("no \"project\" or \"workspace\" in the list")?;
    let schemes = container
        .get("schemes")
        .and_then(Value::as_array)
        .ok_or("no \"schemes\" in the list")?;
    Ok(schemes
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fixtures::fixture;

    #[test]
    fn step_lines_and_their_details() {
        let (p, d) = step("SwiftCompile normal arm64 /Users/k/Code/WardenApp/Warden/Utilities/SSEStreamParser.swift (in target 'Warden' from project 'Warden')").unwrap();
        assert_eq!(
            (p, d.as_str()),
            (
                PhaseName::Compile,
                "/Users/k/Code/WardenApp/Warden/Utilities/SSEStreamParser.swift"
            )
        );
        let (p, d) = step("SwiftCompile normal arm64 Compiling\\ A.swift,\\ B.swift /x/A.swift /x/B.swift (in target 'W' from project 'W')").unwrap();
        assert_eq!((p, d.as_str()), (PhaseName::Compile, "/x/A.swift"));
        let (p, d) = step("CompileC /x/Build/NSNumber+ObjectiveSugar.o /Users/m/ObjectiveSugar/Classes/NSNumber+ObjectiveSugar.m normal i386 objective-c com.apple.compilers.llvm.clang.1_0.compiler").unwrap();
        assert_eq!(
            (p, d.as_str()),
            (
                PhaseName::Compile,
                "/Users/m/ObjectiveSugar/Classes/NSNumber+ObjectiveSugar.m"
            )
        );
        let (p, d) = step("Ld /x/Build/Products/Debug/App.app/Contents/MacOS/App normal (in target 'App' from project 'App')").unwrap();
        assert_eq!(
            (p, d.as_str()),
            (
                PhaseName::Link,
                "/x/Build/Products/Debug/App.app/Contents/MacOS/App"
            )
        );
        let (p, d) =
            step("PhaseScriptExecution Check\\ Pods\\ Manifest.lock /x/Script-1.sh").unwrap();
        assert_eq!(
            (p, d.as_str()),
            (PhaseName::Other, "Check Pods Manifest.lock")
        );
        assert_eq!(
            step("CodeSign /x/App.app (in target 'App' from project 'App')").map(|s| s.0),
            Some(PhaseName::Sign)
        );
        assert_eq!(
            step("ProcessInfoPlistFile /x/App.app/Info.plist /x/Info.plist").map(|s| s.0),
            Some(PhaseName::Resources)
        );
        assert_eq!(
            step("CompileAssetCatalog /x/App.app /x/Assets.xcassets").map(|s| s.0),
            Some(PhaseName::Resources)
        );
        assert_eq!(
            step("CopySwiftLibs /x/App.app (in target 'App' from project 'App')").map(|s| s.0),
            Some(PhaseName::Package)
        );
        assert_eq!(
            step("Resolve Package Graph").map(|s| s.0),
            Some(PhaseName::Resolve)
        );
        assert_eq!(
            step("\tSwiftCompile normal arm64 /x/A.swift (in target 'W' from project 'W')"),
            None
        );
        assert_eq!(step("SwiftDriverJobDiscovery normal arm64 Compiling A.swift (in target 'W' from project 'W')"), None);
        assert_eq!(step("Ld"), None);
        assert_eq!(step("CodeSign error: code signing is required for product type 'Application' in SDK 'iOS 7.0'"), None);
        assert_eq!(step("Check dependencies"), None);
    }

    #[test]
    fn schemes_of_a_workspace_from_a_real_list() {
        let got = schemes(&fixture("xcodebuild_list_json_workspace_tca_neoxcd.json")).unwrap();
        assert_eq!(got.len(), 14);
        assert_eq!(got[0], "CaseStudies (SwiftUI)");
        assert_eq!(got[13], "VoiceMemos");
    }

    #[test]
    fn schemes_of_a_project_behind_stderr_noise() {
        // The shape `xcodebuild -list -json` prints for a project, its stderr merged before it.
        let out = "2020-07-13 13:41:58.281 xcodebuild[59790:342617]  DTDeviceKit: deviceType from b21b was NULL\n{\n  \"project\" : {\n    \"configurations\" : [\n      \"Debug\",\n      \"Release\"\n    ],\n    \"name\" : \"XcodebuildExample\",\n    \"schemes\" : [\n      \"XcodebuildExample\"\n    ],\n    \"targets\" : [\n      \"XcodebuildExample\"\n    ]\n  }\n}\n";
        assert_eq!(schemes(out).unwrap(), vec!["XcodebuildExample".to_string()]);
        assert!(schemes("xcodebuild: error: 'x.xcodeproj' does not exist.\n").is_err());
        assert!(schemes("{\"other\": {}}").is_err());
    }

    #[test]
    fn the_app_among_the_targets() {
        // The shape of `xcodebuild -showBuildSettings -json` (an array of targets with their
        // settings), cut to the settings read: no whole real output was found to keep.
        let json = r#"[
  {
    "action" : "build",
    "buildSettings" : {
      "FULL_PRODUCT_NAME" : "AppKit.framework",
      "PRODUCT_TYPE" : "com.apple.product-type.framework",
      "TARGET_BUILD_DIR" : "/D/Build/Products/Debug-iphonesimulator",
      "WRAPPER_EXTENSION" : "framework"
    },
    "target" : "AppKitFramework"
  },
  {
    "action" : "build",
    "buildSettings" : {
      "FULL_PRODUCT_NAME" : "Demo.app",
      "PLATFORM_NAME" : "iphonesimulator",
      "PRODUCT_BUNDLE_IDENTIFIER" : "com.example.demo",
      "PRODUCT_TYPE" : "com.apple.product-type.application",
      "TARGET_BUILD_DIR" : "/D/Build/Products/Debug-iphonesimulator/",
      "WRAPPER_EXTENSION" : "app",
      "WRAPPER_NAME" : "Demo.app"
    },
    "target" : "Demo"
  }
]"#;
        let app = app_product(json).unwrap();
        assert_eq!(app.path, "/D/Build/Products/Debug-iphonesimulator/Demo.app");
        assert_eq!(app.bundle_id.as_deref(), Some("com.example.demo"));
        assert_eq!(app.target, "Demo");
        assert_eq!(app.sdk.as_deref(), Some("iphonesimulator"));

        let only_wrapper = r#"[{"target":"W","buildSettings":{"TARGET_BUILD_DIR":"/B","WRAPPER_EXTENSION":"app","WRAPPER_NAME":"W.app"}}]"#;
        assert_eq!(app_product(only_wrapper).unwrap().path, "/B/W.app");
        let none = r#"[{"target":"Lib","buildSettings":{"TARGET_BUILD_DIR":"/B","PRODUCT_TYPE":"com.apple.product-type.library.static"}}]"#;
        assert!(app_product(none).unwrap_err().contains("Lib"));
        assert!(app_product("not json").is_err());
    }
}
