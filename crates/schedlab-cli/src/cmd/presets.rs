//! `schedlab presets`: the benchmark presets and their parameters.

use schedlab::workloads::PRESETS;

/// List the workload presets (contest, chat, hackbench, irman, interbench, probes, classroom)
/// and their parameters
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the full preset specs as JSON (what the page's preset picker uses)
    #[arg(long)]
    json: bool,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    if args.json {
        let infos: Vec<_> = PRESETS.iter().map(|p| p.info()).collect();
        return crate::output::print_json(&(serde_json::to_string_pretty(&infos)? + "\n"));
    }
    let mut out = String::new();
    for p in PRESETS {
        out.push_str(&format!(
            "{}  {}\n    {}\n    source: {}\n",
            p.id, p.name, p.story, p.source
        ));
        for s in p.params {
            let value = if s.choices.is_empty() {
                let unit = if s.unit.is_empty() {
                    String::new()
                } else {
                    format!(" {}", s.unit)
                };
                format!("{}{unit} ({}..={})", s.default, s.min, s.max)
            } else {
                format!(
                    "{} (one of {})",
                    s.choices.get(s.default as usize).copied().unwrap_or(""),
                    s.choices.join(", ")
                )
            };
            out.push_str(&format!(
                "    --param {}={value}\n        {}\n",
                s.key, s.help
            ));
        }
        out.push_str(&format!("    metrics: {}\n\n", p.metrics.join(", ")));
    }
    out.push_str(
        "Machine knobs (presets with a machine: contest; also any scenario with a \"machine\"), \
         set with --set like a policy's tunables; the contest preset starts from the policy's \
         kernel era:\n",
    );
    for k in schedlab::engine::machine::knobs::knobs() {
        let s = k.spec;
        let range = match s.choices {
            Some(names) => format!("one of {}", names.join(", ")),
            None => format!("{}..={}{}", s.min, s.max, if s.unit.is_empty() { String::new() } else { format!(" {}", s.unit) }),
        };
        let kernel = s.kernel_name.map(|n| format!(" [{n}]")).unwrap_or_default();
        out.push_str(&format!(
            "    --set {}={} ({range}){kernel}\n        {}\n",
            s.key,
            if s.choices.is_some() { s.display(s.default) } else { s.default.to_string() },
            s.help
        ));
    }
    out.push('\n');
    out.push_str(
        "Run one with `schedlab run <preset> [--param key=value]... [--set key=value]... [--policy ID] [--cpus N]`.\n",
    );
    crate::output::print(&out)
}
