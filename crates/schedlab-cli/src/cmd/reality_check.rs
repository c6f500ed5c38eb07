//! `schedlab reality-check`: rebuild docs/reality-check.md, a set of scenarios simulated under
//! the model of the running kernel and measured on this machine, side by side.

use std::path::PathBuf;

use anyhow::Context;

/// Rebuild the reality check (docs/reality-check.md): scenarios simulated and measured for real
/// on this machine, side by side
///
/// Hogs at four nice levels, three hogs on two CPUs, a hog and a periodic sleeper and a pipe
/// ping-pong, two task groups of cpu.weight 100 : 300 and a pinned task beside free ones, each simulated under the model of the running kernel and measured with
/// `schedlab measure` (Linux; under a minute), with what explains the differences.
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
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let doc = super::measure::reality::document(args.note.as_deref(), |line| eprintln!("{line}"))?;
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
