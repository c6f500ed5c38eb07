//! Shared helpers for policy tests: run a scenario written as JSON and look at the result.

use schedlab_engine::{Detail, Nanos, RunOptions, RunOutput, Scenario, TaskId};

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

/// A scenario of [`scenario`]'s with another duration than its 100 s.
pub fn with_duration(json: String, d: &str) -> String {
    json.replace(r#""duration":"100s""#, &format!(r#""duration":"{d}""#))
}

/// CPU time of `task` inside `[from, to)` ms, from the trace's segments.
pub fn cpu_ms_between(out: &RunOutput, task: u32, from: u64, to: u64) -> u64 {
    let (a, b) = (Nanos::from_ms(from), Nanos::from_ms(to));
    out.trace
        .segments()
        .filter(|(_, s)| s.task == TaskId(task))
        .map(|(_, s)| s.end.min(b).saturating_sub(s.start.max(a)).0)
        .sum::<u64>()
        / 1_000_000
}

/// Rendered notes of task `task` (0 = A), in time order, as "time_ms: text".
pub fn notes_of(out: &RunOutput, task: u32) -> Vec<String> {
    out.trace
        .notes()
        .filter(|a| a.task.0 == task)
        .map(|a| format!("{}: {}", a.time.0 / 1_000_000, a.note.render()))
        .collect()
}

/// Whether task `task` has the note `text` in [`notes_of`]'s form.
pub fn has_note(out: &RunOutput, task: u32, text: &str) -> bool {
    notes_of(out, task).iter().any(|n| n == text)
}
