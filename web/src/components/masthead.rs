use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::{Action, AppContext, ViewChange};

/// Moves focus to the charts: past the scenario builder's many fields, for keyboard users.
/// Not a plain `#fragment` link: the page's fragment is its share link.
fn skip_to_charts(e: MouseEvent) {
    e.prevent_default();
    let target = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("section.charts").ok().flatten())
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(el) = target {
        // Focusable by script only, so it is no extra Tab stop.
        el.set_attribute("tabindex", "-1").ok();
        el.focus().ok();
        el.scroll_into_view();
    }
}

/// A skip link to the charts, the page title, the engine version it runs, and the presenter
/// and large-type switches for projectors.
#[component]
pub fn Masthead() -> Html {
    let state = use_context::<AppContext>();
    let large = state.as_ref().is_some_and(|s| s.view.large_type);
    let presenting = state.as_ref().is_some_and(|s| s.view.presenter);
    let on_present = state.clone().map(|state| {
        Callback::from(move |_| state.dispatch(Action::from(ViewChange::TogglePresenter)))
    });
    let onclick = state.map(|state| {
        Callback::from(move |_| state.dispatch(Action::from(ViewChange::ToggleLargeType)))
    });
    html! {
        <header class="masthead">
            <a class="skip-link" href="#" onclick={Callback::from(skip_to_charts)} data-testid="skip-to-charts">
                { "Skip to the charts" }
            </a>
            <h1 class="masthead-title">{ "schedlab" }</h1>
            <p class="masthead-tagline" data-testid="engine-description">{ schedlab::DESCRIPTION }</p>
            <p class="masthead-version">
                { "engine " }
                <span data-testid="engine-version">{ schedlab::VERSION }</span>
            </p>
            if let Some(onclick) = on_present {
                <button type="button" class="presenter-toggle" aria-pressed={presenting.to_string()} {onclick}
                    data-testid="presenter-toggle" title="One large chart, the slider under discussion and the headline numbers">
                    { if presenting { "Leave presenter mode" } else { "Presenter mode" } }
                </button>
            }
            if let Some(onclick) = onclick {
                <button type="button" class="large-type-toggle" data-testid="large-type-toggle" aria-pressed={large.to_string()} {onclick}
                    title="Bigger text for a projector">
                    { if large { "Normal type" } else { "Large type" } }
                </button>
            }
        </header>
    }
}
