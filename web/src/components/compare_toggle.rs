use yew::prelude::*;

use crate::state::{Action, AppContext, ViewChange};

/// A/B mode's switch in the results bar: pins the run on screen as A (no new run: A is what is
/// shown), or unpins it.
#[component]
pub fn CompareToggle() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let pinned = state.pinned.is_some();
    let onclick = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::from(ViewChange::TogglePin)))
    };
    html! {
        <button type="button" class="compare-toggle" data-testid="compare-toggle"
            aria-pressed={if pinned { "true" } else { "false" }}
            disabled={!pinned && state.shown.is_none()}
            title="Keep this run as A and compare every later run (B) against it"
            {onclick}>
            { if pinned { "Stop comparing" } else { "Compare: pin this run as A" } }
        </button>
    }
}
