//! `schedlab docs`: the generated `docs/policies.md`.

/// Print docs/policies.md, generated from the policy registry (`schedlab docs > docs/policies.md`)
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn execute(_: Args) -> anyhow::Result<()> {
    crate::output::print(&schedlab::docs::policies_markdown(schedlab::POLICIES))
}
