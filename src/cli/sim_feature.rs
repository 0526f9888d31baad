//! The `sim` feature as the command line sees it. With the feature (the default) the `--sim`
//! flags and `tapflow sim …` reach the simulated devices; a binary built without it keeps them
//! (hidden from `--help`) and refuses them with a message naming the missing feature, exit 2.

#[cfg(not(feature = "sim"))]
use super::exit;

/// The value of `--sim-latency`. Without the `sim` feature the flag is still parsed, as text, and
/// refused with the other `--sim` flags (`without_sim`, in such a build).
#[cfg(feature = "sim")]
pub type SimLatency = tapflow_sim::Latency;
#[cfg(not(feature = "sim"))]
pub type SimLatency = String;

/// A binary built without the `sim` feature keeps `tapflow sim …` and the `--sim` flags (hidden
/// from `--help`) and answers them with this, exit 2 (usage): the simulated devices are not
/// in this build.
#[cfg(not(feature = "sim"))]
pub fn without_sim(command: &str, what: &str) -> i32 {
    eprintln!(
        "{command}: {what} is not available: this tapflow was built without the `sim` feature \
         (the simulated devices); rebuild it with `--features sim` (on by default, off with \
         `--no-default-features`)"
    );
    exit::USAGE
}

/// `tapflow sim …` in a build without the `sim` feature: any arguments, refused.
#[cfg(not(feature = "sim"))]
#[derive(Debug, clap::Args)]
pub struct NoSimArgs {
    #[arg(num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

#[cfg(all(test, not(feature = "sim")))]
mod tests {
    use clap::Parser;

    use super::super::{Cli, Command};
    use super::*;

    #[test]
    fn the_sim_flags_and_command_still_parse_and_are_refused() {
        let cli = Cli::try_parse_from(["tapflow", "run", "flows", "--sim", "2"]).unwrap();
        assert!(matches!(cli.command, Command::Run(a) if a.sim == Some(2)));
        let cli = Cli::try_parse_from(["tapflow", "sim", "start", "--devices", "2"]).unwrap();
        assert!(matches!(cli.command, Command::Sim(_)));
        assert_eq!(without_sim("tapflow sim", "the simulator"), exit::USAGE);
    }
}
