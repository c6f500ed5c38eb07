//! Native tests of the worker protocol and the reducer's handling of its replies: plain Rust,
//! no browser (`cargo test -p schedlab-web`).
#![cfg(not(target_arch = "wasm32"))]

use std::rc::Rc;

use schedlab::link::{LinkState, ViewState};
use schedlab::Scenario;
use schedlab_web::protocol::{Request, Response};
use schedlab_web::sim;
use schedlab_web::state::{
    Action, AppState, Edit, RunStatus, SweepCommand, SweepForm, ViewChange, WorkerEvent,
};
use schedlab_web::wire::{self, Reply};
use yew::Reducible;

/// Three CPU hogs under round robin with a 4 ms quantum on one CPU: hog1 runs 0–4 ms, hog2
/// 4–8, hog3 8–12, hog1 again 12–16.
fn hogs() -> Scenario {
    serde_json::from_str(
        r#"{"version":1,"cpus":1,"duration":"1s","seed":1,
            "policy":{"id":"rr","tunables":{"quantum":4}},
            "tasks":[{"name":"hog1","program":[{"run":"1s"}]},
                     {"name":"hog2","program":[{"run":"1s"}]},
                     {"name":"hog3","program":[{"run":"1s"}]}]}"#,
    )
    .unwrap()
}

fn clock() -> f64 {
    0.0
}

/// The worker's reply to a request, as the page reads it.
fn ask(request: &[u8]) -> Response {
    Reply::Binary(sim::handle(request, &clock)).read()
}

fn inspect(id: u64, at_ns: u64) -> Request {
    Request::Inspect {
        id,
        scenario: Box::new(hogs()),
        preset: None,
        at_ns,
    }
}

/// Who runs on cpu0 in an `Inspected` reply.
fn running(response: &Response) -> String {
    match response {
        Response::Inspected {
            outcome: Ok(queues),
            ..
        } => queues.cpus[0].running.as_ref().unwrap().name.clone(),
        other => panic!("not an inspection: {other:?}"),
    }
}

#[test]
fn the_worker_answers_an_inspection() {
    let reply: Response = ask(&wire::encode_request(&inspect(7, 9_000_000)));
    let Response::Inspected {
        id,
        outcome: Ok(queues),
    } = &reply
    else {
        panic!("{reply:?}");
    };
    assert_eq!(*id, 7);
    assert_eq!(queues.at_ns, 9_000_000);
    let cpu = &queues.cpus[0];
    assert_eq!(cpu.running.as_ref().unwrap().name, "hog3");
    assert_eq!(cpu.next.as_ref().unwrap().name, "hog3");
    let waiting: Vec<&str> = cpu.queues[0]
        .entries
        .iter()
        .map(|e| e.task.name.as_str())
        .collect();
    assert_eq!(waiting, ["hog1", "hog2"]);
    // The same text the CLI prints for this instant.
    assert_eq!(
        schedlab::text::run_queues(queues),
        "at 9.000 ms\ncpu0: running hog3, pick_next would choose hog3\n  in words: hog3 runs; hog1 is next in waiting (head first) (runnable)\n  waiting (head first):\n    hog1             runnable\n    hog2             runnable\n  quantum 4 ms\n"
    );
}

#[test]
fn an_inspection_that_cannot_be_made_says_why() {
    let mut scenario = hogs();
    scenario.policy.id = "no-such-policy".into();
    let reply = sim::respond(
        Request::Inspect {
            id: 3,
            scenario: Box::new(scenario),
            preset: None,
            at_ns: 0,
        },
        &clock,
    );
    match reply {
        Response::Inspected {
            id: 3,
            outcome: Err(message),
        } => assert!(message.contains("no-such-policy"), "{message}"),
        other => panic!("{other:?}"),
    }
}

/// The page with the hogs shown (their run's reply applied) and the cursor at `cursor_ns`.
fn shown_with_cursor(cursor_ns: Option<u64>) -> Rc<AppState> {
    let state = Rc::new(AppState::from_link(LinkState {
        scenario: hogs(),
        view: ViewState {
            cursor_ns,
            ..ViewState::default()
        },
    }));
    let run = state.requests().remove(0);
    let ran = sim::respond(run, &clock);
    assert!(matches!(ran, Response::Ran { .. }), "{ran:?}");
    state.reduce(Action::from(WorkerEvent::Reply(ran)))
}

#[test]
fn a_cursor_from_a_link_is_inspected_once_the_run_is_shown() {
    let state = shown_with_cursor(Some(9_000_000));
    assert!(state.inspector.pending);
    let request = state.inspect_request().unwrap();
    let Request::Inspect { id, at_ns, .. } = &request else {
        panic!("{request:?}");
    };
    assert_eq!((*id, *at_ns), (state.inspector.id, 9_000_000));
    let state = state.reduce(Action::from(WorkerEvent::Reply(sim::respond(
        request, &clock,
    ))));
    assert!(!state.inspector.pending);
    let queues = state.inspector.queues.as_ref().unwrap();
    assert_eq!(queues.cpus[0].running.as_ref().unwrap().name, "hog3");
    // The share link carries the cursor.
    let link = state.link_state().unwrap();
    assert_eq!(link.view.cursor_ns, Some(9_000_000));
    let reopened = schedlab::decode(&schedlab::encode(&link)).unwrap();
    assert_eq!(reopened.view.cursor_ns, Some(9_000_000));
}

#[test]
fn an_older_inspection_is_dropped() {
    let state = shown_with_cursor(None);
    assert!(state.inspect_request().is_none());
    let state = state.reduce(Action::from(ViewChange::SetCursor(Some(9_000_000))));
    let first = state.inspect_request().unwrap();
    // The cursor moves before the first answer arrives.
    let state = state.reduce(Action::from(ViewChange::SetCursor(Some(13_000_000))));
    let second = state.inspect_request().unwrap();
    assert_ne!(first.id(), second.id());
    let late = sim::respond(first, &clock);
    assert_eq!(running(&late), "hog3");
    let state = state.reduce(Action::from(WorkerEvent::Reply(late)));
    assert!(state.inspector.queues.is_none());
    assert!(state.inspector.pending);
    let state = state.reduce(Action::from(WorkerEvent::Reply(sim::respond(
        second, &clock,
    ))));
    assert!(!state.inspector.pending);
    let queues = state.inspector.queues.clone().unwrap();
    assert_eq!(queues.at_ns, 13_000_000);
    assert_eq!(queues.cpus[0].running.as_ref().unwrap().name, "hog1");

    // A re-run keeps the cursor and asks again; the last queues stay until the answer.
    let state = state.reduce(Action::from(Edit::SetTunable("quantum".into(), 5)));
    let ran = sim::respond(state.requests().remove(0), &clock);
    let state = state.reduce(Action::from(WorkerEvent::Reply(ran)));
    assert_eq!(state.view.cursor_ns, Some(13_000_000));
    assert!(state.inspector.pending);
    assert_eq!(state.inspector.queues.as_ref(), Some(&queues));
    let again = state.inspect_request().unwrap();
    let state = state.reduce(Action::from(WorkerEvent::Reply(sim::respond(
        again, &clock,
    ))));
    // Quanta of 5 ms: hog3 runs 10–15 ms.
    let queues = state.inspector.queues.as_ref().unwrap();
    assert_eq!(queues.cpus[0].running.as_ref().unwrap().name, "hog3");

    // Removing the cursor clears the panel and drops any answer still on its way.
    let pending = state.reduce(Action::from(ViewChange::SetCursor(Some(1_000_000))));
    let stale = sim::respond(pending.inspect_request().unwrap(), &clock);
    let cleared = pending.reduce(Action::from(ViewChange::SetCursor(None)));
    assert!(cleared.inspect_request().is_none());
    let cleared = cleared.reduce(Action::from(WorkerEvent::Reply(stale)));
    assert!(cleared.inspector.queues.is_none());
    assert!(!cleared.inspector.pending);
}

#[test]
fn a_cursor_past_the_run_is_held_at_its_end() {
    let state = shown_with_cursor(None);
    let end = state.shown.as_ref().unwrap().data.end_ns;
    let state = state.reduce(Action::from(ViewChange::SetCursor(Some(
        end + 5_000_000_000,
    ))));
    assert_eq!(state.view.cursor_ns, Some(end));
}

fn sweep_form(from: &str, to: &str, step: &str) -> SweepForm {
    SweepForm {
        key: "quantum".into(),
        from: from.into(),
        to: to.into(),
        step: step.into(),
        metric: "mean_response_ms".into(),
    }
}

/// Answers every point the state asks for, in order.
fn answer_sweep(mut state: Rc<AppState>) -> Rc<AppState> {
    for request in state.sweep_requests() {
        state = state.reduce(Action::from(WorkerEvent::Reply(sim::respond(
            request, &clock,
        ))));
    }
    state
}

#[test]
fn a_sweep_point_is_run_by_the_worker() {
    let state =
        shown_with_cursor(None).reduce(Action::from(SweepCommand::Run(sweep_form("4", "4", "1"))));
    let request = state.sweep_requests().remove(0);
    let reply: Response = ask(&wire::encode_request(&request));
    // Three hogs under round robin start after 0, q and 2q: a mean response of q.
    assert_eq!(
        reply,
        Response::SweepPoint {
            id: request.id(),
            value: 4,
            metric: Ok(4.0),
        }
    );
}

#[test]
fn a_sweep_fills_in_point_by_point_and_goes_stale_when_the_scenario_changes() {
    let state = shown_with_cursor(None);
    assert_eq!(
        state.sweep_metrics(),
        schedlab::workloads::classroom::METRICS
    );
    let state = state
        .clone()
        .reduce(Action::from(SweepCommand::Run(sweep_form("2", "6", "2"))));
    assert_eq!(state.sweep_error, None);
    let run = state.sweep.clone().unwrap();
    assert_eq!(run.values, [2, 4, 6]);
    assert!(run.running());
    let requests = state.sweep_requests();
    assert_eq!(requests.len(), 3);
    // The first answer fills its row only.
    let state = state
        .clone()
        .reduce(Action::from(WorkerEvent::Reply(sim::respond(
            requests[0].clone(),
            &clock,
        ))));
    let run = state.sweep.clone().unwrap();
    assert_eq!(run.done(), 1);
    assert_eq!(run.results[0], Some(Ok(2.0)));
    assert_eq!(state.sweep_requests().len(), 2);
    let state = answer_sweep(state);
    let run = state.sweep.clone().unwrap();
    assert!(!run.running());
    assert_eq!(run.results, [Some(Ok(2.0)), Some(Ok(4.0)), Some(Ok(6.0))]);
    assert!(!state.sweep_is_stale());

    // The swept tunable's own slider only moves the marker.
    let state = state
        .clone()
        .reduce(Action::from(Edit::SetTunable("quantum".into(), 5)));
    assert!(!state.sweep_is_stale());
    // Another setting makes the sweep stale; it stays on screen, and setting it back makes it
    // current again.
    let seeded = state
        .clone()
        .reduce(Action::from(Edit::SetSeed("2".into())));
    assert!(seeded.sweep_is_stale());
    assert_eq!(seeded.sweep, state.sweep);
    assert!(!seeded
        .reduce(Action::from(Edit::SetSeed("1".into())))
        .sweep_is_stale());
    assert!(state
        .clone()
        .reduce(Action::from(Edit::AddTask))
        .sweep_is_stale());
    assert!(state
        .reduce(Action::from(Edit::SelectPolicy("fifo".into())))
        .sweep_is_stale());
}

#[test]
fn a_range_the_tunable_does_not_allow_runs_nothing_and_says_why() {
    let state =
        shown_with_cursor(None).reduce(Action::from(SweepCommand::Run(sweep_form("2", "6", "2"))));
    let first = state.sweep.clone();
    let spec = schedlab::sweep::tunable("rr", "quantum").unwrap();
    let to = (spec.max + 1).to_string();
    let refused = state
        .clone()
        .reduce(Action::from(SweepCommand::Run(sweep_form("2", &to, "2"))));
    let message = refused.sweep_error.clone().unwrap();
    assert!(
        message.contains(&format!(
            "outside the allowed range {}..={} {}",
            spec.min, spec.max, spec.unit
        )),
        "{message}"
    );
    // The sweep on screen is untouched, and nothing new is asked for.
    assert_eq!(refused.sweep, first);
    assert_eq!(refused.sweep_requests(), state.sweep_requests());
    let bad = state
        .clone()
        .reduce(Action::from(SweepCommand::Run(sweep_form("two", "6", "2"))));
    assert_eq!(
        bad.sweep_error.as_deref(),
        Some("from: \"two\" is not a whole number")
    );
}

#[test]
fn a_cancelled_or_replaced_sweep_drops_its_remaining_points() {
    let state =
        shown_with_cursor(None).reduce(Action::from(SweepCommand::Run(sweep_form("2", "6", "2"))));
    let old = state.sweep_requests();
    let cancelled = state.clone().reduce(Action::from(SweepCommand::Cancel));
    assert!(cancelled.sweep_requests().is_empty());
    let run = cancelled.sweep.clone().unwrap();
    assert_eq!(run.halted.as_deref(), Some("cancelled"));
    // An answer that was on its way is dropped.
    let late = cancelled
        .clone()
        .reduce(Action::from(WorkerEvent::Reply(sim::respond(
            old[0].clone(),
            &clock,
        ))));
    assert_eq!(late.sweep.as_ref().unwrap().done(), 0);

    // A new sweep gets a new id: the old sweep's answers no longer count.
    let again = state
        .clone()
        .reduce(Action::from(SweepCommand::Run(sweep_form("4", "8", "4"))));
    let new_id = again.sweep.as_ref().unwrap().id;
    assert_ne!(new_id, old[0].id());
    let again = again
        .clone()
        .reduce(Action::from(WorkerEvent::Reply(sim::respond(
            old[1].clone(),
            &clock,
        ))));
    assert_eq!(again.sweep.as_ref().unwrap().done(), 0);
    let again = answer_sweep(again);
    assert_eq!(
        again.sweep.as_ref().unwrap().results,
        [Some(Ok(4.0)), Some(Ok(8.0))]
    );
    // A crash stops a running sweep.
    let crashed = state
        .clone()
        .reduce(Action::from(WorkerEvent::Crashed("test".into())));
    assert_eq!(
        crashed.sweep.as_ref().unwrap().halted.as_deref(),
        Some("the simulator crashed")
    );
}

#[test]
fn a_pinned_run_stays_as_a_through_later_runs_until_unpinned() {
    let state = shown_with_cursor(None);
    let a = state.shown.clone().unwrap();
    let generation = state.generation;
    let state = state.reduce(Action::from(ViewChange::TogglePin));
    // Pinning runs nothing: A is the run on screen.
    assert_eq!(state.generation, generation);
    assert!(Rc::ptr_eq(state.pinned.as_ref().unwrap(), &a));
    let state = state.reduce(Action::from(Edit::SetTunable("quantum".into(), 8)));
    let run = state.requests().remove(0);
    let state = state.reduce(Action::from(WorkerEvent::Reply(sim::respond(run, &clock))));
    let b = state.shown.clone().unwrap();
    assert_ne!(b.outcome.result.trace_hash, a.outcome.result.trace_hash);
    assert!(Rc::ptr_eq(state.pinned.as_ref().unwrap(), &a));
    assert_eq!(
        schedlab::compare::line(&schedlab::compare::differences(&a.scenario, &b.scenario)),
        "quantum 4 → 8"
    );
    let state = state.reduce(Action::from(ViewChange::TogglePin));
    assert!(state.pinned.is_none());
    assert!(Rc::ptr_eq(state.shown.as_ref().unwrap(), &b));
}

#[test]
fn a_crashed_worker_becomes_a_sentence_and_the_work_is_kept() {
    use schedlab_web::protocol::explain_crash;
    // A wasm trap with no panic before it: an allocation that failed.
    let oom = explain_crash("RuntimeError: unreachable");
    assert!(
        oom.contains("needed more memory than the page allows"),
        "{oom}"
    );
    assert!(oom.contains("4 GiB") && oom.contains("reduce the tasks or the duration"));
    assert!(explain_crash("capacity overflow").contains("more memory"));
    assert!(explain_crash("the simulator could not load: 404").contains("reload the page"));
    let bug = explain_crash("index out of bounds: the len is 3 but the index is 7");
    assert!(bug.contains("internal error (index out of bounds"), "{bug}");

    let shown = shown_with_cursor(None);
    let edited = shown
        .clone()
        .reduce(Action::from(Edit::SetTunable("quantum".into(), 8)));
    assert_eq!(edited.status, RunStatus::Running);
    let crashed = edited.clone().reduce(Action::from(WorkerEvent::Crashed(
        "RuntimeError: unreachable".into(),
    )));
    let banner = crashed.banner().unwrap();
    assert!(
        banner.starts_with("This scenario needed more memory"),
        "{banner}"
    );
    assert!(banner.contains("your scenario and the last good run are kept"));
    assert_eq!(crashed.draft, edited.draft);
    assert!(Rc::ptr_eq(
        crashed.shown.as_ref().unwrap(),
        shown.shown.as_ref().unwrap()
    ));
    assert_eq!(
        crashed.status,
        RunStatus::Failed("the simulator crashed".into())
    );
}

#[test]
fn cancel_and_the_time_limit_stop_the_run_and_keep_the_work() {
    let shown = shown_with_cursor(None);
    let edited = shown
        .clone()
        .reduce(Action::from(Edit::SetTunable("quantum".into(), 8)));

    let cancelled = edited.clone().reduce(Action::from(WorkerEvent::Stopped {
        elapsed_ms: 3_250.0,
        timed_out: false,
    }));
    assert_eq!(
        cancelled.status,
        RunStatus::Stopped("cancelled after 3.2 s".into())
    );
    assert!(cancelled
        .banner()
        .unwrap()
        .starts_with("Run cancelled after 3.2 s. Your scenario and the last good run are kept"));
    assert_eq!(cancelled.draft, edited.draft);
    assert!(Rc::ptr_eq(
        cancelled.shown.as_ref().unwrap(),
        shown.shown.as_ref().unwrap()
    ));
    // The next edit runs again.
    let again = cancelled.reduce(Action::from(Edit::SetTunable("quantum".into(), 6)));
    assert_eq!(again.status, RunStatus::Running);
    assert_eq!(again.requests().len(), 1);

    let timed_out = edited.clone().reduce(Action::from(WorkerEvent::Stopped {
        elapsed_ms: 120_004.0,
        timed_out: true,
    }));
    let banner = timed_out.banner().unwrap();
    assert!(
        banner.starts_with("This scenario took longer than 120 s to simulate, the page's limit"),
        "{banner}"
    );
    assert_eq!(
        timed_out.status,
        RunStatus::Stopped("took longer than 120 s, the page's limit".into())
    );
    assert_eq!(timed_out.draft, edited.draft);

    // Stopping when no run is going (a contest row or a sweep point was slow) leaves a finished
    // run's status alone.
    let done = shown.reduce(Action::from(WorkerEvent::Stopped {
        elapsed_ms: 500.0,
        timed_out: false,
    }));
    assert!(matches!(done.status, RunStatus::Done { .. }));
}

#[test]
fn the_reply_for_a_run_of_many_forked_tasks_is_bounded() {
    use schedlab::view::TASK_LIMIT;
    let children = TASK_LIMIT + 300;
    let scenario: Scenario = serde_json::from_str(&format!(
        r#"{{"version":1,"cpus":2,"duration":"60s","seed":7,"policy":{{"id":"rr"}},
        "programs":{{"child":[{{"run":"10us"}}]}},
        "tasks":[{{"name":"parent","program":[{{"repeat":{children},"body":[
          {{"fork":{{"program":"child","name":"child"}}}},{{"wait":"any"}}]}}]}}]}}"#
    ))
    .unwrap();
    let state = Rc::new(AppState::from_link(LinkState {
        scenario,
        view: ViewState::default(),
    }));
    let run = state.requests().remove(0);
    let reply = sim::handle(&wire::encode_request(&run), &clock);
    let state = state.reduce(Action::from(WorkerEvent::Reply(
        Reply::Binary(reply.clone()).read(),
    )));
    let shown = state.shown.as_ref().unwrap();
    assert_eq!(shown.outcome.result.tasks.len(), TASK_LIMIT);
    assert_eq!(shown.data.tasks.len(), TASK_LIMIT);
    assert_eq!(shown.data.task_count(), children as u64 + 1);
    assert_eq!(shown.data.omitted.as_ref().unwrap().tasks, 301);
    // Per listed task well under a kilobyte, whatever the run created.
    assert!(reply.len() < TASK_LIMIT * 1_000, "{} bytes", reply.len());
}

/// The worker inspects every preset as `schedlab run P --inspect-at T` does (the same
/// `Job::with_preset(..).inspect(T)`, which the CLI's tests/it/inspect.rs compares with the
/// binary's output): before the benchmark ends, at its end, and past it, where it stands at the
/// end, as the page's cursor does.
#[test]
fn the_worker_inspects_every_preset_as_the_command_line_does() {
    use schedlab::engine::scenario::PolicySpec;
    use schedlab::workloads::{self, PRESETS};
    use schedlab::{Benchmark, Detail, Job, Nanos, PresetRef};
    for preset in PRESETS {
        let reference = PresetRef {
            id: preset.id.to_owned(),
            params: Default::default(),
        };
        let policy = PolicySpec {
            id: workloads::default_policy().to_owned(),
            tunables: Default::default(),
        };
        let scenario = Benchmark::resolve(&reference).unwrap().scenario(
            workloads::DEFAULT_CPUS,
            workloads::DEFAULT_SEED,
            policy,
        );
        let job = Job::with_preset(scenario.clone(), Some(&reference)).unwrap();
        let end = job.run(Detail::Summary).unwrap().output.end.0;
        for at_ns in [end / 2, end, end + 1_000_000, end + 100_000_000_000] {
            let reply = sim::respond(
                Request::Inspect {
                    id: 1,
                    scenario: Box::new(scenario.clone()),
                    preset: Some(reference.clone()),
                    at_ns,
                },
                &clock,
            );
            let Response::Inspected {
                outcome: Ok(queues),
                ..
            } = reply
            else {
                panic!("{}: {reply:?}", preset.id)
            };
            assert_eq!(queues.at_ns, at_ns.min(end), "{} at {at_ns}", preset.id);
            assert_eq!(
                queues,
                job.inspect(Nanos(at_ns)).unwrap(),
                "{} at {at_ns}",
                preset.id
            );
        }
    }
}

/// Under cfs and eevdf a grouped task's shares field is its group's cpu.weight: editing it
/// changes the group (every task in it), a bad value is named by the group's field, and the
/// share link carries the new weight. Under another policy the field is the task's own shares.
#[test]
fn the_shares_field_drives_a_groups_cpu_weight_under_cfs_and_eevdf() {
    let scenario = Scenario::from_json(
        r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"cfs"},
            "groups":[{"name":"light"},{"name":"heavy","cpu.weight":300}],
            "tasks":[{"name":"a","group":"light","program":[{"run":"2s"}]},
                     {"name":"b","group":"heavy","program":[{"run":"2s"}]},
                     {"name":"c","program":[{"run":"2s"}]}]}"#,
    )
    .unwrap();
    let state = Rc::new(AppState::from_link(LinkState {
        scenario,
        view: ViewState::default(),
    }));
    assert_eq!(state.weight_group(0), Some(0));
    assert_eq!(state.weight_group(1), Some(1));
    assert_eq!(state.weight_group(2), None);
    let state = state.reduce(Action::from(Edit::SetShares(1, "900".into())));
    assert_eq!(state.draft.groups[1].cpu_weight, 900);
    assert_eq!(state.draft.tasks[1].shares, None);
    // The run of the edited scenario is shown, and its link holds the weight.
    let run = state.requests().pop().expect("a run of the edit");
    let state = state.reduce(Action::from(WorkerEvent::Reply(sim::respond(run, &clock))));
    let link =
        schedlab::link::decode(&schedlab::link::encode(&state.link_state().unwrap())).unwrap();
    assert_eq!(link.scenario.groups[1].cpu_weight, 900);
    let bad = state
        .clone()
        .reduce(Action::from(Edit::SetShares(0, "20000".into())));
    assert!(
        bad.problem_at("groups[0].cpu.weight").is_some(),
        "{:?}",
        bad.banner()
    );
    // Under rr the same field is the task's entitlement shares again.
    let rr = state.reduce(Action::from(Edit::SelectPolicy("rr".into())));
    assert_eq!(rr.weight_group(1), None);
    let rr = rr.reduce(Action::from(Edit::SetShares(1, "7".into())));
    assert_eq!(rr.draft.tasks[1].shares, Some(7));
    assert_eq!(rr.draft.groups[1].cpu_weight, 900);
}

/// The quiz crosses the worker boundary, answers and scenario included, and is the
/// library's quiz of that seed.
#[test]
fn the_worker_makes_the_quiz_of_a_seed() {
    let request = wire::encode_request(&Request::Quiz { id: 7, seed: 3 });
    let reply: Response = ask(&request);
    let Response::Quiz { id, seed, quiz } = reply else {
        panic!("not a quiz reply: {reply:?}")
    };
    assert_eq!((id, seed), (7, 3));
    assert_eq!(*quiz.unwrap(), schedlab::quiz::Quiz::new(3).unwrap());
}

/// A run's reply is binary (`wire.rs`) and reads back to exactly the reply the worker made;
/// for an unedited contest draft the worker makes the scenario again from the preset (the
/// page does not send it), the reply carries the run's own row of the contest table, and the
/// page asks only for the other loads' rows.
#[test]
fn a_contest_run_comes_back_in_binary_with_its_own_row() {
    use schedlab::workloads::contest::LOADS;
    use schedlab_web::protocol::Source;
    let state = Rc::new(AppState::from_link(LinkState::new(hogs())))
        .reduce(Action::from(Edit::SelectPreset("contest".into())));
    let requests = state.requests();
    let run = requests[0].clone();
    let Request::Run {
        id,
        scenario: Source::Generated { .. },
        ref preset,
    } = run
    else {
        panic!("not a run made from its preset: {run:?}");
    };
    let rows: Vec<Request> = requests
        .iter()
        .filter(|r| matches!(r, Request::ContestRow { .. }))
        .cloned()
        .collect();
    assert_eq!(rows.len(), LOADS.len() - 1);
    assert!(!rows
        .iter()
        .any(|r| matches!(r, Request::ContestRow { load, .. } if load == "noload")));

    let ran = ask(&wire::encode_request(&run));
    let written = Request::Run {
        id,
        scenario: Source::Scenario(Box::new((*state.draft).clone())),
        preset: preset.clone(),
    };
    assert_eq!(ran, sim::respond(written, &clock));

    // The row the table would have asked for is the run's.
    let mut noload = rows[0].clone();
    if let Request::ContestRow { load, .. } = &mut noload {
        *load = "noload".into();
    }
    let Response::ContestRow { row, .. } = sim::respond(noload, &clock) else {
        panic!("no contest row");
    };
    let Response::Ran { outcome, .. } = &ran else {
        panic!("not a run: {ran:?}");
    };
    assert_eq!(outcome.contest_row.as_ref(), Some(&row));
    assert!(outcome.data.machine.is_some() && !outcome.data.notes.time.is_empty());
    let state = state.reduce(Action::from(WorkerEvent::Reply(ran)));
    assert_eq!(state.contest.rows, [row]);
}

/// An edited contest draft is sent whole, every load's row is asked for, and the run's own
/// row (of another scenario than the table's) stays out of the table.
#[test]
fn an_edited_contest_draft_is_sent_whole_with_every_row() {
    use schedlab::workloads::contest::LOADS;
    use schedlab_web::protocol::Source;
    let state = Rc::new(AppState::from_link(LinkState::new(hogs())))
        .reduce(Action::from(Edit::SelectPreset("contest".into())))
        .reduce(Action::from(Edit::SetNice(0, "5".into())));
    let requests = state.requests();
    assert!(matches!(
        &requests[0],
        Request::Run {
            scenario: Source::Scenario(s),
            ..
        } if **s == *state.draft
    ));
    let rows = requests
        .iter()
        .filter(|r| matches!(r, Request::ContestRow { .. }))
        .count();
    assert_eq!(rows, LOADS.len());
    let state = state.reduce(Action::from(WorkerEvent::Reply(sim::respond(
        requests[0].clone(),
        &clock,
    ))));
    assert!(state.shown.is_some());
    assert_eq!(state.contest.rows, []);
}

/// A binary reply cut short, or with a bad tag, is a crash with the reason, never a panic.
#[test]
fn a_damaged_binary_reply_is_read_as_a_crash() {
    let run = Request::Run {
        id: 1,
        scenario: schedlab_web::protocol::Source::Scenario(Box::new(hogs())),
        preset: None,
    };
    let bytes = sim::handle(&wire::encode_request(&run), &clock);
    assert!(matches!(
        Reply::Binary(bytes.clone()).read(),
        Response::Ran { .. }
    ));
    for cut in [0, 3, 8, bytes.len() / 2, bytes.len() - 1] {
        let read = Reply::Binary(bytes[..cut].to_vec()).read();
        assert!(
            matches!(&read, Response::Crashed { message } if message.contains("cannot read")),
            "cut at {cut}: {read:?}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        Reply::Binary(longer).read(),
        Response::Crashed { .. }
    ));
}

/// The worker's warm-up runs the page's first request but for the probe's length, and runs it
/// through to a reply: the code it compiles is the code the first run takes.
#[test]
fn the_warm_up_is_the_pages_first_run_made_short() {
    use schedlab_web::protocol::Source;
    let bytes = sim::warm_up_request().expect("the default preset generates");
    let read = wire::decode_request(&bytes);
    let Ok(Request::Run {
        scenario: warm @ Source::Generated { .. },
        preset: Some(warm_preset),
        ..
    }) = read
    else {
        panic!("not a run of a scenario its preset makes: {read:?}");
    };
    let page = AppState::default_scenario();
    let Some(Request::Run {
        scenario: first,
        preset: Some(first_preset),
        ..
    }) = page.requests().into_iter().next()
    else {
        panic!("the page's first request is not a run");
    };
    assert_eq!(warm_preset.id, first_preset.id);
    assert_eq!(warm, first, "the same machine, seed and policy");
    assert_eq!(warm_preset.params.get("iterations"), Some(&1));
    assert_ne!(
        warm_preset.params, first_preset.params,
        "the probe runs once, not 30 times"
    );
    let Response::Ran { outcome, .. } = ask(&bytes) else {
        panic!("the warm-up did not run");
    };
    assert!(
        outcome.report.is_some(),
        "it runs as the preset's benchmark"
    );
}

/// The first run the worker prepares is, byte for byte, the request the page's runner sends
/// first on a load without a link; its reply is the one that request gets, handed out once.
#[test]
fn the_prepared_first_run_is_the_pages_first_request() {
    let page = AppState::default_scenario();
    let first = page.requests().into_iter().next().expect("a first run");
    let sent = wire::encode_request(&first);
    assert_eq!(sim::first_run_request(), Some(sent.clone()));

    // A clock that moves 5 ms a reading: the prepared run says it took 5 ms, a run made on
    // the request with the still clock says 0.
    let ticks = std::cell::Cell::new(0.0);
    let moving = || {
        ticks.set(ticks.get() + 5.0);
        ticks.get()
    };
    let wall = |reply: Response| match reply {
        Response::Ran {
            wall_ms, outcome, ..
        } => (wall_ms, outcome),
        other => panic!("not a run: {other:?}"),
    };
    sim::prepare_first_run(&moving);
    let (prepared_ms, prepared) = wall(ask(&sent));
    assert_eq!(prepared_ms, 5.0, "the prepared reply");
    // What the app does with it before its first render: shown, and not asked for again.
    let reply = ask(&sent);
    let shown =
        Rc::new(AppState::default_scenario()).reduce(Action::from(WorkerEvent::Reply(reply)));
    assert!(matches!(shown.status, RunStatus::Done { .. }));
    assert!(
        shown.requests().is_empty(),
        "the run on screen is not asked for"
    );
    let (again_ms, again) = wall(ask(&sent));
    assert_eq!(again_ms, 0.0, "handed out once, then run again");
    assert_eq!(prepared, again, "the same run");

    // Any other request drops it.
    sim::prepare_first_run(&moving);
    let other = wire::encode_request(&inspect(1, 0));
    assert!(matches!(ask(&other), Response::Inspected { .. }));
    assert_eq!(wall(ask(&sent)).0, 0.0);
}

/// Every kind of reply reads back from its binary layout (`wire.rs`) as the reply the worker
/// made, every field of the run queues' disks, a quiz's scenario and the failures included;
/// text, which only the worker's bootstrap sends, reads as its crash.
#[test]
fn every_reply_reads_back_from_its_binary_layout() {
    use schedlab::inspect::{DiskQueueView, RequestView, RunQueues, TaskRef};
    use schedlab::Problem;
    use schedlab_web::protocol::ContestCells;
    let owner = TaskRef {
        id: 3,
        name: "dd".into(),
    };
    let request = RequestView {
        id: 9,
        dir: "write".into(),
        bytes: 4096,
        owner: owner.clone(),
        what: "page 7".into(),
        submitted_ns: 5,
        start_ns: 6,
    };
    let mut queues = match sim::respond(inspect(1, 9_000_000), &clock) {
        Response::Inspected {
            outcome: Ok(queues),
            ..
        } => queues,
        other => panic!("not an inspection: {other:?}"),
    };
    queues.disks.push(DiskQueueView {
        name: "sda".into(),
        elevator: "cfq".into(),
        serving: Some(request.clone()),
        idle_until_ns: Some(12),
        queued: 2,
        queue: vec![request],
    });
    let replies = [
        sim::respond(inspect(2, 9_000_000), &clock),
        Response::Inspected {
            id: 3,
            outcome: Ok(RunQueues::default()),
        },
        Response::Inspected {
            id: 4,
            outcome: Err("no".into()),
        },
        Response::Inspected {
            id: 5,
            outcome: Ok(queues),
        },
        sim::respond(Request::Quiz { id: 6, seed: 3 }, &clock),
        Response::Quiz {
            id: 7,
            seed: 1,
            quiz: Err("none".into()),
        },
        Response::SweepPoint {
            id: 8,
            value: -4,
            metric: Ok(2.5),
        },
        Response::SweepPoint {
            id: 9,
            value: 4,
            metric: Err("failed".into()),
        },
        Response::ContestRow {
            id: 10,
            row: ContestCells {
                load: "io_load".into(),
                time_ns: 1,
                finished: true,
                compile_cpu_ns: 2,
                load_cpu_ns: 3,
                load_life_ns: 4,
                loads_x100: 5,
                cpu_pct_x10: 6,
                lcpu_pct_x10: 7,
                trace_hash: "00ff".into(),
            },
        },
        Response::Failed {
            id: 11,
            message: "invalid".into(),
            problems: vec![Problem {
                path: "tasks[0].nice".into(),
                message: "-21 is below -20".into(),
            }],
        },
        Response::Panicked {
            message: "boom".into(),
        },
        Response::Crashed {
            message: "gone".into(),
        },
    ];
    for reply in replies {
        assert_eq!(Reply::Binary(wire::encode(&reply)).read(), reply);
    }
    assert_eq!(
        Reply::Text(r#"{"crashed":{"message":"could not load"}}"#.into()).read(),
        Response::Crashed {
            message: "could not load".into()
        }
    );
    assert!(matches!(
        Reply::Text("{}".into()).read(),
        Response::Crashed { message } if message.contains("cannot read")
    ));
}

/// Every kind of request reads back from its binary layout as the request the page made; a
/// request cut short or of another layout is answered with why it cannot be read.
#[test]
fn every_request_reads_back_from_its_binary_layout() {
    use schedlab::engine::scenario::PolicySpec;
    use schedlab::link::PresetRef;
    use schedlab::sweep::{Point, Target};
    use schedlab_web::protocol::Source;
    let preset = PresetRef {
        id: "contest".into(),
        params: [("jobs".to_owned(), 40)].into(),
    };
    let policy = PolicySpec {
        id: "rr".into(),
        tunables: [("quantum".to_owned(), 4)].into(),
    };
    let point = |target| Point {
        target,
        policy: policy.clone(),
        key: "quantum".into(),
        value: -3,
        seed: 5,
        metric: "response_mean_ms".into(),
    };
    let requests = [
        Request::Run {
            id: 1,
            scenario: Source::Scenario(Box::new(hogs())),
            preset: Some(preset.clone()),
        },
        Request::Run {
            id: 2,
            scenario: Source::Generated {
                cpus: 2,
                seed: 3,
                policy: policy.clone(),
                machine: [("swappiness".to_owned(), 60)].into(),
            },
            preset: None,
        },
        Request::ContestRow {
            id: 3,
            load: "io_load".into(),
            params: preset.params.clone(),
            cpus: 1,
            seed: 7,
            policy: policy.clone(),
            machine: Default::default(),
        },
        inspect(4, 9_000_000),
        Request::SweepPoint {
            id: 5,
            point: point(Target::Preset {
                preset: preset.clone(),
                cpus: 2,
            }),
        },
        Request::SweepPoint {
            id: 6,
            point: point(Target::Scenario {
                scenario: Box::new(hogs()),
            }),
        },
        Request::Quiz { id: 7, seed: 3 },
    ];
    for request in requests {
        let bytes = wire::encode_request(&request);
        assert_eq!(wire::decode_request(&bytes), Ok(request));
        assert!(wire::decode_request(&bytes[..bytes.len() - 1]).is_err());
    }
    assert!(matches!(
        ask(br#"{"quiz":{"id":1,"seed":2}}"#),
        Response::Failed { message, .. } if message.contains("cannot read")
    ));
}
