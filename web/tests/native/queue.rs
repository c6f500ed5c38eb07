//! Native tests of the runner's queue discipline (`hooks::queue::Queue`): which request goes to
//! the worker next, which a newer one replaces, and what a restart of the worker loses.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::link::PresetRef;
use schedlab::sweep::{Point, Target};
use schedlab::Scenario;
use schedlab_web::hooks::queue::{
    deal, lane, Lane, Queue, Worker, BACKGROUND_REST_MS, CANCEL_AFTER_MS,
};
use schedlab_web::protocol::{Request, Source};

fn scenario() -> Scenario {
    serde_json::from_str(
        r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"rr"},
            "tasks":[{"name":"hog","program":[{"run":"1s"}]}]}"#,
    )
    .unwrap()
}

fn run(id: u64) -> Request {
    Request::Run {
        id,
        scenario: Source::Scenario(Box::new(scenario())),
        preset: None,
    }
}

fn row(id: u64, load: &str) -> Request {
    Request::ContestRow {
        id,
        load: load.into(),
        params: Default::default(),
        cpus: 1,
        seed: 1,
        policy: scenario().policy,
        machine: Default::default(),
    }
}

fn inspect(id: u64) -> Request {
    Request::Inspect {
        id,
        scenario: Box::new(scenario()),
        preset: None,
        at_ns: 1_000,
    }
}

fn point(id: u64, value: i64) -> Request {
    Request::SweepPoint {
        id,
        point: Point {
            target: Target::Preset {
                preset: PresetRef {
                    id: "contest".into(),
                    params: Default::default(),
                },
                cpus: 1,
            },
            policy: scenario().policy,
            key: "quantum".into(),
            value,
            seed: 1,
            metric: "time".into(),
        },
    }
}

/// Sends and answers every request in turn (at time 0), returning them in the order sent.
fn drain(q: &mut Queue) -> Vec<Request> {
    let mut out = Vec::new();
    while let Some((_, r)) = q.next(0.0) {
        out.push(r);
        q.answered(0.0);
    }
    out
}

#[test]
fn runs_go_first_then_the_inspection_then_contest_rows_then_sweep_points() {
    let mut q = Queue::default();
    q.sweep(vec![point(1, 2), point(1, 4)]);
    assert_eq!(
        q.submit(vec![run(5), row(5, "noload"), row(5, "io_load")], 0.0),
        Worker::Keep
    );
    q.inspect(inspect(3));
    assert_eq!(
        drain(&mut q),
        [
            run(5),
            inspect(3),
            row(5, "noload"),
            row(5, "io_load"),
            point(1, 2),
            point(1, 4)
        ]
    );
    assert_eq!(q.waiting(), 0);
}

#[test]
fn one_request_at_a_time() {
    let mut q = Queue::default();
    let _ = q.submit(vec![run(1), row(1, "noload")], 0.0);
    let (first, r) = q.next(0.0).unwrap();
    assert_eq!(r, run(1));
    assert!(q.busy());
    assert_eq!(q.next(1.0), None);
    q.answered(0.0);
    let (second, r) = q.next(2.0).unwrap();
    assert_eq!(r, row(1, "noload"));
    assert_eq!(second, first + 1);
    assert_eq!(q.in_flight_since(first), None);
    assert_eq!(q.in_flight_since(second), Some(2.0));
}

#[test]
fn a_run_is_pending_while_queued_or_in_flight_and_not_once_answered() {
    let mut q = Queue::default();
    assert!(!q.run_pending());
    // The inspection and the quiz are not runs: the background worker need not wait for them.
    q.inspect(inspect(1));
    assert!(!q.run_pending());
    let _ = q.submit(vec![run(2)], 0.0);
    assert!(q.run_pending(), "queued");
    assert_eq!(q.next(0.0).unwrap().1, run(2));
    assert!(q.run_pending(), "in flight");
    q.answered(0.0);
    assert!(!q.run_pending(), "answered");
    q.inspect(inspect(3));
    assert_eq!(q.next(1.0).unwrap().1, inspect(3));
    assert!(!q.run_pending(), "an inspection in flight");
    q.answered(0.0);
    // A contest row queued on a queue of its own is not a run either.
    let _ = q.submit(vec![row(4, "noload")], 2.0);
    assert!(!q.run_pending());
    let _ = q.submit(vec![run(5)], 3.0);
    assert!(q.run_pending());
    q.clear();
    assert!(!q.run_pending(), "cleared after a crash");
}

#[test]
fn background_work_rests_for_a_while_after_each_run_answered() {
    let mut q = Queue::default();
    assert_eq!(q.rest_left(0.0), 0.0, "no run answered yet");
    // Neither an inspection nor a row of a background queue starts the rest.
    q.inspect(inspect(1));
    assert_eq!(q.next(0.0).unwrap().1, inspect(1));
    q.answered(5.0);
    let _ = q.submit(vec![row(2, "noload")], 10.0);
    assert_eq!(q.next(10.0).unwrap().1, row(2, "noload"));
    q.answered(20.0);
    assert_eq!(q.rest_left(20.0), 0.0);
    // Asked for, a run is pending (`run_pending`); answered, it starts the rest.
    let _ = q.submit(vec![run(3)], 100.0);
    assert_eq!(q.next(100.0).unwrap().1, run(3));
    assert_eq!(q.rest_left(120.0), 0.0);
    q.answered(130.0);
    assert_eq!(q.rest_left(130.0), BACKGROUND_REST_MS);
    assert_eq!(q.rest_left(150.0), BACKGROUND_REST_MS - 20.0);
    // The next move's run answered starts it again.
    let _ = q.submit(vec![run(4)], 160.0);
    assert_eq!(q.next(160.0).unwrap().1, run(4));
    q.answered(200.0);
    assert_eq!(q.rest_left(210.0), BACKGROUND_REST_MS - 10.0);
    assert_eq!(q.rest_left(200.0 + BACKGROUND_REST_MS), 0.0);
    assert_eq!(q.rest_left(1e6), 0.0, "never less than nothing");
}

#[test]
fn a_new_generation_replaces_queued_runs_rows_and_the_inspection_but_not_the_sweep() {
    let mut q = Queue::default();
    q.sweep(vec![point(1, 2)]);
    let _ = q.submit(vec![run(1), row(1, "noload"), row(1, "io_load")], 0.0);
    assert_eq!(q.next(0.0).unwrap().1, run(1));
    q.answered(0.0);
    q.inspect(inspect(7));
    // A slider moves: generation 2 before anything else went out.
    assert_eq!(q.submit(vec![run(2)], 10.0), Worker::Keep);
    assert_eq!(drain(&mut q), [run(2), point(1, 2)]);
}

#[test]
fn a_newer_inspection_replaces_one_not_yet_sent() {
    let mut q = Queue::default();
    q.inspect(inspect(1));
    q.inspect(inspect(2));
    assert_eq!(drain(&mut q), [inspect(2)]);
}

#[test]
fn a_young_run_in_flight_finishes_but_a_slow_one_is_given_up() {
    let mut q = Queue::default();
    let _ = q.submit(vec![run(1)], 0.0);
    q.next(0.0).unwrap();
    // Young: left to finish (its reply will be stale); the new run waits behind it.
    assert_eq!(q.submit(vec![run(2)], CANCEL_AFTER_MS), Worker::Keep);
    assert!(q.busy());
    assert_eq!(q.next(CANCEL_AFTER_MS), None);
    // Slow: the worker is restarted and the new run goes at once.
    assert_eq!(
        q.submit(vec![run(3)], CANCEL_AFTER_MS + 1.0),
        Worker::Restart
    );
    assert!(!q.busy());
    assert_eq!(drain(&mut q), [run(3)]);
}

#[test]
fn a_sweep_point_in_flight_is_kept_through_a_new_generation() {
    let mut q = Queue::default();
    q.sweep(vec![point(1, 2), point(1, 4)]);
    assert_eq!(q.next(0.0).unwrap().1, point(1, 2));
    // However long it has run: no run waits behind it on the background worker.
    assert_eq!(q.submit(vec![row(9, "noload")], 1_000.0), Worker::Keep);
    assert!(q.busy());
    q.answered(0.0);
    assert_eq!(drain(&mut q), [row(9, "noload"), point(1, 4)]);
}

#[test]
fn a_slow_contest_row_of_an_older_generation_is_given_up() {
    let mut q = Queue::default();
    let _ = q.submit(vec![row(1, "noload"), row(1, "io_load")], 0.0);
    assert_eq!(q.next(0.0).unwrap().1, row(1, "noload"));
    assert_eq!(q.submit(vec![row(2, "noload")], 1_000.0), Worker::Restart);
    assert_eq!(drain(&mut q), [row(2, "noload")]);
}

#[test]
fn runs_inspections_and_the_quiz_go_to_the_foreground_worker_rows_and_points_to_the_other() {
    let quiz = Request::Quiz { id: 1, seed: 2 };
    for r in [run(1), inspect(1), quiz] {
        assert_eq!(lane(&r), Lane::Foreground, "{r:?}");
    }
    for r in [row(1, "noload"), point(1, 2)] {
        assert_eq!(lane(&r), Lane::Background, "{r:?}");
    }
}

#[test]
fn a_new_sweep_or_a_cancelled_one_replaces_the_points() {
    let mut q = Queue::default();
    q.sweep(vec![point(1, 2), point(1, 4)]);
    q.sweep(vec![point(2, 6)]);
    assert_eq!(drain(&mut q), [point(2, 6)]);
    q.sweep(vec![point(3, 8)]);
    q.sweep(Vec::new());
    assert_eq!(drain(&mut q), []);
}

#[test]
fn cancel_restarts_the_worker_and_drops_runs_but_the_sweep_goes_on() {
    let mut q = Queue::default();
    q.sweep(vec![point(1, 2), point(1, 4)]);
    assert_eq!(q.next(0.0).unwrap().1, point(1, 2));
    let _ = q.submit(vec![run(5), row(5, "noload")], 1.0);
    q.inspect(inspect(3));
    assert_eq!(q.cancel(), Worker::Restart);
    assert!(!q.busy());
    assert_eq!(drain(&mut q), [point(1, 2), point(1, 4)]);
}

#[test]
fn a_crash_or_the_time_limit_clears_everything() {
    let mut q = Queue::default();
    q.sweep(vec![point(1, 2)]);
    let _ = q.submit(vec![run(5), row(5, "noload")], 0.0);
    let (number, _) = q.next(0.0).unwrap();
    q.inspect(inspect(3));
    q.clear();
    assert_eq!(q.in_flight_since(number), None);
    assert_eq!(q.waiting(), 0);
    // Numbers go on: a watch on the old request never matches a new one.
    let _ = q.submit(vec![run(6)], 0.0);
    assert!(q.next(0.0).unwrap().0 > number);
}

#[test]
fn a_request_equal_to_the_one_in_flight_is_not_queued_twice() {
    // A link's pinned run is asked for with every generation until it arrives.
    let pinned = Request::Run {
        id: 1,
        scenario: Source::Scenario(Box::new(scenario())),
        preset: Some(PresetRef {
            id: "irman".into(),
            params: Default::default(),
        }),
    };
    let mut q = Queue::default();
    let _ = q.submit(vec![pinned.clone(), run(2)], 0.0);
    assert_eq!(q.next(0.0).unwrap().1, pinned);
    assert_eq!(q.submit(vec![run(3), pinned.clone()], 10.0), Worker::Keep);
    q.answered(0.0);
    assert_eq!(drain(&mut q), [run(3)]);
    // Given up with a restarted worker, it is asked for again.
    let _ = q.submit(vec![pinned.clone()], 100.0);
    assert_eq!(q.next(100.0).unwrap().1, pinned);
    assert_eq!(
        q.submit(vec![run(4), pinned.clone()], 1_000.0),
        Worker::Restart
    );
    assert_eq!(drain(&mut q), [run(4), pinned]);
}

/// The page sends its first run before the first render and again after it; a render slower
/// than the cancel delay must not kill the worker that is loading to answer it.
#[test]
fn a_run_in_flight_asked_for_alone_again_is_kept_however_long_it_has_run() {
    let mut q = Queue::default();
    let _ = q.submit(vec![run(1)], 0.0);
    assert_eq!(q.next(0.0).unwrap().1, run(1));
    assert_eq!(q.submit(vec![run(1)], 1_000.0), Worker::Keep);
    assert_eq!(q.next(1_000.0), None);
    q.answered(0.0);
    assert_eq!(drain(&mut q), []);
    // Asked for beside something new, it is given up as before.
    let _ = q.submit(vec![run(2)], 2_000.0);
    assert_eq!(q.next(2_000.0).unwrap().1, run(2));
    assert_eq!(q.submit(vec![run(2), run(3)], 3_000.0), Worker::Restart);
}

/// When the first render outlasts the first run, the run is answered before the page asks
/// for it again: it is not simulated twice. What was answered before it still goes again.
#[test]
fn a_run_answered_and_asked_for_again_is_not_sent_twice() {
    let mut q = Queue::default();
    let _ = q.submit(vec![run(1)], 0.0);
    assert_eq!(q.next(0.0).unwrap().1, run(1));
    q.answered(0.0);
    let _ = q.submit(vec![run(1)], 300.0);
    assert_eq!(q.next(300.0), None);
    let _ = q.submit(vec![run(2), row(2, "noload")], 400.0);
    assert_eq!(drain(&mut q), [run(2), row(2, "noload")]);
    let _ = q.submit(vec![run(1)], 500.0);
    assert_eq!(q.next(500.0).unwrap().1, run(1));
}

#[test]
fn a_request_that_could_not_be_sent_frees_the_worker() {
    let mut q = Queue::default();
    let _ = q.submit(vec![run(1), row(1, "noload")], 0.0);
    q.next(0.0).unwrap();
    q.unsent();
    assert!(!q.busy());
    assert_eq!(drain(&mut q), [row(1, "noload")]);
}

#[test]
fn background_requests_are_dealt_out_in_turns_the_same_way_every_time() {
    let rows: Vec<Request> = [
        "noload",
        "cacherun",
        "process_load",
        "ctar_load",
        "xtar_load",
    ]
    .iter()
    .map(|l| row(3, l))
    .collect();
    let dealt = deal(rows.clone(), 2);
    assert_eq!(dealt.len(), 2);
    assert_eq!(
        dealt[0],
        vec![rows[0].clone(), rows[2].clone(), rows[4].clone()]
    );
    assert_eq!(dealt[1], vec![rows[1].clone(), rows[3].clone()]);
    assert_eq!(deal(rows.clone(), 2), dealt);
    // One worker (or none asked for): everything to it, in order.
    assert_eq!(deal(rows.clone(), 1), vec![rows.clone()]);
    assert_eq!(deal(rows.clone(), 0), vec![rows]);
    assert_eq!(deal(Vec::new(), 2), vec![Vec::new(), Vec::new()]);
}
