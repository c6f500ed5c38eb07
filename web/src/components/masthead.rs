use yew::prelude::*;

use crate::state::{Action, AppContext, ViewChange};

/// The page title, the engine version it runs, and the large-type switch for projectors.
#[component]
pub fn Masthead() -> Html {
    let state = use_context::<AppContext>();
    let large = state.as_ref().is_some_and(|s| s.large_type);
    let onclick = state.map(|state| {
        Callback::from(move |_| state.dispatch(Action::from(ViewChange::ToggleLargeType)))
    });
    html! {
        <header class="masthead">
            <h1 class="masthead-title">{ "schedlab" }</h1>
            <p class="masthead-tagline" data-testid="engine-description">{ schedlab::DESCRIPTION }</p>
            <p class="masthead-version">
                { "engine " }
                <span data-testid="engine-version">{ schedlab::VERSION }</span>
            </p>
            if let Some(onclick) = onclick {
                <button type="button" class="large-type-toggle" aria-pressed={large.to_string()} {onclick}
                    title="Bigger text for a projector">
                    { if large { "Normal type" } else { "Large type" } }
                </button>
            }
        </header>
    }
}
