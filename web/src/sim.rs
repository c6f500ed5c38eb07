//! The worker's side: one request in, one reply out. Plain Rust, natively testable; the wasm
//! entry point (`worker_main.rs`) only wires it to `postMessage`.

use schedlab::inspect::RunQueues;
use schedlab::workloads::contest::{self, Config};
use schedlab::workloads::PresetBase;
use schedlab::{Detail, Nanos, RunOptions, RunResult, SimError};

use crate::presets;
use crate::protocol::{to_json, ReportView, Request, Response, RunOutcome};

/// Handles one JSON request and returns the JSON reply. `clock` gives milliseconds (the
/// worker's `performance.now()`), used only to report how long the run took.
pub fn handle(request: &str, clock: &dyn Fn() -> f64) -> String {
    let request: Request = match serde_json::from_str(request) {
        Ok(r) => r,
        Err(e) => {
            return to_json(&Response::Failed {
                id: 0,
                message: format!("the page sent a request the worker cannot read: {e}"),
                problems: Vec::new(),
            })
        }
    };
    to_json(&respond(request, clock))
}

/// The reply to a request.
pub fn respond(request: Request, clock: &dyn Fn() -> f64) -> Response {
    match request {
        Request::Run {
            id,
            scenario,
            preset,
        } => {
            let started = clock();
            match run(&scenario, preset.as_ref()) {
                Ok(outcome) => Response::Ran {
                    id,
                    wall_ms: clock() - started,
                    outcome: Box::new(outcome),
                },
                Err(e) => failed(id, e),
            }
        }
        Request::ContestRow {
            id,
            load,
            params,
            cpus,
            seed,
            policy,
            machine,
        } => {
            let preset = &contest::PRESET;
            let params = match presets::params(preset, &params) {
                Ok(p) => p,
                Err(problems) => {
                    return Response::Failed {
                        id,
                        message: format!("invalid contest parameters:\n{problems}"),
                        problems: problems.0,
                    }
                }
            };
            let config = machine
                .iter()
                .fold(Config::new(policy), |c, (k, &v)| c.with_machine(k, v));
            match contest::run_one(&config, &params, &load, cpus, seed) {
                Ok(run) => Response::ContestRow {
                    id,
                    row: run.into(),
                },
                Err(e) => Response::Failed {
                    id,
                    message: format!("contest {load}: {e}"),
                    problems: Vec::new(),
                },
            }
        }
        Request::Inspect {
            id,
            scenario,
            preset,
            at_ns,
        } => Response::Inspected {
            id,
            outcome: inspect(&scenario, preset.as_ref(), at_ns),
        },
        Request::SweepPoint { id, point } => Response::SweepPoint {
            id,
            value: point.value,
            metric: schedlab::sweep::run_point(&point).map_err(|e| e.to_string()),
        },
        Request::Crash { id, out_of_memory } => {
            if out_of_memory {
                exhaust_memory();
            }
            panic!("crash requested by the page (request {id})")
        }
    }
}

/// Reserves ever more memory, never touching it, until an allocation fails: the allocator then
/// aborts (in wasm a trap, `RuntimeError: unreachable`), as a run too large for the page would.
fn exhaust_memory() -> ! {
    let mut held: Vec<Vec<u8>> = Vec::new();
    loop {
        held.push(Vec::with_capacity(1 << 30));
        std::hint::black_box(&held);
    }
}

fn failed(id: u64, e: RunError) -> Response {
    match e {
        RunError::Invalid(problems) => Response::Failed {
            id,
            message: format!("invalid scenario:\n{problems}"),
            problems: problems.0,
        },
        RunError::Sim(message) => Response::Failed {
            id,
            message,
            problems: Vec::new(),
        },
    }
}

enum RunError {
    Invalid(schedlab::Problems),
    Sim(String),
}

impl From<SimError> for RunError {
    fn from(e: SimError) -> RunError {
        match e {
            SimError::Invalid(p) => RunError::Invalid(p),
            SimError::Run(r) => RunError::Sim(format!("the run stopped: {r}")),
        }
    }
}

/// Runs a scenario as the CLI does: to its end, or for a preset to where its benchmark ends
/// (`schedlab run <preset>`), so the page and the CLI give the same trace hash.
fn run(
    scenario: &schedlab::Scenario,
    preset: Option<&schedlab::link::PresetRef>,
) -> Result<RunOutcome, RunError> {
    let opts = RunOptions {
        detail: Detail::Full,
        ..RunOptions::default()
    };
    let Some(reference) = preset else {
        let out = schedlab::run(scenario, opts)?;
        return Ok(outcome(scenario, &out, None));
    };
    let preset = presets::find(reference).map_err(RunError::Invalid)?;
    let params = presets::params(preset, &reference.params).map_err(RunError::Invalid)?;
    let out = schedlab::workloads::run_until(scenario, preset.stop, opts.detail)?;
    let base = PresetBase {
        cpus: scenario.cpus,
        seed: scenario.seed,
        policy: scenario.policy.clone(),
    };
    let report = (preset.report)(&params, &base, &out);
    let report = ReportView {
        preset: preset.id.to_owned(),
        text: report.text,
        notes: report.notes,
    };
    Ok(outcome(scenario, &out, Some(report)))
}

/// The run queues at `at_ns` of the run [`run`] makes (a preset's ends where its benchmark
/// ends).
fn inspect(
    scenario: &schedlab::Scenario,
    preset: Option<&schedlab::link::PresetRef>,
    at_ns: u64,
) -> Result<RunQueues, String> {
    let stop = match preset {
        Some(reference) => Some(presets::find(reference).map_err(|p| p.to_string())?.stop),
        None => None,
    };
    schedlab::inspect::inspect_at(scenario, stop, Nanos(at_ns)).map_err(|e| e.to_string())
}

fn outcome(
    scenario: &schedlab::Scenario,
    out: &schedlab::RunOutput,
    report: Option<ReportView>,
) -> RunOutcome {
    RunOutcome {
        // Both bounded (view::TASK_LIMIT and the trace limits), so a run of a million tasks
        // is a reply of megabytes the page can parse, not hundreds.
        result: RunResult::for_page(scenario, out),
        data: schedlab::view::RunData::from_run(scenario, out),
        report,
    }
}
