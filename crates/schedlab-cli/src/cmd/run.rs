//! `schedlab run`: simulate a scenario and report per-task metrics and the trace hash.

use std::path::PathBuf;

use anyhow::Context;
use schedlab::{Detail, RunOptions, RunResult};

use crate::input::{InvalidInput, ScenarioArgs};

/// Run a scenario: a per-task table, a summary and the trace hash (or JSON with --json)
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    input: ScenarioArgs,

    /// Print the JSON result instead of text (trace_hash, policy, summary, tasks, segments)
    #[arg(long)]
    json: bool,

    /// Draw an ASCII Gantt chart, one row per CPU (on standard error with --json)
    #[arg(long)]
    gantt: bool,

    /// Width of the Gantt chart in columns (default: the terminal's width, else 100)
    #[arg(long, value_name = "N", requires = "gantt")]
    width: Option<usize>,

    /// Also write per-task metrics as CSV to FILE
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,

    /// Also write the run as a trace that opens in Perfetto (ui.perfetto.dev) to FILE: a slice
    /// per run segment on each CPU, each task's states, and the policy's notes
    #[arg(long, value_name = "FILE")]
    perfetto: Option<PathBuf>,

    /// Instead of the results, run until TIME (e.g. 1.5s) and print the run queues as the
    /// policy sees them then: who runs, who pick_next would choose, and why
    #[arg(long, value_name = "TIME", conflicts_with_all = ["json", "gantt", "csv", "perfetto"])]
    inspect_at: Option<String>,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let state = args.input.load()?;
    let scenario = &state.scenario;
    if let Some(at) = &args.inspect_at {
        let at =
            schedlab::Nanos::parse(at).map_err(|e| InvalidInput(format!("--inspect-at: {e}")))?;
        let queues = schedlab::inspect::inspect_at(scenario, None, at).map_err(|e| match e {
            e @ schedlab::SimError::Invalid(_) => InvalidInput(e.to_string()).into(),
            schedlab::SimError::Run(r) => anyhow::Error::new(r).context("the run stopped"),
        })?;
        return crate::output::print(&schedlab::text::run_queues(&queues));
    }
    let detail = if args.perfetto.is_some() {
        Detail::Full
    } else if args.json || args.gantt {
        Detail::Segments
    } else {
        Detail::Summary
    };
    // A preset runs until its benchmark ends (contest kills its loads when make exits).
    let preset = match args.input.preset()? {
        Some(p) => Some(p),
        None => link_preset(&state)?,
    };
    let out = match &preset {
        Some((p, _)) => schedlab::workloads::run_until(scenario, p.stop, detail),
        None => schedlab::run(
            scenario,
            RunOptions {
                detail,
                ..RunOptions::default()
            },
        ),
    }
    .map_err(|e| match e {
        // load() has validated the scenario already; kept for a clear message all the same.
        schedlab::SimError::Invalid(p) => InvalidInput(format!("invalid scenario:\n{p}")).into(),
        schedlab::SimError::Run(r) => anyhow::Error::new(r).context("the run stopped"),
    })?;
    let result = RunResult::new(scenario, &out);
    let csv = args.csv.as_ref().map(|path| (path, result.tasks_csv()));
    let perfetto = args.perfetto.as_ref().map(|path| {
        let trace = schedlab::view::RunData::from_run(scenario, &out).chrome_trace();
        (path, trace)
    });
    // Computed: from here on only writing, which --timeout no longer cuts short.
    crate::timeout::disarm();
    for (path, contents) in csv.iter().chain(&perfetto) {
        std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))?;
    }
    let gantt = args
        .gantt
        .then(|| schedlab::text::gantt(&out, args.width.unwrap_or_else(crate::output::width)));
    if args.json {
        if let Some(g) = gantt {
            crate::output::eprint(&g);
        }
        return crate::output::print_json(&(result.to_json_pretty() + "\n"));
    }
    let mut text = schedlab::text::task_table(&result);
    if let Some(g) = gantt {
        text.push('\n');
        text.push_str(&g);
    }
    text.push('\n');
    text.push_str(&schedlab::text::summary(&result));
    if let Some((p, params)) = &preset {
        text.push_str(&preset_report(p, params, scenario, &out));
    }
    crate::output::print(&text)
}

/// The preset a page link says its scenario came from (`view.preset`): the page ends such a
/// run where the benchmark ends, and so must the CLI for the two to give the same trace hash.
fn link_preset(
    state: &schedlab::LinkState,
) -> anyhow::Result<
    Option<(
        &'static schedlab::workloads::Preset,
        schedlab::workloads::Params,
    )>,
> {
    let Some(reference) = &state.view.preset else {
        return Ok(None);
    };
    let preset = schedlab::workloads::find(&reference.id).ok_or_else(|| {
        InvalidInput(format!(
            "the link names an unknown preset {:?}",
            reference.id
        ))
    })?;
    let mut params = schedlab::workloads::Params::defaults(preset.params);
    for (key, &value) in &reference.params {
        match preset.params.iter().find(|s| s.key == key) {
            Some(spec) if (spec.min..=spec.max).contains(&value) => params.set(spec.key, value),
            _ => {
                return Err(InvalidInput(format!(
                    "the link's preset {} has no parameter {key} = {value}",
                    preset.id
                ))
                .into())
            }
        }
    }
    Ok(Some((preset, params)))
}

/// The benchmark's own report for a preset run (contest's table row, irman's statistics, ...).
fn preset_report(
    preset: &schedlab::workloads::Preset,
    params: &schedlab::workloads::Params,
    scenario: &schedlab::Scenario,
    out: &schedlab::RunOutput,
) -> String {
    let base = schedlab::workloads::PresetBase {
        cpus: scenario.cpus,
        seed: scenario.seed,
        policy: scenario.policy.clone(),
    };
    let r = (preset.report)(params, &base, out);
    let mut text = format!(
        "\n{} ({}):\n{}",
        preset.name,
        params.non_defaults().join(" "),
        r.text
    );
    for n in &r.notes {
        text.push_str(&format!("note: {n}\n"));
    }
    text
}
