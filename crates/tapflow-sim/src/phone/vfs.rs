//! The phone's virtual file system: a flat map from absolute path to bytes; directories are
//! implied by path prefixes (plus a few well-known ones that always exist).

use std::collections::BTreeMap;

/// Directories present on every phone even when empty.
const BASE_DIRS: &[&str] = &[
    "/",
    "/data",
    "/data/local",
    "/data/local/tmp",
    "/data/log",
    "/data/log/faultlog",
    "/data/log/faultlog/faultlogger",
    "/data/log/faultlog/temp",
    "/data/log/hilog",
    "/data/app",
    "/data/storage",
    "/system",
    "/system/bin",
    "/sdcard",
    "/storage",
    "/storage/media",
    "/storage/media/100",
    "/storage/media/100/local",
    "/storage/media/100/local/files",
    "/storage/media/100/local/files/Docs",
    "/storage/media/100/local/files/Docs/Download",
];

/// Path → bytes. Paths are normalised (duplicate and trailing slashes removed).
#[derive(Debug, Clone, Default)]
pub struct Vfs {
    files: BTreeMap<String, Vec<u8>>,
}

/// Normalises `path`: collapses `//`, drops `.` segments and a trailing `/`, resolves `..`.
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

impl Vfs {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn read(&self, path: &str) -> Option<&[u8]> {
        self.files.get(&normalize(path)).map(Vec::as_slice)
    }

    /// Creates or replaces a file (parent directories are implied).
    pub fn write(&mut self, path: &str, bytes: Vec<u8>) {
        self.files.insert(normalize(path), bytes);
    }

    /// Removes a file, or a directory with everything under it. True when something was removed.
    pub fn remove(&mut self, path: &str) -> bool {
        let p = normalize(path);
        if self.files.remove(&p).is_some() {
            return true;
        }
        let prefix = if p == "/" { p.clone() } else { format!("{p}/") };
        let before = self.files.len();
        self.files.retain(|k, _| !k.starts_with(&prefix));
        before != self.files.len()
    }

    pub fn is_dir(&self, path: &str) -> bool {
        let p = normalize(path);
        if BASE_DIRS.contains(&p.as_str()) {
            return true;
        }
        let prefix = if p == "/" { p.clone() } else { format!("{p}/") };
        self.files
            .range(prefix.clone()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(&prefix))
    }

    pub fn is_file(&self, path: &str) -> bool {
        self.files.contains_key(&normalize(path))
    }

    pub fn size(&self, path: &str) -> Option<u64> {
        self.read(path).map(|b| b.len() as u64)
    }

    /// Names directly under `dir` (files and implied directories), sorted; `None` if not a directory.
    pub fn list(&self, dir: &str) -> Option<Vec<String>> {
        if !self.is_dir(dir) {
            return None;
        }
        let p = normalize(dir);
        let prefix = if p == "/" { p.clone() } else { format!("{p}/") };
        let mut names: Vec<String> = Vec::new();
        let candidates = self
            .files
            .keys()
            .map(String::as_str)
            .chain(BASE_DIRS.iter().copied());
        for k in candidates {
            if let Some(rest) = k.strip_prefix(&prefix)
                && let Some(first) = rest.split('/').next()
                && !first.is_empty()
                && !names.iter().any(|n| n == first)
            {
                names.push(first.to_string());
            }
        }
        names.sort();
        Some(names)
    }

    /// Every file path under `dir` (recursively), for `bm clean` and tests.
    pub fn files_under(&self, dir: &str) -> Vec<String> {
        let p = normalize(dir);
        let prefix = format!("{}/", p.trim_end_matches('/'));
        self.files
            .keys()
            .filter(|k| k.starts_with(&prefix))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_read_list_remove() {
        let mut fs = Vfs::new();
        fs.write("/data/local/tmp//a.txt", b"hi".to_vec());
        fs.write("/data/local/tmp/sub/b.txt", b"x".to_vec());
        assert_eq!(fs.read("/data/local/tmp/a.txt"), Some(&b"hi"[..]));
        assert_eq!(fs.size("/data/local/tmp/a.txt"), Some(2));
        assert!(fs.is_dir("/data/local/tmp/sub"));
        assert!(!fs.is_dir("/data/local/tmp/a.txt"));
        assert_eq!(
            fs.list("/data/local/tmp").unwrap(),
            vec!["a.txt".to_string(), "sub".to_string()]
        );
        assert!(fs.list("/nope").is_none());
        assert!(
            fs.list("/data/log/faultlog/faultlogger")
                .unwrap()
                .is_empty()
        );
        assert!(fs.remove("/data/local/tmp/sub"));
        assert!(!fs.is_dir("/data/local/tmp/sub"));
        assert!(!fs.remove("/data/local/tmp/sub"));
    }

    #[test]
    fn normalizes_paths() {
        assert_eq!(normalize("/a//b/./c/../d/"), "/a/b/d");
        assert_eq!(normalize("/"), "/");
    }
}
