use yew::prelude::*;

use crate::components::field::Field;
use crate::state::{Action, AppContext, Edit};

/// The workload: preset picker with its story and parameters, CPUs, duration and seed.
#[component]
pub fn ScenarioPanel() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let on_preset = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            state.dispatch(Action::from(Edit::SelectPreset(select.value())));
        })
    };
    let current = state
        .preset
        .as_ref()
        .map(|p| p.id.clone())
        .unwrap_or_default();
    let preset = state
        .preset
        .as_ref()
        .and_then(|p| schedlab::workloads::find(&p.id));
    let dispatch = |make: fn(String) -> Edit| {
        let state = state.clone();
        Callback::from(move |text: String| state.dispatch(make(text).into()))
    };
    let draft = &state.draft;
    html! {
        <section class="panel scenario-panel" aria-labelledby="scenario-heading">
            <h2 id="scenario-heading">{ "Workload" }</h2>
            <div class="field">
                <label for="preset-select">{ "Preset" }</label>
                <select id="preset-select" data-testid="preset-select" onchange={on_preset}>
                    <option value="" selected={current.is_empty()}>{ "Custom scenario (no preset)" }</option>
                    { for schedlab::workloads::PRESETS.iter().map(|p| html! {
                        <option value={p.id} selected={p.id == current} title={p.story}>{ p.name }</option>
                    }) }
                </select>
            </div>
            if let Some(preset) = preset {
                <p class="preset-story">{ preset.story }</p>
                <p class="preset-source">{ format!("Source: {}", preset.source) }</p>
                if state.edited {
                    <p class="preset-edited">
                        { "The tasks were edited after the preset made them; changing a preset parameter or the CPU count starts again from the preset. " }
                        <button type="button" class="link-button" onclick={{
                            let state = state.clone();
                            Callback::from(move |_| state.dispatch(Action::from(Edit::Detach)))
                        }}>{ "Stop using the preset" }</button>
                    </p>
                }
                <PresetParams />
            }
            <div class="field-row">
                <Field id="cpus-input" label="CPUs" testid="cpus-input" kind="number"
                    value={state.field_text("cpus", || draft.cpus.to_string())}
                    hint={AttrValue::from(format!("1 to {}", schedlab::MAX_CPUS))}
                    problem={state.problem_at("cpus")}
                    onchange={dispatch(Edit::SetCpus)} />
                <Field id="duration-input" label="Duration" testid="duration-input"
                    value={state.field_text("duration", || draft.duration.to_string())}
                    hint={AttrValue::from(match preset.map(|p| p.stop) {
                        Some(schedlab::workloads::Stop::TaskExits(task)) => format!("a limit: the benchmark ends when {task} exits"),
                        _ => "e.g. 10s, 500ms".to_string(),
                    })}
                    problem={state.problem_at("duration")}
                    onchange={dispatch(Edit::SetDuration)} />
                <Field id="seed-input" label="Seed" testid="seed-input" kind="number"
                    value={state.field_text("seed", || draft.seed.to_string())}
                    problem={state.problem_at("seed")}
                    onchange={dispatch(Edit::SetSeed)} />
            </div>
        </section>
    }
}

/// The preset's parameters: choices up front (e.g. contest's load), the rest folded away.
#[component]
fn PresetParams() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let Some(reference) = state.preset.clone() else {
        return html! {};
    };
    let Some(preset) = schedlab::workloads::find(&reference.id) else {
        return html! {};
    };
    let value_of = |key: &str, default: i64| reference.params.get(key).copied().unwrap_or(default);
    let choices = preset.params.iter().filter(|p| !p.choices.is_empty());
    let numbers: Vec<_> = preset
        .params
        .iter()
        .filter(|p| p.choices.is_empty())
        .collect();
    html! {
        <div class="preset-params">
            { for choices.map(|spec| {
                let state = state.clone();
                let key = spec.key;
                let onchange = Callback::from(move |e: Event| {
                    let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                    if let Ok(v) = select.value().parse::<i64>() {
                        state.dispatch(Action::from(Edit::SetPresetParam(key.to_owned(), v)));
                    }
                });
                let current = value_of(spec.key, spec.default);
                let id = format!("param-{}", spec.key);
                html! {
                    <div class="field">
                        <label for={id.clone()} title={spec.help}>{ spec.label }</label>
                        <select {id} {onchange} title={spec.help}>
                            { for spec.choices.iter().enumerate().map(|(i, name)| html! {
                                <option value={i.to_string()} selected={i as i64 == current}>{ *name }</option>
                            }) }
                        </select>
                    </div>
                }
            }) }
            if !numbers.is_empty() {
                <details class="preset-more">
                    <summary>{ format!("{} more parameters", numbers.len()) }</summary>
                    { for numbers.into_iter().map(|spec| {
                        let key = spec.key;
                        let id = format!("param-{}", spec.key);
                        let onchange = {
                            let state = state.clone();
                            Callback::from(move |text: String| {
                                if let Ok(v) = text.trim().parse::<i64>() {
                                    state.dispatch(Action::from(Edit::SetPresetParam(key.to_owned(), v)));
                                }
                            })
                        };
                        let unit = if spec.unit.is_empty() { String::new() } else { format!(" {}", spec.unit) };
                        let path = format!("preset.{}", spec.key);
                        html! {
                            <div title={spec.help}>
                                <Field {id} label={spec.label} kind="number"
                                    value={value_of(spec.key, spec.default).to_string()}
                                    hint={AttrValue::from(format!("{}..={}{unit}. {}", spec.min, spec.max, spec.help))}
                                    problem={state.problem_at(&path)}
                                    {onchange} />
                            </div>
                        }
                    }) }
                </details>
            }
        </div>
    }
}
