//! Jim Houston's self-tuning scheduler (reference/schedulers.md §3) as scenarios. The integer
//! formulas themselves are unit-tested in `src/houston_selftune.rs`.

use crate::common::*;

use schedlab_engine::{Nanos, RunOutput, TaskId};

const POLICY: &str = r#"{"id":"houston-selftune"}"#;

fn notes_of(out: &RunOutput, task: u32) -> Vec<(u64, String)> {
    out.trace
        .notes()
        .filter(|n| n.task == TaskId(task))
        .map(|n| (n.time.0 / 1_000_000, n.note.render()))
        .collect()
}

/// §3.1 / §3.4: two hogs whose static priorities differ by 39 levels settle where their CPU
/// shares have the ratio exp(39·ln 50/40) ≈ 45 (the reference's "about 50:1" is for 40 levels).
///
/// Hand reasoning: the nice −20 hog gets nearly all the CPU, so its run_avg saturates at
/// MAX_RUN_AVG and its prio is 140 + 5 = 145 with 500 ms slices. The nice +19 hog (static 179)
/// can only compete at prio ≤ 145, i.e. 184 + 10.23·ln(run_avg/MAX) ≤ 145, run_avg/MAX ≤ 0.022;
/// a task using a fraction f settles near run_avg/MAX = 1.125·f (§3.4), so f ≈ 0.02 and the ratio
/// is about 0.98/0.02 ≈ 50. The integer log is up to ~6% off within an octave (a level or so), and
/// the tick sampling and the 2 ms slices of the favoured task blur it further, so we accept 25..100.
/// It takes the nice +19 hog about 5.5 half-lives (≈ 30 s) to decay from the fork-time estimate
/// (run_avg = MAX) to its equilibrium, so we measure over 60 s..240 s.
#[test]
fn nice_minus_20_vs_19_hogs_settle_near_50_to_1() {
    let tasks = r#"[{"name":"fast","nice":-20,"program":[{"run":"300s"}]},
                    {"name":"slow","nice":19,"program":[{"run":"300s"}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "240s"));
    let fast = cpu_ms_between(&out, 0, 60_000, 240_000);
    let slow = cpu_ms_between(&out, 1, 60_000, 240_000);
    assert_eq!(fast + slow, 180_000);
    assert!(slow > 0, "the nice 19 hog must not starve");
    let ratio = fast / slow;
    assert!(
        (25..=100).contains(&ratio),
        "ratio {ratio} ({fast} ms vs {slow} ms)"
    );
    // The nice +19 hog gets in through the fairness walk (§3.5): waiting, its run_avg decays
    // until its prio beats 145.
    let notes = notes_of(&out, 1);
    assert!(
        notes
            .iter()
            .any(|(_, n)| n.starts_with("fairness walk: prio 146 -> 145")
                || n.starts_with("fairness walk: prio 145 -> 144")),
        "{:?}",
        &notes[..notes.len().min(20)]
    );
}

/// §3.4: equal hogs get equal shares; their long (500 ms) slices are cut short by the fairness
/// walk, which re-evaluates the waiting one every HZ/8 and preempts when it becomes better.
#[test]
fn equal_hogs_share_equally() {
    let tasks = r#"[{"name":"A","program":[{"run":"100s"}]},
                    {"name":"B","program":[{"run":"100s"}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "40s"));
    let a = cpu_ms_between(&out, 0, 10_000, 40_000);
    let b = cpu_ms_between(&out, 1, 10_000, 40_000);
    assert_eq!(a + b, 30_000);
    // Within 5% of 15 s each.
    assert!(a.abs_diff(b) < 1_500, "{a} vs {b}");
    // The first slice: both start at prio 165 (run_avg = MAX from prio_avg 0), A runs first for
    // its 500 ms slice unless the walk at 125 ms finds B better. B's run_avg decays from MAX over
    // 125 jiffies to 262144·(1 − 125·9·7/8/65536)... ≈ 0.983: still prio 165, no change; A keeps
    // the CPU through 500 ms.
    assert!(
        gantt(&out, 250).starts_with("cpu0 |AA"),
        "{}",
        gantt(&out, 250)
    );
}

/// §3.4 slice table and §3.5 wake: a task that sleeps most of the time sits far below its static
/// priority, so it preempts a hog at once on every (timer) wake-up and gets a short slice.
#[test]
fn sleeper_preempts_the_hog_with_a_short_slice() {
    let tasks = r#"[{"name":"hog","program":[{"run":"100s"}]},
                    {"name":"ed","program":[{"repeat":800,"body":[{"run":"1ms"},{"sleep":"49ms"}]}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "40s"));
    let ed = &out.metrics.tasks[1];
    // Woken from a timer (not sync): activate_task gives a prio below the hog's 165, and
    // p.prio < curr.prio preempts at the same instant.
    assert_eq!(ed.wakeup_latency_ns.p99, 0, "{:?}", ed.wakeup_latency_ns);
    // It starts from the fork-time estimate run_avg = MAX (prio_avg was 0), which halves every
    // 5 s (about 5.7 s as the integer decay runs). Its own use never counts: its timer fires in
    // the softirq after the tick that wakes it (JIFFY_NANOSLEEP: 49 ms from a jiffy boundary is
    // 50 jiffies), so that tick charges the hog, and its 1 ms burst ends at the next tick's
    // instant, before the tick. The tick-sampling aliasing Houston suspected (§3.7): after 30 s
    // run_avg is the decaying estimate alone, 2^-6 ≈ 0.016 and falling, 165 + 10.23·ln 0.02 ≈
    // 125, less the full sleep bonus (10 levels) ≈ 115: the best slice, 1 jiffy.
    let late: Vec<(i64, i64)> = notes_of(&out, 1)
        .into_iter()
        .filter(|(t, n)| *t > 30_000 && n.starts_with("wake:"))
        .map(|(_, n)| {
            let field = |after: &str, until: char| -> i64 {
                n.split(after)
                    .nth(1)
                    .and_then(|r| r.split(until).next())
                    .and_then(|p| p.replace('.', "").parse().ok())
                    .unwrap_or(999)
            };
            assert!(n.ends_with("slice 1 ms"), "{n}");
            (field("run_avg ", ' '), field("prio ", ','))
        })
        .collect();
    assert!(late.len() > 100);
    assert!(
        late.windows(2).all(|w| w[1].0 <= w[0].0),
        "run_avg only decays: {late:?}"
    );
    assert!(
        late.iter().all(|&(_, prio)| (100..=120).contains(&prio)),
        "{late:?}"
    );
}

/// §3.5 fork: the child's run_avg is back-computed from rq.prio_avg, but the 2.5.64
/// child-runs-first branch overwrites its prio with the parent's.
///
/// Hand computation: the nice −10 parent (static 150) runs alone; its run_avg saturates, so it
/// runs at prio 155 and every tick adds 27·(180 − 155)/80 = 8 to prio_avg while taking
/// prio_avg·27/81920 away. After 9999 ticks prio_avg sits at its integer equilibrium 24273
/// (the decrement reaches 8 at 24273). Fork at 10 s: i = 24273/1024 − (180 − 160 − 5) = 23 − 15 = 8;
/// estimate_run_avg(8): 8·16384 = 131072 > 116127 once, remainder 14945/16384 = 0 levels, so
/// 262144 >> 1 = 131072 (run_avg 0.500) -> prio 158 (f = 0.5), slice 125 ms (158 > 160 − 8).
/// Child-runs-first then places it at the parent's 155.
#[test]
fn fork_estimates_from_prio_avg_then_child_runs_first() {
    let tasks = r#"[{"name":"parent","nice":-10,"program":[
        {"run":"10s"},{"fork":{"program":[{"run":"1s"}],"nice":0}},{"run":"5s"}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "20s"));
    let notes = notes_of(&out, 1);
    assert_eq!(
        notes[0],
        (
            10_000,
            "fork: run_avg 0.500 -> prio 158, slice 125 ms".into()
        )
    );
    assert_eq!(
        notes[1],
        (
            10_000,
            "child runs first at the parent's prio 155 (estimate 158 applies later)".into()
        )
    );
}

/// §3.5 yield: prio = MAX_PRIO − 1 and run_avg += run_avg/4; the other task runs.
#[test]
fn yield_drops_to_the_bottom_level() {
    let tasks = r#"[{"name":"Y","program":[{"run":"3ms"},"yield",{"run":"3ms"}]},
                    {"name":"B","arrival":"1ms","program":[{"run":"2ms"}]}]"#;
    let out = run(&with_duration(scenario(1, POLICY, tasks), "1s"));
    // Both at prio 165 (run_avg MAX); B arrives at 1 ms but does not preempt (165 is not < 165).
    // Y yields at 3 ms to prio 179: B runs 3-5, then Y.
    assert_eq!(gantt(&out, 1), "cpu0 |AAABBAAA|\n");
    assert!(out
        .trace
        .observed
        .iter()
        .any(|&(t, task, v)| t == Nanos::from_ms(3) && task == TaskId(0) && v == 179));
}

/// §7.2 via the shared balancer: children forked onto cpu0 are pulled by the idle cpu1.
#[test]
fn idle_cpu_pulls_forked_children() {
    let tasks = r#"[{"name":"P","program":[
        {"fork":{"program":[{"run":"2s"}]}},{"fork":{"program":[{"run":"2s"}]}},{"wait":"all"}]}]"#;
    let out = run(&with_duration(scenario(2, POLICY, tasks), "10s"));
    let busy = &out.metrics.run.cpu_busy_ns;
    assert!(busy[1] >= 1_900_000_000, "{busy:?}");
    assert!(out.trace.migration_count() > 0);
    // Both children run in parallel, so everything is done by about 2 s.
    assert!(out.metrics.run.makespan_ns < 2_100_000_000);
}

#[test]
fn deterministic() {
    let tasks = r#"[{"name":"a","program":[{"repeat":50,"body":[{"run":{"exponential":{"mean":"3ms"}}},{"sleep":{"uniform":{"min":"1ms","max":"20ms"}}}]}]},
                    {"name":"b","nice":5,"program":[{"run":"1s"}]}]"#;
    let s = with_duration(scenario(2, POLICY, tasks), "3s");
    assert_eq!(run(&s).hash, run(&s).hash);
}
