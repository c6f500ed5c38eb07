//! Repeated measurement (`measure --repeat N`, the reality check): a scenario simulated N times
//! from varied start conditions and measured N times, compared metric by metric as intervals.
//!
//! One measurement against one simulation is not a fair comparison where the kernel's own
//! result moves from run to run (identical hogs on two CPUs: which of them the balancer
//! favours in 5 s). So each side is run N times and each metric is compared as a mean and a
//! min–max interval; the judged figure is the error of the means.
//!
//! What varies between real runs, and so between simulated ones (run `k`, see [`start`]):
//!
//! - **The tick phase.** The tasks are released at one CLOCK_MONOTONIC instant that falls
//!   anywhere between two ticks of the kernel. Simulated run `k` starts every task `phase_k`
//!   later, the `k`-th term of the base-2 van der Corput sequence (0, 1/2, 1/4, 3/4, 1/8, …)
//!   times the model's tick, and lasts that much longer, so each task still has the
//!   scenario's duration. The model ticks on a fixed grid from 0, so this moves the tasks
//!   against the ticks as the real release instant does.
//! - **The start order.** Tasks released at the same instant sleep on timers of their own, and
//!   the kernel wakes and places them in an order the model cannot know. Simulated run `k`
//!   creates the tasks in a permutation of the scenario's order (Fisher–Yates over splitmix64
//!   seeded by the scenario's seed and `k`; a task with `count` is split into its copies, named
//!   as the engine names them). The creation order also numbers each task's random stream, so
//!   a task with random durations draws in run `k`'s order, in the simulation and in the
//!   measurement of that run alike.
//!
//! Run 0 is the scenario as written (phase 0, the scenario's order): what a single `measure`
//! simulates. Nothing is varied to fit a result; what is not varied (the balancer's state at
//! the start, which the policy sets itself) is named where it matters.

use schedlab::Scenario;
use serde::Serialize;

use super::report::{Kernel, Output};

/// The start conditions of one simulated run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Start {
    /// Which run (0 = the scenario as written).
    pub index: u32,
    /// How much later than the scenario says every task starts, in ns.
    pub phase_ns: u64,
    /// The tick the phase is a part of, in ns (0: the policy has no tick).
    pub tick_ns: u64,
    /// The tasks in the order the simulation creates them.
    pub order: Vec<String>,
}

/// The `k`-th term of the base-2 van der Corput sequence, as a fraction of 2^32: the bits of
/// `k` mirrored about the binary point (0, 1/2, 1/4, 3/4, 1/8, 5/8, …), so any first N terms
/// spread evenly over [0, 1).
pub fn van_der_corput(k: u32) -> u32 {
    k.reverse_bits()
}

/// splitmix64: the seeded stream the start order is drawn from.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce5_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The model's tick: its `hz` tunable, else the policy's default `hz`; 0 for a policy without.
pub fn tick_ns(s: &Scenario) -> u64 {
    let hz = s.policy.tunables.get("hz").copied().or_else(|| {
        schedlab::find(&s.policy.id)?
            .tunables
            .iter()
            .find(|t| t.key == "hz")
            .map(|t| t.default)
    });
    match hz {
        Some(hz) if hz > 0 => 1_000_000_000 / hz as u64,
        _ => 0,
    }
}

/// The scenario's tasks one by one, a `count` split into its copies as the engine names them.
fn expanded(s: &Scenario) -> Vec<schedlab::engine::scenario::TaskSpec> {
    let mut out = Vec::new();
    for t in &s.tasks {
        match t.count {
            None => out.push(t.clone()),
            Some(n) => {
                for k in 1..=n {
                    let mut one = t.clone();
                    one.count = None;
                    one.name = format!("{}-{k}", t.name);
                    out.push(one);
                }
            }
        }
    }
    out
}

/// The start conditions of simulated run `k` of `s` (see the module's header).
pub fn start(s: &Scenario, k: u32) -> Start {
    let tick = tick_ns(s);
    let phase = ((van_der_corput(k) as u128 * tick as u128) >> 32) as u64;
    let mut order: Vec<String> = expanded(s).into_iter().map(|t| t.name).collect();
    if k > 0 {
        let mut state = s.seed ^ (k as u64).wrapping_mul(0xd1b5_4a32_d192_ed03);
        for i in (1..order.len()).rev() {
            let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
    }
    Start {
        index: k,
        phase_ns: phase,
        tick_ns: tick,
        order,
    }
}

/// `s` as simulated run `start` runs it: run 0 is `s` itself.
pub fn varied(s: &Scenario, start: &Start) -> Scenario {
    if start.index == 0 {
        return s.clone();
    }
    let mut v = s.clone();
    let tasks = expanded(s);
    v.tasks = start
        .order
        .iter()
        .filter_map(|name| tasks.iter().find(|t| &t.name == name).cloned())
        .map(|mut t| {
            t.arrival = schedlab::Nanos(t.arrival.0 + start.phase_ns);
            t
        })
        .collect();
    v.duration = schedlab::Nanos(s.duration.0 + start.phase_ns);
    v
}

/// Mean and range of one metric over the runs that have it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub min: u64,
    pub max: u64,
}

impl Spread {
    /// `None` for no values.
    pub fn of(values: &[u64]) -> Option<Spread> {
        let (&min, &max) = (values.iter().min()?, values.iter().max()?);
        let sum: u128 = values.iter().map(|&v| v as u128).sum();
        Some(Spread {
            mean: sum as f64 / values.len() as f64,
            min,
            max,
        })
    }

    /// Whether the two closed intervals [min, max] share a point.
    pub fn overlaps(&self, other: &Spread) -> bool {
        self.min <= other.max && other.min <= self.max
    }
}

/// (measured mean − simulated mean) / simulated mean; `None` when the simulated mean is 0.
pub fn error_of_means(simulated: &Spread, measured: &Spread) -> Option<f64> {
    (simulated.mean > 0.0).then(|| (measured.mean - simulated.mean) / simulated.mean)
}

/// One metric of one task over every run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub task: String,
    pub metric: &'static str,
    /// Run by run (`None` where a run lacks the metric, e.g. a latency without wake-ups).
    pub simulated_runs: Vec<Option<u64>>,
    pub measured_runs: Vec<Option<u64>>,
    pub simulated: Option<Spread>,
    pub measured: Option<Spread>,
    pub error_of_means: Option<f64>,
    /// Whether the simulated and measured min–max intervals overlap.
    pub overlap: Option<bool>,
}

/// Every (task, metric) of the runs' comparisons, in the first run's order (then any a later
/// run adds), with its values run by run and their spreads.
pub fn intervals(runs: &[Output]) -> Vec<Interval> {
    let mut keys: Vec<(String, &'static str)> = Vec::new();
    for o in runs {
        for r in &o.comparison {
            if !keys.iter().any(|(t, m)| *t == r.task && *m == r.metric) {
                keys.push((r.task.clone(), r.metric));
            }
        }
    }
    keys.into_iter()
        .map(|(task, metric)| {
            let rows: Vec<_> = runs
                .iter()
                .map(|o| {
                    o.comparison
                        .iter()
                        .find(|r| r.task == task && r.metric == metric)
                })
                .collect();
            let simulated_runs: Vec<Option<u64>> =
                rows.iter().map(|r| r.and_then(|r| r.simulated)).collect();
            let measured_runs: Vec<Option<u64>> =
                rows.iter().map(|r| r.and_then(|r| r.measured)).collect();
            let present = |v: &[Option<u64>]| v.iter().flatten().copied().collect::<Vec<u64>>();
            let simulated = Spread::of(&present(&simulated_runs));
            let measured = Spread::of(&present(&measured_runs));
            let (error_of_means, overlap) = match (&simulated, &measured) {
                (Some(s), Some(m)) => (error_of_means(s, m), Some(s.overlaps(m))),
                _ => (None, None),
            };
            Interval {
                task,
                metric,
                simulated_runs,
                measured_runs,
                simulated,
                measured,
                error_of_means,
                overlap,
            }
        })
        .collect()
}

/// One run of a repeated measurement.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    pub start: Start,
    /// The run: the scenario as simulated (varied), both results and their comparison.
    #[serde(flatten)]
    pub output: Output,
    /// Share of the CPUs other processes took in a measurement of this run that was dropped
    /// for taking more than the noise rule allows (the reality check measures it again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_noise: Option<f64>,
}

/// `measure --repeat N --json`: the runs and every metric compared as intervals.
#[derive(Clone, Debug, Serialize)]
pub struct Repeated {
    pub kernel: Kernel,
    /// The scenario as written (its policy the kernel's model); each run's own is in the run.
    pub scenario: Scenario,
    pub runs: Vec<Run>,
    pub intervals: Vec<Interval>,
}

impl Repeated {
    pub fn new(kernel: Kernel, scenario: Scenario, runs: Vec<Run>) -> Repeated {
        let outputs: Vec<Output> = runs.iter().map(|r| r.output.clone()).collect();
        Repeated {
            kernel,
            scenario,
            intervals: intervals(&outputs),
            runs,
        }
    }

    pub fn interval(&self, task: &str, metric: &str) -> Option<&Interval> {
        self.intervals
            .iter()
            .find(|i| i.task == task && i.metric == metric)
    }

    /// The runs' figures averaged, as one output (the first run's shape, task by task by
    /// name; a task's last CPU kept only where every run agrees), for sentences about "the
    /// model" and "the kernel" that hold on average.
    pub fn mean(&self) -> Output {
        let mut o = self.runs[0].output.clone();
        o.scenario = self.scenario.clone();
        let n = self.runs.len() as u128;
        let avg = |f: &dyn Fn(&Output) -> u64| -> u64 {
            (self.runs.iter().map(|r| f(&r.output) as u128).sum::<u128>() / n) as u64
        };
        for t in o.simulated.tasks.iter_mut() {
            let name = t.name.clone();
            let get = |o: &Output| o.simulated.tasks.iter().find(|x| x.name == name).cloned();
            let v = |f: fn(&schedlab::result::TaskResult) -> u64| {
                avg(&|o: &Output| get(o).map_or(0, |x| f(&x)))
            };
            t.cpu_ns = v(|x| x.cpu_ns);
            t.wait_ns = v(|x| x.wait_ns);
            t.switches = v(|x| x.switches);
            t.migrations = v(|x| x.migrations);
            t.wakeups = v(|x| x.wakeups);
            t.share_ppm = v(|x| x.share_ppm);
            t.wakeup_latency_mean_ns = v(|x| x.wakeup_latency_mean_ns);
            t.wakeup_latency_ns.p50 = v(|x| x.wakeup_latency_ns.p50);
            t.wakeup_latency_ns.p90 = v(|x| x.wakeup_latency_ns.p90);
            t.wakeup_latency_ns.p99 = v(|x| x.wakeup_latency_ns.p99);
            t.wakeup_latency_ns.max = v(|x| x.wakeup_latency_ns.max);
        }
        let first: Vec<String> = self.runs[0]
            .output
            .simulated
            .tasks
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let by_first = |name: &str| first.iter().position(|n| n == name).unwrap_or(usize::MAX);
        o.simulated.tasks.sort_by_key(|t| by_first(&t.name));
        for t in o.measured.tasks.iter_mut() {
            let name = t.name.clone();
            let get = |o: &Output| o.measured.tasks.iter().find(|x| x.name == name).cloned();
            let v = |f: fn(&super::report::MeasuredTask) -> u64| {
                avg(&|o: &Output| get(o).map_or(0, |x| f(&x)))
            };
            t.cpu_ns = v(|x| x.cpu_ns);
            t.wait_ns = v(|x| x.wait_ns);
            t.switches = v(|x| x.switches);
            t.wakeups = v(|x| x.wakeups);
            t.share_ppm = v(|x| x.share_ppm);
            t.messages_received = v(|x| x.messages_received);
            t.messages_sent = v(|x| x.messages_sent);
            t.wakeup_latency_mean_ns = v(|x| x.wakeup_latency_mean_ns);
            t.wakeup_latency_ns.p50 = v(|x| x.wakeup_latency_ns.p50);
            t.wakeup_latency_ns.p90 = v(|x| x.wakeup_latency_ns.p90);
            t.wakeup_latency_ns.p99 = v(|x| x.wakeup_latency_ns.p99);
            t.wakeup_latency_ns.max = v(|x| x.wakeup_latency_ns.max);
            let all = self.runs.iter().map(|r| get(&r.output)).collect::<Option<Vec<_>>>();
            t.migrations = all
                .as_ref()
                .and_then(|a| a.iter().map(|x| x.migrations).sum::<Option<u64>>())
                .map(|s| (s as u128 / n) as u64);
            t.last_cpu = all.and_then(|a| {
                let c = a.first()?.last_cpu;
                a.iter().all(|x| x.last_cpu == c).then_some(c).flatten()
            });
        }
        let s = &mut o.measured.summary;
        s.cpu_ns = avg(&|o: &Output| o.measured.summary.cpu_ns);
        s.end_ns = avg(&|o: &Output| o.measured.summary.end_ns);
        s.context_switches = avg(&|o: &Output| o.measured.summary.context_switches);
        let all_known = |f: fn(&Output) -> Option<u64>| {
            self.runs
                .iter()
                .map(|r| f(&r.output))
                .sum::<Option<u64>>()
                .map(|t| (t as u128 / n) as u64)
        };
        s.other_cpu_ns = all_known(|o| o.measured.summary.other_cpu_ns);
        s.steal_ns = all_known(|o| o.measured.summary.steal_ns);
        o.comparison = Vec::new();
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn van_der_corput_halves_then_quarters_then_eighths() {
        let f = |k| van_der_corput(k) as f64 / 4_294_967_296.0;
        let got: Vec<f64> = (0..8).map(f).collect();
        assert_eq!(got, [0.0, 0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875]);
    }

    #[test]
    fn spreads_means_overlap_and_the_error_of_means_by_hand() {
        // 3.0, 3.3, 3.6 s: mean 3.3 s.
        let sim = Spread::of(&[3_000, 3_300, 3_600]).unwrap();
        assert_eq!((sim.min, sim.max), (3_000, 3_600));
        assert!((sim.mean - 3_300.0).abs() < 1e-9);
        // 3.5, 3.7 s: mean 3.6 s, interval [3.5, 3.7] overlaps [3.0, 3.6].
        let real = Spread::of(&[3_700, 3_500]).unwrap();
        assert!((real.mean - 3_600.0).abs() < 1e-9);
        assert!(sim.overlaps(&real) && real.overlaps(&sim));
        // (3.6 − 3.3) / 3.3 = +9.09 %.
        let e = error_of_means(&sim, &real).unwrap();
        assert!((e - 0.3 / 3.3).abs() < 1e-12, "{e}");
        // Touching ends overlap; a gap does not.
        let touching = Spread::of(&[3_600, 3_650]).unwrap();
        assert!(sim.overlaps(&touching));
        let apart = Spread::of(&[3_601, 3_650]).unwrap();
        assert!(!sim.overlaps(&apart) && !apart.overlaps(&sim));
        // A single value is its own mean and range; no values, no spread.
        assert_eq!(
            Spread::of(&[7]),
            Some(Spread {
                mean: 7.0,
                min: 7,
                max: 7
            })
        );
        assert_eq!(Spread::of(&[]), None);
        let zero = Spread::of(&[0, 0]).unwrap();
        assert_eq!(error_of_means(&zero, &real), None);
        // Means of large values do not overflow: two of u64::MAX / 2.
        let big = Spread::of(&[u64::MAX / 2, u64::MAX / 2]).unwrap();
        assert!((big.mean - (u64::MAX / 2) as f64).abs() < 1e6);
    }

    fn scenario() -> Scenario {
        serde_json::from_str(
            r#"{"version":1,"cpus":2,"duration":"5s","seed":7,
                "policy":{"id":"eevdf","tunables":{"hz":250}},
                "tasks":[{"name":"a","program":[{"run":"60s"}]},
                         {"name":"b","count":2,"arrival":"1ms","program":[{"run":"60s"}]},
                         {"name":"c","program":[{"run":"60s"}]}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn start_conditions_are_deterministic_per_run_and_run_0_is_the_scenario() {
        let s = scenario();
        assert_eq!(tick_ns(&s), 4_000_000);
        let zero = start(&s, 0);
        assert_eq!(zero.phase_ns, 0);
        assert_eq!(zero.order, ["a", "b-1", "b-2", "c"]);
        assert_eq!(varied(&s, &zero), s);
        // Phases: 1/2, 1/4, 3/4 of the 4 ms tick.
        let phases: Vec<u64> = (1..4).map(|k| start(&s, k).phase_ns).collect();
        assert_eq!(phases, [2_000_000, 1_000_000, 3_000_000]);
        // The same run index gives the same start; orders are permutations and they differ.
        let mut orders = std::collections::BTreeSet::new();
        for k in 0..8 {
            let st = start(&s, k);
            assert_eq!(st, start(&s, k));
            let mut sorted = st.order.clone();
            sorted.sort();
            assert_eq!(sorted, ["a", "b-1", "b-2", "c"]);
            orders.insert(st.order);
        }
        assert!(orders.len() > 3, "{orders:?}");
        // Another seed, other orders for the same indices.
        let mut other = s.clone();
        other.seed = 8;
        assert!((1..8).any(|k| start(&other, k).order != start(&s, k).order));
        // Run 3: every task 3 ms later, in its order, `count` split as the engine names it;
        // the run lasts 3 ms longer.
        let st = start(&s, 3);
        let v = varied(&s, &st);
        assert_eq!(v.duration, schedlab::Nanos(5_003_000_000));
        let names: Vec<&str> = v.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, st.order);
        for t in &v.tasks {
            assert_eq!(t.count, None);
            let written = if t.name.starts_with('b') { 1_000_000 } else { 0 };
            assert_eq!(t.arrival.0, written + 3_000_000, "{}", t.name);
        }
        // The simulation of a varied run names its tasks as the scenario's.
        let r = schedlab::run_result(&v, schedlab::RunOptions::default()).unwrap();
        let mut got: Vec<String> = r.tasks.iter().map(|t| t.name.clone()).collect();
        got.sort();
        assert_eq!(got, ["a", "b-1", "b-2", "c"]);
    }
}
