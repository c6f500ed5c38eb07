use schedlab::link::ViewState;
use yew::prelude::*;

use crate::charts::{GanttChart, LatencyHistogram, MachineChart, ObservedChart, ShareChart};
use crate::components::inspector::Inspector;
use crate::components::Shared;
use crate::hooks::use_deferred::use_deferred;
use crate::state::{Inspector as Inspection, Shown, ViewChange};

#[derive(Properties, PartialEq)]
pub struct ChartAreaProps {
    /// The run on screen (B in A/B mode), if one has finished.
    pub shown: Option<Shared<Shown>>,
    /// A/B mode's pinned run (A).
    #[prop_or_default]
    pub pinned: Option<Shared<Shown>>,
    /// Lanes, zoom, cursor and selected task, shared by both timelines.
    pub view: ViewState,
    /// The inspector's run queues at the cursor.
    #[prop_or_default]
    pub inspection: Inspection,
    pub onview: Callback<ViewChange>,
    /// Whether the charts under the Gantt chart (latency, share, policy value) render: the
    /// page's first run leaves them out until its Gantt chart has been painted (see `App`),
    /// their places kept by boxes of their sizes.
    #[prop_or(true)]
    pub secondary: bool,
}

/// The run's charts, with the inspector under the Gantt chart whose time cursor it follows (and,
/// for a scenario with a machine, the machine chart between them on the Gantt chart's time
/// axis); in A/B mode the pinned run's Gantt chart, labelled A, sits above the live one, in the same
/// view (lanes, window, cursor, selected task), so the two line up.
/// Before the first run finishes, boxes of the charts' sizes hold their
/// places so nothing jumps when they appear.
#[component]
pub fn ChartArea(props: &ChartAreaProps) -> Html {
    // The charts under the Gantt chart draw a new run once the Gantt chart's frame with it has
    // been painted (`use_deferred`): a slider's redraw is not held up by their canvases.
    let under = use_deferred(props.shown.clone());
    let Some(shown) = props.shown.clone() else {
        return html! {
            <section class="charts" aria-label="Charts">
                <div class="chart-slot gantt-slot">{ "The Gantt chart appears when the first run finishes." }</div>
                <div class="chart-row">
                    <div class="chart-slot small-slot"></div>
                    <div class="chart-slot small-slot"></div>
                </div>
            </section>
        };
    };
    let data = shown.data.clone();
    let view = &props.view;
    // Compare mode: both timelines on one axis, over the longer of the two runs, each captioned
    // with its policy and what differs.
    let span = props
        .pinned
        .as_ref()
        .map(|a| a.data.shown_until_ns.max(data.shown_until_ns));
    let (caption_a, caption_b) = match &props.pinned {
        Some(a) => {
            let (ca, cb) = captions(&a.scenario, &shown.scenario);
            (Some(AttrValue::from(ca)), Some(AttrValue::from(cb)))
        }
        None => (None, None),
    };
    let gantt = |data, label: Option<AttrValue>, caption: Option<AttrValue>| {
        html! {
            <GanttChart {data} {label} {caption} {span} lanes={view.lanes} zoom={view.zoom} cursor={view.cursor_ns}
                selected={view.selected_task.clone().map(AttrValue::from)}
                compared={crate::charts::compared(view)}
                onview={props.onview.clone()}
                type_scale={crate::state::type_scale(view)} presenter={view.presenter} />
        }
    };
    let under = under.unwrap_or_else(|| shown.clone());
    let under_data = under.data.clone();
    let observed = schedlab::find(&under.scenario.policy.id).and_then(|p| p.metric);
    // The task in focus and those compared with it, picked out in every chart.
    let selected = view.selected_task.clone().map(AttrValue::from);
    let compared = crate::charts::compared(view);
    let machine = under_data.machine.is_some();
    html! {
        <section class="charts" aria-label="Charts">
            if let Some(a) = &props.pinned {
                <div class="chart-block gantt-block compare-gantt">
                    { gantt(a.data.clone(), Some(AttrValue::from("A")), caption_a.clone()) }
                </div>
            }
            <div class={classes!("chart-block", "gantt-block", props.pinned.is_some().then_some("compare-gantt"))}>
                { gantt(data.clone(), props.pinned.is_some().then(|| AttrValue::from("B")), caption_b) }
            </div>
            if machine {
                <div class="chart-block machine-block">
                    <MachineChart data={under_data.clone()} zoom={view.zoom} cursor={view.cursor_ns}
                        onview={props.onview.clone()} selected={selected.clone()} compared={compared.clone()} />
                </div>
            }
            <Inspector data={Shared::from(data.clone())} cursor={view.cursor_ns}
                inspection={props.inspection.clone()} onview={props.onview.clone()} />
            if !props.secondary {
                <div class="chart-row">
                    <div class="chart-slot small-slot"></div>
                    <div class="chart-slot small-slot"></div>
                </div>
            } else {
            <div class="chart-row">
                <div class="chart-block">
                    <LatencyHistogram data={under_data.clone()} selected={selected.clone()}
                        compared={compared.clone()} onview={props.onview.clone()} />
                </div>
                <div class="chart-block">
                    <ShareChart data={under_data.clone()} selected={selected.clone()} compared={compared.clone()} />
                </div>
            </div>
            if observed.is_some() {
                <div class="chart-block">
                    <ObservedChart data={under_data} {selected} {compared} />
                </div>
            }
            }
        </section>
    }
}

/// What each compared run is, for its timeline's title: the policy, then each setting that
/// differs between the two runs with this run's value (`prio_bonus_ratio 0`).
fn captions(a: &schedlab::Scenario, b: &schedlab::Scenario) -> (String, String) {
    let mut ca = a.policy.id.clone();
    let mut cb = b.policy.id.clone();
    for d in schedlab::compare::differences(a, b) {
        if d.what == "policy" || (d.a.is_empty() && d.b.is_empty()) {
            continue;
        }
        ca.push_str(&format!(" · {} {}", d.what, d.a));
        cb.push_str(&format!(" · {} {}", d.what, d.b));
    }
    (ca, cb)
}
