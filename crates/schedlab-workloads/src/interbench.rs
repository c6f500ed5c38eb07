//! interbench (Con Kolivas, 2005): latency and deadlines of simulated interactive tasks under
//! loads.
//!
//! Source: workloads.md §4 (method §4.1, metrics §4.2, model §4.3); `ckolivas/interbench`
//! interbench.c (`periodic_schedule`, `emulate_game`, `show_latencies`), whose bookkeeping
//! [`Tally`] follows line by line.
//!
//! ```text
//!   timekeeper (SCHED_FIFO 96 where the policy has RT)
//!     └ sleep period ─ mark tick ─▶ tk (one slot) ─▶ bench: mark wake ─ run R ─ mark done
//!   load: Burn (L hogs) | Write | Read | Compile = Burn+Write+Read | Memload (lite) | None
//! ```
//!
//! Like interbench, a helper thread keeps the period and wakes the benchmarked task, so a late
//! benchmarked task does not shift the deadlines. Differences, all because the step language
//! has fixed programs: (1) a period whose wake-up is more than a whole period late is counted as
//! interbench counts it (missed, burn skipped) but the simulated task still burns its CPU;
//! (2) X is modelled as 100 ms frames running i ms for i = 0..100 with the next frame as the
//! deadline, not interbench's literal bookkeeping for X (§8.6); (3) Memload is the lite model
//! of §7.3 (a task blocked ~97 % of the time plus page faults injected into the benchmarked
//! task as 4 KB reads on the illustrative disk). Timer slop is zero in the simulator, so the
//! timekeeper's overshoot correction is zero.

use schedlab_engine::program::Step;
use schedlab_engine::scenario::{RtPolicy, RtSpec};
use schedlab_engine::{Nanos, RunOutput, Scenario};
use serde::Serialize;

use crate::build::*;
use crate::stats::{div_round, fixed, isqrt, Summary};
use crate::{Headline, Metric, ParamSpec, Params, Preset, PresetBase, Report, Reporter, Stop};

pub const BENCHES: &[&str] = &["audio", "video", "x", "gaming"];
pub const LOADS: &[&str] = &["none", "burn", "write", "read", "compile", "memload"];

/// Audio: 5 % CPU, waking every 50 ms (FACT, interbench.c `AUDIO_INTERVAL`, `AUDIO_RUN`).
pub const AUDIO_INTERVAL: Nanos = Nanos::from_us(50_000);
pub const AUDIO_RUN: Nanos = Nanos::from_us(50_000 / 20);
/// Video: 40 % CPU at 60 frames per second (FACT, `VIDEO_INTERVAL`, `VIDEO_RUN`).
pub const VIDEO_INTERVAL: Nanos = Nanos::from_us(1_000_000 / 60);
pub const VIDEO_RUN: Nanos = Nanos::from_us(1_000_000 / 60 * 40 / 100);
/// X frames and gaming chunks are 100 ms (FACT, `emulate_x`, `GAME_INTERVAL`).
pub const X_FRAME: Nanos = Nanos::from_ms(100);
pub const GAME_INTERVAL: Nanos = Nanos::from_ms(100);
/// The timekeeper's priority when the policy has a real-time class (FACT, `set_fifo(96)`).
const TIMEKEEPER_RT_PRIO: u32 = 96;
const TK: &str = "tk";
const DISK: &str = "sda";

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("bench", "Benchmarked task", BENCHES, 0, "The simulated interactive task (§4.1): Audio 2.5 ms every 50 ms, Video 6.67 ms at 60 Hz, X ramping 0-100 % in 100 ms frames, Gaming burning in 100 ms chunks."),
    ParamSpec::choice("load", "Load", LOADS, 1, "The background load (§4.1, §4.3)."),
    ParamSpec::int("duration_s", "Benchmark time", "s", 30, 1, 3600, "interbench -t (default 30 s, FACT §4.1)."),
    ParamSpec::int("lead_ms", "Load lead", "ms", 1000, 0, 60_000, "The load starts this long before the benchmark (FACT, §4.1: 1 s)."),
    ParamSpec::int("burn_threads", "Burn threads", "", 4, 1, 64, "interbench -L (default 4, FACT §4.1; its help advises the CPU count)."),
    ParamSpec::int("write_cpu_us", "Write CPU per loop", "us", 1000, 0, 1_000_000, "Write load: CPU per loop. ASSUMPTION, §4.3 (disk-free approximation)."),
    ParamSpec::int("write_wait_ms", "Write I/O wait", "ms", 10, 0, 10_000, "Write load: I/O wait per loop. ASSUMPTION, §4.3."),
    ParamSpec::int("read_cpu_us", "Read CPU per request", "us", 300, 0, 1_000_000, "Read load: CPU per 128 KB request. ASSUMPTION, §4.3."),
    ParamSpec::int("read_req_kb", "Read request", "KB", 128, 4, 65_536, "Read load request size, always missing the cache (§4.3)."),
    ParamSpec::int("seek_us", "Disk positioning", "us", 10_000, 0, 100_000, "Illustrative disk (§7.2). ASSUMPTION."),
    ParamSpec::int("disk_mb_s", "Disk bandwidth", "MB/s", 40, 1, 10_000, "Illustrative disk (§7.2). ASSUMPTION."),
    ParamSpec::int("mem_run_us", "Memload burst", "us", 850, 1, 1_000_000, "Memload lite: CPU per cycle, blocked ~97 % of the time. ASSUMPTION, §7.3."),
    ParamSpec::int("fault_rate", "Faults per CPU-second", "1/s", 20, 0, 10_000, "Memload lite: page faults injected into the benchmarked task per second of its CPU, each a 4 KB disk read. ASSUMPTION, §7.3."),
];

pub const PRESET: Preset = Preset {
    id: "interbench",
    name: "interbench: interactive tasks under load",
    story: "Simulated audio, video, X and gaming tasks run against CPU, disk and memory loads; interbench counts how late they wake, how much of their CPU they get and how many deadlines they meet.",
    source: "reference/workloads.md §4",
    params: PARAMS,
    generate,
    report: Reporter::Interbench,
    stop: Stop::Natural,
    metrics: &["latency_mean_ms", "latency_sd_ms", "latency_sd_interbench_ms", "latency_max_ms", "desired_cpu_pct", "deadlines_met_pct"],
    headlines: &[Headline { metric: "latency_mean_ms", label: "interbench: mean latency" }, Headline { metric: "deadlines_met_pct", label: "interbench: deadlines met" }],
};

/// The benchmarked task's period and per-frame CPU (X: frame i runs i ms).
fn frames(bench: &str) -> Vec<(Nanos, Nanos)> {
    match bench {
        "audio" => vec![(AUDIO_INTERVAL, AUDIO_RUN)],
        "video" => vec![(VIDEO_INTERVAL, VIDEO_RUN)],
        "x" => (0..=100).map(|i| (X_FRAME, ms(i))).collect(),
        _ => vec![(GAME_INTERVAL, GAME_INTERVAL)],
    }
}

/// Page faults of one burn of `run` at `rate` per CPU-second, as (certain, percent of one more).
fn faults(rate: u64, run: Nanos) -> (u64, u8) {
    // rate × run in hundredths of a fault: 20/s × 2.5 ms = 0.05 -> 5.
    let x100 = (rate as u128 * run.0 as u128 / 10_000_000) as u64;
    (x100 / 100, (x100 % 100) as u8)
}

fn generate(p: &Params, base: &PresetBase) -> Scenario {
    let (bench, load) = (p.choice("bench"), p.choice("load"));
    let lead = ms(p.u("lead_ms"));
    let mut s = scenario(
        base,
        &format!("interbench {bench} vs {load}"),
        "interbench (workloads.md §4.3): a timekeeper wakes the benchmarked task each period",
        lead + Nanos::from_secs(p.u("duration_s")),
    );
    s.disks
        .push(disk(DISK, us(p.u("seek_us")), p.u("disk_mb_s") * 1_000_000));
    let memload = load == "memload";
    let fault_steps = |run_t: Nanos| -> Vec<Step> {
        let (certain, pct) = if memload {
            faults(p.u("fault_rate"), run_t)
        } else {
            (0, 0)
        };
        let mut v = Vec::new();
        for _ in 0..certain {
            v.push(read(DISK, 4096, Some("swap"), 0));
        }
        if pct > 0 {
            v.push(read(DISK, 4096, Some("swap"), 100 - pct));
        }
        v
    };
    if bench == "gaming" {
        let mut body = vec![mark("wake")];
        body.extend(fault_steps(GAME_INTERVAL));
        body.push(run(GAME_INTERVAL));
        s.tasks.push(task("gaming", 0, lead, vec![forever(body)]));
    } else {
        s.channels.push(channel(TK, Some(1)));
        let fr = frames(bench);
        let mut tk = Vec::new();
        let mut body = Vec::new();
        for (period, r) in &fr {
            tk.extend([sleep(*period), mark("tick"), send(TK)]);
            body.extend([recv(TK), mark("wake")]);
            body.extend(fault_steps(*r));
            if *r > Nanos::ZERO {
                body.push(run(*r));
            }
            body.push(mark("done"));
        }
        let mut t = task("timekeeper", 0, lead, vec![forever(tk)]);
        t.rt = Some(RtSpec {
            policy: RtPolicy::Fifo,
            priority: TIMEKEEPER_RT_PRIO,
        });
        s.tasks.push(t);
        s.tasks.push(task(bench, 0, lead, vec![forever(body)]));
    }
    let burn = |s: &mut Scenario| {
        let mut t = task("burn", 0, Nanos::ZERO, vec![forever(vec![run(ms(100))])]);
        t.count = Some(p.u("burn_threads") as u32);
        s.tasks.push(t);
    };
    let write_load = |s: &mut Scenario| {
        s.tasks.push(task(
            "write",
            0,
            Nanos::ZERO,
            vec![forever(vec![
                run(us(p.u("write_cpu_us"))),
                sleep(ms(p.u("write_wait_ms"))),
            ])],
        ));
    };
    let read_load = |s: &mut Scenario| {
        s.tasks.push(task(
            "read",
            0,
            Nanos::ZERO,
            vec![forever(vec![
                run(us(p.u("read_cpu_us"))),
                read(DISK, p.u("read_req_kb") * 1024, Some("read"), 0),
            ])],
        ));
    };
    match load {
        "burn" => burn(&mut s),
        "write" => write_load(&mut s),
        "read" => read_load(&mut s),
        "compile" => {
            burn(&mut s);
            write_load(&mut s);
            read_load(&mut s);
        }
        "memload" => s.tasks.push(task(
            "memload",
            0,
            Nanos::ZERO,
            vec![forever(vec![
                run(us(p.u("mem_run_us"))),
                sleep_uniform(ms(5), ms(50)),
            ])],
        )),
        _ => {}
    }
    s
}

/// interbench's `struct data_table`, filled as `periodic_schedule` and `emulate_game` do.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub nr_samples: u64,
    pub total_latency: u128,
    pub sum_latency_squared: u128,
    pub max_latency: u64,
    pub achieved_burns: u64,
    pub missed_burns: u64,
    pub deadlines_met: u64,
    pub missed_deadlines: u64,
    /// Every sample's latency (for the true SD).
    #[serde(skip)]
    pub samples: Vec<u64>,
}

impl Tally {
    fn sample(&mut self, latency: u64) {
        self.max_latency = self.max_latency.max(latency);
        self.total_latency += latency as u128;
        self.sum_latency_squared += latency as u128 * latency as u128;
        self.nr_samples += 1;
        self.samples.push(latency);
    }

    /// One call of `periodic_schedule`: the task was due at `deadline`, ran from `wake` and
    /// finished its burn at `done`, with period `interval`.
    pub fn periodic(&mut self, deadline: u64, wake: u64, done: u64, interval: u64) {
        let mut latency = wake.saturating_sub(deadline);
        let mut missed_latency = 0;
        if interval > 0 && wake > deadline + interval {
            // Missed before consuming CPU: interbench skips the burn.
            let d = deadline + interval;
            let intervals = (wake - d) / interval + 1;
            self.missed_deadlines += intervals;
            missed_latency = intervals * interval;
            self.missed_burns += intervals;
        } else {
            self.achieved_burns += 1;
            let d = deadline + interval;
            if d >= done {
                self.deadlines_met += 1;
            } else if let Some(k) = (done - d).checked_div(interval) {
                let intervals = k + 1;
                self.missed_deadlines += intervals;
                missed_latency = intervals * interval;
                if intervals > 1 {
                    self.missed_burns += intervals;
                }
            }
        }
        latency += missed_latency;
        self.sample(latency);
    }

    /// One chunk of `emulate_game`: `run` of CPU took `wall` of wall time. Burns are counted in
    /// µs of CPU, as interbench does.
    pub fn game(&mut self, run: u64, wall: u64) {
        let latency = wall.saturating_sub(run);
        self.achieved_burns += run / 1000;
        self.missed_burns += latency / 1000;
        self.sample(latency);
    }

    /// `show_latencies`: mean (integer division, as the C code), interbench's "SD"
    /// √((Σlat² − mean²/n)/(n−1)), max, % desired CPU and % deadlines met (tenths).
    pub fn result(&self, bench: &str, load: &str) -> InterbenchResult {
        let n = self.nr_samples;
        let (mean, sd_ib) = if n > 1 {
            let mean = (self.total_latency / n as u128) as u64;
            let m = mean as u128;
            let var = self.sum_latency_squared.saturating_sub(m * m / n as u128) / (n as u128 - 1);
            (mean, isqrt(var) as u64)
        } else {
            (self.total_latency as u64, 0)
        };
        let desired = if self.achieved_burns > 0 {
            div_round(
                self.achieved_burns as u128 * 1000,
                (self.achieved_burns + self.missed_burns) as u128,
            ) as u64
        } else {
            0
        };
        let met = if self.deadlines_met == 0 {
            0
        } else {
            div_round(
                self.deadlines_met as u128 * 1000,
                (self.deadlines_met + self.missed_deadlines) as u128,
            ) as u64
        };
        InterbenchResult {
            bench: bench.to_owned(),
            load: load.to_owned(),
            samples: n,
            latency_mean_ns: mean,
            latency_sd_interbench_ns: sd_ib,
            latency_sd_ns: Summary::of(&self.samples).sd,
            latency_max_ns: self.max_latency,
            desired_cpu_pct_x10: desired,
            deadlines_met_pct_x10: if bench == "gaming" { None } else { Some(met) },
            tally: self.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InterbenchResult {
    pub bench: String,
    pub load: String,
    pub samples: u64,
    pub latency_mean_ns: u64,
    /// interbench's own "SD" (roughly the RMS latency, §4.2).
    pub latency_sd_interbench_ns: u64,
    /// The true sample standard deviation.
    pub latency_sd_ns: u64,
    pub latency_max_ns: u64,
    pub desired_cpu_pct_x10: u64,
    /// None for Gaming, which has no deadlines.
    pub deadlines_met_pct_x10: Option<u64>,
    pub tally: Tally,
}

pub fn measure(p: &Params, out: &RunOutput) -> InterbenchResult {
    let (bench, load) = (p.choice("bench"), p.choice("load"));
    let mut t = Tally::default();
    let times = |l: &str| -> Vec<u64> { out.trace.marks_labelled(l).map(|m| m.time.0).collect() };
    if bench == "gaming" {
        let w = times("wake");
        for pair in w.windows(2) {
            t.game(GAME_INTERVAL.0, pair[1] - pair[0]);
        }
    } else {
        let (ticks, wakes, dones) = (times("tick"), times("wake"), times("done"));
        let fr = frames(bench);
        for (k, ((&d, &w), &f)) in ticks.iter().zip(&wakes).zip(&dones).enumerate() {
            t.periodic(d, w, f, fr[k % fr.len()].0 .0);
        }
    }
    t.result(bench, load)
}

fn ms3(ns: u64) -> String {
    fixed((ns / 1000) as i64, 3)
}

pub(crate) fn report(p: &Params, _base: &PresetBase, out: &RunOutput) -> Report {
    let r = measure(p, out);
    let met = r
        .deadlines_met_pct_x10
        .map(|m| fixed(m as i64, 1))
        .unwrap_or_else(|| "-".into());
    let text = format!(
        "--- Benchmarking simulated cpu of {} in the presence of simulated ---\nLoad\tLatency +/- SD (ms)  Max Latency   % Desired CPU  % Deadlines Met\n{}\t{} +/- {}\t{}\t{}\t{}\n(true SD {} ms; {} samples)\n",
        r.bench,
        r.load,
        ms3(r.latency_mean_ns),
        ms3(r.latency_sd_interbench_ns),
        ms3(r.latency_max_ns),
        fixed(r.desired_cpu_pct_x10 as i64, 1),
        met,
        ms3(r.latency_sd_ns),
        r.samples
    );
    let f = |ns: u64| ns as f64 / 1e6;
    let mut metrics = vec![
        Metric {
            key: "latency_mean_ms",
            label: "Latency",
            unit: "ms",
            value: f(r.latency_mean_ns),
        },
        Metric {
            key: "latency_sd_ms",
            label: "SD (true)",
            unit: "ms",
            value: f(r.latency_sd_ns),
        },
        Metric {
            key: "latency_sd_interbench_ms",
            label: "SD (interbench)",
            unit: "ms",
            value: f(r.latency_sd_interbench_ns),
        },
        Metric {
            key: "latency_max_ms",
            label: "Max latency",
            unit: "ms",
            value: f(r.latency_max_ns),
        },
        Metric {
            key: "desired_cpu_pct",
            label: "% Desired CPU",
            unit: "%",
            value: r.desired_cpu_pct_x10 as f64 / 10.0,
        },
    ];
    if let Some(m) = r.deadlines_met_pct_x10 {
        metrics.push(Metric {
            key: "deadlines_met_pct",
            label: "% Deadlines met",
            unit: "%",
            value: m as f64 / 10.0,
        });
    }
    let mut notes = vec!["X is modelled as 100 ms frames, not interbench's literal X bookkeeping (workloads.md §8.6)".to_owned()];
    if matches!(p.choice("load"), "read" | "compile" | "memload") {
        notes.push("disk model illustrative (workloads.md §7.2)".into());
    }
    Report {
        preset: PRESET.id,
        metrics,
        text,
        detail: serde_json::to_value(&r).unwrap_or_default(),
        notes,
    }
}
