use yew::prelude::*;

use crate::charts::{
    GanttChart, LatencyHistogram, MachineChart, ObservedChart, ShareChart, TimeAxis,
};
use crate::components::inspector::Inspector;
use crate::state::AppContext;

/// The run's charts, with the inspector under the Gantt chart whose time cursor it follows (and,
/// for a scenario with a machine, the machine chart between them on the Gantt chart's time
/// axis); in A/B mode the pinned run's Gantt chart, labelled A, sits above the live one.
/// Before the first run finishes, boxes of the charts' sizes hold their
/// places so nothing jumps when they appear.
#[component]
pub fn ChartArea() -> Html {
    let axis: TimeAxis = use_state_eq(|| None);
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let Some(shown) = state.shown.clone() else {
        return html! {
            <section class="charts" aria-label="Charts">
                <div class="chart-slot gantt-slot">{ "The Gantt chart appears when the first run finishes." }</div>
                <Inspector />
                <div class="chart-row">
                    <div class="chart-slot small-slot"></div>
                    <div class="chart-slot small-slot"></div>
                </div>
            </section>
        };
    };
    let data = shown.data.clone();
    // A/B mode: the pinned run's timeline above the live one.
    let pinned = state.pinned.as_ref().map(|a| a.data.clone());
    let observed = schedlab::find(&shown.scenario.policy.id).and_then(|p| p.metric);
    let machine = data.machine.is_some();
    html! {
        <ContextProvider<TimeAxis> context={axis}>
        <section class="charts" aria-label="Charts">
            if let Some(a) = pinned {
                <div class="chart-block gantt-block compare-gantt">
                    <GanttChart data={a} label={AttrValue::from("A")} />
                </div>
            }
            <div class="chart-block gantt-block">
                <GanttChart data={data.clone()} />
            </div>
            if machine {
                <div class="chart-block machine-block">
                    <MachineChart data={data.clone()} />
                </div>
            }
            <Inspector />
            <div class="chart-row">
                <div class="chart-block">
                    <LatencyHistogram data={data.clone()} />
                </div>
                <div class="chart-block">
                    <ShareChart data={data.clone()} />
                </div>
            </div>
            if observed.is_some() {
                <div class="chart-block">
                    <ObservedChart {data} />
                </div>
            }
        </section>
        </ContextProvider<TimeAxis>>
    }
}
