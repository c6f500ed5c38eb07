//! `schedlab seeds`: rebuild docs/seed-comparison.md, the seeds' published tables next to
//! schedlab's runs of the same benchmarks.

use std::path::PathBuf;

use anyhow::Context;

/// Rebuild the seed comparison (docs/seed-comparison.md): every table of seeds 000-004 next to
/// schedlab's runs, each trend marked reproduced or not
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where to write the document
    #[arg(long, value_name = "FILE", default_value = "docs/seed-comparison.md")]
    out: PathBuf,

    /// Print the document instead of writing it
    #[arg(long)]
    stdout: bool,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let doc = schedlab::workloads::seeds::document().context("running the seed benchmarks")?;
    crate::timeout::disarm();
    if args.stdout {
        return crate::output::print(&doc);
    }
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&args.out, &doc).with_context(|| format!("writing {}", args.out.display()))?;
    crate::output::eprint(&format!("wrote {}\n", args.out.display()));
    Ok(())
}
