use yew::prelude::*;

use crate::charts::{GanttChart, LatencyHistogram, ObservedChart, ShareChart};
use crate::state::AppContext;

/// Bars the share chart draws with labels (`charts::share`'s own limit).
const SHARE_CHART_MAX_BARS: usize = 24;

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
    // The share chart asks plotters for zero x labels above this many bars, and plotters'
    // segmented axis never returns from that (a hang, not an error): until the chart copes,
    // larger runs show a note instead.
    let share_bars = data.share_chart().bars.len();
    html! {
        <section class="charts" aria-label="Charts">
            <div class="chart-block gantt-block">
                <GanttChart data={data.clone()} />
            </div>
            <div class="chart-row">
                <div class="chart-block">
                    <LatencyHistogram data={data.clone()} />
                </div>
                <div class="chart-block">
                    if share_bars <= SHARE_CHART_MAX_BARS {
                        <ShareChart data={data.clone()} />
                    } else {
                        <p class="chart-placeholder small-placeholder">
                            { format!("{share_bars} tasks: too many for this chart; the statistics table below has every task's share.") }
                        </p>
                    }
                </div>
            </div>
            if observed.is_some() {
                <div class="chart-block">
                    <ObservedChart {data} />
                </div>
            }
        </section>
    }
}
