//! `tapflow validate` and `tapflow plan`: find and read flow files through `project` (files,
//! directories, globs; flow files under their flow root, bounded, UTF-8), compile them with the
//! tool catalog, and print diagnostics or the plan as text or JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::exit;
use crate::project::{self, FlowSources, Project};
use tapflow_core::flow::{self, DiagnosticReport};
use tapflow_core::plan::{self, Compiled, PlanOptions, ToolCatalog};

/// The tool catalog flows are checked against: the tool registry (`RegistryCatalog`).
pub fn catalog() -> Box<dyn ToolCatalog> {
    Box::new(tapflow_tools::RegistryCatalog::new(std::sync::Arc::new(
        tapflow_tools::Engine::new(),
    )))
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// Arguments of `tapflow validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Flow files, directories (searched recursively for *.yaml / *.yml) or globs.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Set a flow variable (repeatable): --env USER=demo.
    #[arg(long = "env", short = 'e', value_name = "NAME=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// Project file (default: ./tapflow.toml when present).
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// Arguments of `tapflow plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Flow files, directories (searched recursively for *.yaml / *.yml) or globs.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Set a flow variable (repeatable): --env USER=demo.
    #[arg(long = "env", short = 'e', value_name = "NAME=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// Devices to spread the flows over (repeatable or comma-separated); default: auto.
    #[arg(long = "device", short = 'd', value_delimiter = ',')]
    pub devices: Vec<String>,
    /// Project file (default: ./tapflow.toml when present).
    #[arg(long)]
    pub config: Option<PathBuf>,
}

pub(crate) fn parse_env(s: &str) -> Result<(String, String), String> {
    // The argument is not echoed: a value given without its name may be a secret.
    let (k, v) = s.split_once('=').ok_or(
        "expected NAME=VALUE (the argument has no `=`; it is not shown, as it may be a secret)",
    )?;
    if !flow::parse::is_var_name(k) {
        return Err(format!("`{k}` is not a valid variable name"));
    }
    Ok((k.to_string(), v.to_string()))
}

/// `TAPFLOW_*` variables of the process (the CLI is the only reader of the environment).
pub(crate) fn tapflow_environment() -> BTreeMap<String, String> {
    std::env::vars()
        .filter(|(k, _)| k.starts_with("TAPFLOW_"))
        .collect()
}

/// The project of a command: `--config`, else `./tapflow.toml` when present.
pub(crate) fn load_project(config: Option<&Path>, cwd: &Path) -> Result<Project, String> {
    Project::load(config, cwd)
}

/// Finds and reads the flow files named on the command line (files, directories, globs); each
/// unreadable file becomes one diagnostic, the rest is still checked.
pub(crate) fn read_flows(
    paths: &[PathBuf],
    cwd: &Path,
    project: &Project,
) -> Result<FlowSources, String> {
    let found = project::discover(paths, cwd, project)?;
    Ok(FlowSources::read(&found, cwd))
}

fn compile_inputs(
    paths: &[PathBuf],
    env: &[(String, String)],
    devices: &[String],
    config: Option<&Path>,
) -> Result<Compiled, String> {
    let cwd = super::setup::cwd();
    let loaded = load_project(config, &cwd)?;
    let sources = read_flows(paths, &cwd, &loaded).map_err(|e| format!("error: {e}"))?;
    let project = loaded.config;
    let defaults = PlanOptions::default();
    let opts = PlanOptions {
        env: env.iter().cloned().collect(),
        environment: tapflow_environment(),
        project_env: project.env,
        // --device overrides the project's list.
        devices: if devices.is_empty() {
            project.devices
        } else {
            devices.to_vec()
        },
        default_flow_timeout_ms: project
            .flow_timeout_ms
            .unwrap_or(defaults.default_flow_timeout_ms),
        default_step_timeout_ms: project
            .step_timeout_ms
            .unwrap_or(defaults.default_step_timeout_ms),
        default_wait_ms: project.wait_ms.unwrap_or(defaults.default_wait_ms),
    };
    let catalog = catalog();
    Ok(sources.compile(catalog.as_ref(), &opts))
}

/// The diagnostics as `validate` prints them to stderr: each one (at most
/// [`flow::MAX_DIAGNOSTICS_PER_FILE`] per file, then "… and N more"), then the counts.
pub fn diagnostics_text(c: &Compiled) -> String {
    let mut text = flow::render::render_report_styled(
        &c.diagnostics,
        &c.omitted,
        &c.sources,
        super::term::color(),
    );
    let (errors, warnings) = c.counts();
    if errors > 0 {
        text.push_str(&format!("{errors} error(s), {warnings} warning(s)\n"));
    }
    text
}

/// The diagnostics as `validate --format json` prints them.
pub fn diagnostics_json(c: &Compiled) -> String {
    let report = DiagnosticReport::with_omitted(&c.diagnostics, &c.omitted);
    serde_json::to_string_pretty(&report).unwrap_or_default()
}

pub(crate) fn print_diagnostics(c: &Compiled, format: Format) {
    match format {
        Format::Text => eprint!("{}", diagnostics_text(c)),
        Format::Json => println!("{}", diagnostics_json(c)),
    }
}

/// Runs `tapflow validate`; exit 0 when valid (warnings allowed), 3 when invalid.
pub fn run_validate(args: ValidateArgs) -> i32 {
    let compiled = match compile_inputs(&args.paths, &args.env, &[], args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return exit::USAGE;
        }
    };
    print_diagnostics(&compiled, args.format);
    if compiled.has_errors() {
        return exit::INVALID;
    }
    if args.format == Format::Text {
        let n = compiled.plan.flows.len();
        println!("{n} flow(s) valid");
    }
    exit::SUCCESS
}

/// Runs `tapflow plan`; prints the plan, or the diagnostics (exit 3) when a flow is invalid.
pub fn run_plan(args: PlanArgs) -> i32 {
    let compiled = match compile_inputs(
        &args.paths,
        &args.env,
        &args.devices,
        args.config.as_deref(),
    ) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return exit::USAGE;
        }
    };
    if compiled.has_errors() {
        print_diagnostics(&compiled, args.format);
        return exit::INVALID;
    }
    if compiled.plan.flows.is_empty() {
        eprintln!(
            "no flows to plan (sub-flow files, under `subflows/` or named `*.subflow.yaml`, are planned through the flows that call them)"
        );
    }
    if args.format == Format::Text {
        // Warnings still go to stderr; the plan goes to stdout.
        print_diagnostics(&compiled, Format::Text);
        print!("{}", plan::render::render_text(&compiled.plan));
    } else {
        println!(
            "{}",
            serde_json::to_string_pretty(&compiled.plan).unwrap_or_default()
        );
    }
    exit::SUCCESS
}
