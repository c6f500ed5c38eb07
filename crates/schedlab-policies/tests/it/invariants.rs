//! Properties every policy in the registry must keep, over random scenarios (proptest).
//!
//! Each registered policy gets its own run of `SCHEDLAB_PROPTEST_CASES` random scenarios (48 by
//! default) from a fixed seed (`SCHEDLAB_PROPTEST_SEED` picks another), so a policy added to
//! `POLICIES` later is covered without touching this file. Failures of all policies are collected
//! and reported together, each with its shrunk scenario as JSON.
//!
//! The scenarios: 1-4 CPUs, 1-8 tasks with fixed durations and zero switch costs, programs mixing
//! run, sleep, send/recv on two channels, fork + wait, yield, nice, a disk read and a repeat.
//! Channel traffic always terminates: each channel has a boundary task index; only tasks below
//! it send, only tasks at or above it receive, and the counts are balanced, so by induction on
//! the task index every receive is eventually served.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use schedlab_engine::{
    CpuId, Detail, Machine, Nanos, PolicyInfo, Queues, RunOptions, RunOutput, Scenario, TaskState,
    Tunables,
};
use schedlab_policies::POLICIES;
use serde_json::{json, Value};

const CHANNELS: usize = 2;

/// A step of a generated program. Durations in microseconds.
#[derive(Clone, Debug)]
enum Gen {
    Run(u64),
    Sleep(u64),
    Send(usize),
    Recv(usize),
    Yield,
    Nice(i32),
    Read,
    /// Fork a child running these simple steps, then maybe wait for it.
    Fork(Vec<Gen>, Option<&'static str>),
    Repeat(u64, Vec<Gen>),
}

#[derive(Clone, Debug)]
struct GenTask {
    arrival_ms: u64,
    nice: i32,
    shares: Option<u32>,
    /// An affinity mask, cut to the scenario's CPUs (none left: no affinity).
    affinity: Option<u32>,
    /// One of the scenario's task groups (`GROUPS`), or none.
    group: Option<usize>,
    steps: Vec<Gen>,
}

/// The task groups every generated scenario declares: two under the root and one nested.
const GROUPS: &str = r#"[{"name":"g0"},{"name":"g1","cpu.weight":300},
    {"name":"g2","cpu.weight":50,"parent":"g1"}]"#;

#[derive(Clone, Debug)]
struct GenScenario {
    cpus: u32,
    tasks: Vec<GenTask>,
    /// Per channel: tasks below this index send, the others receive.
    boundary: [usize; CHANNELS],
}

fn simple_step() -> impl Strategy<Value = Gen> {
    prop_oneof![
        3 => (1u64..20_000).prop_map(Gen::Run),
        2 => (1u64..20_000).prop_map(Gen::Sleep),
        1 => Just(Gen::Yield),
        1 => (-5i32..=10).prop_map(Gen::Nice),
    ]
}

fn step() -> impl Strategy<Value = Gen> {
    prop_oneof![
        4 => (1u64..20_000).prop_map(Gen::Run),
        2 => (1u64..20_000).prop_map(Gen::Sleep),
        2 => (0..CHANNELS).prop_map(Gen::Send),
        2 => (0..CHANNELS).prop_map(Gen::Recv),
        1 => Just(Gen::Yield),
        1 => (-5i32..=10).prop_map(Gen::Nice),
        1 => Just(Gen::Read),
        1 => (
            prop::collection::vec(simple_step(), 1..4),
            prop_oneof![Just(None), Just(Some("any")), Just(Some("all"))]
        )
            .prop_map(|(b, w)| Gen::Fork(b, w)),
        1 => (2u64..4, prop::collection::vec(simple_step(), 1..3))
            .prop_map(|(n, b)| Gen::Repeat(n, b)),
    ]
}

fn task() -> impl Strategy<Value = GenTask> {
    (
        0u64..20,
        -5i32..=5,
        prop_oneof![3 => Just(None), 1 => (1u32..10).prop_map(Some)],
        prop_oneof![3 => Just(None), 1 => (1u32..16).prop_map(Some)],
        prop_oneof![1 => Just(None), 2 => (0usize..3).prop_map(Some)],
        prop::collection::vec(step(), 1..7),
    )
        .prop_map(
            |(arrival_ms, nice, shares, affinity, group, steps)| GenTask {
                arrival_ms,
                nice,
                shares,
                affinity,
                group,
                steps,
            },
        )
}

fn scenario_strategy() -> impl Strategy<Value = GenScenario> {
    (1u32..=4, prop::collection::vec(task(), 1..=8))
        .prop_flat_map(|(cpus, tasks)| {
            let n = tasks.len();
            let b = 1..n.max(2);
            (Just(cpus), Just(tasks), [b.clone(), b])
        })
        .prop_map(|(cpus, tasks, boundary)| GenScenario {
            cpus,
            tasks,
            boundary,
        })
}

/// The scenario JSON and each task-name prefix's exact CPU demand.
fn build(g: &GenScenario) -> (Scenario, BTreeMap<String, u64>) {
    let n = g.tasks.len();
    let mut tasks: Vec<Vec<Gen>> = g.tasks.iter().map(|t| t.steps.clone()).collect();
    // Channel roles: a step a task may not take becomes a short run.
    let mut sends = [0usize; CHANNELS];
    let mut recvs = [0usize; CHANNELS];
    for (i, steps) in tasks.iter_mut().enumerate() {
        for s in steps.iter_mut() {
            match *s {
                Gen::Send(c) if n < 2 || i >= g.boundary[c] => *s = Gen::Run(100),
                Gen::Recv(c) if n < 2 || i < g.boundary[c] => *s = Gen::Run(100),
                Gen::Send(c) => sends[c] += 1,
                Gen::Recv(c) => recvs[c] += 1,
                _ => {}
            }
        }
    }
    // Balance: extra receives go to the last task, extra sends to the first.
    for c in 0..CHANNELS {
        for _ in recvs[c]..sends[c] {
            tasks[n - 1].push(Gen::Recv(c));
        }
        for _ in sends[c]..recvs[c] {
            tasks[0].push(Gen::Send(c));
        }
    }
    let mut demand = BTreeMap::new();
    let mut specs = Vec::new();
    for (i, (t, steps)) in g.tasks.iter().zip(&tasks).enumerate() {
        let name = format!("t{i}");
        let mut forks = 0;
        let (program, cpu) = program(steps, i, &mut forks, &mut demand);
        demand.insert(name.clone(), cpu);
        let mut spec = json!({
            "name": name,
            "nice": t.nice,
            "arrival": format!("{}ms", t.arrival_ms),
            "program": program,
        });
        if let Some(s) = t.shares {
            spec["shares"] = json!(s);
        }
        if let Some(g) = t.group {
            spec["group"] = json!(format!("g{g}"));
        }
        if let Some(mask) = t
            .affinity
            .map(|m| m & ((1 << g.cpus) - 1))
            .filter(|&m| m != 0)
        {
            let cpus: Vec<u32> = (0..g.cpus).filter(|c| mask & (1 << c) != 0).collect();
            spec["cpus"] = json!(cpus);
        }
        specs.push(spec);
    }
    let s = json!({
        "version": 1,
        "cpus": g.cpus,
        "duration": "100s",
        "seed": 7,
        "policy": {"id": "fifo"},
        "tasks": specs,
        "disks": [{"name": "d0"}],
        "channels": [{"name": "c0"}, {"name": "c1"}],
        "groups": serde_json::from_str::<Value>(GROUPS).unwrap_or_default(),
    });
    let s = Scenario::from_json(&s.to_string()).unwrap_or_else(|e| panic!("generator bug: {e}"));
    (s, demand)
}

/// Steps as JSON, and their exact CPU demand in ns.
fn program(
    steps: &[Gen],
    task: usize,
    forks: &mut usize,
    demand: &mut BTreeMap<String, u64>,
) -> (Value, u64) {
    let mut out = Vec::new();
    let mut cpu = 0;
    for s in steps {
        match s {
            Gen::Run(us) => {
                cpu += us * 1_000;
                out.push(json!({"run": format!("{us}us")}));
            }
            Gen::Sleep(us) => out.push(json!({"sleep": format!("{us}us")})),
            Gen::Send(c) => out.push(json!({"send": format!("c{c}")})),
            Gen::Recv(c) => out.push(json!({"recv": format!("c{c}")})),
            Gen::Yield => out.push(json!("yield")),
            Gen::Nice(n) => out.push(json!({"nice": n})),
            Gen::Read => out.push(json!({"read": {"disk": "d0", "bytes": 4096}})),
            Gen::Fork(body, wait) => {
                *forks += 1;
                let base = format!("k{task}_{forks}");
                let (p, c) = program(body, task, forks, demand);
                demand.insert(base.clone(), c);
                out.push(json!({"fork": {"program": p, "name": base}}));
                if let Some(w) = wait {
                    out.push(json!({"wait": w}));
                }
            }
            Gen::Repeat(n, body) => {
                let (p, c) = program(body, task, forks, demand);
                cpu += n * c;
                out.push(json!({"repeat": n, "body": p}));
            }
        }
    }
    (Value::Array(out), cpu)
}

struct Run {
    out: RunOutput,
    channels: Vec<(String, u64, u64, u64)>,
}

fn simulate(s: &Scenario, detail: Detail) -> Result<Run, TestCaseError> {
    let mut e = schedlab_policies::registry::engine(
        s,
        RunOptions {
            detail,
            max_events: 2_000_000,
            ..RunOptions::default()
        },
    )
    .map_err(|e| TestCaseError::fail(format!("could not build: {e}")))?;
    loop {
        match e.step() {
            Ok(true) => {}
            Ok(false) => break,
            Err(err) => return Err(TestCaseError::fail(format!("run failed: {err}"))),
        }
    }
    let channels = e.channel_counts();
    Ok(Run {
        out: e.into_output(),
        channels,
    })
}

fn check(
    info: &PolicyInfo,
    scenario: &Scenario,
    demand: &BTreeMap<String, u64>,
) -> Result<(), TestCaseError> {
    let Run { out, channels } = simulate(scenario, Detail::Full)?;
    let end = out.end;
    let cpus = scenario.cpus as usize;
    let ntasks = out.tasks.len();

    // Per-CPU segments: sorted, non-overlapping, inside [0, end].
    let mut by_task: Vec<Vec<(Nanos, Nanos)>> = vec![Vec::new(); ntasks];
    let mut lanes = Vec::new();
    for c in 0..cpus {
        let lane: Vec<_> = out.trace.lane(CpuId(c as u16)).collect();
        let mut last = Nanos::ZERO;
        for s in &lane {
            prop_assert!(s.start < s.end, "cpu{c}: empty segment {s:?}");
            prop_assert!(
                s.start >= last,
                "cpu{c}: segment {s:?} overlaps or is out of order"
            );
            prop_assert!(s.end <= end, "cpu{c}: segment {s:?} after the end {end}");
            last = s.end;
            by_task[s.task.index()].push((s.start, s.end));
        }
        lanes.push(lane);
    }

    // A task never runs on two CPUs at once.
    for (t, segs) in by_task.iter_mut().enumerate() {
        segs.sort();
        for w in segs.windows(2) {
            prop_assert!(w[0].1 <= w[1].0, "task {t} runs twice at once: {w:?}");
        }
    }

    // A task runs only while runnable: between the state change that made it runnable (arrival
    // or wake-up) and its next logged state change (block or exit). The trace logs no change for
    // going on or off a CPU; the segments are that record.
    let states: Vec<_> = out.trace.states().collect();
    for w in states.windows(2) {
        prop_assert!(w[0].time <= w[1].time, "state changes out of order: {w:?}");
    }
    let mut runnable: Vec<Vec<(Nanos, Nanos)>> = vec![Vec::new(); ntasks];
    let mut open: Vec<Option<Nanos>> = vec![None; ntasks];
    for sc in &states {
        let i = sc.task.index();
        if let Some(from) = open[i].take() {
            runnable[i].push((from, sc.time));
        }
        if sc.state.is_runnable() {
            open[i] = Some(sc.time);
        }
    }
    for (i, o) in open.iter().enumerate() {
        if let Some(from) = o {
            runnable[i].push((*from, end));
        }
    }
    for (t, segs) in by_task.iter().enumerate() {
        for &(s, e) in segs {
            prop_assert!(
                runnable[t].iter().any(|&(a, b)| a <= s && e <= b),
                "task {t} ran {s}..{e} outside its runnable intervals {:?}",
                runnable[t]
            );
        }
    }

    // Affinity: every segment on a CPU the task may run on (forked children inherit it).
    for (c, lane) in lanes.iter().enumerate() {
        for seg in lane {
            let t = &out.tasks[seg.task.index()];
            prop_assert!(
                t.allowed(schedlab_engine::CpuId(c as u16)),
                "task {} ran on cpu{} outside its cpus {:#b}",
                t.name,
                c,
                t.cpus_allowed
            );
        }
    }

    // CPU time adds up, and exited tasks used exactly their fixed bursts.
    for (t, m) in out.metrics.tasks.iter().enumerate() {
        let sum: u64 = by_task[t].iter().map(|&(s, e)| (e - s).0).sum();
        prop_assert_eq!(
            sum,
            m.cpu_ns,
            "task {} ({}): segments vs cpu_ns",
            t,
            &m.name
        );
        let prefix = m.name.split('.').next().unwrap_or(&m.name);
        prop_assert!(
            out.tasks[t].state == TaskState::Exited,
            "task {} ({}) never exited (state {:?})",
            t,
            &m.name,
            out.tasks[t].state
        );
        prop_assert_eq!(
            Some(m.cpu_ns),
            demand.get(prefix).copied(),
            "task {} ({}) used a different CPU time than its bursts",
            t,
            &m.name
        );
    }

    // Channels deliver every message once.
    for (name, sent, received, queued) in &channels {
        prop_assert_eq!(*sent, received + queued, "channel {}", name);
        prop_assert_eq!(*queued, 0, "channel {}: messages left over", name);
    }

    // Work conservation: on one CPU always; on several for global-queue policies, except those
    // that faithfully leave a CPU idle: 2.4.19's synchronous wake-up (a pipe write) skips
    // reschedule_idle, so the wakee may wait for the waker's CPU while another CPU idles
    // (schedulers.md §1.6).
    const IDLES_BY_DESIGN_ON_SMP: &[&str] = &["linux-2.4"];
    let queues = (info.build)(
        &Tunables::defaults(info.tunables),
        Machine {
            cpus: scenario.cpus as u16,
        },
    )
    .queues();
    // A pinned task may wait for its CPU while another idles: affinity is exempt on SMP.
    let pinned = scenario.tasks.iter().any(|t| t.cpus.is_some());
    if cpus == 1
        || (queues == Queues::Global && !pinned && !IDLES_BY_DESIGN_ON_SMP.contains(&info.id))
    {
        let mut times: Vec<Nanos> = states.iter().map(|s| s.time).collect();
        times.extend(lanes.iter().flatten().flat_map(|s| [s.start, s.end]));
        times.push(end);
        times.sort();
        times.dedup();
        let mut state = vec![TaskState::New; ntasks];
        let mut next_state = 0;
        let mut ptr = vec![0usize; cpus];
        for w in times.windows(2) {
            let (a, b) = (w[0], w[1]);
            while next_state < states.len() && states[next_state].time <= a {
                state[states[next_state].task.index()] = states[next_state].state;
                next_state += 1;
            }
            // Each CPU's segment covering a..b, if any (segments never straddle a boundary).
            let mut on_cpu = vec![None; cpus];
            for (c, lane) in lanes.iter().enumerate() {
                while ptr[c] < lane.len() && lane[ptr[c]].end <= a {
                    ptr[c] += 1;
                }
                if ptr[c] < lane.len() && lane[ptr[c]].start <= a && lane[ptr[c]].end >= b {
                    on_cpu[c] = Some(lane[ptr[c]].task);
                }
            }
            let waiting: Vec<usize> = (0..ntasks)
                .filter(|&t| {
                    state[t].is_runnable()
                        && !on_cpu.iter().any(|r| r.map(|x| x.index()) == Some(t))
                })
                .collect();
            if waiting.is_empty() {
                continue;
            }
            for (c, r) in on_cpu.iter().enumerate() {
                prop_assert!(
                    r.is_some(),
                    "cpu{c} idle during {a}..{b} while tasks {waiting:?} wait"
                );
            }
        }
    }

    // Determinism: the same run again, and with less detail, gives the same hash.
    let again = simulate(scenario, Detail::Full)?;
    prop_assert_eq!(out.hash, again.out.hash, "same scenario, different hash");
    let summary = simulate(scenario, Detail::Summary)?;
    prop_assert_eq!(
        out.hash,
        summary.out.hash,
        "Summary detail changes the hash"
    );
    let segments = simulate(scenario, Detail::Segments)?;
    prop_assert_eq!(
        out.hash,
        segments.out.hash,
        "Segments detail changes the hash"
    );
    Ok(())
}

fn env_u64(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn every_policy_keeps_the_invariants() {
    let cases = env_u64("SCHEDLAB_PROPTEST_CASES", 48) as u32;
    let seed = env_u64("SCHEDLAB_PROPTEST_SEED", 0);
    let mut failures = Vec::new();
    // Every policy at its defaults, and the settings that select other code: EEVDF's 6.18 rules.
    let settings = POLICIES.iter().map(|i| (i, None)).chain(
        POLICIES
            .iter()
            .filter(|i| i.id == "eevdf")
            .map(|i| (i, Some(("kernel", 618)))),
    );
    for (info, setting) in settings {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        let config = Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key));
        let result = runner.run(&scenario_strategy(), |g| {
            let (mut s, demand) = build(&g);
            s.policy.id = info.id.to_string();
            s.policy
                .tunables
                .extend(setting.map(|(k, v)| (k.to_string(), v)));
            check(info, &s, &demand)
        });
        if let Err(e) = result {
            let detail = match &e {
                proptest::test_runner::TestError::Fail(why, g) => {
                    let (mut s, _) = build(g);
                    s.policy.id = info.id.to_string();
                    s.policy
                        .tunables
                        .extend(setting.map(|(k, v)| (k.to_string(), v)));
                    format!("{why}\nminimal scenario:\n{}", s.to_json_pretty())
                }
                other => other.to_string(),
            };
            failures.push(format!("policy {} {setting:?}: {detail}", info.id));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
