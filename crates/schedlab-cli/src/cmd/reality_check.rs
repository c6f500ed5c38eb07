//! `schedlab reality-check`: rebuild docs/reality-check.md, a set of scenarios simulated under
//! the model of the running kernel and measured on this machine, side by side.

use std::path::PathBuf;

use anyhow::Context;

/// Rebuild the reality check (docs/reality-check.md): scenarios simulated and measured for real
/// on this machine, side by side
///
/// Hogs at four nice levels, three hogs on two CPUs, a hog and a periodic sleeper and a pipe
/// ping-pong, two task groups of cpu.weight 100 : 300 and a pinned task beside free ones, each
/// simulated under the model of the running kernel and measured with `schedlab measure`, 5
/// times each by default (Linux; about 3 minutes), compared as means and min–max ranges, with
/// what explains the differences.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where to write the document
    #[arg(long, value_name = "FILE", default_value = "docs/reality-check.md")]
    out: PathBuf,

    /// Print the document instead of writing it
    #[arg(long)]
    stdout: bool,

    /// A sentence on the conditions of the measurement (what else the machine ran, ...),
    /// printed under the machine's description
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,

    /// Runs of each scenario, measured and simulated from varied start conditions (1 to 100;
    /// each takes the scenario's 5 s)
    #[arg(long, value_name = "N", default_value_t = super::measure::reality::DEFAULT_REPEAT)]
    repeat: u32,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    if !(1..=super::measure::MAX_REPEAT).contains(&args.repeat) {
        return Err(crate::input::InvalidInput(format!(
            "--repeat: {} is outside the allowed range 1..={}",
            args.repeat,
            super::measure::MAX_REPEAT
        ))
        .into());
    }
    let doc = super::measure::reality::document(args.note.as_deref(), args.repeat, |line| {
        eprintln!("{line}")
    })?;
    if args.stdout {
        return crate::output::print(&doc);
    }
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&args.out, &doc).with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}
