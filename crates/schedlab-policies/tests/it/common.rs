//! Shared helpers for policy tests: run a scenario written as JSON and look at the result.

use schedlab_engine::{Detail, Nanos, RunOptions, RunOutput, Scenario};

/// Runs a scenario given as JSON under its policy, with a full trace.
pub fn run(json: &str) -> RunOutput {
    let s = Scenario::from_json(json).unwrap_or_else(|e| panic!("bad scenario: {e}"));
    schedlab_policies::run(
        &s,
        RunOptions {
            detail: Detail::Full,
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("run failed: {e}"))
}

/// The text Gantt chart of a run at `res_ms` per character.
pub fn gantt(out: &RunOutput, res_ms: u64) -> String {
    out.trace.text_gantt(out.end, Nanos::from_ms(res_ms))
}

/// A scenario with `cpus`, `policy` (JSON object) and tasks (JSON array).
pub fn scenario(cpus: u32, policy: &str, tasks: &str) -> String {
    format!(
        r#"{{"version":1,"cpus":{cpus},"duration":"100s","seed":1,"policy":{policy},"tasks":{tasks}}}"#
    )
}

/// Turnaround and response of each task in ms, in task order.
pub fn times_ms(out: &RunOutput) -> Vec<(u64, u64)> {
    out.metrics
        .tasks
        .iter()
        .map(|t| {
            (
                t.turnaround_ns.unwrap_or(0) / 1_000_000,
                t.response_ns.unwrap_or(0) / 1_000_000,
            )
        })
        .collect()
}
