//! Playback of the run decision by decision: step back, play or pause, step forward, and a
//! speed. Each step moves the time cursor to the previous or next decision instant
//! (`schedlab::playback`), so the Gantt's cursor and the inspector follow through the reducer.
//! Whether it plays is this bar's own: a link restores the cursor, not a running animation.

use schedlab::playback;
use schedlab::view::RunData;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::Shared;
use crate::hooks::use_deferred::use_deferred;
use crate::state::ViewChange;

/// Decisions per second the speed control offers; the first is the default.
const SPEEDS: [u32; 5] = [2, 1, 5, 10, 25];

#[derive(Properties, PartialEq)]
pub struct PlaybackProps {
    /// The run stepped through: its decision instants.
    pub data: Shared<RunData>,
    /// The view's time cursor (ns).
    pub cursor: Option<u64>,
    /// Where a step sends the cursor (`SetCursor`).
    pub onview: Callback<ViewChange>,
}

#[component]
pub fn Playback(props: &PlaybackProps) -> Html {
    let playing = use_state_eq(|| false);
    let speed = use_state_eq(|| SPEEDS[0]);
    let cursor = props.cursor;

    let go = {
        let onview = props.onview.clone();
        let data = props.data.clone();
        let playing = playing.clone();
        Callback::from(move |by: i64| {
            let decisions = data.decisions();
            let target = match cursor {
                Some(t) => playback::step(&decisions, t, by),
                None if by > 0 => match decisions.first() {
                    Some(&t) => t,
                    None => return,
                },
                None => match decisions.last() {
                    Some(&t) => t,
                    None => return,
                },
            };
            if Some(target) == cursor {
                playing.set(false);
            } else {
                onview.emit(ViewChange::SetCursor(Some(target)));
            }
        })
    };

    // While playing, one step forward per tick; the effect re-arms on every cursor move and
    // stops at the last decision (a step that does not move).
    {
        let go = go.clone();
        let playing_now = *playing;
        let per_second = *speed;
        use_effect_with((playing_now, cursor, per_second), move |_| {
            let mut handle = None;
            let tick = Closure::<dyn FnMut()>::new(move || go.emit(1));
            if playing_now {
                if let Some(window) = web_sys::window() {
                    handle = window
                        .set_timeout_with_callback_and_timeout_and_arguments_0(
                            tick.as_ref().unchecked_ref(),
                            (1000 / per_second.max(1)) as i32,
                        )
                        .ok();
                }
            }
            move || {
                if let (Some(h), Some(window)) = (handle, web_sys::window()) {
                    window.clear_timeout_with_handle(h);
                }
                drop(tick);
            }
        });
    }

    let back = {
        let go = go.clone();
        Callback::from(move |_: MouseEvent| go.emit(-1))
    };
    let forward = {
        let go = go.clone();
        Callback::from(move |_: MouseEvent| go.emit(1))
    };
    let toggle = {
        let playing = playing.clone();
        let go = go.clone();
        Callback::from(move |_: MouseEvent| {
            if !*playing && cursor.is_none() {
                go.emit(1);
            }
            playing.set(!*playing);
        })
    };
    let on_speed = {
        let speed = speed.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Ok(v) = select.value().parse::<u32>() {
                if SPEEDS.contains(&v) {
                    speed.set(v);
                }
            }
        })
    };
    // Decisions at or before the cursor: "decision 3 of 40" stands on the third. Worked out
    // once a run; without a cursor (playback not in use) only the count shows, of the run
    // whose Gantt chart has been painted and, while a slider is dragged, once it rests
    // (`use_deferred`), so a new run's reply does not wait for sorting its decisions (0.2-0.8
    // ms on contest). A step (`go`) reads the run on screen itself.
    let painted = use_deferred(Some(props.data.clone()));
    let counted = match painted {
        Some(data) if cursor.is_none() => data,
        _ => props.data.clone(),
    };
    let decisions = use_memo(counted, |data| data.decisions());
    let count = decisions.len();
    let index = cursor.map(|t| decisions.partition_point(|&d| d <= t));

    html! {
        <div class="playback" role="group" aria-label="Playback" data-testid="playback">
            <button type="button" data-testid="playback-back" onclick={back}
                title="Previous decision (Left arrow on the timeline)">{ "◀ Step" }</button>
            <button type="button" data-testid="playback-play" onclick={toggle}
                aria-pressed={if *playing { "true" } else { "false" }}>
                { if *playing { "Pause" } else { "Play" } }
            </button>
            <button type="button" data-testid="playback-forward" onclick={forward}
                title="Next decision (Right arrow on the timeline)">{ "Step ▶" }</button>
            <label>
                { "speed " }
                <select data-testid="playback-speed" onchange={on_speed}>
                    { for SPEEDS.iter().map(|&s| html! {
                        <option value={s.to_string()} selected={s == *speed}>{ format!("{s} decisions/s") }</option>
                    }) }
                </select>
            </label>
            <span class="playback-count" data-testid="playback-count">
                { match index {
                    Some(i) => format!("decision {i} of {count}"),
                    None => format!("{count} decisions"),
                } }
            </span>
        </div>
    }
}
