//! Native tests of the reducer: every action, by kind. An edit clears the notice and runs the
//! draft again (a new generation) when it is valid; a view change runs nothing; a link restores
//! the whole view, the pinned run of a compare view included.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::rc::Rc;

use schedlab::link::{LinkState, TimeWindow, ViewState};
use schedlab::view::LaneMode;
use schedlab::{Nanos, Scenario};
use schedlab_web::protocol::{Request, Response, Source};
use schedlab_web::sim;
use schedlab_web::state::{
    Action, AppState, Edit, RunStatus, StatsColumn, ViewChange, WorkerEvent, DEFAULT_PRESET,
};
use yew::Reducible;

fn clock() -> f64 {
    0.0
}

/// Two tasks under round robin on one CPU: no preset.
fn plain() -> Scenario {
    serde_json::from_str(
        r#"{"version":1,"cpus":1,"duration":"1s","seed":1,
            "policy":{"id":"rr","tunables":{"quantum":4}},
            "tasks":[{"name":"editor","program":[{"repeat":10,"body":[{"run":"2ms"},{"sleep":"30ms"}]}]},
                     {"name":"hog","program":[{"run":"1s"}]}]}"#,
    )
    .unwrap()
}

fn open(scenario: Scenario) -> Rc<AppState> {
    Rc::new(AppState::from_link(LinkState::new(scenario)))
}

fn reduce(state: &Rc<AppState>, action: impl Into<Action>) -> Rc<AppState> {
    state.clone().reduce(action.into())
}

/// Runs every request the state asks for through the worker and applies the replies.
fn settle(mut state: Rc<AppState>) -> Rc<AppState> {
    for request in state.requests() {
        state = reduce(&state, WorkerEvent::Reply(sim::respond(request, &clock)));
    }
    state
}

fn with_notice(state: &Rc<AppState>) -> Rc<AppState> {
    let s = reduce(state, Edit::OpenLink("#s=1.bm90IGRlZmxhdGU".into()));
    assert!(s.notice.is_some());
    s
}

#[test]
fn every_edit_clears_the_notice_and_runs_again() {
    let edits = [
        Edit::SetSeed("5".into()),
        Edit::SetDuration("2s".into()),
        Edit::SetCpus("2".into()),
        Edit::SelectPolicy("fifo".into()),
        Edit::SetTunable("quantum".into(), 7),
        Edit::ResetTunable("quantum".into()),
        Edit::AddTask,
        Edit::RemoveTask(1),
        Edit::RenameTask(0, "vim".into()),
        Edit::SetTemplate(1, "periodic".into()),
        Edit::SetProgram(1, r#"[{"run":"5ms"}]"#.into()),
        Edit::SetNice(1, "5".into()),
        Edit::SetShares(1, "300".into()),
        Edit::SetArrival(1, "3ms".into()),
        Edit::SelectPreset("irman".into()),
        Edit::Detach,
    ];
    for edit in edits {
        let name = format!("{edit:?}");
        let before = with_notice(&open(plain()));
        let after = reduce(&before, edit);
        assert_eq!(after.notice, None, "{name}");
        assert!(after.generation > before.generation, "{name}");
        assert_eq!(after.status, RunStatus::Running, "{name}");
        assert_eq!(after.problems, [], "{name}");
        let Request::Run { id, scenario, .. } = after.requests().remove(0) else {
            panic!("{name}: the first request is not the run");
        };
        assert_eq!(id, after.generation, "{name}");
        // The draft, written out; a preset's, as it makes it, by name.
        let draft = if name.starts_with("SelectPreset") {
            Source::Generated {
                cpus: after.draft.cpus,
                seed: after.draft.seed,
                policy: after.draft.policy.clone(),
                machine: BTreeMap::new(),
            }
        } else {
            Source::Scenario(Box::new((*after.draft).clone()))
        };
        assert_eq!(scenario, draft, "{name}");
    }
}

#[test]
fn view_changes_run_nothing_and_keep_the_notice() {
    let state = with_notice(&settle(open(plain())));
    for change in [
        ViewChange::Shared("https://example.org/#s=1.x".into()),
        ViewChange::SetCursor(Some(1_000)),
        ViewChange::SetLanes(LaneMode::Tasks),
        ViewChange::SetZoom(Some(TimeWindow {
            start_ns: 0,
            end_ns: 1_000_000,
        })),
        ViewChange::SelectTask(Some("hog".into())),
        ViewChange::TogglePin,
        ViewChange::ToggleLargeType,
        ViewChange::TogglePresenter,
        ViewChange::SetScenes("#s=1.x".into()),
        ViewChange::Sort(StatsColumn::Name),
    ] {
        let name = format!("{change:?}");
        let after = reduce(&state, change);
        assert_eq!(after.generation, state.generation, "{name}");
        assert_eq!(after.notice, state.notice, "{name}");
        assert_eq!(after.draft, state.draft, "{name}");
    }
    // The one view change that touches the notice is dismissing it.
    assert_eq!(reduce(&state, ViewChange::DismissNotice).notice, None);
}

#[test]
fn open_link_shows_the_link_and_a_broken_one_keeps_the_page() {
    let state = settle(open(plain()));
    let mut other = plain();
    other.seed = 42;
    let link = LinkState {
        scenario: other.clone(),
        view: ViewState {
            lanes: LaneMode::Tasks,
            ..ViewState::default()
        },
    };
    let opened = reduce(&state, Edit::OpenLink(schedlab::encode(&link)));
    assert_eq!(*opened.draft, other);
    assert_eq!(opened.view.lanes, LaneMode::Tasks);
    assert_eq!(opened.notice, None);

    let broken = reduce(&state, Edit::OpenLink("#s=1.bm90IGRlZmxhdGU".into()));
    assert!(broken
        .notice
        .as_deref()
        .unwrap()
        .starts_with("This link is damaged"));
    assert_eq!(broken.draft, state.draft);
    assert_eq!(broken.generation, state.generation);
}

#[test]
fn presets_are_chosen_set_and_left() {
    let state = Rc::new(AppState::default_scenario());
    assert_eq!(state.preset.as_ref().unwrap().id, DEFAULT_PRESET);

    // A parameter regenerates the scenario from the preset.
    let fewer = reduce(&state, Edit::SetPresetParam("iterations".into(), 3));
    assert_eq!(fewer.preset.as_ref().unwrap().params["iterations"], 3);
    assert_ne!(fewer.draft, state.draft);
    assert!(!fewer.edited);

    // Another preset.
    let irman = reduce(&state, Edit::SelectPreset("irman".into()));
    assert_eq!(irman.preset.as_ref().unwrap().id, "irman");
    assert!(irman
        .draft
        .tasks
        .iter()
        .any(|t| t.name != state.draft.tasks[0].name));

    // No preset: a small custom scenario on the same CPUs and seed.
    let custom = reduce(&irman, Edit::SelectPreset(String::new()));
    assert_eq!(custom.preset, None);
    assert_eq!(custom.draft.cpus, irman.draft.cpus);
    assert_eq!(custom.draft.seed, irman.draft.seed);
    let names: Vec<&str> = custom.draft.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["editor", "hog"]);

    // Detach keeps the scenario and drops the preset (and so its stop rule).
    let detached = reduce(&state, Edit::Detach);
    assert_eq!(detached.preset, None);
    assert_eq!(detached.draft, state.draft);
}

#[test]
fn the_cpu_count_regenerates_an_unedited_preset_and_is_checked() {
    let state = Rc::new(AppState::default_scenario());
    let two = reduce(&state, Edit::SetCpus("2".into()));
    assert_eq!(two.draft.cpus, 2);
    assert!(!two.edited);

    let bad = reduce(&state, Edit::SetCpus("two".into()));
    assert_eq!(bad.status, RunStatus::Invalid);
    assert!(bad.requests().is_empty());
    assert_eq!(bad.raw.field_text("cpus", || "1".into()), "two");
    assert!(bad
        .problem_at("cpus")
        .unwrap()
        .contains("not a whole number"));

    let many = reduce(&state, Edit::SetCpus("99".into()));
    assert_eq!(many.status, RunStatus::Invalid);
    assert!(many.problem_at("cpus").unwrap().contains("1..=16"));
    // Fixing it runs again.
    let fixed = reduce(&many, Edit::SetCpus("1".into()));
    assert_eq!(fixed.status, RunStatus::Running);
    assert_eq!(fixed.draft, state.draft);
}

#[test]
fn a_cpu_count_edited_while_the_first_run_is_going_sticks() {
    // The page opens and sends its first run; the user sets two CPUs before it answers.
    let state = Rc::new(AppState::default_scenario());
    let first = state.requests().remove(0);
    let edited = reduce(&state, Edit::SetCpus("2".into()));
    let second = edited.requests().remove(0);
    // The first run's answer arrives late: dropped, the edit stays.
    let late = reduce(&edited, WorkerEvent::Reply(sim::respond(first, &clock)));
    assert_eq!(late.draft.cpus, 2);
    assert_eq!(late.shown, None);
    assert_eq!(late.status, RunStatus::Running);
    let shown = reduce(&late, WorkerEvent::Reply(sim::respond(second, &clock)));
    assert_eq!(shown.shown.as_ref().unwrap().scenario.cpus, 2);
    assert_eq!(shown.draft.cpus, 2);
    assert!(matches!(shown.status, RunStatus::Done { .. }));
}

#[test]
fn duration_and_seed_are_parsed_and_checked() {
    let state = open(plain());
    let longer = reduce(&state, Edit::SetDuration("2s".into()));
    assert_eq!(longer.draft.duration, Nanos::from_secs(2));
    let bad = reduce(&state, Edit::SetDuration("ten seconds".into()));
    assert!(bad.problem_at("duration").is_some());
    assert_eq!(bad.draft.duration, state.draft.duration);

    let seeded = reduce(&state, Edit::SetSeed("9".into()));
    assert_eq!(seeded.draft.seed, 9);
    let bad = reduce(&state, Edit::SetSeed("-1".into()));
    assert!(bad.problem_at("seed").is_some());
    // A good value clears the field's problem.
    assert_eq!(reduce(&bad, Edit::SetSeed("3".into())).problems, []);
}

#[test]
fn policy_and_tunables() {
    let state = open(plain());
    let fifo = reduce(&state, Edit::SelectPolicy("fifo".into()));
    assert_eq!(fifo.draft.policy.id, "fifo");
    assert!(fifo.draft.policy.tunables.is_empty());

    let spec = schedlab::sweep::tunable("rr", "quantum").unwrap();
    let set = reduce(&state, Edit::SetTunable("quantum".into(), 7));
    assert_eq!(set.draft.policy.tunables["quantum"], 7);
    // The default is left out, as links store it.
    let default = reduce(&set, Edit::SetTunable("quantum".into(), spec.default));
    assert!(!default.draft.policy.tunables.contains_key("quantum"));
    let reset = reduce(&set, Edit::ResetTunable("quantum".into()));
    assert!(!reset.draft.policy.tunables.contains_key("quantum"));
    let bad = reduce(&state, Edit::SetTunable("quantum".into(), spec.max + 1));
    assert_eq!(bad.status, RunStatus::Invalid);
}

#[test]
fn the_task_table() {
    let state = open(plain());
    let added = reduce(&state, Edit::AddTask);
    assert_eq!(added.draft.tasks.len(), 3);
    assert_eq!(added.draft.tasks[2].name, "task3");
    assert!(added.edited);
    // Names stay unique.
    let again = reduce(&reduce(&added, Edit::RemoveTask(0)), Edit::AddTask);
    let names: Vec<&str> = again.draft.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["hog", "task3", "task4"]);

    let removed = reduce(&state, Edit::RemoveTask(0));
    assert_eq!(removed.draft.tasks.len(), 1);
    assert_eq!(reduce(&state, Edit::RemoveTask(9)).draft.tasks.len(), 2);

    let renamed = reduce(&state, Edit::RenameTask(1, "cruncher".into()));
    assert_eq!(renamed.draft.tasks[1].name, "cruncher");

    // The I/O template brings a disk along.
    assert!(state.draft.disks.is_empty());
    let io = reduce(&state, Edit::SetTemplate(0, "io".into()));
    assert_eq!(io.draft.disks.len(), 1);
    assert_ne!(io.draft.tasks[0].program, state.draft.tasks[0].program);
    // Custom keeps the program as it is.
    let custom = reduce(&state, Edit::SetTemplate(0, "custom".into()));
    assert_eq!(custom.draft.tasks[0].program, state.draft.tasks[0].program);

    let program = reduce(&state, Edit::SetProgram(1, r#"[{"run":"5ms"}]"#.into()));
    assert_eq!(
        serde_json::to_string(&program.draft.tasks[1].program).unwrap(),
        r#"[{"run":"5ms"}]"#
    );
    let broken = reduce(&state, Edit::SetProgram(1, "[{".into()));
    assert!(broken.problem_at("tasks[1].program").is_some());
    assert_eq!(broken.draft.tasks[1].program, state.draft.tasks[1].program);

    let niced = reduce(&state, Edit::SetNice(1, "5".into()));
    assert_eq!(niced.draft.tasks[1].nice, 5);
    assert!(reduce(&state, Edit::SetNice(1, "20".into()))
        .problem_at("tasks[1].nice")
        .is_some());

    let shares = reduce(&state, Edit::SetShares(1, "300".into()));
    assert_eq!(shares.draft.tasks[1].shares, Some(300));
    assert_eq!(
        reduce(&shares, Edit::SetShares(1, String::new()))
            .draft
            .tasks[1]
            .shares,
        None
    );

    let late = reduce(&state, Edit::SetArrival(1, "3ms".into()));
    assert_eq!(late.draft.tasks[1].arrival, Nanos::from_ms(3));
    assert!(reduce(&state, Edit::SetArrival(1, "soon".into()))
        .problem_at("tasks[1].arrival")
        .is_some());
}

#[test]
fn lanes_zoom_and_the_selected_task_are_view_state() {
    let state = settle(open(plain()));
    let tasks = reduce(&state, ViewChange::SetLanes(LaneMode::Tasks));
    assert_eq!(tasks.view.lanes, LaneMode::Tasks);

    let window = TimeWindow {
        start_ns: 2_000_000,
        end_ns: 9_000_000,
    };
    let zoomed = reduce(&tasks, ViewChange::SetZoom(Some(window)));
    assert_eq!(zoomed.view.zoom, Some(window));
    // A window given backwards is stored as a window.
    let odd = reduce(
        &tasks,
        ViewChange::SetZoom(Some(TimeWindow {
            start_ns: 5,
            end_ns: 1,
        })),
    );
    assert_eq!(
        odd.view.zoom,
        Some(TimeWindow {
            start_ns: 5,
            end_ns: 6
        })
    );
    assert_eq!(reduce(&zoomed, ViewChange::SetZoom(None)).view.zoom, None);

    let picked = reduce(&zoomed, ViewChange::SelectTask(Some("hog".into())));
    assert_eq!(picked.view.selected_task.as_deref(), Some("hog"));
    // Picking it again, or nothing, clears it.
    let again = reduce(&picked, ViewChange::SelectTask(Some("hog".into())));
    assert_eq!(again.view.selected_task, None);
    assert_eq!(
        reduce(&picked, ViewChange::SelectTask(None))
            .view
            .selected_task,
        None
    );

    // A re-run keeps the view.
    let rerun = settle(reduce(&picked, Edit::SetTunable("quantum".into(), 8)));
    assert_eq!(rerun.view.lanes, LaneMode::Tasks);
    assert_eq!(rerun.view.zoom, Some(window));
    assert_eq!(rerun.view.selected_task.as_deref(), Some("hog"));
}

#[test]
fn share_large_type_and_sorting() {
    let state = open(plain());
    let shared = reduce(
        &state,
        ViewChange::Shared("https://example.org/#s=1.x".into()),
    );
    assert_eq!(shared.share_url, "https://example.org/#s=1.x");

    let large = reduce(&state, ViewChange::ToggleLargeType);
    assert!(large.view.large_type);
    assert!(!reduce(&large, ViewChange::ToggleLargeType).view.large_type);

    assert_eq!(state.sort, (StatsColumn::Cpu, true));
    let flipped = reduce(&state, ViewChange::Sort(StatsColumn::Cpu));
    assert_eq!(flipped.sort, (StatsColumn::Cpu, false));
    // Names read A to Z first; numbers largest first.
    assert_eq!(
        reduce(&state, ViewChange::Sort(StatsColumn::Name)).sort,
        (StatsColumn::Name, false)
    );
    assert_eq!(
        reduce(&state, ViewChange::Sort(StatsColumn::P99)).sort,
        (StatsColumn::P99, true)
    );
}

/// A compare view: A at quantum 4, B at quantum 8, tasks lanes, a zoom window, hog selected
/// and a cursor.
fn compare_view() -> Rc<AppState> {
    let a = settle(open(plain()));
    let pinned = reduce(&a, ViewChange::TogglePin);
    let b = settle(reduce(&pinned, Edit::SetTunable("quantum".into(), 8)));
    let b = reduce(&b, ViewChange::SetLanes(LaneMode::Tasks));
    let b = reduce(
        &b,
        ViewChange::SetZoom(Some(TimeWindow {
            start_ns: 1_000_000,
            end_ns: 20_000_000,
        })),
    );
    let b = reduce(&b, ViewChange::SelectTask(Some("hog".into())));
    reduce(&b, ViewChange::SetCursor(Some(6_000_000)))
}

#[test]
fn a_link_to_a_compare_view_restores_the_view_and_runs_the_pinned_run_again() {
    let page = compare_view();
    let a = page.pinned.clone().unwrap();
    let b = page.shown.clone().unwrap();
    let link = page.link_state().unwrap();
    let fragment = schedlab::encode(&link);
    // A differs from B in its tunables only: the link holds A's policy, not its tasks.
    let pinned = link.view.pinned.as_ref().unwrap();
    assert_eq!(pinned.policy.as_ref().unwrap().tunables["quantum"], 4);
    assert_eq!(pinned.scenario, None);

    let opened = Rc::new(AppState::from_fragment(&fragment));
    assert_eq!(opened.view.lanes, LaneMode::Tasks);
    assert_eq!(
        opened.view.zoom,
        Some(TimeWindow {
            start_ns: 1_000_000,
            end_ns: 20_000_000
        })
    );
    assert_eq!(opened.view.selected_task.as_deref(), Some("hog"));
    assert_eq!(opened.view.cursor_ns, Some(6_000_000));
    assert_eq!(*opened.draft, *b.scenario);
    // A is asked for with B; its id is not a generation's.
    let pending = opened.pin_pending.clone().unwrap();
    assert_eq!(*pending.scenario, *a.scenario);
    assert!(pending.id < opened.generation);
    let requests = opened.requests();
    assert!(matches!(&requests[0], Request::Run { id, .. } if *id == opened.generation));
    assert!(matches!(&requests[1], Request::Run { id, .. } if *id == pending.id));
    // The link made while A is on its way still holds it.
    let restored = settle(opened.clone());
    assert_eq!(restored.pin_pending, None);
    let (ra, rb) = (
        restored.pinned.clone().unwrap(),
        restored.shown.clone().unwrap(),
    );
    assert_eq!(ra.outcome.result.trace_hash, a.outcome.result.trace_hash);
    assert_eq!(rb.outcome.result.trace_hash, b.outcome.result.trace_hash);
    assert_eq!(restored.link_state().unwrap(), link);
}

#[test]
fn a_pinned_run_from_a_link_survives_edits_until_it_arrives_and_can_be_dropped() {
    let fragment = schedlab::encode(&compare_view().link_state().unwrap());
    let opened = Rc::new(AppState::from_fragment(&fragment));
    let pin = opened.pin_pending.clone().unwrap();
    // An edit (even an invalid one) still asks for A.
    let edited = reduce(&opened, Edit::SetCpus("99".into()));
    assert!(edited
        .requests()
        .iter()
        .any(|r| matches!(r, Request::Run { id, .. } if *id == pin.id)));
    // Unpinning before A arrives drops it; its late answer is ignored.
    let a_request = edited.requests().remove(0);
    let unpinned = reduce(&edited, ViewChange::TogglePin);
    assert_eq!(
        (unpinned.pinned.clone(), unpinned.pin_pending.clone()),
        (None, None)
    );
    let late = reduce(
        &unpinned,
        WorkerEvent::Reply(sim::respond(a_request, &clock)),
    );
    assert_eq!(late.pinned, None);

    // A pinned run the worker cannot run says so and leaves no compare view.
    let failed = reduce(
        &opened,
        WorkerEvent::Reply(Response::Failed {
            id: pin.id,
            message: "out of budget".into(),
            problems: Vec::new(),
        }),
    );
    assert_eq!(failed.pin_pending, None);
    assert!(failed.notice.as_deref().unwrap().contains("pinned run (A)"));
    assert_eq!(failed.status, opened.status);
}

#[test]
fn presenter_and_large_type_travel_in_the_link_and_survive_opening_one() {
    let state = settle(open(plain()));
    assert!(!state.view.presenter);
    let presenting = reduce(
        &reduce(&state, ViewChange::TogglePresenter),
        ViewChange::ToggleLargeType,
    );
    assert!(presenting.view.presenter && presenting.view.large_type);
    let link = presenting.link_state().unwrap();
    assert!(link.view.presenter && link.view.large_type);
    // A link opens in presenter mode.
    let from_link = settle(Rc::new(AppState::from_link(link)));
    assert!(from_link.view.presenter && from_link.view.large_type);
    // A link without them (a scene) does not turn them off while presenting.
    let mut other = plain();
    other.seed = 9;
    let opened = reduce(
        &presenting,
        Edit::OpenLink(schedlab::encode(&LinkState::new(other))),
    );
    assert_eq!(opened.draft.seed, 9);
    assert!(opened.view.presenter && opened.view.large_type);
    assert!(
        !reduce(&presenting, ViewChange::TogglePresenter)
            .view
            .presenter
    );
}

#[test]
fn the_slider_under_discussion_is_the_last_tunable_moved() {
    let state = AppState::default_scenario();
    let state = Rc::new(state);
    assert_eq!(state.discussed_tunable().unwrap().0.key, "prio_bonus_ratio");
    let moved = reduce(&state, Edit::SetTunable("max_timeslice".into(), 150));
    let (spec, value) = moved.discussed_tunable().unwrap();
    assert_eq!((spec.key, value), ("max_timeslice", 150));
    // A policy without the tunable moved or the featured one: its first.
    let rr = reduce(&open(plain()), Edit::SelectPolicy("rr".into()));
    assert_eq!(rr.discussed_tunable().unwrap().0.key, "quantum");
}

#[test]
fn scenes_are_parsed_and_stepped_within_the_list() {
    let mut a = plain();
    a.seed = 11;
    let mut b = plain();
    b.seed = 12;
    let (la, lb) = (
        schedlab::encode(&LinkState::new(a)),
        schedlab::encode(&LinkState::new(b)),
    );
    // One a line, as full URLs or fragments; other lines are left out.
    let text = format!("https://example.org/{la}\nnot a link\n{lb}\n");
    let state = reduce(&open(plain()), ViewChange::SetScenes(text));
    assert_eq!(state.scenes, vec![la.clone(), lb.clone()]);
    assert_eq!(state.scene, None);
    // A JSON list works too.
    let json = serde_json::to_string(&[&la, &lb]).unwrap();
    assert_eq!(schedlab_web::state::parse_scenes(&json), vec![la, lb]);

    let first = reduce(&state, Edit::StepScene(1));
    assert_eq!((first.scene, first.draft.seed), (Some(0), 11));
    assert!(first.generation > state.generation);
    let second = reduce(&first, Edit::StepScene(1));
    assert_eq!((second.scene, second.draft.seed), (Some(1), 12));
    // Past the end: the last scene stays and does not run again.
    let past = reduce(&second, Edit::StepScene(1));
    assert_eq!((past.scene, past.generation), (Some(1), second.generation));
    let back = reduce(&past, Edit::StepScene(-1));
    assert_eq!((back.scene, back.draft.seed), (Some(0), 11));

    // A broken scene is reported with its number; the page stays.
    let broken = reduce(
        &open(plain()),
        ViewChange::SetScenes("#s=1.bm90IGRlZmxhdGU".into()),
    );
    let after = reduce(&broken, Edit::StepScene(1));
    assert!(after.notice.as_deref().unwrap().starts_with("Scene 1: "));
    assert_eq!(after.draft, broken.draft);
}

#[test]
fn the_default_scenarios_headline_is_the_probes_mean_lateness_and_moves_with_the_bonus() {
    let lateness = |ratio: i64| {
        let state = Rc::new(AppState::default_scenario());
        let state = settle(reduce(
            &state,
            Edit::SetTunable("prio_bonus_ratio".into(), ratio),
        ));
        let shown = state.shown.clone().unwrap();
        let report = shown.outcome.report.clone().unwrap();
        let card = report.headlines.first().cloned().unwrap();
        assert_eq!(
            (card.label.as_str(), card.unit.as_str()),
            ("probe: mean lateness", "ms")
        );
        card.value
    };
    let (none, some) = (lateness(0), lateness(25));
    assert!(none > some, "lateness at 0: {none} ms, at 25: {some} ms");
}

#[test]
fn type_scale_follows_large_type_and_presenter_mode() {
    use schedlab_web::state::{type_scale, LARGE_TYPE_SCALE, PRESENTER_SCALE};
    let mut view = ViewState::default();
    assert_eq!(type_scale(&view), 1.0);
    view.large_type = true;
    assert_eq!(type_scale(&view), LARGE_TYPE_SCALE);
    view.presenter = true;
    assert_eq!(type_scale(&view), LARGE_TYPE_SCALE * PRESENTER_SCALE);
}

#[test]
fn contests_generated_scenario_follows_what_it_depends_on() {
    let fresh = |s: &AppState| {
        let d = &s.draft;
        schedlab_web::presets::generate(s.preset.as_ref().unwrap(), d.cpus, d.seed, &d.policy)
            .unwrap()
    };
    let contest = reduce(&open(plain()), Edit::SelectPreset("contest".into()));
    let generated = contest.generated().unwrap();
    assert_eq!(generated, fresh(&contest));
    // A tunable's move reuses the scenario made before, with the tunable in its policy.
    let (key, value) = schedlab::POLICIES
        .iter()
        .find(|p| p.id == contest.draft.policy.id)
        .and_then(|p| p.tunables.first())
        .map(|t| (t.key.to_owned(), t.max))
        .unwrap();
    let moved = reduce(&contest, Edit::SetTunable(key.clone(), value));
    assert_eq!(moved.generated().unwrap().policy.tunables[&key], value);
    assert_eq!(moved.generated().unwrap(), fresh(&moved));
    // A new seed, CPU count or policy makes it again.
    let seeded = reduce(&moved, Edit::SetSeed("7".into()));
    assert_eq!(seeded.generated().unwrap(), fresh(&seeded));
    assert_ne!(seeded.generated().unwrap(), generated);
    let cpus = reduce(&seeded, Edit::SetCpus("4".into()));
    assert_eq!(cpus.generated().unwrap(), fresh(&cpus));
    let other = reduce(&cpus, Edit::SelectPolicy("cfs".into()));
    assert_eq!(other.generated().unwrap(), fresh(&other));
    assert_ne!(
        other.generated().unwrap().machine,
        cpus.generated().unwrap().machine
    );
}

/// On contest a tunable's move leaves the draft what its preset makes: the run goes out as
/// `Source::Generated` while the tunable is valid, whole while it is not, and as `Generated`
/// again once it is; so with a machine knob set by hand over the preset, and not after a task
/// was added.
#[test]
fn a_tunables_move_on_contest_keeps_the_draft_made_by_its_preset() {
    let generated = |s: &AppState| {
        matches!(
            s.requests().first(),
            Some(Request::Run {
                scenario: Source::Generated { .. },
                ..
            })
        )
    };
    let contest = reduce(&open(plain()), Edit::SelectPreset("contest".into()));
    assert!(contest.from_preset.exact && generated(&contest));
    let spec = schedlab::find(&contest.draft.policy.id)
        .and_then(|p| p.tunables.first())
        .unwrap();
    let key = spec.key.to_owned();
    let moved = reduce(&contest, Edit::SetTunable(key.clone(), spec.max));
    assert!(moved.from_preset.exact && generated(&moved));
    let invalid = reduce(&moved, Edit::SetTunable(key.clone(), spec.max + 1));
    assert!(!invalid.problems.is_empty());
    assert!(!invalid.from_preset.exact && !generated(&invalid));
    let back = reduce(&invalid, Edit::ResetTunable(key.clone()));
    assert!(back.problems.is_empty() && back.from_preset.exact && generated(&back));
    // A knob set by hand over the preset: still its scenario, with the knob.
    let knob = schedlab::engine::machine::knobs::knobs()
        .next()
        .unwrap()
        .spec;
    let value = if knob.default == knob.max {
        knob.min
    } else {
        knob.max
    };
    let set = reduce(&back, Edit::SetTunable(knob.key.to_owned(), value));
    assert_eq!(set.from_preset.machine.get(knob.key), Some(&value));
    let moved = reduce(&set, Edit::SetTunable(key, spec.max));
    assert_eq!(moved.from_preset.machine, set.from_preset.machine);
    assert!(moved.from_preset.exact && generated(&moved));
    // A task added to the preset's: no longer what it makes, and a tunable's move keeps that.
    let edited = reduce(&moved, Edit::AddTask);
    assert!(!edited.from_preset.exact && !generated(&edited));
    let moved = reduce(&edited, Edit::ResetTunable(spec.key.to_owned()));
    assert!(!moved.from_preset.exact && !generated(&moved));
}

/// Any preset's draft goes out as `Source::Generated` while it is what the preset makes, a
/// slider moved (the default scenario's move posts a few bytes, not the scenario), and the
/// worker runs it as it would the scenario written out; once a task is edited, the scenario
/// goes whole.
#[test]
fn a_tunables_move_on_any_preset_sends_what_the_preset_makes() {
    let first = Rc::new(AppState::default_scenario());
    let spec = schedlab::find(&first.draft.policy.id)
        .and_then(|p| p.tunables.first())
        .unwrap();
    let moved = reduce(&first, Edit::SetTunable(spec.key.to_owned(), spec.max));
    assert!(moved.from_preset.exact);
    let Some(Request::Run {
        id,
        scenario: named @ Source::Generated { .. },
        preset,
    }) = moved.requests().into_iter().next()
    else {
        panic!("not a run of what the preset makes");
    };
    let hash = |request| match sim::respond(request, &clock) {
        Response::Ran { outcome, .. } => outcome.result.trace_hash,
        other => panic!("not a run: {other:?}"),
    };
    let written = Source::Scenario(Box::new((*moved.draft).clone()));
    assert_eq!(
        hash(Request::Run {
            id,
            scenario: named,
            preset: preset.clone()
        }),
        hash(Request::Run {
            id,
            scenario: written,
            preset
        })
    );
    let edited = reduce(&moved, Edit::AddTask);
    assert!(!edited.from_preset.exact);
    assert!(matches!(
        edited.requests().first(),
        Some(Request::Run { scenario: Source::Scenario(s), .. }) if **s == *edited.draft
    ));
}

/// What `AppState::generated` reuses rests on this: every preset's scenario depends on the
/// policy's id only, its tunables landing in the scenario's `policy` alone.
#[test]
fn no_preset_reads_the_policys_tunables() {
    for preset in schedlab::workloads::PRESETS {
        let reference = schedlab::PresetRef {
            id: preset.id.to_owned(),
            params: Default::default(),
        };
        for policy in schedlab::POLICIES.iter().filter(|p| !p.tunables.is_empty()) {
            let spec =
                |pick: fn(&schedlab::TunableSpec) -> i64| schedlab::engine::scenario::PolicySpec {
                    id: policy.id.to_owned(),
                    tunables: policy
                        .tunables
                        .iter()
                        .map(|t| (t.key.to_owned(), pick(t)))
                        .collect(),
                };
            let (low, high) = (spec(|t| t.min), spec(|t| t.max));
            let generate = |p: &schedlab::engine::scenario::PolicySpec| {
                let mut s = schedlab_web::presets::generate(&reference, 2, 1, p).unwrap();
                assert_eq!(&s.policy, p, "{} under {}", preset.id, policy.id);
                s.policy = Default::default();
                s
            };
            assert!(
                generate(&low) == generate(&high),
                "{} reads {}'s tunables",
                preset.id,
                policy.id
            );
        }
    }
}

#[test]
fn pinning_a_contest_run_keeps_its_rows_and_those_still_to_come() {
    use schedlab_web::protocol::ContestCells;
    let s = reduce(&open(plain()), Edit::SelectPreset("contest".into()));
    assert!(s.is_contest());
    let run = s.requests().remove(0);
    let s = reduce(&s, WorkerEvent::Reply(sim::respond(run, &clock)));
    let row = |load: &str, id: u64| {
        WorkerEvent::Reply(Response::ContestRow {
            id,
            row: ContestCells {
                load: load.into(),
                time_ns: 1_000_000_000,
                ..ContestCells::default()
            },
        })
    };
    let a_generation = s.generation;
    let s = reduce(&s, row("noload", a_generation));
    let pinned = reduce(&s, ViewChange::TogglePin);
    assert_eq!(pinned.pinned_contest.rows.len(), 1);
    // A row of A's generation arriving after the pin belongs to A (and is still on screen).
    let pinned = reduce(&pinned, row("cacherun", a_generation));
    assert_eq!(pinned.pinned_contest.rows.len(), 2);
    assert_eq!(pinned.contest.rows.len(), 2);
    // B's rows are B's only.
    let b = reduce(&pinned, Edit::SetSeed("5".into()));
    let b = reduce(&b, row("noload", b.generation));
    assert_eq!(b.pinned_contest.rows.len(), 2);
    assert_eq!(b.contest.rows.len(), 1);
    // Late rows of A's generation still go to A, not to B's table.
    let b = reduce(&b, row("io_load", a_generation));
    assert_eq!(b.pinned_contest.rows.len(), 3);
    assert_eq!(b.contest.rows.len(), 1);
    // Unpinning forgets A's rows.
    let off = reduce(&b, ViewChange::TogglePin);
    assert!(off.pinned_contest.rows.is_empty());
    assert_eq!(off.contest.rows.len(), 1);
}

/// The quiz comes from the worker; its scenario becomes the draft, and the results stay hidden
/// while a question is open.
#[test]
fn a_quiz_is_made_by_the_worker_shown_in_the_explorer_and_hides_results_until_answered() {
    use schedlab_web::components::quiz::{QuizStep, Stage};
    let s = settle(open(plain()));
    assert!(!s.quiz_hides_results());
    let s = reduce(&s, ViewChange::SetQuiz(Some(3)));
    // Asked for with a new generation, hidden while on its way.
    let asked = s.requests();
    assert!(asked
        .iter()
        .any(|r| matches!(r, Request::Quiz { seed: 3, id } if *id == s.generation)));
    assert!(s.quiz_hides_results());
    let s = settle(s);
    let quiz = s.quiz.quiz.clone().expect("the quiz arrived");
    assert_eq!(quiz.seed, 3);
    assert_eq!(*s.draft, quiz.scenario);
    assert!(s.quiz_hides_results());
    // Its run shows once the draft's generation is answered; still hidden until an answer.
    let s = settle(s);
    assert_eq!(*s.shown.as_ref().unwrap().scenario, quiz.scenario);
    assert!(s.quiz_hides_results());
    let s = reduce(&s, ViewChange::QuizStep(QuizStep::Answer("Z".into())));
    assert!(s
        .quiz
        .problem
        .as_deref()
        .unwrap()
        .contains("not one of the jobs"));
    assert!(s.quiz_hides_results());
    let schedlab::quiz::Answer::Job(right) = quiz.questions[0].answer.clone() else {
        panic!("the first question names a job")
    };
    let s = reduce(&s, ViewChange::QuizStep(QuizStep::Answer(right)));
    assert_eq!(
        s.quiz.stage,
        Stage::Answered {
            correct: true,
            shown: 1
        }
    );
    assert!(!s.quiz_hides_results());
    let s = reduce(&s, ViewChange::QuizStep(QuizStep::Next));
    assert_eq!((s.quiz.question, &s.quiz.stage), (1, &Stage::Asking));
    assert!(s.quiz_hides_results());
    let s = reduce(&s, ViewChange::SetQuiz(None));
    assert!(!s.quiz_hides_results());
    // A stale quiz reply (another seed) is dropped.
    let stale = reduce(
        &reduce(&s, ViewChange::SetQuiz(Some(4))),
        WorkerEvent::Reply(sim::respond(Request::Quiz { id: 1, seed: 9 }, &clock)),
    );
    assert!(stale.quiz.quiz.is_none());
}

#[test]
fn compared_tasks_toggle_run_nothing_and_keep_at_most_three() {
    let start = settle(open(plain()));
    let mut s = start.clone();
    for t in ["hog", "a", "b"] {
        s = reduce(&s, ViewChange::CompareTask(t.into()));
    }
    assert_eq!(s.view.compared_tasks, ["hog", "a", "b"]);
    // A fourth: the one compared longest goes (the focus takes the fourth colour).
    s = reduce(&s, ViewChange::CompareTask("c".into()));
    assert_eq!(s.view.compared_tasks, ["a", "b", "c"]);
    // Again: taken out.
    s = reduce(&s, ViewChange::CompareTask("a".into()));
    assert_eq!(s.view.compared_tasks, ["b", "c"]);
    assert_eq!(s.generation, start.generation);
    assert_eq!(s.link_state().unwrap().view.compared_tasks, ["b", "c"]);
}

/// The task table's fields as the App builds them from the state.
fn task_fields(state: &AppState) -> schedlab_web::components::task_table::Fields {
    schedlab_web::components::task_table::Fields {
        draft: state.draft.clone(),
        problems: state.problems.clone(),
        raw: state.raw.clone(),
    }
}

#[test]
fn a_tunables_move_leaves_the_task_tables_fields_equal_and_a_task_edit_does_not() {
    let state = open(plain());
    let moved = reduce(&state, Edit::SetTunable("quantum".into(), 8));
    assert_ne!(moved.draft, state.draft, "the tunable is in the draft");
    assert_eq!(task_fields(&moved), task_fields(&state));
    // What the table shows does change them: a task, the policy's id (whether a group weight
    // is shown), a problem.
    let renamed = reduce(&state, Edit::RenameTask(0, "browser".into()));
    assert_ne!(task_fields(&renamed), task_fields(&state));
    let other_policy = reduce(&state, Edit::SelectPolicy("fifo".into()));
    assert_ne!(task_fields(&other_policy), task_fields(&state));
    let invalid = reduce(&state, Edit::SetTunable("quantum".into(), -1));
    assert_ne!(task_fields(&invalid), task_fields(&state));
}
