//! Native tests of the worker protocol and the reducer's handling of its replies: plain Rust,
//! no browser (`cargo test -p schedlab-web`).
#![cfg(not(target_arch = "wasm32"))]

use std::rc::Rc;

use schedlab::link::{LinkState, ViewState};
use schedlab::Scenario;
use schedlab_web::protocol::{Request, Response};
use schedlab_web::sim;
use schedlab_web::state::{Action, AppState};
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

fn inspect(id: u64, at_ns: u64) -> Request {
    Request::Inspect {
        id,
        scenario: hogs(),
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
fn the_worker_answers_an_inspection_in_json() {
    let json = serde_json::to_string(&inspect(7, 9_000_000)).unwrap();
    let reply: Response = serde_json::from_str(&sim::handle(&json, &clock)).unwrap();
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
        "at 9.000 ms\ncpu0: running hog3, pick_next would choose hog3\n  waiting (head first):\n    hog1             runnable\n    hog2             runnable\n  quantum 4 ms\n"
    );
}

#[test]
fn an_inspection_that_cannot_be_made_says_why() {
    let mut scenario = hogs();
    scenario.policy.id = "no-such-policy".into();
    let reply = sim::respond(
        Request::Inspect {
            id: 3,
            scenario,
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
    state.reduce(Action::Worker(ran))
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
    let state = state.reduce(Action::Worker(sim::respond(request, &clock)));
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
    let state = state.reduce(Action::SetCursor(Some(9_000_000)));
    let first = state.inspect_request().unwrap();
    // The cursor moves before the first answer arrives.
    let state = state.reduce(Action::SetCursor(Some(13_000_000)));
    let second = state.inspect_request().unwrap();
    assert_ne!(first.id(), second.id());
    let late = sim::respond(first, &clock);
    assert_eq!(running(&late), "hog3");
    let state = state.reduce(Action::Worker(late));
    assert!(state.inspector.queues.is_none());
    assert!(state.inspector.pending);
    let state = state.reduce(Action::Worker(sim::respond(second, &clock)));
    assert!(!state.inspector.pending);
    let queues = state.inspector.queues.clone().unwrap();
    assert_eq!(queues.at_ns, 13_000_000);
    assert_eq!(queues.cpus[0].running.as_ref().unwrap().name, "hog1");

    // A re-run keeps the cursor and asks again; the last queues stay until the answer.
    let state = state.reduce(Action::SetTunable("quantum".into(), 5));
    let ran = sim::respond(state.requests().remove(0), &clock);
    let state = state.reduce(Action::Worker(ran));
    assert_eq!(state.view.cursor_ns, Some(13_000_000));
    assert!(state.inspector.pending);
    assert_eq!(state.inspector.queues.as_ref(), Some(&queues));
    let again = state.inspect_request().unwrap();
    let state = state.reduce(Action::Worker(sim::respond(again, &clock)));
    // Quanta of 5 ms: hog3 runs 10–15 ms.
    let queues = state.inspector.queues.as_ref().unwrap();
    assert_eq!(queues.cpus[0].running.as_ref().unwrap().name, "hog3");

    // Removing the cursor clears the panel and drops any answer still on its way.
    let pending = state.reduce(Action::SetCursor(Some(1_000_000)));
    let stale = sim::respond(pending.inspect_request().unwrap(), &clock);
    let cleared = pending.reduce(Action::SetCursor(None));
    assert!(cleared.inspect_request().is_none());
    let cleared = cleared.reduce(Action::Worker(stale));
    assert!(cleared.inspector.queues.is_none());
    assert!(!cleared.inspector.pending);
}

#[test]
fn a_cursor_past_the_run_is_held_at_its_end() {
    let state = shown_with_cursor(None);
    let end = state.shown.as_ref().unwrap().data.end_ns;
    let state = state.reduce(Action::SetCursor(Some(end + 5_000_000_000)));
    assert_eq!(state.view.cursor_ns, Some(end));
}
