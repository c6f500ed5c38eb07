//! Presenter mode's own parts: the preset's headline numbers as large cards (each with its
//! change from the previous run, the number moving from the old value to the new one unless
//! the reader asked for reduced motion), the one slider under discussion, the one large Gantt
//! chart, and the scenes (share links the teacher pasted) stepped with the arrow keys or
//! PageUp/PageDown, what a presentation clicker sends. Nothing else: the story is those.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use schedlab::link::ViewState;
use schedlab::TunableSpec;

use crate::charts::GanttChart;
use crate::components::tunable_slider::TunableSlider;
use crate::components::{Shared, Static};
use crate::protocol::HeadlineValue;
use crate::state::{Edit, Shown, ViewChange};

/// Frames of a number's move from its old value to its new one, and the time between them.
const TWEEN_FRAMES: u32 = 12;
const TWEEN_FRAME: Duration = Duration::from_millis(25);

/// A value as a card shows it: fewer decimals the larger it is.
pub fn format_value(value: f64, unit: &str) -> String {
    let digits = if value.abs() >= 100.0 {
        0
    } else if value.abs() >= 10.0 {
        1
    } else {
        2
    };
    let number = format!("{value:.digits$}");
    if unit.is_empty() {
        number
    } else if unit == "%" {
        format!("{number} %")
    } else {
        format!("{number} {unit}")
    }
}

/// The change from `before` to `now`, signed, in the value's unit.
pub fn format_change(before: f64, now: f64, unit: &str) -> String {
    let delta = now - before;
    if delta == 0.0 {
        return "no change from the previous run".to_owned();
    }
    let sign = if delta > 0.0 { "+" } else { "−" };
    format!(
        "{sign}{} from {}",
        format_value(delta.abs(), unit),
        format_value(before, unit)
    )
}

fn reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .is_some_and(|m| m.matches())
}

#[derive(Properties, PartialEq)]
pub struct AnimatedValueProps {
    pub value: f64,
    pub unit: AttrValue,
}

/// A number that moves to each new value over a few frames (at once under reduced motion).
#[component]
pub fn AnimatedValue(props: &AnimatedValueProps) -> Html {
    let drawn = use_state(|| props.value);
    // Each new value's move owns the number; an older move still running stops.
    let generation = use_mut_ref(|| 0u64);
    // When the value last changed (ms). A value that comes before the last one's move would
    // have ended (a slider dragged across, a new run every frame or two) is shown at once:
    // a move of every run would render and lay out the card in each of the frames the next
    // runs' charts wait for, only to be cut short.
    let changed_at = use_mut_ref(|| f64::NEG_INFINITY);
    {
        let drawn = drawn.clone();
        let from = *drawn;
        use_effect_with(props.value.to_bits(), move |&bits| {
            let to = f64::from_bits(bits);
            let me = {
                let mut g = generation.borrow_mut();
                *g += 1;
                *g
            };
            let now = js_sys::Date::now();
            let since = now - std::mem::replace(&mut *changed_at.borrow_mut(), now);
            let tween_ms = f64::from(TWEEN_FRAMES) * TWEEN_FRAME.as_secs_f64() * 1000.0;
            if reduced_motion() || from == to || since < tween_ms {
                drawn.set(to);
            } else {
                yew::platform::spawn_local(async move {
                    for frame in 1..=TWEEN_FRAMES {
                        yew::platform::time::sleep(TWEEN_FRAME).await;
                        if *generation.borrow() != me {
                            return;
                        }
                        let t = f64::from(frame) / f64::from(TWEEN_FRAMES);
                        drawn.set(from + (to - from) * t);
                    }
                });
            }
        });
    }
    html! {
        <span class="headline-value" data-testid="headline-value"
            data-value={format_value(props.value, &props.unit)}>
            { format_value(*drawn, &props.unit) }
        </span>
    }
}

#[derive(Properties, PartialEq)]
pub struct HeadlineCardsProps {
    pub shown: Option<Shared<Shown>>,
}

/// What the cards remember between runs: the run they last drew and its values, and the
/// values of the run before it (the change is measured from those).
#[derive(Default)]
struct History {
    id: Option<u64>,
    now: Vec<HeadlineValue>,
    before: Vec<HeadlineValue>,
}

/// The preset's headline numbers for the run on screen.
#[component]
pub fn HeadlineCards(props: &HeadlineCardsProps) -> Html {
    let history = use_mut_ref(History::default);
    let Some(shown) = props.shown.as_ref() else {
        return html! { <div class="headline-cards" data-testid="headline-cards" /> };
    };
    let values = shown
        .outcome
        .report
        .as_ref()
        .map(|r| r.headlines.clone())
        .unwrap_or_default();
    let before = remember(&history, shown.id, &values);
    html! {
        <div class="headline-cards" data-testid="headline-cards" aria-live="polite">
            { for values.iter().map(|h| {
                let previous = before.iter().find(|b| b.label == h.label && b.unit == h.unit);
                html! {
                    <div class="headline-card" data-testid="headline-card" data-label={h.label.clone()}>
                        <span class="headline-label">{ &h.label }</span>
                        <AnimatedValue value={h.value} unit={AttrValue::from(h.unit.clone())} />
                        <span class="headline-change" data-testid="headline-change">
                            { previous.map(|p| format_change(p.value, h.value, &h.unit)).unwrap_or_default() }
                        </span>
                    </div>
                }
            }) }
        </div>
    }
}

/// Records run `id`'s values (once per run) and returns the previous run's.
fn remember(
    history: &Rc<RefCell<History>>,
    id: u64,
    values: &[HeadlineValue],
) -> Vec<HeadlineValue> {
    let mut h = history.borrow_mut();
    if h.id != Some(id) {
        let now = std::mem::replace(&mut h.now, values.to_vec());
        if h.id.is_some() {
            h.before = now;
        }
        h.id = Some(id);
    }
    h.before.clone()
}

#[derive(Properties, PartialEq)]
pub struct DiscussedSliderProps {
    /// The tunable under discussion and its value (`AppState::discussed_tunable`).
    pub discussed: Option<(Static<TunableSpec>, i64)>,
    /// The draft's problem with it, if any.
    #[prop_or_default]
    pub problem: Option<String>,
    pub onedit: Callback<Edit>,
}

/// The one slider under discussion.
#[component]
pub fn DiscussedSlider(props: &DiscussedSliderProps) -> Html {
    let Some((spec, value)) = props.discussed else {
        return html! {};
    };
    html! {
        <div class="presenter-slider tunables" data-testid="presenter-slider">
            <TunableSlider {spec} {value} problem={props.problem.clone()} onedit={props.onedit.clone()} />
        </div>
    }
}

/// Whether a key press belongs to a field (a slider's arrows move the slider, not the scene).
fn typed_into_field(e: &web_sys::KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| {
            matches!(
                el.tag_name().to_ascii_lowercase().as_str(),
                "input" | "textarea" | "select" | "canvas"
            ) || el.get_attribute("contenteditable").is_some()
        })
}

/// The scene step a key asks for: forward or back, as a clicker's PageDown/PageUp.
pub fn scene_step(key: &str) -> Option<i64> {
    match key {
        "ArrowRight" | "ArrowDown" | "PageDown" => Some(1),
        "ArrowLeft" | "ArrowUp" | "PageUp" => Some(-1),
        _ => None,
    }
}

/// The scenes box: paste share links (one a line, or a JSON list); the keys then step them.
#[derive(Properties, PartialEq)]
pub struct ScenesProps {
    /// How many scenes there are, and which one is on screen.
    pub count: usize,
    pub scene: Option<usize>,
    /// Where a step (`StepScene`) goes.
    pub onedit: Callback<Edit>,
    /// Where pasted scenes (`SetScenes`) go.
    pub onview: Callback<ViewChange>,
}

#[component]
pub fn Scenes(props: &ScenesProps) -> Html {
    {
        let onedit = props.onedit.clone();
        let count = props.count;
        use_effect_with(count, move |&count| {
            let listener = wasm_bindgen::closure::Closure::<dyn FnMut(_)>::new(
                move |e: web_sys::KeyboardEvent| {
                    if count == 0
                        || typed_into_field(&e)
                        || e.alt_key()
                        || e.ctrl_key()
                        || e.meta_key()
                    {
                        return;
                    }
                    if let Some(step) = scene_step(&e.key()) {
                        e.prevent_default();
                        onedit.emit(Edit::StepScene(step));
                    }
                },
            );
            let window = web_sys::window();
            if let Some(w) = &window {
                w.add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref())
                    .ok();
            }
            move || {
                if let Some(w) = window {
                    w.remove_event_listener_with_callback(
                        "keydown",
                        listener.as_ref().unchecked_ref(),
                    )
                    .ok();
                }
            }
        });
    }
    let onchange = props.onview.reform(|e: Event| {
        let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
        ViewChange::SetScenes(area.value())
    });
    let position = match (props.scene, props.count) {
        (_, 0) => "No scenes: paste share links, one a line.".to_owned(),
        (None, n) => format!("{n} scenes: press → or PageDown for the first."),
        (Some(i), n) => format!("Scene {} of {n} (← → or PageUp/PageDown)", i + 1),
    };
    html! {
        <details class="presenter-scenes">
            <summary data-testid="scene-position">{ position }</summary>
            <label for="presenter-scenes-text">{ "Scenes (share links, one a line, or a JSON list)" }</label>
            <textarea id="presenter-scenes-text" data-testid="scenes-input" rows="4" {onchange} />
        </details>
    }
}

#[derive(Properties, PartialEq)]
pub struct StoryChartProps {
    /// The run on screen, if one has finished.
    pub shown: Option<Shared<Shown>>,
    /// Lanes, zoom, cursor, the task in focus and the compared ones.
    pub view: ViewState,
    pub onview: Callback<ViewChange>,
}

/// The story chart's canvas text over the presenter page's: its axis and the names in its bars
/// are what the back of the room reads (22 px at normal type).
const STORY_SCALE: f64 = 1.35;

/// Presenter mode's one chart: the Gantt chart, large (lanes of at least 60 px, text larger
/// still than the presenter's page), in the page's view; no inspector, histogram or tables
/// under it.
#[component]
pub fn StoryChart(props: &StoryChartProps) -> Html {
    let Some(shown) = props.shown.clone() else {
        return html! {
            <section class="charts" aria-label="Charts">
                <div class="chart-slot gantt-slot">{ "The Gantt chart appears when the first run finishes." }</div>
            </section>
        };
    };
    let view = &props.view;
    html! {
        <section class="charts story-chart" aria-label="Charts">
            <div class="chart-block gantt-block">
                <GanttChart data={shown.data.clone()} lanes={view.lanes} zoom={view.zoom}
                    cursor={view.cursor_ns}
                    selected={view.selected_task.clone().map(AttrValue::from)}
                    compared={crate::charts::compared(view)}
                    onview={props.onview.clone()}
                    type_scale={crate::state::type_scale(view) * STORY_SCALE} presenter=true />
            </div>
        </section>
    }
}
