//! `linux-2.4`: hand-worked scenarios for the 2.4.19 goodness scheduler
//! (reference/schedulers.md §1 and §7.1). Times in ms; HZ 100, so one tick is 10 ms and a
//! nice-0 quantum is NICE_TO_TICKS(0) = 6 ticks.

use crate::common::*;

const POLICY: &str = r#"{"id":"linux-2.4"}"#;

/// §1.7 and §1.5: equal-nice hogs share the CPU in NICE_TO_TICKS quanta of 60 ms.
#[test]
fn equal_nice_hogs_share_in_60ms_quanta() {
    let tasks = r#"[{"name":"A","program":[{"run":"300ms"}]},
                    {"name":"B","program":[{"run":"300ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // A runs first (it arrived first and took the idle CPU); B, inserted at the head, does not
    // preempt: preemption_goodness = (6 + 20) - (6 + 20 + 1 same mm) = -1.
    //   0- 60 A (A 6 -> 0)        60-120 B (26 > 0)
    //  120: both 0: epoch 1, both 6; B keeps the CPU with its +1 (27 > 26): 120-180 B
    //  180-240 A; 240: epoch 2, A keeps it: 240-300 A; 300-360 B; 360: epoch 3: 360-420 B
    //  420-480 A; 480: epoch 4: 480-540 A (A done, 300 ms); 540-600 B (B done).
    // So after the first quantum each task gets two back to back: the +1 same-mm bonus wins
    // the rescan after every recalculation.
    assert_eq!(gantt(&out, 60), "cpu0 |ABBAABBAAB|\n");
    assert_eq!(times_ms(&out), vec![(540, 0), (600, 60)]);
    assert!(has_note(
        &out,
        1,
        "120: picked: goodness 27 = counter 6 + 20 - nice 0 + 1 (same mm)"
    ));
    assert!(has_note(
        &out,
        0,
        "120: epoch recalculation 1: counter 6 = 0/2 + NICE_TO_TICKS(0) 6"
    ));
}

/// §1.6 wake: tasks that become runnable go to the *head* of the list, and the scan's strict
/// comparison gives ties to the task nearer the head.
#[test]
fn newcomers_go_to_the_head_and_win_ties() {
    let tasks = r#"[{"name":"A","program":[{"run":"60ms"}]},
                    {"name":"B","program":[{"run":"60ms"}]},
                    {"name":"C","program":[{"run":"60ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // A takes the idle CPU. B then C are inserted at the head: [C, B, A]. At 60 ms B and C
    // both score 6 + 20 = 26; C is nearer the head, so C runs before B (FIFO would say B).
    assert_eq!(gantt(&out, 60), "cpu0 |ACB|\n");
}

/// §1.6 wake + §1.5 step 4 + §1.7: a sleeper's counter grows at each epoch it sleeps through,
/// so it wakes with a higher goodness and preempts a hog at once.
#[test]
fn sleeper_preempts_a_hog() {
    let tasks = r#"[{"name":"H","program":[{"run":"200ms"}]},
                    {"name":"S","program":[{"sleep":"95ms"},{"run":"5ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // H runs 0-60. At 60 S (26) is picked and goes to sleep at once: 95 ms from jiffy 6 is
    // jiffy 6 + ceil(9.5) + 1 = 17 (JIFFY_NANOSLEEP), so until 170.
    // 60: H alone at 0: epoch 1: H 6, S 6/2 + 6 = 9.   120: epoch 2: H 6, S 9/2 + 6 = 10.
    // 170: the tick charges H first (ticks at 130..170: counter 1), then S wakes:
    // preemption_goodness = goodness(S) - goodness(H) = (10 + 20) - (1 + 20 + 1) = 8 > 0.
    // S runs 170-175 and exits; H finishes its 200 ms at 205.
    let mut want = "A".repeat(34);
    want.push('B');
    want.push_str(&"A".repeat(6));
    assert_eq!(gantt(&out, 5), format!("cpu0 |{want}|\n"));
    assert!(has_note(
        &out,
        1,
        "120: epoch recalculation 2: counter 10 = 9/2 + NICE_TO_TICKS(0) 6"
    ));
    assert!(has_note(
        &out,
        1,
        "170: runnable at the head of the run list; preemption_goodness 8 > 0 on cpu0: preempt"
    ));
}

/// §1.6 yield: sched_yield() moves the caller to the tail with the SCHED_YIELD bit (goodness
/// -1 for that one schedule()).
#[test]
fn yield_gives_way_for_one_schedule() {
    let tasks = r#"[{"name":"A","program":[{"run":"10ms"},"yield",{"run":"10ms"}]},
                    {"name":"B","program":[{"run":"10ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // A (counter 6) would keep the CPU against B (no preemption at arrival); its yield makes
    // B (26) beat A (-1). After B exits, A (bit cleared) finishes.
    assert_eq!(gantt(&out, 10), "cpu0 |ABA|\n");
}

/// §1.6 fork and exit/reap: the child takes (counter + 1) >> 1, the parent keeps counter >> 1,
/// and the child's counter comes back to the parent when it is reaped.
#[test]
fn fork_splits_the_counter_and_reap_returns_it() {
    let tasks = r#"[{"name":"P","program":[
        {"fork":{"program":[{"run":"5ms"}]}},{"wait":"all"},{"run":"5ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // P starts with NICE_TO_TICKS(0) = 6; the fork leaves 3 and 3. The child (head of the list,
    // preemption_goodness 23 - 24 = -1) runs when P blocks in wait, exits at 5 with no tick
    // charged, and P takes back 3 + 3 = 6 when it runs again.
    assert_eq!(gantt(&out, 5), "cpu0 |BA|\n");
    assert!(has_note(
        &out,
        0,
        "0: fork: child counter 3 = (6 + 1) >> 1, parent keeps 3"
    ));
    assert!(has_note(
        &out,
        0,
        "5: reaped a child: counter 6 (+3 returned, capped at MAX_COUNTER 20)"
    ));
}

/// §1.6 exit/reap cap: parent + child counters above MAX_COUNTER (20 at HZ 100) are capped.
/// Both sleep through epochs driven by a hog, so both approach the fixed point 11 (§1.5).
#[test]
fn reaped_ticks_are_capped_at_max_counter() {
    let tasks = r#"[{"name":"H","program":[{"run":"2s"}]},
                    {"name":"P","program":[
                       {"fork":{"program":[{"sleep":"500ms"}]}},{"wait":"all"},{"run":"1ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // H 0-60; P (26) forks at 60: child 3, P 3; P waits, the child sleeps 500 ms from jiffy 6:
    // until jiffy 6 + 50 + 1 = 57 (JIFFY_NANOSLEEP), 570 ms.
    // Epochs at 60, 120, 180, 240, 300, ...: both go 3 -> 7 -> 9 -> 10 -> 11 -> 11.
    // At 570, after the tick (H: epoch at 540, ticks 550..570: 3), the child wakes with 31
    // against H's 3 + 21 = 24, preempts, exits; P is woken and reaps: 11 + 11 = 22, capped at
    // 20.
    assert!(has_note(
        &out,
        1,
        "60: fork: child counter 3 = (6 + 1) >> 1, parent keeps 3"
    ));
    assert!(has_note(
        &out,
        1,
        "570: reaped a child: counter 20 (+11 returned, capped at MAX_COUNTER 20)"
    ));
}

/// §1.6 set_nice: nice changes the goodness term 20 - nice at the next scan (no immediate
/// preemption) and the quantum at the next epoch.
#[test]
fn nice_takes_effect_at_the_next_scan_and_epoch() {
    let tasks = r#"[{"name":"A","program":[{"nice":19},{"run":"100ms"}]},
                    {"name":"B","program":[{"run":"100ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // A renices itself at 0, then B arrives: A's goodness already uses nice 19 (6 + 1 + 20 -
    // 19 = 8) while its counter is still nice 0's 6, so B (26) preempts: 26 - 8 = 18 > 0.
    // B 0-60; A 60-120 (7 > 0). 120: epoch 1: A 0/2 + NICE_TO_TICKS(19) 1 = 1, B 6: B 26 beats
    // A 1 + 1 + 1 = 3: B 120-160 (done). A finishes in 10 ms quanta: 160-200.
    assert_eq!(gantt(&out, 20), "cpu0 |BBBAAABBAA|\n");
    assert!(has_note(
        &out,
        0,
        "120: epoch recalculation 1: counter 1 = 0/2 + NICE_TO_TICKS(19) 1"
    ));
}

/// §1.4 RT weight and §1.5 step 1: SCHED_RR tasks (1000 + rt_priority) beat every normal task
/// and rotate at the tail when their counter (NICE_TO_TICKS) runs out.
#[test]
fn sched_rr_rotates_above_normal_tasks() {
    let tasks = r#"[{"name":"N","program":[{"run":"20ms"}]},
                    {"name":"R1","rt":{"policy":"rr","priority":10},"program":[{"run":"90ms"}]},
                    {"name":"R2","rt":{"policy":"rr","priority":10},"program":[{"run":"90ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // N takes the CPU; R1 arrives: 1010 - 27 > 0, preempts at 0; R2 arrives: 1010 - 1010 = 0,
    // no preemption. List [R2, R1, N]. R1 runs 60 ms (counter 6), goes to the tail: R2 60-120,
    // R1 120-150 (done), R2 150-180 (done), N 180-200.
    assert_eq!(gantt(&out, 30), "cpu0 |BBCCBCA|\n");
}

/// §7.1 SMP: reschedule_idle sends a newcomer to an idle CPU, else preempts the busy CPU where
/// its preemption_goodness is largest (PROC_CHANGE_PENALTY 15 for its last CPU counts), and a
/// task waiting on the global list runs on whichever CPU frees up first.
#[test]
fn smp_idle_cpu_first_then_best_preemption() {
    let tasks = r#"[{"name":"A","program":[{"run":"60ms"}]},
                    {"name":"B","program":[{"run":"60ms"}]},
                    {"name":"C","arrival":"30ms","program":[{"run":"30ms"}]}]"#;
    let out = run(&scenario(2, POLICY, tasks));
    // A: its last CPU (cpu0) is idle. B: cpu0 is busy, cpu1 is idle -> cpu1.
    // 30: the tick comes before the arrival of the same instant. C (last CPU cpu0) finds no
    //   idle CPU. A has counter 3 (ticks at 10, 20, 30):
    //   cpu0: goodness(C) 6 + 15 + 20 = 41 - goodness(A) 3 + 15 + 1 + 20 = 39 -> +2
    //   cpu1: goodness(C) 6 + 20 = 26 - goodness(B) 39 -> -13.   So C preempts A on cpu0.
    // 60: B ends on cpu1; the list holds A (C runs on cpu0): A goes to cpu1 (24 > -1000).
    //     C ends on cpu0 at the same instant: nothing left for cpu0. A finishes at 90.
    assert_eq!(gantt(&out, 10), "cpu0 |AAACCC...|\ncpu1 |BBBBBBAAA|\n");
    assert!(has_note(
        &out,
        2,
        "30: runnable at the head of the run list; preemption_goodness 2 > 0 on cpu0: preempt"
    ));
}

/// Timer granularity and tick order (engine, `JIFFY_NANOSLEEP`): 2.4's nanosleep rounds a
/// request up to jiffies and adds one, and the timer fires in the softirq after the tick's
/// accounting, so the sleeper is not charged the tick that wakes it; schedule() runs when the
/// interrupt returns, after the sleeper has woken.
#[test]
fn sleeps_end_on_a_later_tick_and_the_waking_tick_charges_the_hog() {
    // S sleeps 15 ms at 0: jiffies 0 + ceil(1.5) 2 + 1 = 3: wakes at 30 ms. H runs 0-30; the
    // ticks at 10, 20, 30 charge H (6 -> 3). At 30 the tick runs first, then S wakes:
    // preemption_goodness (6 + 20) - (3 + 20 + 1 same mm) = 2 > 0: S runs 30-35 with its full
    // counter. It sleeps 20 ms at 35: jiffies 3 + 2 + 1 = 6: wakes at 60 ms, 25 ms later. The
    // tick at 60 takes H's last tick (1 -> 0, need_resched), and before the interrupt returns
    // S wakes against H's goodness 0: preemption_goodness 26 - 0 = 26. schedule() then finds S
    // with its counter 6, so there is no recalculation yet: S runs 60-65, never charged a tick,
    // and exits; only then does H, alone at 0, recalculate (0/2 + 6 = 6).
    let tasks = r#"[{"name":"S","program":[{"sleep":"15ms"},{"run":"5ms"},{"sleep":"20ms"},{"run":"5ms"}]},
                    {"name":"H","program":[{"run":"100ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // A = S, B = H, 5 ms a character.
    assert_eq!(gantt(&out, 5), "cpu0 |BBBBBBABBBBBABBBBBBBBB|\n");
    assert!(has_note(
        &out,
        0,
        "30: picked: goodness 26 = counter 6 + 20 - nice 0"
    ));
    assert!(has_note(
        &out,
        1,
        "60: counter 0: quantum used, need_resched"
    ));
    assert!(has_note(
        &out,
        0,
        "60: runnable at the head of the run list; preemption_goodness 26 > 0 on cpu0: preempt"
    ));
    assert!(has_note(
        &out,
        0,
        "60: picked: goodness 26 = counter 6 + 20 - nice 0"
    ));
    assert!(has_note(
        &out,
        1,
        "65: epoch recalculation 1: counter 6 = 0/2 + NICE_TO_TICKS(0) 6"
    ));
    assert_eq!(out.metrics.tasks[0].turnaround_ns, Some(65_000_000));
    // Each wake-up found the CPU at once: the sleeps themselves were stretched (15 -> 30 ms,
    // 20 -> 25 ms), not the wake-up latency.
    assert_eq!(out.metrics.tasks[0].wakeup_latency_ns.max, 0);
}
