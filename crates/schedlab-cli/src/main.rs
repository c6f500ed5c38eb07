//! `schedlab`: the command line. Parsing is clap's derive; each subcommand is one module under
//! `cmd/` (see `cmd/mod.rs` for how to add one).
//!
//! Exit codes: 0 success, 1 a failure while running (I/O, a run that hit a limit), 2 invalid
//! input (a bad scenario, link, `--set` or other flag; clap's own usage errors are 2 as well).

mod cmd;
mod input;
mod output;

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser, Debug)]
#[command(
    name = "schedlab",
    version = schedlab::VERSION,
    about = schedlab::DESCRIPTION,
    after_help = "Exit status: 0 on success, 1 when a run or I/O fails, 2 on invalid input.",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.execute() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<input::InvalidInput>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
