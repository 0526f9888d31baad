//! File names a build tool, a shell or an editor would run or load as code. A file whose name and
//! content a caller chooses (`logs_query` `save_path` writes caller-supplied log lines) must never
//! get such a name: `logs_query {"logs": ["id > /out/RCE"], "save_path": "<project>/hvigorw"}`
//! followed by a build of that project is host command execution through a tool that needs no
//! approval. Files tapflow writes are never executable either (see `write.rs`); this list closes
//! the cases where a tool runs a file whatever its mode (`sh hvigorw`, `make`, `node x.js`).
//!
//! The rule (documented in `docs/security.md`), compared case-insensitively:
//! - a name in [`BUILD_FILES`], or starting with a wrapper name in [`WRAPPER_PREFIXES`]
//!   (`hvigorw`, `hvigorw.bat`, `hvigorw-copy`, `gradlew.sh`, `Makefile.am`, …);
//! - an extension in [`CODE_EXTENSIONS`] (scripts, sources a build compiles, programs, libraries);
//! - a hidden name (`.envrc`, `.npmrc`, `.bashrc`, `.gitconfig`: configuration tools execute or
//!   obey), and any hidden directory below the root (`.git/`, `.hvigor/`, `.vscode/`).

use std::path::Path;

/// Build wrappers: any name starting with one of these is refused (their variants included).
pub const WRAPPER_PREFIXES: &[&str] = &["hvigorw", "gradlew", "makefile", "gnumakefile", "mvnw"];

/// Files build tools run or read as build logic.
pub const BUILD_FILES: &[&str] = &[
    // hvigor / DevEco / ohpm
    "hvigor-wrapper.js",
    "hvigorfile.ts",
    "hvigorfile.js",
    "hvigorfile.mjs",
    "hvigorconfig.ts",
    "hvigorconfig.js",
    "build-profile.json5",
    "oh-package.json5",
    "module.json5",
    "app.json5",
    // node
    "package.json",
    // gradle / maven
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "init.gradle",
    "gradle.properties",
    "gradle-wrapper.properties",
    "pom.xml",
    // make and friends
    "cmakelists.txt",
    "configure",
    "meson.build",
    "build.ninja",
    "build",
    "build.bazel",
    "workspace",
    "workspace.bazel",
    "module.bazel",
    "rakefile",
    "justfile",
    "taskfile.yml",
    "taskfile.yaml",
    "dockerfile",
    "containerfile",
    "jenkinsfile",
    "vagrantfile",
    // rust / python
    "build.rs",
    "cargo.toml",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "conftest.py",
    "noxfile.py",
    "tox.ini",
];

/// Extensions of scripts, sources a build compiles or loads, programs and libraries.
pub const CODE_EXTENSIONS: &[&str] = &[
    // shells
    "sh", "bash", "zsh", "ksh", "csh", "tcsh", "fish", "command", // Windows
    "bat", "cmd", "ps1", "psm1", "psd1", "vbs", "vbe", "wsf", "reg", // JS / TS / ArkTS
    "js", "mjs", "cjs", "ts", "mts", "cts", "ets", // other interpreters
    "py", "pyw", "pl", "pm", "rb", "php", "lua", "tcl", // build logic
    "mk", "cmake", "gradle", "kts", "bzl", "ninja", // programs and libraries
    "jar", "class", "exe", "com", "msi", "scr", "dll", "so", "dylib", "desktop", "service",
];

/// Why `name` (one file name, no directory) is one a tool would run; `None` when it is not.
pub fn runnable_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with('.') {
        return Some("a hidden file (tools read these as configuration they obey)");
    }
    if WRAPPER_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return Some("a build wrapper or makefile (hvigorw, gradlew, Makefile, …)");
    }
    if BUILD_FILES.contains(&lower.as_str()) {
        return Some("a file build tools run or read as build logic");
    }
    let ext = Path::new(&lower).extension().and_then(|e| e.to_str());
    if ext.is_some_and(|e| CODE_EXTENSIONS.contains(&e)) {
        return Some("a script, source file or program (by its extension)");
    }
    None
}

/// Why a path below a root (relative to it) has a runnable name or lies in a hidden directory.
pub fn runnable_path(below_root: &Path) -> Option<&'static str> {
    let mut parts: Vec<String> = below_root
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let name = parts.pop()?;
    if parts.iter().any(|p| p.starts_with('.')) {
        return Some(
            "inside a hidden directory (.git, .hvigor, .vscode, … hold configuration tools obey)",
        );
    }
    runnable_name(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_wrappers_scripts_and_hidden_files_are_runnable() {
        for name in [
            "hvigorw",
            "HVIGORW",
            "hvigorw.bat",
            "hvigorw.js",
            "hvigorw-backup",
            "gradlew",
            "gradlew.bat",
            "Makefile",
            "makefile.am",
            "GNUmakefile",
            "hvigorfile.ts",
            "build-profile.json5",
            "package.json",
            "run.sh",
            "x.SH",
            "Index.ets",
            "tool.py",
            "a.jar",
            ".envrc",
            ".bashrc",
            "CMakeLists.txt",
            "build.rs",
        ] {
            assert!(runnable_name(name).is_some(), "{name}");
        }
        for name in [
            "snapshot.log",
            "hilog.txt",
            "out",
            "shot.png",
            "errors.json",
            "builder.log",
        ] {
            assert_eq!(runnable_name(name), None, "{name}");
        }
    }

    #[test]
    fn hidden_directories_below_the_root_are_refused() {
        assert!(runnable_path(Path::new(".git/hooks/x.log")).is_some());
        assert!(runnable_path(Path::new("a/.vscode/tasks.log")).is_some());
        assert!(runnable_path(Path::new("logs/today.log")).is_none());
        assert!(runnable_path(Path::new("logs/hvigorw")).is_some());
        assert!(runnable_path(Path::new("")).is_none());
    }
}
