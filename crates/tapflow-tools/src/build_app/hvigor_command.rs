//! hvigor command lines for each target (docs/reference/hdc.md §11): the arguments after the wrapper.
//!
//! `assembleHap`/`assembleHar`/`assembleHsp` run in `--mode module`, `assembleApp` in `--mode project`.
//! A module is named `<module>@<product>` as DevEco and CI lines do. `--no-daemon` keeps no hvigor daemon
//! alive after the call (a daemon would outlive our timeout and hold files).

use super::params::{BuildMode, Target};

/// The hvigor task for a target. `hnp` first builds the base HAP.
pub fn task(target: Target) -> &'static str {
    match target {
        Target::Hap | Target::Hnp => "assembleHap",
        Target::Har => "assembleHar",
        Target::Hsp => "assembleHsp",
        Target::App => "assembleApp",
    }
}

/// Arguments for one assemble run.
pub fn assemble_args(
    target: Target,
    mode: BuildMode,
    product: &str,
    module: Option<&str>,
) -> Vec<String> {
    let mut args = Vec::new();
    push_scope(&mut args, target, product, module);
    args.extend(["-p".to_string(), format!("buildMode={}", mode.as_str())]);
    args.push(task(target).to_string());
    args.extend(
        [
            "--analyze=normal",
            "--parallel",
            "--incremental",
            "--no-daemon",
        ]
        .map(String::from),
    );
    args
}

/// Arguments for the `clean` run that precedes a build when `is_clean` is set.
pub fn clean_args(target: Target, product: &str, module: Option<&str>) -> Vec<String> {
    let mut args = Vec::new();
    push_scope(&mut args, target, product, module);
    args.extend(["clean", "--no-daemon"].map(String::from));
    args
}

fn push_scope(args: &mut Vec<String>, target: Target, product: &str, module: Option<&str>) {
    let project_mode = target == Target::App;
    args.extend([
        "--mode".to_string(),
        if project_mode { "project" } else { "module" }.to_string(),
    ]);
    args.extend(["-p".to_string(), format!("product={product}")]);
    if let (false, Some(m)) = (project_mode, module) {
        args.extend(["-p".to_string(), format!("module={m}@{product}")]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(v: Vec<String>) -> String {
        v.join(" ")
    }

    #[test]
    fn each_target_line() {
        assert_eq!(
            join(assemble_args(
                Target::Hap,
                BuildMode::Debug,
                "default",
                Some("entry")
            )),
            "--mode module -p product=default -p module=entry@default -p buildMode=debug assembleHap --analyze=normal --parallel --incremental --no-daemon"
        );
        assert_eq!(
            join(assemble_args(
                Target::Hap,
                BuildMode::Release,
                "default",
                None
            )),
            "--mode module -p product=default -p buildMode=release assembleHap --analyze=normal --parallel --incremental --no-daemon"
        );
        assert_eq!(
            join(assemble_args(
                Target::Har,
                BuildMode::Debug,
                "p1",
                Some("lib")
            )),
            "--mode module -p product=p1 -p module=lib@p1 -p buildMode=debug assembleHar --analyze=normal --parallel --incremental --no-daemon"
        );
        assert_eq!(
            join(assemble_args(
                Target::Hsp,
                BuildMode::Debug,
                "default",
                Some("shared")
            )),
            "--mode module -p product=default -p module=shared@default -p buildMode=debug assembleHsp --analyze=normal --parallel --incremental --no-daemon"
        );
        assert_eq!(
            join(assemble_args(
                Target::App,
                BuildMode::Release,
                "default",
                Some("entry")
            )),
            "--mode project -p product=default -p buildMode=release assembleApp --analyze=normal --parallel --incremental --no-daemon"
        );
        assert_eq!(task(Target::Hnp), "assembleHap");
    }

    #[test]
    fn clean_lines() {
        assert_eq!(
            join(clean_args(Target::Hap, "default", Some("entry"))),
            "--mode module -p product=default -p module=entry@default clean --no-daemon"
        );
        assert_eq!(
            join(clean_args(Target::App, "default", None)),
            "--mode project -p product=default clean --no-daemon"
        );
    }
}
