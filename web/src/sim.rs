//! The worker's side: one request in, one reply out. Plain Rust, natively testable; the wasm
//! module's worker exports (`worker_main.rs`) only wire it to `postMessage`.

use std::collections::BTreeMap;

use schedlab::engine::machine::knobs;
use schedlab::workloads::contest::{self, Config};
use schedlab::{Benchmark, Job, Nanos, PresetError, PresetRef, Problems, RunResult, SimError};

use crate::protocol::{
    ContestCells, HeadlineValue, ReportView, Request, Response, RunOutcome, Source,
};
use crate::wire;

/// Handles one request and returns the reply, both in binary (`wire.rs`). `clock` gives milliseconds (the worker's `performance.now()`), used only to report
/// how long the run took.
pub fn handle(request: &[u8], clock: &dyn Fn() -> f64) -> Vec<u8> {
    if let Some(reply) = take_prepared(request) {
        return reply;
    }
    let request = match wire::decode_request(request) {
        Ok(r) => r,
        Err(e) => {
            return wire::encode(&Response::Failed {
                id: 0,
                message: format!("the page sent a request the worker cannot read: {e}"),
                problems: Vec::new(),
            })
        }
    };
    wire::encode(&respond(request, clock))
}

/// Runs a short version of the page's first request (the default scenario, one iteration of
/// its probe instead of `state::DEFAULT_ITERATIONS`) and drops the reply. The worker calls it
/// once its engine is loaded, while the page's own wasm is still starting: the browser compiles
/// a wasm function when it is first called, so without it the page's first run also paid for
/// compiling the request reader, the engine, the default policy and the reply writer.
pub fn warm_up(clock: &dyn Fn() -> f64) {
    if let Some(request) = warm_up_request() {
        handle(&request, clock);
    }
}

/// The request [`warm_up`] runs, as the page would send it.
pub fn warm_up_request() -> Option<Vec<u8>> {
    default_run_request(1)
}

/// The page's first request when it opens without a link (the default scenario), exactly as its
/// runner writes it: what [`prepare_first_run`] answers ahead of time.
pub fn first_run_request() -> Option<Vec<u8>> {
    default_run_request(crate::state::DEFAULT_ITERATIONS)
}

std::thread_local! {
    /// A request answered before it came ([`prepare_first_run`]) and its reply.
    static PREPARED: std::cell::RefCell<Option<(Vec<u8>, Vec<u8>)>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs the page's first request of a load without a link ([`first_run_request`]) before the
/// page sends it, and keeps the reply for it: the worker calls it once its engine is loaded,
/// while the page's own wasm is still starting, so that run overlaps the app's start and its
/// reply goes out the moment the request arrives. It also compiles what every later run takes,
/// as [`warm_up`] does. A simulation is a function of its request, so the reply is the one the
/// request would get later (its `wall_ms` is that run's time). Kept for the first request only:
/// any other drops it.
pub fn prepare_first_run(clock: &dyn Fn() -> f64) {
    let Some(request) = first_run_request() else {
        return;
    };
    let reply = handle(&request, clock);
    PREPARED.with(|p| *p.borrow_mut() = Some((request, reply)));
}

/// The request [`prepare_first_run`] answered and its reply, while they are kept: the worker
/// also posts them to the page's bootstrap at once, which hands them to the app before its
/// first render (`hooks::use_runner::take_first_run`), so the first chart is drawn in the
/// page's first frame and the request need not be sent at all.
pub fn prepared_first_run() -> Option<(Vec<u8>, Vec<u8>)> {
    PREPARED.with(|p| p.borrow().clone())
}

/// The prepared reply, if `request` is the one prepared; any request drops what was prepared.
fn take_prepared(request: &[u8]) -> Option<Vec<u8>> {
    let (prepared, reply) = PREPARED.with(|p| p.borrow_mut().take())?;
    (prepared == request).then_some(reply)
}

/// The page's first run of the default scenario with `iterations` of its probe, as its runner
/// writes the request (the page's first generation).
fn default_run_request(iterations: i64) -> Option<Vec<u8>> {
    let (preset, made) = crate::state::default_preset(iterations);
    let made = made.ok()?;
    // The page's draft is what the preset makes: the request names it (`AppState::requests`).
    let request = Request::Run {
        id: crate::state::FIRST_GENERATION,
        scenario: Source::Generated {
            cpus: made.cpus,
            seed: made.seed,
            policy: made.policy,
            machine: BTreeMap::new(),
        },
        preset: Some(preset),
    };
    Some(wire::encode_request(&request))
}

/// The job a run request names: its scenario, or its preset's made again (as a contest row's
/// is); the reply that says why when there is none.
fn job(id: u64, source: Source, preset: Option<&PresetRef>) -> Result<Job, Response> {
    let (cpus, seed, policy, machine) = match source {
        Source::Scenario(scenario) => {
            return Job::with_preset(*scenario, preset).map_err(|e| preset_failed(id, e))
        }
        Source::Generated {
            cpus,
            seed,
            policy,
            machine,
        } => (cpus, seed, policy, machine),
    };
    let Some(reference) = preset else {
        return Err(Response::Failed {
            id,
            message: "the page asked for a preset's scenario without naming the preset".into(),
            problems: Vec::new(),
        });
    };
    let benchmark = Benchmark::resolve(reference).map_err(|e| preset_failed(id, e))?;
    let mut scenario = benchmark.scenario(cpus, seed, policy);
    knobs::set_all(&mut scenario, &machine)
        .map_err(|p| preset_failed(id, PresetError::Machine(Problems(vec![p]))))?;
    Ok(Job::new(scenario, Some(benchmark)))
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
            let job = match job(id, scenario, preset.as_ref()) {
                Ok(job) => job,
                Err(reply) => return reply,
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
            outcome: Job::with_preset(*scenario, preset.as_ref())
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
    // The same row `contest::run_one` gives for this load: the same scenario (a contest job's is
    // its preset's), run to the same stop; the page then does not ask for it again.
    let contest_row = job
        .benchmark()
        .filter(|b| b.preset().id == contest::PRESET.id)
        .map(|b| ContestCells::from(contest::measure(b.params(), scenario.cpus, &ran.output)));
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
        contest_row,
    })
}
