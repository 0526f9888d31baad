//! `tapflow validate` and `tapflow plan`: find flow files, read them (the only file-system and
//! environment access on this path), hand them to `plan::compile` with the tool catalog, and
//! print diagnostics or the plan as text or JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::exit;
use crate::flow::{self, DiagnosticReport, SourceFile};
use crate::plan::{self, Compiled, PlanOptions, SourceLoader, ToolCatalog};

/// The tool catalog flows are checked against: the tool registry (`plan::RegistryCatalog`).
pub fn catalog() -> Box<dyn ToolCatalog> {
    Box::new(crate::plan::RegistryCatalog::new(std::sync::Arc::new(
        crate::tools::Engine::new(),
    )))
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// Project defaults from `tapflow.toml` (all optional):
///
/// ```toml
/// devices = ["3QC0124C11000711"]   # flows are spread over these, round robin
/// report_dir = "reports"
/// tags = ["smoke"]                 # default tag selection for `tapflow run`
/// timeout = "10m"                  # default flow timeout
/// step_timeout = "30s"             # default step deadline
///
/// [env]                            # variable defaults (below TAPFLOW_* and --env)
/// USER = "demo@example.com"
/// ```
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ProjectConfig {
    pub devices: Vec<String>,
    pub report_dir: Option<String>,
    pub tags: Vec<String>,
    pub flow_timeout_ms: Option<u64>,
    pub step_timeout_ms: Option<u64>,
    pub env: BTreeMap<String, String>,
}

const CONFIG_KEYS: &[&str] = &[
    "devices",
    "report_dir",
    "tags",
    "timeout",
    "step_timeout",
    "env",
];

/// Parses `tapflow.toml`; errors name the key and say what is expected.
pub fn parse_project_config(text: &str) -> Result<ProjectConfig, String> {
    let doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("invalid TOML: {}", e.message()))?;
    let mut cfg = ProjectConfig::default();
    let strings = |key: &str, item: &toml_edit::Item| -> Result<Vec<String>, String> {
        item.as_array()
            .and_then(|a| {
                a.iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| format!("`{key}` must be a list of strings"))
    };
    let duration = |key: &str, item: &toml_edit::Item| -> Result<u64, String> {
        if let Some(i) = item.as_integer() {
            return u64::try_from(i).map_err(|_| format!("`{key}` must not be negative"));
        }
        let s = item
            .as_str()
            .ok_or_else(|| format!("`{key}` must be milliseconds or a duration such as \"30s\""))?;
        flow::duration::parse_ms(s).map_err(|e| format!("`{key}`: {e}"))
    };
    for (key, item) in doc.iter() {
        match key {
            "devices" => cfg.devices = strings(key, item)?,
            "tags" => cfg.tags = strings(key, item)?,
            "report_dir" => {
                cfg.report_dir = Some(
                    item.as_str()
                        .ok_or("`report_dir` must be a string")?
                        .to_string(),
                );
            }
            "timeout" => cfg.flow_timeout_ms = Some(duration(key, item)?),
            "step_timeout" => cfg.step_timeout_ms = Some(duration(key, item)?),
            "env" => {
                let table = item.as_table_like().ok_or("`env` must be a table")?;
                for (name, v) in table.iter() {
                    if !flow::parse::is_var_name(name) {
                        return Err(format!("`env.{name}` is not a valid variable name"));
                    }
                    let value = match v.as_value() {
                        Some(toml_edit::Value::String(s)) => s.value().clone(),
                        Some(toml_edit::Value::Integer(i)) => i.value().to_string(),
                        Some(toml_edit::Value::Float(f)) => f.value().to_string(),
                        Some(toml_edit::Value::Boolean(b)) => b.value().to_string(),
                        _ => {
                            return Err(format!(
                                "`env.{name}` must be a string, number or boolean"
                            ));
                        }
                    };
                    cfg.env.insert(name.to_string(), value);
                }
            }
            other => {
                let hint = flow::suggest::did_you_mean(other, CONFIG_KEYS.iter().copied())
                    .unwrap_or_else(|| format!("known keys: {}", CONFIG_KEYS.join(", ")));
                return Err(format!("unknown key `{other}`; {hint}"));
            }
        }
    }
    Ok(cfg)
}

/// Reads the project file: `--config PATH`, else `tapflow.toml` in the current directory if
/// there is one.
pub(crate) fn load_project_config(explicit: Option<&Path>) -> Result<ProjectConfig, String> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => {
            let p = PathBuf::from("tapflow.toml");
            if !p.exists() {
                return Ok(ProjectConfig::default());
            }
            p
        }
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "error: cannot read {}: {}",
            path.display(),
            e.to_string().to_lowercase()
        )
    })?;
    parse_project_config(&text).map_err(|e| format!("error: {}: {e}", path.display()))
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
    /// Project file (default: ./tapflow.toml when present).
    #[arg(long)]
    pub config: Option<PathBuf>,
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
    config: Option<&Path>,
) -> Result<Compiled, String> {
    let project = load_project_config(config)?;
    let inputs = collect(paths)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_project_file() {
        let cfg = parse_project_config(
            "devices = [\"a\", \"b\"]\nreport_dir = \"out\"\ntimeout = \"2m\"\nstep_timeout = 5000\n[env]\nUSER = \"demo\"\nN = 3\n",
        )
        .unwrap();
        assert_eq!(cfg.devices, ["a", "b"]);
        assert_eq!(cfg.report_dir.as_deref(), Some("out"));
        assert_eq!(
            (cfg.flow_timeout_ms, cfg.step_timeout_ms),
            (Some(120_000), Some(5000))
        );
        assert_eq!(cfg.env["N"], "3");
    }

    #[test]
    fn project_file_errors_say_what_is_wrong() {
        assert_eq!(
            parse_project_config("device = []").unwrap_err(),
            "unknown key `device`; did you mean `devices`?"
        );
        assert!(
            parse_project_config("timeout = \"soon\"")
                .unwrap_err()
                .contains("timeout")
        );
        assert!(
            parse_project_config("devices = [1]")
                .unwrap_err()
                .contains("list of strings")
        );
        assert!(parse_project_config("[env]\n2X = \"a\"").is_err());
        assert!(
            parse_project_config("a = [")
                .unwrap_err()
                .starts_with("invalid TOML")
        );
    }
}
