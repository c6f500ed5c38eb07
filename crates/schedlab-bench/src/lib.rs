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
        rt: None,
        count: Some(n),
        program: Program(vec![Step::Repeat {
            count: schedlab_engine::program::Count::Forever,
            body: vec![Step::Run(exp(run)), Step::Sleep(exp(sleep))],
        }]),
    }]
}

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "rr-100-tasks-4-cpus-60s",
            what: "100 CPU/sleep tasks on 4 CPUs under rr, 60 s simulated (metrics only)",
            detail: Detail::Summary,
            scenario: || scenario(4, Nanos::from_secs(60), "rr", cpu_sleep_tasks(100, Nanos::from_ms(2), Nanos::from_ms(8))),
        },
        Case {
            name: "rr-100-tasks-4-cpus-60s-full",
            what: "the same with the full trace (what the page records)",
            detail: Detail::Full,
            scenario: || scenario(4, Nanos::from_secs(60), "rr", cpu_sleep_tasks(100, Nanos::from_ms(2), Nanos::from_ms(8))),
        },
        Case {
            name: "mlfq-1000-tasks-10s",
            what: "1,000 CPU/sleep tasks on 4 CPUs under mlfq, 10 s simulated (metrics only)",
            detail: Detail::Summary,
            scenario: || scenario(4, Nanos::from_secs(10), "mlfq", cpu_sleep_tasks(1000, Nanos::from_ms(1), Nanos::from_ms(50))),
        },
        Case {
            name: "trace-50-tasks-1h-typical",
            what: "one simulated hour on 2 CPUs under rr of 40 CPU hogs and 10 interactive tasks (2 ms bursts, 50 ms sleeps), full trace: its size",
            detail: Detail::Full,
            scenario: || {
                let mut tasks = cpu_sleep_tasks(10, Nanos::from_ms(2), Nanos::from_ms(50));
                tasks.push(TaskSpec {
                    name: "hog".into(),
                    nice: 0,
                    arrival: Nanos::ZERO,
                    shares: None,
                    cpu_rate_cap: None,
                    rt: None,
                    count: Some(40),
                    program: Program(vec![Step::Run(Dur::Fixed(Nanos::from_secs(3600)))]),
                });
                scenario(2, Nanos::from_secs(3600), "rr", tasks)
            },
        },
        Case {
            name: "trace-50-tasks-1h-busy",
            what: "50 tasks (1 ms bursts, 20 ms sleeps) on 2 CPUs under rr for one simulated hour, full trace: its size",
            detail: Detail::Full,
            scenario: || scenario(2, Nanos::from_secs(3600), "rr", cpu_sleep_tasks(50, Nanos::from_ms(1), Nanos::from_ms(20))),
        },
    ]
}

/// Runs case `i`; None if its policy is not registered.
pub fn run(i: usize) -> Option<Outcome> {
    let cases = cases();
    let case = cases.get(i)?;
    let s = (case.scenario)()?;
    let out = schedlab_policies::run(
        &s,
        RunOptions {
            detail: case.detail,
            max_events: u64::MAX,
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
