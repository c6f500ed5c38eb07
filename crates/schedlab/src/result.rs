//! The JSON result of a run: what `schedlab run --json` prints and scripts parse.
//!
//! The core fields are a contract (DESIGN §7) pinned by `tests/it/result_contract.rs`:
//! `trace_hash` (16 hex digits), `policy`, `summary{makespan_ns, context_switches,
//! cpu_busy_ns[]}`, `tasks[{name, cpu_ns, wait_ns, response_ns, turnaround_ns (absent if the task
//! never exited), switches, wakeup_latency_ns{p50, p90, p99, max}}]` and `segments[{cpu, task,
//! start_ns, end_ns}]`. Everything else here is an extension: new fields may be added, none of
//! the core may be renamed, retyped or removed.
//!
//! Extension `machine` (only for a scenario with a `machine`): the machine's state on a grid,
//! point `i` at `i × step_ns` (the engine starts at 1 ms and doubles the step whenever 4096
//! points are full, so a run keeps 2049–4096 points once past 4 s): `cached_bytes`,
//! `dirty_bytes`, `writeback_bytes`, `free_bytes`, `anon_bytes`, `swap_bytes`, per disk
//! `disks[{name, elevator, reads, writes}]` (requests outstanding), the kernel threads'
//! `kernel_threads[{id, name, cpu_ns}]` (CPU used in each grid interval), and the constants a
//! chart draws them against: `ram_bytes`, `capacity_bytes`, `background_limit_bytes` and
//! `dirty_limit_bytes` (`dirty_background_ratio` and `dirty_ratio` in bytes), `min_free_bytes`
//! and `low_free_bytes` (zone watermarks). Empty arrays when the run recorded only a summary.

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
    /// Extension: the machine over time (page cache, dirty data and its limits, free memory,
    /// swap, each disk's outstanding reads and writes, the kernel threads' CPU), when the
    /// scenario has a `machine`; see [`crate::machine::MachineSeries`]. Not in the page's
    /// result (its run data carries it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<crate::machine::MachineSeries>,
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
        RunResult::build(scenario, out, usize::MAX, true)
    }

    /// The result as the page's worker sends it: without segments (the charts read
    /// [`crate::view::RunData`]'s, far more compact) and with the tasks
    /// [`crate::view::RunData`] lists, at most [`crate::view::TASK_LIMIT`] (the first ones);
    /// `RunData::omitted` sums up the rest. The summary covers the whole run.
    pub fn for_page(scenario: &Scenario, out: &RunOutput) -> RunResult {
        RunResult::build(scenario, out, crate::view::TASK_LIMIT, false)
    }

    fn build(scenario: &Scenario, out: &RunOutput, task_limit: usize, segments: bool) -> RunResult {
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
                .take(task_limit)
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
                .take(if segments { usize::MAX } else { 0 })
                .map(|(cpu, s)| SegmentResult {
                    cpu: cpu.0,
                    task: name_of(s.task.0),
                    start_ns: s.start.0,
                    end_ns: s.end.0,
                    task_id: s.task.0,
                })
                .collect(),
            machine: if segments {
                crate::machine::MachineSeries::from_run(scenario, out, usize::MAX)
            } else {
                None
            },
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
                csv_text(&t.name),
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

/// A text cell (a task name) as CSV, safe to open in a spreadsheet:
///
/// 1. every control character (C0 including NUL, tab, CR and LF; DEL; C1) becomes U+FFFD
///    (`�`), so no cell holds a line break, a NUL or a terminal escape;
/// 2. a cell starting with `=`, `+`, `-` or `@` (what spreadsheets read as a formula, e.g.
///    `=cmd|' /C calc'!A0`) gets a leading apostrophe `'`, which shows it as text;
/// 3. RFC 4180 quoting: fields with a comma or quote are quoted, quotes doubled.
///
/// Numeric columns are written by this code, never from user text, and are left as numbers.
pub fn csv_text(s: &str) -> String {
    let mut cell: String = s
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    if cell.starts_with(['=', '+', '-', '@']) {
        cell.insert(0, '\'');
    }
    if cell.contains([',', '"']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_only_what_needs_it() {
        assert_eq!(csv_text("editor"), "editor");
        assert_eq!(csv_text("a,b"), "\"a,b\"");
        assert_eq!(csv_text("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_text("a-b=c"), "a-b=c");
    }

    #[test]
    fn csv_neutralises_formulas_and_control_characters() {
        assert_eq!(csv_text("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
        assert_eq!(csv_text("+1+1"), "'+1+1");
        assert_eq!(csv_text("-2+3"), "'-2+3");
        assert_eq!(csv_text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(
            csv_text("=HYPERLINK(\"x\",\"y\")"),
            "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\""
        );
        // A leading tab or CR (which some spreadsheets skip before a formula) is no longer one.
        assert_eq!(csv_text("\t=1+1"), "\u{fffd}=1+1");
        assert_eq!(csv_text("\r=1"), "\u{fffd}=1");
        assert_eq!(
            csv_text("a\0b\nc\u{1b}[2J\u{9b}"),
            "a\u{fffd}b\u{fffd}c\u{fffd}[2J\u{fffd}"
        );
    }
}
