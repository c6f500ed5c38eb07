use schedlab::inspect::{CpuQueues, DiskQueueView, QueueView, RequestView, RunQueues, TaskRef};
use schedlab::text::{bytes, ms};
use schedlab::view::{format_ns_4, RunData};
use schedlab::Nanos;
use yew::prelude::*;

use crate::charts::palette::{css, task};
use crate::components::playback::Playback;
use crate::components::Shared;
use crate::state::{Inspector as Inspection, ViewChange};

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    /// The run on screen: its tasks' colours and, for playback, its decisions.
    #[prop_or_default]
    pub data: Option<Shared<RunData>>,
    /// The view's time cursor (ns).
    pub cursor: Option<u64>,
    /// The run queues last received for the cursor, and whether a newer request is out.
    #[prop_or_default]
    pub inspection: Inspection,
    /// Where the time field, Clear and playback send the cursor (`SetCursor`).
    pub onview: Callback<ViewChange>,
}

/// The run queues at the time cursor, as the policy sees them: per CPU who runs, whom
/// `pick_next` would choose, the decision in a sentence, each queue in the policy's order and
/// its facts. A click on the timeline, the "time (ms)" field or the playback bar (stepping
/// decision by decision) sets the cursor. While a newer inspection is computed the
/// last one stays (dimmed), so the panel keeps its size.
#[component]
pub fn Inspector(props: &InspectorProps) -> Html {
    // Text the time field could not read, with the reason.
    let bad_time = use_state_eq(|| None::<(String, String)>);
    let cursor = props.cursor;
    let inspector = &props.inspection;
    let data = props.data.clone();
    let set_cursor = props.onview.reform(ViewChange::SetCursor);

    let onchange = {
        let set_cursor = set_cursor.clone();
        let bad_time = bad_time.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let text = input.value();
            let text = text.trim();
            if text.is_empty() {
                bad_time.set(None);
                set_cursor.emit(None);
                return;
            }
            match Nanos::parse(&format!("{text}ms")) {
                Ok(t) => {
                    bad_time.set(None);
                    set_cursor.emit(Some(t.0));
                }
                Err(_) => bad_time.set(Some((
                    text.to_owned(),
                    "a time in milliseconds, 0 or more, such as 1500.25".into(),
                ))),
            }
        })
    };
    let clear = {
        let bad_time = bad_time.clone();
        Callback::from(move |_: MouseEvent| {
            bad_time.set(None);
            set_cursor.emit(None);
        })
    };

    let value = match (&*bad_time, cursor) {
        (Some((text, _)), _) => text.clone(),
        (None, Some(t)) => ms(t),
        (None, None) => String::new(),
    };
    let status = if inspector.pending {
        "updating…".to_owned()
    } else {
        match (&inspector.queues, cursor) {
            (Some(q), Some(t)) if q.at_ns < t => {
                format!("at {} ms, where the run ends", ms(q.at_ns))
            }
            (Some(q), Some(_)) => format!("at {} ms", ms(q.at_ns)),
            _ => String::new(),
        }
    };

    let body = match (cursor, &inspector.queues, &inspector.error) {
        (None, _, _) => html! {
            <p class="inspector-empty">
                { "Click the timeline to inspect the run queues at that instant: who runs on each CPU, whom the policy would pick next, and its queues in the order it considers them; and each disk's queue in the order its elevator would serve it." }
            </p>
        },
        (Some(_), _, Some(error)) if !inspector.pending => html! {
            <p class="field-problem" role="alert">{ format!("The run queues could not be inspected: {error}") }</p>
        },
        (Some(_), Some(queues), _) => queues_view(queues, data.as_deref()),
        (Some(_), None, _) => html! {
            <p class="inspector-empty">{ "Inspecting the run queues…" }</p>
        },
    };

    html! {
        <section class="panel inspector" data-testid="inspector" aria-labelledby="inspector-heading"
            aria-busy={if inspector.pending { "true" } else { "false" }}>
            <div class="inspector-head">
                <h2 id="inspector-heading">{ "Inspector" }</h2>
                <label for="inspector-time">{ "time (ms)" }</label>
                <input id="inspector-time" type="number" min="0" step="0.001" inputmode="decimal"
                    data-testid="inspector-time" {value} {onchange}
                    aria-invalid={if bad_time.is_some() { "true" } else { "false" }}
                    aria-describedby="inspector-time-problem" />
                <button type="button" onclick={clear} disabled={cursor.is_none()}>{ "Clear" }</button>
                <span class="inspector-status" role="status" aria-live="polite">{ status }</span>
            </div>
            if let Some(data) = data.clone() {
                <Playback {data} {cursor} onview={props.onview.clone()} />
            }
            <span id="inspector-time-problem" class="field-problem">
                { bad_time.as_ref().map(|(_, why)| why.clone()).unwrap_or_default() }
            </span>
            <div class={classes!("inspector-body", inspector.pending.then_some("pending"))}>
                { body }
            </div>
        </section>
    }
}

fn queues_view(queues: &RunQueues, data: Option<&RunData>) -> Html {
    html! {
        <>
            <div class="inspector-cpus">
                { for queues.cpus.iter().map(|cpu| cpu_view(cpu, data)) }
            </div>
            if !queues.disks.is_empty() {
                <div class="inspector-disks">
                    { for queues.disks.iter().map(|d| disk_view(d, queues.at_ns, data)) }
                </div>
            }
        </>
    }
}

/// Requests of a disk queue listed before "and N more".
const DISK_ROWS: usize = 12;

/// A disk: the request being served, then the queue in the order its elevator would serve it.
fn disk_view(disk: &DiskQueueView, at: u64, data: Option<&RunData>) -> Html {
    let state = match (&disk.serving, disk.idle_until_ns) {
        (Some(r), _) => html! {
            <>{ "serving " }{ request_summary(r, data) }{ format!(", done at {} ms", ms(r.start_ns)) }</>
        },
        (None, Some(t)) => {
            html! { <>{ format!("idle: anticipating a read until {} ms", ms(t)) }</> }
        }
        (None, None) => html! { <span class="muted">{ "idle" }</span> },
    };
    let more = disk
        .queued
        .saturating_sub(DISK_ROWS.min(disk.queue.len()) as u64);
    html! {
        <div class="inspector-disk" data-testid="inspector-disk" data-disk={disk.name.clone()}>
            <h3>{ format!("{} ({})", disk.name, disk.elevator) }</h3>
            <p class="inspector-pick">{ state }</p>
            <table class="inspector-queue" data-testid="inspector-disk-queue">
                <caption>{ format!("queue in dispatch order ({} requests)", disk.queued) }</caption>
                if disk.queue.is_empty() {
                    <tbody><tr><td class="muted">{ "(empty)" }</td></tr></tbody>
                } else {
                    <thead>
                        <tr>
                            <th scope="col">{ "request" }</th>
                            <th scope="col">{ "for" }</th><th scope="col">{ "what" }</th>
                            <th scope="col" title="if nothing else arrives">{ "starts in" }</th>
                            <th scope="col" title="since it was submitted">{ "waited" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for disk.queue.iter().take(DISK_ROWS).map(|r| html! {
                            <tr data-dir={r.dir.clone()}>
                                <td class="inspector-key">{ format!("{} {}", r.dir, bytes(r.bytes)) }</td>
                                <td class="inspector-task">{ task_name(&r.owner, data) }</td>
                                <td class="inspector-detail">{ r.what.clone() }</td>
                                <td class="inspector-key">{ format_ns_4(r.start_ns.saturating_sub(at)) }</td>
                                <td class="inspector-key">{ format_ns_4(at.saturating_sub(r.submitted_ns)) }</td>
                            </tr>
                        }) }
                        if more > 0 {
                            <tr><td colspan="5" class="muted">{ format!("and {more} more") }</td></tr>
                        }
                    </tbody>
                }
            </table>
        </div>
    }
}

fn request_summary(r: &RequestView, data: Option<&RunData>) -> Html {
    html! {
        <>
            <strong>{ format!("{} {}", r.dir, bytes(r.bytes)) }</strong>
            { " for " }{ task_name(&r.owner, data) }{ format!(" ({})", r.what) }
        </>
    }
}

fn cpu_view(cpu: &CpuQueues, data: Option<&RunData>) -> Html {
    html! {
        <div class="inspector-cpu">
            <h3>{ format!("cpu{}", cpu.cpu) }</h3>
            <p class="inspector-pick">
                { "running " }
                { task_or(cpu.running.as_ref(), "nothing (idle)", data) }
                { " · pick_next would choose " }
                { task_or(cpu.next.as_ref(), "nothing", data) }
            </p>
            <p class="inspector-sentence" data-testid="inspector-sentence">
                { schedlab::explain::cpu(cpu) }
            </p>
            { for cpu.queues.iter().map(|q| queue_view(q, data)) }
            if !cpu.facts.is_empty() {
                <ul class="inspector-facts">
                    { for cpu.facts.iter().map(|f| html! { <li>{ f.clone() }</li> }) }
                </ul>
            }
        </div>
    }
}

fn queue_view(queue: &QueueView, data: Option<&RunData>) -> Html {
    if queue.entries.is_empty() {
        return html! {
            <table class="inspector-queue">
                <caption>{ queue.name.clone() }</caption>
                <tbody><tr><td class="muted">{ "(empty)" }</td></tr></tbody>
            </table>
        };
    }
    html! {
        <table class="inspector-queue">
            <caption>{ queue.name.clone() }</caption>
            <thead>
                <tr><th scope="col">{ "task" }</th><th scope="col">{ "key" }</th><th scope="col">{ "detail" }</th></tr>
            </thead>
            <tbody>
                { for queue.entries.iter().map(|e| html! {
                    <tr>
                        <td class="inspector-task">{ task_name(&e.task, data) }</td>
                        <td class="inspector-key">{ e.key.clone() }</td>
                        <td class="inspector-detail">{ e.detail.clone() }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

fn task_or(t: Option<&TaskRef>, none: &str, data: Option<&RunData>) -> Html {
    match t {
        Some(t) => html! { <strong>{ task_name(t, data) }</strong> },
        None => html! { <span class="muted">{ none.to_owned() }</span> },
    }
}

/// A task's name after a swatch of its colour in the charts.
fn task_name(t: &TaskRef, data: Option<&RunData>) -> Html {
    let colour = data
        .and_then(|d| d.tasks.get(t.id as usize))
        .map_or(t.id, |v| v.colour);
    html! {
        <span class="task-name">
            <span class="swatch" aria-hidden="true" style={format!("background:{}", css(task(colour)))} />
            { t.name.clone() }
        </span>
    }
}
