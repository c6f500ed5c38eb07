//! The rest of the machine in the simulation. While a scenario is measured, other processes
//! (daemons, kernel threads, the supervising process) and interrupts run on its CPUs now and
//! then; each time, a task of the scenario is preempted and the alternation of the tasks that
//! share a CPU shifts. A model without them is perfectly periodic: on two CPUs the balancer's
//! attempts lock to one phase of that alternation and the same hog moves every time (one of
//! three free hogs gets exactly half a CPU for 5 s), which the machine never shows. So the
//! simulation beside a measurement runs one more task, [`OTHERS`], built from what the
//! measurement saw: as many wake-ups as other tasks ran there (`procfs::other_wakeups`), at
//! exponential intervals, each running an equal part of the CPU time they used
//! (`other_cpu_ns`, which also holds interrupt time: /proc/stat cannot tell them apart). An
//! input measured on the machine, like `costs.timer_wakeup`; the comparison leaves the task
//! out.

use serde_json::json;

use super::report::MeasuredSummary;

/// The name of the task that stands for everything else on the measured CPUs.
pub const OTHERS: &str = "(other processes)";

/// The shortest run and mean sleep the task is given.
const MIN_NS: u64 = 1_000;

/// `s` with the task [`OTHERS`] added as `m` measured it, or `None` when nothing else ran (or
/// /proc could not tell).
pub fn with_others(s: &schedlab::Scenario, m: &MeasuredSummary) -> Option<schedlab::Scenario> {
    let (cpu, n) = (m.other_cpu_ns?, m.other_wakeups?);
    if cpu == 0 || n == 0 || s.tasks.iter().any(|t| t.name == OTHERS) {
        return None;
    }
    let run = (cpu / n).max(MIN_NS);
    let sleep = (m.end_ns / n).saturating_sub(run).max(MIN_NS);
    let program = serde_json::from_value(json!([{
        "repeat": "forever",
        "body": [
            {"sleep": {"exponential": {"mean": format!("{sleep}ns")}}},
            {"run": format!("{run}ns")}
        ]
    }]))
    .ok()?;
    let mut v = s.clone();
    v.tasks.push(schedlab::engine::scenario::TaskSpec {
        name: OTHERS.to_string(),
        nice: 0,
        arrival: schedlab::Nanos::ZERO,
        shares: None,
        cpu_rate_cap: None,
        rt: None,
        cpus: None,
        group: None,
        slice: None,
        count: None,
        program,
    });
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

    /// 50 ms of CPU in 500 wake-ups over 5 s: runs of 100 us after sleeps of 9.9 ms on average,
    /// and over a run the task wakes about that often and uses about that much.
    #[test]
    fn the_task_repeats_what_was_measured() {
        let s = scenario();
        let v = with_others(&s, &summary(Some(50_000_000), Some(500))).unwrap();
        assert_eq!(v.tasks.len(), 2);
        let text = serde_json::to_string(&v.tasks[1].program).unwrap();
        assert!(text.contains(r#"{"mean":"9900us"}"#) && text.contains(r#"{"run":"100us"}"#), "{text}");
        let r = schedlab::run_result(&v, schedlab::RunOptions::default()).unwrap();
        let o = r.tasks.iter().find(|t| t.name == OTHERS).unwrap();
        assert!((400..=600).contains(&o.wakeups), "{}", o.wakeups);
        assert!((40_000_000..=60_000_000).contains(&o.cpu_ns), "{}", o.cpu_ns);
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
