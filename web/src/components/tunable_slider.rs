use schedlab::TunableSpec;
use yew::prelude::*;

use crate::components::Static;
use crate::state::Edit;

#[derive(Properties, PartialEq, Clone)]
pub struct TunableSliderProps {
    /// Everything the slider shows comes from here: label, unit, range, step, help. Compared
    /// by address (`Static`): every slider's props are compared on every edit.
    pub spec: Static<TunableSpec>,
    pub value: i64,
    #[prop_or_default]
    pub problem: Option<String>,
    /// What Reset restores, when not the spec's default (a machine knob's value in the preset,
    /// e.g. the kernel era's elevator).
    #[prop_or_default]
    pub baseline: Option<i64>,
    /// Where a move (`SetTunable`) or a reset (`ResetTunable`) goes.
    pub onedit: Callback<Edit>,
}

/// One tunable: a range input over the spec's min..max in its step (or, when the spec lists its
/// values, over the list's positions, so every position is an allowed value), the value shown
/// live, its help behind an info button, and a reset to the default.
#[component]
pub fn TunableSlider(props: &TunableSliderProps) -> Html {
    let onedit = props.onedit.clone();
    let spec: &'static TunableSpec = props.spec.0;
    let onreset = onedit.reform(move |_: MouseEvent| Edit::ResetTunable(spec.key.to_owned()));
    let oninput = Callback::from(move |e: InputEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        if let Some(v) = input
            .value()
            .parse::<i64>()
            .ok()
            .and_then(|p| spec.slider_value(p))
        {
            onedit.emit(Edit::SetTunable(spec.key.to_owned(), v));
        }
    });
    let id = format!("tunable-{}", spec.key);
    let baseline = props.baseline.unwrap_or(spec.default);
    let at_default = props.value == baseline;
    let (slider_min, slider_max, slider_step) = spec.slider();
    let (low, high) = match spec.values {
        Some(vs) => (
            vs.first().copied().unwrap_or(spec.min),
            vs.last().copied().unwrap_or(spec.max),
        ),
        None => (spec.min, spec.max),
    };
    let kernel = spec
        .kernel_name
        .map(|k| format!(" Kernel name: {k}."))
        .unwrap_or_default();
    html! {
        <div class={classes!("tunable", (!at_default).then_some("tunable-changed"))}>
            <div class="tunable-head">
                <label for={id.clone()}>{ spec.label }</label>
                <span class="tunable-value" data-testid={format!("{id}-value")} aria-live="off">
                    { spec.display(props.value) }
                </span>
            </div>
            <input type="range" id={id.clone()} data-testid={id.clone()}
                min={slider_min.to_string()} max={slider_max.to_string()}
                step={slider_step.to_string()}
                value={spec.slider_position(props.value).to_string()}
                aria-valuetext={spec.display(props.value)}
                {oninput} />
            <div class="tunable-foot">
                <span class="tunable-range">
                    { format!("{} … {}", spec.display(low), spec.display(high)) }
                </span>
                <details class="tunable-help">
                    <summary title={spec.help} aria-label={format!("About {}", spec.label)}>{ "?" }</summary>
                    <p>{ spec.help }{ kernel }{ format!(" Default: {}.", spec.display(baseline)) }</p>
                </details>
                <button type="button" class="tunable-reset" disabled={at_default} onclick={onreset}
                    title={format!("Reset to the default, {}", spec.display(baseline))}>
                    { "Reset" }
                </button>
            </div>
            if let Some(problem) = &props.problem {
                <span class="field-problem">{ problem.clone() }</span>
            }
        </div>
    }
}
