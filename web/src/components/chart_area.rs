use yew::prelude::*;

use crate::charts::{GanttChart, LatencyHistogram, ObservedChart, ShareChart};
use crate::state::AppContext;

/// The run's charts. Before the first run finishes, boxes of the charts' sizes hold their
/// places so nothing jumps when they appear.
#[component]
pub fn ChartArea() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let Some(shown) = state.shown.clone() else {
        return html! {
            <section class="charts" aria-label="Charts">
                <div class="chart-placeholder gantt-placeholder">{ "The Gantt chart appears when the first run finishes." }</div>
                <div class="chart-row">
                    <div class="chart-placeholder small-placeholder"></div>
                    <div class="chart-placeholder small-placeholder"></div>
                </div>
            </section>
        };
    };
    let data = shown.data.clone();
    let observed = schedlab::find(&shown.scenario.policy.id).and_then(|p| p.metric);
    html! {
        <section class="charts" aria-label="Charts">
            <div class="chart-block gantt-block">
                <h2 class="chart-title">{ "Who ran when" }</h2>
                <GanttChart data={data.clone()} />
            </div>
            <div class="chart-row">
                <div class="chart-block">
                    <h2 class="chart-title">{ "Wake-up latency" }</h2>
                    <LatencyHistogram data={data.clone()} />
                </div>
                <div class="chart-block">
                    <h2 class="chart-title">{ "CPU share vs entitlement" }</h2>
                    <ShareChart data={data.clone()} />
                </div>
            </div>
            if let Some(metric) = observed {
                <div class="chart-block">
                    <h2 class="chart-title">{ format!("Policy's view over time: {metric}") }</h2>
                    <ObservedChart {data} />
                </div>
            }
        </section>
    }
}
