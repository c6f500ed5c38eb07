//! `schedlab policies`: the registry and every policy's tunables.

use std::fmt::Write as _;

/// List the policies and their tunables (with --json: the full specs the page's sliders use)
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the full registry as JSON: id, name, summary, source, reconstruction, metric and
    /// every tunable's key, label, help, unit, default, min, max, step, scale and kernel name
    #[arg(long)]
    json: bool,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let catalog = schedlab::catalog();
    if args.json {
        let mut text = serde_json::to_string_pretty(&catalog)?;
        text.push('\n');
        return crate::output::print_json(&text);
    }
    let id_w = catalog.iter().map(|p| p.id.len()).max().unwrap_or(0);
    let key_w = catalog
        .iter()
        .flat_map(|p| p.tunables)
        .map(|t| t.key.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for p in &catalog {
        writeln!(out, "{:<id_w$}  {}", p.id, p.name)?;
        for t in p.tunables {
            let unit = if t.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", t.unit)
            };
            let kernel = t.kernel_name.map(|k| format!(" [{k}]")).unwrap_or_default();
            writeln!(
                out,
                "  --set {:<key_w$}  default {}{unit}, range {}..={}, step {}  {}{kernel}",
                t.key, t.default, t.min, t.max, t.step, t.label
            )?;
        }
    }
    out.push_str(
        "\n`schedlab policies --json` gives the full specs; `schedlab docs` the help texts.\n",
    );
    crate::output::print(&out)
}
