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
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use super::palette::{self, css, css_alpha};
use super::{
    context_2d, device_pixel_ratio, offset, run_key, size_canvas, tooltip, use_element_width,
    BAR_STYLE, FRAME_STYLE,
};
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

fn lane_count(data: &RunData, mode: LaneMode) -> usize {
    match mode {
        LaneMode::Cpus => data.cpu_lanes.len(),
        LaneMode::Tasks => data.task_lanes.len().min(MAX_TASK_LANES),
    }
}

/// Draws the whole chart, with the time cursor if it is in the window and the selected task
/// (an index into `data.tasks`) picked out. Missing context or zero width: nothing to draw.
fn draw(
    canvas: &HtmlCanvasElement,
    data: &RunData,
    mode: LaneMode,
    window: Window,
    l: Layout,
    cursor: Option<u64>,
    selected: Option<u32>,
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
            LaneMode::Cpus => draw_cpu_lane(&ctx, l, data, &rects, top, scale, selected),
            LaneMode::Tasks => draw_task_lane(&ctx, l, data, lane, &rects, top, scale),
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
    data: &RunData,
    rects: &[schedlab::view::Rect],
    top: f64,
    scale: f64,
    selected: Option<u32>,
) {
    let mut last = u32::MAX;
    for r in rects {
        if r.key != last {
            let colour = palette::task(data.tasks.get(r.key as usize).map_or(r.key, |t| t.colour));
            // With a task selected, the others fade: where it ran stands out.
            let fill = match selected {
                Some(task) if task != r.key => css_alpha(colour, 0.3),
                _ => css(colour),
            };
            ctx.set_fill_style_str(&fill);
            last = r.key;
        }
        // At least one device pixel wide, so a short run never vanishes.
        let w = ((r.x1 - r.x0) * scale).max(scale);
        ctx.fill_rect(l.label_w + r.x0 * scale, top + 3.0, w, l.lane_h - 7.0);
    }
}

/// Task lanes: running solid, runnable-waiting a light tint, sleeping a thin grey line,
/// blocked a thicker dark line.
fn draw_task_lane(
    ctx: &CanvasRenderingContext2d,
    l: Layout,
    data: &RunData,
    task: usize,
    rects: &[schedlab::view::Rect],
    top: f64,
    scale: f64,
) {
    let colour = palette::task(data.tasks.get(task).map_or(task as u32, |t| t.colour));
    let solid = css(colour);
    let light = css_alpha(colour, 0.28);
    let sleep = css(palette::SLEEP);
    let blocked = css(palette::BLOCKED);
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
            ctx.set_fill_style_str(fill);
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

/// A pan in progress: where the drag started and the window then.
#[derive(Clone, Copy)]
struct Drag {
    x: f64,
    window: Window,
    moved: bool,
}

/// The Gantt chart's props: the run and how the page's view shows it.
#[derive(Properties, Clone)]
pub struct GanttProps {
    pub data: Rc<RunData>,
    /// Names a second copy (the pinned run's is "A"): shown in its title and suffixed to its
    /// canvas's `data-testid` (`gantt-a`).
    #[prop_or_default]
    pub label: Option<AttrValue>,
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
            data,
            label: None,
            lanes: LaneMode::default(),
            zoom: None,
            cursor: None,
            selected: None,
            onview: None,
            type_scale: 1.0,
            presenter: false,
        }
    }
}

/// The run is compared by pointer, as in [`super::ChartProps`].
impl PartialEq for GanttProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.data, &other.data)
            && self.label == other.label
            && self.lanes == other.lanes
            && self.zoom == other.zoom
            && self.cursor == other.cursor
            && self.selected == other.selected
            && self.onview == other.onview
            && self.type_scale == other.type_scale
            && self.presenter == other.presenter
    }
}

#[component]
pub fn GanttChart(props: &GanttProps) -> Html {
    let data = props.data.clone();
    let label = props.label.clone();
    let testid = match &label {
        Some(l) => format!("gantt-{}", l.to_lowercase()),
        None => "gantt".to_owned(),
    };
    let key = run_key(&data);
    let frame = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(frame.clone());
    let mode = props.lanes;
    let limit = data.shown_until_ns.max(1);
    // A drag in progress pans a window of its own, handed to the view on release.
    let panning = use_state_eq(|| None::<(usize, Window)>);
    let win = match *panning {
        Some((k, w)) if k == key => w,
        _ => Window::shown(props.zoom, limit),
    };
    let hover = use_state_eq(|| None::<((f64, f64), Vec<String>)>);
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
    let emit = {
        let onview = props.onview.clone();
        move |change: ViewChange| {
            if let Some(cb) = &onview {
                cb.emit(change);
            }
        }
    };

    {
        let canvas = canvas.clone();
        let data = data.clone();
        use_effect_with(
            (key, mode, win, width, dpr.to_bits(), cursor, selected),
            move |_| {
                if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                    if layout.width > 0.0 {
                        draw(&c, &data, mode, win, layout, cursor, selected);
                    }
                }
            },
        );
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

    // Arrow keys on the focused chart step the cursor from decision to decision.
    let onkeydown = {
        let data = data.clone();
        let onview = props.onview.clone();
        let cursor = props.cursor;
        Callback::from(move |e: KeyboardEvent| {
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
            aria-label={match &label { Some(l) => format!("Gantt chart {l}"), None => "Gantt chart".to_owned() }}
            data-lanes={lanes_attr}
            data-zoom={format!("{}-{}", win.start, win.end)}
            data-selected-task={props.selected.clone()}>
            <div class="chart-bar" style={BAR_STYLE}>
                <strong>
                    if let Some(l) = &label { <span class="run-label">{ l.clone() }</span>{ " " } }
                    { "Timeline" }
                </strong>
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
                    {onwheel} {onmousedown} {onmousemove} {onmouseup} {onmouseleave} {onkeydown} />
            </div>
            { legend(&data, mode, hidden_tasks, props.selected.as_deref(), on_select) }
            { tooltip(hover.as_ref().map(|h| h.0), hover.as_ref().map_or(&[][..], |h| &h.1[..])) }
        </section>
    }
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
                { swatch(css(palette::task(t.colour)), "none", 12) }{ name }
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
