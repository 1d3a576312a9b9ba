//! Gradle: which lines are tasks (`> Task :app:compileDebugKotlin`) and what stage a task's name
//! tells, the task that assembles a variant, where the Android Gradle Plugin puts its APKs, and
//! the APK its `output-metadata.json` describes.

use std::path::PathBuf;

use serde::Deserialize;

use crate::clean;
use crate::wire::{ApkProduct, PhaseName};

/// The path of the task a `> Task :path [OUTCOME]` line runs, and its stage, if it is one.
pub fn task(line: &str) -> Option<(String, PhaseName)> {
    let rest = line.strip_prefix("> Task ")?;
    let path = rest.split_whitespace().next()?;
    if !path.starts_with(':') {
        return None;
    }
    let path = clean::cap(path, clean::MAX_MESSAGE).to_string();
    let name = path.rsplit(':').next().unwrap_or_default();
    Some((path.clone(), phase(name)))
}

/// The stage a task's name tells: resources first (`compileDebugLibraryResources` and
/// `packageDebugResources` are resources), then `compile*`/`kapt*`/`ksp*` compile,
/// `merge*`/`process*`/`*aapt*`/`generate*Resources` resources, `sign*`/`validateSigning*`
/// sign, `package*`/`assemble*`/`bundle*` package, `test*`/`connected*` test.
pub fn phase(name: &str) -> PhaseName {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with("resources") || lower.contains("aapt") {
        PhaseName::Resources
    } else if lower.starts_with("compile")
        || lower.starts_with("kapt")
        || lower.starts_with("ksp")
        || lower.starts_with("javaprecompile")
    {
        PhaseName::Compile
    } else if lower.starts_with("merge") || lower.starts_with("process") {
        PhaseName::Resources
    } else if lower.starts_with("sign") || lower.starts_with("validatesigning") {
        PhaseName::Sign
    } else if lower.starts_with("package")
        || lower.starts_with("assemble")
        || lower.starts_with("bundle")
    {
        PhaseName::Package
    } else if lower.starts_with("test") || lower.starts_with("connected") {
        PhaseName::Test
    } else {
        PhaseName::Other
    }
}

/// `:app:assembleDebug` for module `app` and variant `debug`, `:app:assembleFreeDebug` for
/// `freeDebug`; a nested module (`feature:login`) keeps its path, an empty one is the root.
pub fn assemble_task(module: &str, variant: &str) -> String {
    let module = module.trim_matches(':');
    let mut chars = variant.chars();
    let variant = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
        None => String::new(),
    };
    if module.is_empty() {
        format!(":assemble{variant}")
    } else {
        format!(":{module}:assemble{variant}")
    }
}

/// Where the Android Gradle Plugin writes a variant's APKs, relative to the project:
/// `<module>/build/outputs/apk/<variant>` for a build type alone (`app/build/outputs/apk/debug`),
/// `<module>/build/outputs/apk/<flavors>/<buildType>` for a flavored variant (`freeDebug` →
/// `apk/free/debug`, `freeArmDebug` → `apk/freeArm/debug`), as AGP's variant folders are. The
/// build type is taken to be the variant's last camel-case word (`debug`, `release`, `staging`…).
pub fn apk_dir(module: &str, variant: &str) -> PathBuf {
    let mut dir = PathBuf::new();
    for part in module
        .trim_matches(':')
        .split(':')
        .filter(|p| !p.is_empty())
    {
        dir.push(part);
    }
    dir.push("build");
    dir.push("outputs");
    dir.push("apk");
    match variant
        .char_indices()
        .rev()
        .find(|(i, c)| *i > 0 && c.is_ascii_uppercase())
    {
        Some((at, _)) => {
            let (flavors, build_type) = variant.split_at(at);
            let mut chars = build_type.chars();
            let build_type: String = chars
                .next()
                .map(|c| c.to_ascii_lowercase())
                .into_iter()
                .chain(chars)
                .collect();
            dir.push(flavors);
            dir.push(build_type);
        }
        None => dir.push(variant),
    }
    dir
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OutputMetadata {
    application_id: String,
    variant_name: String,
    #[serde(default)]
    elements: Vec<Element>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Element {
    output_file: String,
    #[serde(default)]
    filters: Vec<serde_json::Value>,
}

/// The APK the Android Gradle Plugin's `output-metadata.json` describes: its first element with
/// no ABI or density filter (the universal APK of split builds), else its first element.
pub fn apk_product(output_metadata_json: &str) -> Result<ApkProduct, String> {
    let text = output_metadata_json.trim_start_matches('\u{feff}');
    let meta: OutputMetadata =
        serde_json::from_str(text).map_err(|e| format!("not an output-metadata.json: {e}"))?;
    let element = meta
        .elements
        .iter()
        .find(|e| e.filters.is_empty())
        .or_else(|| meta.elements.first())
        .ok_or("output-metadata.json lists no output file")?;
    Ok(ApkProduct {
        file: element.output_file.clone(),
        application_id: meta.application_id,
        variant: meta.variant_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fixtures::fixture;

    #[test]
    fn task_lines() {
        assert_eq!(
            task("> Task :app:compileDebugKotlin"),
            Some((":app:compileDebugKotlin".into(), PhaseName::Compile))
        );
        assert_eq!(
            task("> Task :app:compileDebugKotlin FAILED"),
            Some((":app:compileDebugKotlin".into(), PhaseName::Compile))
        );
        assert_eq!(
            task("> Task :clean"),
            Some((":clean".into(), PhaseName::Other))
        );
        assert_eq!(
            task("> Task :pro:configureCMakeDebug[arm64-v8a]").map(|t| t.0),
            Some(":pro:configureCMakeDebug[arm64-v8a]".into())
        );
        assert_eq!(task("> Configure project :app"), None);
        assert_eq!(task("> Task"), None);
    }

    #[test]
    fn phases_from_task_names() {
        assert_eq!(phase("compileDebugKotlin"), PhaseName::Compile);
        assert_eq!(phase("compileDebugJavaWithJavac"), PhaseName::Compile);
        assert_eq!(phase("kaptDebugKotlin"), PhaseName::Compile);
        assert_eq!(phase("kspDebugKotlin"), PhaseName::Compile);
        assert_eq!(phase("mergeDebugResources"), PhaseName::Resources);
        assert_eq!(phase("processDebugResources"), PhaseName::Resources);
        assert_eq!(phase("compileDebugLibraryResources"), PhaseName::Resources);
        assert_eq!(phase("packageDebugResources"), PhaseName::Resources);
        assert_eq!(phase("mergeExtDexDebug"), PhaseName::Resources);
        assert_eq!(phase("packageDebug"), PhaseName::Package);
        assert_eq!(phase("assembleDebug"), PhaseName::Package);
        assert_eq!(phase("signingReport"), PhaseName::Sign);
        assert_eq!(phase("validateSigningDebug"), PhaseName::Sign);
        assert_eq!(phase("testDebugUnitTest"), PhaseName::Test);
        assert_eq!(phase("connectedDebugAndroidTest"), PhaseName::Test);
        assert_eq!(phase("preBuild"), PhaseName::Other);
    }

    #[test]
    fn assemble_tasks() {
        assert_eq!(assemble_task("app", "debug"), ":app:assembleDebug");
        assert_eq!(assemble_task("app", "freeDebug"), ":app:assembleFreeDebug");
        assert_eq!(
            assemble_task(":feature:login", "release"),
            ":feature:login:assembleRelease"
        );
        assert_eq!(assemble_task("", "debug"), ":assembleDebug");
    }

    #[test]
    fn apk_dirs_as_agp_lays_them_out() {
        assert_eq!(
            apk_dir("app", "debug"),
            PathBuf::from("app/build/outputs/apk/debug")
        );
        // The real layout of a flavored build: fixtures/build_logs/agp_output_metadata_flavor_devDebug_inews.json
        // was kept at app/build/outputs/apk/dev/debug/.
        assert_eq!(
            apk_dir("app", "devDebug"),
            PathBuf::from("app/build/outputs/apk/dev/debug")
        );
        assert_eq!(
            apk_dir("app", "freeArmRelease"),
            PathBuf::from("app/build/outputs/apk/freeArm/release")
        );
        assert_eq!(
            apk_dir("feature:login", "debug"),
            PathBuf::from("feature/login/build/outputs/apk/debug")
        );
    }

    #[test]
    fn apk_of_a_build_type() {
        let apk = apk_product(&fixture("agp_output_metadata_debug_wristkey.json")).unwrap();
        assert_eq!(
            apk,
            ApkProduct {
                file: "app-debug.apk".into(),
                application_id: "app.wristkey".into(),
                variant: "debug".into()
            }
        );
    }

    #[test]
    fn apk_of_a_flavored_variant() {
        let apk = apk_product(&fixture("agp_output_metadata_flavor_devDebug_inews.json")).unwrap();
        assert_eq!(apk.file, "app-dev-debug.apk");
        assert_eq!(apk.application_id, "com.nisaefendioglu.newsapp.dev.debug");
        assert_eq!(apk.variant, "devDebug");
    }

    #[test]
    fn apk_of_split_outputs_is_the_universal_one() {
        let json = r#"{"version":3,"applicationId":"com.x","variantName":"release","elements":[
            {"type":"ONE_OF_MANY","filters":[{"filterType":"ABI","value":"arm64-v8a"}],"outputFile":"app-arm64-v8a-release.apk"},
            {"type":"UNIVERSAL","filters":[],"outputFile":"app-universal-release.apk"}]}"#;
        assert_eq!(apk_product(json).unwrap().file, "app-universal-release.apk");
        assert!(
            apk_product(r#"{"applicationId":"x","variantName":"debug","elements":[]}"#).is_err()
        );
        assert!(apk_product("{}").is_err());
    }
}
