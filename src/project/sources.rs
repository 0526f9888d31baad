//! The flow files of one command, read: top-level flows and sub-flow files (by the `subflows/` /
//! `*.subflow.yaml` convention), the [`FlowLoader`] their `run_flow` files are read with, and one
//! diagnostic for each file that could not be read as a flow (not UTF-8, too large, not a regular
//! file, outside its flow root, a name that is not UTF-8). An unreadable file never hides the
//! others: everything readable is still checked, and [`FlowSources::compile`] reports all of it
//! together. `validate`, `plan` and `run` (and the MCP server's flow tools) use this one path.

use std::path::Path;

use super::discover::FlowPath;
use super::loader::FlowLoader;
use tapflow_core::flow::{self, Diagnostic, SourceFile};
use tapflow_core::plan::{self, Compiled, PlanOptions, ToolCatalog};

/// Read flow files, ready to compile.
#[derive(Debug, Clone)]
pub struct FlowSources {
    pub flows: Vec<SourceFile>,
    pub subflows: Vec<SourceFile>,
    /// One error per file that could not be read as a flow.
    pub problems: Vec<(SourceFile, Diagnostic)>,
    /// Reads `run_flow` files under the flow roots.
    pub loader: FlowLoader,
}

impl FlowSources {
    /// Reads every found file (relative names against `cwd`); the flow roots are the found
    /// files' roots.
    pub fn read(found: &[FlowPath], cwd: &Path) -> FlowSources {
        let mut roots = Vec::new();
        for f in found {
            if !roots.contains(&f.root) {
                roots.push(f.root.clone());
            }
        }
        let loader = FlowLoader::new(cwd, roots);
        let mut out = FlowSources {
            flows: Vec::new(),
            subflows: Vec::new(),
            problems: Vec::new(),
            loader,
        };
        for f in found {
            let name = f.display_name();
            let Some(path) = f.path.to_str() else {
                out.problems.push(*super::loader::name_not_utf8(&name));
                continue;
            };
            match out.loader.read_source(path, &name) {
                Ok(src) if flow::is_subflow_path(&name) => out.subflows.push(src),
                Ok(src) => out.flows.push(src),
                Err(problem) => out.problems.push(*problem),
            }
        }
        out
    }

    /// Validates and compiles everything readable, with the unreadable files' diagnostics
    /// merged in (sorted like the planner's own).
    pub fn compile(&self, catalog: &dyn ToolCatalog, opts: &PlanOptions) -> Compiled {
        let mut c = plan::compile(&self.flows, &self.subflows, catalog, &self.loader, opts);
        for (src, d) in &self.problems {
            c.sources.insert(src.clone());
            c.diagnostics.push(d.clone());
        }
        flow::sort_and_dedup(&mut c.diagnostics);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::{Project, discover};
    use std::fs;
    use std::path::PathBuf;
    use tapflow_tools::RegistryCatalog;

    #[test]
    fn an_unreadable_file_is_one_diagnostic_and_hides_nothing() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("flows");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("a_bad.yaml"), b"steps:\n  - click: \xff\n").unwrap();
        fs::write(d.join("b_typo.yaml"), "steps:\n  - clik: Login\n").unwrap();
        fs::write(d.join("c_ok.yaml"), "steps:\n  - click: Login\n").unwrap();
        let found = discover(&["flows"], t.path(), &Project::without_file(t.path())).unwrap();
        let s = FlowSources::read(&found, t.path());
        assert_eq!((s.flows.len(), s.problems.len()), (2, 1));
        let c = s.compile(&RegistryCatalog::builtin(), &PlanOptions::default());
        let codes: Vec<(&str, &str, usize, usize)> = c
            .diagnostics
            .iter()
            .map(|d| (d.file.as_str(), d.code.as_str(), d.line, d.column))
            .collect();
        assert_eq!(codes[0], ("flows/a_bad.yaml", "invalid-utf8", 2, 12));
        assert!(
            codes.iter().any(|c| c.0 == "flows/b_typo.yaml"),
            "{codes:?}"
        );
        assert_eq!(
            codes.iter().filter(|c| c.0 == "flows/a_bad.yaml").count(),
            1
        );
        assert!(
            c.plan.flows.iter().any(|f| f.file == "flows/c_ok.yaml"),
            "the good flow is still planned"
        );
        // Rendering works with the merged sources.
        let text = flow::render_text(&c.diagnostics, &c.sources);
        assert!(text.contains("flows/a_bad.yaml:2:12"), "{text}");
    }

    /// Issue 18, seen 3: a flow file whose name is not UTF-8 was "no such file".
    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_says_so_and_hides_nothing() {
        use std::os::unix::ffi::OsStrExt;
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("flows");
        fs::create_dir_all(&d).unwrap();
        let bad = d.join(std::ffi::OsStr::from_bytes(b"caf\xe9.yaml"));
        fs::write(&bad, "steps:\n  - click: Login\n").unwrap();
        fs::write(d.join("ok.yaml"), "steps:\n  - click: Login\n").unwrap();
        let project = Project::without_file(t.path());
        // Found through its directory and named on its own.
        for arg in [
            PathBuf::from("flows"),
            bad.strip_prefix(t.path()).unwrap().into(),
        ] {
            let found = discover(&[arg], t.path(), &project).unwrap();
            let s = FlowSources::read(&found, t.path());
            assert_eq!(s.problems.len(), 1);
            let d = &s.problems[0].1;
            assert_eq!(d.code.as_str(), "flow-unreadable");
            assert_eq!(
                d.message,
                "flow file name is not valid UTF-8: flows/caf\u{FFFD}.yaml (tapflow needs UTF-8 paths)"
            );
        }
        let found = discover(&[PathBuf::from("flows")], t.path(), &project).unwrap();
        let c = FlowSources::read(&found, t.path())
            .compile(&RegistryCatalog::builtin(), &PlanOptions::default());
        assert!(c.plan.flows.iter().any(|f| f.file == "flows/ok.yaml"));
        // Missing, it is missing, and the message says why it looks odd.
        let gone = PathBuf::from(std::ffi::OsStr::from_bytes(b"gone\xff.yaml"));
        let e = discover(&[gone], t.path(), &project).unwrap_err();
        assert!(e.contains("not valid UTF-8"), "{e}");
    }
}
