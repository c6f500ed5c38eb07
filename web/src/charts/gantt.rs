//! The Gantt chart: one lane per CPU (bars coloured by task) or per task (its states), a time
//! axis, zoom (wheel, buttons), pan (drag), a tooltip with the task, interval, state and the
//! policy's note, the inspector's time cursor (a click sets it) and a selected task (picked in
//! the legend or by a task lane's label). What it shows comes in as props: the lanes, zoom
//! window, cursor and selected task are the page's view state (the reducer's, which share links
//! carry), and every change goes out through `onview`; only a drag in progress is kept here,
//! and is handed on when the button is released.
//! Drawn with plain 2D-canvas calls over `schedlab::view::lod`, which bounds the bars per lane
//! by the pixel width, so 100,000 segments draw as fast as 100.

use std::cell::RefCell;
use std::rc::Rc;

use schedlab::link::TimeWindow;
use schedlab::view::{format_ns, lod, time_ticks, LaneMode, RunData, SpanState, Window};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use super::palette::{self, css, css_alpha, Ink, TaskColours};
use super::{
    context_2d, device_pixel_ratio, offset, run_key, set_fill_style_js, size_canvas, tooltip,
    use_element_width, BAR_STYLE, FRAME_STYLE,
};
use crate::components::Shared;
use crate::hooks::use_deferred::{use_deferred, use_painted};
use crate::state::ViewChange;

/// Lane height in CSS pixels at normal type: fixed, so a new run never changes the row pitch.
const LANE_H: f64 = 26.0;
/// Lane height in presenter mode, readable from the back of a room.
const PRESENTER_LANE_H: f64 = 60.0;
/// The canvas text's size at normal type.
const FONT_PX: f64 = 13.0;
/// The time axis above the lanes.
const AXIS_H: f64 = 24.0;
/// The lane-label column.
const LABEL_W: f64 = 120.0;
const PAD_R: f64 = 12.0;
/// Lanes shown in task mode; more would make a canvas taller than browsers allow.
pub const MAX_TASK_LANES: usize = 200;
/// Visible height of the lanes before they scroll.
const SCROLL_H: u32 = 380;
/// Tasks listed in the legend before "and N more".
const LEGEND_MAX: usize = 32;

/// The chart's geometry for one draw, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Layout {
    width: f64,
    lanes: usize,
    dpr: f64,
    lane_h: f64,
    axis_h: f64,
    label_w: f64,
    font_px: f64,
}

impl Layout {
    /// The geometry for text `type_scale` times its normal size (large type, presenter mode;
    /// lane labels longer than the column are squeezed into it),
    /// the lanes at least [`PRESENTER_LANE_H`] tall when `presenter`.
    fn new(width: f64, lanes: usize, dpr: f64, type_scale: f64, presenter: bool) -> Layout {
        let lane_h = (LANE_H * type_scale).round();
        Layout {
            width,
            lanes,
            dpr,
            lane_h: if presenter {
                lane_h.max(PRESENTER_LANE_H)
            } else {
                lane_h
            },
            axis_h: (AXIS_H * type_scale).round(),
            // The label column stays: the machine chart under it shares its margins.
            label_w: LABEL_W,
            font_px: (FONT_PX * type_scale).round(),
        }
    }

    fn plot_w(self) -> f64 {
        (self.width - self.label_w - PAD_R).max(1.0)
    }
    fn height(self) -> f64 {
        self.axis_h + self.lanes as f64 * self.lane_h + 2.0
    }
    /// LOD and hit-testing work in device pixels: finer on high-DPI screens.
    fn device_w(self) -> u32 {
        (self.plot_w() * self.dpr).round().max(1.0) as u32
    }
}

/// What a draw was made from: the run, lanes, window, width, device pixel ratio (its bits),
/// cursor and selected task, and the task colours.
type Drawn = (
    (usize, LaneMode, Window, u32, u64, Option<u64>, Option<u32>),
    Rc<TaskColours>,
);

fn lane_count(data: &RunData, mode: LaneMode) -> usize {
    match mode {
        LaneMode::Cpus => data.cpu_lanes.len(),
        LaneMode::Tasks => data.task_lanes.len().min(MAX_TASK_LANES),
    }
}

/// Draws the whole chart, with the time cursor if it is in the window and the selected task
/// (an index into `data.tasks`) picked out, in `colours`. Missing context or zero width:
/// nothing to draw.
#[allow(clippy::too_many_arguments)]
fn draw(
    canvas: &HtmlCanvasElement,
    data: &RunData,
    mode: LaneMode,
    window: Window,
    l: Layout,
    cursor: Option<u64>,
    selected: Option<u32>,
    colours: &TaskColours,
) {
    size_canvas(canvas, l.width as u32, l.height() as u32, l.dpr);
    let Some(ctx) = context_2d(canvas, l.dpr) else {
        return;
    };
    ctx.set_fill_style_str(&css(palette::PAPER));
    ctx.fill_rect(0.0, 0.0, l.width, l.height());
    let plot_w = l.plot_w();
    let dw = l.device_w();
    let scale = 1.0 / l.dpr;

    // Grid and axis labels.
    ctx.set_font(&format!("{}px system-ui, sans-serif", l.font_px));
    ctx.set_text_baseline("middle");
    ctx.set_text_align("center");
    ctx.set_line_width(1.0);
    let max_ticks = (plot_w / 90.0).max(2.0) as u32;
    for tick in time_ticks(window, max_ticks) {
        let x = l.label_w + window.x(tick.time, plot_w);
        ctx.set_stroke_style_str(&css(palette::RULE));
        ctx.begin_path();
        ctx.move_to(x.round() + 0.5, l.axis_h - 4.0);
        ctx.line_to(x.round() + 0.5, l.height());
        ctx.stroke();
        ctx.set_fill_style_str(&css(palette::MUTED));
        let _ = ctx.fill_text(&tick.label, x, l.axis_h / 2.0);
    }

    // Lanes.
    ctx.set_text_align("left");
    for lane in 0..l.lanes {
        let top = l.axis_h + lane as f64 * l.lane_h;
        if mode == LaneMode::Tasks && selected == Some(lane as u32) {
            ctx.set_fill_style_str(&css_alpha(palette::INK, 0.08));
            ctx.fill_rect(0.0, top, l.width, l.lane_h);
        }
        ctx.set_stroke_style_str(&css(palette::RULE));
        ctx.begin_path();
        ctx.move_to(0.0, top + l.lane_h - 0.5);
        ctx.line_to(l.width, top + l.lane_h - 0.5);
        ctx.stroke();
        ctx.set_fill_style_str(&css(palette::INK));
        let label = data.lane_label(mode, lane);
        let _ = ctx.fill_text_with_max_width(&label, 8.0, top + l.lane_h / 2.0, l.label_w - 14.0);
        let Some(spans) = data.lanes(mode).get(lane) else {
            continue;
        };
        let rects = lod(spans, window, dw);
        match mode {
            LaneMode::Cpus => {
                draw_cpu_lane(&ctx, l, colours, &rects, top, scale);
                draw_names(&ctx, l, data, colours, &rects, top, scale);
            }
            LaneMode::Tasks => draw_task_lane(&ctx, l, colours, lane, &rects, top, scale),
        }
    }

    if let Some(t) = cursor.filter(|&t| window.start <= t && t <= window.end) {
        let x = (l.label_w + window.x(t, plot_w)).round();
        // Dark on a light halo: it reads over every task colour and on a projector.
        for (colour, width) in [(palette::PAPER, 4.0), (palette::INK, 2.0)] {
            ctx.set_stroke_style_str(&css(colour));
            ctx.set_line_width(width);
            ctx.begin_path();
            ctx.move_to(x, 0.0);
            ctx.line_to(x, l.height());
            ctx.stroke();
        }
        ctx.set_line_width(1.0);
    }
}

fn draw_cpu_lane(
    ctx: &CanvasRenderingContext2d,
    l: Layout,
    colours: &TaskColours,
    rects: &[schedlab::view::Rect],
    top: f64,
    scale: f64,
) {
    // Tasks share nine colours: the style changes only with the ink, and each ink's text is
    // made and handed to JavaScript once a lane (a contest run's lane switches task at almost
    // every bar).
    let mut styles: Vec<(Ink, js_sys::JsString)> = Vec::new();
    let mut last = None;
    for r in rects {
        // With tasks picked out, the others fade: where they ran stands out.
        let ink = colours.of(r.key);
        if last != Some(ink) {
            let at = match styles.iter().position(|(i, _)| *i == ink) {
                Some(at) => at,
                None => {
                    styles.push((ink, ink.css().into()));
                    styles.len() - 1
                }
            };
            set_fill_style_js(ctx, &styles[at].1);
            last = Some(ink);
        }
        // At least one device pixel wide, so a short run never vanishes.
        let w = ((r.x1 - r.x0) * scale).max(scale);
        ctx.fill_rect(l.label_w + r.x0 * scale, top + 3.0, w, l.lane_h - 7.0);
    }
}

/// Writes each task's name inside its bars where the name fits (CPU lanes: a bar is a task).
/// Neighbouring rects of the same task, which the level of detail splits per pixel column, count
/// as one bar.
fn draw_names(
    ctx: &CanvasRenderingContext2d,
    l: Layout,
    data: &RunData,
    colours: &TaskColours,
    rects: &[schedlab::view::Rect],
    top: f64,
    scale: f64,
) {
    let font_px = (l.font_px - 1.0).max(1.0);
    ctx.set_font(&format!("{font_px}px system-ui, sans-serif"));
    let mut i = 0;
    while i < rects.len() {
        let key = rects[i].key;
        let x0 = rects[i].x0;
        let mut x1 = rects[i].x1;
        let mut j = i + 1;
        while j < rects.len() && rects[j].key == key && rects[j].x0 - x1 < 0.5 {
            x1 = rects[j].x1;
            j += 1;
        }
        i = j;
        let w = (x1 - x0) * scale;
        if w < 24.0 {
            continue;
        }
        let name = data.task_name(key);
        // system-ui averages under 0.58 em a character; the max width clips the rare wider one.
        let text_w = name.chars().count() as f64 * font_px * 0.58;
        if text_w + 8.0 > w {
            continue;
        }
        let ink = colours.of(key);
        let text = if ink.faded {
            palette::MUTED
        } else {
            palette::on(ink.colour)
        };
        ctx.set_fill_style_str(&css(text));
        let _ = ctx.fill_text_with_max_width(
            &name,
            l.label_w + x0 * scale + 4.0,
            top + (l.lane_h - 4.0) / 2.0 + 0.5,
            w - 8.0,
        );
    }
    ctx.set_font(&format!("{}px system-ui, sans-serif", l.font_px));
}

/// Task lanes: running solid, runnable-waiting a light tint, sleeping a thin grey line,
/// blocked a thicker dark line.
fn draw_task_lane(
    ctx: &CanvasRenderingContext2d,
    l: Layout,
    colours: &TaskColours,
    task: usize,
    rects: &[schedlab::view::Rect],
    top: f64,
    scale: f64,
) {
    // The lane's four styles, handed to JavaScript once: a task's state changes at almost
    // every bar of a busy run.
    let ink = colours.of(task as u32);
    let solid = js_sys::JsString::from(ink.css());
    let light = js_sys::JsString::from(ink.css_alpha(0.28));
    let sleep = js_sys::JsString::from(css(palette::SLEEP));
    let blocked = js_sys::JsString::from(css(palette::BLOCKED));
    let mid = top + (l.lane_h - 4.0) / 2.0;
    let mut last = u32::MAX;
    for r in rects {
        let Some(state) = SpanState::from_code(r.key) else {
            continue;
        };
        let (fill, y, h) = match state {
            SpanState::Running => (&solid, top + 3.0, l.lane_h - 7.0),
            SpanState::Waiting => (&light, top + 3.0, l.lane_h - 7.0),
            SpanState::Sleeping => (&sleep, mid - 1.0, 2.0),
            _ => (&blocked, mid - 2.0, 4.0),
        };
        if r.key != last {
            set_fill_style_js(ctx, fill);
            last = r.key;
        }
        let w = ((r.x1 - r.x0) * scale).max(scale);
        ctx.fill_rect(l.label_w + r.x0 * scale, y, w, h);
    }
}

/// Tooltip lines for what is under the pointer.
fn hover_lines(
    data: &RunData,
    mode: LaneMode,
    window: Window,
    l: Layout,
    x: f64,
    y: f64,
) -> Option<Vec<String>> {
    if y < l.axis_h || x < l.label_w {
        return None;
    }
    let lane = ((y - l.axis_h) / l.lane_h) as usize;
    if lane >= l.lanes {
        return None;
    }
    let hit = data.hit(mode, lane, window, l.device_w(), (x - l.label_w) * l.dpr)?;
    let mut lines = vec![data.task_name(hit.task)];
    let state = match hit.cpu {
        Some(cpu) => format!("{} on cpu{cpu}", hit.state.name()),
        None => hit.state.name().to_string(),
    };
    lines.push(state);
    lines.push(format!(
        "{} – {} ({})",
        format_ns(hit.start),
        format_ns(hit.end),
        format_ns(hit.end - hit.start)
    ));
    if let Some(note) = hit.note {
        lines.push(format!(
            "at {} (cpu{}): {}",
            format_ns(note.time),
            note.cpu,
            note.text
        ));
    }
    Some(lines)
}

/// The tooltip shown: where (viewport pixels) and its lines.
type Hover = Option<((f64, f64), Vec<String>)>;

/// A pan in progress: where the drag started and the window then.
#[derive(Clone, Copy)]
struct Drag {
    x: f64,
    window: Window,
    moved: bool,
}

/// The Gantt chart's props: the run (compared by pointer, `Shared`) and how the page's view
/// shows it.
#[derive(Properties, Clone, PartialEq)]
pub struct GanttProps {
    pub data: Shared<RunData>,
    /// Names a copy: the pinned run's is "A", shown in its title and suffixed to its canvas's
    /// `data-testid` (`gantt-a`); the live run is "B" in compare mode, its hooks unchanged.
    #[prop_or_default]
    pub label: Option<AttrValue>,
    /// A line beside the title saying what this run is (compare mode: its policy and tunables).
    #[prop_or_default]
    pub caption: Option<AttrValue>,
    /// The length of the time axis (ns) when it is shared with another run's chart (compare
    /// mode: the longer of A and B), so the same instant sits at the same x in both; `None`:
    /// this run's own length.
    #[prop_or_default]
    pub span: Option<u64>,
    #[prop_or_default]
    pub lanes: LaneMode,
    /// The time window; `None` (or a window past this run) shows the whole run.
    #[prop_or_default]
    pub zoom: Option<TimeWindow>,
    /// The inspector's time cursor (ns).
    #[prop_or_default]
    pub cursor: Option<u64>,
    /// The selected task's name.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    /// The tasks compared with the selected one, by name: coloured apart too.
    #[prop_or_default]
    pub compared: Vec<AttrValue>,
    /// Where the chart's changes of the view go; without it the chart only draws.
    #[prop_or_default]
    pub onview: Option<Callback<ViewChange>>,
    /// The page's type size over its normal one (large type, presenter mode): the canvas's
    /// text and lanes follow it. Below 1 counts as 1.
    #[prop_or(1.0)]
    pub type_scale: f64,
    /// Presenter mode: lanes at least 60 px tall.
    #[prop_or_default]
    pub presenter: bool,
}

impl GanttProps {
    /// The chart of `data` in the default view, changing nothing.
    pub fn of(data: Rc<RunData>) -> GanttProps {
        GanttProps {
            data: data.into(),
            label: None,
            caption: None,
            span: None,
            lanes: LaneMode::default(),
            zoom: None,
            cursor: None,
            selected: None,
            compared: Vec::new(),
            onview: None,
            type_scale: 1.0,
            presenter: false,
        }
    }
}

#[component]
pub fn GanttChart(props: &GanttProps) -> Html {
    let data = props.data.clone();
    let label = props.label.clone();
    // The live run keeps the plain hooks (`gantt`) even when labelled B in compare mode.
    let testid = match &label {
        Some(l) if l.as_str() != "B" => format!("gantt-{}", l.to_ascii_lowercase()),
        _ => "gantt".to_owned(),
    };
    let key = run_key(&data);
    let frame = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(frame.clone());
    let mode = props.lanes;
    let limit = props.span.unwrap_or(data.shown_until_ns).max(1);
    // A drag in progress pans a window of its own, handed to the view on release.
    let panning = use_state_eq(|| None::<(usize, Window)>);
    let win = match *panning {
        Some((k, w)) if k == key => w,
        _ => Window::shown(props.zoom, limit),
    };
    let hover = use_state_eq(|| -> Hover { None });
    use_dismiss_tooltip(hover.clone(), canvas.clone());
    let drag = use_mut_ref(|| None::<Drag>);
    let dpr = device_pixel_ratio();
    let layout = Layout::new(
        width as f64,
        lane_count(&data, mode),
        dpr,
        props.type_scale.max(1.0),
        props.presenter,
    );
    let cursor = props.cursor;
    let selected = props
        .selected
        .as_ref()
        .and_then(|name| data.tasks.iter().position(|t| t.name == name.as_str()))
        .map(|i| i as u32);
    let colours = use_memo(
        (key, props.selected.clone(), props.compared.clone()),
        |(_, selected, compared)| {
            TaskColours::new(
                &data,
                selected.as_deref(),
                compared.iter().map(|c| c.as_str()),
            )
        },
    );
    let emit = {
        let onview = props.onview.clone();
        move |change: ViewChange| {
            if let Some(cb) = &onview {
                cb.emit(change);
            }
        }
    };

    // What the canvas shows (what it was drawn from), so no draw is made twice.
    let shows = use_mut_ref(|| None::<Drawn>);
    {
        let canvas = canvas.clone();
        let data = data.clone();
        let shows = shows.clone();
        let drawn = (key, mode, win, width, dpr.to_bits(), cursor, selected);
        use_effect_with((drawn, colours.clone()), move |what| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                if layout.width > 0.0 && shows.borrow().as_ref() != Some(what) {
                    draw(&c, &data, mode, win, layout, cursor, selected, &what.1);
                    *shows.borrow_mut() = Some(what.clone());
                }
            }
        });
    }
    // The first draw is made in the first frame's animation callback, where the chart's width is
    // read (a layout the frame makes anyway): Yew runs effects, and so the one above, only after
    // yielding to the browser once a long render ends, as the page's first does, and that frame
    // would be painted without the chart. The effect then finds it drawn.
    {
        let (canvas, frame, data, shows) =
            (canvas.clone(), frame.clone(), data.clone(), shows.clone());
        let colours = colours.clone();
        let (type_scale, presenter) = (props.type_scale.max(1.0), props.presenter);
        use_memo((), move |_| {
            crate::hooks::on_next_frame(Box::new(move || {
                let (Some(c), Some(f)) = (
                    canvas.cast::<HtmlCanvasElement>(),
                    frame.cast::<web_sys::Element>(),
                ) else {
                    return;
                };
                if shows.borrow().is_some() {
                    return;
                }
                let width = f.client_width().max(0) as u32;
                let lanes = lane_count(&data, mode);
                let layout = Layout::new(width as f64, lanes, dpr, type_scale, presenter);
                if width > 0 {
                    draw(&c, &data, mode, win, layout, cursor, selected, &colours);
                    let drawn = (key, mode, win, width, dpr.to_bits(), cursor, selected);
                    *shows.borrow_mut() = Some((drawn, colours));
                }
            }));
        });
    }

    let set_window = {
        let emit = emit.clone();
        let full = Window::new(0, limit);
        move |w: Window| {
            emit(ViewChange::SetZoom((w != full).then_some(TimeWindow {
                start_ns: w.start,
                end_ns: w.end,
            })))
        }
    };

    let onwheel = {
        let set_window = set_window.clone();
        Callback::from(move |e: WheelEvent| {
            e.prevent_default();
            let (x, _) = offset(&e);
            let at = win.time_at(x - layout.label_w, layout.plot_w());
            let factor = if e.delta_y() > 0.0 { 1.25 } else { 0.8 };
            set_window(win.zoom(factor, at, limit));
        })
    };
    let onmousedown = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| {
            let (x, _) = offset(&e);
            *drag.borrow_mut() = Some(Drag {
                x,
                window: win,
                moved: false,
            });
        })
    };
    let onmousemove = {
        let drag = drag.clone();
        let hover = hover.clone();
        let data = data.clone();
        let panning = panning.clone();
        Callback::from(move |e: MouseEvent| {
            let (x, y) = offset(&e);
            let pan = drag_pan(&drag, x, e.buttons(), layout.plot_w());
            if let Some(w) = pan {
                hover.set(None);
                panning.set(Some((key, w.0.pan(w.1, limit))));
                return;
            }
            match hover_lines(&data, mode, win, layout, x, y) {
                Some(lines) => hover.set(Some(((e.client_x() as f64, e.client_y() as f64), lines))),
                None => hover.set(None),
            }
        })
    };
    // A press and release without a drag in between is a click: on the plot it sets the time
    // cursor, on a task lane's label it selects the task. The end of a drag hands its window on.
    let onmouseup = {
        let drag = drag.clone();
        let panning = panning.clone();
        let emit = emit.clone();
        let set_window = set_window.clone();
        let data = data.clone();
        Callback::from(move |e: MouseEvent| {
            let pressed = drag.borrow_mut().take();
            let (x, y) = offset(&e);
            if let Some((_, w)) = *panning {
                set_window(w);
                panning.set(None);
            }
            let Some(d) = pressed.filter(|d| !d.moved && e.button() == 0) else {
                return;
            };
            if x >= layout.label_w {
                let t = win.time_at(x - layout.label_w, layout.plot_w());
                // Whole microseconds: what the inspector's "time (ms)" field shows.
                let t = (t + 500) / 1_000 * 1_000;
                emit(ViewChange::SetCursor(Some(t.min(limit))));
            } else if mode == LaneMode::Tasks && y >= layout.axis_h && d.x < layout.label_w {
                let lane = ((y - layout.axis_h) / layout.lane_h) as usize;
                if let Some(t) = data.tasks.get(lane).filter(|_| lane < layout.lanes) {
                    emit(ViewChange::SelectTask(Some(t.name.clone())));
                }
            }
        })
    };
    let onmouseleave = {
        let drag = drag.clone();
        let hover = hover.clone();
        let panning = panning.clone();
        let set_window = set_window.clone();
        Callback::from(move |_: MouseEvent| {
            drag.borrow_mut().take();
            hover.set(None);
            if let Some((_, w)) = *panning {
                set_window(w);
                panning.set(None);
            }
        })
    };
    let zoom_by = |factor: f64| {
        let set_window = set_window.clone();
        Callback::from(move |_: MouseEvent| {
            set_window(win.zoom(factor, win.start / 2 + win.end / 2, limit));
        })
    };
    let reset = {
        let emit = emit.clone();
        Callback::from(move |_: MouseEvent| emit(ViewChange::SetZoom(None)))
    };
    let set_mode = |m: LaneMode| {
        let emit = emit.clone();
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| {
            hover.set(None);
            emit(ViewChange::SetLanes(m));
        })
    };
    let on_select = {
        let emit = emit.clone();
        Callback::from(move |name: String| emit(ViewChange::SelectTask(Some(name))))
    };

    let name = match &label {
        Some(l) => format!("Gantt chart {l}"),
        None => "Gantt chart".to_owned(),
    };
    let text_id = format!("{testid}-text");
    let canvas_label =
        format!(
        "{name}: {} {} lane{}, {} to {}; the segments shown are listed in the table that follows",
        layout.lanes,
        if mode == LaneMode::Cpus { "CPU" } else { "task" },
        if layout.lanes == 1 { "" } else { "s" },
        format_ns(win.start),
        format_ns(win.end)
    );
    let text = html! {
        <TextAlternative data={data.clone()} {mode} window={win} lanes={layout.lanes}
            id={AttrValue::from(text_id.clone())} name={AttrValue::from(name.clone())} />
    };
    let css_h = layout.height() as u32;
    let canvas_style = format!(
        "display:block;width:100%;height:{css_h}px;cursor:{};touch-action:none",
        if (*drag.borrow()).is_some_and(|d| d.moved) {
            "grabbing"
        } else {
            "crosshair"
        }
    );
    let pressed = |m: LaneMode| if mode == m { "true" } else { "false" };
    let hidden_tasks = data.task_lanes.len().saturating_sub(MAX_TASK_LANES);
    let lanes_attr = match mode {
        LaneMode::Cpus => "cpu",
        LaneMode::Tasks => "task",
    };

    // Escape dismisses a tapped tooltip; arrow keys on the focused chart step the cursor from
    // decision to decision.
    let onkeydown = {
        let data = data.clone();
        let onview = props.onview.clone();
        let cursor = props.cursor;
        let hover = hover.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                hover.set(None);
                return;
            }
            let Some(onview) = &onview else { return };
            let decisions = data.decisions();
            let key = e.key();
            if let Some(t) = schedlab::playback::scrub(&decisions, cursor, &key, e.shift_key()) {
                e.prevent_default();
                onview.emit(ViewChange::SetCursor(Some(t)));
            }
        })
    };

    html! {
        <section class="chart chart-gantt" style={FRAME_STYLE}
            aria-label={name.clone()}
            data-lanes={lanes_attr}
            data-zoom={format!("{}-{}", win.start, win.end)}
            data-selected-task={props.selected.clone()}>
            <div class="chart-bar" style={BAR_STYLE}>
                <strong>
                    if let Some(l) = &label { <span class="run-label">{ l.clone() }</span>{ " " } }
                    { "Timeline" }
                </strong>
                if let Some(c) = &props.caption {
                    <span class="gantt-caption" data-testid={format!("{testid}-caption")}>{ c.clone() }</span>
                }
                <span role="group" aria-label="Lanes">
                    <button type="button" data-lanes="cpu" aria-pressed={pressed(LaneMode::Cpus)} onclick={set_mode(LaneMode::Cpus)}>{ "CPUs" }</button>
                    <button type="button" data-lanes="task" aria-pressed={pressed(LaneMode::Tasks)} onclick={set_mode(LaneMode::Tasks)}>{ "Tasks" }</button>
                </span>
                <span role="group" aria-label="Zoom">
                    <button type="button" title="Zoom in" aria-label="Zoom in" onclick={zoom_by(0.5)}>{ "+" }</button>
                    <button type="button" title="Zoom out" aria-label="Zoom out" onclick={zoom_by(2.0)}>{ "−" }</button>
                    <button type="button" onclick={reset}>{ "Reset" }</button>
                </span>
                <span style="color:#5a6473;font-variant-numeric:tabular-nums">
                    { format!("{} – {}", format_ns(win.start), format_ns(win.end)) }
                </span>
            </div>
            <div ref={frame.clone()} style={format!("max-height:{SCROLL_H}px;overflow-y:auto;overflow-x:hidden")}>
                <canvas ref={canvas} data-testid={testid} style={canvas_style} tabindex="0"
                    role="img" aria-label={canvas_label} aria-describedby={text_id}
                    {onwheel} {onmousedown} {onmousemove} {onmouseup} {onmouseleave} {onkeydown} />
            </div>
            { text }
            { legend(&data, &colours, mode, hidden_tasks, props.selected.as_deref(), on_select) }
            { tooltip(hover.as_ref().map(|h| h.0), hover.as_ref().map_or(&[][..], |h| &h.1[..])) }
        </section>
    }
}

/// The chart as a standalone SVG document `width` CSS pixels wide, drawn from the same data and
/// level of detail as the canvas: the time axis, a label and the bars of each lane, the names
/// that fit, in the view's `colours`.
pub fn svg(
    data: &RunData,
    colours: &TaskColours,
    mode: LaneMode,
    window: Window,
    width: u32,
) -> String {
    use std::fmt::Write;
    let l = Layout::new(
        f64::from(width.max(200)),
        lane_count(data, mode),
        1.0,
        1.0,
        false,
    );
    let (w, h) = (l.width, l.height());
    let plot_w = l.plot_w();
    let esc = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="system-ui, sans-serif" font-size="13">"#
    );
    let _ = write!(
        out,
        r#"<rect width="{w}" height="{h}" fill="{}"/>"#,
        css(palette::PAPER)
    );
    let max_ticks = (plot_w / 90.0).max(2.0) as u32;
    for tick in time_ticks(window, max_ticks) {
        let x = LABEL_W + window.x(tick.time, plot_w);
        let _ = write!(
            out,
            r#"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{h}" stroke="{}"/><text x="{x:.1}" y="{}" text-anchor="middle" dominant-baseline="middle" fill="{}">{}</text>"#,
            AXIS_H - 4.0,
            css(palette::RULE),
            AXIS_H / 2.0,
            css(palette::MUTED),
            esc(&tick.label)
        );
    }
    for lane in 0..l.lanes {
        let top = AXIS_H + lane as f64 * LANE_H;
        let _ = write!(
            out,
            r#"<line x1="0" y1="{y}" x2="{w}" y2="{y}" stroke="{}"/><text x="8" y="{}" dominant-baseline="middle" fill="{}">{}</text>"#,
            css(palette::RULE),
            top + LANE_H / 2.0,
            css(palette::INK),
            esc(&data.lane_label(mode, lane)),
            y = top + LANE_H - 0.5
        );
        let Some(spans) = data.lanes(mode).get(lane) else {
            continue;
        };
        for r in lod(spans, window, l.device_w()) {
            let (fill, y, bh) = match mode {
                LaneMode::Cpus => (colours.of(r.key).css(), top + 3.0, LANE_H - 7.0),
                LaneMode::Tasks => {
                    let c = colours.of(lane as u32);
                    let mid = top + (LANE_H - 4.0) / 2.0;
                    match SpanState::from_code(r.key) {
                        Some(SpanState::Running) => (c.css(), top + 3.0, LANE_H - 7.0),
                        Some(SpanState::Waiting) => (c.css_alpha(0.28), top + 3.0, LANE_H - 7.0),
                        Some(SpanState::Sleeping) => (css(palette::SLEEP), mid - 1.0, 2.0),
                        Some(_) => (css(palette::BLOCKED), mid - 2.0, 4.0),
                        None => continue,
                    }
                }
            };
            let _ = write!(
                out,
                r#"<rect x="{:.2}" y="{y}" width="{:.2}" height="{bh}" fill="{fill}"/>"#,
                LABEL_W + r.x0,
                (r.x1 - r.x0).max(1.0)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

/// Rows at most in the text alternative: a screen reader's table, not a dump of the trace.
pub const TEXT_ROWS: usize = 60;

/// What the text alternative lists: the run's segments in a window.
#[derive(Properties, Clone, PartialEq)]
struct TextProps {
    data: Shared<RunData>,
    mode: LaneMode,
    window: Window,
    lanes: usize,
    id: AttrValue,
    name: AttrValue,
}

/// The chart's text alternative ([`text_alternative`]), following what the canvas shows once
/// the canvas's frame has been painted (`use_deferred`): its rows are not rebuilt before a
/// slider's redrawn chart is on screen.
#[component]
fn TextAlternative(props: &TextProps) -> Html {
    // Its rows (up to [`TEXT_ROWS`] of them, a few hundred elements, half of the page's first
    // render) come once the chart's first frame has been painted: the page's first chart does
    // not wait for their DOM and layout. The table, its name and caption are there at once.
    let painted = use_painted();
    let now = use_deferred(Some(props.clone())).unwrap_or_else(|| props.clone());
    html! { <TextTable text={now} rows={painted} /> }
}

#[derive(Properties, Clone, PartialEq)]
struct TextTableProps {
    text: TextProps,
    rows: bool,
}

#[component]
fn TextTable(props: &TextTableProps) -> Html {
    let t = &props.text;
    text_alternative(
        &t.data, t.mode, t.window, t.lanes, &t.id, &t.name, props.rows,
    )
}

/// The text alternative of the chart: a visually hidden table of the segments in the window,
/// lane by lane, at most [`TEXT_ROWS`] rows, with a last row counting the rest; without
/// `with_rows`, the table and its caption only.
fn text_alternative(
    data: &RunData,
    mode: LaneMode,
    window: Window,
    lanes: usize,
    id: &str,
    name: &str,
    with_rows: bool,
) -> Html {
    let mut rows = Vec::new();
    let mut more = 0usize;
    for lane in (0..lanes).filter(|_| with_rows) {
        let Some(spans) = data.lanes(mode).get(lane) else {
            continue;
        };
        let first = spans.end.partition_point(|&e| e <= window.start);
        let last = spans.start.partition_point(|&s| s < window.end).max(first);
        let room = TEXT_ROWS.saturating_sub(rows.len());
        more += (last - first).saturating_sub(room);
        for i in first..last.min(first + room) {
            let (what, state) = match mode {
                LaneMode::Cpus => (data.task_name(spans.key[i]), "running".to_owned()),
                LaneMode::Tasks => (
                    data.lane_label(mode, lane),
                    SpanState::from_code(spans.key[i])
                        .map_or("", |s| s.name())
                        .to_owned(),
                ),
            };
            rows.push(html! {
                <tr>
                    <td>{ data.lane_label(mode, lane) }</td>
                    <td>{ what }</td>
                    <td>{ state }</td>
                    <td>{ format_ns(spans.start[i]) }</td>
                    <td>{ format_ns(spans.end[i]) }</td>
                </tr>
            });
        }
    }
    html! {
        <table class="visually-hidden" id={id.to_owned()} data-testid={id.to_owned()}>
            <caption>{ format!("{name}, segments from {} to {}", format_ns(window.start), format_ns(window.end)) }</caption>
            <thead>
                <tr>
                    <th scope="col">{ "Lane" }</th>
                    <th scope="col">{ "Task" }</th>
                    <th scope="col">{ "State" }</th>
                    <th scope="col">{ "From" }</th>
                    <th scope="col">{ "To" }</th>
                </tr>
            </thead>
            <tbody>
                { for rows }
                if more > 0 {
                    <tr data-more={more.to_string()}><td colspan="5">{ format!("and {more} more segments; zoom in to list them") }</td></tr>
                }
            </tbody>
        </table>
    }
}

/// A tooltip a tap left open goes when the page scrolls, a press lands outside the chart or
/// Escape is pressed: on a phone there is no pointer leaving the chart to close it.
#[hook]
fn use_dismiss_tooltip(hover: UseStateHandle<Hover>, canvas: NodeRef) {
    let open = hover.is_some();
    use_effect_with(open, move |&open| {
        let mut listeners = Vec::new();
        if open {
            let close = {
                let hover = hover.clone();
                move || hover.set(None)
            };
            let on_scroll = {
                let close = close.clone();
                Closure::<dyn FnMut(web_sys::Event)>::new(move |_| close())
            };
            let on_press = {
                let close = close.clone();
                Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                    let inside = canvas
                        .get()
                        .zip(e.target().and_then(|t| t.dyn_into::<web_sys::Node>().ok()))
                        .is_some_and(|(c, t)| c.contains(Some(&t)));
                    if !inside {
                        close();
                    }
                })
            };
            let on_key = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                if e.dyn_ref::<web_sys::KeyboardEvent>()
                    .is_some_and(|k| k.key() == "Escape")
                {
                    close();
                }
            });
            listeners.push(("scroll", on_scroll));
            listeners.push(("pointerdown", on_press));
            listeners.push(("keydown", on_key));
        }
        crate::hooks::listen_on_window(listeners)
    });
}

/// Applies a drag: `Some((window at drag start, shift in ns))` while the left button is held.
fn drag_pan(
    drag: &Rc<RefCell<Option<Drag>>>,
    x: f64,
    buttons: u16,
    plot_w: f64,
) -> Option<(Window, i64)> {
    let mut d = drag.borrow_mut();
    if buttons & 1 == 0 {
        d.take();
        return None;
    }
    let g = d.as_mut()?;
    let dx = x - g.x;
    if !g.moved && dx.abs() < 3.0 {
        return None;
    }
    g.moved = true;
    let dt = -(dx / plot_w * g.window.span() as f64) as i64;
    Some((g.window, dt))
}

fn swatch(fill: String, border: &str, h: u32) -> Html {
    html! {
        <span aria-hidden="true" style={format!(
            "display:inline-block;width:1.1rem;height:{h}px;background:{fill};border:{border};\
             vertical-align:middle;margin-right:0.3rem"
        )} />
    }
}

/// The legend: each task is a toggle that selects it (again: clears the selection).
fn legend(
    data: &RunData,
    colours: &TaskColours,
    mode: LaneMode,
    hidden_tasks: usize,
    selected: Option<&str>,
    on_select: Callback<String>,
) -> Html {
    let style = "display:flex;flex-wrap:wrap;gap:0.25rem 1rem;font-size:0.85rem;\
                 max-height:4.5rem;overflow-y:auto;margin-top:0.4rem";
    let tasks = data.tasks.iter().take(LEGEND_MAX).map(|t| {
        let name = t.name.clone();
        let is_selected = selected == Some(t.name.as_str());
        let onclick = {
            let on_select = on_select.clone();
            let name = name.clone();
            Callback::from(move |_: MouseEvent| on_select.emit(name.clone()))
        };
        html! {
            <button type="button" class={classes!("legend-task", is_selected.then_some("selected"))}
                data-task={name.clone()} aria-pressed={if is_selected { "true" } else { "false" }}
                title="Select this task in the charts and tables (again: clear)" {onclick}>
                { swatch(colours.of(t.id).css(), "none", 12) }{ name }
            </button>
        }
    });
    let more = data.tasks.len().saturating_sub(LEGEND_MAX);
    let states = if mode == LaneMode::Tasks {
        let ink = palette::task(0);
        html! {
            <>
                <span>{ swatch(css(ink), "none", 12) }{ "running" }</span>
                <span>{ swatch(css_alpha(ink, 0.28), "none", 12) }{ "runnable, waiting" }</span>
                <span>{ swatch(css(palette::SLEEP), "none", 2) }{ "sleeping" }</span>
                <span>{ swatch(css(palette::BLOCKED), "none", 4) }{ "blocked (disk, channel, child)" }</span>
            </>
        }
    } else {
        html! {}
    };
    html! {
        <div class="chart-legend" style={style} tabindex="0" role="region" aria-label="Legend of the Gantt chart (scrollable)">
            { for tasks }
            if more > 0 { <span>{ format!("and {more} more") }</span> }
            { states }
            if mode == LaneMode::Tasks && hidden_tasks > 0 {
                <span>{ format!("first {MAX_TASK_LANES} tasks shown") }</span>
            }
            if data.shown_until_ns < data.end_ns {
                <span>{ format!("trace shown up to {} of {}", format_ns(data.shown_until_ns), format_ns(data.end_ns)) }</span>
            }
        </div>
    }
}
