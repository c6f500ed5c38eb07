use schedlab::engine::machine::knobs;
use schedlab::{Problem, Scenario};
use yew::prelude::*;

use crate::components::tunable_slider::TunableSlider;
use crate::components::{Shared, Static};
use crate::state::{problem_at, Edit, FEATURED_TUNABLE};

#[derive(Properties, PartialEq)]
pub struct PolicyPanelProps {
    /// The scenario being edited: its policy, tunables and machine. Compared by pointer
    /// (`Shared`), as an edit makes a new one: the page renders this panel on every run's reply.
    pub draft: Shared<Scenario>,
    /// What the draft's preset makes for its CPUs, seed and policy (`AppState::generated`),
    /// when the draft has a machine: its knobs are what a machine knob's Reset restores. By
    /// pointer too: made again only when what it depends on changes.
    #[prop_or_default]
    pub generated: Option<Shared<Scenario>>,
    /// The draft's problems: each field shows its own.
    #[prop_or_default]
    pub problems: Vec<Problem>,
    /// Where a policy pick and the sliders' moves go.
    pub onedit: Callback<Edit>,
}

/// The policy picker and its tunables, drawn from the registry's specs, and, when the scenario
/// has a machine, the machine's knobs (`engine::machine::knobs`) from theirs.
#[component]
pub fn PolicyPanel(props: &PolicyPanelProps) -> Html {
    let on_policy = props.onedit.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Edit::SelectPolicy(select.value())
    });
    let draft = &props.draft;
    let problem = |path: &str| problem_at(&props.problems, path);
    let current = draft.policy.id.clone();
    let info = schedlab::find(&current);
    // The tunable the seeds argued about goes first when the policy has it.
    let mut specs: Vec<_> = info
        .map(|p| p.tunables.iter().collect())
        .unwrap_or_default();
    schedlab::engine::sort::sort_by_key(&mut specs, |s| s.key != FEATURED_TUNABLE);
    // The preset's own machine (the kernel era's knobs): what a machine knob resets to.
    let generated = props.generated.as_deref();
    let onedit = props.onedit.clone();
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
                if let Some(problem) = problem("policy.id") {
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
                            let value = draft.policy.tunables.get(spec.key).copied().unwrap_or(spec.default);
                            let problem = problem(&format!("policy.tunables.{}", spec.key));
                            html! { <TunableSlider spec={Static(spec)} {value} {problem} onedit={onedit.clone()} /> }
                        }) }
                    </div>
                }
            }
            if draft.machine.is_some() {
                <h3 id="machine-heading">{ "Machine" }</h3>
                <p class="muted">{ "The VM's and the disks' knobs (page cache, writeback, swap, elevator). An elevator's own knobs only matter while it is chosen." }</p>
                <div class="tunables" data-testid="machine-tunables" aria-labelledby="machine-heading">
                    { for knobs::knobs().filter_map(|knob| {
                        let value = knobs::get(draft, knob.spec.key)?;
                        let problem = problem(&knob.path());
                        let baseline = generated.and_then(|g| knobs::get(g, knob.spec.key));
                        Some(html! { <TunableSlider spec={Static(knob.spec)} {value} {problem} {baseline} onedit={onedit.clone()} /> })
                    }) }
                </div>
            }
        </section>
    }
}
