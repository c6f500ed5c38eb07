use std::rc::Rc;

use schedlab::engine::machine::knobs;
use schedlab::{Scenario, TunableSpec};
use yew::prelude::*;

use crate::charts::SweepChart;
use crate::state::{SweepCommand, SweepForm, SweepRun, FEATURED_TUNABLE};

#[derive(Properties, PartialEq, Clone)]
pub struct SweepPanelProps {
    /// The scenario being edited: its policy's tunables and its machine's knobs are what can
    /// be swept, and the slider's value is the plot's marker.
    pub draft: Rc<Scenario>,
    /// The metrics a sweep of the draft can report (`AppState::sweep_metrics`).
    pub metrics: &'static [&'static str],
    /// The sweep on screen, if one was run.
    #[prop_or_default]
    pub run: Option<Rc<SweepRun>>,
    /// The draft no longer matches what that sweep ran (`AppState::sweep_is_stale`).
    #[prop_or_default]
    pub stale: bool,
    /// Why the last "Run sweep" ran nothing.
    #[prop_or_default]
    pub error: Option<String>,
    /// Where "Run sweep" and Cancel go.
    pub onsweep: Callback<SweepCommand>,
}

/// Sweep mode: one tunable of the current policy over a range, one metric, plotted and tabled
/// as the points come in (seed 000: Con Kolivas' contest over prio_bonus_ratio). The form starts
/// on the spec's range in about ten steps. A range the tunable does not allow is reported with
/// the allowed range and runs nothing. A sweep whose scenario, policy or seed has since changed
/// stays on screen, marked stale.
#[component]
pub fn SweepPanel(props: &SweepPanelProps) -> Html {
    let draft = &props.draft;
    // What the user typed; None until then (the form follows the policy's first tunable).
    let typed = use_state_eq(|| None::<SweepForm>);
    let info = schedlab::find(&draft.policy.id);
    // The tunable the seeds argued about goes first when the policy has it, as in the sliders;
    // the scenario's machine knobs follow when it has a machine (each point sets the knob on it).
    let mut specs: Vec<&'static TunableSpec> = info
        .map(|p| p.tunables.iter().collect())
        .unwrap_or_default();
    schedlab::engine::sort::sort_by_key(&mut specs, |s| s.key != FEATURED_TUNABLE);
    specs.extend(
        knobs::knobs()
            .filter(|k| knobs::get(draft, k.spec.key).is_some())
            .map(|k| k.spec),
    );
    let metrics = props.metrics;
    let first_metric = metrics.first().copied().unwrap_or("");
    let form = match &*typed {
        Some(f) if specs.iter().any(|s| s.key == f.key) => {
            let mut f = f.clone();
            if !metrics.contains(&f.metric.as_str()) {
                f.metric = first_metric.to_owned();
            }
            Some(f)
        }
        _ => specs.first().map(|s| SweepForm::for_spec(s, first_metric)),
    };
    let spec = form
        .as_ref()
        .and_then(|f| specs.iter().find(|s| s.key == f.key).copied());
    let run = props.run.clone();
    let running = run.as_ref().is_some_and(|r| r.running());
    let stale = props.stale;

    // Every edit stores the whole form, so the other fields keep what they show. Numbers are
    // stored as typed, on every keystroke, so a re-render (a point arriving) never resets them.
    let edit = |change: fn(&mut SweepForm, String)| {
        let typed = typed.clone();
        let form = form.clone();
        Callback::from(move |e: web_sys::Event| {
            let Some(mut f) = form.clone() else { return };
            let value = e
                .target_dyn_into::<web_sys::HtmlInputElement>()
                .map(|i| i.value())
                .or_else(|| {
                    e.target_dyn_into::<web_sys::HtmlSelectElement>()
                        .map(|s| s.value())
                })
                .unwrap_or_default();
            change(&mut f, value);
            typed.set(Some(f));
        })
    };
    // The fields as they stand in the page when the form is submitted (Enter in a field submits
    // before any change event).
    let refs = [
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
    ];
    let on_key = {
        let typed = typed.clone();
        let form = form.clone();
        let specs = specs.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let key = select.value();
            let metric = form.as_ref().map_or("", |f| f.metric.as_str());
            if let Some(spec) = specs.iter().find(|s| s.key == key) {
                typed.set(Some(SweepForm::for_spec(spec, metric)));
            }
        })
    };
    let on_from = edit(|f, v| f.from = v);
    let on_to = edit(|f, v| f.to = v);
    let on_step = edit(|f, v| f.step = v);
    let on_metric = edit(|f, v| f.metric = v);
    let onsubmit = {
        let onsweep = props.onsweep.clone();
        let form = form.clone();
        let refs = refs.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(mut f) = form.clone() else { return };
            let read = |r: &NodeRef| {
                r.cast::<web_sys::HtmlInputElement>()
                    .map(|i| i.value())
                    .or_else(|| r.cast::<web_sys::HtmlSelectElement>().map(|s| s.value()))
            };
            let fields = [
                &mut f.key,
                &mut f.from,
                &mut f.to,
                &mut f.step,
                &mut f.metric,
            ];
            for (field, r) in fields.into_iter().zip(&refs) {
                if let Some(v) = read(r) {
                    *field = v;
                }
            }
            onsweep.emit(SweepCommand::Run(f));
        })
    };
    let on_cancel = props.onsweep.reform(|_: MouseEvent| SweepCommand::Cancel);

    let unit = |s: &TunableSpec| {
        if s.unit.is_empty() {
            String::new()
        } else {
            format!(" ({})", s.unit)
        }
    };
    let error = props.error.clone();
    let form_html = match (&form, spec) {
        (Some(form), Some(spec)) => html! {
            <form class="sweep-form" {onsubmit} novalidate=true aria-describedby="sweep-error">
                <div class="sweep-field sweep-key">
                    <label for="sweep-key">{ "Tunable" }</label>
                    <select id="sweep-key" data-testid="sweep-key" ref={refs[0].clone()} onchange={on_key}>
                        { for specs.iter().map(|s| html! {
                            <option value={s.key} selected={s.key == form.key}>
                                { format!("{}{}", s.label, unit(s)) }
                            </option>
                        }) }
                    </select>
                </div>
                { number_field("from", &unit(spec), &form.from, spec, &refs[1], on_from) }
                { number_field("to", &unit(spec), &form.to, spec, &refs[2], on_to) }
                { number_field("step", &unit(spec), &form.step, spec, &refs[3], on_step) }
                <div class="sweep-field sweep-metric">
                    <label for="sweep-metric">{ "Metric" }</label>
                    <select id="sweep-metric" data-testid="sweep-metric" ref={refs[4].clone()} onchange={on_metric}>
                        { for metrics.iter().map(|m| html! {
                            <option value={*m} selected={*m == form.metric}>{ metric_label(m) }</option>
                        }) }
                    </select>
                </div>
                <div class="sweep-buttons">
                    <button type="submit" data-testid="sweep-run">{ "Run sweep" }</button>
                    <button type="button" data-testid="sweep-cancel" onclick={on_cancel}
                        disabled={!running}>{ "Cancel" }</button>
                </div>
            </form>
        },
        _ => {
            html! { <p class="muted">{ "Neither this policy nor the scenario's machine has tunables to sweep." }</p> }
        }
    };
    let range_hint = spec.map(|s| {
        format!(
            "{} takes {}..{}{}; a sweep has at most {} points.",
            s.key,
            s.min,
            s.max,
            if s.step > 1 {
                format!(" in steps of {}", s.step)
            } else {
                String::new()
            },
            schedlab::sweep::MAX_POINTS
        )
    });

    html! {
        <section class="panel sweep-panel" aria-labelledby="sweep-heading">
            <div class="sweep-head">
                <h2 id="sweep-heading">{ "Sweep" }</h2>
                <span class="sweep-progress" data-testid="sweep-progress" role="status" aria-live="polite">
                    { run.as_ref().map(|r| progress(r)).unwrap_or_default() }
                </span>
                if stale {
                    <span class="sweep-stale" data-testid="sweep-stale"
                        title="The scenario, policy, another tunable or the seed changed since this sweep ran; run it again to update it.">
                        { "stale" }
                    </span>
                }
            </div>
            <p class="muted sweep-intro">
                { "One tunable over a range, one metric per value, each a full run of this scenario with the other settings as they are. " }
                { range_hint.unwrap_or_default() }
            </p>
            { form_html }
            <p id="sweep-error" class="field-problem" data-testid="sweep-error" role="alert">
                { error.unwrap_or_default() }
            </p>
            if let Some(run) = run {
                { results(draft, &run, stale) }
            }
        </section>
    }
}

fn number_field(
    name: &'static str,
    unit: &str,
    value: &str,
    spec: &TunableSpec,
    node: &NodeRef,
    oninput: Callback<Event>,
) -> Html {
    let oninput = Callback::from(move |e: InputEvent| oninput.emit(e.into()));
    let id = format!("sweep-{name}");
    html! {
        <div class="sweep-field">
            <label for={id.clone()}>{ format!("{name}{unit}") }</label>
            <input type="number" id={id.clone()} data-testid={id} inputmode="numeric"
                min={spec.min.to_string()} max={spec.max.to_string()} step={spec.step.to_string()}
                value={value.to_owned()} ref={node.clone()} {oninput} />
        </div>
    }
}

/// "4 / 11", and how it ended when it did.
fn progress(run: &SweepRun) -> String {
    let (done, all) = (run.done(), run.values.len());
    match &run.halted {
        Some(why) => format!("{done} / {all}, {why}"),
        None if done == all => format!("{done} / {all}, done"),
        None => format!("{done} / {all}"),
    }
}

/// The plot's marker: the slider's value of the swept knob, a machine knob's on the scenario, a
/// policy tunable's when the sweep's policy is the draft's.
pub fn marker(draft: &Scenario, run: &SweepRun) -> Option<i64> {
    let key = run.spec.key;
    let knob = knobs::find(key).map(|_| knobs::get(draft, key));
    knob.unwrap_or_else(|| {
        (draft.policy.id == run.sweep.policy.id).then(|| {
            draft
                .policy
                .tunables
                .get(key)
                .copied()
                .unwrap_or(run.spec.default)
        })
    })
}

/// The plot and the table of a sweep, with what it ran.
fn results(draft: &Scenario, run: &Rc<SweepRun>, stale: bool) -> Html {
    let key = run.spec.key;
    let marker = marker(draft, run);
    let target = match &run.sweep.target {
        schedlab::sweep::Target::Preset { preset, cpus } => format!(
            "{}, {cpus} CPU{}",
            preset.id,
            if *cpus == 1 { "" } else { "s" }
        ),
        schedlab::sweep::Target::Scenario { scenario } => {
            if scenario.name.is_empty() {
                "the edited scenario".to_string()
            } else {
                scenario.name.clone()
            }
        }
    };
    let unit = if run.spec.unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", run.spec.unit)
    };
    html! {
        <div class={classes!("sweep-results", stale.then_some("stale"))}>
            <p class="sweep-caption">
                { format!("{} over {key} under {}, {target}, seed {}", metric_label(&run.sweep.metric), run.sweep.policy.id, run.seed) }
                if stale { <strong>{ " (stale)" }</strong> }
                if let Some(m) = marker {
                    { format!("; the red line is the slider's value, {}", run.spec.display(m)) }
                }
            </p>
            <div class="sweep-body">
                <SweepChart run={run.clone()} {marker} {stale} />
                <div class="table-scroll sweep-table-scroll" tabindex="0" role="region" aria-label="Sweep results (scrollable)">
                    <table class="sweep-table" data-testid="sweep-table">
                        <thead>
                            <tr>
                                <th scope="col" class="num">{ format!("{key}{unit}") }</th>
                                <th scope="col" class="num" title={run.sweep.metric.clone()}>{ metric_label(&run.sweep.metric) }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for run.values.iter().zip(&run.results).map(|(&v, r)| {
                                let cell = match r {
                                    None => html! {
                                        <td class="num" data-col="metric">{ "…" }</td>
                                    },
                                    Some(Ok(m)) => html! {
                                        <td class="num" data-col="metric" data-metric={m.to_string()}>{ format!("{m:.3}") }</td>
                                    },
                                    Some(Err(e)) => html! {
                                        <td class="num sweep-failed" data-col="metric" title={e.clone()}>{ "failed" }</td>
                                    },
                                };
                                html! {
                                    <tr data-value={v.to_string()}
                                        class={classes!(r.is_none().then_some("pending"), (marker == Some(v)).then_some("selected"))}>
                                        <th scope="row" class="num">{ v }</th>
                                        { cell }
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                </div>
            </div>
            if let Some(e) = run.results.iter().flatten().find_map(|r| r.as_ref().err()) {
                <p class="field-problem">{ format!("A point failed: {e}") }</p>
            }
        </div>
    }
}

/// A metric key as people read it: `response_mean_ms` is "Response mean (ms)", `cpu_pct`
/// "CPU (%)". The key stays the option's value and the CLI's `--metric`.
pub fn metric_label(key: &str) -> String {
    const UNITS: &[(&str, &str)] = &[
        ("_per_s", "per s"),
        ("_ms", "ms"),
        ("_us", "µs"),
        ("_s", "s"),
        ("_pct", "%"),
    ];
    let (stem, unit) = UNITS
        .iter()
        .find_map(|(suffix, unit)| key.strip_suffix(suffix).map(|stem| (stem, Some(*unit))))
        .unwrap_or((key, None));
    let words: Vec<String> = stem
        .split('_')
        .filter(|w| !w.is_empty())
        .enumerate()
        .map(|(i, w)| match w {
            "cpu" | "lcpu" | "sd" | "rt" => w.to_ascii_uppercase(),
            "p99" | "p50" | "p90" => w.to_owned(),
            "plus" => "+".to_owned(),
            "wakeup" => "wake-up".to_owned(),
            _ if i == 0 => {
                let mut w = w.to_owned();
                if let Some(first) = w.get_mut(..1) {
                    first.make_ascii_uppercase();
                }
                w
            }
            _ => w.to_owned(),
        })
        .collect();
    let name = words.join(" ");
    match unit {
        Some(unit) => format!("{name} ({unit})"),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::metric_label;

    #[test]
    fn metric_keys_read_as_labels_with_units() {
        assert_eq!(metric_label("response_mean_ms"), "Response mean (ms)");
        assert_eq!(metric_label("mean_turnaround_ms"), "Mean turnaround (ms)");
        assert_eq!(metric_label("context_switches"), "Context switches");
        assert_eq!(metric_label("cpu_plus_lcpu_pct"), "CPU + LCPU (%)");
        assert_eq!(metric_label("deliveries_per_s"), "Deliveries (per s)");
        assert_eq!(
            metric_label("worst_wakeup_p99_ms"),
            "Worst wake-up p99 (ms)"
        );
        assert_eq!(metric_label("time_s"), "Time (s)");
    }
}
