//! Reading a HarmonyOS project's layout: `build-profile.json5` (parsed as real JSON5), module roots,
//! module types from `src/main/module.json5`, and shared-module (HSP) discovery.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::{BuildError, codes};

/// Directories never searched for profiles, modules or packages (build outputs, VCS, dependencies).
pub const SKIP_DIRS: &[&str] = &[
    ".git",
    ".hvigor",
    ".idea",
    "build",
    "node_modules",
    "oh_modules",
    ".venv",
    "__pycache__",
];

/// Files under `dir` (down to `max_depth`), in walk order, never descending into a directory
/// named in `skip`. A missing `dir` has none.
pub fn files_under<'a>(
    dir: &Path,
    max_depth: usize,
    skip: &'a [&'a str],
) -> impl Iterator<Item = PathBuf> + 'a {
    walkdir::WalkDir::new(dir)
        .max_depth(max_depth)
        .into_iter()
        .filter_entry(move |e| {
            e.depth() == 0
                || !(e.file_type().is_dir()
                    && skip.contains(&e.file_name().to_string_lossy().as_ref()))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
}

/// `base.join(rel)` without `.` components (`./entry` → `<base>/entry`), so reported paths are canonical-looking.
pub fn join_clean(base: &Path, rel: &str) -> PathBuf {
    let mut out = base.to_path_buf();
    for c in Path::new(rel).components() {
        match c {
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Parses a JSON5 file into a JSON value; `None` when missing or malformed.
pub fn read_json5(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    json5::from_str::<Value>(&text).ok()
}

/// The files that make a directory a hvigor project. `build_app` refuses a directory without
/// them before anything runs: a directory that merely holds a file named `hvigorw` is not a
/// project to build.
pub const PROJECT_MARKERS: &[&str] = &["build-profile.json5", "hvigorfile.ts"];

/// `INVALID_PROJECT_PATH` unless every [`PROJECT_MARKERS`] file is a regular file in `root`.
pub fn check_markers(root: &Path) -> Result<(), BuildError> {
    let missing: Vec<&str> = PROJECT_MARKERS
        .iter()
        .copied()
        .filter(|m| !std::fs::metadata(root.join(m)).is_ok_and(|md| md.is_file()))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(BuildError::with_details(
        codes::INVALID_PROJECT_PATH,
        format!(
            "{} is not a hvigor project: it has no {}; project_path must be the project root \
             (the directory with build-profile.json5 and hvigorfile.ts)",
            root.display(),
            missing.join(" and ")
        ),
        serde_json::json!({ "project_path": root.display().to_string(), "missing": missing }),
    ))
}

/// A parsed project root.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    /// The root `build-profile.json5`, when present and valid.
    pub profile: Option<Value>,
}

/// One `modules[]` entry of the root profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleEntry {
    pub name: String,
    pub root: PathBuf,
}

impl Project {
    pub fn open(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            profile: read_json5(&root.join("build-profile.json5")),
        }
    }

    /// `modules[]` of the root profile, with `srcPath` resolved against the project.
    pub fn modules(&self) -> Vec<ModuleEntry> {
        let Some(list) = self
            .profile
            .as_ref()
            .and_then(|p| p.get("modules"))
            .and_then(Value::as_array)
        else {
            return Vec::new();
        };
        list.iter()
            .filter_map(|m| {
                let name = m.get("name")?.as_str()?.to_string();
                let src = m
                    .get("srcPath")
                    .and_then(Value::as_str)
                    .unwrap_or(&name)
                    .to_string();
                Some(ModuleEntry {
                    root: join_clean(&self.root, &src),
                    name,
                })
            })
            .collect()
    }

    /// Where a module's sources and `build/` live: `modules[].srcPath`, else `<project>/<m>`,
    /// `harmony/app/<m>` or `app/<m>`; `None` if none exists.
    pub fn module_root(&self, module: &str) -> Option<PathBuf> {
        if let Some(m) = self.modules().into_iter().find(|m| m.name == module) {
            return Some(m.root);
        }
        [
            self.root.join(module),
            self.root.join("harmony/app").join(module),
            self.root.join("app").join(module),
        ]
        .into_iter()
        .find(|p| p.is_dir())
    }

    /// A module's `src/main/module.json5` `module.type` (`entry`, `feature`, `shared`, `har`).
    pub fn module_type(module_root: &Path) -> Option<String> {
        let v = read_json5(&module_root.join("src/main/module.json5"))?;
        Some(v.get("module")?.get("type")?.as_str()?.to_string())
    }

    /// Shared modules, as the reference discovers them: profile modules whose `module.json5` says
    /// `type: "shared"`; failing that, any `*/src/main/module.json5` so typed. Sorted by name.
    pub fn discover_shared_modules(&self) -> Vec<String> {
        let mut found: Vec<String> = self
            .modules()
            .into_iter()
            .filter(|m| Self::module_type(&m.root).as_deref() == Some("shared"))
            .map(|m| m.name)
            .collect();
        if found.is_empty()
            && let Ok(entries) = std::fs::read_dir(&self.root)
        {
            for e in entries.filter_map(Result::ok) {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.path().is_dir()
                    && !SKIP_DIRS.contains(&name.as_str())
                    && Self::module_type(&e.path()).as_deref() == Some("shared")
                {
                    found.push(name);
                }
            }
        }
        found.sort();
        found.dedup();
        found
    }

    /// Every `build-profile.json5` that may hold signing material: the root one first, then the others.
    pub fn profile_paths(&self) -> Vec<PathBuf> {
        let root_profile = self.root.join("build-profile.json5");
        let mut out = Vec::new();
        if root_profile.is_file() {
            out.push(root_profile.clone());
        }
        let mut others: Vec<PathBuf> = files_under(&self.root, 6, SKIP_DIRS)
            .filter(|p| {
                p.file_name().is_some_and(|n| n == "build-profile.json5") && *p != root_profile
            })
            .collect();
        others.sort();
        out.extend(others);
        out
    }
}

/// Project files for the unit tests of this module and its siblings.
#[cfg(test)]
pub(super) mod test_files {
    use std::path::Path;

    /// Writes `text` at `p`, creating its directories.
    pub fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A file whose content does not matter.
    pub fn touch(p: &Path) {
        write(p, "x");
    }
}

#[cfg(test)]
mod tests {
    use super::test_files::write;
    use super::*;

    #[test]
    fn json5_profile_modules_and_discovery() {
        let d = tempfile::tempdir().unwrap();
        write(
            &d.path().join("build-profile.json5"),
            "{\n // comment\n app: {products: [{name: 'default',},],},\n modules: [\n {name: 'entry', srcPath: './entry'},\n {name: 'libz', srcPath: './libs/libz'},\n {name: 'liba', srcPath: './liba',},\n ],\n}\n",
        );
        write(
            &d.path().join("entry/src/main/module.json5"),
            "{module: {name: 'entry', type: 'entry'}}",
        );
        write(
            &d.path().join("libs/libz/src/main/module.json5"),
            "{module: {name: 'libz', type: 'shared'}}",
        );
        write(
            &d.path().join("liba/src/main/module.json5"),
            "{ /* c */ \"module\": {\"type\": \"shared\",}}",
        );
        let p = Project::open(d.path());
        assert_eq!(p.modules().len(), 3);
        assert_eq!(p.module_root("libz").unwrap(), d.path().join("libs/libz"));
        assert_eq!(p.discover_shared_modules(), vec!["liba", "libz"]);
        assert_eq!(
            Project::module_type(&d.path().join("entry")).as_deref(),
            Some("entry")
        );
        assert!(p.module_root("nothere").is_none());
    }

    #[test]
    fn discovery_falls_back_to_scanning_and_profiles_are_listed_root_first() {
        let d = tempfile::tempdir().unwrap();
        write(&d.path().join("build-profile.json5"), "{app: {}}");
        write(
            &d.path().join("shared1/src/main/module.json5"),
            "{module: {type: 'shared'}}",
        );
        write(&d.path().join("shared1/build-profile.json5"), "{}");
        write(
            &d.path().join("entry/build/default/build-profile.json5"),
            "{}",
        );
        let p = Project::open(d.path());
        assert_eq!(p.discover_shared_modules(), vec!["shared1"]);
        assert_eq!(
            p.profile_paths(),
            vec![
                d.path().join("build-profile.json5"),
                d.path().join("shared1/build-profile.json5")
            ]
        );
    }
}
