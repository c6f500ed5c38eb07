//! Hand-worked examples for the textbook policies (OSTEP ch. 7-10).

use crate::common::*;

const THREE_10MS_JOBS: &str = r#"[
  {"name":"A","program":[{"run":"10ms"}]},
  {"name":"B","program":[{"run":"10ms"}]},
  {"name":"C","program":[{"run":"10ms"}]}]"#;

#[test]
fn fifo_three_equal_jobs() {
    let out = run(&scenario(1, r#"{"id":"fifo"}"#, THREE_10MS_JOBS));
    assert_eq!(gantt(&out, 5), "cpu0 |AABBCC|\n");
    // Turnaround 10, 20, 30 (avg 20); response 0, 10, 20.
    assert_eq!(times_ms(&out), vec![(10, 0), (20, 10), (30, 20)]);
    assert_eq!(out.metrics.run.makespan_ns, 30_000_000);
}

#[test]
fn rr_quantum_1ms_three_equal_jobs() {
    let out = run(&scenario(
        1,
        r#"{"id":"rr","tunables":{"quantum":1}}"#,
        THREE_10MS_JOBS,
    ));
    assert_eq!(gantt(&out, 1), "cpu0 |ABCABCABCABCABCABCABCABCABCABC|\n");
    // A finishes at 28, B at 29, C at 30; responses 0, 1, 2.
    assert_eq!(times_ms(&out), vec![(28, 0), (29, 1), (30, 2)]);
    assert_eq!(out.metrics.run.context_switches, 30);
}

#[test]
fn rr_new_arrival_queues_before_the_preempted_task() {
    // A runs 0-2 ms; at 2 ms B arrives exactly when A's quantum ends: B goes first.
    let tasks = r#"[{"name":"A","program":[{"run":"4ms"}]},
                    {"name":"B","arrival":"2ms","program":[{"run":"2ms"}]}]"#;
    let out = run(&scenario(
        1,
        r#"{"id":"rr","tunables":{"quantum":2}}"#,
        tasks,
    ));
    assert_eq!(gantt(&out, 1), "cpu0 |AABBAA|\n");
}

#[test]
fn fifo_on_two_cpus_and_a_sleeper() {
    let tasks = r#"[{"name":"A","program":[{"run":"3ms"},{"sleep":"2ms"},{"run":"1ms"}]},
                    {"name":"B","program":[{"run":"4ms"}]},
                    {"name":"C","program":[{"run":"4ms"}]}]"#;
    let out = run(&scenario(2, r#"{"id":"fifo"}"#, tasks));
    // C takes cpu0 when A sleeps at 3; A wakes at 5, waits for B to finish at 4 -> cpu1.
    assert_eq!(gantt(&out, 1), "cpu0 |AAACCCC|\ncpu1 |BBBB.A.|\n");
}

// ---- sjf and stcf (OSTEP ch. 7) -----------------------------------------------------------------

/// A scenario with an explicit duration (the run stops there even if tasks remain).
fn scenario_until(cpus: u32, duration: &str, policy: &str, tasks: &str) -> String {
    format!(
        r#"{{"version":1,"cpus":{cpus},"duration":"{duration}","seed":1,"policy":{policy},"tasks":{tasks}}}"#
    )
}

const LONG_FIRST: &str = r#"[
  {"name":"A","program":[{"run":"30ms"}]},
  {"name":"B","program":[{"run":"20ms"}]},
  {"name":"C","program":[{"run":"10ms"}]}]"#;

#[test]
fn sjf_runs_the_shortest_of_three_simultaneous_jobs_first() {
    // OSTEP ch. 7, "Shortest Job First": all arrive at 0. FIFO runs A 0-30, B 30-50, C 50-60
    // (turnaround 30, 50, 60: avg 46.7 ms); SJF runs C 0-10, B 10-30, A 30-60 (60, 30, 10: avg
    // 33.3 ms).
    let fifo = run(&scenario(1, r#"{"id":"fifo"}"#, LONG_FIRST));
    assert_eq!(gantt(&fifo, 10), "cpu0 |AAABBC|\n");
    assert_eq!(times_ms(&fifo), vec![(30, 0), (50, 30), (60, 50)]);
    let sjf = run(&scenario(1, r#"{"id":"sjf"}"#, LONG_FIRST));
    assert_eq!(gantt(&sjf, 10), "cpu0 |CBBAAA|\n");
    assert_eq!(times_ms(&sjf), vec![(60, 30), (30, 10), (10, 0)]);
}

#[test]
fn sjf_equal_bursts_go_by_arrival_order() {
    // OSTEP ch. 7 (SJF tie-break, documented in sjf.rs): equal 10 ms bursts run in id order.
    let out = run(&scenario(1, r#"{"id":"sjf"}"#, THREE_10MS_JOBS));
    assert_eq!(gantt(&out, 5), "cpu0 |AABBCC|\n");
}

#[test]
fn sjf_idle_cpu_chooses_after_every_arrival_of_the_instant() {
    // OSTEP ch. 7 (SJF, jobs arriving together), end-of-instant choice of sjf.rs: A's burst ends
    // at 10 ms just as B (8 ms) and C (2 ms) arrive. The CPU chooses once all three events of
    // 10 ms are in: C 10-12, then B 12-20 (not B first because its arrival came first).
    let tasks = r#"[{"name":"A","program":[{"run":"10ms"}]},
                    {"name":"B","arrival":"10ms","program":[{"run":"8ms"}]},
                    {"name":"C","arrival":"10ms","program":[{"run":"2ms"}]}]"#;
    let out = run(&scenario(1, r#"{"id":"sjf"}"#, tasks));
    assert_eq!(gantt(&out, 2), "cpu0 |AAAAACBBBB|\n");
    assert_eq!(times_ms(&out), vec![(10, 0), (10, 2), (2, 0)]);
    // Three switches, none of zero length.
    assert_eq!(out.metrics.run.context_switches, 3);
}

const LATE_SHORT: &str = r#"[
  {"name":"A","program":[{"run":"30ms"}]},
  {"name":"B","arrival":"10ms","program":[{"run":"5ms"}]}]"#;

#[test]
fn sjf_is_not_preemptive_but_stcf_is() {
    // OSTEP ch. 7, "Shortest Time-to-Completion First": B (5 ms) arrives at 10 while A has
    // 20 ms left. SJF: A 0-30, B 30-35 (B turnaround 25, response 20).
    let sjf = run(&scenario(1, r#"{"id":"sjf"}"#, LATE_SHORT));
    assert_eq!(gantt(&sjf, 5), "cpu0 |AAAAAAB|\n");
    assert_eq!(times_ms(&sjf), vec![(30, 0), (25, 20)]);
    // STCF: B preempts, A 0-10, B 10-15, A 15-35 (A turnaround 35, B 5).
    let stcf = run(&scenario(1, r#"{"id":"stcf"}"#, LATE_SHORT));
    assert_eq!(gantt(&stcf, 5), "cpu0 |AABAAAA|\n");
    assert_eq!(times_ms(&stcf), vec![(35, 0), (5, 0)]);
}

#[test]
fn stcf_compares_with_what_is_left_now() {
    // OSTEP ch. 7 (STCF). Also the regression test for the engine accounting every running task
    // before wake-up and arrival hooks: at 8 ms A has 2 ms left, not the 10 ms it had when it was
    // last accounted, so B (3 ms) must not preempt: A 0-10, B 10-13.
    let tasks = r#"[{"name":"A","program":[{"run":"10ms"}]},
                    {"name":"B","arrival":"8ms","program":[{"run":"3ms"}]}]"#;
    let out = run(&scenario(1, r#"{"id":"stcf"}"#, tasks));
    assert_eq!(gantt(&out, 1), "cpu0 |AAAAAAAAAABBB|\n");
}

#[test]
fn stcf_ties_keep_the_running_task_then_go_by_id() {
    // OSTEP ch. 7 (STCF), tie rules of stcf.rs. A 20 ms from 0. At 5 ms B (5 ms) and C (15 ms)
    // arrive together: B preempts A (5 < 15 left); C does not (its 15 is not less than B's 5,
    // the claimed occupant). At 10 B is done: A (15 left, id 0) and C (15, id 2) tie -> A by id,
    // A 10-25, C 25-40.
    let tasks = r#"[{"name":"A","program":[{"run":"20ms"}]},
                    {"name":"B","arrival":"5ms","program":[{"run":"5ms"}]},
                    {"name":"C","arrival":"5ms","program":[{"run":"15ms"}]}]"#;
    let out = run(&scenario(1, r#"{"id":"stcf"}"#, tasks));
    assert_eq!(gantt(&out, 5), "cpu0 |ABAAACCC|\n");
    // An equal newcomer does not preempt: A 10 ms, D (5 ms) arrives at 5 with A's 5 left.
    let tasks = r#"[{"name":"A","program":[{"run":"10ms"}]},
                    {"name":"D","arrival":"5ms","program":[{"run":"5ms"}]}]"#;
    let out = run(&scenario(1, r#"{"id":"stcf"}"#, tasks));
    assert_eq!(gantt(&out, 5), "cpu0 |AAB|\n");
}

#[test]
fn stcf_on_two_cpus_preempts_the_task_with_most_left() {
    // OSTEP ch. 7 (STCF) on 2 CPUs. A (20 ms) on cpu0, B (30 ms) on cpu1. At 5 ms C (5 ms)
    // arrives: the victim is the CPU whose task has most left, cpu1 (B 25 > A 15): C 5-10 there.
    // Then D (6 ms) arrives at the same instant: cpu0 (A 15) vs cpu1 (C 5) -> preempts A, D 5-11.
    // At 10 cpu1 takes the shorter waiter, A (15 left), 10-25; at 11 cpu0 takes B (25), 11-36.
    let tasks = r#"[{"name":"A","program":[{"run":"20ms"}]},
                    {"name":"B","program":[{"run":"30ms"}]},
                    {"name":"C","arrival":"5ms","program":[{"run":"5ms"}]},
                    {"name":"D","arrival":"5ms","program":[{"run":"6ms"}]}]"#;
    let out = run(&scenario(2, r#"{"id":"stcf"}"#, tasks));
    assert_eq!(
        gantt(&out, 1),
        "cpu0 |AAAAADDDDDDBBBBBBBBBBBBBBBBBBBBBBBBB|\n\
         cpu1 |BBBBBCCCCCAAAAAAAAAAAAAAA...........|\n"
    );
    assert_eq!(times_ms(&out), vec![(25, 0), (36, 0), (5, 0), (6, 0)]);
}

// ---- mlfq (OSTEP ch. 8) -------------------------------------------------------------------------

/// The observed MLFQ level of `task` over time, as `(ms, level)` changes.
fn levels(out: &schedlab_engine::RunOutput, task: u32) -> Vec<(u64, i64)> {
    out.trace
        .observed
        .iter()
        .filter(|(_, t, _)| t.0 == task)
        .map(|(at, _, v)| (at.0 / 1_000_000, *v))
        .collect()
}

#[test]
fn mlfq_demotion_preemption_and_boost_timeline() {
    // OSTEP ch. 8, rules 1-5. Quantum 2 ms doubling per level (2, 4, 8), allotment = quantum,
    // boost every 20 ms. A (30 ms of CPU) from 0, B (3 ms) arrives at 9.
    //   0-2  A level 0, uses its 2 ms allotment -> level 1 (rule 4)
    //   2-6  A level 1, 4 ms -> level 2
    //   6-9  A level 2 (quantum 8), 3 ms used
    //   9    B arrives at level 0 (rule 3) and preempts A (rule 1)
    //   9-11 B level 0, 2 ms -> level 1;  11-12 B level 1, exits
    //   12-17 A level 2, the 5 ms left of its quantum; 17-20 a new quantum (alone at level 2)
    //   20   boost: A -> level 0 (rule 5); 20-22 level 0, 22-26 level 1, 26-33 level 2, exits.
    let policy = r#"{"id":"mlfq","tunables":{"queues":3,"quantum":2,"quantum_mult":2,
                     "allotment":2,"boost_period":20}}"#;
    let tasks = r#"[{"name":"A","program":[{"run":"30ms"}]},
                    {"name":"B","arrival":"9ms","program":[{"run":"3ms"}]}]"#;
    let out = run(&scenario(1, policy, tasks));
    assert_eq!(gantt(&out, 1), "cpu0 |AAAAAAAAABBBAAAAAAAAAAAAAAAAAAAAA|\n");
    assert_eq!(times_ms(&out), vec![(33, 0), (3, 0)]);
    assert_eq!(
        levels(&out, 0),
        vec![(0, 0), (2, 1), (6, 2), (20, 0), (22, 1), (26, 2)]
    );
    assert_eq!(levels(&out, 1), vec![(9, 0), (11, 1)]);
    let notes: Vec<(u64, String)> = out
        .trace
        .notes()
        .map(|n| (n.time.0 / 1_000_000, n.note.render()))
        .collect();
    assert!(
        notes.contains(&(20, "boost: level 2 -> 0".to_string())),
        "{notes:?}"
    );
    assert!(notes.contains(&(
        2,
        "used its 2 ms allotment at level 0: demoted to level 1".to_string()
    )));
    assert!(notes.contains(&(
        9,
        "level 0 outranks task 0 at level 2: preempts".to_string()
    )));
}

#[test]
fn mlfq_boost_on_one_cpu_restarts_the_other_cpus_task_from_its_time_at_the_boost() {
    // Rule 5 on two CPUs: quantum = allotment = 10 ms (20 ms at level 1), boost every 25 ms;
    // hogs A on cpu0 and B on cpu1, nobody waiting.
    //   10   both used their level-0 allotment: A and B -> level 1, timers at the boost, 25
    //   25   cpu0's timer boosts: A and B -> level 0, each with a fresh allotment from its CPU
    //        time at 25 ms (B has run 25 ms on cpu1, though cpu1 has had no event since 10);
    //        both CPUs choose again and keep their task, at level 0, with 10 ms to use
    //   35   both used the fresh allotment: -> level 1
    // Charging B only at cpu1's own events would start its fresh allotment from 10 ms, so the
    // 15 ms it ran before the boost would demote it again at 25.
    let policy = r#"{"id":"mlfq","tunables":{"queues":3,"quantum":10,"quantum_mult":2,
                     "allotment":10,"boost_period":25}}"#;
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},
                    {"name":"B","program":[{"run":"1s"}]}]"#;
    let out = run(&scenario_until(2, "40ms", policy, tasks));
    assert_eq!(gantt(&out, 5), "cpu0 |AAAAAAAA|\ncpu1 |BBBBBBBB|\n");
    let expected = vec![(0, 0), (10, 1), (25, 0), (35, 1)];
    assert_eq!(levels(&out, 0), expected);
    assert_eq!(levels(&out, 1), expected);
    let notes: Vec<(u64, u32, String)> = out
        .trace
        .notes()
        .map(|n| (n.time.0 / 1_000_000, n.task.0, n.note.render()))
        .collect();
    let demoted = "used its 10 ms allotment at level 0: demoted to level 1".to_string();
    assert!(
        notes.contains(&(25, 1, "boost: level 1 -> 0".to_string())),
        "{notes:?}"
    );
    assert!(!notes.contains(&(25, 1, demoted.clone())), "{notes:?}");
    assert!(notes.contains(&(35, 1, demoted)), "{notes:?}");
}

#[test]
fn mlfq_new_arrival_queues_before_the_task_whose_quantum_expires() {
    // OSTEP ch. 8, rule 2 (round robin within a level), re-queue order of mlfq.rs: A's 2 ms
    // quantum ends at 2 just as B arrives; the arrival is handled first, so B runs 2-4, A 4-6.
    let policy = r#"{"id":"mlfq","tunables":{"quantum":2,"allotment":100}}"#;
    let tasks = r#"[{"name":"A","program":[{"run":"4ms"}]},
                    {"name":"B","arrival":"2ms","program":[{"run":"2ms"}]}]"#;
    let out = run(&scenario(1, policy, tasks));
    assert_eq!(gantt(&out, 1), "cpu0 |AABBAA|\n");
}

#[test]
fn mlfq_io_reset_lets_a_task_game_the_scheduler() {
    // OSTEP ch. 8, "Attempt #3: Better Accounting". G runs 9 ms then sleeps 1 ms, 20 times,
    // against a CPU hog H; quantum = allotment = 10 ms, no boost. With the old rule (io_reset=1)
    // G never uses a whole allotment in one go and stays at level 0; with rule 4 (io_reset=0) its
    // 9 + 9 ms at level 0 exceed the 10 ms allotment and it is demoted.
    let tasks = r#"[{"name":"G","program":[{"repeat":20,"body":[{"run":"9ms"},{"sleep":"1ms"}]}]},
                    {"name":"H","program":[{"run":"1s"}]}]"#;
    let max_level = |io_reset: u32| {
        let policy = format!(
            r#"{{"id":"mlfq","tunables":{{"quantum":10,"allotment":10,"boost_period":0,"io_reset":{io_reset}}}}}"#
        );
        let out = run(&scenario(1, &policy, tasks));
        let g = levels(&out, 0).iter().map(|&(_, l)| l).max().unwrap_or(0);
        let h = levels(&out, 1).iter().map(|&(_, l)| l).max().unwrap_or(0);
        (g, h)
    };
    assert_eq!(max_level(1), (0, 2));
    let (g_new, _) = max_level(0);
    assert!(g_new >= 1, "G was never demoted under rule 4");
}

// ---- lottery and stride (OSTEP ch. 9) -----------------------------------------------------------

/// CPU share of each task in per mille.
fn shares_permille(out: &schedlab_engine::RunOutput) -> Vec<u64> {
    let total: u64 = out.metrics.tasks.iter().map(|t| t.cpu_ns).sum();
    out.metrics
        .tasks
        .iter()
        .map(|t| t.cpu_ns * 1000 / total)
        .collect()
}

#[test]
fn lottery_shares_approach_the_ticket_ratio() {
    // OSTEP ch. 9, "Tickets Represent Your Share": 1:3 tickets over 4000 draws of 1 ms. A's
    // expected share is 250 per mille; one standard deviation is sqrt(0.25*0.75/4000) = 6.8 per
    // mille, so +-25 is over 3.5 sigma.
    let tasks = r#"[{"name":"A","shares":1,"program":[{"run":"100s"}]},
                    {"name":"B","shares":3,"program":[{"run":"100s"}]}]"#;
    let out = run(&scenario_until(
        1,
        "4s",
        r#"{"id":"lottery","tunables":{"quantum":1}}"#,
        tasks,
    ));
    let s = shares_permille(&out);
    assert!((225..=275).contains(&s[0]), "A got {} per mille", s[0]);
    // Random: not a strict alternation (some draw is won twice in a row by A).
    assert!(gantt(&out, 1)[..200].contains("AA"));
}

#[test]
fn lottery_tickets_from_nice_follow_the_weight_table() {
    // OSTEP ch. 9 with tickets = nice weights: nice 0 -> 1024, nice 5 -> 335 tickets; expected
    // share 1024 / 1359 = 753 per mille (sigma 6.8 per mille over 4000 draws); +-25.
    let tasks = r#"[{"name":"A","program":[{"run":"100s"}]},
                    {"name":"B","nice":5,"program":[{"run":"100s"}]}]"#;
    let out = run(&scenario_until(
        1,
        "4s",
        r#"{"id":"lottery","tunables":{"quantum":1}}"#,
        tasks,
    ));
    let s = shares_permille(&out);
    assert!((728..=778).contains(&s[0]), "A got {} per mille", s[0]);
}

#[test]
fn stride_interleaves_3_2_1_exactly() {
    // OSTEP ch. 9, "Stride Scheduling". STRIDE1 = 2^20: strides A 349525, B 524288, C 1048576.
    // All join at pass 0; ties by id. Slot by slot (pass after the slot):
    //   0 A 349525 | 1 B 524288 | 2 C 1048576 | 3 A 699050 | 4 B 1048576 | 5 A 1048575
    //   6 A 1398100 (1048575 < 1048576) | 7 B 1572864 (B before C by id) | 8 C 2097152
    //   9 A 1747625 | 10 B 2097152 | 11 A 2097150 | 12 A ... : "ABCABA" every 6 slots.
    let tasks = r#"[{"name":"A","shares":3,"program":[{"run":"1s"}]},
                    {"name":"B","shares":2,"program":[{"run":"1s"}]},
                    {"name":"C","shares":1,"program":[{"run":"1s"}]}]"#;
    let out = run(&scenario_until(
        1,
        "18ms",
        r#"{"id":"stride","tunables":{"quantum":1}}"#,
        tasks,
    ));
    assert_eq!(gantt(&out, 1), "cpu0 |ABCABAABCABAABCABA|\n");
    let pass: Vec<i64> = (0..3)
        .map(|t| {
            out.trace
                .observed
                .iter()
                .filter(|(_, id, _)| id.0 == t)
                .map(|&(_, _, v)| v)
                .next_back()
                .unwrap_or(-1)
        })
        .collect();
    // After 18 slots: A ran 9 (pass 9 * 349525 = 3145725), B 6 (3145728), C 3 (3145728).
    assert_eq!(pass, vec![3_145_725, 3_145_728, 3_145_728]);
}

#[test]
fn stride_newcomer_starts_at_the_global_pass() {
    // OSTEP ch. 9 (a new job's pass) and Waldspurger's global pass. A and B (nice 0: 1024
    // tickets, stride 1024) alternate 1 ms slots from 0; at 10 ms both have pass 5120 and C
    // arrives (before the quantum timer of that instant). C joins at 5120 instead of 0, so it
    // does not take the next 5 slots: A (id 0) wins the three-way tie, then B, then C.
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},
                    {"name":"B","program":[{"run":"1s"}]},
                    {"name":"C","arrival":"10ms","program":[{"run":"1s"}]}]"#;
    let out = run(&scenario_until(
        1,
        "16ms",
        r#"{"id":"stride","tunables":{"quantum":1}}"#,
        tasks,
    ));
    assert_eq!(gantt(&out, 1), "cpu0 |ABABABABABABCABC|\n");
}

#[test]
fn fifo_two_forks_in_one_event_wake_two_idle_cpus() {
    // OSTEP ch. 7 (FIFO) on 3 CPUs; regression test for the engine's default select_cpu. At 1 ms
    // the parent (A, on cpu0) forks B and C in one event. B goes to idle cpu1, which is kicked;
    // C must go to cpu2, not to cpu1 (still idle until the end of the event, but already taken),
    // so both children run 1-6 while A runs on.
    let tasks = r#"[{"name":"P","program":[{"run":"1ms"},
                      {"fork":{"program":[{"run":"5ms"}]}},
                      {"fork":{"program":[{"run":"5ms"}]}},
                      {"run":"10ms"}]}]"#;
    let out = run(&scenario(3, r#"{"id":"fifo"}"#, tasks));
    assert_eq!(
        gantt(&out, 1),
        "cpu0 |AAAAAAAAAAA|\ncpu1 |.BBBBB.....|\ncpu2 |.CCCCC.....|\n"
    );
}

/// `costs.timer_wakeup` (engine): a sleep ends at its timer's expiry plus the machine's wake-up
/// path. With hrtimers (fifo) a 9 ms sleep from 1 ms expires at 10 ms and the task runs again
/// at 10.019 ms, done at 11.019 ms. With 2.4's jiffy timers (HZ 100) a 15 ms sleep from 0
/// expires at jiffy 0 + ceil(1.5) + 1 = 3, 30 ms, and wakes at 30.019 ms, done at 35.019 ms.
#[test]
fn a_sleep_ends_at_its_expiry_plus_the_timer_wakeup_cost() {
    let run_with = |policy: &str, program: &str, costs: &str| {
        let json = format!(
            r#"{{"version":1,"cpus":1,"duration":"1s","seed":1,"policy":{{"id":"{policy}"}},
                "costs":{costs},"tasks":[{{"name":"S","program":{program}}}]}}"#
        );
        run(&json).metrics.tasks[0].turnaround_ns
    };
    let hr = r#"[{"run":"1ms"},{"sleep":"9ms"},{"run":"1ms"}]"#;
    assert_eq!(run_with("fifo", hr, "{}"), Some(11_000_000));
    assert_eq!(
        run_with("fifo", hr, r#"{"timer_wakeup":"19us"}"#),
        Some(11_019_000)
    );
    let jiffy = r#"[{"sleep":"15ms"},{"run":"5ms"}]"#;
    assert_eq!(run_with("linux-2.4", jiffy, "{}"), Some(35_000_000));
    assert_eq!(
        run_with("linux-2.4", jiffy, r#"{"timer_wakeup":"19us"}"#),
        Some(35_019_000)
    );
}
