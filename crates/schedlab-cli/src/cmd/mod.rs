//! The subcommands, one module each.
//!
//! Adding one: write `cmd/<name>.rs` with a doc-commented `pub struct Args` (`#[derive(clap::Args)]`;
//! its doc comment is the subcommand's help) and `pub fn execute(args: Args) -> anyhow::Result<()>`,
//! then add one line `<name> => <Variant>,` below. The list's order is the order in `--help`.

macro_rules! subcommands {
    ($($module:ident => $variant:ident,)*) => {
        $(pub mod $module;)*

        #[derive(clap::Subcommand, Debug)]
        pub enum Command {
            $($variant($module::Args),)*
        }

        impl Command {
            pub fn execute(self) -> anyhow::Result<()> {
                match self {
                    $(Command::$variant(args) => $module::execute(args),)*
                }
            }
        }
    };
}

subcommands! {
    policies => Policies,
    presets => Presets,
    run => Run,
    contest => Contest,
    sweep => Sweep,
    share => Share,
    docs => Docs,
    seeds => Seeds,
    measure => Measure,
    reality_check => RealityCheck,
    measure_worker => MeasureWorker,
}
