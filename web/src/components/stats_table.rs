use std::rc::Rc;

use schedlab::result::TaskResult;
use schedlab::workloads::classroom::Averages;
use yew::prelude::*;

use crate::charts::palette::{TaskColours, PICKED_MAX};
use crate::components::Shared;
use crate::hooks::use_deferred::use_deferred;
use crate::state::{Shown, StatsColumn, ViewChange};

/// Rows shown at most: runs with thousands of forked tasks stay responsive; the heading says
/// how many were left out.
const MAX_ROWS: usize = 200;

/// The textbook's three numbers come first, so they stay in view on a narrow screen.
const COLUMNS: &[(StatsColumn, &str, &str)] = &[
    (StatsColumn::Name, "Task", "The task's name"),
    (
        StatsColumn::Turnaround,
        "Turnaround",
        "Exit minus arrival (— if it never exited)",
    ),
    (
        StatsColumn::Response,
        "Response",
        "First time running minus arrival (— if it never ran)",
    ),
    (StatsColumn::Wait, "Wait", "Time runnable but not running"),
    (StatsColumn::Cpu, "CPU time", "Time spent running"),
    (StatsColumn::Share, "Share", "Share of all CPU time used"),
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
        StatsColumn::Response => t.response_ns.unwrap_or(u64::MAX),
    }
}

fn ns(v: u64) -> String {
    schedlab::view::format_ns_4(v)
}

/// A time that may be missing: "—" with the reason in its title.
fn maybe(v: Option<u64>, missing: &'static str) -> Html {
    match v {
        Some(v) => html! { { ns(v) } },
        None => html! { <span title={missing}>{ "—" }</span> },
    }
}

#[derive(Properties, PartialEq)]
pub struct StatsTableProps {
    /// The run on screen, if one has finished.
    pub shown: Option<Shared<Shown>>,
    /// The column sorted by, and whether largest first.
    pub sort: (StatsColumn, bool),
    /// The task in focus, by name.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    /// The tasks compared with it, by name.
    #[prop_or_default]
    pub compared: Vec<AttrValue>,
    /// Where sorting, focusing and comparing go.
    pub onview: Callback<ViewChange>,
}

/// Per-task statistics of the run on screen, sortable by any column. A task's name focuses it
/// (again: clears the focus) and its "compare" toggle colours it apart beside the focus; the
/// rows of picked tasks carry their chart colour and the others fade, as in the charts.
#[component]
pub fn StatsTable(props: &StatsTableProps) -> Html {
    // A new run's rows follow its charts by a painted frame: while a slider moves, the Gantt
    // chart is redrawn and painted before these few thousand cells are diffed and laid out.
    // The rows are a component of their own, so until then this one renders nothing new.
    let shown = use_deferred(props.shown.clone());
    html! {
        <StatsRows {shown} sort={props.sort} selected={props.selected.clone()}
            compared={props.compared.clone()} onview={props.onview.clone()} />
    }
}

/// The table of [`StatsTable`] for the run it is given now.
#[component]
fn StatsRows(props: &StatsTableProps) -> Html {
    let Some(shown) = props.shown.clone() else {
        return html! {
            <section class="panel stats-panel">
                <h2>{ "Per-task statistics" }</h2>
                <table class="stats-table" data-testid="stats-table"><tbody></tbody></table>
            </section>
        };
    };
    let (column, descending) = props.sort;
    // Each task's result in an `Rc` for its row's props (`StatsRow` compares them by value),
    // made once per run: the run they were made from is kept beside them and compared by
    // identity.
    let made = use_mut_ref(|| None::<(Rc<crate::protocol::RunOutcome>, Rc<[Rc<TaskResult>]>)>);
    let rows = {
        let mut made = made.borrow_mut();
        match &*made {
            Some((outcome, rows)) if Rc::ptr_eq(outcome, &shown.outcome) => rows.clone(),
            _ => {
                let rows: Rc<[Rc<TaskResult>]> = shown
                    .outcome
                    .result
                    .tasks
                    .iter()
                    .cloned()
                    .map(Rc::new)
                    .collect();
                *made = Some((shown.outcome.clone(), rows.clone()));
                rows
            }
        }
    };
    let colours = TaskColours::new(
        &shown.data,
        props.selected.as_deref(),
        props.compared.iter().map(|c| c.as_str()),
    );
    let is_compared = |name: &str| props.compared.iter().any(|c| c.as_str() == name);
    // Room for another compared task (taking one out is always possible).
    let compare_full = props.compared.len() + 1 >= PICKED_MAX;
    let mut tasks: Vec<&Rc<TaskResult>> = rows.iter().collect();
    schedlab::engine::sort::sort_by(&mut tasks, |a, b| {
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
    let listed = &shown.outcome.result.tasks;
    let averages = Averages::of(
        listed
            .iter()
            .map(|t| (t.wait_ns, t.response_ns, t.turnaround_ns)),
    );
    let exited = listed.iter().filter(|t| t.turnaround_ns.is_some()).count();
    html! {
        <section class="panel stats-panel" aria-labelledby="stats-heading">
            <h2 id="stats-heading">
                { "Per-task statistics" }
                if total > MAX_ROWS {
                    <span class="muted">{ format!(" (top {MAX_ROWS} of {total} tasks by the sorted column)") }</span>
                }
            </h2>
            <div class="table-scroll stats-scroll" tabindex="0" role="region" aria-label="Per-task statistics (scrollable)">
                <table class="stats-table" data-testid="stats-table">
                    <thead>
                        <tr>
                            { for COLUMNS.iter().map(|(c, label, help)| {
                                let sorted = *c == column;
                                let aria = if !sorted { "none" } else if descending { "descending" } else { "ascending" };
                                let onclick = {
                                    let c = *c;
                                    props.onview.reform(move |_| ViewChange::Sort(c))
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
                        // Not keyed: a new run's rows take over the old rows' elements in
                        // place, so a move of a slider rewrites only the cells whose text
                        // changed, and a row whose task and marks did not change is not
                        // rendered again (`StatsRow`'s props). Keyed by task, most rows would
                        // be rebuilt: forked tasks differ from run to run, and the rows re-sort.
                        { for tasks.into_iter().map(|t| {
                            let ink = colours.of(t.id);
                            let focused = props.selected.as_deref() == Some(t.name.as_str());
                            let compared = is_compared(&t.name);
                            let picked = if focused { "focus" } else if compared { "compared" } else if ink.faded { "faded" } else { "" };
                            html! {
                                <StatsRow task={Rc::clone(t)} swatch={AttrValue::from(ink.css())} {picked}
                                    {focused} {compared} {compare_full} onview={props.onview.clone()} />
                            }
                        }) }
                        if let Some(o) = omitted {
                            <tr class="omitted" data-testid="stats-omitted">
                                <th scope="row" class="muted">
                                    { format!("and {} more tasks", o.tasks) }
                                    <span class="muted">{ format!(" (past the {} the page lists; {} exited)", schedlab::view::TASK_LIMIT, o.exited) }</span>
                                </th>
                                <td colspan="3"></td>
                                <td class="num" data-col="cpu">{ ns(o.cpu_ns) }</td>
                                <td class="num" data-col="share">{ format!("{:.1} %", o.share_ppm as f64 / 10_000.0) }</td>
                                <td colspan="4" class="muted">{ format!("{} wake-ups in all; every task is in the CLI's output", o.wakeups) }</td>
                            </tr>
                        }
                    </tbody>
                    if !listed.is_empty() {
                        <tfoot>
                            <tr class="averages" data-testid="stats-averages">
                                <th scope="row" title="Turnaround over the tasks that exited, response over those that ran, wait over all">
                                    { "Average" }
                                    <span class="muted">{ format!(" of {}", listed.len()) }</span>
                                    if exited < listed.len() {
                                        <span class="muted">{ format!(" ({exited} exited)") }</span>
                                    }
                                </th>
                                <td class="num" data-col="turnaround">{ maybe(averages.turnaround_ns, "no task exited") }</td>
                                <td class="num" data-col="response">{ maybe(averages.response_ns, "no task ran") }</td>
                                <td class="num" data-col="wait">{ maybe(averages.wait_ns, "no tasks") }</td>
                                <td colspan="6"></td>
                            </tr>
                        </tfoot>
                    }
                </table>
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct StatsRowProps {
    task: Rc<TaskResult>,
    /// Its colour in the charts (CSS).
    swatch: AttrValue,
    /// "focus", "compared", "faded" or "".
    picked: &'static str,
    focused: bool,
    compared: bool,
    /// No room for another compared task.
    compare_full: bool,
    onview: Callback<ViewChange>,
}

/// One task's row of [`StatsTable`]: a component of its own, so a row whose task and marks
/// did not change (a view change, a run that left the task as it was) is not rendered again.
#[component]
fn StatsRow(props: &StatsRowProps) -> Html {
    let t = &props.task;
    let (focused, compared, picked) = (props.focused, props.compared, props.picked);
    let on_focus = {
        let name = t.name.clone();
        props
            .onview
            .reform(move |_| ViewChange::SelectTask(Some(name.clone())))
    };
    let on_compare = {
        let name = t.name.clone();
        props
            .onview
            .reform(move |_| ViewChange::CompareTask(name.clone()))
    };
    html! {
        <tr data-task={t.name.clone()} data-picked={picked}
            class={classes!((!picked.is_empty()).then_some(picked))}>
            <th scope="row">
                <span class="task-swatch" aria-hidden="true"
                    style={format!("background:{}", props.swatch)} />
                <button type="button" class="task-focus" aria-pressed={focused.to_string()}
                    title="Focus this task in the charts and tables (again: clear)" onclick={on_focus}>
                    { &t.name }
                </button>
                if t.nice != 0 { <span class="muted">{ format!(" nice {}", t.nice) }</span> }
                if !focused {
                    <button type="button" class="task-compare" aria-pressed={compared.to_string()}
                        aria-label={format!("Compare {}", t.name)}
                        disabled={!compared && props.compare_full}
                        title={format!("Give this task a colour of its own beside the task in focus (up to {} tasks)", PICKED_MAX - 1)}
                        onclick={on_compare}>
                        { if compared { "✓" } else { "+" } }
                    </button>
                }
            </th>
            <td class="num" data-col="turnaround">{ maybe(t.turnaround_ns, "never exited") }</td>
            <td class="num" data-col="response">{ maybe(t.response_ns, "never ran") }</td>
            <td class="num" data-col="wait">{ ns(t.wait_ns) }</td>
            <td class="num" data-col="cpu">
                // 0 ns beside seconds of wait reads as a measurement; it is an absence.
                if t.response_ns.is_none() && t.cpu_ns == 0 {
                    <span class="muted">{ "never ran" }</span>
                } else {
                    { ns(t.cpu_ns) }
                }
            </td>
            <td class="num" data-col="share">{ format!("{:.1} %", t.share_ppm as f64 / 10_000.0) }</td>
            <td class="num" data-col="p50">{ ns(t.wakeup_latency_ns.p50) }</td>
            <td class="num" data-col="p99">{ ns(t.wakeup_latency_ns.p99) }</td>
            <td class="num" data-col="max">{ ns(t.wakeup_latency_ns.max) }</td>
            <td class="num" data-col="switches">{ t.switches }</td>
        </tr>
    }
}
