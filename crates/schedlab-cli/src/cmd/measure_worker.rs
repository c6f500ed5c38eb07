//! `schedlab measure-worker` (hidden): one task process of `schedlab measure`.

/// One task process of `schedlab measure`; not for direct use (reads its task on standard input)
#[derive(clap::Args, Debug)]
#[command(hide = true)]
pub struct Args {}

pub fn execute(_args: Args) -> anyhow::Result<()> {
    #[cfg(target_os = "linux")]
    return super::measure::worker::main();
    #[cfg(not(target_os = "linux"))]
    anyhow::bail!("schedlab measure-worker runs on Linux only")
}
