//! irman (Bob Matthews, Red Hat): a one-character ping-pong probe against a pipe-ring load.
//!
//! Source: workloads.md §3 (the benchmark and its model) and seed 002 (Mike Galbraith: the
//! probe "starved for up to 30 seconds" under Jim Houston's scheduler; target T3 of §6).
//!
//! ```text
//!   ring0 ─pipe─▶ ring1 ─pipe─▶ … ─pipe─▶ ring8 ─pipe─▶ ring0     2 records circulate,
//!                                                               each hop = hop_us of CPU
//!   irman ──ab──▶ pingpong ──ba──▶ irman                         one iteration = one round trip
//! ```
//!
//! Both sides of the probe and every ring task sleep almost all the time, so a sleep-average
//! estimator cannot tell them apart: what matters is whether the policy lets the tiny probe
//! through while the equally sleepy ring keeps the CPU busy. Reported: round-trip max, min,
//! average and standard deviation (irman's four numbers), a log2 histogram, and the slowest
//! 1000 consecutive iterations (Mike watched "seconds per 1000 iterations").

use schedlab_engine::{Nanos, RunOutput, Scenario};
use serde::Serialize;

use crate::build::*;
use crate::stats::{fmt_ns, Log2Histogram, Summary};
use crate::{Headline, Metric, ParamSpec, Params, Preset, PresetBase, Report, Reporter, Stop};

const MARK_RT: &str = "rt";
/// Iterations per "chunk" for the slowest-stretch metric (Mike printed every 1000, seed 002).
pub const CHUNK: usize = 1000;
/// One pipe record in flight per pipe (a one-page pipe buffer).
const PIPE_RECORDS: u64 = 1;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int("ring", "Ring tasks", "", 9, 2, 1000, "irman's default process load: 9 tasks in a pipe ring (FACT, seed 002)."),
    ParamSpec::int("tokens", "Records in the ring", "", 2, 1, 1000, "M << N chunks circulating (FACT §3: M much smaller than N); 2 as in contest. ASSUMPTION."),
    ParamSpec::int("hop_us", "Ring hop CPU", "us", 200, 1, 1_000_000, "CPU per hop; large records, for Mike's 100000:1 data ratio. ASSUMPTION, §3."),
    ParamSpec::int("probe_us", "Probe CPU per side", "us", 2, 1, 1_000_000, "CPU each side of the ping-pong spends per exchange. ASSUMPTION, §3."),
    ParamSpec::int("iterations", "Iterations", "", 100_000, 1, 1_000_000, "Round trips to time. irman did 1 000 000 (FACT); the default is 100 000 to keep runs short."),
    ParamSpec::int("lead_ms", "Load lead", "ms", 1000, 0, 60_000, "The load runs alone this long before the probe starts. ASSUMPTION."),
    ParamSpec::int("limit_s", "Time limit", "s", 300, 1, 86_400, "Stop early at this simulated time (Mike gave up after ~2 minutes of wall time)."),
];

pub const PRESET: Preset = Preset {
    id: "irman",
    name: "irman: ping-pong probe vs pipe ring",
    story: "A one-character ping-pong between two processes is timed while nine processes pass big records round a pipe ring: all are sleepers, and some schedulers starve the probe for seconds.",
    source: "reference/workloads.md §3; seed 002",
    params: PARAMS,
    generate,
    report: Reporter::Irman,
    stop: Stop::TaskExits("irman"),
    metrics: &["rt_max_ms", "rt_min_ms", "rt_avg_ms", "rt_sd_ms", "iterations_done", "slowest_1000_s"],
    headlines: &[Headline { metric: "rt_avg_ms", label: "irman: mean response" }],
};

fn generate(p: &Params, base: &PresetBase) -> Scenario {
    let n = p.u("ring");
    let mut s = scenario(
        base,
        "irman",
        "irman (workloads.md §3): ping-pong probe against a pipe-ring process load",
        Nanos::from_secs(p.u("limit_s")),
    );
    for i in 0..n {
        s.channels
            .push(channel(&format!("pipe{i}"), Some(PIPE_RECORDS)));
    }
    for i in 0..n {
        s.tasks.push(task(
            &format!("ring{i}"),
            0,
            Nanos::ZERO,
            vec![forever(vec![
                recv(&format!("pipe{i}")),
                run(us(p.u("hop_us"))),
                send(&format!("pipe{}", (i + 1) % n)),
            ])],
        ));
    }
    s.tasks.push(task(
        "process_load",
        0,
        Nanos::ZERO,
        vec![repeat(p.u("tokens"), vec![send("pipe0")])],
    ));
    s.channels.push(channel("ab", Some(1)));
    s.channels.push(channel("ba", Some(1)));
    let (iters, cpu, lead) = (p.u("iterations"), us(p.u("probe_us")), ms(p.u("lead_ms")));
    s.tasks.push(task(
        "irman",
        0,
        lead,
        vec![
            mark(MARK_RT),
            repeat(iters, vec![run(cpu), send("ab"), recv("ba"), mark(MARK_RT)]),
        ],
    ));
    s.tasks.push(task(
        "pingpong",
        0,
        lead,
        vec![repeat(iters, vec![recv("ab"), run(cpu), send("ba")])],
    ));
    s
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IrmanResult {
    pub iterations_requested: u64,
    pub iterations_done: u64,
    /// Round-trip times, ns (irman printed ms).
    pub round_trip: Summary,
    pub histogram: Log2Histogram,
    /// The longest time taken by 1000 consecutive iterations (aligned chunks), ns.
    pub slowest_chunk_ns: u64,
    pub completed: bool,
}

/// Statistics of the round trips between consecutive `rt` marks.
pub fn measure_marks(times: &[Nanos], requested: u64) -> IrmanResult {
    let rts: Vec<u64> = times.windows(2).map(|w| (w[1] - w[0]).0).collect();
    let slowest = times
        .chunks(CHUNK)
        .zip(times.iter().skip(CHUNK).step_by(CHUNK))
        .map(|(c, next)| (*next - c[0]).0)
        .max()
        .unwrap_or(0);
    IrmanResult {
        iterations_requested: requested,
        iterations_done: rts.len() as u64,
        round_trip: Summary::of(&rts),
        histogram: Log2Histogram::of(&rts),
        slowest_chunk_ns: slowest,
        completed: rts.len() as u64 == requested,
    }
}

pub fn measure(p: &Params, out: &RunOutput) -> IrmanResult {
    let times: Vec<Nanos> = out.trace.marks_labelled(MARK_RT).map(|m| m.time).collect();
    measure_marks(&times, p.u("iterations"))
}

fn ms_f(ns: u64) -> f64 {
    ns as f64 / 1e6
}

pub(crate) fn report(p: &Params, _base: &PresetBase, out: &RunOutput) -> Report {
    let r = measure(p, out);
    let s = r.round_trip;
    let mut text = format!(
        "PROCESS load, {} of {} iterations{}\n  max {}  min {}  avg {}  stddev {}\n  slowest {CHUNK} iterations: {}\nround-trip histogram (log2 bins):\n",
        r.iterations_done,
        r.iterations_requested,
        if r.completed { "" } else { " (stopped at the time limit)" },
        fmt_ns(s.max),
        fmt_ns(s.min),
        fmt_ns(s.mean),
        fmt_ns(s.sd),
        fmt_ns(r.slowest_chunk_ns)
    );
    text.push_str(&r.histogram.render());
    Report {
        preset: PRESET.id,
        metrics: vec![
            Metric {
                key: "rt_max_ms",
                label: "max",
                unit: "ms",
                value: ms_f(s.max),
            },
            Metric {
                key: "rt_min_ms",
                label: "min",
                unit: "ms",
                value: ms_f(s.min),
            },
            Metric {
                key: "rt_avg_ms",
                label: "avg",
                unit: "ms",
                value: ms_f(s.mean),
            },
            Metric {
                key: "rt_sd_ms",
                label: "stddev",
                unit: "ms",
                value: ms_f(s.sd),
            },
            Metric {
                key: "iterations_done",
                label: "Iterations",
                unit: "",
                value: r.iterations_done as f64,
            },
            Metric {
                key: "slowest_1000_s",
                label: "Slowest 1000",
                unit: "s",
                value: r.slowest_chunk_ns as f64 / 1e9,
            },
        ],
        text,
        detail: serde_json::to_value(&r).unwrap_or_default(),
        notes: vec![
            "irman's source was not found; ring sizes and costs follow workloads.md §3".into(),
        ],
    }
}
