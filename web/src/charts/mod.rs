//! The run's charts: the Gantt chart (plain 2D-canvas calls, it must stay fast at 100,000
//! segments), the machine chart under it on the same time axis (plain canvas too, shown when
//! the scenario has a machine) and three plotters-canvas charts (latency histogram, CPU share vs entitlement, the
//! policy's observed value over time); and the sweep panel's plot of one metric over a tunable.
//!
//! Every run chart takes an `Rc<RunData>` and draws from the models in `schedlab::view` (the
//! sweep plot takes the sweep, with its axes from `schedlab::sweep::plot_bounds`); nothing
//! here computes chart data. Each plotters chart has a `draw` function taking the data and any
//! plotters backend that returns the pixel↔data mapping its hover uses.
//!
//! Canvases keep a fixed CSS height and follow their container's width (a `ResizeObserver`),
//! and draw at `devicePixelRatio` so text stays sharp on a projector or a laptop screen.

pub mod backend;
pub mod gantt;
pub mod latency;
pub mod machine;
pub mod observed;
pub mod palette;
pub mod share;
pub mod sweep;

use std::rc::Rc;

use schedlab::view::RunData;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ResizeObserver, ResizeObserverEntry};
use yew::prelude::*;

use crate::components::Shared;

pub use gantt::{GanttChart, GanttProps};
pub use latency::LatencyHistogram;
pub use machine::MachineChart;
pub use observed::ObservedChart;
pub use share::ShareChart;
pub use sweep::{SweepChart, SweepChartProps};

/// Where a bar chart's `draw` put each bar: `(x0, x1)` in backend pixels, parallel to the bars
/// drawn, for hovering.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BarMap {
    pub bars: Vec<(i32, i32)>,
}

impl BarMap {
    /// Where the `n` bars of a chart over a segmented axis `0..n` were drawn.
    pub fn of_segments<DB, Y>(
        chart: &plotters::chart::ChartContext<
            '_,
            DB,
            plotters::coord::cartesian::Cartesian2d<
                plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordu32>,
                Y,
            >,
        >,
        n: u32,
    ) -> BarMap
    where
        DB: plotters::prelude::DrawingBackend,
        Y: plotters::coord::ranged1d::Ranged,
        Y::ValueType: Default,
    {
        use plotters::coord::ranged1d::SegmentValue;
        let x = |i| {
            chart
                .backend_coord(&(SegmentValue::Exact(i), Y::ValueType::default()))
                .0
        };
        BarMap {
            bars: (0..n).map(|i| (x(i), x(i + 1))).collect(),
        }
    }

    /// The bar under backend pixel `x`.
    pub fn bar_at(&self, x: i32) -> Option<usize> {
        self.bars.iter().position(|&(a, b)| a <= x && x < b)
    }
}

/// A `<select>` of tasks: sets `chosen` to the picked task id, tagged with the run `key` it was
/// picked in (so a new run falls back to the chart's default).
pub fn on_task_select<K: Copy + 'static>(
    chosen: &yew::UseStateHandle<(K, Option<u32>)>,
    key: K,
) -> yew::Callback<yew::Event> {
    use yew::TargetCast;
    let chosen = chosen.clone();
    yew::Callback::from(move |e: yew::Event| {
        let value = e
            .target_dyn_into::<web_sys::HtmlSelectElement>()
            .and_then(|s| s.value().parse::<u32>().ok());
        chosen.set((key, value));
    })
}

/// Props of every chart: the run. Compared by pointer, not by content (`Shared`): a new run is
/// a new `Rc`, and comparing 100,000 segments on every parent render would cost more than
/// drawing them.
#[derive(Properties, Clone, PartialEq)]
pub struct ChartProps {
    pub data: Shared<RunData>,
    /// Names a second copy of a chart (the Gantt chart of a pinned run is "A"): shown in its
    /// title and suffixed to its canvas's `data-testid` (`gantt-a`), so the hooks stay unique.
    #[prop_or_default]
    pub label: Option<AttrValue>,
    /// The task in focus (the view's selected task), by name, for the charts that pick a task.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    /// The tasks compared with the one in focus (the view's compared tasks), by name.
    #[prop_or_default]
    pub compared: Vec<AttrValue>,
    /// Where a chart's pick of a task goes (the view's selected task); without it the pick is
    /// the chart's own.
    #[prop_or_default]
    pub onview: Option<Callback<crate::state::ViewChange>>,
}

impl ChartProps {
    /// The run's task colours with the task in focus and the compared ones picked out.
    pub fn colours(&self) -> palette::TaskColours {
        palette::TaskColours::new(
            &self.data,
            self.selected.as_deref(),
            self.compared.iter().map(|c| c.as_str()),
        )
    }
}

/// The view's compared tasks as chart props.
pub fn compared(view: &schedlab::link::ViewState) -> Vec<AttrValue> {
    view.compared_tasks
        .iter()
        .map(|t| AttrValue::from(t.clone()))
        .collect()
}

/// A chart drawn by `draw` on plotters' SVG backend (through [`backend::Backend`]), `size` CSS pixels, as a standalone SVG
/// document: the export of a plotters chart, from the same drawing code as its canvas.
pub(crate) fn plotters_svg<E>(
    size: (u32, u32),
    draw: impl FnOnce(backend::Backend<'_>) -> Result<(), E>,
) -> String {
    let mut out = String::new();
    let _ = draw(backend::Backend::Svg(
        plotters::prelude::SVGBackend::with_string(&mut out, size),
    ));
    out
}

/// Identity of a run for effect dependencies (pointer equality, see [`ChartProps`]).
pub(crate) fn run_key(data: &Shared<RunData>) -> usize {
    Rc::as_ptr(&data.0) as usize
}

/// A `ResizeObserver` callback; kept alive as long as the observer.
type ResizeCallback = Closure<dyn FnMut(js_sys::Array)>;

/// The CSS width of `node`'s element in whole pixels, following resizes (0 until mounted).
#[hook]
pub(crate) fn use_element_width(node: NodeRef) -> u32 {
    let width = use_state_eq(|| 0u32);
    {
        let width = width.clone();
        use_effect_with(node, move |node| {
            let element = node.cast::<web_sys::Element>();
            let mut observer: Option<(ResizeObserver, ResizeCallback)> = None;
            if let Some(element) = element {
                width.set(element.client_width().max(0) as u32);
                let set = width.clone();
                let callback =
                    Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                        if let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() {
                            set.set(entry.content_rect().width().max(0.0) as u32);
                        }
                    });
                if let Ok(o) = ResizeObserver::new(callback.as_ref().unchecked_ref()) {
                    o.observe(&element);
                    observer = Some((o, callback));
                }
            }
            move || {
                if let Some((o, _callback)) = observer {
                    o.disconnect();
                }
            }
        });
    }
    *width
}

/// The screen's device pixels per CSS pixel (1 when unknown).
pub(crate) fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
}

/// Sizes `canvas` to `css_w` × `css_h` CSS pixels backed by device pixels. Only touches the
/// canvas when the size changed (resizing clears it and costs a reflow).
pub(crate) fn size_canvas(canvas: &HtmlCanvasElement, css_w: u32, css_h: u32, dpr: f64) {
    let w = (css_w as f64 * dpr).round() as u32;
    let h = (css_h as f64 * dpr).round() as u32;
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
}

/// The canvas's 2D context with its transform reset to draw in CSS pixels.
pub(crate) fn context_2d(canvas: &HtmlCanvasElement, dpr: f64) -> Option<CanvasRenderingContext2d> {
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0).ok()?;
    Some(ctx)
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A 2D context, seen through its `fillStyle` alone.
    type FillStyle;
    #[wasm_bindgen(method, setter = fillStyle)]
    fn set_fill_style(this: &FillStyle, style: &js_sys::JsString);
}

/// Sets `ctx`'s `fillStyle` to a string JavaScript already holds. `set_fill_style_str` copies
/// its text out of the module's memory and decodes it at every call, which a contest run's CPU
/// lane, changing colour at almost every bar, makes hundreds of times a draw.
pub(crate) fn set_fill_style_js(ctx: &CanvasRenderingContext2d, style: &js_sys::JsString) {
    ctx.unchecked_ref::<FillStyle>().set_fill_style(style);
}

/// Pointer position relative to the event's target element, in CSS pixels.
pub(crate) fn offset(e: &MouseEvent) -> (f64, f64) {
    (e.offset_x() as f64, e.offset_y() as f64)
}

/// A small tooltip at a viewport position. `position: fixed` so showing it never moves the
/// layout.
pub(crate) fn tooltip(at: Option<(f64, f64)>, lines: &[String]) -> Html {
    let Some((x, y)) = at else {
        return html! {};
    };
    let style = format!(
        "position:fixed;left:{}px;top:{}px;z-index:20;pointer-events:none;max-width:26rem;\
         background:#1d2430;color:#fbfaf7;padding:0.4rem 0.6rem;border-radius:4px;\
         font-size:0.85rem;line-height:1.35;box-shadow:0 2px 8px rgba(0,0,0,0.25)",
        x + 14.0,
        y + 14.0
    );
    html! {
        <div class="chart-tooltip" role="tooltip" {style}>
            { for lines.iter().enumerate().map(|(i, l)| {
                if i == 0 { html! { <div><strong>{ l.clone() }</strong></div> } }
                else { html! { <div>{ l.clone() }</div> } }
            }) }
        </div>
    }
}

/// Style shared by chart frames: fixed heights come from each chart.
pub(crate) const FRAME_STYLE: &str = "position:relative;width:100%;margin:0.75rem 0 1.25rem;";
/// Style of a chart's heading row (title + controls), one line so nothing jumps.
pub(crate) const BAR_STYLE: &str =
    "display:flex;flex-wrap:wrap;align-items:center;gap:0.5rem 0.75rem;\
     min-height:2.25rem;font-size:0.95rem;";
