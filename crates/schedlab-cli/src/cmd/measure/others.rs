//! The rest of the machine in the simulation. While a scenario is measured, other processes
//! (daemons, kernel threads, the supervising process) and interrupts run on its CPUs now and
//! then; each time, a task of the scenario is preempted and the alternation of the tasks that
//! share a CPU shifts. A model without them is perfectly periodic: on two CPUs the balancer's
//! attempts lock to one phase of that alternation and the same hog moves every time (one of
//! three free hogs gets exactly half a CPU for 5 s), which the machine never shows. So the
//! simulation beside a measurement runs one more task per CPU, [`OTHERS`] pinned there, built
//! from what the measurement saw: as many wake-ups as other tasks ran on the measured CPUs
//! (`procfs::other_wakeups`), shared evenly between them, at exponential intervals, each running
//! an equal part of the CPU time they used (`other_cpu_ns`, which also holds interrupt time:
//! /proc/stat cannot tell them apart, nor count switches per CPU). An input measured on the
//! machine, like `costs.timer_wakeup`; the comparison leaves these tasks out. One unpinned task
//! would not do: it stays on one CPU and leaves the other's alternation undisturbed.

use serde_json::json;

use super::report::MeasuredSummary;

/// The name of the tasks that stand for everything else on the measured CPUs (one per CPU,
/// `(other processes)-cpuN`).
pub const OTHERS: &str = "(other processes)";

/// The shortest run and mean sleep the tasks are given.
const MIN_NS: u64 = 1_000;

/// Whether task `name` is one of the [`OTHERS`] tasks.
pub fn is_others(name: &str) -> bool {
    name.starts_with(OTHERS)
}

/// `s` with the [`OTHERS`] tasks added as `m` measured them, or `None` when nothing else ran
/// (or /proc could not tell).
pub fn with_others(s: &schedlab::Scenario, m: &MeasuredSummary) -> Option<schedlab::Scenario> {
    let (cpu, n) = (m.other_cpu_ns?, m.other_wakeups?);
    let per_cpu = n / s.cpus.max(1) as u64;
    if cpu == 0 || per_cpu == 0 || s.tasks.iter().any(|t| is_others(&t.name)) {
        return None;
    }
    let run = (cpu / n).max(MIN_NS);
    let sleep = (m.end_ns / per_cpu).saturating_sub(run).max(MIN_NS);
    let program: schedlab::engine::program::Program = serde_json::from_value(json!([{
        "repeat": "forever",
        "body": [
            {"sleep": {"exponential": {"mean": format!("{sleep}ns")}}},
            {"run": format!("{run}ns")}
        ]
    }]))
    .ok()?;
    let mut v = s.clone();
    for c in 0..s.cpus {
        v.tasks.push(schedlab::engine::scenario::TaskSpec {
            name: format!("{OTHERS}-cpu{c}"),
            nice: 0,
            arrival: schedlab::Nanos::ZERO,
            shares: None,
            cpu_rate_cap: None,
            rt: None,
            cpus: Some(vec![c]),
            group: None,
            slice: None,
            count: None,
            program: program.clone(),
        });
    }
    schedlab::validate(&v).ok()?;
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(other_cpu_ns: Option<u64>, other_wakeups: Option<u64>) -> MeasuredSummary {
        MeasuredSummary {
            makespan_ns: 5_000_000_000,
            context_switches: 0,
            cpu_ns: 0,
            end_ns: 5_000_000_000,
            other_cpu_ns,
            steal_ns: Some(0),
            other_wakeups,
        }
    }

    fn scenario() -> schedlab::Scenario {
        serde_json::from_str(
            r#"{"version":1,"cpus":2,"duration":"5s","policy":{"id":"eevdf"},
                "tasks":[{"name":"hog","program":[{"run":"60s"}]}]}"#,
        )
        .unwrap()
    }

    /// 50 ms of CPU in 500 wake-ups over 5 s on 2 CPUs: per CPU a task pinned there that runs
    /// 100 us after sleeps of 19.9 ms on average, and over a run each wakes about 250 times
    /// and uses about 25 ms.
    #[test]
    fn the_tasks_repeat_what_was_measured() {
        let s = scenario();
        let v = with_others(&s, &summary(Some(50_000_000), Some(500))).unwrap();
        assert_eq!(v.tasks.len(), 3);
        let r = schedlab::run_result(&v, schedlab::RunOptions::default()).unwrap();
        for c in 0..2u32 {
            let t = &v.tasks[1 + c as usize];
            assert_eq!(t.cpus, Some(vec![c]));
            assert!(is_others(&t.name));
            let text = serde_json::to_string(&t.program).unwrap();
            assert!(
                text.contains(r#"{"mean":"19900us"}"#) && text.contains(r#"{"run":"100us"}"#),
                "{text}"
            );
            let o = r.tasks.iter().find(|x| x.name == t.name).unwrap();
            assert!((200..=300).contains(&o.wakeups), "{}", o.wakeups);
            assert!((20_000_000..=30_000_000).contains(&o.cpu_ns), "{}", o.cpu_ns);
        }
        assert!(!is_others("hog"));
    }

    #[test]
    fn nothing_else_or_unknown_adds_nothing() {
        let s = scenario();
        assert!(with_others(&s, &summary(Some(0), Some(500))).is_none());
        assert!(with_others(&s, &summary(Some(50_000_000), Some(0))).is_none());
        assert!(with_others(&s, &summary(None, Some(500))).is_none());
        assert!(with_others(&s, &summary(Some(50_000_000), None)).is_none());
    }
}
