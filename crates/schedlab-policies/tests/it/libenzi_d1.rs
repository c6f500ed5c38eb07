//! `libenzi-d1`: hand-worked scenarios for Davide Libenzi's swap_cnt patch on O(1) -D1
//! (reference/schedulers.md §5.2, §5.4, §2.10). At HZ 1000 (the policy's default is the
//! patch's HZ 100; the hand-worked traces below set 1000): a jiffy is 1 ms. Slices with the
//! assumed MIN 20 / MAX 150: PRIO_TO_TIMESLICE(100) = 147, (101) = 144, (120) = 82, (121) = 79,
//! (122) = 76.

use crate::common::*;

const POLICY: &str = r#"{"id":"libenzi-d1","tunables":{"hz":1000}}"#;

/// §5.2 slice end: a hog drops one level per slice and always goes to the expired array, even
/// at nice -20 (2.5 would reinsert it into active as "interactive"), so a nice 0 hog runs
/// between its slices.
#[test]
fn hogs_sink_one_level_per_slice_and_always_expire() {
    let tasks = r#"[{"name":"A","nice":-20,"program":[{"run":"294ms"}]},
                    {"name":"B","program":[{"run":"164ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // A (prio 100, slice 147) runs 0-147; B (120) does not preempt (equal or worse prio).
    // 147: A's slice ends: time_slice = PRIO_TO_TIMESLICE(100) 147, prio 101, to expired.
    // B runs 147-229 (82); slice end: prio 121, to expired. Active is empty: switch 1.
    // A (101) runs 229-376 and exits; B (121) runs 376-458 and exits.
    assert_eq!(times_ms(&out), vec![(376, 0), (458, 147)]);
    assert!(has_note(
        &out,
        0,
        "147: slice end: prio 101, to expired (time_slice = PRIO_TO_TIMESLICE(100) 147)"
    ));
    assert!(has_note(
        &out,
        1,
        "229: slice end: prio 121, to expired (time_slice = PRIO_TO_TIMESLICE(120) 82)"
    ));
    assert!(has_note(
        &out,
        0,
        "229: array switch: expired becomes active, swap_cnt 1"
    ));
}

/// §5.2 slice end on a lone hog: it keeps sinking one level per slice, each slice computed
/// from the prio it had (so 82, 82, 79, 76 ...), and every slice end is an array switch.
#[test]
fn a_lone_hog_sinks_and_switches_arrays_every_slice() {
    let tasks = r#"[{"name":"H","program":[{"run":"400ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // 0-82 (slice 82 from task creation at 120): prio 121, next slice PRIO_TO_TIMESLICE(120) 82
    // 82-164: prio 122, next slice 79; 164-243: prio 123, next 76; 243-319: prio 124.
    let n = notes_of(&out, 0);
    for want in [
        "82: slice end: prio 121, to expired (time_slice = PRIO_TO_TIMESLICE(120) 82)",
        "82: array switch: expired becomes active, swap_cnt 1",
        "164: slice end: prio 122, to expired (time_slice = PRIO_TO_TIMESLICE(121) 79)",
        "243: slice end: prio 123, to expired (time_slice = PRIO_TO_TIMESLICE(122) 76)",
        "319: array switch: expired becomes active, swap_cnt 4",
    ] {
        assert!(n.iter().any(|x| x == want), "missing {want:?} in {n:#?}");
    }
}

/// §5.2 wake: a sleeper is credited one level per array switch it slept through, and with the
/// better prio it preempts the hog at once.
#[test]
fn sleeper_is_credited_per_array_switch() {
    let tasks = r#"[{"name":"H","program":[{"run":"1s"}]},
                    {"name":"S","program":[{"sleep":"217ms"},{"run":"1ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // H runs 0-82; S (120, swap_cnt_last 0) waits in active, so no switch at 82: S runs and
    // sleeps until 300 (217 ms from jiffy 82: nanosleep adds a jiffy, JIFFY_NANOSLEEP).
    // Switches: 82 (S slept, only expired H left), 164, 243.
    // 300: credit 3 - 0 = 3: prio 120 -> 117, better than H's 123: preempts; S runs 300-301.
    assert!(has_note(
        &out,
        1,
        "300: woke after 3 array switches: prio 120 -> 117"
    ));
    assert!(has_note(
        &out,
        1,
        "300: prio 117 < running task's 123: preempt"
    ));
    assert_eq!(times_ms(&out)[1], (301, 82));
}

/// §5.2 and §5.4: nice does not bound the credit: a nice +19 sleeper (prio 139) climbs to 100,
/// the best non-RT level, while the nice 0 hog sinks.
#[test]
fn nice_19_sleeper_climbs_to_prio_100() {
    let tasks = r#"[{"name":"H","program":[{"run":"6s"}]},
                    {"name":"S","nice":19,"program":[
                       {"repeat":"forever","body":[{"sleep":"200ms"},{"run":"100us"}]}]}]"#;
    let s = scenario(1, POLICY, tasks).replace(r#""duration":"100s""#, r#""duration":"6s""#);
    let out = run(&s);
    // Each 200 ms sleep spans two or three of the hog's slices (79 ms and shrinking as it
    // sinks), one array switch each, so S gains 2-3 levels per wake: 139 -> 100 within a few
    // seconds. S runs only 0.1 ms off the tick (never charged), so its slice never ends and it
    // never loses a level.
    let s_notes = notes_of(&out, 1);
    let reached: Vec<&String> = s_notes.iter().filter(|n| n.ends_with("-> 100")).collect();
    assert!(
        !reached.is_empty(),
        "S never reached prio 100: {s_notes:#?}"
    );
    // Once at 100 it stays there: every later wake leaves it at 100.
    let h_bottom = notes_of(&out, 0)
        .iter()
        .any(|n| n.contains("slice end: prio 139"));
    assert!(h_bottom, "the hog should have sunk to 139");
}

/// §7.2 (borrowed balancer): an idle CPU pulls a waiting task at its first idle tick.
#[test]
fn smp_idle_cpu_pulls_at_the_idle_tick() {
    let tasks = r#"[{"name":"A","program":[{"run":"10ms"}]},
                    {"name":"B","program":[{"run":"10ms"}]}]"#;
    let out = run(&scenario(2, POLICY, tasks));
    // Both start on cpu0 (a new task goes to its parent's CPU: cpu0 for scenario tasks).
    // 1 ms: cpu1's idle tick: find_busiest_queue sees cpu0 with 2 > 1, imbalance (2-0)/2 = 1;
    // B left schedule() 1 jiffy ago (> cache_decay_ticks 0): pulled, runs 1-11 on cpu1.
    assert_eq!(gantt(&out, 1), "cpu0 |AAAAAAAAAA.|\ncpu1 |.BBBBBBBBBB|\n");
}

/// §5.2: one long sleep is credited with every switch it spans, in one go, nice notwithstanding.
#[test]
fn long_sleep_is_credited_every_switch_it_spans() {
    let tasks = r#"[{"name":"H","program":[{"run":"2s"}]},
                    {"name":"S","nice":19,"program":[{"sleep":"999ms"},{"run":"1ms"}]}]"#;
    let out = run(&scenario(1, POLICY, tasks));
    // S (139) runs at 82 when H's first slice ends and sleeps until 1082 (999 ms: nanosleep
    // adds a jiffy, JIFFY_NANOSLEEP). H alone then ends a
    // slice, sinks a level and switches the arrays each time; its slices (PRIO_TO_TIMESLICE of
    // the prio it had) are 82 79 76 72 69 66 63 59 56 53 50 46 43 40 37 33 30 27 24: switches at
    // 82 164 243 319 391 460 526 589 648 704 757 807 853 896 936 973 1006 1036 1063 = 19.
    // 1082: 139 - 19 = 120, better than H's 139: preempt.
    assert!(has_note(
        &out,
        1,
        "1082: woke after 19 array switches: prio 139 -> 120"
    ));
    assert!(has_note(
        &out,
        0,
        "1063: array switch: expired becomes active, swap_cnt 19"
    ));
    assert!(has_note(
        &out,
        1,
        "1082: prio 120 < running task's 139: preempt"
    ));
}

/// The default HZ 100 of the patch's kernels: MIN/MAX_TIMESLICE = (20 * HZ / 1000) and
/// (150 * HZ / 1000) are 2 and 15 jiffies, so a nice-0 hog (prio 120) gets
/// PRIO_TO_TIMESLICE(120) = ((39 - 20)·13 + 39)/40 + 2 = 286/40 + 2 = 9 jiffies = 90 ms (the
/// "90 ms default" of 2.5.2-final, §5.3). The slice refilled at an expiry is that of the prio
/// the task had: 9 again at 90 (prio 120 -> 121), then PRIO_TO_TIMESLICE(121) = (18·13 +
/// 39)/40 + 2 = 8 at 180: slices end at 90, 180, 260.
#[test]
fn default_hz_100_rescales_the_slices() {
    let tasks = r#"[{"name":"H","program":[{"run":"300ms"}]}]"#;
    let out = run(&scenario(1, r#"{"id":"libenzi-d1"}"#, tasks));
    let n = notes_of(&out, 0);
    for want in [
        "90: slice end: prio 121, to expired (time_slice = PRIO_TO_TIMESLICE(120) 9)",
        "180: slice end: prio 122, to expired (time_slice = PRIO_TO_TIMESLICE(121) 8)",
        "260: slice end: prio 123, to expired (time_slice = PRIO_TO_TIMESLICE(122) 8)",
    ] {
        assert!(n.iter().any(|x| x == want), "missing {want:?} in {n:#?}");
    }
}
