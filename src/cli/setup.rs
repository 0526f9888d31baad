//! What commands read once at start-up and pass down: the working directory, the project file
//! (`tapflow.toml`, or `--config`), and from them and the environment the tools' configuration
//! with its host-path policy (read roots, output roots, the trusted files tools never write).
//! The MCP server's command calls [`load_with`] with its `--allow-root`, `--output-root` and
//! `--token-file` flags; what configuring left out (a project directory too wide to be a root)
//! is printed here, on stderr.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::project::Project;
use tapflow_tools::ToolConfig;
use tapflow_tools::config::RootSources;

/// The process's working directory (`.` if it cannot be read).
pub fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// What the command line says about host paths (relative paths against the working directory).
#[derive(Debug, Clone, Default)]
pub struct CommandLine {
    /// Read roots it grants (`--allow-root`; the only way to make `/` or the home directory one).
    pub allow_roots: Vec<PathBuf>,
    /// Output roots it grants (`--output-root`).
    pub output_roots: Vec<PathBuf>,
    /// Configuration files it names besides the project file (`--token-file`): never written
    /// by a tool.
    pub trusted_files: Vec<PathBuf>,
}

/// Where the roots come from, besides the environment: the project and the command line. The
/// project file read (if any) is trusted: no tool may write it.
pub fn root_sources(project: &Project, line: &CommandLine) -> RootSources {
    RootSources {
        project_dir: Some(project.dir.clone()),
        project_roots: project.allowed_roots(),
        project_output_roots: project.output_roots(),
        project_reports_dir: project.report_dir(),
        extra_roots: line.allow_roots.clone(),
        extra_output_roots: line.output_roots.clone(),
        trusted_files: project
            .file
            .iter()
            .cloned()
            .chain(line.trusted_files.iter().cloned())
            .collect(),
    }
}

/// The tools' configuration of this process: environment variables (read here, once), the
/// project and roots named on the command line (relative to `cwd`). Notes (a root left out)
/// go to stderr.
pub fn tool_config(
    project: &Project,
    cwd: &Path,
    extra_roots: &[PathBuf],
) -> Result<ToolConfig, String> {
    let line = CommandLine {
        allow_roots: extra_roots.to_vec(),
        ..CommandLine::default()
    };
    tool_config_with(project, cwd, &line)
}

/// [`tool_config`] with everything the command line says about host paths.
pub fn tool_config_with(
    project: &Project,
    cwd: &Path,
    line: &CommandLine,
) -> Result<ToolConfig, String> {
    let env: HashMap<String, String> = std::env::vars().collect();
    let config = ToolConfig::configure(&env, cwd, &root_sources(project, line))?;
    for note in &config.notes {
        eprintln!("tapflow: note: {note}");
    }
    Ok(config)
}

/// The project and the tools' configuration of a command that calls tools (`tapflow tool`, and
/// the MCP server): the project (`config`, else `./tapflow.toml` when present), with
/// `allow_roots` (the server's `--allow-root` flags; relative ones against the working
/// directory) as more read roots. Errors are one line for stderr.
pub fn load(
    config: Option<&Path>,
    allow_roots: &[PathBuf],
) -> Result<(Project, ToolConfig), String> {
    let line = CommandLine {
        allow_roots: allow_roots.to_vec(),
        ..CommandLine::default()
    };
    load_with(config, &line)
}

/// [`load`] with everything the command line says about host paths.
pub fn load_with(
    config: Option<&Path>,
    line: &CommandLine,
) -> Result<(Project, ToolConfig), String> {
    let cwd = cwd();
    let project = Project::load(config, &cwd)?;
    let tools = tool_config_with(&project, &cwd, line)?;
    Ok((project, tools))
}
