//! `tapflow sim …`: start, stop and talk to simulated devices (owned by the sim engine).

/// Arguments of `tapflow sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {}

pub fn run(_args: SimArgs) -> i32 {
    eprintln!("tapflow sim: being written");
    super::exit::INFRA
}
