//! `schedlab run`: simulate a scenario and report per-task metrics and the trace hash.

use std::path::PathBuf;

use anyhow::Context;
use schedlab::{Detail, RunResult};

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
    /// policy sees them then: who runs, who pick_next would choose, and why. A run that ends
    /// earlier (a preset's benchmark, every task exited, the duration) shows its end
    #[arg(long, value_name = "TIME", conflicts_with_all = ["json", "gantt", "csv", "perfetto"])]
    inspect_at: Option<String>,
}

/// A bad scenario is the user's to fix (exit status 2); a run that stopped is not.
fn sim_error(e: schedlab::SimError) -> anyhow::Error {
    match e {
        // load() has validated the scenario already; kept for a clear message all the same.
        schedlab::SimError::Invalid(p) => InvalidInput(format!("invalid scenario:\n{p}")).into(),
        schedlab::SimError::Run(r) => anyhow::Error::new(r).context("the run stopped"),
    }
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    // A preset (or a link naming one) runs until its benchmark ends (contest kills its loads
    // when make exits), and an inspection stands at that end at the latest, as on the page.
    let (_, job) = args.input.job()?;
    if let Some(at) = &args.inspect_at {
        let at =
            schedlab::Nanos::parse(at).map_err(|e| InvalidInput(format!("--inspect-at: {e}")))?;
        let queues = job.inspect(at).map_err(sim_error)?;
        return crate::output::print(&schedlab::text::run_queues(&queues));
    }
    let detail = if args.perfetto.is_some() {
        Detail::Full
    } else if args.json || args.gantt {
        Detail::Segments
    } else {
        Detail::Summary
    };
    let scenario = job.scenario();
    let ran = job.run(detail).map_err(sim_error)?;
    let out = &ran.output;
    let result = RunResult::new(scenario, out);
    let csv = args.csv.as_ref().map(|path| (path, result.tasks_csv()));
    let perfetto = args.perfetto.as_ref().map(|path| {
        let trace = schedlab::view::RunData::from_run(scenario, out).chrome_trace();
        (path, trace)
    });
    // Computed: from here on only writing, which --timeout no longer cuts short.
    crate::timeout::disarm();
    for (path, contents) in csv.iter().chain(&perfetto) {
        std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))?;
    }
    let gantt = args
        .gantt
        .then(|| schedlab::text::gantt(out, args.width.unwrap_or_else(crate::output::width)));
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
    if let (Some(benchmark), Some(report)) = (job.benchmark(), &ran.report) {
        let changed = benchmark.params().non_defaults();
        let params = if changed.is_empty() {
            String::new()
        } else {
            format!(" ({})", changed.join(" "))
        };
        text.push_str(&format!(
            "\n{}{params}:\n{}",
            benchmark.preset().name,
            report.text
        ));
        for n in &report.notes {
            text.push_str(&format!("note: {n}\n"));
        }
    }
    crate::output::print(&text)
}
