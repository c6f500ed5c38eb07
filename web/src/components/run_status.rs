use yew::prelude::*;

use crate::state::{AppContext, RunStatus};

/// Whether a run is going, how long the last one took, and its trace hash (always last, so
/// the text ends with the hash once a run is done).
#[component]
pub fn RunStatusLine() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let tasks = state
        .shown
        .as_ref()
        .map(|s| s.outcome.result.tasks.len())
        .unwrap_or(0);
    let (class, text) = match &state.status {
        RunStatus::Running => ("running", "Running…".to_string()),
        RunStatus::Done { wall_ms, hash } => (
            "done",
            format!("Done in {wall_ms:.0} ms · {tasks} tasks · trace hash {hash}"),
        ),
        RunStatus::Failed(message) => ("failed", format!("Run failed: {message}")),
        RunStatus::Invalid => (
            "invalid",
            "Not run: the scenario has problems (see the marked fields)".to_string(),
        ),
    };
    html! {
        <p class={classes!("run-status", class)} data-testid="run-status" role="status" aria-live="polite">
            <span class="run-status-dot" aria-hidden="true"></span>
            { text }
        </p>
    }
}
