//! Hand-worked examples for the textbook policies (OSTEP ch. 7-10).

mod common;
use common::*;

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
