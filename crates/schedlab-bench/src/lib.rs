//! The speed cases of `./x bench`. Each case builds a scenario and runs it; the native binary
//! and the wasm module time the same code, so their events/s can be compared in one run.
//!
//! Timings never appear in tests: they are measured and reported here only.

use schedlab_engine::program::{Dur, Program, Step};
use schedlab_engine::scenario::{PolicySpec, TaskSpec};
use schedlab_engine::{Detail, Nanos, RunOptions, Scenario};

/// One benchmark case.
pub struct Case {
    pub name: &'static str,
    pub what: &'static str,
    pub detail: Detail,
    /// None when the case's policy is not registered in this build.
    pub scenario: fn() -> Option<Scenario>,
    /// Instead of one scenario: the full contest table (11 loads, one seed, 2 CPUs) under this
    /// policy, what the page recomputes while a slider moves on a contest preset.
    pub contest: Option<&'static str>,
    /// Instead of one scenario: this preset's run as the page's worker makes it at every
    /// slider move (default parameters, CPUs, seed and policy; a full trace under the page's
    /// cap, to the benchmark's stop).
    pub page_run: Option<&'static str>,
}

/// What one run of a case produced (timing is added by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub events: u64,
    pub simulated_ns: u64,
    pub hash: u64,
    pub trace_bytes: usize,
}

fn scenario(cpus: u32, duration: Nanos, policy: &str, tasks: Vec<TaskSpec>) -> Option<Scenario> {
    schedlab_policies::find(policy)?;
    Some(Scenario {
        version: 1,
        name: String::new(),
        description: String::new(),
        cpus,
        duration,
        seed: 1,
        policy: PolicySpec {
            id: policy.into(),
            tunables: Default::default(),
        },
        tasks,
        programs: Default::default(),
        disks: vec![],
        channels: vec![],
        costs: Default::default(),
        machine: None,
        groups: Vec::new(),
    })
}

fn exp(mean: Nanos) -> Dur {
    Dur::Exponential {
        mean,
        min: Nanos::ZERO,
        max: Nanos::MAX,
    }
}

/// `n` tasks alternating exponential CPU bursts and sleeps forever.
fn cpu_sleep_tasks(n: u32, run: Nanos, sleep: Nanos) -> Vec<TaskSpec> {
    vec![TaskSpec {
        name: "worker".into(),
        nice: 0,
        arrival: Nanos::ZERO,
        shares: None,
        cpu_rate_cap: None,
        slice: None,
        cpus: None,
        group: None,
        rt: None,
        count: Some(n),
        program: Program(vec![Step::Repeat {
            count: schedlab_engine::program::Count::Forever,
            body: vec![Step::Run(exp(run)), Step::Sleep(exp(sleep))],
        }]),
    }]
}

fn hogs(n: u32) -> TaskSpec {
    TaskSpec {
        name: "hog".into(),
        nice: 0,
        arrival: Nanos::ZERO,
        shares: None,
        rt: None,
        cpu_rate_cap: None,
        slice: None,
        cpus: None,
        group: None,
        count: Some(n),
        program: Program(vec![Step::Run(Dur::Fixed(Nanos::from_secs(3600)))]),
    }
}

fn engine_case(
    name: &'static str,
    what: &'static str,
    detail: Detail,
    scenario: fn() -> Option<Scenario>,
) -> Case {
    Case {
        name,
        what,
        detail,
        scenario,
        contest: None,
        page_run: None,
    }
}

pub fn cases() -> Vec<Case> {
    vec![
        engine_case(
            "rr-100-tasks-4-cpus-60s",
            "100 CPU/sleep tasks on 4 CPUs under rr, 60 s simulated (metrics only)",
            Detail::Summary,
            || scenario(4, Nanos::from_secs(60), "rr", cpu_sleep_tasks(100, Nanos::from_ms(2), Nanos::from_ms(8))),
        ),
        engine_case(
            "rr-100-tasks-4-cpus-60s-full",
            "the same with the full trace (what the page records)",
            Detail::Full,
            || scenario(4, Nanos::from_secs(60), "rr", cpu_sleep_tasks(100, Nanos::from_ms(2), Nanos::from_ms(8))),
        ),
        engine_case(
            "mlfq-1000-tasks-10s",
            "1,000 CPU/sleep tasks on 4 CPUs under mlfq, 10 s simulated (metrics only)",
            Detail::Summary,
            || scenario(4, Nanos::from_secs(10), "mlfq", cpu_sleep_tasks(1000, Nanos::from_ms(1), Nanos::from_ms(50))),
        ),
        engine_case(
            "trace-50-tasks-1h-typical",
            "one simulated hour on 2 CPUs under rr of 40 CPU hogs and 10 interactive tasks (2 ms bursts, 50 ms sleeps), full trace: its size",
            Detail::Full,
            || {
                let mut tasks = cpu_sleep_tasks(10, Nanos::from_ms(2), Nanos::from_ms(50));
                tasks.push(hogs(40));
                scenario(2, Nanos::from_secs(3600), "rr", tasks)
            },
        ),
        engine_case(
            "trace-50-tasks-1h-busy",
            "50 tasks (1 ms bursts, 20 ms sleeps) on 2 CPUs under rr for one simulated hour, full trace: its size",
            Detail::Full,
            || scenario(2, Nanos::from_secs(3600), "rr", cpu_sleep_tasks(50, Nanos::from_ms(1), Nanos::from_ms(20))),
        ),
        Case {
            name: "contest-table-linux-2.5-o1",
            what: "the full contest table (11 loads) under linux-2.5-o1, one seed, 2 CPUs",
            detail: Detail::Summary,
            scenario: || None,
            contest: Some("linux-2.5-o1"),
            page_run: None,
        },
        Case {
            name: "contest-table-ebs",
            what: "the same under ebs (the slowest policy)",
            detail: Detail::Summary,
            scenario: || None,
            contest: Some("ebs"),
            page_run: None,
        },
        Case {
            name: "contest-page-run",
            what: "the contest preset's run as the page's worker makes it on every slider move (default policy, full trace under the page's cap): mostly timer ticks",
            detail: Detail::Full,
            scenario: || None,
            contest: None,
            page_run: Some("contest"),
        },
    ]
}

/// A preset's run as the page's worker makes it (`web/src/sim.rs`).
fn page_run(preset: &str) -> Outcome {
    use schedlab::{workloads, Benchmark, Job, PresetRef};
    let reference = PresetRef {
        id: preset.into(),
        params: Default::default(),
    };
    let policy = PolicySpec {
        id: workloads::default_policy().into(),
        tunables: Default::default(),
    };
    let scenario = Benchmark::resolve(&reference)
        .unwrap_or_else(|e| panic!("preset {preset}: {e}"))
        .scenario(workloads::DEFAULT_CPUS, workloads::DEFAULT_SEED, policy);
    let job = Job::with_preset(scenario, Some(&reference))
        .unwrap_or_else(|e| panic!("preset {preset}: {e}"));
    let ran = job
        .run_capped(schedlab::view::page_cap())
        .unwrap_or_else(|e| panic!("the page's run of {preset} failed: {e}"));
    Outcome {
        events: ran.output.events,
        simulated_ns: ran.output.end.0,
        hash: ran.output.hash,
        trace_bytes: ran.output.trace.heap_bytes(),
    }
}

/// The contest table for one policy; its "hash" is of the rendered table, to compare builds.
fn contest(policy: &str) -> Option<Outcome> {
    use schedlab_workloads::contest;
    schedlab_policies::find(policy)?;
    let config = contest::Config::new(PolicySpec {
        id: policy.into(),
        tunables: Default::default(),
    });
    let params = schedlab_workloads::Params::defaults(contest::PRESET.params);
    let table = contest::table(&[config], contest::LOADS, &params, 2, 1)
        .unwrap_or_else(|e| panic!("contest table under {policy} failed: {e}"));
    let mut h = schedlab_engine::trace::TraceHasher::default();
    for b in table.render().bytes() {
        h.u64(b as u64);
    }
    Some(Outcome {
        events: 0,
        simulated_ns: 0,
        hash: h.finish(),
        trace_bytes: 0,
    })
}

/// Runs case `i`; None if its policy is not registered.
pub fn run(i: usize) -> Option<Outcome> {
    let cases = cases();
    let case = cases.get(i)?;
    if let Some(policy) = case.contest {
        return contest(policy);
    }
    if let Some(preset) = case.page_run {
        return Some(page_run(preset));
    }
    let s = (case.scenario)()?;
    let out = schedlab_policies::run(
        &s,
        RunOptions {
            detail: case.detail,
            max_events: u64::MAX,
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("bench case {} failed: {e}", case.name));
    Some(Outcome {
        events: out.events,
        simulated_ns: out.end.0,
        hash: out.hash,
        trace_bytes: out.trace.heap_bytes(),
    })
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use wasm_bindgen::prelude::*;

    /// Names of the cases, as JSON.
    #[wasm_bindgen]
    pub fn bench_cases() -> String {
        let names: Vec<&str> = super::cases().iter().map(|c| c.name).collect();
        serde_json::to_string(&names).unwrap_or_default()
    }

    /// Runs case `i` and returns its outcome as JSON (`null` when skipped).
    #[wasm_bindgen]
    pub fn bench_run(i: usize) -> String {
        match super::run(i) {
            None => "null".into(),
            Some(o) => serde_json::json!({
                "events": o.events,
                "simulated_ns": o.simulated_ns,
                "hash": format!("{:016x}", o.hash),
                "trace_bytes": o.trace_bytes,
            })
            .to_string(),
        }
    }
}
