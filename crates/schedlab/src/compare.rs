//! A/B comparison of two runs: what differs between their scenarios, and their metrics side by
//! side with deltas. The page's compare panel renders exactly this.
//!
//! ```text
//! scenario A, scenario B ──► differences() ──► "policy x → y, prio_bonus_ratio 25 → 0"
//! result A,   result B   ──► summary()     ──► makespan, switches, migrations, fairness, latency
//!                        ──► tasks()       ──► rows matched by name: A, B, Δ = B − A
//! ```
//!
//! Deltas of integer metrics are integers (`i64`, saturating); percentages are only formatted
//! for display, in whole tenths, from integers.

use std::collections::BTreeMap;

use schedlab_engine::{sort, Scenario};

use crate::result::{RunResult, TaskResult};
use crate::view::format_ns_4;

/// What [`line`] says when the two scenarios are the same.
pub const NO_DIFFERENCE: &str = "no difference yet: change a slider or the policy";

/// One thing that differs between scenario A and scenario B: `what a → b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub what: String,
    pub a: String,
    pub b: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.a.is_empty() && self.b.is_empty() {
            f.write_str(&self.what)
        } else {
            write!(f, "{} {} → {}", self.what, self.a, self.b)
        }
    }
}

/// Each tunable's value as the policy runs it: the declared default unless the scenario sets it.
fn effective_tunables(s: &Scenario) -> BTreeMap<String, i64> {
    // Built by insertion, not collected (see schedlab_engine::sort).
    let mut out = BTreeMap::new();
    let defaults = schedlab_policies::find(&s.policy.id).map_or(&[][..], |p| p.tunables);
    for t in defaults {
        out.insert(t.key.to_owned(), t.default);
    }
    for (k, v) in &s.policy.tunables {
        out.insert(k.clone(), *v);
    }
    out
}

/// What differs between scenario `a` and scenario `b`, in a fixed order: policy, tunables (in
/// key order; only keys both policies have), CPUs, seed, duration, then the workload (tasks
/// added, removed or changed, by name; programs, disks, channels, costs).
pub fn differences(a: &Scenario, b: &Scenario) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut push = |what: &str, x: String, y: String| {
        out.push(Difference {
            what: what.to_owned(),
            a: x,
            b: y,
        })
    };
    if a.policy.id != b.policy.id {
        push("policy", a.policy.id.clone(), b.policy.id.clone());
    }
    let (ta, tb) = (effective_tunables(a), effective_tunables(b));
    for (key, va) in &ta {
        if let Some(vb) = tb.get(key) {
            if va != vb {
                push(key, va.to_string(), vb.to_string());
            }
        }
    }
    if a.cpus != b.cpus {
        push("CPUs", a.cpus.to_string(), b.cpus.to_string());
    }
    if a.seed != b.seed {
        push("seed", a.seed.to_string(), b.seed.to_string());
    }
    if a.duration != b.duration {
        push(
            "duration",
            format_ns_4(a.duration.0),
            format_ns_4(b.duration.0),
        );
    }
    let names = |s: &Scenario| -> Vec<String> { s.tasks.iter().map(|t| t.name.clone()).collect() };
    let (na, nb) = (names(a), names(b));
    let added: Vec<&String> = nb.iter().filter(|n| !na.contains(n)).collect();
    let removed: Vec<&String> = na.iter().filter(|n| !nb.contains(n)).collect();
    let changed: Vec<&String> = na
        .iter()
        .filter(|n| {
            let find = |s: &Scenario| {
                s.tasks
                    .iter()
                    .filter(|t| &t.name == *n)
                    .cloned()
                    .collect::<Vec<_>>()
            };
            nb.contains(n) && find(a) != find(b)
        })
        .fold(Vec::new(), |mut v, n| {
            if !v.contains(&n) {
                v.push(n);
            }
            v
        });
    let mut note = |label: &str, list: &[&String]| {
        if !list.is_empty() {
            let names: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
            out.push(Difference {
                what: format!("{label} {}", names.join(", ")),
                a: String::new(),
                b: String::new(),
            });
        }
    };
    note("tasks added:", &added);
    note("tasks removed:", &removed);
    note("tasks changed:", &changed);
    if added.is_empty() && removed.is_empty() && changed.is_empty() && a.tasks != b.tasks {
        out.push(plain("task order"));
    }
    if a.programs != b.programs {
        out.push(plain("programs"));
    }
    if a.disks != b.disks {
        out.push(plain("disks"));
    }
    if a.channels != b.channels {
        out.push(plain("channels"));
    }
    if a.costs != b.costs {
        out.push(plain("costs"));
    }
    out
}

fn plain(what: &str) -> Difference {
    Difference {
        what: what.to_owned(),
        a: String::new(),
        b: String::new(),
    }
}

/// The differences as one line, or [`NO_DIFFERENCE`].
pub fn line(differences: &[Difference]) -> String {
    if differences.is_empty() {
        return NO_DIFFERENCE.to_owned();
    }
    differences
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A and B run the same workload: the same tasks, programs, disks, channels and costs (the
/// policy, its tunables, CPUs, seed and duration may differ).
pub fn same_workload(a: &Scenario, b: &Scenario) -> bool {
    a.tasks == b.tasks
        && a.programs == b.programs
        && a.disks == b.disks
        && a.channels == b.channels
        && a.costs == b.costs
}

/// `b − a` as a signed integer, saturating at `i64`'s range.
pub fn delta(a: u64, b: u64) -> i64 {
    let d = b as i128 - a as i128;
    d.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// Which way a metric is better, where that is unambiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    Lower,
    /// No direction: a delta is neither good nor bad (more switches may buy lower latency).
    Neither,
}

/// How a delta reads for a metric: better, worse, unchanged, or not judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Better,
    Worse,
    Same,
    Neutral,
}

impl Verdict {
    /// The verdict on `delta` (B − A) for a metric where `better` holds.
    pub fn of(delta: i64, better: Better) -> Verdict {
        match (delta.signum(), better) {
            (0, _) => Verdict::Same,
            (_, Better::Neither) => Verdict::Neutral,
            (-1, Better::Lower) => Verdict::Better,
            _ => Verdict::Worse,
        }
    }

    /// A CSS class name for it.
    pub fn class(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Same => "same",
            Verdict::Neutral => "neutral",
        }
    }
}

/// How a metric's values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds, written like the stats table (`25.71 ms`).
    Ns,
    Count,
}

impl Unit {
    pub fn format(self, v: u64) -> String {
        match self {
            Unit::Ns => format_ns_4(v),
            Unit::Count => v.to_string(),
        }
    }

    /// A signed delta: `+1.500 ms`, `−3`, `0`.
    pub fn format_delta(self, d: i64) -> String {
        if d == 0 {
            return "0".to_owned();
        }
        let sign = if d > 0 { "+" } else { "−" };
        format!("{sign}{}", self.format(d.unsigned_abs()))
    }
}

/// `delta` as a percentage of `base`, to one decimal (`+12.5 %`, `−100.0 %`); `None` when the
/// base is zero. Integer arithmetic, rounded half away from zero.
pub fn percent(delta: i64, base: u64) -> Option<String> {
    if base == 0 {
        return None;
    }
    let num = delta as i128 * 1000;
    let base = base as i128;
    let tenths = (num.abs() * 2 + base) / (2 * base);
    let sign = if tenths == 0 {
        ""
    } else if delta > 0 {
        "+"
    } else {
        "−"
    };
    Some(format!("{sign}{}.{} %", tenths / 10, tenths % 10))
}

/// One integer line of the summary table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryRow {
    /// A stable key (`makespan`, `context_switches`, ...), for test hooks.
    pub key: &'static str,
    pub label: &'static str,
    pub unit: Unit,
    pub better: Better,
    pub a: u64,
    pub b: u64,
}

impl SummaryRow {
    pub fn delta(&self) -> i64 {
        delta(self.a, self.b)
    }
    pub fn verdict(&self) -> Verdict {
        Verdict::of(self.delta(), self.better)
    }
}

/// The summary side by side: the integer metrics, then Jain's fairness index (a ratio, shown
/// with its difference only).
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryCompare {
    pub rows: Vec<SummaryRow>,
    pub fairness: (f64, f64),
}

/// The mean wake-up latency over every wake-up of the run: the tasks' means weighted by their
/// wake-up counts (each task's mean is rounded down, so this is within 1 ns of the exact mean);
/// 0 without wake-ups.
pub fn mean_wakeup_latency(r: &RunResult) -> u64 {
    let (sum, n) = r.tasks.iter().fold((0u128, 0u128), |(s, n), t| {
        (
            s + t.wakeup_latency_mean_ns as u128 * t.wakeups as u128,
            n + t.wakeups as u128,
        )
    });
    sum.checked_div(n).map_or(0, |m| m as u64)
}

/// The runs' summaries side by side.
pub fn summary(a: &RunResult, b: &RunResult) -> SummaryCompare {
    let row = |key, label, unit, better, f: &dyn Fn(&RunResult) -> u64| SummaryRow {
        key,
        label,
        unit,
        better,
        a: f(a),
        b: f(b),
    };
    SummaryCompare {
        rows: vec![
            row("makespan", "Makespan", Unit::Ns, Better::Neither, &|r| {
                r.summary.makespan_ns
            }),
            row(
                "context_switches",
                "Context switches",
                Unit::Count,
                Better::Neither,
                &|r| r.summary.context_switches,
            ),
            row(
                "migrations",
                "Migrations",
                Unit::Count,
                Better::Neither,
                &|r| r.summary.migrations,
            ),
            row(
                "wakeup_mean",
                "Mean wake-up latency",
                Unit::Ns,
                Better::Lower,
                &mean_wakeup_latency,
            ),
        ],
        fairness: (a.summary.jain_fairness, b.summary.jain_fairness),
    }
}

/// A per-task column of the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TaskColumn {
    Cpu,
    Wait,
    P99,
    Turnaround,
}

impl TaskColumn {
    pub const ALL: [TaskColumn; 4] = [
        TaskColumn::Cpu,
        TaskColumn::Wait,
        TaskColumn::P99,
        TaskColumn::Turnaround,
    ];

    /// A stable key for test hooks: `cpu`, `wait`, `p99`, `turnaround` (as the stats table's).
    pub fn key(self) -> &'static str {
        match self {
            TaskColumn::Cpu => "cpu",
            TaskColumn::Wait => "wait",
            TaskColumn::P99 => "p99",
            TaskColumn::Turnaround => "turnaround",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            TaskColumn::Cpu => "CPU time",
            TaskColumn::Wait => "Wait",
            TaskColumn::P99 => "Wake p99",
            TaskColumn::Turnaround => "Turnaround",
        }
    }

    /// Lower wake-up latency is better; the rest trade off against other tasks.
    pub fn better(self) -> Better {
        match self {
            TaskColumn::P99 => Better::Lower,
            _ => Better::Neither,
        }
    }

    /// The task's value in this column (`None`: turnaround of a task that never exited).
    pub fn value(self, t: &TaskResult) -> Option<u64> {
        match self {
            TaskColumn::Cpu => Some(t.cpu_ns),
            TaskColumn::Wait => Some(t.wait_ns),
            TaskColumn::P99 => Some(t.wakeup_latency_ns.p99),
            TaskColumn::Turnaround => t.turnaround_ns,
        }
    }
}

/// One task of the comparison: its result in A and in B (`None` where it is not in that run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRow {
    /// The name, with `#2`, `#3`, ... for later tasks of the same name.
    pub label: String,
    pub a: Option<TaskResult>,
    pub b: Option<TaskResult>,
}

impl TaskRow {
    pub fn value_a(&self, c: TaskColumn) -> Option<u64> {
        self.a.as_ref().and_then(|t| c.value(t))
    }
    pub fn value_b(&self, c: TaskColumn) -> Option<u64> {
        self.b.as_ref().and_then(|t| c.value(t))
    }
    /// B − A in column `c`, when both runs have a value.
    pub fn delta(&self, c: TaskColumn) -> Option<i64> {
        Some(delta(self.value_a(c)?, self.value_b(c)?))
    }
}

/// The runs' tasks matched by name: the n-th task of a name in A (in task-id order) with the
/// n-th of that name in B. Rows follow A's order, then the tasks only B has, in B's order.
pub fn tasks(a: &RunResult, b: &RunResult) -> Vec<TaskRow> {
    // (name, occurrence) → index into the run's tasks sorted by id.
    fn keyed(r: &RunResult) -> Vec<((String, usize), &TaskResult)> {
        let mut sorted: Vec<&TaskResult> = r.tasks.iter().collect();
        sort::sort_by_key(&mut sorted, |t| t.id);
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        sorted
            .into_iter()
            .map(|t| {
                let n = seen.entry(t.name.as_str()).or_insert(0);
                *n += 1;
                ((t.name.clone(), *n), t)
            })
            .collect()
    }
    let (ka, kb) = (keyed(a), keyed(b));
    // Built by insertion, not collected (see schedlab_engine::sort); a task of B is marked
    // when matched rather than removed (a map's removal would be code of its own in the page).
    let mut in_b: BTreeMap<(String, usize), (&TaskResult, bool)> = BTreeMap::new();
    in_b.extend(kb.iter().map(|(k, t)| (k.clone(), (*t, false))));
    let label = |(name, n): &(String, usize)| {
        if *n == 1 {
            name.clone()
        } else {
            format!("{name} #{n}")
        }
    };
    let mut rows: Vec<TaskRow> = ka
        .iter()
        .map(|(k, t)| TaskRow {
            label: label(k),
            a: Some((*t).clone()),
            b: in_b.get_mut(k).map(|(t, matched)| {
                *matched = true;
                (*t).clone()
            }),
        })
        .collect();
    for (k, t) in &kb {
        if in_b.get(k).is_some_and(|&(_, matched)| !matched) {
            rows.push(TaskRow {
                label: label(k),
                a: None,
                b: Some((*t).clone()),
            });
        }
    }
    rows
}

/// Sorts `rows` by the size of their delta in column `c`, largest first; rows without one
/// (a task in only one run, a turnaround missing) go last. Stable: equal sizes keep their order.
pub fn sort_by_delta(rows: &mut [TaskRow], c: TaskColumn) {
    sort::sort_by_key(rows, |r| {
        std::cmp::Reverse(r.delta(c).map(i64::unsigned_abs))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Latency, Summary};
    use schedlab_engine::scenario::{PolicySpec, TaskSpec};
    use schedlab_engine::{program::Program, Nanos};

    fn scenario(policy: &str, tunables: &[(&str, i64)], tasks: &[&str]) -> Scenario {
        Scenario {
            version: 1,
            name: String::new(),
            description: String::new(),
            cpus: 1,
            duration: Nanos::from_secs(5),
            seed: 1,
            policy: PolicySpec {
                id: policy.to_owned(),
                tunables: tunables
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), *v))
                    .collect(),
            },
            tasks: tasks
                .iter()
                .map(|n| TaskSpec {
                    name: (*n).to_owned(),
                    nice: 0,
                    arrival: Nanos::ZERO,
                    shares: None,
                    cpu_rate_cap: None,
                    slice: None,
                    cpus: None,
                    group: None,
                    rt: None,
                    count: None,
                    program: Program(Vec::new()),
                })
                .collect(),
            programs: BTreeMap::new(),
            disks: Vec::new(),
            channels: Vec::new(),
            costs: Default::default(),
            machine: None,
            groups: Vec::new(),
        }
    }

    const O1: &str = "linux-2.5-o1";

    #[test]
    fn a_tunable_against_its_default() {
        let a = scenario(O1, &[], &["probe", "hog"]);
        let b = scenario(O1, &[("prio_bonus_ratio", 0)], &["probe", "hog"]);
        let d = differences(&a, &b);
        assert_eq!(line(&d), "prio_bonus_ratio 25 → 0");
        assert!(same_workload(&a, &b));
        // Setting a tunable to its default is no difference.
        let c = scenario(O1, &[("prio_bonus_ratio", 25)], &["probe", "hog"]);
        assert_eq!(line(&differences(&a, &c)), NO_DIFFERENCE);
        assert_eq!(line(&differences(&a, &a)), NO_DIFFERENCE);
    }

    #[test]
    fn policy_machine_seed_and_tasks() {
        let a = scenario(O1, &[], &["probe", "hog", "editor"]);
        let mut b = scenario("fifo", &[], &["probe", "hog", "make"]);
        b.cpus = 2;
        b.seed = 7;
        b.tasks[1].nice = 5;
        let d = differences(&a, &b);
        assert_eq!(
            line(&d),
            "policy linux-2.5-o1 → fifo, CPUs 1 → 2, seed 1 → 7, tasks added: make, \
             tasks removed: editor, tasks changed: hog"
        );
        assert!(!same_workload(&a, &b));
        let mut c = a.clone();
        c.tasks.swap(0, 1);
        assert_eq!(line(&differences(&a, &c)), "task order");
    }

    #[test]
    fn deltas_and_percentages() {
        assert_eq!(delta(10, 3), -7);
        assert_eq!(delta(3, 10), 7);
        assert_eq!(delta(0, u64::MAX), i64::MAX);
        assert_eq!(delta(u64::MAX, 0), i64::MIN);
        assert_eq!(percent(-7, 10).as_deref(), Some("−70.0 %"));
        assert_eq!(percent(1, 8).as_deref(), Some("+12.5 %"));
        // 1/3 = 33.33 %, 2/3 = 66.67 % → 66.7 %.
        assert_eq!(percent(1, 3).as_deref(), Some("+33.3 %"));
        assert_eq!(percent(-2, 3).as_deref(), Some("−66.7 %"));
        assert_eq!(percent(0, 3).as_deref(), Some("0.0 %"));
        assert_eq!(percent(5, 0), None);
        assert_eq!(Unit::Ns.format_delta(-1_500_000), "−1.500 ms");
        assert_eq!(Unit::Ns.format_delta(25_710_000), "+25.71 ms");
        assert_eq!(Unit::Count.format_delta(3), "+3");
        assert_eq!(Unit::Count.format_delta(0), "0");
        assert_eq!(Verdict::of(-1, Better::Lower), Verdict::Better);
        assert_eq!(Verdict::of(1, Better::Lower), Verdict::Worse);
        assert_eq!(Verdict::of(1, Better::Neither), Verdict::Neutral);
        assert_eq!(Verdict::of(0, Better::Neither), Verdict::Same);
    }

    fn task(id: u32, name: &str, cpu: u64, p99: u64, turnaround: Option<u64>) -> TaskResult {
        TaskResult {
            name: name.to_owned(),
            cpu_ns: cpu,
            wait_ns: cpu / 2,
            response_ns: None,
            turnaround_ns: turnaround,
            switches: 1,
            wakeup_latency_ns: Latency {
                p50: p99 / 2,
                p90: p99,
                p99,
                max: p99,
            },
            id,
            nice: 0,
            arrival_ns: 0,
            migrations: 0,
            wakeups: 0,
            wakeup_latency_mean_ns: 0,
            share_ppm: 0,
            entitlement_ppm: 0,
        }
    }

    fn result(tasks: Vec<TaskResult>) -> RunResult {
        RunResult {
            trace_hash: "0".repeat(16),
            policy: O1.to_owned(),
            tunables: Vec::new(),
            seed: 1,
            cpus: 1,
            summary: Summary {
                makespan_ns: 1_000,
                context_switches: 10,
                cpu_busy_ns: vec![],
                end_ns: 1_000,
                migrations: 0,
                utilisation_ppm: vec![],
                jain_fairness: 1.0,
            },
            tasks,
            segments: Vec::new(),
            machine: None,
        }
    }

    #[test]
    fn tasks_match_by_name_and_occurrence() {
        let a = result(vec![
            task(0, "probe", 100, 2_000_000, Some(900)),
            task(1, "cc", 50, 0, Some(60)),
            task(2, "cc", 70, 0, None),
            task(3, "old", 5, 0, None),
        ]);
        let b = result(vec![
            task(0, "probe", 130, 500_000, Some(800)),
            task(1, "cc", 40, 0, Some(65)),
            task(2, "new", 9, 0, None),
        ]);
        let rows = tasks(&a, &b);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["probe", "cc", "cc #2", "old", "new"]);
        let probe = &rows[0];
        assert_eq!(probe.delta(TaskColumn::Cpu), Some(30));
        assert_eq!(probe.delta(TaskColumn::Wait), Some(15));
        assert_eq!(probe.delta(TaskColumn::P99), Some(-1_500_000));
        assert_eq!(probe.delta(TaskColumn::Turnaround), Some(-100));
        assert_eq!(rows[1].delta(TaskColumn::Cpu), Some(-10));
        assert_eq!(rows[1].delta(TaskColumn::Turnaround), Some(5));
        // Only in A, only in B; a task that never exited has no turnaround delta.
        assert!(rows[2].b.is_none() && rows[2].delta(TaskColumn::Cpu).is_none());
        assert!(rows[3].b.is_none());
        assert!(rows[4].a.is_none() && rows[4].value_b(TaskColumn::Cpu) == Some(9));
        let mut c = b.clone();
        c.tasks[0].turnaround_ns = None;
        assert_eq!(tasks(&a, &c)[0].delta(TaskColumn::Turnaround), None);
    }

    #[test]
    fn rows_sort_by_the_size_of_a_delta() {
        let a = result(vec![
            task(0, "x", 100, 10, Some(1_000)),
            task(1, "y", 100, 10, None),
            task(2, "z", 100, 10, Some(1_000)),
            task(3, "gone", 100, 10, None),
        ]);
        let b = result(vec![
            task(0, "x", 105, 40, Some(900)),
            task(1, "y", 80, 10, Some(500)),
            task(2, "z", 150, 0, Some(1_050)),
        ]);
        let order = |c: TaskColumn| {
            let mut rows = tasks(&a, &b);
            sort_by_delta(&mut rows, c);
            rows.into_iter().map(|r| r.label).collect::<Vec<_>>()
        };
        // CPU: z +50, y −20, x +5; "gone" has no B.
        assert_eq!(order(TaskColumn::Cpu), ["z", "y", "x", "gone"]);
        // p99: x +30, z −10, y 0.
        assert_eq!(order(TaskColumn::P99), ["x", "z", "y", "gone"]);
        // Turnaround: x −100, z +50; y never exited in A.
        assert_eq!(order(TaskColumn::Turnaround), ["x", "z", "y", "gone"]);
    }

    #[test]
    fn summary_side_by_side() {
        let mut a = result(vec![
            task(0, "probe", 1, 1, None),
            task(1, "hog", 1, 1, None),
        ]);
        // probe: 3 wake-ups at a mean of 10; hog: 1 at 50 → (30 + 50) / 4 = 20.
        a.tasks[0].wakeups = 3;
        a.tasks[0].wakeup_latency_mean_ns = 10;
        a.tasks[1].wakeups = 1;
        a.tasks[1].wakeup_latency_mean_ns = 50;
        let mut b = a.clone();
        b.tasks[1].wakeup_latency_mean_ns = 10;
        b.summary.context_switches = 14;
        b.summary.jain_fairness = 0.5;
        assert_eq!(mean_wakeup_latency(&a), 20);
        assert_eq!(mean_wakeup_latency(&b), 10);
        assert_eq!(mean_wakeup_latency(&result(vec![])), 0);
        let s = summary(&a, &b);
        let by = |k: &str| s.rows.iter().find(|r| r.key == k).cloned().unwrap();
        assert_eq!(by("wakeup_mean").delta(), -10);
        assert_eq!(by("wakeup_mean").verdict(), Verdict::Better);
        assert_eq!(by("context_switches").delta(), 4);
        assert_eq!(by("context_switches").verdict(), Verdict::Neutral);
        assert_eq!(by("makespan").verdict(), Verdict::Same);
        assert_eq!(s.fairness, (1.0, 0.5));
    }
}
