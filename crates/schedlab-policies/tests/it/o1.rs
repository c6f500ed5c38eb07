//! The O(1) scheduler (`linux-2.5-o1`, `linux-2.6-o1`) and its load balancer, as scenarios worked
//! by hand from `reference/schedulers.md` §2, §7. Formula tables (bonus, TASK_INTERACTIVE,
//! timeslice, EXPIRED_STARVING) are unit tests in the policy files.

use crate::common::*;

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
    // §2.6 fork step 2. P sleeps 1000 ms first (it asks for 999: nanosleep rounds up to 999
    // jiffies and adds one, JIFFY_NANOSLEEP): sleep_avg 1000 at wake (prio 120 - 0 = 120).
    // Fork at t=1000: parent 1000*parent_penalty/100, child 1000*child_penalty/100.
    // Defaults 100/95: parent 1000, child 950 -> bonus 950/200 - 5 = -1 -> child prio 121.
    // With 50/10: parent 500, child 100 -> bonus 0 - 5 = -5 -> prio 125.
    let tasks = r#"[{"name":"P","program":[{"sleep":"999ms"},
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
    // §2.6 exit/reap. As above (a 999 ms request, woken at jiffy 1000): P 1000 sleep_avg, child 950 with 76 ticks of slice. The child
    // runs 1000..1030: the burst ends before the tick at 1030, so 29 ticks: slice 47, sleep_avg
    // 921. It exits with first_time_slice set: P's slice 75 + 47 = 122 (cap 300). 921 < 1000:
    // exit_weight 3 -> (1000*3 + 921)/4 = 3921/4 = 980; exit_weight 0 -> 921/1 = 921.
    let tasks = r#"[{"name":"P","program":[{"sleep":"999ms"},
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

/// Two nice-0 hogs and a nice -20 task that sleeps 2 s and then hogs the CPU. I asks for
/// 1999 ms: nanosleep rounds up to 1999 jiffies and adds one (JIFFY_NANOSLEEP), so its timer
/// fires in the softirq of the tick at 2000.
const STARVE: &str = r#"[{"name":"H1","program":[{"run":"10s"}]},
                         {"name":"H2","program":[{"run":"10s"}]},
                         {"name":"I","nice":-20,"program":[{"sleep":"1999ms"},{"run":"10s"}]}]"#;

#[test]
fn interactive_reinsertion_until_the_expired_array_starves_2_5() {
    // §2.5 EXPIRED_STARVING, §2.6 tick step 5. H1/H2 (prio 125, slice 151) alternate: H1
    // expires at 1963 (expired_timestamp 1963), H2 runs from 1963. The tick at 2000 runs in
    // the timer interrupt before the timer softirq wakes I, so it charges H2 (ticks
    // 1964..2000: 114 left). I wakes at 2000 with sleep_avg 2000 (prio 100), preempts H2, and
    // its first tick is 2001: its 300-tick slice ends at 2300 with sleep_avg 1700, still
    // interactive (nice -20 needs bonus >= -3).
    // Default limit: 2300 - 1963 = 337 < 2000*3 + 1: reinserted at 2300, 2600, 2900, 3200 and
    // 3500 (sleep_avg 500: bonus -3, prio 103 <= 100 + 3); at 3800 sleep_avg 200 (prio 104):
    // expired. I runs 2000..3800 without a break.
    let out = run(&scenario(1, &o1_25(""), STARVE));
    assert_eq!(running_at(&out, 0, 1999).as_deref(), Some("H2"));
    assert_eq!(running_at(&out, 0, 2000).as_deref(), Some("I"));
    assert_eq!(running_at(&out, 0, 3799).as_deref(), Some("I"));
    assert_eq!(running_at(&out, 0, 3800).as_deref(), Some("H2"));
    let reinserted: Vec<u64> = notes_starting(&out, "reinserted")
        .iter()
        .filter(|n| n.1 == "I")
        .map(|n| n.0)
        .collect();
    assert_eq!(reinserted, vec![2300, 2600, 2900, 3200, 3500]);
    // starvation_limit 100: 337 >= 100*3 + 1 = 301: EXPIRED_STARVING at 2300, I goes to
    // expired; H2 finishes its 114 ticks 2300..2414, then the array switch gives I the CPU back.
    let out = run(&scenario(1, &o1_25(r#""starvation_limit":100"#), STARVE));
    assert_eq!(
        notes_starting(&out, "EXPIRED_STARVING")[0],
        (
            2300,
            "I".to_string(),
            "EXPIRED_STARVING: expired although interactive (waited 337 >= 100 * 3 + 1)"
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
    // I (nice -20) expires at 2300 like a hog. With the default 25 it was reinserted 5 times.
    let out = run(&scenario(1, &o1_25(r#""prio_bonus_ratio":0"#), STARVE));
    assert!(notes_starting(&out, "reinserted").is_empty());
    assert!(notes(&out).iter().any(|n| n.0 == 2300
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

// ---- linux-2.6-o1 -----------------------------------------------------------------------------

const O1_26: &str = r#"{"id":"linux-2.6-o1"}"#;

#[test]
fn child_runs_first_2_6() {
    // §2.9 fork: P (sleep_avg 0: prio 125, slice 102) forks at t=0: child slice 51, parent 51;
    // both sleep_avgs quantised to 0; the child is put in front of P at P's prio, and do_fork
    // reschedules P: the child runs first (compare the 2.5 test above, where P went on).
    // C expires at tick 51, P at 102; array switch: C (102 ticks) 102..204, then P.
    let tasks = r#"[{"name":"P","program":[{"fork":{"name":"C","program":[{"run":"200ms"}]}},
                                           {"run":"200ms"}]}]"#;
    let out = run(&scenario(1, O1_26, tasks));
    assert_eq!(
        segments_ms(&out, 0)[..3],
        [
            ("C.1".to_string(), 0, 51),
            ("P".to_string(), 51, 102),
            ("C.1".to_string(), 102, 204)
        ]
    );
    assert_eq!(
        notes_starting(&out, "fork:")[0].2,
        "fork: slice child 51 parent 51; sleep_avg parent 0 -> 0 ms, child 0 ms (prio 125)"
    );
}

#[test]
fn just_interactive_sleep_classifies_long_sleepers_2_6() {
    // §2.9 wake. JUST_INTERACTIVE_SLEEP(nice 0) = 815 ms. A 900 ms sleeper gets sleep_avg
    // MAX_SLEEP_AVG - AVG_TIMESLICE = 918 ms: CURRENT_BONUS 918*10/1020 = 9, prio 120 - 4 = 116.
    // An 800 ms sleeper is not "just interactive": 800 ms * (10 - 0) overflows the cap:
    // sleep_avg 1020 ms, bonus 10, prio 115 - the shorter sleeper ends up better.
    // (The sleeps ask for one jiffy less: nanosleep adds one, JIFFY_NANOSLEEP.)
    let long = r#"[{"name":"S","program":[{"sleep":"899ms"},{"run":"1ms"}]}]"#;
    let out = run(&scenario(1, O1_26, long));
    assert!(notes(&out)
        .iter()
        .any(|n| n.0 == 900
            && n.2 == "slept 900 ms > JUST_INTERACTIVE_SLEEP 815 ms: sleep_avg = 918 ms"));
    assert!(notes(&out)
        .iter()
        .any(|n| n.2 == "prio 116 = static 120 - bonus 4 (sleep_avg 918/1020 ms)"));
    let short = r#"[{"name":"S","program":[{"sleep":"799ms"},{"run":"1ms"}]}]"#;
    let out = run(&scenario(1, O1_26, short));
    assert!(notes(&out)
        .iter()
        .any(|n| n.2 == "prio 115 = static 120 - bonus 5 (sleep_avg 1020/1020 ms)"));
}

#[test]
fn sleep_time_product_is_32_bit_2_6() {
    // §2.9 wake, with i386 types: sleep_time (unsigned long, 32 bits) * (10 - 0).
    // 400 ms: 4.0e9 < 2^32: capped at 1020 ms, prio 115.
    // 450 ms: 4.5e9 mod 2^32 = 205_032_704 ns: 205 jiffies * 10 / 1020 = 2, prio 123.
    // (Each asks for one jiffy less: nanosleep adds one, JIFFY_NANOSLEEP.)
    let s = |ms: u32| {
        let asked = ms - 1;
        format!(r#"[{{"name":"S","program":[{{"sleep":"{asked}ms"}},{{"run":"1ms"}}]}}]"#)
    };
    let out = run(&scenario(1, O1_26, &s(400)));
    assert!(notes(&out).iter().any(|n| n.2.starts_with("prio 115 =")));
    let out = run(&scenario(1, O1_26, &s(450)));
    assert!(notes(&out)
        .iter()
        .any(|n| n.2 == "prio 123 = static 120 - bonus -3 (sleep_avg 205/1020 ms)"));
}

#[test]
fn on_runqueue_credit_2_6() {
    // §2.9 on-runqueue credit. W sleeps 0..10 ms (it asks for 9: nanosleep adds a jiffy; a
    // timer wake after H's tick at 10, activated 2): 10 ms * 10 = 100 ms
    // of sleep_avg, bonus 100*10/1020 = 0: prio 125 = H's, no preemption. H's 102-tick slice
    // ends at 102; W is picked and credited its whole 92 ms wait: 92 ms * (10 - 0) = 920 ms,
    // sleep_avg 1020 ms (capped), prio 115, requeued at the tail of 115.
    let tasks = r#"[{"name":"W","program":[{"sleep":"9ms"},{"run":"5ms"}]},
                    {"name":"H","program":[{"run":"300ms"}]}]"#;
    let out = run(&scenario(1, O1_26, tasks));
    assert_eq!(
        notes_starting(&out, "on-runqueue credit"),
        vec![(
            102,
            "W".to_string(),
            "on-runqueue credit 92000 us (activated 2): prio 125 -> 115".to_string()
        )]
    );
    assert_eq!(running_at(&out, 0, 103).as_deref(), Some("W"));
}

#[test]
fn timeslice_granularity_round_robin_2_6() {
    // §2.9 timeslice granularity. A and B sleep 900 ms (asking for 899: nanosleep adds a
    // jiffy): "just interactive", sleep_avg 918 ms,
    // bonus 9 -> GRAN 10, prio 116 (interactive: <= 118). Nothing ticks while all sleep, so the
    // first tick is at 901. A: ticks 901..910, 102 - 92 = 10 is a multiple of 10: requeued
    // behind B. B (credited its 10 ms queue wait: 928 ms) likewise at 920. A was charged 10 ms
    // at 910 (908 ms: bonus 8, GRAN 20): at tick 930 102 - 82 = 20, requeued, and its prio is
    // recomputed to 117. B (918 ms: bonus 9, GRAN 10) is requeued at 940 at prio 116, still the
    // best level, so it keeps the CPU until its own GRAN 20 requeue at 960 (prio 117).
    let tasks = r#"[{"name":"A","program":[{"sleep":"899ms"},{"run":"100ms"}]},
                    {"name":"B","program":[{"sleep":"899ms"},{"run":"100ms"}]}]"#;
    let out = run(&scenario(1, O1_26, tasks));
    let segs: Vec<_> = segments_ms(&out, 0)
        .into_iter()
        .filter(|s| s.1 >= 900)
        .take(4)
        .collect();
    assert_eq!(
        segs,
        vec![
            ("A".to_string(), 900, 910),
            ("B".to_string(), 910, 920),
            ("A".to_string(), 920, 930),
            ("B".to_string(), 930, 960)
        ]
    );
    assert_eq!(
        notes_starting(&out, "TIMESLICE_GRANULARITY")[0],
        (
            910,
            "A".to_string(),
            "TIMESLICE_GRANULARITY 10: requeued at the tail of prio 116 (92 left)".to_string()
        )
    );
}

#[test]
fn idle_cpu_steals_cache_hot_tasks_2_6() {
    // §7.3 can_migrate_task: cache-hot tasks are refused only for busy balances. With
    // cache_decay_ticks 2 the 2.6 idle CPU pulls B at its first idle tick (1 ms); 2.5 with the
    // same value would wait for 1 - 0 > 2, i.e. 3 ms.
    let tasks = r#"[{"name":"A","program":[{"run":"100ms"}]},
                    {"name":"B","program":[{"run":"100ms"}]}]"#;
    let out = run(&scenario(2, O1_26, tasks));
    assert_eq!(
        notes_starting(&out, "idle pull"),
        vec![(
            1,
            "B".to_string(),
            "idle pull from cpu0 active (prio 125): load 2 vs 0".to_string()
        )]
    );
    let out = run(&scenario(2, &o1_25(r#""cache_decay_ticks":2"#), tasks));
    assert_eq!(notes_starting(&out, "idle pull")[0].0, 3);
}

// ---- both -------------------------------------------------------------------------------------

#[test]
fn every_mechanism_runs_deterministically_on_1_2_and_4_cpus() {
    // §0.1 invariants over a mixed workload (forks and reaps, pipes with sync wake-ups, disk
    // waits, yields, nice changes, SCHED_RR/FIFO): the run completes, the CPU time the engine
    // measured equals the busy time, and the same scenario gives the same trace hash.
    for policy in [
        r#"{"id":"linux-2.5-o1"}"#,
        r#"{"id":"linux-2.6-o1"}"#,
        r#"{"id":"linux-2.5-o1","tunables":{"prio_bonus_ratio":50,"starvation_limit":0,"max_timeslice":10}}"#,
    ] {
        for cpus in [1, 2, 4] {
            let json = format!(
                r#"{{"version":1,"cpus":{cpus},"duration":"3s","seed":7,"policy":{policy},
                  "disks":[{{"name":"sda"}}],"channels":[{{"name":"p"}}],
                  "tasks":[
                   {{"name":"make","program":[{{"repeat":6,"body":[
                      {{"fork":{{"name":"cc","program":[{{"run":{{"uniform":{{"min":"5ms","max":"60ms"}}}}}},
                         {{"read":{{"disk":"sda","bytes":65536}}}},{{"run":"20ms"}}]}}}},
                      {{"run":"3ms"}}]}},{{"wait":"all"}}]}},
                   {{"name":"ping","program":[{{"repeat":200,"body":[{{"send":"p"}},{{"run":"1ms"}},{{"sleep":"5ms"}}]}}]}},
                   {{"name":"pong","program":[{{"repeat":200,"body":[{{"recv":"p"}},{{"run":"2ms"}}]}}]}},
                   {{"name":"yielder","nice":5,"program":[{{"repeat":300,"body":[{{"run":"2ms"}},"yield"]}}]}},
                   {{"name":"renice","program":[{{"run":"300ms"}},{{"nice":-5}},{{"run":"300ms"}},{{"nice":10}},{{"run":"300ms"}}]}},
                   {{"name":"rr","rt":{{"policy":"rr","priority":10}},"program":[{{"repeat":20,"body":[{{"run":"30ms"}},{{"sleep":"40ms"}}]}}]}},
                   {{"name":"fifo","rt":{{"policy":"fifo","priority":5}},"program":[{{"repeat":20,"body":[{{"run":"3ms"}},{{"sleep":"50ms"}}]}}]}},
                   {{"name":"hog","nice":-10,"program":[{{"run":"5s"}}]}}]}}"#
            );
            let a = run(&json);
            let b = run(&json);
            assert_eq!(a.hash, b.hash, "{policy} on {cpus} CPUs");
            let cpu: u64 = a.tasks.iter().map(|t| t.charged_cpu_time().0).sum();
            let busy: u64 = a.metrics.run.cpu_busy_ns.iter().sum();
            assert_eq!(cpu, busy, "{policy} on {cpus} CPUs");
            assert!(a.tasks.len() > 8);
        }
    }
}

#[test]
fn hz_100_rescales_the_jiffy_defaults_2_5() {
    // §2.2: the defaults are (10*HZ)/1000 and (300*HZ)/1000 jiffies. At HZ 100 that is 1 and
    // 30: BASE_TIMESLICE(nice 0) = 1 + (30 - 1)·19/39 = 1 + 14 = 15 jiffies = 150 ms (a HZ 1000
    // build: 151 jiffies = 151 ms; without rescaling HZ 100 would have given 1.51 s).
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},{"name":"B","program":[{"run":"1s"}]}]"#;
    let out = run(&scenario(1, &o1_25(r#""hz":100"#), tasks));
    assert!(notes(&out).iter().any(|n| n.0 == 150
        && n.1 == "A"
        && n.2 == "expired: not interactive (prio 125 > static 120 - DELTA 2), slice 15"));
    assert_eq!(
        segments_ms(&out, 0)[..2],
        [("A".into(), 0, 150), ("B".into(), 150, 300)]
    );
}
