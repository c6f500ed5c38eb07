use yew::prelude::*;

/// What schedlab is, and where it stands.
#[component]
pub fn Intro() -> Html {
    html! {
        <section class="intro">
            <p class="intro-description" data-testid="engine-description">
                { schedlab_engine::DESCRIPTION }
            </p>
            <p class="intro-status">
                { "The interactive explorer is being built: this page does not run simulations yet." }
            </p>
        </section>
    }
}
