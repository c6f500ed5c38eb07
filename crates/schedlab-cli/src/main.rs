//! `schedlab`: the command line. Parsing is clap's derive; each subcommand is one module under
//! `cmd/` (see `cmd/mod.rs` for how to add one).
//!
//! Exit codes: 0 success, 1 a failure while running (I/O, a run that hit a limit), 2 invalid
//! input (a bad scenario, link, `--set` or other flag, a scenario file over 4 MiB or not UTF-8;
//! clap's own usage errors are 2 as well), 3 `--timeout` reached.

mod cmd;
mod input;
mod output;
mod timeout;

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser, Debug)]
#[command(
    name = "schedlab",
    version = schedlab::VERSION,
    about = schedlab::DESCRIPTION,
    after_help = "Exit status: 0 on success, 1 when a run or I/O fails, 2 on invalid input, \
                  3 when --timeout ends the command.",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,

    /// Stop with exit status 3 if the command has not finished its work after this much
    /// wall-clock time, e.g. 30s (for run, contest, sweep and seeds above all; measure kills
    /// its task processes and fails at this limit)
    #[arg(long, global = true, value_name = "DURATION")]
    timeout: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // measure enforces --timeout itself: it must kill and reap its task processes first.
    let result = match (&cli.command, &cli.timeout) {
        (cmd::Command::Measure(_), _) | (_, None) => Ok(()),
        (_, Some(t)) => timeout::arm(t),
    }
    .and_then(|()| cli.command.execute());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            output::eprint(&format!("error: {e:#}\n"));
            if e.downcast_ref::<input::InvalidInput>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
