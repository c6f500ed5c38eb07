use schedlab::result::TaskResult;
use yew::prelude::*;

use crate::state::{Action, AppContext, StatsColumn, ViewChange};

/// Rows shown at most: runs with thousands of forked tasks stay responsive; the heading says
/// how many were left out.
const MAX_ROWS: usize = 200;

const COLUMNS: &[(StatsColumn, &str, &str)] = &[
    (StatsColumn::Name, "Task", "The task's name"),
    (StatsColumn::Cpu, "CPU time", "Time spent running"),
    (StatsColumn::Share, "Share", "Share of all CPU time used"),
    (StatsColumn::Wait, "Wait", "Time runnable but not running"),
    (
        StatsColumn::P50,
        "Wake p50",
        "Median wake-up latency: from becoming runnable after a sleep to running",
    ),
    (
        StatsColumn::P99,
        "Wake p99",
        "99th percentile wake-up latency",
    ),
    (StatsColumn::Max, "Wake max", "Worst wake-up latency"),
    (
        StatsColumn::Switches,
        "Switches",
        "Times the task was switched in",
    ),
    (
        StatsColumn::Turnaround,
        "Turnaround",
        "Exit minus arrival (— if it never exited)",
    ),
];

fn key(t: &TaskResult, column: StatsColumn) -> u64 {
    match column {
        StatsColumn::Name => 0,
        StatsColumn::Cpu => t.cpu_ns,
        StatsColumn::Share => t.share_ppm,
        StatsColumn::Wait => t.wait_ns,
        StatsColumn::P50 => t.wakeup_latency_ns.p50,
        StatsColumn::P99 => t.wakeup_latency_ns.p99,
        StatsColumn::Max => t.wakeup_latency_ns.max,
        StatsColumn::Switches => t.switches,
        StatsColumn::Turnaround => t.turnaround_ns.unwrap_or(u64::MAX),
    }
}

fn ns(v: u64) -> String {
    schedlab::view::format_ns_4(v)
}

/// Per-task statistics of the run on screen, sortable by any column.
#[component]
pub fn StatsTable() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let Some(shown) = state.shown.clone() else {
        return html! {
            <section class="panel stats-panel">
                <h2>{ "Per-task statistics" }</h2>
                <table class="stats-table" data-testid="stats-table"><tbody></tbody></table>
            </section>
        };
    };
    let (column, descending) = state.sort;
    let mut tasks: Vec<&TaskResult> = shown.outcome.result.tasks.iter().collect();
    tasks.sort_by(|a, b| {
        let order = if column == StatsColumn::Name {
            a.name.cmp(&b.name)
        } else {
            key(a, column).cmp(&key(b, column))
        };
        let order = if descending { order.reverse() } else { order };
        order.then(a.id.cmp(&b.id))
    });
    let total = tasks.len();
    tasks.truncate(MAX_ROWS);
    // Tasks past view::TASK_LIMIT never reach the page (a bounded reply); one row sums them up.
    let omitted = shown.data.omitted.clone();
    html! {
        <section class="panel stats-panel" aria-labelledby="stats-heading">
            <h2 id="stats-heading">
                { "Per-task statistics" }
                if total > MAX_ROWS {
                    <span class="muted">{ format!(" (top {MAX_ROWS} of {total} tasks by the sorted column)") }</span>
                }
            </h2>
            <div class="table-scroll stats-scroll">
                <table class="stats-table" data-testid="stats-table">
                    <thead>
                        <tr>
                            { for COLUMNS.iter().map(|(c, label, help)| {
                                let sorted = *c == column;
                                let aria = if !sorted { "none" } else if descending { "descending" } else { "ascending" };
                                let onclick = {
                                    let state = state.clone();
                                    let c = *c;
                                    Callback::from(move |_| state.dispatch(Action::from(ViewChange::Sort(c))))
                                };
                                html! {
                                    <th scope="col" aria-sort={aria} class={classes!((*c != StatsColumn::Name).then_some("num"))}>
                                        <button type="button" class="sort" title={*help} {onclick}>
                                            { *label }
                                            <span class="sort-mark" aria-hidden="true">
                                                { if !sorted { "" } else if descending { " ▼" } else { " ▲" } }
                                            </span>
                                        </button>
                                    </th>
                                }
                            }) }
                        </tr>
                    </thead>
                    <tbody>
                        { for tasks.into_iter().map(|t| html! {
                            <tr key={t.id} data-task={t.name.clone()}>
                                <th scope="row">{ &t.name }
                                    if t.nice != 0 { <span class="muted">{ format!(" nice {}", t.nice) }</span> }
                                </th>
                                <td class="num" data-col="cpu">{ ns(t.cpu_ns) }</td>
                                <td class="num" data-col="share">{ format!("{:.1} %", t.share_ppm as f64 / 10_000.0) }</td>
                                <td class="num" data-col="wait">{ ns(t.wait_ns) }</td>
                                <td class="num" data-col="p50">{ ns(t.wakeup_latency_ns.p50) }</td>
                                <td class="num" data-col="p99">{ ns(t.wakeup_latency_ns.p99) }</td>
                                <td class="num" data-col="max">{ ns(t.wakeup_latency_ns.max) }</td>
                                <td class="num" data-col="switches">{ t.switches }</td>
                                <td class="num" data-col="turnaround">{ t.turnaround_ns.map(ns).unwrap_or_else(|| "—".into()) }</td>
                            </tr>
                        }) }
                        if let Some(o) = omitted {
                            <tr class="omitted" data-testid="stats-omitted">
                                <th scope="row" class="muted">
                                    { format!("and {} more tasks", o.tasks) }
                                    <span class="muted">{ format!(" (past the {} the page lists; {} exited)", schedlab::view::TASK_LIMIT, o.exited) }</span>
                                </th>
                                <td class="num" data-col="cpu">{ ns(o.cpu_ns) }</td>
                                <td class="num" data-col="share">{ format!("{:.1} %", o.share_ppm as f64 / 10_000.0) }</td>
                                <td colspan="6" class="muted">{ format!("{} wake-ups in all; every task is in the CLI's output", o.wakeups) }</td>
                            </tr>
                        }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
