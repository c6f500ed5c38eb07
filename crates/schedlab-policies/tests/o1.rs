//! The O(1) scheduler (`linux-2.5-o1`, `linux-2.6-o1`) and its load balancer, as scenarios worked
//! by hand from `reference/schedulers.md` §2, §7. Formula tables (bonus, TASK_INTERACTIVE,
//! timeslice, EXPIRED_STARVING) are unit tests in the policy files.

mod common;
use common::*;

use schedlab_engine::{CpuId, RunOutput};

/// Every note as (time in ms, task name, text), in time order.
fn notes(out: &RunOutput) -> Vec<(u64, String, String)> {
    out.trace
        .notes()
        .map(|a| {
            (
                a.time.0 / 1_000_000,
                out.tasks[a.task.index()].name.clone(),
                a.note.render(),
            )
        })
        .collect()
}

/// Notes whose text starts with `prefix`.
fn notes_starting(out: &RunOutput, prefix: &str) -> Vec<(u64, String, String)> {
    notes(out)
        .into_iter()
        .filter(|n| n.2.starts_with(prefix))
        .collect()
}

/// The name of the task running on `cpu` at `ms` (None when idle).
fn running_at(out: &RunOutput, cpu: u16, ms: u64) -> Option<String> {
    let t = ms * 1_000_000;
    out.trace
        .lane(CpuId(cpu))
        .find(|s| s.start.0 <= t && t < s.end.0)
        .map(|s| out.tasks[s.task.index()].name.clone())
}

/// (task, start ms, end ms) of every segment on `cpu`.
fn segments_ms(out: &RunOutput, cpu: u16) -> Vec<(String, u64, u64)> {
    out.trace
        .lane(CpuId(cpu))
        .map(|s| {
            (
                out.tasks[s.task.index()].name.clone(),
                s.start.0 / 1_000_000,
                s.end.0 / 1_000_000,
            )
        })
        .collect()
}

fn o1_25(tunables: &str) -> String {
    format!(r#"{{"id":"linux-2.5-o1","tunables":{{{tunables}}}}}"#)
}

// ---- linux-2.5-o1 -----------------------------------------------------------------------------

#[test]
fn fork_splits_the_slice_and_the_child_waits_at_equal_prio_2_5() {
    // §2.6 fork. P (nice 0, sleep_avg 0: prio 125, slice 151) forks at t=0:
    // child slice (151+1)>>1 = 76, parent 151>>1 = 75; penalties of 0 stay 0; child prio 125.
    // do_fork reschedules P, but P heads level 125 and the child is at its tail: P goes on
    // (2.5.52 child-runs-first only with a better prio). P expires at tick 75 (to expired: not
    // interactive); the child runs ticks 76..151 and expires; array switch; P (slice 151) needs
    // 125 ms more: 151..276; the child's last 124 ms: 276..400.
    let tasks = r#"[{"name":"P","program":[{"fork":{"name":"C","program":[{"run":"200ms"}]}},
                                           {"run":"200ms"}]}]"#;
    let out = run(&scenario(1, &o1_25(""), tasks));
    assert_eq!(
        segments_ms(&out, 0),
        vec![
            ("P".into(), 0, 75),
            ("C.1".into(), 75, 151),
            ("P".into(), 151, 276),
            ("C.1".into(), 276, 400)
        ]
    );
    let fork = notes_starting(&out, "fork:");
    assert_eq!(
        fork[0].2,
        "fork: slice child 76 parent 75; sleep_avg parent 0 -> 0, child 0 (prio 125)"
    );
    assert!(notes(&out).iter().any(|n| n.0 == 75
        && n.1 == "P"
        && n.2 == "expired: not interactive (prio 125 > static 120 - DELTA 2), slice 151"));
}

#[test]
fn fork_penalties_apply_to_parent_and_child_2_5() {
    // §2.6 fork step 2. P sleeps 1000 ms first: sleep_avg 1000 at wake (prio 120 - 0 = 120).
    // Fork at t=1000: parent 1000*parent_penalty/100, child 1000*child_penalty/100.
    // Defaults 100/95: parent 1000, child 950 -> bonus 950/200 - 5 = -1 -> child prio 121.
    // With 50/10: parent 500, child 100 -> bonus 0 - 5 = -5 -> prio 125.
    let tasks = r#"[{"name":"P","program":[{"sleep":"1000ms"},
                      {"fork":{"name":"C","program":[{"run":"30ms"}]}},{"wait":"all"}]}]"#;
    let out = run(&scenario(1, &o1_25(""), tasks));
    assert_eq!(
        notes_starting(&out, "fork:")[0].2,
        "fork: slice child 76 parent 75; sleep_avg parent 1000 -> 1000, child 950 (prio 121)"
    );
    let out = run(&scenario(
        1,
        &o1_25(r#""parent_penalty":50,"child_penalty":10"#),
        tasks,
    ));
    assert_eq!(
        notes_starting(&out, "fork:")[0].2,
        "fork: slice child 76 parent 75; sleep_avg parent 1000 -> 500, child 100 (prio 125)"
    );
}

#[test]
fn exit_weight_on_reap_2_5() {
    // §2.6 exit/reap. As above: P 1000 sleep_avg, child 950 with 76 ticks of slice. The child
    // runs 1000..1030: the burst ends before the tick at 1030, so 29 ticks: slice 47, sleep_avg
    // 921. It exits with first_time_slice set: P's slice 75 + 47 = 122 (cap 300). 921 < 1000:
    // exit_weight 3 -> (1000*3 + 921)/4 = 3921/4 = 980; exit_weight 0 -> 921/1 = 921.
    let tasks = r#"[{"name":"P","program":[{"sleep":"1000ms"},
                      {"fork":{"name":"C","program":[{"run":"30ms"}]}},{"wait":"all"}]}]"#;
    let out = run(&scenario(1, &o1_25(""), tasks));
    assert_eq!(
        notes_starting(&out, "sched_exit:"),
        vec![(
            1030,
            "P".to_string(),
            "sched_exit: slice 75 -> 122, sleep_avg 1000 -> 980 (child's 921)".to_string()
        )]
    );
    let out = run(&scenario(1, &o1_25(r#""exit_weight":0"#), tasks));
    assert_eq!(
        notes_starting(&out, "sched_exit:")[0].2,
        "sched_exit: slice 75 -> 122, sleep_avg 1000 -> 921 (child's 921)"
    );
}

/// Two nice-0 hogs and a nice -20 task that sleeps 2 s and then hogs the CPU.
const STARVE: &str = r#"[{"name":"H1","program":[{"run":"10s"}]},
                         {"name":"H2","program":[{"run":"10s"}]},
                         {"name":"I","nice":-20,"program":[{"sleep":"2000ms"},{"run":"10s"}]}]"#;

#[test]
fn interactive_reinsertion_until_the_expired_array_starves_2_5() {
    // §2.5 EXPIRED_STARVING, §2.6 tick step 5. H1/H2 (prio 125, slice 151) alternate: H1
    // expires at 1963 (expired_timestamp 1963), H2 runs from 1963 (ticks 1964..1999: 115 left).
    // I wakes at 2000 with sleep_avg 2000 (prio 100), preempts H2 and is charged the tick at
    // 2000 too: its 300-tick slice ends at 2299 with sleep_avg 1700, still interactive
    // (nice -20 needs bonus >= -3).
    // Default limit: 2299 - 1963 = 336 < 2000*3 + 1: reinserted at 2299, 2599, 2899, 3199 and
    // 3499 (sleep_avg 500: bonus -3, prio 103 <= 100 + 3); at 3799 sleep_avg 200 (prio 104):
    // expired. I runs 2000..3799 without a break.
    let out = run(&scenario(1, &o1_25(""), STARVE));
    assert_eq!(running_at(&out, 0, 2350).as_deref(), Some("I"));
    assert_eq!(running_at(&out, 0, 3798).as_deref(), Some("I"));
    assert_eq!(running_at(&out, 0, 3800).as_deref(), Some("H2"));
    let reinserted: Vec<u64> = notes_starting(&out, "reinserted")
        .iter()
        .filter(|n| n.1 == "I")
        .map(|n| n.0)
        .collect();
    assert_eq!(reinserted, vec![2299, 2599, 2899, 3199, 3499]);
    // starvation_limit 100: 336 >= 100*3 + 1 = 301: EXPIRED_STARVING at 2299, I goes to
    // expired; H2 finishes its 115 ticks 2299..2414, then the array switch gives I the CPU back.
    let out = run(&scenario(1, &o1_25(r#""starvation_limit":100"#), STARVE));
    assert_eq!(
        notes_starting(&out, "EXPIRED_STARVING")[0],
        (
            2299,
            "I".to_string(),
            "EXPIRED_STARVING: expired although interactive (waited 336 >= 100 * 3 + 1)"
                .to_string()
        )
    );
    assert_eq!(running_at(&out, 0, 2350).as_deref(), Some("H2"));
    assert_eq!(running_at(&out, 0, 2420).as_deref(), Some("I"));
    assert!(notes_starting(&out, "array switch")
        .iter()
        .any(|n| n.0 == 2414));
}

#[test]
fn prio_bonus_ratio_zero_turns_the_estimator_off_2_5() {
    // §2.5: at prio_bonus_ratio 0 the bonus is 0 and DELTA = interactive_delta = 2 for every
    // nice, so TASK_INTERACTIVE (prio <= static - 2) never holds: nothing is reinserted, and
    // I (nice -20) expires at 2299 like a hog. With the default 25 it was reinserted 5 times.
    let out = run(&scenario(1, &o1_25(r#""prio_bonus_ratio":0"#), STARVE));
    assert!(notes_starting(&out, "reinserted").is_empty());
    assert!(notes(&out).iter().any(|n| n.0 == 2299
        && n.1 == "I"
        && n.2
            .starts_with("expired: not interactive (prio 100 > static 100 - DELTA 2)")));
    // And the woken task's prio stays its static prio.
    assert!(notes(&out)
        .iter()
        .any(|n| n.1 == "I" && n.2.contains("prio 100 = static 100 - bonus 0")));
}

#[test]
fn idle_cpu_pulls_after_cache_decay_2_5() {
    // §7.2: both hogs arrive on cpu0. cpu1's idle tick at 1 ms finds cpu0 busiest (idle: current
    // lengths, 2 vs 0, imbalance 1) but B left the CPU at jiffy 0: 1 - 0 > cache_decay_ticks 1
    // fails. At 2 ms it is cold: pulled (tail first; A runs and cannot move).
    let tasks = r#"[{"name":"A","program":[{"run":"100ms"}]},
                    {"name":"B","program":[{"run":"100ms"}]}]"#;
    let out = run(&scenario(2, &o1_25(""), tasks));
    assert_eq!(
        notes_starting(&out, "idle pull"),
        vec![(
            2,
            "B".to_string(),
            "idle pull from cpu0 active (prio 125): load 2 vs 0".to_string()
        )]
    );
    assert_eq!(segments_ms(&out, 1), vec![("B".into(), 2, 102)]);
    // cache_decay_ticks 0: the pull happens at the first idle tick.
    let out = run(&scenario(2, &o1_25(r#""cache_decay_ticks":0"#), tasks));
    assert_eq!(notes_starting(&out, "idle pull")[0].0, 1);
}

#[test]
fn busy_balance_needs_a_long_queue_twice_in_a_row_2_5() {
    // §7.2 / §7.4. A and B split over the CPUs at 2 ms. At 300 ms A forks two hogs on cpu0:
    // 3 vs 1. Busy balances run at jiffies divisible by HZ/4 = 250. At 500 cpu1 remembers cpu0's
    // length from 250 (1): load = min(3, 1) = 1, not > 1: nothing. At 750: min(3, 3) = 3,
    // imbalance (3 - 1)/2 = 1 >= (3 + 3)/4 = 1, 3 > 1 + 1: one task is pulled.
    let tasks = r#"[{"name":"A","program":[{"run":"300ms"},
                      {"fork":{"name":"K","program":[{"run":"3s"}]}},
                      {"fork":{"name":"K","program":[{"run":"3s"}]}},{"run":"3s"}]},
                    {"name":"B","program":[{"run":"3s"}]}]"#;
    let out = run(&scenario(2, &o1_25(""), tasks));
    let busy: Vec<u64> = notes_starting(&out, "busy pull")
        .iter()
        .map(|n| n.0)
        .collect();
    assert_eq!(busy.first(), Some(&750));
    assert!(!busy.contains(&500));
    let idle: Vec<u64> = notes_starting(&out, "idle pull")
        .iter()
        .map(|n| n.0)
        .filter(|&t| t < 1000)
        .collect();
    assert_eq!(idle, vec![2]);
}
