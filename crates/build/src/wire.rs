//! What reading a build answers: phases, diagnostics, the failure with its hint, and the built
//! products (wire types the product's API answers with, re-exported there as its own).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which build tool wrote the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Toolchain {
    /// `xcodebuild` (iOS, macOS).
    Xcode,
    /// `./gradlew` (Android).
    Gradle,
}

/// How bad a diagnostic is. Compilers' `note:` lines explain the diagnostic before them and are
/// dropped: an agent acts on the error's file and line, and a note counted on its own would
/// inflate the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// `error:`, `fatal error:`, Kotlin's `e:`, a signing or linker failure.
    Error,
    /// `warning:`, Kotlin's `w:`.
    Warning,
}

/// The tool a diagnostic came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticTool {
    /// The Swift compiler (a `.swift` file).
    Swiftc,
    /// clang (C, Objective-C, C++ files and headers).
    Clang,
    /// The linker (`ld:`, undefined or duplicate symbols, `linker command failed`).
    Ld,
    /// Code signing and provisioning.
    Codesign,
    /// xcodebuild or the Xcode build system itself (`xcodebuild: error:`, `error:` without a file).
    Xcodebuild,
    /// The Kotlin compiler (`e:` / `w:`).
    Kotlinc,
    /// javac (a `.java` file).
    Javac,
    /// Gradle itself.
    Gradle,
    /// AAPT2, Android's resource compiler.
    Aapt,
    /// Anything else (a test failure written as an error, another file type).
    Other,
}

/// One error or warning, as the tool printed it.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The path as the tool printed it (a `file://` URI made a path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// At most 4 KiB.
    pub message: String,
    pub tool: DiagnosticTool,
}

/// Why a build failed, from the most to the least specific.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Source code did not compile.
    Compile,
    /// Compiled, but symbols are missing or duplicated at link time.
    Link,
    /// Code signing, provisioning, a keystore.
    Signing,
    /// The platform SDK, a destination, build tools or licences are missing.
    SdkMissing,
    /// The scheme (Xcode) is not in the project.
    SchemeMissing,
    /// No project, workspace, Gradle build, module or task where it was asked for.
    ProjectMissing,
    /// Packages, pods or Maven artifacts could not be resolved.
    Dependency,
    /// Anything else the output calls a failure.
    Other,
}

/// The failure a build's output shows, with what to do about it.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Failure {
    pub kind: FailureKind,
    /// The line of the output that tells it (at most 4 KiB).
    pub message: String,
    /// One sentence an agent can act on.
    pub hint: String,
}

/// A stage of the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseName {
    /// Resolving packages and configuring projects.
    Resolve,
    /// Compiling sources.
    Compile,
    /// Linking.
    Link,
    /// Info.plist, asset catalogs, Android resources, manifests, dex merging.
    Resources,
    /// Code signing.
    Sign,
    /// Packaging the app (copying libraries, assembling the APK).
    Package,
    /// Running tests.
    Test,
    /// Scripts and everything else.
    Other,
}

/// The build entered a stage: each build step tells one.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Phase {
    pub name: PhaseName,
    /// The file being compiled, the product being linked or signed, the Gradle task path.
    pub detail: String,
}

/// The application an Xcode build makes.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AppProduct {
    /// `TARGET_BUILD_DIR/FULL_PRODUCT_NAME`: the `.app` folder.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle_id: Option<String>,
    pub target: String,
    /// `PLATFORM_NAME`: `iphonesimulator`, `iphoneos`, `macosx`…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk: Option<String>,
}

/// The APK a Gradle build makes.
// Its fields are described by the API schema, where descriptions are kept short on
// purpose (token budget).
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ApkProduct {
    /// Relative to the folder of `output-metadata.json`.
    pub file: String,
    pub application_id: String,
    pub variant: String,
}
