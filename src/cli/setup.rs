//! What commands read once at start-up and pass down: the working directory, the project file
//! (`tapflow.toml`, or `--config`), and from them and the environment the tools' configuration
//! with its host-path policy (the allowed roots). The MCP server's command calls [`load`] with
//! its `--allow-root` flags.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::project::Project;
use tapflow_tools::ToolConfig;
use tapflow_tools::config::RootSources;

/// The process's working directory (`.` if it cannot be read).
pub fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// Where the roots come from, besides the environment: the project and command-line roots.
pub fn root_sources(project: &Project, extra_roots: &[PathBuf]) -> RootSources {
    RootSources {
        project_dir: Some(project.dir.clone()),
        project_roots: project.allowed_roots(),
        project_reports_dir: project.report_dir(),
        extra_roots: extra_roots.to_vec(),
    }
}

/// The tools' configuration of this process: environment variables (read here, once), the
/// project and roots named on the command line (relative to `cwd`).
pub fn tool_config(
    project: &Project,
    cwd: &Path,
    extra_roots: &[PathBuf],
) -> Result<ToolConfig, String> {
    let env: HashMap<String, String> = std::env::vars().collect();
    ToolConfig::configure(&env, cwd, &root_sources(project, extra_roots))
}

/// The project and the tools' configuration of a command that calls tools (`tapflow tool`, and
/// the MCP server): the project (`config`, else `./tapflow.toml` when present), with
/// `allow_roots` (the server's `--allow-root` flags; relative ones against the working
/// directory) as more allowed roots. Errors are one line for stderr.
pub fn load(
    config: Option<&Path>,
    allow_roots: &[PathBuf],
) -> Result<(Project, ToolConfig), String> {
    let cwd = cwd();
    let project = Project::load(config, &cwd)?;
    let tools = tool_config(&project, &cwd, allow_roots)?;
    Ok((project, tools))
}
