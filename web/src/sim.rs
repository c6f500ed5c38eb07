//! The worker's side: one request in, one reply out. Plain Rust, natively testable; the wasm
//! entry point (`worker_main.rs`) only wires it to `postMessage`.

use schedlab::workloads::contest::{self, Config};
use schedlab::{Benchmark, Job, Nanos, PresetError, PresetRef, RunResult, SimError};

use crate::protocol::{to_json, HeadlineValue, ReportView, Request, Response, RunOutcome};

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

/// The reply to a request. Runs, inspections and sweep points are [`Job`]s, as on the command
/// line: a preset's run ends where its benchmark ends, and an inspection stands there at the
/// latest, so the page and `schedlab run P --inspect-at T` agree.
pub fn respond(request: Request, clock: &dyn Fn() -> f64) -> Response {
    match request {
        Request::Run {
            id,
            scenario,
            preset,
        } => {
            let started = clock();
            let job = match Job::with_preset(scenario, preset.as_ref()) {
                Ok(job) => job,
                Err(e) => return preset_failed(id, e),
            };
            match run(&job) {
                Ok(outcome) => Response::Ran {
                    id,
                    wall_ms: clock() - started,
                    outcome: Box::new(outcome),
                },
                Err(e) => sim_failed(id, e),
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
            let reference = PresetRef {
                id: contest::PRESET.id.to_owned(),
                params,
            };
            let benchmark = match Benchmark::resolve(&reference) {
                Ok(b) => b,
                Err(e) => return preset_failed(id, e),
            };
            let config = machine
                .iter()
                .fold(Config::new(policy), |c, (k, &v)| c.with_machine(k, v));
            match contest::run_one(&config, benchmark.params(), &load, cpus, seed) {
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
            outcome: Job::with_preset(scenario, preset.as_ref())
                .map_err(|e| e.to_string())
                .and_then(|job| job.inspect(Nanos(at_ns)).map_err(|e| e.to_string())),
        },
        Request::SweepPoint { id, point } => Response::SweepPoint {
            id,
            value: point.value,
            metric: schedlab::sweep::run_point(&point).map_err(|e| e.to_string()),
        },
        Request::Quiz { id, seed } => Response::Quiz {
            id,
            seed,
            quiz: schedlab::quiz::Quiz::new(seed)
                .map(Box::new)
                .map_err(|e| e.to_string()),
        },
    }
}

/// The preset a request names is unknown or its parameters are out of range.
fn preset_failed(id: u64, e: PresetError) -> Response {
    let problems = match &e {
        PresetError::Params(p) => p.0.clone(),
        _ => Vec::new(),
    };
    Response::Failed {
        id,
        message: e.to_string(),
        problems,
    }
}

fn sim_failed(id: u64, e: SimError) -> Response {
    match e {
        SimError::Invalid(problems) => Response::Failed {
            id,
            message: format!("invalid scenario:\n{problems}"),
            problems: problems.0,
        },
        SimError::Run(r) => Response::Failed {
            id,
            message: format!("the run stopped: {r}"),
            problems: Vec::new(),
        },
    }
}

/// Runs a job with full detail, recording only what the charts draw
/// (`schedlab::view::page_cap`: the worker's memory stays bounded however long the run), the
/// result and a preset's report.
fn run(job: &Job) -> Result<RunOutcome, SimError> {
    let ran = job.run_capped(schedlab::view::page_cap())?;
    let scenario = job.scenario();
    let report = ran.report.map(|r| {
        let declared = schedlab::workloads::find(r.preset).map_or(&[][..], |p| p.headlines);
        let headlines = declared
            .iter()
            .filter_map(|h| {
                let m = r.metrics.iter().find(|m| m.key == h.metric)?;
                Some(HeadlineValue {
                    label: h.label.to_owned(),
                    value: m.value,
                    unit: m.unit.to_owned(),
                })
            })
            .collect();
        ReportView {
            preset: r.preset.to_owned(),
            text: r.text,
            notes: r.notes,
            headlines,
        }
    });
    Ok(RunOutcome {
        // Both bounded (view::TASK_LIMIT and the trace limits), so a run of a million tasks
        // is a reply of megabytes the page can parse, not hundreds.
        result: RunResult::for_page(scenario, &ran.output),
        data: schedlab::view::RunData::from_run(scenario, &ran.output),
        report,
    })
}
