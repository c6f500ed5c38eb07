use std::rc::Rc;

use schedlab::link::PresetRef;
use schedlab::workloads::classroom::{JobProblem, TextbookJob, EXERCISES};
use schedlab::{Nanos, Problem, Scenario};
use yew::prelude::*;

use crate::state::{Edit, RawTexts};
use crate::templates::Template;

/// The draft as its fields show it: the scenario, its problems (with their field paths) and the
/// text typed into a field that did not parse (`AppState::raw`).
#[derive(Clone, Debug)]
pub struct Fields {
    pub draft: Rc<Scenario>,
    pub problems: Vec<Problem>,
    pub raw: RawTexts,
}

/// Equal when what the table shows is: the tasks, the groups and the policy's id (which says
/// whether a task's group weight is shown, `state::weight_group`), not the policy's tunables,
/// so a slider's move renders none of the rows again.
impl PartialEq for Fields {
    fn eq(&self, other: &Fields) -> bool {
        let (a, b) = (&self.draft, &other.draft);
        (Rc::ptr_eq(a, b)
            || (a.tasks == b.tasks && a.groups == b.groups && a.policy.id == b.policy.id))
            && self.problems == other.problems
            && self.raw == other.raw
    }
}

impl Fields {
    fn problem_at(&self, path: &str) -> Option<String> {
        crate::state::problem_at(&self.problems, path)
    }
}

/// The draft's preset is a textbook exercise (a classroom preset made of jobs).
pub fn is_exercise(preset: Option<&PresetRef>) -> bool {
    preset.is_some_and(|p| EXERCISES.contains(&p.id.as_str()))
}

#[derive(Properties, PartialEq)]
pub struct TaskTableProps {
    pub fields: Rc<Fields>,
    /// Show the tasks as a table of jobs ([`is_exercise`]).
    pub exercise: bool,
    /// The view's task in focus and compared tasks, by name: their rows stand out.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    #[prop_or_default]
    pub compared: Vec<AttrValue>,
    /// Where the table's edits of the draft go.
    pub onedit: Callback<Edit>,
}

/// The scenario's tasks. A textbook exercise (a classroom preset made of jobs) shows them as a
/// table of jobs, with every other field folded away underneath; anything else shows the task
/// table directly.
#[component]
pub fn TaskTable(props: &TaskTableProps) -> Html {
    let picked = Rc::new(Picked {
        selected: props.selected.clone(),
        compared: props.compared.clone(),
    });
    let fields = props.fields.clone();
    let onedit = props.onedit.clone();
    let full = html! { <FullTaskTable fields={fields.clone()} picked={picked.clone()} onedit={onedit.clone()} /> };
    if props.exercise {
        html! {
            <>
                <JobTable {fields} {picked} {onedit} />
                <details class="panel all-task-fields">
                    <summary>{ "Every task field (nice, shares, program as JSON)" }</summary>
                    { full }
                </details>
            </>
        }
    } else {
        full
    }
}

/// The task in focus and the compared ones.
#[derive(Debug, PartialEq)]
struct Picked {
    selected: Option<AttrValue>,
    compared: Vec<AttrValue>,
}

#[derive(Properties, PartialEq)]
struct TableProps {
    fields: Rc<Fields>,
    picked: Rc<Picked>,
    onedit: Callback<Edit>,
}

/// How a task's row stands out: the task in focus, a compared one, or faded behind them (as
/// in the charts); `None` when no task is picked.
fn picked(p: &Picked, name: &str) -> Option<&'static str> {
    if p.selected.as_deref() == Some(name) {
        Some("focus")
    } else if p.compared.iter().any(|t| t.as_str() == name) {
        Some("compared")
    } else if p.selected.is_some() || !p.compared.is_empty() {
        Some("faded")
    } else {
        None
    }
}

/// The default job a new row starts as: 10 s of CPU, no I/O.
const NEW_JOB: TextbookJob = TextbookJob {
    burst: Nanos::from_secs(10),
    io: None,
};

/// The tasks as textbook jobs: arrival, CPU burst, and optional I/O every so often. Each row is a
/// view of its task: a valid edit writes the job's program through `SetProgram`, exactly as the
/// JSON editor would; an invalid one is reported beside the field and changes nothing.
#[component]
fn JobTable(props: &TableProps) -> Html {
    let state = &props.fields;
    let on_add = {
        let onedit = props.onedit.clone();
        let i = state.draft.tasks.len();
        Callback::from(move |_| {
            onedit.emit(Edit::AddTask);
            onedit.emit(Edit::SetProgram(
                i,
                serde_json::to_string(&NEW_JOB.program()).unwrap_or_default(),
            ));
        })
    };
    html! {
        <section class="panel job-panel" aria-labelledby="jobs-heading">
            <h2 id="jobs-heading">{ "Jobs" }</h2>
            <p class="hint">{ "Durations such as 10s or 500ms. A job with I/O stops after every “I/O every” of CPU for “I/O for”." }</p>
            if let Some(problem) = state.problem_at("tasks").filter(|_| state.draft.tasks.is_empty()) {
                <p class="field-problem">{ problem }</p>
            }
            <div class="table-scroll" tabindex="0" role="region" aria-label="Jobs (scrollable)">
                <table class="job-table" data-testid="job-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Job" }</th>
                            <th scope="col" title="When the job arrives, e.g. 0s, 10s">{ "Arrival" }</th>
                            <th scope="col" title="CPU the job needs in all, e.g. 10s">{ "Burst" }</th>
                            <th scope="col" title="Optional: CPU between I/O stops, e.g. 10ms">{ "I/O every" }</th>
                            <th scope="col" title="Optional: how long each I/O takes, e.g. 10ms">{ "I/O for" }</th>
                            <th scope="col"><span class="visually-hidden">{ "Remove" }</span></th>
                        </tr>
                    </thead>
                    <tbody>
                        { for state.draft.tasks.iter().enumerate().map(|(i, t)| {
                            // A new program remounts the row, so its text starts from the program.
                            let key = format!("{i}:{}", serde_json::to_string(&t.program).unwrap_or_default());
                            html! { <JobRow {key} index={i} fields={props.fields.clone()}
                                picked={props.picked.clone()} onedit={props.onedit.clone()} /> }
                        }) }
                    </tbody>
                </table>
            </div>
            <button type="button" class="add-task" data-testid="add-job" onclick={on_add}>{ "+ Add job" }</button>
        </section>
    }
}

const JOB_FIELDS: [(&str, &str); 3] = [
    ("burst", "Burst"),
    ("io_every", "I/O every"),
    ("io_for", "I/O for"),
];

/// The three job fields' text as the program gives it.
fn job_text(job: Option<TextbookJob>) -> [String; 3] {
    match job {
        Some(job) => [
            job.burst.to_string(),
            job.io.map(|io| io.every.to_string()).unwrap_or_default(),
            job.io.map(|io| io.length.to_string()).unwrap_or_default(),
        ],
        None => Default::default(),
    }
}

#[component]
fn JobRow(props: &TaskRowProps) -> Html {
    let state = &props.fields;
    let job = state
        .draft
        .tasks
        .get(props.index)
        .and_then(|t| TextbookJob::of(&t.program));
    // What is typed in the three job fields, kept as typed (the row is remounted when its
    // program changes, so this starts from the program), and the problems of the last change.
    let text = use_mut_ref(|| job_text(job));
    let problems = use_state_eq(Vec::<JobProblem>::new);
    let i = props.index;
    let Some(task) = state.draft.tasks.get(i) else {
        return html! {};
    };
    let path = |field: &str| format!("tasks[{i}].{field}");
    let cell_problem = |field: &str| {
        state
            .problem_at(&path(field))
            .map(|p| html! { <span class="field-problem" role="alert">{ p }</span> })
    };
    let name_cb = props.onedit.reform(move |e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        Edit::RenameTask(i, input.value())
    });
    let arrival_cb = props.onedit.reform(move |e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        Edit::SetArrival(i, input.value())
    });
    let on_remove = props
        .onedit
        .reform(move |_: MouseEvent| Edit::RemoveTask(i));
    let job_input = |n: usize| {
        let (field, label) = JOB_FIELDS[n];
        let problem = problems.iter().find(|p| p.field == field).cloned();
        let oninput = {
            let text = text.clone();
            Callback::from(move |e: InputEvent| {
                let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                text.borrow_mut()[n] = input.value();
            })
        };
        let onchange = {
            let onedit = props.onedit.clone();
            let text = text.clone();
            let problems = problems.clone();
            Callback::from(move |e: Event| {
                let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                text.borrow_mut()[n] = input.value();
                let [burst, every, length] = text.borrow().clone();
                match TextbookJob::parse(&burst, &every, &length) {
                    Ok(job) => {
                        problems.set(Vec::new());
                        onedit.emit(Edit::SetProgram(
                            i,
                            serde_json::to_string(&job.program()).unwrap_or_default(),
                        ));
                    }
                    Err(found) => problems.set(found),
                }
            })
        };
        let id = format!("job-{i}-{field}");
        html! {
            <td data-label={label}>
                <input type="text" class={classes!("job-field", format!("job-{field}"))}
                    aria-label={format!("{label} of {}", task.name)}
                    aria-invalid={problem.is_some().then_some("true")}
                    aria-describedby={problem.is_some().then(|| format!("{id}-problem"))}
                    value={text.borrow()[n].clone()} {oninput} {onchange} />
                if let Some(p) = problem {
                    <span class="field-problem" id={format!("{id}-problem")} role="alert">{ p.to_string() }</span>
                }
            </td>
        }
    };
    html! {
        <>
        <tr class={classes!(state.problem_at(&format!("tasks[{i}]")).is_some().then_some("row-invalid"), picked(&props.picked, &task.name))}
            data-task={task.name.clone()} data-picked={picked(&props.picked, &task.name)}>
            <td data-label="Job">
                <input type="text" class="task-name" aria-label={format!("Name of job {}", i + 1)} value={task.name.clone()}
                    onchange={name_cb} />
                { cell_problem("name") }
            </td>
            <td data-label="Arrival">
                <input type="text" class="task-arrival" aria-label={format!("Arrival of {}", task.name)}
                    value={state.raw.field_text(&path("arrival"), || task.arrival.to_string())}
                    onchange={arrival_cb} />
                { cell_problem("arrival") }
            </td>
            if job.is_some() || !problems.is_empty() {
                { job_input(0) }
                { job_input(1) }
                { job_input(2) }
            } else {
                <td colspan="3" class="muted">
                    { "Not a plain job: edit its program under “Every task field”." }
                </td>
            }
            <td>
                <button type="button" class="remove-task" aria-label={format!("Remove {}", task.name)}
                    title="Remove this job" onclick={on_remove}>{ "×" }</button>
            </td>
        </tr>
        // The engine's own objections to the program (a burst past the limits, say).
        if let Some(p) = cell_problem("program") {
            <tr><td colspan="6">{ p }</td></tr>
        }
        </>
    }
}

/// Every field of every task: add, remove, rename, and edit behaviour, nice, shares and arrival.
#[component]
fn FullTaskTable(props: &TableProps) -> Html {
    let state = &props.fields;
    let on_add = props.onedit.reform(|_: MouseEvent| Edit::AddTask);
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
                        { for (0..state.draft.tasks.len()).map(|i| html! {
                            <TaskRow index={i} fields={props.fields.clone()} picked={props.picked.clone()}
                                onedit={props.onedit.clone()} />
                        }) }
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
    fields: Rc<Fields>,
    picked: Rc<Picked>,
    onedit: Callback<Edit>,
}

#[component]
fn TaskRow(props: &TaskRowProps) -> Html {
    let state = &props.fields;
    let i = props.index;
    let Some(task) = state.draft.tasks.get(i) else {
        return html! {};
    };
    let text_cb = |make: fn(usize, String) -> Edit| {
        props.onedit.reform(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            make(i, input.value())
        })
    };
    let template = Template::detect(&task.program);
    let on_template = props.onedit.reform(move |e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Edit::SetTemplate(i, select.value())
    });
    let on_program = props.onedit.reform(move |e: Event| {
        let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
        Edit::SetProgram(i, area.value())
    });
    let on_remove = props
        .onedit
        .reform(move |_: MouseEvent| Edit::RemoveTask(i));
    let path = |field: &str| format!("tasks[{i}].{field}");
    let cell_problem = |field: &str| {
        state
            .problem_at(&path(field))
            .map(|p| html! { <span class="field-problem">{ p }</span> })
    };
    let program_text = state.raw.field_text(&path("program"), || {
        serde_json::to_string(&task.program).unwrap_or_default()
    });
    let count = task.count.map(|n| format!(" ×{n}")).unwrap_or_default();
    let name_label = format!("Name of task {}", i + 1);
    html! {
        <tr class={classes!(state.problem_at(&format!("tasks[{i}]")).is_some().then_some("row-invalid"), picked(&props.picked, &task.name))}
            data-task={task.name.clone()} data-picked={picked(&props.picked, &task.name)}>
            <td>
                <input type="text" class="task-name" aria-label={name_label} value={task.name.clone()}
                    onchange={text_cb(Edit::RenameTask)} />
                if !count.is_empty() { <span class="task-count" title="copies of this task">{ count }</span> }
                { cell_problem("name") }
            </td>
            <td>
                <select class="task-template" aria-label={format!("Behaviour of {}", task.name)} onchange={on_template}>
                    { for Template::ALL.iter().map(|t| html! {
                        <option value={t.key()} selected={*t == template}>{ t.label() }</option>
                    }) }
                </select>
                <details class="program" open={template == Template::Custom && state.raw.get(&path("program")).is_some()}>
                    <summary>{ "Program" }</summary>
                    <textarea class="program-json" aria-label={format!("Program of {} (JSON steps)", task.name)}
                        rows="4" value={program_text} onchange={on_program} />
                </details>
                { cell_problem("program") }
            </td>
            <td data-label="Nice" title="-20 (favoured) to 19">
                <input type="number" class="task-nice" min="-20" max="19" aria-label={format!("Nice of {}", task.name)}
                    value={state.raw.field_text(&path("nice"), || task.nice.to_string())}
                    onchange={text_cb(Edit::SetNice)} />
                { cell_problem("nice") }
            </td>
            if let Some(g) = crate::state::weight_group(&state.draft, i) {
                // Under cfs and eevdf a grouped task's shares are its group's cpu.weight.
                <td data-label="Shares" title="cpu.weight of the task's group (1 to 10000, default 100), shared by every task in it">
                    <input type="number" class="task-shares" min="1" max="10000" aria-label={format!("cpu.weight of the group of {}", task.name)}
                        placeholder="100"
                        value={state.raw.field_text(&format!("groups[{g}].cpu.weight"), || state.draft.groups.get(g).map(|x| x.cpu_weight.to_string()).unwrap_or_default())}
                        onchange={text_cb(Edit::SetShares)} />
                    { state.problem_at(&format!("groups[{g}].cpu.weight")).map(|p| html! { <span class="field-problem">{ p }</span> }) }
                </td>
            } else {
                <td data-label="Shares" title="Explicit CPU shares (entitlement); empty derives them from nice">
                    <input type="number" class="task-shares" min="1" aria-label={format!("Shares of {}", task.name)}
                        placeholder="from nice"
                        value={state.raw.field_text(&path("shares"), || task.shares.map(|s| s.to_string()).unwrap_or_default())}
                        onchange={text_cb(Edit::SetShares)} />
                    { cell_problem("shares") }
                </td>
            }
            <td data-label="Arrival" title="When the task starts, e.g. 0ms, 2s">
                <input type="text" class="task-arrival" aria-label={format!("Arrival of {}", task.name)}
                    value={state.raw.field_text(&path("arrival"), || task.arrival.to_string())}
                    onchange={text_cb(Edit::SetArrival)} />
                { cell_problem("arrival") }
            </td>
            <td>
                <button type="button" class="remove-task" aria-label={format!("Remove {}", task.name)}
                    title="Remove this task" onclick={on_remove}>{ "×" }</button>
            </td>
        </tr>
    }
}
