//! The measurement as a result beside the simulation's: the contract's task fields for the
//! real run, and the comparison metric by metric with the relative error.

use schedlab::engine::Percentiles;
use schedlab::result::{Latency, RunResult};
use serde::Serialize;

use super::kernel::Model;
use super::protocol::{Measured, Report};

/// `schedlab measure --json`: the simulated run (the result contract, as `run --json`), the
/// measured one (the contract's task fields; a real run has no trace hash or segments), the
/// model of the kernel and the comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Output {
    pub kernel: Kernel,
    /// The scenario as simulated and measured (its policy the kernel's model).
    pub scenario: schedlab::Scenario,
    pub simulated: RunResult,
    pub measured: MeasuredResult,
    pub comparison: Vec<Row>,
}

impl Output {
    /// Share of the scenario's CPU capacity that other processes and the hypervisor took
    /// while it ran (0 when unknown).
    pub fn noise(&self) -> f64 {
        let s = &self.measured.summary;
        let capacity = s.end_ns.max(1) as f64 * self.measured.cpus.max(1) as f64;
        (s.other_cpu_ns.unwrap_or(0) + s.steal_ns.unwrap_or(0)) as f64 / capacity
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Kernel {
    #[serde(flatten)]
    pub model: Model,
    /// CPUs online on this machine.
    pub machine_cpus: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct MeasuredResult {
    /// `linux <release>`: what ran the tasks.
    pub policy: String,
    pub seed: u64,
    pub cpus: u32,
    pub summary: MeasuredSummary,
    pub tasks: Vec<MeasuredTask>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MeasuredSummary {
    /// When the last task exited, or the end of the run if some task did not.
    pub makespan_ns: u64,
    pub context_switches: u64,
    /// Extension: CPU time of all tasks.
    pub cpu_ns: u64,
    /// Wall-clock time from the start to the last task's end.
    pub end_ns: u64,
    /// CPU time of everything else on the scenario's CPUs meanwhile (other processes, this
    /// one supervising, interrupts), and time the hypervisor stole: the noise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_cpu_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steal_ns: Option<u64>,
    /// How many times something else ran on those CPUs meanwhile (`procfs::other_wakeups`);
    /// the simulation runs them as the `others::OTHERS` tasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_wakeups: Option<u64>,
}

/// One task as measured: the contract's core task fields, then what only a real run has.
#[derive(Clone, Debug, Serialize)]
pub struct MeasuredTask {
    pub name: String,
    pub cpu_ns: u64,
    pub wait_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turnaround_ns: Option<u64>,
    pub switches: u64,
    pub wakeup_latency_ns: Latency,
    pub nice: i32,
    pub arrival_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migrations: Option<u64>,
    pub wakeups: u64,
    pub wakeup_latency_mean_ns: u64,
    /// Wake-ups with a latency sample (sleeps and receives; a wait's is not known).
    pub wakeup_latency_samples: u64,
    pub share_ppm: u64,
    pub pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
    /// Times given a CPU, from schedstat (`pcount`).
    pub timeslices: u64,
    /// The CPU it was on at its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_cpu: Option<u32>,
    pub messages_sent: u64,
    pub messages_received: u64,
    /// False when its random durations could not be the simulation's draws.
    pub draws_match: bool,
}

/// One metric of one task, simulated and measured.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub task: String,
    pub metric: &'static str,
    pub simulated: Option<u64>,
    pub measured: Option<u64>,
    /// (measured − simulated) / simulated; absent when the simulated value is 0 or either
    /// is missing.
    pub relative_error: Option<f64>,
}

pub fn measured_result(release: &str, cpus: u32, seed: u64, m: &Measured) -> MeasuredResult {
    let total: u64 = m.reports.iter().map(|r| r.counters.cpu_ns).sum();
    let tasks: Vec<MeasuredTask> = m.reports.iter().map(|r| task(r, total)).collect();
    let all_exited = tasks.iter().all(|t| t.turnaround_ns.is_some());
    let makespan = if all_exited {
        m.reports.iter().filter_map(|r| r.exit_ns).max().unwrap_or(0)
    } else {
        m.wall_ns
    };
    MeasuredResult {
        policy: format!("linux {release}"),
        seed,
        cpus,
        summary: MeasuredSummary {
            makespan_ns: makespan,
            context_switches: tasks.iter().map(|t| t.switches).sum(),
            cpu_ns: total,
            end_ns: m.wall_ns,
            other_cpu_ns: m.other_cpu_ns,
            steal_ns: m.steal_ns,
            other_wakeups: m.other_wakeups,
        },
        tasks,
    }
}

fn task(r: &Report, total_cpu: u64) -> MeasuredTask {
    let mut samples = r.latencies.clone();
    let p = Percentiles::of(&mut samples);
    let mean = if samples.is_empty() {
        0
    } else {
        (samples.iter().map(|&x| x as u128).sum::<u128>() / samples.len() as u128) as u64
    };
    MeasuredTask {
        name: r.name.clone(),
        cpu_ns: r.counters.cpu_ns,
        wait_ns: r.counters.wait_ns,
        response_ns: r.response_ns,
        turnaround_ns: r.exit_ns.map(|e| e.saturating_sub(r.arrival_ns)),
        switches: r.switches,
        wakeup_latency_ns: p.into(),
        nice: r.nice,
        arrival_ns: r.arrival_ns,
        migrations: r.counters.migrations,
        wakeups: r.wakeups,
        wakeup_latency_mean_ns: mean,
        wakeup_latency_samples: samples.len() as u64,
        share_ppm: ppm(r.counters.cpu_ns, total_cpu),
        pid: r.pid,
        parent: r.parent.clone(),
        voluntary_switches: r.counters.voluntary,
        involuntary_switches: r.counters.involuntary,
        timeslices: r.counters.slices,
        last_cpu: r.last_cpu,
        messages_sent: r.sent,
        messages_received: r.received,
        draws_match: r.draws_match,
    }
}

fn ppm(part: u64, whole: u64) -> u64 {
    if whole == 0 {
        0
    } else {
        (part as u128 * 1_000_000 / whole as u128) as u64
    }
}

/// The metrics compared, in display order: (name, simulated, measured).
type Pick = (
    &'static str,
    fn(&schedlab::result::TaskResult) -> Option<u64>,
    fn(&MeasuredTask) -> Option<u64>,
);
const METRICS: &[Pick] = &[
    ("cpu", |s| Some(s.cpu_ns), |m| Some(m.cpu_ns)),
    ("share", |s| Some(s.share_ppm), |m| Some(m.share_ppm)),
    ("wait", |s| Some(s.wait_ns), |m| Some(m.wait_ns)),
    ("switches", |s| Some(s.switches), |m| Some(m.switches)),
    ("migrations", |s| Some(s.migrations), |m| m.migrations),
    ("wakeups", |s| Some(s.wakeups), |m| Some(m.wakeups)),
    (
        "latency p50",
        |s| Some(s.wakeup_latency_ns.p50),
        |m| Some(m.wakeup_latency_ns.p50),
    ),
    (
        "latency p90",
        |s| Some(s.wakeup_latency_ns.p90),
        |m| Some(m.wakeup_latency_ns.p90),
    ),
    (
        "latency p99",
        |s| Some(s.wakeup_latency_ns.p99),
        |m| Some(m.wakeup_latency_ns.p99),
    ),
    (
        "latency max",
        |s| Some(s.wakeup_latency_ns.max),
        |m| Some(m.wakeup_latency_ns.max),
    ),
    ("response", |s| s.response_ns, |m| m.response_ns),
    ("turnaround", |s| s.turnaround_ns, |m| m.turnaround_ns),
];

/// Whether a metric is a duration (else a count, or `share` in ppm).
pub fn is_duration(metric: &str) -> bool {
    !matches!(metric, "share" | "switches" | "migrations" | "wakeups")
}

/// Tasks matched by name and occurrence (forks may share a name), metric by metric. Latency
/// rows are left out for a task without wake-ups in either run.
pub fn compare(sim: &RunResult, measured: &MeasuredResult) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut used = vec![false; measured.tasks.len()];
    for s in &sim.tasks {
        let Some(i) = (0..measured.tasks.len()).find(|&i| !used[i] && measured.tasks[i].name == s.name)
        else {
            continue;
        };
        used[i] = true;
        let m = &measured.tasks[i];
        let woken = s.wakeups > 0 || m.wakeup_latency_samples > 0;
        for (metric, fs, fm) in METRICS {
            if metric.starts_with("latency") && !woken {
                continue;
            }
            let (a, b) = (fs(s), fm(m));
            if a.is_none() && b.is_none() {
                continue;
            }
            rows.push(Row {
                task: s.name.clone(),
                metric,
                simulated: a,
                measured: b,
                relative_error: relative_error(a, b),
            });
        }
    }
    rows
}

pub fn relative_error(sim: Option<u64>, real: Option<u64>) -> Option<f64> {
    match (sim, real) {
        (Some(s), Some(r)) if s > 0 => Some((r as f64 - s as f64) / s as f64),
        _ => None,
    }
}

/// A value of `metric` for a table: durations in s, ms or µs, shares in %, counts as they are.
pub fn value(metric: &str, v: Option<u64>) -> String {
    let Some(v) = v else {
        return "-".to_string();
    };
    if metric == "share" {
        return format!("{:.2} %", v as f64 / 10_000.0);
    }
    if !is_duration(metric) {
        return v.to_string();
    }
    duration(v)
}

pub fn duration(ns: u64) -> String {
    if ns >= 1_000_000_000 {
        format!("{:.3} s", ns as f64 / 1e9)
    } else if ns >= 1_000_000 {
        format!("{:.3} ms", ns as f64 / 1e6)
    } else {
        format!("{:.1} us", ns as f64 / 1e3)
    }
}

pub fn error(e: Option<f64>) -> String {
    match e {
        Some(e) => format!("{:+.1} %", e * 100.0),
        None => "-".to_string(),
    }
}

/// The text report: what ran, the noise, and the table.
pub fn text(o: &Output) -> String {
    let mut t = String::new();
    let k = &o.kernel;
    if o.simulated.policy == k.model.policy && o.scenario.policy.tunables == k.model.tunables {
        t.push_str(&format!(
            "kernel {} ({} CPUs online), modelled by {} ({})\n",
            k.model.release, k.machine_cpus, k.model.policy, k.model.why
        ));
        for n in &k.model.notes {
            t.push_str(&format!("  {n}\n"));
        }
    } else {
        t.push_str(&format!(
            "kernel {} ({} CPUs online), simulated with {} as chosen (the kernel's model is {})\n",
            k.model.release, k.machine_cpus, o.simulated.policy, k.model.policy
        ));
    }
    let s = &o.measured.summary;
    t.push_str(&format!(
        "measured on CPUs 0-{} for {}",
        o.measured.cpus.saturating_sub(1),
        duration(s.end_ns)
    ));
    if let (Some(other), Some(steal)) = (s.other_cpu_ns, s.steal_ns) {
        t.push_str(&format!(
            "; meanwhile other processes used {} of CPU there and the hypervisor stole {} \
             ({:.0} % of those CPUs: the noise)",
            duration(other),
            duration(steal),
            o.noise() * 100.0
        ));
    }
    if let Some(n) = s.other_wakeups.filter(|_| o.scenario.tasks.iter().any(|t| super::others::is_others(&t.name))) {
        t.push_str(&format!(
            "; something else ran there {n} times, which the simulation repeats with a task \
             `{}-cpuN` pinned to each CPU (exponential intervals, equal runs)",
            super::others::OTHERS
        ));
    }
    t.push('\n');
    if o.measured.tasks.iter().any(|t| !t.draws_match) {
        t.push_str("note: some forked tasks share a name, so their random draws are not the simulation's\n");
    }
    t.push_str(&format!("simulation trace hash {}\n\n", o.simulated.trace_hash));
    let header = ["task", "metric", "simulated", "measured", "error"];
    let mut rows: Vec<[String; 5]> = Vec::new();
    let mut last = String::new();
    for r in &o.comparison {
        let name = if r.task == last {
            String::new()
        } else {
            r.task.clone()
        };
        last = r.task.clone();
        rows.push([
            name,
            r.metric.to_string(),
            value(r.metric, r.simulated),
            value(r.metric, r.measured),
            error(r.relative_error),
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|i| rows.iter().map(|r| r[i].len()).chain([header[i].len()]).max().unwrap_or(0))
        .collect();
    let line = |cells: [&str; 5]| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i < 2 {
                l.push_str(&format!("{c:<w$}  ", w = widths[i]));
            } else {
                l.push_str(&format!("{c:>w$}  ", w = widths[i]));
            }
        }
        l.trim_end().to_string() + "\n"
    };
    t.push_str(&line(header));
    for r in &rows {
        t.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    t
}

/// A mean for a table, as `value` writes the metric (rounded to the unit).
pub fn mean_value(metric: &str, mean: f64) -> String {
    value(metric, Some(mean.round() as u64))
}

/// `min–max` of a spread, or `-`.
pub fn range(metric: &str, s: Option<&super::repeat::Spread>) -> String {
    match s {
        Some(s) if s.min == s.max => value(metric, Some(s.min)),
        Some(s) => format!("{}–{}", value(metric, Some(s.min)), value(metric, Some(s.max))),
        None => "-".to_string(),
    }
}

/// `yes`, `no` or `-`: whether two intervals overlap.
pub fn overlap(o: Option<bool>) -> &'static str {
    match o {
        Some(true) => "yes",
        Some(false) => "no",
        None => "-",
    }
}

/// The text report of a repeated measurement: what ran, each run's start and noise, each
/// metric as means and min–max intervals, and every run's CPU times.
pub fn repeated_text(r: &super::repeat::Repeated) -> String {
    let mut t = String::new();
    let k = &r.kernel;
    t.push_str(&format!(
        "kernel {} ({} CPUs online), modelled by {} ({})\n",
        k.model.release, k.machine_cpus, r.scenario.policy.id, k.model.why
    ));
    t.push_str(&format!(
        "{} runs; simulated run k starts every task a fraction of a tick later and in its own \
         order (run 1 is the scenario as written)\n",
        r.runs.len()
    ));
    for (i, run) in r.runs.iter().enumerate() {
        let o = &run.output;
        t.push_str(&format!(
            "run {}: phase {} of the {} tick, order {}; noise {:.0} %, trace hash {}\n",
            i + 1,
            duration(run.start.phase_ns),
            duration(run.start.tick_ns),
            run.start.order.join(", "),
            o.noise() * 100.0,
            o.simulated.trace_hash
        ));
    }
    t.push('\n');
    let header = [
        "task", "metric", "sim mean", "sim min–max", "real mean", "real min–max", "error", "overlap",
    ];
    let mut rows: Vec<[String; 8]> = Vec::new();
    let mut last = String::new();
    for i in &r.intervals {
        let name = if i.task == last { String::new() } else { i.task.clone() };
        last = i.task.clone();
        rows.push([
            name,
            i.metric.to_string(),
            i.simulated
                .as_ref()
                .map_or("-".into(), |s| mean_value(i.metric, s.mean)),
            range(i.metric, i.simulated.as_ref()),
            i.measured
                .as_ref()
                .map_or("-".into(), |s| mean_value(i.metric, s.mean)),
            range(i.metric, i.measured.as_ref()),
            error(i.error_of_means),
            overlap(i.overlap).to_string(),
        ]);
    }
    t.push_str(&table(&header, &rows));
    t.push_str("\nerror = (measured mean − simulated mean) / simulated mean\n\nCPU time run by run:\n");
    let mut header = vec!["task".to_string(), "side".to_string()];
    header.extend((1..=r.runs.len()).map(|n| format!("run {n}")));
    let mut rows = Vec::new();
    for i in r.intervals.iter().filter(|i| i.metric == "cpu") {
        for (side, v) in [("simulated", &i.simulated_runs), ("measured", &i.measured_runs)] {
            let mut row = vec![
                if side == "simulated" { i.task.clone() } else { String::new() },
                side.to_string(),
            ];
            row.extend(v.iter().map(|x| value("cpu", *x)));
            rows.push(row);
        }
    }
    let header: Vec<&str> = header.iter().map(|h| h.as_str()).collect();
    t.push_str(&table(&header, &rows));
    t
}

/// A text table: the first two columns left-aligned, the rest right-aligned.
fn table<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> String {
    let n = header.len();
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .map(|r| r.as_ref().get(i).map_or(0, |c| c.chars().count()))
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(c.chars().count());
            if i < 2 {
                l.push_str(c);
                l.push_str(&" ".repeat(pad + 2));
            } else {
                l.push_str(&" ".repeat(pad));
                l.push_str(c);
                l.push_str("  ");
            }
        }
        l.trim_end().to_string() + "\n"
    };
    let mut t = line(header.to_vec());
    for r in rows {
        t.push_str(&line(r.as_ref().iter().map(|c| c.as_str()).collect()));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_errors_and_values() {
        assert_eq!(relative_error(Some(100), Some(95)), Some(-0.05));
        assert_eq!(relative_error(Some(0), Some(3)), None);
        assert_eq!(relative_error(None, Some(3)), None);
        assert_eq!(error(Some(0.0123)), "+1.2 %");
        assert_eq!(value("cpu", Some(3_450_000_000)), "3.450 s");
        assert_eq!(value("wait", Some(12_345_678)), "12.346 ms");
        assert_eq!(value("latency p50", Some(45_600)), "45.6 us");
        assert_eq!(value("share", Some(690_027)), "69.00 %");
        assert_eq!(value("switches", Some(12)), "12");
        assert_eq!(value("turnaround", None), "-");
    }
}
