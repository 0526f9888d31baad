//! `tapflow validate` and `tapflow plan`: find flow files, read them (the only file-system and
//! environment access on this path), hand them to `plan::compile` with the tool catalog, and
//! print diagnostics or the plan as text or JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::exit;
use crate::flow::{self, DiagnosticReport, SourceFile};
use crate::plan::{self, Compiled, PlanOptions, SourceLoader, ToolCatalog};

/// The tool catalog flows are checked against: the tool registry (`cli::catalog`).
pub fn catalog() -> Box<dyn ToolCatalog> {
    Box::new(super::catalog::RegistryCatalog::new(std::sync::Arc::new(
        crate::tools::Engine::new(),
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
    /// Flow files or directories (searched recursively for *.yaml / *.yml).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Set a flow variable (repeatable): --env USER=demo.
    #[arg(long = "env", short = 'e', value_name = "NAME=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
}

/// Arguments of `tapflow plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Flow files or directories (searched recursively for *.yaml / *.yml).
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
}

pub(crate) fn parse_env(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    if !flow::parse::is_var_name(k) {
        return Err(format!("`{k}` is not a valid variable name"));
    }
    Ok((k.to_string(), v.to_string()))
}

/// Reads sub-flow files from disk.
pub(crate) struct FsLoader;

impl SourceLoader for FsLoader {
    fn load(&self, path: &str) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string().to_lowercase())
    }
}

/// The files to check: top-level flows and sub-flow files (by the `subflows/` /
/// `*.subflow.yaml` convention), or a read error.
struct Inputs {
    flows: Vec<SourceFile>,
    subflows: Vec<SourceFile>,
}

fn collect(paths: &[PathBuf]) -> Result<Inputs, String> {
    let mut files: Vec<PathBuf> = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = walkdir::WalkDir::new(p)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .map(|e| e.into_path())
                .filter(|f| flow::is_flow_path(&f.to_string_lossy()))
                .collect();
            found.sort();
            files.extend(found);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            return Err(format!("error: no such file or directory: {}", p.display()));
        }
    }
    let mut inputs = Inputs {
        flows: Vec::new(),
        subflows: Vec::new(),
    };
    for f in files {
        let name = display_path(&f);
        let text = std::fs::read_to_string(&f).map_err(|e| {
            format!(
                "error: cannot read {name}: {}",
                e.to_string().to_lowercase()
            )
        })?;
        let src = SourceFile::new(name.clone(), text);
        if flow::is_subflow_path(&name) {
            inputs.subflows.push(src);
        } else {
            inputs.flows.push(src);
        }
    }
    Ok(inputs)
}

fn display_path(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

/// `TAPFLOW_*` variables of the process (the CLI is the only reader of the environment).
pub(crate) fn tapflow_environment() -> BTreeMap<String, String> {
    std::env::vars()
        .filter(|(k, _)| k.starts_with("TAPFLOW_"))
        .collect()
}

fn compile_inputs(
    paths: &[PathBuf],
    env: &[(String, String)],
    devices: &[String],
) -> Result<Compiled, String> {
    let inputs = collect(paths)?;
    let opts = PlanOptions {
        env: env.iter().cloned().collect(),
        environment: tapflow_environment(),
        devices: devices.to_vec(),
        ..PlanOptions::default()
    };
    let catalog = catalog();
    Ok(plan::compile(
        &inputs.flows,
        &inputs.subflows,
        catalog.as_ref(),
        &FsLoader,
        &opts,
    ))
}

pub(crate) fn print_diagnostics(c: &Compiled, format: Format) {
    match format {
        Format::Text => {
            let text = flow::render_text(&c.diagnostics, &c.sources);
            if !text.is_empty() {
                eprint!("{text}");
            }
            let errors = c.diagnostics.iter().filter(|d| d.is_error()).count();
            let warnings = c.diagnostics.len() - errors;
            if errors > 0 {
                eprintln!("{errors} error(s), {warnings} warning(s)");
            }
        }
        Format::Json => {
            let report = DiagnosticReport::new(&c.diagnostics);
            println!(
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            );
        }
    }
}

/// Runs `tapflow validate`; exit 0 when valid (warnings allowed), 3 when invalid.
pub fn run_validate(args: ValidateArgs) -> i32 {
    let compiled = match compile_inputs(&args.paths, &args.env, &[]) {
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
    let compiled = match compile_inputs(&args.paths, &args.env, &args.devices) {
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
