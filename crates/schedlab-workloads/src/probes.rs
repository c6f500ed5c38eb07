//! Scott Thomason's two interactive-response probes from seed 000.
//!
//! Source: workloads.md §5.4 and seed 000 (26 Dec 2002 and 1 Jan 2003).
//!
//! ```text
//! sleep-histogram: probe ─ mark ─ sleep 200 ms ─ mark ─ tiny burst   ×1000, 1 ms bins
//! sleep-work:      probe ─ mark ─ touch m MB ─ sleep 300 ms ─ write 2 % of m ─ mark
//!                  (m = 4, 6, … 30 MB, cycling)                     report elapsed − 0.3 s
//! load: a make -j loop (the contest compile) plus a file copy, or CPU hogs, or nothing
//! ```
//!
//! Probe B's published histogram (target T7): mean overshoot 7.7 ms, SD 8.4 ms, p99 18 ms, max
//! 185 ms at a load of about 13. Simplified: the probe's write is synchronous (Perl's buffered
//! write plus close), memory touching is CPU time only (no memory model, §7.3).

use schedlab_engine::program::Program;
use schedlab_engine::{Nanos, RunOutput, Scenario};
use serde::Serialize;

use crate::build::*;
use crate::stats::{fixed, Histogram, Summary};
use crate::{Headline, Metric, ParamSpec, Params, Preset, PresetBase, Report, Reporter, Stop};

pub const PROBE_LOADS: &[&str] = &["none", "hogs", "compile"];
const DISK: &str = "sda";
/// Histogram bin of probe B: 1 ms (FACT, `sprintf('%01.3f')` in the script).
pub const BIN: Nanos = Nanos::from_ms(1);
/// Bins kept (0 .. 1 s); later samples are counted as overflow.
const BINS: usize = 1000;
/// Probe A's memory cycle (FACT, the script: MEMLOW 4 MB, MEMINC 2 MB, MEMHI 30 MB).
const MEM_LOW_MB: u64 = 4;
const MEM_INC_MB: u64 = 2;
const MEM_HI_MB: u64 = 30;
/// Probe A writes 2 % of m to a temp file (FACT).
const WRITE_PCT: u64 = 2;
/// The file-copy part of Scott's load: request size. ASSUMPTION (§7.2's sequential size).
const COPY_REQ: u64 = 128 * 1024;

const COMMON: [ParamSpec; 4] = [
    ParamSpec::choice("load", "Load", PROBE_LOADS, 2, "none; hogs (CPU hogs); compile (Scott's load: a make -j loop plus a looping file copy, seed 000)."),
    ParamSpec::int("hogs", "CPU hogs", "", 4, 1, 256, "Number of hogs for load=hogs. ASSUMPTION."),
    ParamSpec::int("jobs_per_cpu", "make -j per CPU", "", 4, 1, 64, "The compile loop's jobs per CPU (Scott ran make -j4 on a dual Athlon)."),
    ParamSpec::int("limit_s", "Time limit", "s", 3600, 1, 86_400, "Simulated-time cap."),
];

pub const B_PARAMS: &[ParamSpec] = &[
    COMMON[0],
    COMMON[1],
    COMMON[2],
    COMMON[3],
    ParamSpec::int(
        "samples",
        "Samples",
        "",
        1000,
        1,
        100_000,
        "sleep(0.2) calls timed (FACT: 1000).",
    ),
    ParamSpec::int(
        "sleep_ms",
        "Sleep",
        "ms",
        200,
        1,
        10_000,
        "The requested sleep (FACT: 0.2 s).",
    ),
    ParamSpec::int(
        "work_us",
        "Work per sample",
        "us",
        50,
        0,
        1_000_000,
        "CPU between sleeps (the loop and the hash update). ASSUMPTION, §5.4: 0.05 ms.",
    ),
];

pub const A_PARAMS: &[ParamSpec] = &[
    COMMON[0],
    COMMON[1],
    COMMON[2],
    COMMON[3],
    ParamSpec::int(
        "iterations",
        "Iterations",
        "",
        500,
        1,
        100_000,
        "Scott ran 5000 (FACT); 500 keeps a run short.",
    ),
    ParamSpec::int(
        "sleep_ms",
        "Sleep",
        "ms",
        300,
        1,
        10_000,
        "The fixed sleep (FACT: 0.3 s).",
    ),
    ParamSpec::int(
        "touch_us_per_mb",
        "CPU per MB touched",
        "us",
        2000,
        0,
        1_000_000,
        "Cost of building and touching the string. ASSUMPTION, §5.4: 2 ms per MB.",
    ),
];

pub const SLEEP_HISTOGRAM: Preset = Preset {
    id: "sleep-histogram",
    name: "Sleep histogram (seed 000, probe B)",
    story: "Scott Thomason's Perl probe: time a thousand 0.2 s sleeps under a compile load and histogram how late each one comes back.",
    source: "reference/workloads.md §5.4; seed 000",
    params: B_PARAMS,
    generate: generate_b,
    report: Reporter::SleepHistogram,
    stop: Stop::TaskExits("probe"),
    metrics: &["overshoot_mean_ms", "overshoot_sd_ms", "overshoot_p99_ms", "overshoot_max_ms"],
    headlines: &[Headline { metric: "overshoot_mean_ms", label: "probe: mean oversleep" }],
};

pub const SLEEP_WORK: Preset = Preset {
    id: "sleep-work",
    name: "Sleep + work loop (seed 000, probe A)",
    story: "Scott Thomason's interactive-response probe: touch 4-30 MB, sleep 0.3 s, write a little, and report how much longer than the sleep each iteration took.",
    source: "reference/workloads.md §5.4; seed 000",
    params: A_PARAMS,
    generate: generate_a,
    report: Reporter::SleepWork,
    stop: Stop::TaskExits("probe"),
    metrics: &["response_mean_ms", "response_sd_ms", "response_max_ms"],
    headlines: &[Headline { metric: "response_mean_ms", label: "probe: mean lateness" }],
};

fn add_load(s: &mut Scenario, p: &Params) {
    match p.choice("load") {
        "hogs" => {
            let mut t = task("hog", 0, Nanos::ZERO, vec![forever(vec![run(ms(100))])]);
            t.count = Some(p.u("hogs") as u32);
            s.tasks.push(t);
        }
        "compile" => {
            let mut cp = crate::Params::defaults(crate::contest::PARAMS);
            cp.set("jobs_per_cpu", p.get("jobs_per_cpu"));
            let (cc, link, make) = crate::contest::compile_programs(&cp, s.cpus);
            s.programs.insert("cc".into(), Program(cc));
            s.programs.insert("link".into(), Program(link));
            s.programs.insert("build".into(), Program(make));
            s.tasks.push(task(
                "make-loop",
                0,
                Nanos::ZERO,
                vec![forever(vec![fork("build", "make"), wait_all()])],
            ));
            s.tasks.push(task(
                "cp",
                0,
                Nanos::ZERO,
                vec![forever(vec![
                    read(DISK, COPY_REQ, Some("cp-src"), 0),
                    write(DISK, COPY_REQ, Some("cp-dst")),
                ])],
            ));
        }
        _ => {}
    }
}

fn base_scenario(p: &Params, base: &PresetBase, name: &str, what: &str) -> Scenario {
    let mut s = scenario(base, name, what, Nanos::from_secs(p.u("limit_s")));
    s.disks.push(disk(DISK, ms(10), 40_000_000));
    add_load(&mut s, p);
    s
}

fn generate_b(p: &Params, base: &PresetBase) -> Scenario {
    let mut s = base_scenario(
        p,
        base,
        "sleep histogram",
        "Scott Thomason's sleep(0.2) histogram probe (workloads.md §5.4, probe B)",
    );
    s.tasks.push(task(
        "probe",
        0,
        Nanos::ZERO,
        vec![repeat(
            p.u("samples"),
            vec![
                mark("start"),
                sleep(ms(p.u("sleep_ms"))),
                mark("stop"),
                run(us(p.u("work_us"))),
            ],
        )],
    ));
    s
}

fn generate_a(p: &Params, base: &PresetBase) -> Scenario {
    let mut s = base_scenario(
        p,
        base,
        "sleep + work",
        "Scott Thomason's interactive-response loop (workloads.md §5.4, probe A)",
    );
    // One cycle of m: 4, 6, .., 30 MB (the script starts at MEMHI and wraps to MEMLOW first).
    let sizes: Vec<u64> = (MEM_LOW_MB..=MEM_HI_MB)
        .step_by(MEM_INC_MB as usize)
        .collect();
    let n = p.u("iterations");
    let mut steps = Vec::new();
    let mut left = n;
    let one = |m: u64| {
        vec![
            mark("start"),
            run(us(p.u("touch_us_per_mb") * m)),
            sleep(ms(p.u("sleep_ms"))),
            write(DISK, m * 1024 * 1024 * WRITE_PCT / 100, Some("tmpfile")),
            mark("stop"),
        ]
    };
    let full = left / sizes.len() as u64;
    if full > 0 {
        steps.push(repeat(full, sizes.iter().flat_map(|&m| one(m)).collect()));
        left -= full * sizes.len() as u64;
    }
    for &m in sizes.iter().take(left as usize) {
        steps.extend(one(m));
    }
    s.tasks.push(task("probe", 0, Nanos::ZERO, steps));
    s
}

/// Elapsed time of each start→stop pair, ns.
fn elapsed(out: &RunOutput) -> Vec<u64> {
    let starts = out.trace.marks_labelled("start").map(|m| m.time);
    let stops = out.trace.marks_labelled("stop").map(|m| m.time);
    starts.zip(stops).map(|(a, b)| (b - a).0).collect()
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SleepHistogram {
    pub samples: u64,
    /// Overshoot (elapsed − requested sleep), ns.
    pub overshoot: Summary,
    pub overshoot_p50_ns: u64,
    pub overshoot_p99_ns: u64,
    /// Elapsed times in 1 ms bins (bin i = [i, i+1) ms).
    pub histogram: Histogram,
}

/// Nearest-rank percentile of sorted samples.
fn rank(sorted: &[u64], pct: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[(pct * sorted.len()).div_ceil(100).max(1) - 1]
}

pub fn measure_b(sleep_ns: u64, elapsed: &[u64]) -> SleepHistogram {
    let mut over: Vec<u64> = elapsed.iter().map(|e| e.saturating_sub(sleep_ns)).collect();
    let summary = Summary::of(&over);
    over.sort_unstable();
    SleepHistogram {
        samples: elapsed.len() as u64,
        overshoot: summary,
        overshoot_p50_ns: rank(&over, 50),
        overshoot_p99_ns: rank(&over, 99),
        histogram: Histogram::linear(elapsed, BIN.0, BINS),
    }
}

fn msf(ns: u64) -> f64 {
    ns as f64 / 1e6
}

pub(crate) fn report_b(p: &Params, _base: &PresetBase, out: &RunOutput) -> Report {
    let r = measure_b(ms(p.u("sleep_ms")).0, &elapsed(out));
    // The script's output: "0.201:  201" for every non-empty 1 ms bin.
    let mut text = String::new();
    for (i, &c) in r.histogram.counts.iter().enumerate() {
        if c > 0 {
            text.push_str(&format!("{}:  {c}\n", fixed(i as i64, 3)));
        }
    }
    if r.histogram.overflow > 0 {
        text.push_str(&format!(
            ">{}:  {}\n",
            fixed(BINS as i64, 3),
            r.histogram.overflow
        ));
    }
    let o = r.overshoot;
    text.push_str(&format!(
        "overshoot: mean {} ms, SD {} ms, median {} ms, p99 {} ms, max {} ms ({} samples)\n",
        fixed((o.mean / 1000) as i64, 3),
        fixed((o.sd / 1000) as i64, 3),
        fixed((r.overshoot_p50_ns / 1000) as i64, 3),
        fixed((r.overshoot_p99_ns / 1000) as i64, 3),
        fixed((o.max / 1000) as i64, 3),
        r.samples
    ));
    Report {
        preset: SLEEP_HISTOGRAM.id,
        metrics: vec![
            Metric {
                key: "overshoot_mean_ms",
                label: "Mean overshoot",
                unit: "ms",
                value: msf(o.mean),
            },
            Metric {
                key: "overshoot_sd_ms",
                label: "SD",
                unit: "ms",
                value: msf(o.sd),
            },
            Metric {
                key: "overshoot_p99_ms",
                label: "p99",
                unit: "ms",
                value: msf(r.overshoot_p99_ns),
            },
            Metric {
                key: "overshoot_max_ms",
                label: "Max",
                unit: "ms",
                value: msf(o.max),
            },
        ],
        text,
        detail: serde_json::to_value(&r).unwrap_or_default(),
        notes: if p.choice("load") == "compile" {
            vec!["the compile load's disk model is illustrative (workloads.md §7.2)".into()]
        } else {
            Vec::new()
        },
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SleepWork {
    /// elapsed − sleep of every iteration, ns (the script's printed column).
    pub response_ns: Vec<u64>,
    pub summary: Summary,
}

pub(crate) fn report_a(p: &Params, _base: &PresetBase, out: &RunOutput) -> Report {
    let sleep_ns = ms(p.u("sleep_ms")).0;
    let resp: Vec<u64> = elapsed(out)
        .iter()
        .map(|e| e.saturating_sub(sleep_ns))
        .collect();
    let summary = Summary::of(&resp);
    let mut text = String::new();
    for r in resp.iter().take(20) {
        // "%07.4f": seconds to 0.1 ms.
        text.push_str(&format!("{:0>7}\n", fixed((r / 100_000) as i64, 4)));
    }
    if resp.len() > 20 {
        text.push_str(&format!("... ({} iterations)\n", resp.len()));
    }
    text.push_str(&format!(
        "elapsed - sleep: mean {} ms, SD {} ms, max {} ms\n",
        fixed((summary.mean / 1000) as i64, 3),
        fixed((summary.sd / 1000) as i64, 3),
        fixed((summary.max / 1000) as i64, 3)
    ));
    let r = SleepWork {
        response_ns: resp,
        summary,
    };
    Report {
        preset: SLEEP_WORK.id,
        metrics: vec![
            Metric { key: "response_mean_ms", label: "Mean", unit: "ms", value: msf(summary.mean) },
            Metric { key: "response_sd_ms", label: "SD", unit: "ms", value: msf(summary.sd) },
            Metric { key: "response_max_ms", label: "Max", unit: "ms", value: msf(summary.max) },
        ],
        text,
        detail: serde_json::to_value(&r).unwrap_or_default(),
        notes: vec!["the probe's write and the load's disk use the illustrative disk model (workloads.md §7.2)".into()],
    }
}
