//! Wake-up latency histogram of one task over log-scale buckets (1-2-5 steps from 1 µs to 1 s),
//! drawn with plotters. The task selector starts on the task with the most wake-ups.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use schedlab::view::LatencyBin;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use super::palette;
use super::{
    device_pixel_ratio, offset, run_key, size_canvas, tooltip, use_element_width, BarMap,
    ChartProps, BAR_STYLE, FRAME_STYLE,
};

/// Canvas height in CSS pixels.
const HEIGHT: u32 = 260;

/// Draws `bins` (one task's histogram) in `colour` on `backend`; `scale` multiplies font sizes
/// and line widths (the device pixel ratio). Empty `bins` draw an empty frame with a message.
pub fn draw<DB: DrawingBackend>(
    backend: DB,
    bins: &[LatencyBin],
    colour: RGBColor,
    scale: f64,
) -> Result<BarMap, DrawingAreaErrorKind<DB::ErrorType>> {
    let root = backend.into_drawing_area();
    root.fill(&palette::PAPER)?;
    let px = |v: f64| (v * scale).round() as u32;
    let font = |size: f64| ("sans-serif", size * scale).into_font();
    let n = bins.len().max(1) as u32;
    let top = bins.iter().map(|b| b.count).max().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(34.0))
        .y_label_area_size(px(52.0))
        .build_cartesian_2d((0..n).into_segmented(), 0u32..top + top / 10 + 1)?;
    let labels: Vec<&str> = bins.iter().map(|b| b.label.as_str()).collect();
    // Label every k-th bin, k chosen so the widest label fits in the room k bins give it.
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64;
    let label_px = (widest * 7.5 + 12.0) * scale;
    let plot_px = f64::from(root.dim_in_pixel().0) - f64::from(px(10.0) * 2 + px(52.0));
    let fit = (plot_px / label_px).floor().max(1.0) as usize;
    let every = labels.len().div_ceil(fit).max(1);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(palette::RULE.mix(0.6))
        .bold_line_style(palette::RULE)
        .axis_style(palette::MUTED)
        .x_labels(bins.len().max(1))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if *i as usize % every == 0 => labels
                .get(*i as usize)
                .map_or(String::new(), |l| l.to_string()),
            _ => String::new(),
        })
        .y_desc("wake-ups")
        .x_desc("latency (wake-up to running)")
        .label_style(font(13.0).color(&palette::INK))
        .axis_desc_style(font(13.0).color(&palette::MUTED))
        .draw()?;
    if bins.is_empty() {
        root.draw(&Text::new(
            "no wake-ups",
            (px(90.0) as i32, px(40.0) as i32),
            font(15.0).color(&palette::MUTED),
        ))?;
    }
    chart.draw_series(bins.iter().enumerate().map(|(i, b)| {
        let i = i as u32;
        let mut bar = Rectangle::new(
            [
                (SegmentValue::Exact(i), 0),
                (SegmentValue::Exact(i + 1), b.count),
            ],
            colour.filled(),
        );
        bar.set_margin(0, 0, px(3.0), px(3.0));
        bar
    }))?;
    let bars = BarMap::of_segments(&chart, bins.len() as u32);
    root.present()?;
    Ok(bars)
}

#[component]
pub fn LatencyHistogram(props: &ChartProps) -> Html {
    let data = props.data.clone();
    let key = run_key(&data);
    let frame = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(frame.clone());
    // The selection belongs to one run; a new run starts on its busiest waker.
    let chosen = use_state_eq(|| (key, data.busiest_waker()));
    let task = if chosen.0 == key {
        chosen.1
    } else {
        data.busiest_waker()
    };
    let map = use_mut_ref(BarMap::default);
    let hover = use_state_eq(|| None::<((f64, f64), Vec<String>)>);
    let dpr = device_pixel_ratio();
    let bins = task.map(|t| data.latency_histogram(t)).unwrap_or_default();

    {
        let canvas = canvas.clone();
        let data = data.clone();
        let map = map.clone();
        use_effect_with((key, task, width, dpr.to_bits()), move |_| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                return;
            };
            if width == 0 {
                return;
            }
            size_canvas(&c, width, HEIGHT, dpr);
            let colour = task
                .and_then(|t| data.tasks.get(t as usize))
                .map_or(palette::task(0), |t| palette::task(t.colour));
            let bins = task.map(|t| data.latency_histogram(t)).unwrap_or_default();
            if let Some(backend) = CanvasBackend::with_canvas_object(c) {
                // A drawing error leaves the previous frame; there is nothing better to show.
                if let Ok(m) = draw(backend, &bins, colour, dpr) {
                    *map.borrow_mut() = m;
                }
            }
        });
    }

    let onchange = super::on_task_select(&chosen, key);
    let onmousemove = {
        let hover = hover.clone();
        let map = map.clone();
        Callback::from(move |e: MouseEvent| {
            let (x, _) = offset(&e);
            let found = map
                .borrow()
                .bar_at((x * dpr) as i32)
                .and_then(|i| bins.get(i));
            match found {
                Some(b) => hover.set(Some((
                    (e.client_x() as f64, e.client_y() as f64),
                    vec![b.label.clone(), format!("{} wake-ups", b.count)],
                ))),
                None => hover.set(None),
            }
        })
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let wakers: Vec<_> = data.tasks.iter().filter(|t| t.wakeups > 0).collect();

    html! {
        <section class="chart chart-latency" style={FRAME_STYLE} aria-label="Wake-up latency histogram">
            <div class="chart-bar" style={BAR_STYLE}>
                <strong>{ "Wake-up latency" }</strong>
                if wakers.is_empty() {
                    <span class="muted">{ "no task ever woke up" }</span>
                } else {
                    <label>
                        { "task " }
                        <select {onchange} aria-label="Task">
                            { for wakers.iter().map(|t| html! {
                                <option value={t.id.to_string()} selected={Some(t.id) == task}>
                                    { format!("{} ({} wake-ups)", t.name, t.wakeups) }
                                </option>
                            }) }
                        </select>
                    </label>
                }
            </div>
            <div ref={frame}>
                <canvas ref={canvas} data-testid="latency-histogram"
                    style={format!("display:block;width:100%;height:{HEIGHT}px")}
                    {onmousemove} {onmouseleave} />
            </div>
            { tooltip(hover.as_ref().map(|h| h.0), hover.as_ref().map_or(&[][..], |h| &h.1[..])) }
        </section>
    }
}
