use schedlab::link::PresetRef;
use schedlab::Problem;
use yew::prelude::*;

use crate::components::field::Field;
use crate::state::{problem_at, Edit};

#[derive(Properties, PartialEq)]
pub struct ScenarioPanelProps {
    /// The preset the draft came from, with its parameters.
    pub preset: Option<PresetRef>,
    /// The task table was edited after the preset made it.
    #[prop_or_default]
    pub edited: bool,
    /// What the CPUs, duration and seed fields show: the value, or text typed that did not
    /// parse (`RawTexts::field_text`).
    pub cpus: AttrValue,
    pub duration: AttrValue,
    pub seed: AttrValue,
    /// The draft's problems: each field shows its own.
    #[prop_or_default]
    pub problems: Vec<Problem>,
    pub onedit: Callback<Edit>,
}

/// The workload: preset picker with its story and parameters, CPUs, duration and seed.
#[component]
pub fn ScenarioPanel(props: &ScenarioPanelProps) -> Html {
    let on_preset = props.onedit.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Edit::SelectPreset(select.value())
    });
    let current = props
        .preset
        .as_ref()
        .map(|p| p.id.clone())
        .unwrap_or_default();
    let preset = props
        .preset
        .as_ref()
        .and_then(|p| schedlab::workloads::find(&p.id));
    let dispatch = |make: fn(String) -> Edit| props.onedit.reform(make);
    let problem = |path: &str| problem_at(&props.problems, path);
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
                if props.edited {
                    <p class="preset-edited">
                        { "The tasks were edited after the preset made them; changing a preset parameter or the CPU count starts again from the preset. " }
                        <button type="button" class="link-button"
                            onclick={props.onedit.reform(|_: MouseEvent| Edit::Detach)}>{ "Stop using the preset" }</button>
                    </p>
                }
                if let Some(reference) = props.preset.clone() {
                    <PresetParams {reference} problems={props.problems.clone()} onedit={props.onedit.clone()} />
                }
            }
            <div class="field-row">
                <Field id="cpus-input" label="CPUs" testid="cpus-input" kind="number"
                    value={props.cpus.clone()}
                    hint={AttrValue::from(format!("1 to {}", schedlab::MAX_CPUS))}
                    problem={problem("cpus")}
                    onchange={dispatch(Edit::SetCpus)} />
                <Field id="duration-input" label="Duration" testid="duration-input"
                    value={props.duration.clone()}
                    hint={AttrValue::from(match preset.map(|p| p.stop) {
                        Some(schedlab::workloads::Stop::TaskExits(task)) => format!("a limit: the benchmark ends when {task} exits"),
                        _ => "e.g. 10s, 500ms".to_string(),
                    })}
                    problem={problem("duration")}
                    onchange={dispatch(Edit::SetDuration)} />
                <Field id="seed-input" label="Seed" testid="seed-input" kind="number"
                    value={props.seed.clone()}
                    problem={problem("seed")}
                    onchange={dispatch(Edit::SetSeed)} />
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct PresetParamsProps {
    reference: PresetRef,
    problems: Vec<Problem>,
    onedit: Callback<Edit>,
}

/// The preset's parameters: choices up front (e.g. contest's load), the rest folded away.
#[component]
fn PresetParams(props: &PresetParamsProps) -> Html {
    let reference = &props.reference;
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
                let key = spec.key;
                let onedit = props.onedit.clone();
                let onchange = Callback::from(move |e: Event| {
                    let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                    if let Ok(v) = select.value().parse::<i64>() {
                        onedit.emit(Edit::SetPresetParam(key.to_owned(), v));
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
                        let onedit = props.onedit.clone();
                        let onchange = Callback::from(move |text: String| {
                            if let Ok(v) = text.trim().parse::<i64>() {
                                onedit.emit(Edit::SetPresetParam(key.to_owned(), v));
                            }
                        });
                        let unit = if spec.unit.is_empty() { String::new() } else { format!(" {}", spec.unit) };
                        let path = format!("preset.{}", spec.key);
                        html! {
                            <div title={spec.help}>
                                <Field {id} label={spec.label} kind="number"
                                    value={value_of(spec.key, spec.default).to_string()}
                                    hint={AttrValue::from(format!("{}..={}{unit}. {}", spec.min, spec.max, spec.help))}
                                    problem={problem_at(&props.problems, &path)}
                                    {onchange} />
                            </div>
                        }
                    }) }
                </details>
            }
        </div>
    }
}
