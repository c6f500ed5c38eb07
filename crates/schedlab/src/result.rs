//! The JSON result of a run: what `schedlab run --json` prints and scripts parse.
//!
//! The core fields are a contract (DESIGN §7) pinned by `tests/it/result_contract.rs`:
//! `trace_hash` (16 hex digits), `policy`, `summary{makespan_ns, context_switches,
//! cpu_busy_ns[]}`, `tasks[{name, cpu_ns, wait_ns, response_ns, turnaround_ns (absent if the task
//! never exited), switches, wakeup_latency_ns{p50, p90, p99, max}}]` and `segments[{cpu, task,
//! start_ns, end_ns}]`. Everything else here is an extension: new fields may be added, none of
//! the core may be renamed, retyped or removed.

use serde::{Deserialize, Serialize};

use schedlab_engine::{hash_hex, Percentiles, RunOutput, Scenario};

/// One run, ready to serialize. Built from a [`RunOutput`] with [`RunResult::new`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The trace hash as 16 lower-case hex digits, as the CLI and the page show it.
    pub trace_hash: String,
    /// The policy id.
    pub policy: String,
    /// Extension: the tunables the run used, every declared key (defaults included).
    pub tunables: Vec<TunableValue>,
    /// Extension: the scenario's seed and CPU count.
    pub seed: u64,
    pub cpus: u32,
    pub summary: Summary,
    pub tasks: Vec<TaskResult>,
    /// Maximal intervals a task ran on one CPU, per CPU in time order (empty when the run
    /// recorded only a summary).
    pub segments: Vec<SegmentResult>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TunableValue {
    pub key: String,
    pub value: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// When the last task exited, or the end of the run if some task never exited.
    pub makespan_ns: u64,
    pub context_switches: u64,
    /// Busy time per CPU.
    pub cpu_busy_ns: Vec<u64>,
    /// Extension: simulated time at which the run ended.
    pub end_ns: u64,
    pub migrations: u64,
    /// Busy time over run time per CPU, in parts per million.
    pub utilisation_ppm: Vec<u64>,
    /// Jain's fairness index over CPU time per unit of entitlement (1 = perfectly fair).
    pub jain_fairness: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskResult {
    pub name: String,
    pub cpu_ns: u64,
    /// Time runnable but not running.
    pub wait_ns: u64,
    /// First run − arrival; absent if the task never ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_ns: Option<u64>,
    /// Exit − arrival; absent if the task never exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turnaround_ns: Option<u64>,
    pub switches: u64,
    pub wakeup_latency_ns: Latency,
    /// Extensions.
    pub id: u32,
    pub nice: i32,
    pub arrival_ns: u64,
    pub migrations: u64,
    pub wakeups: u64,
    pub wakeup_latency_mean_ns: u64,
    /// Share of all CPU time used, in parts per million.
    pub share_ppm: u64,
    /// Entitled share (shares, or nice weights), in parts per million.
    pub entitlement_ppm: u64,
}

/// Nearest-rank percentiles of a task's wake-up latencies (all zero without wake-ups).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latency {
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
}

impl From<Percentiles> for Latency {
    fn from(p: Percentiles) -> Latency {
        Latency {
            p50: p.p50,
            p90: p.p90,
            p99: p.p99,
            max: p.max,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentResult {
    pub cpu: u16,
    /// The task's name.
    pub task: String,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Extension: the task's id (creation order), as in `tasks[].id`.
    pub task_id: u32,
}

impl RunResult {
    /// The result of `out`, a run of `scenario`. The tunables listed are the scenario's over
    /// the policy's declared defaults.
    pub fn new(scenario: &Scenario, out: &RunOutput) -> RunResult {
        let m = &out.metrics;
        let name_of = |id: u32| -> String {
            out.tasks
                .get(id as usize)
                .map(|t| t.name.clone())
                .unwrap_or_else(|| format!("task{id}"))
        };
        let tunables = match schedlab_policies::find(&scenario.policy.id) {
            Some(info) => info
                .tunables
                .iter()
                .map(|spec| TunableValue {
                    key: spec.key.to_string(),
                    value: scenario
                        .policy
                        .tunables
                        .get(spec.key)
                        .copied()
                        .unwrap_or(spec.default),
                })
                .collect(),
            None => Vec::new(),
        };
        RunResult {
            trace_hash: hash_hex(out.hash),
            policy: scenario.policy.id.clone(),
            tunables,
            seed: scenario.seed,
            cpus: scenario.cpus,
            summary: Summary {
                makespan_ns: m.run.makespan_ns,
                context_switches: m.run.context_switches,
                cpu_busy_ns: m.run.cpu_busy_ns.clone(),
                end_ns: m.run.end_ns,
                migrations: m.run.migrations,
                utilisation_ppm: m.run.utilisation_ppm.clone(),
                jain_fairness: m.run.jain_fairness,
            },
            tasks: m
                .tasks
                .iter()
                .map(|t| TaskResult {
                    name: t.name.clone(),
                    cpu_ns: t.cpu_ns,
                    wait_ns: t.wait_ns,
                    response_ns: t.response_ns,
                    turnaround_ns: t.turnaround_ns,
                    switches: t.switches,
                    wakeup_latency_ns: t.wakeup_latency_ns.into(),
                    id: t.id,
                    nice: t.nice,
                    arrival_ns: t.arrival_ns,
                    migrations: t.migrations,
                    wakeups: t.wakeups,
                    wakeup_latency_mean_ns: t.wakeup_latency_mean_ns,
                    share_ppm: t.share_ppm,
                    entitlement_ppm: t.entitlement_ppm,
                })
                .collect(),
            segments: out
                .trace
                .segments()
                .map(|(cpu, s)| SegmentResult {
                    cpu: cpu.0,
                    task: name_of(s.task.0),
                    start_ns: s.start.0,
                    end_ns: s.end.0,
                    task_id: s.task.0,
                })
                .collect(),
        }
    }

    /// Pretty JSON, as `schedlab run --json` prints it.
    pub fn to_json_pretty(&self) -> String {
        // Plain data with string keys and finite numbers: serialization cannot fail, except
        // for a NaN fairness index, which serde_json writes as null.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Per-task metrics as CSV (a header line, then one line per task, times in ns), as
    /// `schedlab run --csv` writes it and the page's CSV export downloads it.
    pub fn tasks_csv(&self) -> String {
        let mut out = String::from(
            "id,name,nice,arrival_ns,cpu_ns,share_ppm,entitlement_ppm,wait_ns,response_ns,\
             turnaround_ns,switches,migrations,wakeups,wakeup_latency_p50_ns,\
             wakeup_latency_p90_ns,wakeup_latency_p99_ns,wakeup_latency_max_ns,\
             wakeup_latency_mean_ns\n",
        );
        let opt = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
        for t in &self.tasks {
            let l = t.wakeup_latency_ns;
            let fields = [
                t.id.to_string(),
                csv_field(&t.name),
                t.nice.to_string(),
                t.arrival_ns.to_string(),
                t.cpu_ns.to_string(),
                t.share_ppm.to_string(),
                t.entitlement_ppm.to_string(),
                t.wait_ns.to_string(),
                opt(t.response_ns),
                opt(t.turnaround_ns),
                t.switches.to_string(),
                t.migrations.to_string(),
                t.wakeups.to_string(),
                l.p50.to_string(),
                l.p90.to_string(),
                l.p99.to_string(),
                l.max.to_string(),
                t.wakeup_latency_mean_ns.to_string(),
            ];
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }
}

/// RFC 4180 quoting: fields with a comma, quote or line break are quoted, quotes doubled.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_only_what_needs_it() {
        assert_eq!(csv_field("editor"), "editor");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
