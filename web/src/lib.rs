//! schedlab's page: a Yew app around the simulation engine.
//!
//! ```text
//! components ──callbacks (state::Dispatch)──► state.rs (one reducer, held by App)
//!      ▲                                      │ generation += 1 for every valid edit
//!      └──── props (App reads the state) ◄────┤
//!                                             ▼ App effect
//!                hooks/use_runner ──postMessage(JSON)──► worker (app.js: sim.rs)
//!                          ▲                                   │ a run's reply: binary
//!                          ▲                                   │ (wire.rs), others JSON
//!                          └────── Action::from(WorkerEvent::Reply(reply)) ◄─────┘
//! ```
//!
//! The runner's queue holds, in the order they go out: the newest run, the inspector's
//! request, contest rows, then the points of a sweep.
//!
//! The app is plain Rust that compiles natively too (so `cargo clippy --workspace` checks it);
//! only [`start`] and the worker touch the real browser.

pub mod charts;
pub mod components;
pub mod hooks;
pub mod panic_banner;
pub mod presets;
pub mod protocol;
pub mod sim;
pub mod state;
pub mod templates;
pub mod wire;

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use components::chart_area::ChartArea;
use components::compare_panel::ComparePanel;
use components::compare_toggle::CompareToggle;
use components::contest_table::{self, ContestTable};
use components::embed_view::{query_embed, EmbedView};
use components::error_banner::ErrorBanner;
use components::export_bar::{ExportBar, SweepShown};
use components::masthead::Masthead;
use components::policy_panel::PolicyPanel;
use components::presenter::{DiscussedSlider, HeadlineCards, Scenes, StoryChart};
use components::report_panel::ReportPanel;
use components::run_status::RunStatusLine;
use components::scenario_panel::ScenarioPanel;
use components::share_box::ShareBox;
use components::stats_table::StatsTable;
use components::sweep_panel::{SweepPanel, SweepPanelProps};
use components::task_table::TaskTable;
use components::Shared;
use hooks::use_deferred::{after_paint, use_painted};
use hooks::use_runner::use_runner;
use schedlab::link::Embed;
use state::{Action, AppState, Dispatch, Edit, ViewChange, WorkerEvent};

/// The fragment of the page's URL (`#s=...` for a share link), or "".
fn location_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The whole page.
#[component]
pub fn App() -> Html {
    let state = use_reducer(|| {
        let mut s = AppState::from_fragment(&location_fragment());
        // Large type is remembered on this device, whatever link opens the page.
        s.view.large_type |= stored_large_type() == Some(true);
        // The first run, when the worker has answered it already: shown in the first render.
        match hooks::use_runner::take_first_run(&s) {
            Some(reply) => {
                let s = Rc::new(s).reduce(Action::from(WorkerEvent::Reply(reply)));
                Rc::try_unwrap(s).unwrap_or_else(|s| (*s).clone())
            }
            None => s,
        }
    });
    let runner = use_runner(&state);
    let first_painted = use_first_paint(state.shown.is_some());
    // The builder (the policy panel, the scenario panel, the task table), the report, the sweep
    // and the quiz panels render once the page's first frame, the first chart's, is painted: its
    // first render and layout do not wait for their few hundred elements, nor for compiling
    // their code (the browser compiles a wasm function when it is first called). The policy
    // panel is in the first screenful, one frame later: its tunables (range inputs, each with
    // its help) put the first chart 40-100 ms later on a load (medians of interleaved loads,
    // headless Chromium, 2 cores).
    let page_painted = use_painted();
    // The reducer's dispatcher as callbacks, made once (see `state::Dispatch`).
    let dispatch = {
        let dispatcher = state.dispatcher();
        (*use_memo((), move |_| {
            Dispatch::new(Callback::from(move |action| dispatcher.dispatch(action)))
        }))
        .clone()
    };

    // Every new generation of a valid draft goes to the worker at once, from this render
    // rather than from an effect after it: the worker simulates while the page renders the
    // edit (for the first run, the whole page's DOM). A slider dragged across fires an input
    // event per pixel: while a run is in flight, each newer generation replaces the one queued
    // behind it (`hooks::queue`), so only the newest values run next.
    {
        let state = state.clone();
        let runner = runner.clone();
        use_memo(state.generation, move |_| {
            let requests = state.requests();
            if !requests.is_empty() {
                runner.submit(requests);
            }
        });
    }

    // The inspector asks for the run queues at the cursor whenever its id moves on (the cursor
    // moved, or a new run is shown).
    {
        let state = state.clone();
        let runner = runner.clone();
        use_effect_with(state.inspector.id, move |_| {
            if let Some(request) = state.inspect_request() {
                runner.inspect(request);
            }
        });
    }

    // A new sweep sends its points; a cancelled or crashed one drops those not yet sent.
    {
        let state = state.clone();
        let runner = runner.clone();
        let sweep = state.sweep.as_ref().map(|s| (s.id, s.halted.is_some()));
        use_effect_with(sweep, move |sweep| {
            if sweep.is_some() {
                runner.sweep(state.sweep_requests());
            }
        });
    }

    // A link pasted into the address bar of the open page only changes the fragment. The
    // event's own URL is read, not the address bar's: a run finishing in between rewrites that.
    {
        let state = state.clone();
        use_effect_with((), move |_| {
            let listener = wasm_bindgen::closure::Closure::<dyn FnMut(_)>::new(
                move |event: web_sys::HashChangeEvent| {
                    let url = event.new_url();
                    let fragment = url.find('#').map_or("", |i| &url[i..]);
                    state.dispatch(Action::from(Edit::OpenLink(fragment.to_owned())));
                },
            );
            let window = web_sys::window();
            if let Some(w) = &window {
                w.add_event_listener_with_callback("hashchange", listener.as_ref().unchecked_ref())
                    .ok();
            }
            move || {
                if let Some(w) = window {
                    w.remove_event_listener_with_callback(
                        "hashchange",
                        listener.as_ref().unchecked_ref(),
                    )
                    .ok();
                }
            }
        });
    }

    hooks::use_address_bar::use_address_bar(&state);

    // Large type scales the root element, which every rem-sized style follows (the charts'
    // canvas text too: they read the root's font size), and is remembered on this device.
    use_effect_with(state.view.large_type, |&large| {
        if stored_large_type() != Some(large) {
            store_large_type(large);
        }
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            root.class_list()
                .toggle_with_force("large-type", large)
                .ok();
        }
    });

    // Cancel: end the worker now; the reducer keeps the scenario and the last good run.
    let on_cancel = use_callback(
        (runner.clone(), dispatch.clone()),
        |elapsed_ms: f64, (runner, dispatch)| {
            runner.cancel();
            dispatch.action.emit(Action::from(WorkerEvent::Stopped {
                elapsed_ms,
                timed_out: false,
            }));
        },
    );
    let on_share = {
        let state = state.clone();
        let onview = dispatch.view.clone();
        Callback::from(move |()| {
            if let Some(link) = state.link_state() {
                let url = components::share_box::publish(&link);
                onview.emit(ViewChange::Shared(url));
            }
        })
    };
    // What a machine knob's Reset restores: made again only when what it depends on changes,
    // which the policy's tunables are not (no preset's scenario reads them), so a slider's
    // move does not copy the preset's scenario.
    let generated = {
        let state = state.clone();
        let draft = &state.draft;
        let deps = (
            state.preset.clone(),
            draft.cpus,
            draft.seed,
            draft.policy.id.clone(),
            draft.machine.is_some(),
        );
        use_memo(deps, move |(_, _, _, _, machine)| {
            machine.then(|| state.generated()).flatten().map(Rc::new)
        })
    };
    // What the sweep panel shows about the draft: its metrics, which depend on the preset and
    // whether the task table was edited only (resolving the preset's benchmark on every slider
    // move cost 0.5-0.9 ms), and whether the sweep on screen is stale (which regenerates the
    // preset), worked out only when there is one. The draft is compared by address: an edit
    // makes a new one, and comparing two by value walks every task of an unchanged draft.
    let sweep_metrics = {
        let state = state.clone();
        *use_memo((state.preset.clone(), state.edited), move |_| {
            state.sweep_metrics()
        })
    };
    let sweep_stale = {
        let state = state.clone();
        let deps = state.sweep.clone().map(|sweep| {
            (
                Shared::from(state.draft.clone()),
                state.preset.clone(),
                state.edited,
                Shared::from(sweep),
            )
        });
        *use_memo(deps, move |deps| deps.is_some() && state.sweep_is_stale())
    };

    // Below, every component gets what it shows as props, read here from the one state; Yew
    // skips those whose props did not change.
    let view = &state.view;
    let shown = state.shown.clone().map(Shared::from);
    let banner = html! {
        <ErrorBanner message={state.banner().map(AttrValue::from)}
            ondismiss={dispatch.view.reform(|_| ViewChange::DismissNotice)} />
    };
    let masthead = html! {
        <Masthead large_type={view.large_type} presenter={view.presenter} onview={dispatch.view.clone()} />
    };
    let run_status = html! {
        <RunStatusLine status={state.status.clone()} generation={state.generation}
            data={state.shown.as_ref().map(|s| Shared::from(s.data.clone()))} oncancel={on_cancel} />
    };
    let chart_area = html! {
        <ChartArea shown={shown.clone()} pinned={state.pinned.clone().map(Shared::from)}
            view={view.clone()} inspection={state.inspector.clone()} onview={dispatch.view.clone()}
            secondary={first_painted} />
    };
    let sweep_props = || SweepPanelProps {
        draft: state.draft.clone(),
        metrics: sweep_metrics,
        run: state.sweep.clone(),
        stale: sweep_stale,
        error: state.sweep_error.clone(),
        onsweep: dispatch.sweep.clone(),
    };
    if view.presenter {
        let discussed = state.discussed_tunable();
        return html! {
            <div class="app presenting">
                { banner }
                { masthead }
                <main class="presenter" data-testid="presenter">
                    <div class="presenter-bar">
                        <HeadlineCards shown={shown.clone()} />
                        <DiscussedSlider discussed={discussed.map(|(spec, value)| (components::Static(spec), value))}
                            problem={discussed.and_then(|(spec, _)| state.problem_at(&format!("policy.tunables.{}", spec.key)))}
                            onedit={dispatch.edit.clone()} />
                    </div>
                    <section class="results" aria-label="Results">
                        <div class="results-bar">
                            { run_status }
                            <Scenes count={state.scenes.len()} scene={state.scene}
                                onedit={dispatch.edit.clone()} onview={dispatch.view.clone()} />
                        </div>
                        <StoryChart shown={shown.clone()} view={view.clone()}
                            onview={dispatch.view.clone()} />
                    </section>
                </main>
            </div>
        };
    }
    // An embedded page (an iframe in slides) shows one chart and a link to the whole page.
    if let Some(embed) = view.embed.or_else(query_embed) {
        return html! {
            <div class="app app-embed">
                { banner }
                <EmbedView {embed} shown={shown.clone()} view={view.clone()} link={state.link_state()}
                    sweep={(embed == Embed::Sweep).then(sweep_props)} onview={dispatch.view.clone()} />
            </div>
        };
    }
    let compare = state.pinned.clone().map(Shared::from).zip(shown.clone());
    let featured = state
        .preset
        .as_ref()
        .is_some_and(|p| p.id == state::DEFAULT_PRESET)
        && state.draft.policy.id == schedlab::workloads::DEFAULT_POLICY;
    let problems = &state.problems;
    let draft = &state.draft;
    let contest = state.is_contest().then(|| {
        let pinned = state
            .pinned
            .as_ref()
            .map(|a| (a.scenario.policy.clone(), state.pinned_contest.rows.clone()));
        html! {
            <ContestTable policy={draft.policy.clone()} cpus={draft.cpus} seed={draft.seed}
                selected={contest_table::selected_load(state.preset.as_ref())}
                rows={state.contest.rows.clone()} {pinned} />
        }
    });
    html! {
        <div class="app">
            { banner }
            { masthead }
            <main class="explorer">
                <aside class="builder" aria-label="Scenario">
                    if page_painted {
                    <PolicyPanel draft={draft.clone()} generated={(*generated).clone().map(Shared::from)}
                        problems={problems.clone()} onedit={dispatch.edit.clone()} />
                    <ScenarioPanel preset={state.preset.clone()} edited={state.edited}
                        cpus={state.raw.field_text("cpus", || draft.cpus.to_string())}
                        duration={state.raw.field_text("duration", || draft.duration.to_string())}
                        seed={state.raw.field_text("seed", || draft.seed.to_string())}
                        problems={problems.clone()} onedit={dispatch.edit.clone()} />
                    <TaskTable fields={Rc::new(components::task_table::Fields {
                            draft: state.draft.clone(),
                            problems: state.problems.clone(),
                            raw: state.raw.clone(),
                        })}
                        exercise={components::task_table::is_exercise(state.preset.as_ref())}
                        selected={state.view.selected_task.clone().map(AttrValue::from)}
                        compared={charts::compared(&state.view)}
                        onedit={dispatch.edit.clone()} />
                    }
                </aside>
                <section class={classes!("results", state.quiz_hides_results().then_some("quiz-asking"))} aria-label="Results">
                    <div class="results-bar">
                        { run_status }
                        <CompareToggle pinned={state.pinned.is_some() || state.pin_pending.is_some()}
                            can_pin={state.shown.is_some()} ontoggle={dispatch.view.reform(|()| ViewChange::TogglePin)} />
                        <ShareBox url={AttrValue::from(state.share_url.clone())}
                            enabled={state.shown.is_some()} onshare={on_share} />
                        <ExportBar shown={shown.clone()} view={view.clone()}
                            sweep={state.sweep.clone().map(|run| SweepShown {
                                    marker: components::sweep_panel::marker(&state.draft, &run),
                                    stale: sweep_stale,
                                    run,
                                })} />
                    </div>
                    if featured {
                        <p class="callout">
                            { "Seed 000, December 2002: Con Kolivas swept the O(1) scheduler's prio_bonus_ratio under contest, and Scott Thomason timed this probe (touch memory, sleep 0.3 s, write) against a make -j loop. Zero disables the interactivity bonus; Andrew Morton ran his desktop that way. Drag prio_bonus_ratio and watch how late the probe comes back." }
                        </p>
                    }
                    <HeadlineCards shown={shown.clone()} />
                    { chart_area }
                    // Under the charts: the two timelines stay at the top, on one axis.
                    if let Some((a, b)) = compare {
                        <ComparePanel {a} {b}
                            selected={view.selected_task.clone().map(AttrValue::from)} />
                    }
                    if page_painted {
                        <ReportPanel report={state.shown.as_ref().and_then(|s| s.outcome.report.clone())}
                            contest={state.is_contest()} />
                    }
                    { for contest }
                    if page_painted {
                        <SweepPanel ..sweep_props() />
                    }
                    <StatsTable shown={shown.clone().filter(|_| first_painted)} sort={state.sort}
                        selected={view.selected_task.clone().map(AttrValue::from)}
                        compared={charts::compared(view)} onview={dispatch.view.clone()} />
                    if page_painted {
                        <components::quiz::QuizPanel seed={view.quiz} session={state.quiz.clone()}
                            onview={dispatch.view.clone()} />
                    }
                </section>
            </main>
        </div>
    }
}

/// Whether the page's first run has been painted. Until then its results are the Gantt chart
/// and what sits above it: the charts under it and the stats table (thousands of cells) render
/// once that frame is on screen, so the first chart does not wait for their DOM and layout.
#[hook]
fn use_first_paint(shown: bool) -> bool {
    let painted = use_state_eq(|| false);
    {
        let painted = painted.clone();
        use_effect_with(shown, move |&shown| {
            if shown && !*painted {
                after_paint(move || painted.set(true));
            }
        });
    }
    *painted
}

/// Where this device keeps the large-type setting.
const LARGE_TYPE_KEY: &str = "schedlab.large-type";

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Reads what the app's first render reads of the page's localStorage ahead of it: its first
/// access waits on a synchronous round trip to the browser (1-20 ms measured), which is then
/// made while the worker simulates the page's first run (`main.rs`).
pub fn prepare() {
    stored_large_type();
}

/// The large-type setting this device remembers, if any (storage may be off: then none).
fn stored_large_type() -> Option<bool> {
    let value = local_storage()?.get_item(LARGE_TYPE_KEY).ok().flatten()?;
    Some(value == "1")
}

fn store_large_type(large: bool) {
    if let Some(storage) = local_storage() {
        storage
            .set_item(LARGE_TYPE_KEY, if large { "1" } else { "0" })
            .ok();
    }
}

/// Mounts the app on the page's `#app` element (or `<body>` if the template has none).
///
/// Installs the panic hook first, so a panic anywhere shows the error banner instead of a page
/// that silently stops responding.
pub fn start() {
    panic_banner::install();
    let root = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.get_element_by_id("app"));
    match root {
        Some(root) => yew::Renderer::<App>::with_root(root).render(),
        None => yew::Renderer::<App>::new().render(),
    };
}
