//! What of a scenario can run for real, and the list of processes to start.

use std::collections::{BTreeMap, BTreeSet};

use schedlab::engine::program::{ProgramRef, Step};
use schedlab::{Nanos, RunResult, Scenario};

use super::protocol::MAX_PROCESSES;

/// A scenario task to start as a process.
#[derive(Clone, Debug)]
pub struct PlannedTask {
    pub name: String,
    pub nice: i32,
    pub arrival_ns: u64,
    /// The task's own CPUs (`sched_setaffinity`); `None` = all of the scenario's.
    pub cpus: Option<Vec<u32>>,
    /// The task's group.
    pub group: Option<String>,
    /// The task's own slice (`sched_setattr`'s `sched_runtime`), in ns.
    pub slice_ns: Option<u64>,
    pub program: schedlab::engine::program::Program,
}

/// The processes of a measurement and what they share.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Scenario tasks (`count` expanded, as the engine names them) that arrive before the end.
    pub tasks: Vec<PlannedTask>,
    /// Every channel a program names, declared or not (the engine creates undeclared ones).
    pub channels: Vec<String>,
    /// Each task's random stream: its creation number in the simulation, for names that
    /// occur once there.
    pub streams: BTreeMap<String, u64>,
    pub spare_stream: u64,
}

/// Everything in `s` that cannot run for real, each with its field path; empty if all can.
pub fn problems(s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    for (i, t) in s.tasks.iter().enumerate() {
        let p = format!("tasks[{i}]");
        if t.rt.is_some() {
            out.push(format!(
                "{p}.rt: real-time classes are not measured (they could starve the machine)"
            ));
        }
        if t.shares.is_some() {
            out.push(format!(
                "{p}.shares: entitlement shares have no equivalent for one task in the running \
                 kernel (use nice, or task groups with cpu.weight)"
            ));
        }
        if t.cpu_rate_cap.is_some() {
            out.push(format!(
                "{p}.cpu_rate_cap: EBS rate caps have no equivalent in the running kernel"
            ));
        }
        steps(&t.program.0, &format!("{p}.program"), &mut out);
    }
    for (name, prog) in &s.programs {
        steps(&prog.0, &format!("programs.{name}"), &mut out);
    }
    for (i, c) in s.channels.iter().enumerate() {
        if c.capacity.is_some() {
            out.push(format!(
                "channels[{i}].capacity: a bounded channel cannot be measured (a pipe holds \
                 64 KiB, not a number of messages); leave capacity out"
            ));
        }
    }
    if s.task_count() > MAX_PROCESSES {
        out.push(format!(
            "tasks: {} tasks is more than measure starts ({MAX_PROCESSES} processes)",
            s.task_count()
        ));
    }
    out
}

fn steps(steps: &[Step], path: &str, out: &mut Vec<String>) {
    for (j, st) in steps.iter().enumerate() {
        let p = format!("{path}[{j}]");
        match st {
            Step::Io(io) => out.push(format!(
                "{p}: {} (disk I/O) cannot be measured: the machine's disk and page cache are \
                 not the model's",
                match io.op {
                    schedlab::engine::program::IoOp::Read => "read",
                    schedlab::engine::program::IoOp::Write => "write",
                }
            )),
            Step::Touch { .. } => out.push(format!(
                "{p}: touch (paging) cannot be measured: the machine's memory is not the model's"
            )),
            Step::Repeat { body, .. } => self::steps(body, &format!("{p}.body"), out),
            Step::Fork(f) => {
                if let ProgramRef::Inline(body) = &f.program {
                    self::steps(body, &format!("{p}.fork.program"), out);
                }
            }
            _ => {}
        }
    }
}

fn channel_names(steps: &[Step], out: &mut BTreeSet<String>) {
    for st in steps {
        match st {
            Step::Send(c) | Step::Recv(c) => {
                out.insert(c.clone());
            }
            Step::Repeat { body, .. } => channel_names(body, out),
            Step::Fork(f) => {
                if let ProgramRef::Inline(body) = &f.program {
                    channel_names(body, out);
                }
            }
            _ => {}
        }
    }
}

/// The plan for a scenario that has no [`problems`], given its simulation's result (whose
/// task ids number the random streams).
pub fn plan(s: &Scenario, sim: &RunResult) -> Plan {
    let mut tasks = Vec::new();
    for t in &s.tasks {
        let names: Vec<String> = match t.count {
            None => vec![t.name.clone()],
            Some(n) => (1..=n).map(|k| format!("{}-{k}", t.name)).collect(),
        };
        for name in names {
            if t.arrival >= s.duration {
                continue;
            }
            tasks.push(PlannedTask {
                name,
                nice: t.nice,
                arrival_ns: t.arrival.0,
                cpus: t.cpus.clone(),
                group: t.group.clone(),
                slice_ns: t.slice.map(|n| n.0),
                program: t.program.clone(),
            });
        }
    }
    let mut channels: BTreeSet<String> = s.channels.iter().map(|c| c.name.clone()).collect();
    for t in &s.tasks {
        channel_names(&t.program.0, &mut channels);
    }
    for p in s.programs.values() {
        channel_names(&p.0, &mut channels);
    }
    let mut seen: BTreeMap<&str, (u64, usize)> = BTreeMap::new();
    for t in &sim.tasks {
        let e = seen.entry(&t.name).or_insert((t.id as u64, 0));
        e.1 += 1;
    }
    let streams = seen
        .into_iter()
        .filter(|(_, (_, n))| *n == 1)
        .map(|(name, (id, _))| (name.to_string(), id))
        .collect();
    let spare_stream = sim.tasks.iter().map(|t| t.id as u64 + 1).max().unwrap_or(0) + 1_000_000;
    Plan {
        tasks,
        channels: channels.into_iter().collect(),
        streams,
        spare_stream,
    }
}

/// The default wall-clock limit: the scenario's duration (at most ten minutes, as a scenario
/// whose tasks all exit ends earlier) plus ten seconds.
pub fn default_limit(duration: Nanos) -> std::time::Duration {
    let d = duration.0.min(600 * 1_000_000_000);
    std::time::Duration::from_nanos(d + 10 * 1_000_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(json: &str) -> Scenario {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn unsupported_steps_are_named_with_their_path() {
        let s = scenario(
            r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"eevdf"},
                "disks":[{"name":"sda"}],
                "channels":[{"name":"p","capacity":1}],
                "programs":{"job":[{"write":{"bytes":4096}}]},
                "tasks":[{"name":"a","program":[{"run":"1ms"},
                    {"repeat":2,"body":[{"read":{"bytes":1}}]}]},
                  {"name":"b","shares":5,"program":[{"fork":{"program":[{"read":{"bytes":1}}]}}]}]}"#,
        );
        let p = problems(&s);
        let has = |needle: &str| p.iter().any(|m| m.contains(needle));
        assert!(has("tasks[0].program[1].body[0]: read (disk I/O)"), "{p:#?}");
        assert!(has("tasks[1].program[0].fork.program[0]: read"), "{p:#?}");
        assert!(has("programs.job[0]: write"), "{p:#?}");
        assert!(has("tasks[1].shares"), "{p:#?}");
        assert!(has("channels[0].capacity"), "{p:#?}");
        assert_eq!(p.len(), 5, "{p:#?}");
    }

    #[test]
    fn the_plan_expands_counts_and_numbers_streams_as_the_simulation() {
        let s = scenario(
            r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"eevdf"},
                "tasks":[{"name":"late","arrival":"1s","program":[{"run":"1ms"}]},
                  {"name":"w","count":2,"arrival":"5ms","program":[{"send":"x"}]},
                  {"name":"r","program":[{"recv":"x"},{"recv":"x"}]}]}"#,
        );
        assert!(problems(&s).is_empty());
        let sim = schedlab::run_result(&s, schedlab::RunOptions::default()).unwrap();
        let plan = plan(&s, &sim);
        let names: Vec<&str> = plan.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["w-1", "w-2", "r"]);
        assert_eq!(plan.channels, ["x"]);
        // r arrives first (at 0), so the engine created it first.
        assert_eq!(plan.streams["r"], 0);
        assert_eq!(plan.streams["w-1"], 1);
        assert!(plan.spare_stream > 2);
    }
}
