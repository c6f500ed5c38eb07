//! The run queues at one instant, as the policy sees them: per CPU who runs, whom `pick_next`
//! would choose, every queue the policy reports (in the order it considers them) and its facts;
//! and every disk's queue in the order its elevator would serve it.
//!
//! One structure for both faces of the inspector: `schedlab run --inspect-at` prints it
//! ([`crate::text::run_queues`]) and the page's worker sends it to the inspector panel. Both
//! get it from [`crate::Job::inspect`], which runs to the instant or the benchmark's stop.
//!
//! ```text
//! Job::inspect(at) ─► engine at the instant ─► RunQueues::from_engine ─┬─► text::run_queues (CLI)
//!                                                                      └─► JSON (page's worker)
//! ```

use serde::{Deserialize, Serialize};

use schedlab_engine::machine::{Dir, Place, Request};
use schedlab_engine::{CpuId, Engine, Nanos, Scenario, TaskId};

/// Every CPU's run queues at [`RunQueues::at_ns`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunQueues {
    /// The instant the engine stood at: the requested time, or the end of the run if it ended
    /// earlier.
    pub at_ns: u64,
    /// One per CPU, in CPU order.
    pub cpus: Vec<CpuQueues>,
    /// One per disk, in scenario order: its queue in the order its elevator would serve it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<DiskQueueView>,
}

/// A disk at the instant: the request being served and the queue in dispatch order, as the
/// disk would serve it if no other request arrived (its elevator's own rules played forward:
/// batches, deadlines, anticipation windows; `Elevator::dispatch_order`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskQueueView {
    pub name: String,
    /// The elevator's id (`noop`, `linus`, `deadline`, `anticipatory`, `cfq`).
    pub elevator: String,
    /// The request being served; its `start_ns` is when it completes.
    pub serving: Option<RequestView>,
    /// An idle disk waiting out an anticipation window: until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_until_ns: Option<u64>,
    /// Requests queued (not counting the one being served).
    pub queued: u64,
    /// The first [`DISK_QUEUE_LIMIT`] of them in dispatch order.
    pub queue: Vec<RequestView>,
}

/// Requests of a disk queue listed (a queue may hold one per task, thousands): the rest are
/// counted in [`DiskQueueView::queued`].
pub const DISK_QUEUE_LIMIT: usize = 512;

/// One disk request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestView {
    /// Submission number on its disk.
    pub id: u64,
    /// `read` or `write`.
    pub dir: String,
    pub bytes: u64,
    /// The task on whose behalf it was issued (the flusher for background writeback).
    pub owner: TaskRef,
    /// What it reads or writes: a file and offset, swap, or a plain stream.
    pub what: String,
    pub submitted_ns: u64,
    /// When it would start if nothing else arrived (for the request being served: when it
    /// completes).
    pub start_ns: u64,
}

/// One CPU at the instant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuQueues {
    pub cpu: u16,
    /// The task on the CPU; `None` when idle.
    pub running: Option<TaskRef>,
    /// The task on the CPU just before the instant (the last event earlier), when one ran:
    /// with `running` it says whether the CPU changed hands here ([`crate::explain`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<TaskRef>,
    /// Whom the policy's `pick_next` would choose now (a pure query); `None` for nobody.
    pub next: Option<TaskRef>,
    /// The queues the policy reports for this CPU, in the order it considers them.
    pub queues: Vec<QueueView>,
    /// Free-form facts: bitmaps, epoch counters, yardsticks.
    pub facts: Vec<String>,
}

/// A task by id (the engine's, which is also the page's colour index) and name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRef {
    pub id: u32,
    pub name: String,
}

/// One queue: its name and entries in the policy's order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueView {
    pub name: String,
    pub entries: Vec<EntryView>,
}

/// One queued task with the policy's ordering key and anything else it reports.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryView {
    pub task: TaskRef,
    /// The ordering key as the policy sees it, e.g. "prio 118".
    pub key: String,
    /// E.g. "static 120, sleep_avg 485/2000"; empty when the policy has nothing to add.
    pub detail: String,
}

impl RunQueues {
    /// The run queues and disk queues of `engine`, a run of `scenario`, where it stands now;
    /// `before` is who ran on each CPU just before (empty when unknown).
    pub fn from_engine(
        engine: &Engine,
        scenario: &Scenario,
        before: &[Option<TaskId>],
    ) -> RunQueues {
        let tasks = engine.tasks();
        let task = |id: u32| TaskRef {
            id,
            name: tasks
                .get(id as usize)
                .map_or_else(|| format!("task{id}"), |t| t.name.clone()),
        };
        let cpus = engine
            .running()
            .iter()
            .enumerate()
            .map(|(c, running)| {
                let cpu = CpuId(c as u16);
                let inspection = engine.inspect(cpu);
                CpuQueues {
                    cpu: cpu.0,
                    running: running.map(|t| task(t.0)),
                    before: before.get(c).copied().flatten().map(|t| task(t.0)),
                    next: engine.peek_next(cpu).map(|t| task(t.0)),
                    queues: inspection
                        .queues
                        .into_iter()
                        .map(|q| QueueView {
                            name: q.name,
                            entries: q
                                .entries
                                .into_iter()
                                .map(|e| EntryView {
                                    task: task(e.task),
                                    key: e.key,
                                    detail: e.detail,
                                })
                                .collect(),
                        })
                        .collect(),
                    facts: inspection.facts,
                }
            })
            .collect();
        RunQueues {
            at_ns: engine.now().0,
            cpus,
            disks: disk_queues(engine, scenario, &task),
        }
    }
}

fn disk_queues(
    engine: &Engine,
    scenario: &Scenario,
    task: &dyn Fn(u32) -> TaskRef,
) -> Vec<DiskQueueView> {
    let files = scenario.machine.as_ref().map_or(&[][..], |m| &m.files[..]);
    let request = |rq: &Request, start: Nanos| RequestView {
        id: rq.id,
        dir: match rq.dir {
            Dir::Read => "read",
            Dir::Write => "write",
        }
        .to_owned(),
        bytes: rq.bytes,
        owner: task(rq.owner.0),
        what: match Place::of(rq.pos) {
            Place::File { file, offset } => format!(
                "{} @ {}",
                files
                    .get(file as usize)
                    .map_or_else(|| format!("file{file}"), |f| f.name.clone()),
                crate::text::bytes(offset)
            ),
            Place::Swap { offset } => format!("swap @ {}", crate::text::bytes(offset)),
            Place::Stream { offset, .. } => format!("stream @ {}", crate::text::bytes(offset)),
        },
        submitted_ns: rq.submitted.0,
        start_ns: start.0,
    };
    engine
        .disk_queues()
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let spec = scenario.disks.get(i);
            DiskQueueView {
                name: spec.map_or_else(|| format!("disk{i}"), |d| d.name.clone()),
                elevator: spec.map_or("noop", |d| d.elevator.id()).to_owned(),
                serving: q.serving.as_ref().map(|(rq, done)| request(rq, *done)),
                idle_until_ns: q.idle_until.map(|t| t.0),
                queued: q.queued.len() as u64,
                queue: q
                    .queued
                    .iter()
                    .take(DISK_QUEUE_LIMIT)
                    .map(|p| request(&p.rq, p.start))
                    .collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{Benchmark, Job};
    use schedlab_engine::{Nanos, Scenario};
    use schedlab_policies::SimError;
    use schedlab_workloads::Stop;

    /// The run queues at `at`; with `stop`, the run ends when that task exits, as a preset's.
    fn inspect_at(s: &Scenario, stop: Option<Stop>, at: Nanos) -> Result<RunQueues, SimError> {
        let job = match stop {
            None => Job::new(s.clone(), None),
            Some(stop) => {
                // contest's stop (make exits), with this scenario in place of its own.
                let bench = Benchmark::parse("contest", &[]).unwrap();
                assert_eq!(bench.stop(), stop);
                Job::new(s.clone(), Some(bench))
            }
        };
        job.inspect(at)
    }

    /// Three CPU hogs under round robin with a 4 ms quantum on one CPU; `job` (if present) runs
    /// 8 ms and exits.
    fn scenario(extra: &str) -> Scenario {
        serde_json::from_str(&format!(
            r#"{{"version":1,"cpus":1,"duration":"1s","seed":1,
                "policy":{{"id":"rr","tunables":{{"quantum":4}}}},
                "tasks":[{{"name":"hog1","program":[{{"run":"1s"}}]}},
                         {{"name":"hog2","program":[{{"run":"1s"}}]}},
                         {{"name":"hog3","program":[{{"run":"1s"}}]}}{extra}]}}"#
        ))
        .unwrap()
    }

    fn names(q: &QueueView) -> Vec<&str> {
        q.entries.iter().map(|e| e.task.name.as_str()).collect()
    }

    fn task(id: u32, name: &str) -> Option<TaskRef> {
        Some(TaskRef {
            id,
            name: name.into(),
        })
    }

    /// Quanta of 4 ms in arrival order: hog1 0–4, hog2 4–8, hog3 8–12, hog1 12–16. At 9 ms
    /// hog3 runs and hog1 then hog2 wait; at 13 ms hog1 runs, hog2 heads the queue.
    #[test]
    fn round_robin_by_hand() {
        let s = scenario("");
        let q = inspect_at(&s, None, Nanos::from_ms(9)).unwrap();
        assert_eq!(q.at_ns, 9_000_000);
        assert_eq!(q.cpus.len(), 1);
        let cpu = &q.cpus[0];
        assert_eq!(cpu.cpu, 0);
        assert_eq!(cpu.running, task(2, "hog3"));
        assert_eq!(cpu.next, task(2, "hog3"));
        assert_eq!(cpu.queues.len(), 1);
        assert_eq!(cpu.queues[0].name, "waiting (head first)");
        assert_eq!(names(&cpu.queues[0]), ["hog1", "hog2"]);
        assert_eq!(cpu.queues[0].entries[0].task.id, 0);
        assert_eq!(cpu.facts, ["quantum 4 ms"]);

        let q = inspect_at(&s, None, Nanos::from_ms(13)).unwrap();
        assert_eq!(q.cpus[0].running, task(0, "hog1"));
        assert_eq!(names(&q.cpus[0].queues[0]), ["hog2", "hog3"]);
    }

    /// `make` (8 ms of CPU) gets quanta at 12–16 and 28–32 ms, so it exits at 32 ms: under
    /// contest's stop (make exits) the run stands there even when asked for later; without
    /// the stop the hogs go on.
    #[test]
    fn a_preset_stop_ends_the_run_where_the_benchmark_ends() {
        let s = scenario(r#",{"name":"make","program":[{"run":"8ms"}]}"#);
        let stop = Some(Stop::TaskExits("make"));
        let q = inspect_at(&s, stop, Nanos::from_ms(500)).unwrap();
        assert_eq!(q.at_ns, 32_000_000);
        assert_eq!(q.cpus[0].running, task(0, "hog1"));
        assert_eq!(names(&q.cpus[0].queues[0]), ["hog2", "hog3"]);
        // Before the benchmark ends, the stop changes nothing.
        let early = inspect_at(&s, stop, Nanos::from_ms(14)).unwrap();
        assert_eq!(early, inspect_at(&s, None, Nanos::from_ms(14)).unwrap());
        assert_eq!(early.cpus[0].running, task(3, "make"));
        let natural = inspect_at(&s, None, Nanos::from_ms(500)).unwrap();
        assert_eq!(natural.at_ns, 500_000_000);
    }

    #[test]
    fn an_invalid_scenario_is_an_error() {
        let mut s = scenario("");
        s.policy.id = "no-such-policy".into();
        assert!(matches!(
            inspect_at(&s, None, Nanos::ZERO),
            Err(SimError::Invalid(_))
        ));
    }
}
