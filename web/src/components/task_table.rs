use yew::prelude::*;

use crate::state::{Action, AppContext};
use crate::templates::Template;

/// The scenario's tasks: add, remove, rename, and edit behaviour, nice, shares and arrival.
#[component]
pub fn TaskTable() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let on_add = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::AddTask))
    };
    html! {
        <section class="panel task-panel" aria-labelledby="tasks-heading">
            <h2 id="tasks-heading">{ "Tasks" }</h2>
            if let Some(problem) = state.problem_at("tasks").filter(|_| state.draft.tasks.is_empty()) {
                <p class="field-problem">{ problem }</p>
            }
            <div class="table-scroll">
                <table class="task-table" data-testid="task-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Name" }</th>
                            <th scope="col">{ "Behaviour" }</th>
                            <th scope="col" title="-20 (favoured) to 19">{ "Nice" }</th>
                            <th scope="col" title="Explicit CPU shares (entitlement); empty derives them from nice">{ "Shares" }</th>
                            <th scope="col" title="When the task starts, e.g. 0ms, 2s">{ "Arrival" }</th>
                            <th scope="col"><span class="visually-hidden">{ "Remove" }</span></th>
                        </tr>
                    </thead>
                    <tbody>
                        { for (0..state.draft.tasks.len()).map(|i| html! { <TaskRow index={i} /> }) }
                    </tbody>
                </table>
            </div>
            <button type="button" class="add-task" data-testid="add-task" onclick={on_add}>{ "+ Add task" }</button>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct TaskRowProps {
    index: usize,
}

#[component]
fn TaskRow(props: &TaskRowProps) -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let i = props.index;
    let Some(task) = state.draft.tasks.get(i) else {
        return html! {};
    };
    let text_cb = |make: fn(usize, String) -> Action| {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            state.dispatch(make(i, input.value()));
        })
    };
    let template = Template::detect(&task.program);
    let on_template = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            state.dispatch(Action::SetTemplate(i, select.value()));
        })
    };
    let on_program = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            state.dispatch(Action::SetProgram(i, area.value()));
        })
    };
    let on_remove = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::RemoveTask(i)))
    };
    let path = |field: &str| format!("tasks[{i}].{field}");
    let cell_problem = |field: &str| {
        state
            .problem_at(&path(field))
            .map(|p| html! { <span class="field-problem">{ p }</span> })
    };
    let program_text = state.field_text(&path("program"), || {
        serde_json::to_string(&task.program).unwrap_or_default()
    });
    let count = task.count.map(|n| format!(" ×{n}")).unwrap_or_default();
    let name_label = format!("Name of task {}", i + 1);
    html! {
        <tr class={classes!(state.problem_at(&format!("tasks[{i}]")).is_some().then_some("row-invalid"))}>
            <td>
                <input type="text" class="task-name" aria-label={name_label} value={task.name.clone()}
                    onchange={text_cb(Action::RenameTask)} />
                if !count.is_empty() { <span class="task-count" title="copies of this task">{ count }</span> }
                { cell_problem("name") }
            </td>
            <td>
                <select class="task-template" aria-label={format!("Behaviour of {}", task.name)} onchange={on_template}>
                    { for Template::ALL.iter().map(|t| html! {
                        <option value={t.key()} selected={*t == template}>{ t.label() }</option>
                    }) }
                </select>
                <details class="program" open={template == Template::Custom && state.raw.contains_key(&path("program"))}>
                    <summary>{ "Program" }</summary>
                    <textarea class="program-json" aria-label={format!("Program of {} (JSON steps)", task.name)}
                        rows="4" value={program_text} onchange={on_program} />
                </details>
                { cell_problem("program") }
            </td>
            <td data-label="Nice" title="-20 (favoured) to 19">
                <input type="number" class="task-nice" min="-20" max="19" aria-label={format!("Nice of {}", task.name)}
                    value={state.field_text(&path("nice"), || task.nice.to_string())}
                    onchange={text_cb(Action::SetNice)} />
                { cell_problem("nice") }
            </td>
            if let Some(g) = state.weight_group(i) {
                // Under cfs and eevdf a grouped task's shares are its group's cpu.weight.
                <td data-label="Shares" title="cpu.weight of the task's group (1 to 10000, default 100), shared by every task in it">
                    <input type="number" class="task-shares" min="1" max="10000" aria-label={format!("cpu.weight of the group of {}", task.name)}
                        placeholder="100"
                        value={state.field_text(&format!("groups[{g}].cpu.weight"), || state.draft.groups.get(g).map(|x| x.cpu_weight.to_string()).unwrap_or_default())}
                        onchange={text_cb(Action::SetShares)} />
                    { state.problem_at(&format!("groups[{g}].cpu.weight")).map(|p| html! { <span class="field-problem">{ p }</span> }) }
                </td>
            } else {
                <td data-label="Shares" title="Explicit CPU shares (entitlement); empty derives them from nice">
                    <input type="number" class="task-shares" min="1" aria-label={format!("Shares of {}", task.name)}
                        placeholder="from nice"
                        value={state.field_text(&path("shares"), || task.shares.map(|s| s.to_string()).unwrap_or_default())}
                        onchange={text_cb(Action::SetShares)} />
                    { cell_problem("shares") }
                </td>
            }
            <td data-label="Arrival" title="When the task starts, e.g. 0ms, 2s">
                <input type="text" class="task-arrival" aria-label={format!("Arrival of {}", task.name)}
                    value={state.field_text(&path("arrival"), || task.arrival.to_string())}
                    onchange={text_cb(Action::SetArrival)} />
                { cell_problem("arrival") }
            </td>
            <td>
                <button type="button" class="remove-task" aria-label={format!("Remove {}", task.name)}
                    title="Remove this task" onclick={on_remove}>{ "×" }</button>
            </td>
        </tr>
    }
}
