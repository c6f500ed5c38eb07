//! `schedlab share`: a page link that holds a scenario.

use crate::input::ScenarioArgs;

/// Print a page link holding the scenario, its policy, tunables and seed (after any overrides)
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: ScenarioArgs,

    /// The page's URL; without it the link is the relative fragment `#s=...`
    #[arg(long, value_name = "URL")]
    base: Option<String>,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let state = args.input.load()?;
    let link = match &args.base {
        Some(base) => schedlab::encode_url(base, &state),
        None => schedlab::encode(&state),
    };
    crate::output::print(&format!("{link}\n"))
}
