use schedlab::compare::{
    self, percent, sort_by_delta, SummaryCompare, TaskColumn, TaskRow, Unit, Verdict,
};
use yew::prelude::*;

use crate::components::Shared;
use crate::state::Shown;

/// Rows shown at most, as in the stats table.
const MAX_ROWS: usize = 200;

/// What the panel shows for one pair of runs, computed once per pair.
struct Comparison {
    line: String,
    same_workload: bool,
    summary: SummaryCompare,
    rows: Vec<TaskRow>,
}

fn compare_runs(a: &Shown, b: &Shown) -> Comparison {
    Comparison {
        line: compare::line(&compare::differences(&a.scenario, &b.scenario)),
        same_workload: compare::same_workload(&a.scenario, &b.scenario),
        summary: compare::summary(&a.outcome.result, &b.outcome.result),
        rows: compare::tasks(&a.outcome.result, &b.outcome.result),
    }
}

/// A Δ cell: the signed difference, its percentage of A where A is not zero, coloured only for
/// metrics whose better direction is unambiguous.
fn delta_cell(col: String, unit: Unit, a: Option<u64>, d: Option<i64>, verdict: Verdict) -> Html {
    let Some(d) = d else {
        return html! { <td class="num delta" data-col={col}>{ "—" }</td> };
    };
    let pct = a.and_then(|a| percent(d, a)).filter(|_| d != 0);
    html! {
        <td class={classes!("num", "delta", verdict.class())} data-col={col}>
            { unit.format_delta(d) }
            if let Some(p) = pct { <span class="muted">{ format!(" ({p})") }</span> }
        </td>
    }
}

fn value_cell(col: String, v: Option<u64>) -> Html {
    html! {
        <td class="num" data-col={col}>{ v.map(|v| Unit::Ns.format(v)).unwrap_or_else(|| "—".into()) }</td>
    }
}

#[derive(Properties, PartialEq)]
pub struct ComparePanelProps {
    /// The pinned run.
    pub a: Shared<Shown>,
    /// The run on screen.
    pub b: Shared<Shown>,
    /// The selected task's name: its row is highlighted.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
}

/// A/B mode: the pinned run (A) against the run on screen (B): what differs, both trace
/// hashes, the summary and the per-task metrics with their deltas (B − A).
#[component]
pub fn ComparePanel(props: &ComparePanelProps) -> Html {
    let (a, b) = (props.a.clone(), props.b.clone());
    let c = {
        let (a, b) = (a.clone(), b.clone());
        use_memo((a.id, b.id), move |_| compare_runs(&a, &b))
    };
    // The per-task table sorted by |Δ| of one column (largest first), or in A's task order.
    let sorted_by = use_state_eq(|| None::<TaskColumn>);
    let total = c.rows.len();
    let rows: Vec<TaskRow> = match *sorted_by {
        Some(col) => {
            let mut rows = c.rows.clone();
            sort_by_delta(&mut rows, col);
            rows.truncate(MAX_ROWS);
            rows
        }
        None => c.rows.iter().take(MAX_ROWS).cloned().collect(),
    };
    let hash = |s: &Shown| s.outcome.result.trace_hash.clone();
    let selected = |row: &TaskRow| props.selected.as_deref() == Some(row.label.as_str());

    html! {
        <section class="panel compare-panel" data-testid="compare-panel" aria-labelledby="compare-heading">
            <h2 id="compare-heading">{ "Compare: A (pinned) against B (on screen)" }</h2>
            if !c.same_workload {
                <p class="compare-warning">{ "Different workload: A and B do not run the same tasks, so their numbers are not like for like." }</p>
            }
            <p class="compare-diff" data-testid="compare-diff">
                <span class="muted">{ "A → B: " }</span>{ c.line.clone() }
            </p>
            <p class="compare-hashes">
                <span class="run-label">{ "A" }</span>{ " trace hash " }
                <code data-testid="compare-hash-a">{ hash(&a) }</code>
                { " · " }
                <span class="run-label">{ "B" }</span>{ " trace hash " }
                <code data-testid="compare-hash-b">{ hash(&b) }</code>
            </p>
            <div class="table-scroll">
                <table class="compare-summary" data-testid="compare-summary">
                    <thead>
                        <tr>
                            <th scope="col">{ "Run" }</th>
                            <th scope="col" class="num">{ "A" }</th>
                            <th scope="col" class="num">{ "B" }</th>
                            <th scope="col" class="num">{ "Δ (B − A)" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for c.summary.rows.iter().map(|r| html! {
                            <tr data-metric={r.key}>
                                <th scope="row">{ r.label }</th>
                                <td class="num" data-col="a">{ r.unit.format(r.a) }</td>
                                <td class="num" data-col="b">{ r.unit.format(r.b) }</td>
                                { delta_cell("delta".into(), r.unit, Some(r.a), Some(r.delta()), r.verdict()) }
                            </tr>
                        }) }
                        <tr data-metric="jain_fairness">
                            <th scope="row">{ "Jain's fairness" }</th>
                            <td class="num" data-col="a">{ format!("{:.3}", c.summary.fairness.0) }</td>
                            <td class="num" data-col="b">{ format!("{:.3}", c.summary.fairness.1) }</td>
                            <td class="num delta neutral" data-col="delta">
                                { format!("{:+.3}", c.summary.fairness.1 - c.summary.fairness.0) }
                            </td>
                        </tr>
                    </tbody>
                </table>
            </div>
            <h3 class="compare-subhead">
                { "Per task" }
                if total > MAX_ROWS {
                    <span class="muted">{ format!(" ({MAX_ROWS} of {total} tasks shown)") }</span>
                }
            </h3>
            <div class="table-scroll compare-scroll">
                <table class="compare-table" data-testid="compare-table">
                    <thead>
                        <tr>
                            <th scope="col" rowspan="2">{ "Task" }</th>
                            { for TaskColumn::ALL.iter().map(|&col| {
                                let sorted = *sorted_by == Some(col);
                                let onclick = {
                                    let sorted_by = sorted_by.clone();
                                    Callback::from(move |_| sorted_by.set((!sorted).then_some(col)))
                                };
                                html! {
                                    <th scope="colgroup" colspan="3" class="group" data-col={col.key()}
                                        aria-sort={if sorted { "descending" } else { "none" }}>
                                        <button type="button" class="sort" {onclick}
                                            title="Sort by the size of the difference (again: task order)">
                                            { col.label() }
                                            <span class="sort-mark" aria-hidden="true">{ if sorted { " ▼ |Δ|" } else { "" } }</span>
                                        </button>
                                    </th>
                                }
                            }) }
                        </tr>
                        <tr>
                            { for TaskColumn::ALL.iter().map(|_| html! {
                                <>
                                    <th scope="col" class="num">{ "A" }</th>
                                    <th scope="col" class="num">{ "B" }</th>
                                    <th scope="col" class="num">{ "Δ" }</th>
                                </>
                            }) }
                        </tr>
                    </thead>
                    <tbody>
                        { for rows.iter().map(|row| html! {
                            <tr key={row.label.clone()} data-task={row.label.clone()}
                                class={classes!(selected(row).then_some("selected"))}
                                aria-selected={if selected(row) { "true" } else { "false" }}>
                                <th scope="row">{ &row.label }</th>
                                { for TaskColumn::ALL.iter().map(|&col| {
                                    let k = col.key();
                                    let verdict = row.delta(col).map_or(Verdict::Neutral, |d| Verdict::of(d, col.better()));
                                    html! {
                                        <>
                                            { value_cell(format!("{k}-a"), row.value_a(col)) }
                                            { value_cell(format!("{k}-b"), row.value_b(col)) }
                                            { delta_cell(format!("{k}-delta"), Unit::Ns, row.value_a(col), row.delta(col), verdict) }
                                        </>
                                    }
                                }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
