use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CompareToggleProps {
    /// A run is pinned as A (or a link's pinned run is on its way).
    pub pinned: bool,
    /// There is a run on screen to pin.
    pub can_pin: bool,
    pub ontoggle: Callback<()>,
}

/// A/B mode's switch in the results bar: pins the run on screen as A (no new run: A is what is
/// shown), or unpins it.
#[component]
pub fn CompareToggle(props: &CompareToggleProps) -> Html {
    let pinned = props.pinned;
    let onclick = props.ontoggle.reform(|_: MouseEvent| ());
    html! {
        <button type="button" class="compare-toggle" data-testid="compare-toggle"
            aria-pressed={if pinned { "true" } else { "false" }}
            disabled={!pinned && !props.can_pin}
            title="Keep this run as A and compare every later run (B) against it"
            {onclick}>
            { if pinned { "Stop comparing" } else { "Compare: pin this run as A" } }
        </button>
    }
}
