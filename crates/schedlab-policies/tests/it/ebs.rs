//! Aurema's Entitlement Based Scheduler (reference/schedulers.md §4; partly a reconstruction) as
//! scenarios. Formulas are unit-tested in `src/ebs.rs`.

use crate::common::*;

use schedlab_engine::{Nanos, TaskId};

const POLICY: &str = r#"{"id":"ebs"}"#;

/// §4.1/§4.4: CPU-bound tasks with shares 20:10:5 get CPU in proportion, 4:2:1. The feedback
/// drives usage per share to be equal: whoever is above the others gets a worse priority, waits,
/// and its usage decays. Measured after the 5 s half-life start-up, each share within 10% of its
/// target (4/7 = 57.1%, 2/7 = 28.6%, 1/7 = 14.3%).
#[test]
fn cpu_hogs_share_by_entitlement() {
    let tasks = r#"[{"name":"A","shares":20,"program":[{"run":"200s"}]},
                    {"name":"B","shares":10,"program":[{"run":"200s"}]},
                    {"name":"C","shares":5,"program":[{"run":"200s"}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "90s"));
    let ms: Vec<u64> = (0..3)
        .map(|t| cpu_ms_between(&out, t, 20_000, 90_000))
        .collect();
    assert_eq!(ms.iter().sum::<u64>(), 70_000);
    for (got, want) in ms.iter().zip([40_000u64, 20_000, 10_000]) {
        assert!(got.abs_diff(want) * 10 <= want, "{ms:?}");
    }
}

/// §4.2: nice maps to shares (0 -> 20, 10 -> 10, 19 -> 1): the same 2:1 split from nice alone.
#[test]
fn shares_from_nice_drive_the_split() {
    let tasks = r#"[{"name":"A","program":[{"run":"200s"}]},
                    {"name":"B","nice":10,"program":[{"run":"200s"}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "60s"));
    let a = cpu_ms_between(&out, 0, 15_000, 60_000);
    let b = cpu_ms_between(&out, 1, 15_000, 60_000);
    // 2:1 of 45 s = 30 s : 15 s, within 10%.
    assert!(
        a.abs_diff(30_000) <= 3_000 && b.abs_diff(15_000) <= 1_500,
        "{a} {b}"
    );
}

/// §4.2 and v1.1 (seed 004): a background task (soft cap 0) runs when nothing else is runnable,
/// and otherwise only through its slow promotion: one level per `background_promotion` (1 s)
/// from the background level 140 up to the hog's 120 (R = 1: the hog holds the yardstick), then
/// one 100 ms slice after the hog's next expiry, and back to 140. That is about 100 ms per ~21 s.
#[test]
fn background_task_runs_only_when_idle_or_promoted() {
    let tasks = r#"[{"name":"hog","program":[{"run":"60s"}]},
                    {"name":"bg","cpu_rate_cap":0,"program":[{"run":"30s"}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "100s"));
    let bg = cpu_ms_between(&out, 1, 0, 60_000);
    // 60 s of competition: two or three promotions to the top, ~100 ms each.
    assert!((100..=400).contains(&bg), "{bg}");
    // Its first run is only after about 20 promotions.
    let first = out.metrics.tasks[1].response_ns.unwrap_or(0) / 1_000_000;
    assert!((19_000..=22_000).contains(&first), "{first}");
    // Once the hog exits at ~60 s, the background task has the CPU to itself.
    let after = cpu_ms_between(&out, 1, 61_000, 80_000);
    assert_eq!(after, 19_000);
    let notes: Vec<String> = out
        .trace
        .notes()
        .filter(|n| n.task == TaskId(1))
        .map(|n| n.note.render())
        .collect();
    assert!(
        notes.iter().any(|n| n == "promoted 140 -> 139"),
        "{notes:?}"
    );
}

/// §4.1: "interactivity falls out naturally": a task that sleeps most of the time has a low usage
/// rate, gets a good priority and preempts a hog on wake-up (strictly better, §4.5).
#[test]
fn light_task_preempts_the_hog() {
    let tasks = r#"[{"name":"hog","program":[{"run":"100s"}]},
                    {"name":"ed","program":[{"repeat":200,"body":[{"run":"1ms"},{"sleep":"49ms"}]}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "12s"));
    let ed = &out.metrics.tasks[1];
    assert_eq!(ed.wakeup_latency_ns.max, 0, "{:?}", ed.wakeup_latency_ns);
    // Its note: usage/entitlement far below the hog's yardstick -> prio near 100.
    let late = out
        .trace
        .notes()
        .filter(|n| n.task == TaskId(1) && n.time > Nanos::from_secs(8))
        .map(|n| n.note.render())
        .next()
        .unwrap_or_default();
    assert!(late.starts_with("usage/entitlement 0.0"), "{late}");
    assert!(
        late.ends_with("-> prio 100") || late.ends_with("-> prio 101"),
        "{late}"
    );
}

/// §4.7: a child starts with its parent's usage, so a hog's child starts at the hog's priority
/// rather than at the top; it does not preempt its parent.
#[test]
fn child_inherits_parent_usage() {
    let tasks = r#"[{"name":"P","program":[{"run":"10050ms"},{"fork":{"program":[{"run":"1s"}]}},{"run":"5s"}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "12s"));
    // The parent alone: usage after 10.05 s at H = 5 s is 1 - 2^-2.01 = 0.75 of a CPU, and it
    // holds the yardstick: R = 1, prio 120. The child inherits it with the same 20 shares: 120.
    let note = out
        .trace
        .notes()
        .find(|n| n.task == TaskId(1))
        .map(|n| n.note.render())
        .unwrap_or_default();
    assert!(note.ends_with("-> prio 120"), "{note}");
    // Same level, child at the tail: the parent keeps the CPU until its slice ends. At the fork
    // (10.05 s, a burst end, handled before that jiffy's tick) its slice has 100 - 49 = 51 ticks
    // left (refilled at tick 10000, ticks 10001-10049 since), split as child (51+1)>>1 = 26,
    // parent 51>>1 = 25. The tick at 10050 leaves 24: the parent expires at tick 10074 and goes
    // to the tail, and the child runs 24 ms after its fork.
    let child_first = out.metrics.tasks[1].response_ns.unwrap_or(0);
    assert_eq!(child_first, 24_000_000);
}

/// §7.3 via the shared balancer on 2 CPUs: four hogs forked on cpu0 spread to two per CPU.
#[test]
fn smp_spreads_forked_hogs() {
    let tasks = r#"[{"name":"P","program":[
        {"fork":{"program":[{"run":"3s"}]}},{"fork":{"program":[{"run":"3s"}]}},
        {"fork":{"program":[{"run":"3s"}]}},{"fork":{"program":[{"run":"3s"}]}},{"wait":"all"}]}]"#;
    let out = run(&with_duration(scenario(2, POLICY, tasks), "10s"));
    let busy = &out.metrics.run.cpu_busy_ns;
    assert!(
        busy[0] >= 5_500_000_000 && busy[1] >= 5_500_000_000,
        "{busy:?}"
    );
    assert!(out.metrics.run.makespan_ns <= 6_500_000_000);
}

#[test]
fn deterministic() {
    let tasks = r#"[{"name":"a","program":[{"repeat":50,"body":[{"run":{"exponential":{"mean":"3ms"}}},{"sleep":{"uniform":{"min":"1ms","max":"20ms"}}}]}]},
                    {"name":"b","nice":5,"program":[{"run":"1s"}]},
                    {"name":"c","cpu_rate_cap":0,"program":[{"run":"1s"}]}]"#;
    let s = with_duration(scenario(2, POLICY, tasks), "3s");
    assert_eq!(run(&s).hash, run(&s).hash);
}
