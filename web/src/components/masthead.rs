use yew::prelude::*;

/// The page title and the engine version it runs.
#[component]
pub fn Masthead() -> Html {
    html! {
        <header class="masthead">
            <h1 class="masthead-title">{ "schedlab" }</h1>
            <p class="masthead-version">
                { "engine " }
                <span data-testid="engine-version">{ schedlab_engine::VERSION }</span>
            </p>
        </header>
    }
}
