//! CFS (reference/schedulers.md §6.1) and EEVDF (§6.2) as scenarios. Formulas (weights,
//! calc_delta_fair, period and slice, placement floors, V, lag clamp and inflation) are
//! unit-tested in `src/cfs.rs` and `src/eevdf.rs`.

use crate::common::*;

use schedlab_engine::{CpuId, Detail, Nanos, RunOptions, RunOutput, Scenario, TaskId};

const CFS: &str = r#"{"id":"cfs"}"#;
const EEVDF: &str = r#"{"id":"eevdf"}"#;

fn cpu_ms(out: &RunOutput, task: usize) -> u64 {
    out.metrics.tasks[task].cpu_ns / 1_000_000
}

/// Values the policy reported for `task` through `observe`, with their times in ms.
fn observed(out: &RunOutput, task: u32) -> Vec<(u64, i64)> {
    out.trace
        .observed
        .iter()
        .filter(|(_, t, _)| *t == TaskId(task))
        .map(|(at, _, v)| (at.0 / 1_000_000, *v))
        .collect()
}

/// The value `task` reported at exactly `at_us` µs (its last report then).
fn observed_at(out: &RunOutput, task: u32, at_us: u64) -> Option<i64> {
    out.trace
        .observed
        .iter()
        .filter(|(at, t, _)| *t == TaskId(task) && at.0 == at_us * 1000)
        .map(|(_, _, v)| *v)
        .next_back()
}

const NICE_0_VS_5: &str = r#"[{"name":"A","program":[{"run":"100s"}]},
                              {"name":"B","nice":5,"program":[{"run":"100s"}]}]"#;

/// §6.1 Weights / known behaviour: nice 0 against nice 5 shares 1024:335, i.e. A gets
/// 1024/1359 = 75.35% of the CPU: 7535 ms of 10 s, within 1% of the run (100 ms).
#[test]
fn cfs_nice_0_vs_nice_5_share_by_weight() {
    let out = run(&with_duration(scenario(1, CFS, NICE_0_VS_5), "10s"));
    let (a, b) = (cpu_ms(&out, 0), cpu_ms(&out, 1));
    assert_eq!(a + b, 10_000);
    assert!(a.abs_diff(7_535) <= 100, "A {a} ms, B {b} ms");
}

/// §6.2 Behaviour: EEVDF keeps CFS's long-run shares: the same 75.35% within 1%.
#[test]
fn eevdf_two_hogs_share_by_weight() {
    let out = run(&with_duration(scenario(1, EEVDF, NICE_0_VS_5), "10s"));
    let (a, b) = (cpu_ms(&out, 0), cpu_ms(&out, 1));
    assert_eq!(a + b, 10_000);
    assert!(a.abs_diff(7_535) <= 100, "A {a} ms, B {b} ms");
}

/// §6.1 Period, slice and check_preempt_tick, 1 CPU, HZ 1000. Arrivals at 0 are placed with
/// START_DEBIT: A alone gets vslice 6 ms (v 6), B one of 2 (3 ms: v 9), C one of 3 (2 ms: v 8).
/// Each slice is 6/3 = 2 ms; at the 2 ms tick delta_exec = 2 ms is not > 2 ms and the vdiff to
/// the leftmost is 0, so every turn ends at the 3 ms tick (delta_exec 3 > 2). Order by vruntime:
/// A (6), then C (8; A is at 9 = B, and B was inserted first, but C is smaller), then B.
#[test]
fn cfs_three_hogs_take_turns_by_vruntime() {
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},
                    {"name":"B","program":[{"run":"1s"}]},
                    {"name":"C","program":[{"run":"1s"}]}]"#;
    let policy = r#"{"id":"cfs","tunables":{"hz":1000}}"#;
    let out = run(&with_duration(scenario(1, policy, tasks), "18ms"));
    assert_eq!(gantt(&out, 1), "cpu0 |AAACCCBBBAAACCCBBB|\n");
}

/// §6.1 Period: 10 nice-0 tasks on one CPU exceed sched_nr_latency (8), so the period is
/// 10 · 0.75 ms = 7.5 ms, as the inspector shows.
#[test]
fn cfs_period_stretches_past_nr_latency() {
    let tasks = r#"[{"name":"T","count":10,"program":[{"run":"1s"}]}]"#;
    let s = Scenario::from_json(&with_duration(scenario(1, CFS, tasks), "1s")).unwrap();
    let mut e = schedlab_policies::registry::engine(&s, RunOptions::default()).unwrap();
    e.run_until(Nanos::from_ms(1)).unwrap();
    let facts = e.inspect(CpuId(0)).facts;
    assert!(
        facts
            .iter()
            .any(|f| f == "nr_running 10, load 10240, period 7.500 ms"),
        "{facts:?}"
    );
}

/// A CPU hog A and a sleeper B on one CPU (HZ 250, latency 6 ms, wakeup_gran 1 ms).
/// B first runs at the 4 ms tick (A's 4 ms > its 3 ms slice) and sleeps at once, then sleeps
/// `sleep` and runs 10 ms, twice.
fn sleeper(policy: &str, sleep: &str) -> RunOutput {
    let tasks = format!(
        r#"[{{"name":"A","program":[{{"run":"10s"}}]}},
            {{"name":"B","program":[{{"repeat":2,"body":[{{"sleep":"{sleep}"}},{{"run":"10ms"}}]}}]}}]"#
    );
    run(&with_duration(scenario(1, policy, &tasks), "3s"))
}

/// §6.1 Placement: after a long sleep B is placed at min_vruntime − latency/2: its credit is
/// exactly 3 ms of A's vruntime (A is min_vruntime), never more, however long it slept (100 ms
/// and 1 s here). 3 ms > wakeup_gran 1 ms, so it preempts A on the spot (latency 0).
/// First wake-up at 104 ms: A started at vruntime 6 ms (START_DEBIT: one 6 ms slice when alone)
/// and has run 104 ms, so A and min_vruntime are at 110 000 µs and B is placed at 107 000 µs.
#[test]
fn cfs_sleeper_credit_is_half_the_latency_at_most() {
    for sleep in ["100ms", "1s"] {
        let out = sleeper(CFS, sleep);
        let picks: Vec<(u64, i64)> = observed(&out, 1);
        let mut checked = 0;
        // Its first run at 4 ms follows its arrival, not a wake-up.
        for (at_ms, v) in picks.into_iter().filter(|&(at, _)| at >= 100) {
            let Some(a) = observed_at(&out, 0, at_ms * 1000) else {
                continue;
            };
            // The picks right after a wake-up (A was put away at the same instant).
            if a > v {
                assert_eq!(a - v, 3_000, "credit at {at_ms} ms (sleep {sleep})");
                checked += 1;
            }
        }
        assert_eq!(checked, 2, "two wake-ups (sleep {sleep})");
        let lat = &out.metrics.latencies[1];
        assert_eq!(lat.len(), 2);
        assert!(lat.iter().all(|&l| l == 0), "{lat:?}");
    }
    let out = sleeper(CFS, "100ms");
    assert_eq!(observed_at(&out, 1, 104_000), Some(107_000));
}

/// §6.1 Wake preemption: a woken task preempts only if it is more than wakeup_gran behind. With
/// sched_wakeup_granularity 4 ms (> the 3 ms credit), B woken at 105.5 ms (sleeping 101.5 ms
/// from the 4 ms tick) waits for A's next tick at 108 ms: latency 2.5 ms; with the default 1 ms
/// it runs at once.
#[test]
fn cfs_wakeup_preemption_needs_more_than_the_granularity() {
    let coarse = r#"{"id":"cfs","tunables":{"sched_wakeup_granularity":4000}}"#;
    let out = sleeper(coarse, "101500us");
    assert_eq!(out.metrics.latencies[1][0], 2_500_000);
    let out = sleeper(CFS, "101500us");
    assert_eq!(out.metrics.latencies[1][0], 0);
}

/// §6.1 Placement, child placement: a parent forks at 1 ms. With sched_child_runs_first the
/// child takes the parent's (smaller) vruntime and runs at once (its 4 ms tick sees 3 ms run,
/// not more than its 3 ms slice, and a vdiff of 0, so it finishes its 5 ms). By default the
/// parent goes on until the 4 ms tick ends its 3 ms slice (2 tasks, latency 6 ms); the child
/// then runs 4 ms to the 8 ms tick, the parent 4 ms to 12 ms, the child its last 1 ms.
#[test]
fn cfs_child_runs_first() {
    let tasks = r#"[{"name":"P","program":[{"run":"1ms"},
                     {"fork":{"program":[{"run":"5ms"}]}},{"run":"10ms"}]}]"#;
    let first = r#"{"id":"cfs","tunables":{"sched_child_runs_first":1}}"#;
    let out = run(&scenario(1, first, tasks));
    assert_eq!(gantt(&out, 1), "cpu0 |ABBBBBAAAAAAAAAA|\n");
    let out = run(&scenario(1, CFS, tasks));
    assert_eq!(gantt(&out, 1), "cpu0 |AAAABBBBAAAABAAA|\n");
}

/// §6.1 Nice change: reweighting keeps vruntime and changes the rate from then on. A hog that
/// renices itself to 5 after 1 s runs at 1024:335 against a nice-0 hog from then on: of the
/// next 10 s it gets 335/1359 = 24.65% (2465 ms), within 1%.
#[test]
fn cfs_nice_change_reweights() {
    let tasks = r#"[{"name":"A","program":[{"run":"100s"}]},
                    {"name":"B","program":[{"run":"500ms"},{"nice":5},{"run":"100s"}]}]"#;
    let out = run(&with_duration(scenario(1, CFS, tasks), "11s"));
    let b = cpu_ms(&out, 1);
    // About 500 ms before the change (the first second at 1:1), then 24.65% of 10 s.
    assert!(b.abs_diff(500 + 2_465) <= 110, "B {b} ms");
}

/// §6.2 Placement: a new task starts at V with a full slice in 6.6 (wake_up_new_task's enqueue
/// places it again without ENQUEUE_INITIAL): 1 CPU, base_slice 0.75 ms, so A and B arriving at
/// 0 both have deadline 0.750 ms. With the v6.12 placement (place_deadline_initial 1, commit
/// c40dd90ac045) the first deadline is half a slice away: 0.375 ms.
#[test]
fn eevdf_new_task_gets_a_full_slice_in_6_6_and_half_from_6_12() {
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},
                    {"name":"B","program":[{"run":"1s"}]}]"#;
    for (policy, key) in [
        (EEVDF, "deadline 0.750 ms"),
        (
            r#"{"id":"eevdf","tunables":{"place_deadline_initial":1}}"#,
            "deadline 0.375 ms",
        ),
    ] {
        let s = Scenario::from_json(&with_duration(scenario(1, policy, tasks), "1s")).unwrap();
        let mut e = schedlab_policies::registry::engine(&s, RunOptions::default()).unwrap();
        e.run_until(Nanos::ZERO).unwrap();
        let q = &e.inspect(CpuId(0)).queues[0];
        let keys: Vec<&str> = q.entries.iter().map(|x| x.key.as_str()).collect();
        assert_eq!(keys, [key, key], "{policy}");
    }
}

/// 6.6 `set_user_nice`: the running task renicing itself is dequeued (lag saved), its saved lag
/// rescaled by old/new weight, and placed again with a fresh full request.
///
/// By hand, 1 CPU, base_slice 0.75 ms, HZ 250. A and B (nice 0) arrive at 0 at V 0, deadline
/// 0.75 ms; A runs first (equal keys: earlier insertion). Used-up requests are noticed at the
/// ticks: at 4 ms A (vruntime 4, deadline 4.75) yields to B (0 <= V 2); at 8 ms B (4, 4.75)
/// gives way to A (equal deadlines, A inserted first); at 12 ms A (8, 8.75) to B, whose 5 ms
/// burst ends at 13 ms with vruntime 5. The renice: V = (8 + 5)/2 = 6.5, saved lag 1.5 ms
/// (inside ±4 ms). Rescaled by 1024/335: 4_585_074 ns. Placed with A alone in the queue
/// (W 1024): inflated by (1024 + 335)/1024 to 6_085_140, vruntime 8 ms − that = 1.914860 ms,
/// deadline + 0.75 ms·1024/335 (2_292_537) = 4.207397 ms. The weighted lag is kept:
/// V is still 6.5 ms and 335·4.585 ≈ 1024·1.5. B is eligible with the earliest deadline, so
/// the resched that prio_changed_fair asks for (nice went up) picks B again.
#[test]
fn eevdf_renice_dequeues_rescales_the_lag_and_places_again() {
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},
                    {"name":"B","program":[{"run":"5ms"},{"nice":5},{"run":"1s"}]}]"#;
    let out = run(&with_duration(scenario(1, EEVDF, tasks), "100ms"));
    let renice: Vec<String> = out
        .trace
        .notes()
        .filter(|a| a.note.render().starts_with("renice"))
        .map(|a| format!("{} {}", a.time.0 / 1000, a.note.render()))
        .collect();
    assert_eq!(
        renice,
        vec![
            "13000 renice: weight 1024 -> 335, lag rescaled to 4.585 ms, placed at vruntime \
             1.914 ms, deadline 4.207 ms"
                .to_string()
        ]
    );
    assert_eq!(gantt(&out, 1)[..22].to_string(), "cpu0 |AAAABBBBAAAABBBB");
}

/// A latency-sensitive task W (0.5 ms of CPU every 10 ms) among 3 nice-0 hogs on one CPU.
fn waker(policy: &str) -> RunOutput {
    let tasks = r#"[{"name":"H","count":3,"program":[{"run":"100s"}]},
                    {"name":"W","program":[{"repeat":"forever","body":[
                        {"run":"500us"},{"sleep":"9500us"}]}]}]"#;
    run(&with_duration(scenario(1, policy, tasks), "5s"))
}

/// §6.2 Behaviour: a sleeper is "neither penalised nor over-rewarded": W keeps the lag it saved.
/// When that lag is positive it is eligible with the earliest deadline and preempts on the spot
/// (median latency 0); when its last run left it slightly ahead of V (negative lag) it waits
/// until it is eligible again, which the CPU notices at the next tick: never more than one tick
/// (4 ms at HZ 250). CFS instead gives every long sleeper the 3 ms credit, so W always preempts
/// at once there (latency 0). Every cycle of W is served in both.
#[test]
fn eevdf_latency_sensitive_waker_keeps_its_lag() {
    let out = waker(EEVDF);
    let w = &out.metrics.tasks[3];
    assert_eq!(w.wakeup_latency_ns.p50, 0, "{w:?}");
    assert!(w.wakeup_latency_ns.max <= 4_000_000, "{w:?}");
    assert!(w.wakeup_latency_mean_ns <= 2_000_000, "{w:?}");
    // W's period is 10 ms plus its latency: about half its wake-ups wait a 4 ms tick, so about
    // 5 s / 12 ms = 416 wake-ups, each served.
    assert!(w.wakeups >= 400 && w.cpu_ns >= w.wakeups * 500_000, "{w:?}");
    let out = waker(CFS);
    let w = &out.metrics.tasks[3];
    assert_eq!(w.wakeup_latency_ns.max, 0, "{w:?}");
    assert_eq!(w.wakeups, 499, "{w:?}");
}

/// §6.2 Dequeue and placement: every lag saved at dequeue is within the clamp (nice 0, 1 CPU,
/// HZ 250: ±max(2·0.75 ms, 4 ms) = ±4 ms), and PLACE_LAG's inflation gives a woken task back the
/// lag it saved, to within the rounding of V (1 µs in the notes).
#[test]
fn eevdf_lag_is_clamped_and_kept_across_sleep() {
    let out = waker(EEVDF);
    let notes: Vec<_> = out.trace.notes().collect();
    let mut saved = 0;
    let mut placed = 0;
    let mut clamped = 0;
    for n in &notes {
        let text = n.note.text;
        if text.starts_with("dequeued with lag") {
            let lag = n.note.args[0];
            assert!(lag.abs() <= 4_000, "{}", n.note.render());
            // "(clamped from ...)" only where the clamp changed the lag: it is then at the
            // limit and the lag before it beyond.
            if text.contains("clamped") {
                assert_eq!(lag.abs(), 4_000, "{}", n.note.render());
                assert!(n.note.args[1].abs() >= 4_000, "{}", n.note.render());
                clamped += 1;
            }
            saved += 1;
        }
        if text.starts_with("placed:") {
            let (lag, was) = (n.note.args[1], n.note.args[2]);
            assert!(lag.abs_diff(was) <= 1, "{}", n.note.render());
            placed += 1;
        }
    }
    assert!(saved >= 400 && placed >= 400, "{saved} {placed}");
    assert!(
        clamped < saved,
        "{clamped} of {saved} dequeues say they were clamped"
    );
}

/// §6.1/§6.2 on 2 CPUs: four hogs spread two per CPU at fork time and each gets half a CPU
/// (within 2%); both CPUs stay busy.
#[test]
fn four_hogs_on_two_cpus_get_half_a_cpu_each() {
    let tasks = r#"[{"name":"H","count":4,"program":[{"run":"100s"}]}]"#;
    for policy in [CFS, EEVDF] {
        let out = run(&with_duration(scenario(2, policy, tasks), "4s"));
        for t in 0..4 {
            let ms = cpu_ms(&out, t);
            assert!(ms.abs_diff(2_000) <= 40, "{policy}: task {t} {ms} ms");
        }
    }
}

/// §6.1/§6.2 on 2 CPUs: a CPU left with nothing pulls waiting work from the other (idle
/// balance). Three hogs start on CPU 0 and 1 as forks of one parent; when the parent and one
/// child exit, the remaining ones end up on both CPUs and everyone finishes by 5 ms of
/// makespan slack.
#[test]
fn idle_cpu_pulls_waiting_work() {
    let tasks = r#"[{"name":"P","program":[
        {"fork":{"program":[{"run":"20ms"}]}},{"fork":{"program":[{"run":"20ms"}]}},
        {"fork":{"program":[{"run":"20ms"}]}},{"fork":{"program":[{"run":"20ms"}]}},
        {"run":"1ms"},{"wait":"all"}]}]"#;
    for policy in [CFS, EEVDF] {
        let out = run(&scenario(2, policy, tasks));
        // 81 ms of work on 2 CPUs: at least 40.5 ms; idle pulls keep it near that.
        let end = out.end.0 / 1_000_000;
        assert!((41..=46).contains(&end), "{policy}: ended at {end} ms");
    }
}

/// Determinism: the same mixed scenario twice gives the same trace hash, with or without
/// notes, for both policies on 2 CPUs; the two policies differ.
#[test]
fn runs_are_deterministic() {
    let tasks = r#"[{"name":"H","nice":3,"program":[{"run":"2s"}]},
                    {"name":"I","count":3,"program":[{"repeat":50,"body":[
                        {"run":{"exponential":{"mean":"3ms"}}},
                        {"sleep":{"uniform":{"min":"1ms","max":"20ms"}}},"yield"]}]},
                    {"name":"F","program":[{"fork":{"program":[{"run":"30ms"},{"nice":-2},{"run":"30ms"}]}},
                        {"run":"50ms"},{"wait":"all"}]}]"#;
    let mut hashes = Vec::new();
    for policy in [CFS, EEVDF] {
        let json = with_duration(scenario(2, policy, tasks), "3s");
        let a = run(&json);
        let b = run(&json);
        assert_eq!(a.hash, b.hash, "{policy}");
        let s = Scenario::from_json(&json).unwrap();
        let quiet = schedlab_policies::run(
            &s,
            RunOptions {
                detail: Detail::Summary,
                ..RunOptions::default()
            },
        )
        .unwrap();
        assert_eq!(a.hash, quiet.hash, "{policy}");
        hashes.push(a.hash);
    }
    assert_ne!(hashes[0], hashes[1]);
}

#[test]
fn eevdf_five_thousand_yielders_take_o1_eligibility_tests() {
    // Issue 15's reproducer: 5,000 tasks that run 1 µs and yield. With V recomputed from the
    // queue for every eligibility test a pick cost O(n²); with avg_vruntime kept incrementally
    // it is a scan of the eligible prefix. 20 ms of CPU at 1 µs a turn: 20,000 turns, so
    // every task runs about four times, in deadline order (nobody runs twice before everyone
    // has run once: yield pushes the deadline one slice on, placing each new task at V).
    let json = with_duration(
        scenario(
            1,
            EEVDF,
            r#"[{"name":"y","count":5000,"program":[{"repeat":"forever","body":[{"run":"1us"},"yield"]}]}]"#,
        ),
        "20ms",
    );
    let s = Scenario::from_json(&json).unwrap();
    let out = schedlab_policies::run(
        &s,
        RunOptions {
            detail: Detail::Summary,
            ..RunOptions::default()
        },
    )
    .unwrap();
    let cpu: Vec<u64> = out.metrics.tasks.iter().map(|t| t.cpu_ns).collect();
    assert_eq!(cpu.len(), 5000);
    assert_eq!(
        (cpu.iter().min(), cpu.iter().max()),
        (Some(&4_000), Some(&4_000)),
        "each task runs 4 turns of 1 µs"
    );
    // A switch at every turn; each turn is a burst end and a yield's reschedule.
    assert_eq!(out.metrics.run.context_switches, 20_001);
    assert!(out.events >= 20_000, "{} events", out.events);
}

/// 6.5 buddies. W wakes at 48.5 ms with the sleeper credit (min_vruntime − 3 ms), more than the
/// 1 ms wakeup granularity behind the hog that the tick at 48 ms put on the CPU: it preempts and
/// becomes the next buddy; with `hogs` + W queued at or above sched_nr_latency (8) the preempted
/// hog becomes the last buddy. W runs 0.1 ms and sleeps (dequeue clears it); the pick then gives
/// the CPU back to the last buddy, since it ran only 0.5 ms of virtual time past its pick as the
/// leftmost (within the 1 ms granularity).
fn buddies(hogs: u32) -> RunOutput {
    let tasks = format!(
        r#"[{{"name":"W","program":[{{"sleep":"48500us"}},{{"run":"100us"}},{{"sleep":"1s"}}]}},
            {{"name":"H","count":{hogs},"program":[{{"run":"1s"}}]}}]"#
    );
    run(&with_duration(scenario(1, CFS, &tasks), "60ms"))
}

/// The notes between 48 and 48.6 ms, as "µs task text".
fn notes_48(out: &RunOutput) -> Vec<String> {
    out.trace
        .notes()
        .filter(|a| (48_000..=48_600).contains(&(a.time.0 / 1000)))
        .map(|a| {
            format!(
                "{} {} {}",
                a.time.0 / 1000,
                out.tasks[a.task.index()].name,
                a.note.render()
            )
        })
        .collect()
}

#[test]
fn cfs_wakeup_preemption_sets_next_and_last_buddies() {
    // H-5 is picked at 48 ms at vruntime 11.2 ms; at 48.5 it has 11.7 and the leftmost waiting
    // hog 11.5, so min_vruntime is 11.5 and W (vruntime 6.0, asleep since 0) is placed at
    // 11.5 − 3 = 8.5: vdiff 3.2 ms > 1 ms. 9 queued >= 8: H-5 is the last buddy. At 48.6 the
    // leftmost is the 11.5 hog, but H-5 (0.2 ms right of it, within 1 ms) gets the CPU back.
    let out = buddies(8);
    assert_eq!(
        notes_48(&out),
        [
            "48000 H-6 tick: ran 4.000 ms > ideal slice 0.750 ms: resched",
            "48000 H-5 picked: vruntime 11.200 ms, slice 0.750 ms of period 6.000 ms (8 running)",
            "48500 W sleeper credit: vruntime 6.000 -> 8.500 ms (min_vruntime 11.500 - 3.000 ms)",
            "48500 W wakeup preempts: vdiff 3.200 ms > gran 1.000 ms; next buddy, the preempted \
             task is the last buddy (9 queued)",
            "48500 W picked as a buddy: vruntime 8.500 ms, slice 0.750 ms of period 6.750 ms \
             (9 running)",
            "48600 H-5 picked as a buddy: vruntime 11.700 ms, slice 0.750 ms of period 6.000 ms \
             (8 running)",
        ]
    );
    // Below sched_nr_latency (6 hogs + W = 7 queued) only the next buddy is set: after W the
    // leftmost hog runs, not the preempted one.
    let out = buddies(6);
    let n = notes_48(&out);
    assert!(
        n.iter().any(|x| x.ends_with("> gran 1.000 ms; next buddy")),
        "{n:#?}"
    );
    assert!(!n.iter().any(|x| x.contains("last buddy")), "{n:#?}");
    let last = n.last().expect("a pick at 48.6 ms");
    assert!(
        last.starts_with("48600 ") && last.contains(" picked: "),
        "{n:#?}"
    );
}

/// 6.5 `set_user_nice` on the running task: vruntime kept, weight changed, and its slice
/// accounting restarts (`set_next_entity`). A (vruntime 6 ms, START_DEBIT of a lone task) runs
/// 3 ms and renices itself to −10 (weight 9548): no resched, since its nice went down. B waits
/// at 9 ms. Ideal slice 6 ms·9548/10572 = 5.418 ms. At the tick at 8 ms A has run 5 ms of the
/// new slice (8 without the restart, which would resched): 5 < 5.418, and its vruntime 9 +
/// 5·1024/9548 = 9.536 ms is only 0.536 ms right of B's: A keeps the CPU until the tick at
/// 12 ms (9 ms > 5.418).
#[test]
fn cfs_renicing_the_running_task_restarts_its_slice() {
    let tasks = r#"[{"name":"A","program":[{"run":"3ms"},{"nice":-10},{"run":"1s"}]},
                    {"name":"B","program":[{"run":"1s"}]}]"#;
    let out = run(&with_duration(scenario(1, CFS, tasks), "20ms"));
    let a: Vec<String> = out
        .trace
        .notes()
        .filter(|n| n.task.0 == 0 && n.time.0 <= 12_000_000)
        .map(|n| format!("{} {}", n.time.0 / 1000, n.note.render()))
        .collect();
    assert_eq!(
        a[2..],
        [
            "3000 renice: weight 1024 -> 9548, vruntime kept at 9.000 ms, slice accounting \
             restarts",
            "12000 tick: ran 9.000 ms > ideal slice 5.418 ms: resched",
        ]
    );
    assert_eq!(gantt(&out, 1)[..19].to_string(), "cpu0 |AAAAAAAAAAAAB");
}

/// v6.12 PLACE_REL_DEADLINE (82e9d0456e06): a task the balancer moves keeps its deadline
/// relative to its vruntime; 6.6 gives it a fresh request one slice away. On 2 CPUs (slice
/// 1.5 ms) A and C share cpu0 while B has cpu1. A yields at 1 ms (vruntime 1, deadline 1.5 +
/// 1.5 = 3.0) and C runs; when B exits at 2 ms cpu1 pulls the leftmost waiting entity of cpu0,
/// A, 2 ms before its deadline. 6.6 places it with a new deadline 1.5 ms away.
#[test]
fn eevdf_place_rel_deadline_keeps_a_moved_tasks_deadline() {
    let tasks = r#"[{"name":"A","program":[{"run":"1ms"},"yield",{"run":"1s"}]},
                    {"name":"B","program":[{"run":"2ms"}]},
                    {"name":"C","program":[{"run":"1s"}]}]"#;
    let json = |rel: u8| {
        with_duration(
            scenario(
                2,
                &format!(r#"{{"id":"eevdf","tunables":{{"place_rel_deadline":{rel}}}}}"#),
                tasks,
            ),
            "20ms",
        )
    };
    let moved = |out: &RunOutput| {
        out.trace
            .notes()
            .map(|a| {
                (
                    a.time,
                    out.tasks[a.task.index()].name.clone(),
                    a.note.render(),
                )
            })
            .find(|n| n.2.starts_with("balance: moved"))
            .expect("a balancing move")
    };
    // 6.6: a fresh request, calc_delta_fair(1.5 ms) for nice 0.
    let (_, _, note) = moved(&run(&json(0)));
    assert!(
        note.ends_with("new deadline 1.500 ms after its vruntime"),
        "{note}"
    );
    // 6.12: the relative deadline it had on cpu0 just before the move.
    let out = run(&json(1));
    let (at, who, note) = moved(&out);
    let s = Scenario::from_json(&json(1)).unwrap();
    let mut e = schedlab_policies::registry::engine(&s, RunOptions::default()).unwrap();
    e.run_until(Nanos(at.0 - 1)).unwrap();
    let q = &e.inspect(CpuId(0)).queues[0];
    let id = out.tasks.iter().position(|t| t.name == who).unwrap() as u32;
    let entry = q.entries.iter().find(|x| x.task == id).unwrap();
    let ms = |s: &str| -> i64 {
        let v = s.split_whitespace().next().unwrap();
        v.replace('.', "").parse().unwrap()
    };
    let deadline = ms(entry.key.trim_start_matches("deadline "));
    let vruntime = ms(entry.detail.split("vruntime ").nth(1).unwrap());
    let rel = deadline - vruntime;
    assert_eq!((who.as_str(), at, rel), ("A", Nanos::from_ms(2), 2_000));
    assert!(
        note.ends_with(&format!(
            "its deadline {}.{:03} ms after its vruntime",
            rel / 1000,
            rel % 1000
        )),
        "{note} (before the move: {} / {})",
        entry.key,
        entry.detail
    );
}

/// Engine order (the tick before same-instant wake-ups, schedule() after both), under CFS's
/// hrtimer tick: W's timer expires at 8 ms, exactly on a tick. The tick runs first and finds the
/// running hog H-2 past its ideal slice (4 ms > 6 ms·1024/2048): resched. Before the interrupt
/// returns W wakes with its sleeper credit; the pending reschedule makes check_preempt_wakeup
/// return early (test_tsk_need_resched), so no wake-up preemption is judged and W is not made
/// the next buddy; schedule() then picks the leftmost, W (7 ms against H-1's 10).
#[test]
fn cfs_tick_comes_before_a_timer_wakeup_at_the_same_instant() {
    let tasks = r#"[{"name":"W","program":[{"sleep":"8ms"},{"run":"1ms"}]},
                    {"name":"H","count":2,"program":[{"run":"1s"}]}]"#;
    let out = run(&with_duration(scenario(1, CFS, tasks), "20ms"));
    let at8: Vec<String> = out
        .trace
        .notes()
        .filter(|a| a.time == Nanos::from_ms(8))
        .map(|a| format!("{} {}", out.tasks[a.task.index()].name, a.note.render()))
        .collect();
    assert_eq!(
        at8,
        [
            "H-2 tick: ran 4.000 ms > ideal slice 3.000 ms: resched",
            "W sleeper credit: vruntime 6.000 -> 7.000 ms (min_vruntime 10.000 - 3.000 ms)",
            "W picked: vruntime 7.000 ms, slice 2.000 ms of period 6.000 ms (3 running)",
        ]
    );
}

const THREE_HOGS: &str = r#"[{"name":"A","program":[{"run":"100s"}]},
                             {"name":"B","program":[{"run":"100s"}]},
                             {"name":"C","program":[{"run":"100s"}]}]"#;

/// The periodic balancer's notes (`fair_balance`), as "ms task text".
fn balance_notes(out: &RunOutput, until_ms: u64) -> Vec<String> {
    out.trace
        .notes()
        .filter(|a| a.time.0 / 1_000_000 <= until_ms)
        .map(|a| {
            format!(
                "{} {} {}",
                a.time.0 / 1_000_000,
                out.tasks[a.task.index()].name,
                a.note.render()
            )
        })
        .filter(|s| s.contains("balance:"))
        .collect()
}

/// Three nice-0 hogs on 2 CPUs under eevdf (HZ 250, base_slice 0.7 ms × 2): fork placement
/// puts A on cpu0, B on the idle cpu1, C beside A. Cpu1's domain is due every 7 jiffies
/// (28 ms) while busy. At 28 ms B's utilization (512 from `post_init_entity_util_avg` on an
/// empty CPU, then `1024 − 512·y^28` ≈ 745) is below 876: cpu1 has spare capacity, the
/// attempt ends balanced and `balance_interval` doubles to 4 ms (15 jiffies, 60 ms). At 88 ms
/// (`1024 − 512·y^88` ≈ 948) cpu1 is fully busy and asks cpu0 for load 512 (avg 1536) and the
/// waiting hog weighs 1023: too heavy, nr_balance_failed 1. At 116 ms `1023 >> 1 = 511` fits but cpu0's
/// tick switched its hogs at that instant, so the waiting one stopped 0 ms ago: cache hot
/// (nr_balance_failed 1 is not above cache_nice_tries 1), failed 2. At 144 ms hotness no longer
/// counts and 1023 >> 2 fits: it moves. Over 10 s the lone hog's role passes around and
/// each gets a third of the 20 s of CPU within 1 % (200 ms): the kernel's 33/33/33, where the
/// old task-count rule gave 25/50/25.
#[test]
fn eevdf_three_hogs_on_two_cpus_rotate() {
    let json = scenario(
        2,
        r#"{"id":"eevdf","tunables":{"base_slice":700,"hz":250}}"#,
        THREE_HOGS,
    );
    let out = run(&with_duration(json, "10s"));
    let notes = balance_notes(&out, 144);
    assert_eq!(
        notes,
        [
            "88 B balance: pulling load 512 from cpu0 found no task light or cold enough (nr_balance_failed 1)",
            "116 B balance: pulling load 512 from cpu0 found no task light or cold enough (nr_balance_failed 2)",
            "144 C balance: moved from cpu0 to cpu1 keeping lag 0.000 ms; new deadline 1.400 ms after its vruntime",
        ]
    );
    for t in 0..3 {
        let ms = cpu_ms(&out, t);
        assert!(ms.abs_diff(6_667) <= 200, "task {t}: {ms} ms");
    }
}

/// CFS's slices (6 ms of a 12 ms period on 2 CPUs) end on every second tick, so which hog
/// waits at a balance repeats more regularly than under eevdf; still every hog moves and none
/// keeps a CPU to itself: each gets between a fifth and a half of the 20 s.
#[test]
fn cfs_three_hogs_on_two_cpus_all_move() {
    let json = scenario(2, r#"{"id":"cfs","tunables":{"hz":250}}"#, THREE_HOGS);
    let out = run(&with_duration(json, "10s"));
    for t in 0..3 {
        let ms = cpu_ms(&out, t);
        assert!((4_000..10_000).contains(&ms), "task {t}: {ms} ms");
    }
}

/// The reality check's pinned-beside-free row under eevdf: P pinned to cpu1, two free hogs.
/// `can_migrate_task` never moves P, but the free hogs still trade places through the periodic
/// balancer, so P is alone on cpu1 part of the time: more than the quarter of the 20 s of CPU
/// it would get sharing cpu1 for good (5 s). A free hog that arrives on a CPU after sharing
/// one has PELT utilization near 512, so its CPU has spare capacity for about 57 ms and its
/// balancing attempts end balanced meanwhile, and P's share is set by how long each
/// arrangement lasts (7.280 s of 20 s under 6.6, 7.036 s under 6.18), not pinned to a third.
/// Nothing else runs and both CPUs tick at the same instants, so the balancer's attempts keep
/// one phase against the alternation of the hogs that share a CPU: under 6.6 the same free hog
/// is the one waiting at nearly every successful attempt, and a hog that always moves always
/// joins a shared CPU, so it gets little more than a quarter (5.164 s). Under 6.18 the pull
/// from P's CPU that finds only the ineligible, just-preempted free hog ends all pinned
/// (873199d27bb2), which shifts that phase, and the free hogs come out even (6.444 and
/// 6.520 s). Every free hog moves, none gets less than a quarter.
#[test]
fn eevdf_pinned_beside_free_hogs_is_sometimes_alone() {
    let tasks = r#"[{"name":"P","cpus":[1],"program":[{"run":"100s"}]},
                    {"name":"A","program":[{"run":"100s"}]},
                    {"name":"B","program":[{"run":"100s"}]}]"#;
    for kernel in [606, 618] {
        let policy = format!(
            r#"{{"id":"eevdf","tunables":{{"base_slice":700,"hz":250,"kernel":{kernel}}}}}"#
        );
        let out = run(&with_duration(scenario(2, &policy, tasks), "10s"));
        assert!(out.metrics.tasks[0].migrations == 0);
        let p = cpu_ms(&out, 0);
        assert!((5_500..8_000).contains(&p), "{kernel} P: {p} ms");
        for t in 1..3 {
            assert!(out.metrics.tasks[t].migrations > 0);
            let ms = cpu_ms(&out, t);
            assert!((5_000..8_000).contains(&ms), "{kernel} task {t}: {ms} ms");
        }
    }
}

/// The notes `task` received, as "µs text", up to `until_us`.
fn notes_of(out: &RunOutput, task: &str, until_us: u64) -> Vec<String> {
    let id = out.tasks.iter().position(|t| t.name == task).unwrap() as u32;
    out.trace
        .notes()
        .filter(|a| a.task == TaskId(id) && a.time.0 <= until_us * 1000)
        .map(|a| format!("{} {}", a.time.0 / 1000, a.note.render()))
        .collect()
}

/// A hog A and B, which arrives at 5 ms, runs 2 ms, sleeps 10 ms and runs again; 1 CPU, HZ
/// 1000, base slice 1 ms. `kernel` 606 or 618, `delay` DELAY_DEQUEUE.
fn delayed_sleeper(kernel: i64, delay: i64) -> RunOutput {
    let policy = format!(
        r#"{{"id":"eevdf","tunables":{{"kernel":{kernel},"delay_dequeue":{delay},"hz":1000,"base_slice":1000}}}}"#
    );
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},
                    {"name":"B","arrival":"5ms","program":[{"run":"2ms"},{"sleep":"10ms"},{"run":"1s"}]}]"#;
    run(&with_duration(scenario(1, &policy, tasks), "30ms"))
}

/// 6.18 DELAY_DEQUEUE by hand. B arrives at V = 5 ms (A ran 5 ms) with half a slice (6.12's
/// PLACE_DEADLINE_INITIAL: deadline 5.5 ms, before A's 6 ms) and preempts. A and B alternate
/// by request (1 ms each) until B sleeps at 8 ms with vruntime 7 ms while A has 6 ms: V = 6.5,
/// lag −0.5 ms, not eligible, so B stays queued. At the 9 ms tick A (vruntime 7) used its
/// request; V = 7, both eligible with deadline 8 ms, and the running one loses the tie: the pick
/// lands on B, which is dequeued for good then with lag 0. It wakes at 18 ms with lag 0 at V =
/// 16 ms (A alone ran 9 ms more): deadline 17 ms, A's request was renewed at the 18 ms tick to
/// 17 ms too, and B preempts.
#[test]
fn eevdf_6_18_delayed_dequeue_keeps_a_sleeper_queued_until_eligible() {
    let out = delayed_sleeper(618, 1);
    assert_eq!(
        notes_of(&out, "B", 18_000),
        [
            "5000 new task at V 5.000 ms (lag 0.000 ms, saved 0.000 ms), deadline 5.500 ms: half a slice away",
            "5000 wakeup preempts: earliest deadline 5.500 ms among 2 eligible (lag 0.000 ms)",
            "5000 picked: earliest deadline 5.500 ms among 2 eligible (V 5.000 ms, lag 0.000 ms)",
            "6000 request used up: new deadline 7.000 ms (vruntime 6.000 ms): resched",
            "7000 picked: earliest deadline 7.000 ms among 2 eligible (V 6.000 ms, lag 0.000 ms)",
            "8000 request used up: new deadline 8.000 ms (vruntime 7.000 ms): resched",
            "8000 sleeps with lag -0.500 ms, not eligible: stays queued (DELAY_DEQUEUE)",
            "9000 delayed dequeue: picked while asleep, lag 0.000 ms saved as 0.000 ms (DELAY_ZERO)",
            "18000 placed: V 16.000 ms, lag 0.000 ms (saved 0.000 ms), deadline 17.000 ms: eligible",
            "18000 wakeup preempts: earliest deadline 17.000 ms among 2 eligible (lag 0.000 ms)",
            "18000 picked: earliest deadline 17.000 ms among 2 eligible (V 16.000 ms, lag 0.000 ms)",
        ]
    );
    // Between 8 and 9 ms the inspector shows B asleep in the queue.
    let s = Scenario::from_json(&with_duration(
        scenario(
            1,
            r#"{"id":"eevdf","tunables":{"kernel":618,"hz":1000,"base_slice":1000}}"#,
            r#"[{"name":"A","program":[{"run":"1s"}]},
                {"name":"B","arrival":"5ms","program":[{"run":"2ms"},{"sleep":"10ms"},{"run":"1s"}]}]"#,
        ),
        "30ms",
    ))
    .unwrap();
    let mut e = schedlab_policies::registry::engine(&s, RunOptions::default()).unwrap();
    e.run_until(Nanos::from_us(8_500)).unwrap();
    let q = &e.inspect(CpuId(0)).queues[0];
    let b = q
        .entries
        .iter()
        .find(|x| x.task == 1)
        .expect("B still queued");
    assert!(
        b.detail.starts_with("asleep, still queued (delayed)"),
        "{}",
        b.detail
    );
    e.run_until(Nanos::from_us(9_500)).unwrap();
    let q = &e.inspect(CpuId(0)).queues[0];
    assert!(q.entries.iter().all(|x| x.task != 1), "{q:?}");

    // Without DELAY_DEQUEUE (and in 6.6) B leaves at once and carries its debt: it wakes
    // 0.5 ms behind V (PLACE_LAG keeps the saved lag) and is not eligible.
    for out in [delayed_sleeper(618, 0), delayed_sleeper(606, 1)] {
        let n = notes_of(&out, "B", 18_000);
        assert!(
            n.contains(&"8000 dequeued with lag -0.500 ms".to_string()),
            "{n:?}"
        );
        assert!(
            n.iter().any(|x| x.starts_with("18000 placed: V ")
                && x.contains("lag -0.500 ms (saved -0.500 ms)")
                && x.ends_with("not eligible")),
            "{n:?}"
        );
    }
}

/// Hogs A and C with the base slice (3 ms, 1 CPU, HZ 250) and B with its own 1 ms slice
/// (sched_attr), arriving at 12.5 ms.
fn short_waker(preempt_short: i64) -> RunOutput {
    let policy = format!(
        r#"{{"id":"eevdf","tunables":{{"kernel":618,"hz":250,"base_slice":3000,"preempt_short":{preempt_short}}}}}"#
    );
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},{"name":"C","program":[{"run":"1s"}]},
                    {"name":"B","arrival":"12500us","slice":"1ms","program":[{"run":"500us"}]}]"#;
    run(&with_duration(scenario(1, &policy, tasks), "30ms"))
}

/// 6.18 PREEMPT_SHORT and per-task slices by hand. A and C alternate by tick: C is picked at
/// 12 ms with vruntime 4 ms and deadline 7 ms, protected to its deadline. B arrives at 12.5 ms:
/// V = (A 8 + C 4.5) / 2 = 6.25 ms; its slice is its own 1 ms, so its first deadline is half of
/// it away, 6.75 ms, and the next one a whole 1 ms after its vruntime (6.75 -> 7.75 ms). C is
/// eligible and protected: without PREEMPT_SHORT B waits for the 16 ms tick; with it, B's
/// shorter slice lifts C's protection and B, the earliest deadline, preempts at once.
#[test]
fn eevdf_6_18_preempt_short_lets_a_short_slice_waker_preempt() {
    let with = notes_of(&short_waker(1), "B", 30_000);
    assert_eq!(
        with[..4],
        [
            "12500 new task at V 6.250 ms (lag 0.000 ms, saved 0.000 ms), deadline 6.750 ms: half a slice away",
            "12500 wakeup preempts (PREEMPT_SHORT: slice 1.000 ms < 3.000 ms): earliest deadline 6.750 ms among 2 eligible",
            "12500 picked: earliest deadline 6.750 ms among 2 eligible (V 6.250 ms, lag 0.000 ms)",
            "13000 request used up: new deadline 7.750 ms (vruntime 6.750 ms): resched",
        ]
    );
    let without = notes_of(&short_waker(0), "B", 30_000);
    assert_eq!(
        without[1..3],
        [
            "12500 no wakeup preemption: the running task runs to parity (deadline 6.750 ms)",
            "16000 picked: earliest deadline 6.750 ms among 1 eligible (V 7.416 ms, lag 1.166 ms)",
        ]
    );
}

/// The reality check's hog and periodic sleeper (1 ms of work, then a sleep, forever; one CPU,
/// HZ 250, slice 1.4 ms), with sleeps of `sleep`, under `kernel`.
fn hog_and_sleeper(kernel: i64, sleep: &str, duration: &str) -> RunOutput {
    run(&format!(
        r#"{{"version":1,"cpus":1,"duration":"{duration}","seed":1,"policy":{{"id":"eevdf","tunables":{{"kernel":{kernel},"base_slice":1400,"hz":250}}}},"tasks":[{{"name":"hog","program":[{{"run":"60s"}}]}},{{"name":"sleeper","program":[{{"body":[{{"run":"1ms"}},{{"sleep":"{sleep}"}}],"repeat":"forever"}}]}}]}}"#
    ))
}

/// The reality check's hog and sleeper, 1 ms every 10 ms. 6.6 carries the sleeper's debt across
/// each sleep (−0.5 ms after every 1 ms run), so it waits about 1 ms per period and completes 454
/// periods in 5 s. 6.18's DELAY_DEQUEUE lets the debt decay while it sleeps: it wakes with lag
/// 0 and, with exact 10 ms periods, always at a tick or 2 ms after one, where its deadline ties
/// the hog's (see the next test); the woken entity wins a tie, so it never waits.
#[test]
fn eevdf_6_18_sleeper_beside_a_hog_runs_at_once() {
    let old = hog_and_sleeper(606, "9ms", "5s");
    let new = hog_and_sleeper(618, "9ms", "5s");
    let cpu = |o: &RunOutput| o.metrics.tasks[1].cpu_ns / 1_000_000;
    let wait = |o: &RunOutput| o.metrics.tasks[1].wait_ns / 1_000_000;
    assert_eq!((cpu(&old), wait(&old)), (455, 454));
    assert_eq!((cpu(&new), wait(&new)), (500, 4));
}

/// 6.18, the same hog and sleeper by hand, with the sleep exactly 9 ms and 10 µs longer (the
/// kernel's wake-up path costs microseconds, so a real sleeper never wakes exactly at a tick).
/// Whether a sleeper woken with lag 0 preempts is a deadline comparison: RUN_TO_PARITY plays no
/// part, the hog's `vprot` (set when it was picked after the sleeper's previous run) being long
/// passed. The hog's request is renewed when a tick finds it used up (every tick: 4 ms > 1.4 ms),
/// to `vruntime + 1.4 ms`; the sleeper is placed at V, the hog's vruntime, with a deadline 1.4
/// ms after it.
///
/// Exact periods: the sleeper's first run (4-5 ms, after the hog's first tick) leaves it lag
/// 1.5 ms, each later run 0.5 ms less, and at 44 ms it wakes with lag 0 at the tick itself.
/// The tick renews the hog's request first: vruntime 40 ms, deadline 41.4 ms; the sleeper is
/// placed at V = 40 ms with deadline 41.4 ms: a tie, which the woken entity wins
/// (`entity_before` is strict). Wake-ups 2 ms past a tick (54 ms) tie too: the hog's request
/// is used up and renewed at the wake-up's `update_curr`.
///
/// 10 µs later each period: the fourth wake-up, at 44.04 ms, finds the hog's request renewed
/// at the 44 ms tick (vruntime 40 ms, deadline 41.4 ms) while the sleeper's is V = 40.04 +
/// 1.4 = 41.44 ms: the hog, eligible (its vruntime is V), keeps the CPU until the 48 ms tick
/// renews its request (vruntime 44 ms) and reschedules, and the sleeper, 1.98 ms behind V
/// then, waits 3.96 ms. So one wake-up in four waits, as in the kernel measured (454 wake-ups
/// in 5 s, p99 3.955 ms): after the wait it has lag again, and three periods of positive lag
/// preempt at once before it wakes with lag 0 just past a tick again.
#[test]
fn eevdf_6_18_sleeper_with_lag_0_waits_for_a_hog_renewed_at_the_tick() {
    let exact = hog_and_sleeper(618, "9ms", "60ms");
    let n = notes_of(&exact, "sleeper", 60_000);
    let at = |n: &[String], from: &str| {
        let i = n.iter().position(|x| x.starts_with(from)).expect(from);
        n[i..].to_vec()
    };
    assert_eq!(
        at(&n, "35000")[..4],
        [
            "35000 dequeued with lag 0.000 ms",
            "44000 placed: V 40.000 ms, lag 0.000 ms (saved 0.000 ms), deadline 41.400 ms: eligible",
            "44000 wakeup preempts: earliest deadline 41.400 ms among 2 eligible (lag 0.000 ms)",
            "44000 picked: earliest deadline 41.400 ms among 2 eligible (V 40.000 ms, lag 0.000 ms)",
        ]
    );
    assert!(
        n.contains(
            &"54000 wakeup preempts: earliest deadline 50.400 ms among 2 eligible (lag 0.000 ms)"
                .to_string()
        ),
        "{n:?}"
    );

    let late = hog_and_sleeper(618, "9010us", "60ms");
    let n = notes_of(&late, "sleeper", 60_000);
    assert_eq!(
        at(&n, "14010")[..2],
        [
            "14010 placed: V 11.510 ms, lag 1.500 ms (saved 1.500 ms), deadline 11.410 ms: eligible",
            "14010 wakeup preempts: earliest deadline 11.410 ms among 1 eligible (lag 1.500 ms)",
        ]
    );
    assert_eq!(
        at(&n, "35030")[..5],
        [
            "35030 dequeued with lag 0.000 ms",
            "44040 placed: V 40.040 ms, lag 0.000 ms (saved 0.000 ms), deadline 41.440 ms: eligible",
            "44040 no wakeup preemption: deadline 41.440 ms is not the earliest",
            "48000 picked: earliest deadline 41.440 ms among 1 eligible (V 42.020 ms, lag 1.980 ms)",
            "49000 dequeued with lag 1.480 ms",
        ]
    );
    let hog = notes_of(&late, "hog", 48_000);
    assert!(
        hog.contains(
            &"48000 request used up: new deadline 45.400 ms (vruntime 44.000 ms): resched"
                .to_string()
        ),
        "{hog:?}"
    );

    // Over 5 s: a cycle of four wake-ups in 44 ms, one of them waiting 3.96 ms.
    let late = hog_and_sleeper(618, "9010us", "5s");
    let s = &late.metrics.tasks[1];
    assert_eq!((s.cpu_ns / 1_000_000, s.wakeups), (455, 454));
    assert_eq!(s.wakeup_latency_ns.p99, 3_960_000);
    assert_eq!(s.wakeup_latency_ns.p50, 0);
}

/// 6.17's RUN_TO_PARITY by hand: A has the base slice (3 ms, 1 CPU, HZ 1000) and B its own
/// 1 ms. B's shorter slice preempts at once (PREEMPT_SHORT), runs its first half request to
/// 1 ms, then A is picked with vruntime 0 and deadline 1.5 ms, but protected only up to
/// vruntime 0 + B's 1 ms slice (`set_protect_slice` with the shortest queued slice): at the
/// 2 ms tick its protection is over and it is rescheduled although its request is not used up
/// (the pick keeps it: V 1 ms, both eligible, A's deadline 1.5 ms the earlier).
#[test]
fn eevdf_6_18_run_to_parity_is_limited_by_the_shortest_queued_slice() {
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},
                    {"name":"B","slice":"1ms","program":[{"run":"1s"}]}]"#;
    let policy = r#"{"id":"eevdf","tunables":{"kernel":618,"hz":1000,"base_slice":3000}}"#;
    let out = run(&with_duration(scenario(1, policy, tasks), "12ms"));
    assert_eq!(
        notes_of(&out, "A", 3_000),
        [
            "0 new task at V 0.000 ms (lag 0.000 ms, saved 0.000 ms), deadline 1.500 ms: half a slice away",
            "0 picked: earliest deadline 1.500 ms among 1 eligible (V 0.000 ms, lag 0.000 ms)",
            "1000 picked: earliest deadline 1.500 ms among 1 eligible (V 0.500 ms, lag 0.500 ms)",
            "2000 protected slice over (vprot 1.000 ms): resched",
            "3000 request used up: new deadline 5.000 ms (vruntime 2.000 ms): resched",
        ]
    );
    // 6.6 has no per-task slices: both have 3 ms requests and run to parity.
    let policy = r#"{"id":"eevdf","tunables":{"kernel":606,"hz":1000,"base_slice":3000}}"#;
    let out = run(&with_duration(scenario(1, policy, tasks), "12ms"));
    assert!(out
        .trace
        .notes()
        .all(|a| !a.note.render().starts_with("protected slice over")));
}

/// A scenario on `cpus` CPUs for `duration` with task `groups` (JSON), under `policy`.
fn grouped(cpus: u32, duration: &str, policy: &str, groups: &str, tasks: &str) -> RunOutput {
    run(&format!(
        r#"{{"version":1,"cpus":{cpus},"duration":"{duration}","seed":1,"policy":{policy},"groups":{groups},"tasks":{tasks}}}"#
    ))
}

/// 6.18 renice: the request in progress goes on (PLACE_REL_DEADLINE on the DEQUEUE_SAVE, the
/// distance scaled by 6.13's `reweight_entity`). 1 CPU, HZ 1000, slice 3 ms. A is picked at 0
/// with half a slice (deadline 1.5 ms) and protected to it; B arrives at V 0 with deadline 1.5
/// ms too and waits. 2 ms: A (vruntime 2, new deadline 5) gives way to B (V 1). 4 ms: B
/// (2, 5) ties A; the timeline wins, A runs. 7 ms: A (5, 8) gives way to B (2, 5, protected to
/// 5). B's burst ends at 9.5 ms with vruntime 4.5, and it renices itself to 5 (weight 335):
/// V = (5 + 4.5)/2 = 4.75, lag 0.25 ms, 0.5 ms left to its deadline. Scaled by 1024/335: lag
/// 764_179 ns, distance 1_528_358 ns. Placed beside A alone (V 5 ms, W 1024): lag inflated by
/// 1359/1024 to 1_014_178, vruntime 3_985_822, deadline 3_985_822 + 1_528_358 = 5_514_180
/// (6.6 would give a fresh request: + 3 ms·1024/335 = 13.155 ms). The resched that the higher
/// nice asks for keeps B (protected to that deadline), and 0.5 ms of real time later, at the
/// 10 ms tick, it reaches it exactly: a new request, and A runs.
#[test]
fn eevdf_6_18_renice_keeps_the_request_in_progress() {
    let policy = r#"{"id":"eevdf","tunables":{"kernel":618,"hz":1000,"base_slice":3000}}"#;
    let tasks = r#"[{"name":"A","program":[{"run":"1s"}]},
                    {"name":"B","program":[{"run":"4500us"},{"nice":5},{"run":"1s"}]}]"#;
    let out = run(&with_duration(scenario(1, policy, tasks), "12ms"));
    let b = notes_of(&out, "B", 10_000);
    let from = b
        .iter()
        .position(|x| x.starts_with("9500"))
        .expect("renice");
    assert_eq!(
        b[from..],
        [
            "9500 renice: weight 1024 -> 335, lag rescaled to 0.764 ms, placed at vruntime 3.985 ms, deadline 5.514 ms",
            "10000 request used up: new deadline 14.684 ms (vruntime 5.514 ms): resched",
        ]
    );
    assert_eq!(gantt(&out, 1)[..17].to_string(), "cpu0 |AABBAAABBBA");
}

/// 6.18's shortest slice up the hierarchy (aef6987d8954) with PREEMPT_SHORT. 1 CPU, HZ 1000,
/// base slice 3 ms: H (root) is picked at 0 with half a slice, deadline 1.5 ms, protected to
/// it. S, in group g with its own 1 ms slice, arrives at 0.5 ms: first in g's queue, at its V
/// 0 with half of 1 ms, deadline 0.5 ms. g's entity takes the shortest slice in g, 1 ms, and is
/// placed at the root's V = 0.5 ms with a full request, deadline 1.5 ms. The wake-up compares
/// g's entity with H: 1 ms < 3 ms, so PREEMPT_SHORT looks without H's protection; both are
/// eligible with deadline 1.5 ms and the timeline entity wins the tie: S runs at once. At the
/// 2 ms tick g's entity (vruntime 2) has used its 1 ms request: the new one is 1 ms again,
/// deadline 3 ms, and H (vruntime 0.5, V 1.25) runs. With a group entity keeping the base
/// slice, g would not preempt (equal slices, H protected) and its deadline would be 3.5 ms.
#[test]
fn eevdf_6_18_a_group_takes_the_shortest_slice_inside_it() {
    let policy = r#"{"id":"eevdf","tunables":{"kernel":618,"hz":1000,"base_slice":3000}}"#;
    let out = grouped(
        1,
        "4ms",
        policy,
        r#"[{"name":"g","cpu.weight":100}]"#,
        r#"[{"name":"H","program":[{"run":"1s"}]},
            {"name":"S","group":"g","slice":"1ms","arrival":"500us","program":[{"run":"1s"}]}]"#,
    );
    assert_eq!(
        notes_of(&out, "S", 2_000),
        [
            "500 new task at V 0.000 ms (lag 0.000 ms, saved 0.000 ms), deadline 0.500 ms: half a slice away",
            "500 wakeup preempts (PREEMPT_SHORT: slice 1.000 ms < 3.000 ms): earliest deadline 1.500 ms among 2 eligible",
            "500 picked: earliest deadline 0.500 ms among 1 eligible (V 0.000 ms, lag 0.000 ms)",
            "2000 its group's request used up: new deadline 3.000 ms (vruntime 2.000 ms): resched",
        ]
    );
    // The Gantt chart letters tasks by index: A is H, B is S.
    assert_eq!(gantt(&out, 1)[..10].to_string(), "cpu0 |ABAA");
}

/// 6.13's lag-preserving `reweight_entity` for a group's share, on v6.18. 2 CPUs, HZ 1000,
/// slice 3 ms (1.5 ms × 2); group g (shares 1024) has A pinned to cpu0, beside H (root, cpu0),
/// and B pinned to cpu1, arriving at 5.5 ms. cpu0: H runs 0-2 ms (deadline 1.5 ms, then 5), g
/// 2-5 ms (its entity: vruntime 0 -> 3, deadline 3 -> 6), H 5-8 ms (vruntime 2 -> 5), and g
/// from 8 ms (vruntime 3, deadline 6, protected to 6). B's arrival doubles g's load, but cpu0's
/// entity is reweighted only at its next `update_cfs_group`, the 9 ms tick: calc_group_shares
/// = 1024·1024/2048 = 512. Then V = (5 + 4)/2 = 4.5 ms, lag 0.5 ms, 2 ms to the deadline;
/// scaled by 1024/512: lag 1 ms, distance 4 ms. The running entity is still counted in V, at
/// its new weight and old vruntime: V = (5·1024 + 4·512)/1536 = 4_666_666, load 1536, the lag
/// inflated to 1·2048/1536 = 1_333_333: vruntime 3_333_333, deadline 7_333_333 (6.6 keeps
/// vruntime 4 and puts the deadline 4 ms after it, at 8). It keeps its protection up to
/// vruntime 6 (not rescaled in v6.18) and reaches its deadline at the 11 ms tick (2 ms of
/// virtual time per ms at weight 512): a new 6 ms request, and H runs.
#[test]
fn eevdf_6_18_a_group_share_change_keeps_the_entitys_lag() {
    let policy = r#"{"id":"eevdf","tunables":{"kernel":618,"hz":1000,"base_slice":1500}}"#;
    let out = grouped(
        2,
        "12ms",
        policy,
        r#"[{"name":"g","cpu.weight":100}]"#,
        r#"[{"name":"H","cpus":[0],"program":[{"run":"1s"}]},
            {"name":"A","group":"g","cpus":[0],"program":[{"run":"1s"}]},
            {"name":"B","group":"g","cpus":[1],"arrival":"5500us","program":[{"run":"1s"}]}]"#,
    );
    let a = notes_of(&out, "A", 11_000);
    let from = a.iter().position(|x| x.starts_with("8000")).expect("8 ms");
    assert_eq!(
        a[from..],
        [
            "8000 picked: earliest deadline 5.000 ms among 1 eligible (V 3.000 ms, lag 0.000 ms)",
            "9000 its group's entity reweighted 1024 -> 512: lag 0.500 ms kept (1.000 ms at the new weight), placed at vruntime 3.333 ms, deadline 7.333 ms",
            "11000 its group's request used up: new deadline 13.333 ms (vruntime 7.333 ms): resched",
        ]
    );
    // The Gantt chart letters tasks by index: A is H, B is A.
    assert_eq!(gantt(&out, 1)[..18].to_string(), "cpu0 |AABBBAAABBBA");
}

/// 6.18 DELAY_DEQUEUE of a group entity by hand. 1 CPU, HZ 1000, slice 1 ms; A (root) runs
/// from 0, its request renewed at every tick. B, in group g, arrives at 5 ms: at its queue's V
/// 0 with half a slice; g's entity at the root's V 5 with deadline 6, tying A's, and the woken
/// entity wins. 6 ms: g's request is used up (vruntime 6, deadline 7), A (5) runs; 7 ms: A
/// (6, 7) ties g, g runs. B sleeps at 8 ms: eligible in its own queue (alone, lag 0), so it
/// leaves, and g's queue is empty; g's entity (vruntime 7) is behind V = (6 + 7)/2 = 6.5 and
/// stays queued. At the 9 ms tick A (7, deadline 8) and g (7, 8) tie at V 7 and the pick lands
/// on g: dequeued then with lag 0. B wakes at 18 ms at its queue's V (2 ms, its last
/// vruntime), and g's entity is placed at the root's V 16 with lag 0, deadline 17, tying A's
/// request renewed by the 18 ms tick: B preempts at once. Without the delay g would have left
/// at 8 ms with lag −0.5 ms and come back behind V, not eligible.
#[test]
fn eevdf_6_18_a_group_entity_whose_queue_empties_stays_queued_until_eligible() {
    let policy = r#"{"id":"eevdf","tunables":{"kernel":618,"hz":1000,"base_slice":1000}}"#;
    let out = grouped(
        1,
        "30ms",
        policy,
        r#"[{"name":"g","cpu.weight":100}]"#,
        r#"[{"name":"A","program":[{"run":"1s"}]},
            {"name":"B","group":"g","arrival":"5ms","program":[{"run":"2ms"},{"sleep":"10ms"},{"run":"1s"}]}]"#,
    );
    assert_eq!(
        notes_of(&out, "B", 18_000),
        [
            "5000 new task at V 0.000 ms (lag 0.000 ms, saved 0.000 ms), deadline 0.500 ms: half a slice away",
            "5000 wakeup preempts: earliest deadline 6.000 ms among 2 eligible (lag 0.000 ms)",
            "5000 picked: earliest deadline 0.500 ms among 1 eligible (V 0.000 ms, lag 0.000 ms)",
            "6000 its group's request used up: new deadline 7.000 ms (vruntime 6.000 ms): resched",
            "7000 picked: earliest deadline 2.000 ms among 1 eligible (V 1.000 ms, lag 0.000 ms)",
            "8000 dequeued with lag 0.000 ms",
            "8000 its group's queue emptied; the group's entity, lag -0.500 ms, not eligible, stays queued (DELAY_DEQUEUE)",
            "18000 placed: V 2.000 ms, lag 0.000 ms (saved 0.000 ms), deadline 3.000 ms: eligible",
            "18000 wakeup preempts: earliest deadline 17.000 ms among 2 eligible (lag 0.000 ms)",
            "18000 picked: earliest deadline 3.000 ms among 1 eligible (V 2.000 ms, lag 0.000 ms)",
        ]
    );
    assert!(
        notes_of(&out, "A", 9_000).contains(
            &"9000 delayed dequeue of a group's entity: picked with its queue empty, lag 0.000 ms saved as 0.000 ms (DELAY_ZERO)"
                .to_string()
        ),
        "{:?}",
        notes_of(&out, "A", 9_000)
    );
    // Without DELAY_DEQUEUE g's entity leaves at 8 ms with its debt and B waits at 18 ms.
    let policy =
        r#"{"id":"eevdf","tunables":{"kernel":618,"hz":1000,"base_slice":1000,"delay_dequeue":0}}"#;
    let out = grouped(
        1,
        "30ms",
        policy,
        r#"[{"name":"g","cpu.weight":100}]"#,
        r#"[{"name":"A","program":[{"run":"1s"}]},
            {"name":"B","group":"g","arrival":"5ms","program":[{"run":"2ms"},{"sleep":"10ms"},{"run":"1s"}]}]"#,
    );
    let b = notes_of(&out, "B", 18_000);
    assert!(
        !b.iter().any(|x| x.starts_with("18000 wakeup preempts")),
        "{b:?}"
    );
}

/// Four hogs on 2 CPUs from 3 + 1. E-1 and E-2 (pinned to cpu0, 5 ms each) take cpu0 at
/// fork time, so H-1, H-2 and H-4 go to cpu1 and H-3 to cpu0 (least loaded, ties to the
/// preferred CPU). When the Es have exited, H-3 is alone with its utilization well below 876
/// (it ran a third of the time): cpu0 has spare capacity. At cpu0's first due attempt (28 ms)
/// cfs (v6.5) asks for `migrate_task` of (3 − 1) >> 1 = 1 and `detach_tasks` takes the tail
/// of cpu1's list, H-4, cold, whatever its load; the queues are 2 + 2 from then on and each hog
/// gets a quarter of the CPU time within 1 %. eevdf (6.6's `sibling_imbalance`, 0 on a busy
/// CPU) ends those attempts balanced until H-3's utilization passes 876 and cpu0 asks for load
/// instead: its hog moves only at 148 ms.
#[test]
fn cfs_four_hogs_from_3_plus_1_even_out_at_the_first_attempt() {
    let tasks = r#"[{"name":"E","count":2,"cpus":[0],"program":[{"run":"5ms"}]},
                    {"name":"H","count":4,"program":[{"run":"100s"}]}]"#;
    let cfs = run(&with_duration(
        scenario(2, r#"{"id":"cfs","tunables":{"hz":250}}"#, tasks),
        "2s",
    ));
    assert_eq!(
        balance_notes(&cfs, 2000),
        ["28 H-4 balance: moved from cpu1 to cpu0, vruntime 34.000 ms"]
    );
    for t in 2..6 {
        let ms = cpu_ms(&cfs, t);
        assert!(ms.abs_diff(997) <= 10, "cfs task {t}: {ms} ms");
    }
    let eevdf = run(&with_duration(
        scenario(2, r#"{"id":"eevdf","tunables":{"hz":250}}"#, tasks),
        "2s",
    ));
    let notes = balance_notes(&eevdf, 2000);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("148 H-4 balance: moved from cpu1 to cpu0"));
}

/// 6.5's active balance. S (pinned to cpu0) runs 300 ms, then 2 ms of every 3; T (pinned to
/// cpu0, 3 ms) sends F to cpu1 at fork time, beside P and Q, pinned there at nice 19, so F
/// (nice −10) is nearly always the one running on cpu1 and P and Q wait. Every attempt of
/// cpu0's fails: while S's utilization is below 876 (28, 56 ms) as `migrate_task` of
/// (3 − 1) >> 1 = 1, then as `migrate_load`; the failures add up either way. Once S sleeps a
/// third of the time its utilization falls below 876 again, and at the first `migrate_task`
/// failure after that (352 ms, nr_balance_failed 12 > cache_nice_tries + 2) cpu0 kicks cpu1's
/// stopper, which preempts F and, P and Q being pinned, pushes F itself to cpu0. eevdf (6.6)
/// asks for load throughout, which never kicks an active balance.
#[test]
fn cfs_active_balance_pushes_the_running_task_past_pinned_ones() {
    let tasks = r#"[{"name":"S","cpus":[0],"program":[{"run":"300ms"},
                        {"repeat":1000,"body":[{"run":"2ms"},{"sleep":"1ms"}]}]},
                    {"name":"T","cpus":[0],"program":[{"run":"3ms"}]},
                    {"name":"F","nice":-10,"program":[{"run":"100s"}]},
                    {"name":"P","nice":19,"cpus":[1],"program":[{"run":"100s"}]},
                    {"name":"Q","nice":19,"cpus":[1],"program":[{"run":"100s"}]}]"#;
    let cfs = run(&with_duration(
        scenario(2, r#"{"id":"cfs","tunables":{"hz":250}}"#, tasks),
        "400ms",
    ));
    let notes = balance_notes(&cfs, 352);
    assert_eq!(notes.len(), 14, "{notes:?}");
    assert_eq!(
        notes[..3],
        [
            "28 S balance: pulling 1 task(s) from cpu1 found none cold enough (nr_balance_failed 1)",
            "56 S balance: pulling 1 task(s) from cpu1 found none cold enough (nr_balance_failed 2)",
            "84 S balance: pulling load 4277 from cpu1 found no task light or cold enough (nr_balance_failed 3)",
        ]
    );
    assert_eq!(
        notes[11..],
        [
            "352 S balance: pulling 1 task(s) from cpu1 found none cold enough (nr_balance_failed 12)",
            "352 S balance: nr_balance_failed 12 > cache_nice_tries + 2: active balance, cpu1's stopper pushes a task here",
            "352 F balance: moved from cpu1 to cpu0, vruntime 345.000 ms",
        ]
    );
    let eevdf = run(&with_duration(
        scenario(2, r#"{"id":"eevdf","tunables":{"hz":250}}"#, tasks),
        "400ms",
    ));
    let notes = balance_notes(&eevdf, 400);
    assert!(
        notes.iter().all(|n| n.contains("pulling load")),
        "{notes:?}"
    );
    assert_eq!(eevdf.metrics.tasks[2].migrations, 0);
}
