use std::cell::Cell;
use std::rc::Rc;

use schedlab::view::RunData;
use yew::prelude::*;

use crate::components::Shared;
use crate::hooks::now_ms;
use crate::state::RunStatus;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Where the current run stands.
    pub status: RunStatus,
    /// The draft's generation: a new one while running restarts the elapsed time.
    pub generation: u64,
    /// What the charts draw of the run on screen: its task count, and what they leave out.
    #[prop_or_default]
    pub data: Option<Shared<RunData>>,
    /// Cancel pressed while a run is going, with the seconds it had been going (ms).
    pub oncancel: Callback<f64>,
}

/// How often the elapsed time of a run in progress is redrawn.
const TICK: std::time::Duration = std::time::Duration::from_millis(100);
/// The elapsed time and Cancel show once a run has taken this long (ms): most runs end sooner,
/// and the line does not flicker while a slider is dragged.
const SHOW_AFTER_MS: f64 = 400.0;

/// Whether a run is going (with its elapsed time and a Cancel button), how long the last one
/// took, and its trace hash (always last, so the text ends with the hash once a run is done);
/// under it, what the charts leave out of a very large run.
#[component]
pub fn RunStatusLine(props: &Props) -> Html {
    let running = props.status == RunStatus::Running;
    let generation = props.generation;
    // When the run of this generation started (the page asked for it), while it runs.
    let started = use_mut_ref(|| None::<f64>);
    {
        let started = started.clone();
        use_effect_with((running, generation), move |(running, _)| {
            *started.borrow_mut() = running.then(now_ms);
        });
    }
    // Redraw the elapsed time while running.
    let redraw = use_force_update();
    use_effect_with(running, move |&running| {
        let alive = Rc::new(Cell::new(running));
        if running {
            let alive = alive.clone();
            yew::platform::spawn_local(async move {
                while alive.get() {
                    yew::platform::time::sleep(TICK).await;
                    if alive.get() {
                        redraw.force_update();
                    }
                }
            });
        }
        move || alive.set(false)
    });
    let elapsed_ms = started.borrow().map(|t| (now_ms() - t).max(0.0));
    let slow = running && elapsed_ms.is_some_and(|e| e >= SHOW_AFTER_MS);
    let tasks = props.data.as_ref().map(|d| d.task_count()).unwrap_or(0);
    let (class, text) = match &props.status {
        RunStatus::Running => ("running", "Running…".to_string()),
        RunStatus::Done { wall_ms, hash } => (
            "done",
            // Whole milliseconds as an integer: formatting an f64 to a precision takes the
            // exact, big-number path, ~1.5 ms of a load's first render in the browser's
            // baseline-compiled wasm (self time in a CPU profile of the first render).
            format!(
                "Done in {} ms · {tasks} tasks · trace hash {hash}",
                wall_ms.round() as u64
            ),
        ),
        RunStatus::Failed(message) => ("failed", format!("Run failed: {message}")),
        RunStatus::Stopped(message) => ("stopped", format!("Stopped: {message}")),
        RunStatus::Invalid => (
            "invalid",
            "Not run: the scenario has problems (see the marked fields)".to_string(),
        ),
    };
    // What the charts leave out, said where it is seen before the charts, not in a legend.
    let warnings: Vec<String> = props
        .data
        .as_ref()
        .map(|data| {
            let mut out = Vec::new();
            if data.shown_until_ns < data.end_ns {
                out.push(format!(
                    "The charts show the trace up to {} of {}: the run had more than the page keeps ({} segments); the statistics cover the whole run.",
                    schedlab::view::format_ns_4(data.shown_until_ns),
                    schedlab::view::format_ns_4(data.end_ns),
                    schedlab::view::SEGMENT_LIMIT
                ));
            }
            if let Some(o) = &data.omitted {
                out.push(format!(
                    "{} more tasks past the first {} are summed up in one row of the statistics.",
                    o.tasks,
                    schedlab::view::TASK_LIMIT
                ));
            }
            out
        })
        .unwrap_or_default();
    let on_cancel = {
        let oncancel = props.oncancel.clone();
        let started = started.clone();
        Callback::from(move |_: MouseEvent| {
            let elapsed = started.borrow().map_or(0.0, |t| (now_ms() - t).max(0.0));
            oncancel.emit(elapsed);
        })
    };
    html! {
        <div class="run-status-line">
            <p class={classes!("run-status", class)} data-testid="run-status" role="status" aria-live="polite">
                <span class="run-status-dot" aria-hidden="true"></span>
                { text }
                if slow {
                    // Not announced: a screen reader would read it ten times a second.
                    <span class="run-elapsed" data-testid="run-elapsed" aria-hidden="true">
                        { format!(" {:.1} s", elapsed_ms.unwrap_or(0.0) / 1000.0) }
                    </span>
                }
            </p>
            if slow {
                <button type="button" class="run-cancel" data-testid="run-cancel" onclick={on_cancel}
                    title="Stop this run now: the simulator is restarted, your scenario and the last good run stay">
                    { "Cancel" }
                </button>
            }
            if !warnings.is_empty() {
                <p class="chart-warnings" data-testid="chart-warnings">{ warnings.join(" ") }</p>
            }
        </div>
    }
}
