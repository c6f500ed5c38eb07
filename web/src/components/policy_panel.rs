use schedlab::engine::machine::knobs;
use yew::prelude::*;

use crate::components::tunable_slider::TunableSlider;
use crate::state::{Action, AppContext, Edit, FEATURED_TUNABLE};

/// The policy picker and its tunables, drawn from the registry's specs, and, when the scenario
/// has a machine, the machine's knobs (`engine::machine::knobs`) from theirs.
#[component]
pub fn PolicyPanel() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let on_policy = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            state.dispatch(Action::from(Edit::SelectPolicy(select.value())));
        })
    };
    let current = state.draft.policy.id.clone();
    let info = schedlab::find(&current);
    // The tunable the seeds argued about goes first when the policy has it.
    let mut specs: Vec<_> = info
        .map(|p| p.tunables.iter().collect())
        .unwrap_or_default();
    specs.sort_by_key(|s| s.key != FEATURED_TUNABLE);
    // The preset's own machine (the kernel era's knobs): what a machine knob resets to.
    let generated = state.draft.machine.as_ref().and_then(|_| state.generated());
    html! {
        <section class="panel policy-panel" aria-labelledby="policy-heading">
            <h2 id="policy-heading">{ "Scheduler" }</h2>
            <div class="field">
                <label for="policy-select">{ "Policy" }</label>
                <select id="policy-select" data-testid="policy-select" onchange={on_policy}>
                    { for schedlab::POLICIES.iter().map(|p| html! {
                        <option value={p.id} selected={p.id == current}>
                            { format!("{} — {}", p.id, p.name) }
                            { if p.reconstruction.is_some() { " (reconstruction)" } else { "" } }
                        </option>
                    }) }
                </select>
                if let Some(problem) = state.problem_at("policy.id") {
                    <span class="field-problem">{ problem }</span>
                }
            </div>
            if let Some(info) = info {
                <p class="policy-summary">{ info.summary }</p>
                <p class="policy-source">{ format!("Source: {}", info.source) }</p>
                if let Some(note) = info.reconstruction {
                    <p class="reconstruction" role="note">
                        <strong>{ "Reconstruction, UNVERIFIED: " }</strong>{ note }
                    </p>
                }
                if specs.is_empty() {
                    <p class="muted">{ "This policy has no tunables." }</p>
                } else {
                    <div class="tunables">
                        { for specs.into_iter().map(|spec| {
                            let value = state.draft.policy.tunables.get(spec.key).copied().unwrap_or(spec.default);
                            let problem = state.problem_at(&format!("policy.tunables.{}", spec.key));
                            html! { <TunableSlider spec={*spec} {value} {problem} /> }
                        }) }
                    </div>
                }
            }
            if state.draft.machine.is_some() {
                <h3 id="machine-heading">{ "Machine" }</h3>
                <p class="muted">{ "The VM's and the disks' knobs (page cache, writeback, swap, elevator). An elevator's own knobs only matter while it is chosen." }</p>
                <div class="tunables" data-testid="machine-tunables" aria-labelledby="machine-heading">
                    { for knobs::knobs().filter_map(|knob| {
                        let value = knobs::get(&state.draft, knob.spec.key)?;
                        let problem = state.problem_at(&knob.path());
                        let baseline = generated.as_ref().and_then(|g| knobs::get(g, knob.spec.key));
                        Some(html! { <TunableSlider spec={knob.spec} {value} {problem} {baseline} /> })
                    }) }
                </div>
            }
        </section>
    }
}
