//! How the planner reads sub-flow files without doing I/O itself: the caller passes a
//! [`SourceLoader`] (the CLI reads the file system; tests use a map). Paths are resolved
//! lexically relative to the calling file's directory.

use std::collections::BTreeMap;

/// Reads a flow file by path.
pub trait SourceLoader {
    fn load(&self, path: &str) -> Result<String, String>;
}

/// An in-memory loader (tests, benchmarks, MCP calls with inline files).
#[derive(Default, Debug, Clone)]
pub struct MapLoader {
    pub files: BTreeMap<String, String>,
}

impl MapLoader {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with(mut self, path: &str, text: &str) -> Self {
        self.files.insert(normalize(path), text.to_string());
        self
    }
}

impl SourceLoader for MapLoader {
    fn load(&self, path: &str) -> Result<String, String> {
        self.files
            .get(&normalize(path))
            .cloned()
            .ok_or_else(|| "no such file".to_string())
    }
}

/// `base`'s directory joined with `rel` (unless `rel` is absolute), normalised.
pub fn resolve(base: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        return normalize(rel);
    }
    let base = base.replace('\\', "/");
    let dir = match base.rfind('/') {
        Some(i) => &base[..i],
        None => "",
    };
    if dir.is_empty() {
        normalize(rel)
    } else {
        normalize(&format!("{dir}/{rel}"))
    }
}

/// Removes `.` and `a/..` segments lexically.
pub fn normalize(path: &str) -> String {
    let path = path.replace('\\', "/");
    let absolute = path.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." if out.last().is_some_and(|l| *l != "..") => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_to_the_caller() {
        assert_eq!(
            resolve("flows/login.yaml", "subflows/a.yaml"),
            "flows/subflows/a.yaml"
        );
        assert_eq!(resolve("flows/a/b.yaml", "../c.yaml"), "flows/c.yaml");
        assert_eq!(resolve("b.yaml", "./c.yaml"), "c.yaml");
        assert_eq!(resolve("x/b.yaml", "/abs/c.yaml"), "/abs/c.yaml");
        assert_eq!(normalize("../x/./y"), "../x/y");
    }
}
