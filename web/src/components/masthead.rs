use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::ViewChange;

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

#[derive(Properties, PartialEq)]
pub struct MastheadProps {
    /// Large type is on (the view's `large_type`).
    pub large_type: bool,
    /// Presenter mode is on (the view's `presenter`).
    pub presenter: bool,
    /// Where the two switches go: `ToggleLargeType`, `TogglePresenter`.
    pub onview: Callback<ViewChange>,
}

/// A skip link to the charts, the page title, the engine version it runs, and the presenter
/// and large-type switches for projectors.
#[component]
pub fn Masthead(props: &MastheadProps) -> Html {
    let large = props.large_type;
    let presenting = props.presenter;
    let on_present = props
        .onview
        .reform(|_: MouseEvent| ViewChange::TogglePresenter);
    let on_large = props
        .onview
        .reform(|_: MouseEvent| ViewChange::ToggleLargeType);
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
            <button type="button" class="presenter-toggle" aria-pressed={presenting.to_string()} onclick={on_present}
                data-testid="presenter-toggle" title="One large chart, the slider under discussion and the headline numbers">
                { if presenting { "Leave presenter mode" } else { "Presenter mode" } }
            </button>
            <button type="button" class="large-type-toggle" data-testid="large-type-toggle" aria-pressed={large.to_string()} onclick={on_large}
                title="Bigger text for a projector">
                { if large { "Normal type" } else { "Large type" } }
            </button>
        </header>
    }
}
