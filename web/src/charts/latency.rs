//! Wake-up latency histogram of one task over log-scale buckets (1-2-5 steps from 1 µs to 1 s),
//! drawn with plotters. The x axis always spans every bucket, `<1 µs` to `≥1 s`, with every
//! decade labelled, so a run that moves latency moves the bars rather than the axis; the y axis
//! is the share of the task's wake-ups, and "Pin scale" keeps its top across runs. The slowest
//! bucket is labelled on the chart. The task selector starts on the task with the most
//! wake-ups and keeps a task picked by name through re-runs. A visually hidden table carries
//! the same numbers for screen readers.

use plotters::prelude::*;
use schedlab::view::{LatencyBin, RunData, LATENCY_EDGES_NS};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use super::backend::{Backend, DrawError};
use super::palette;
use super::{
    device_pixel_ratio, offset, run_key, size_canvas, tooltip, use_element_width, BarMap,
    ChartProps, BAR_STYLE, FRAME_STYLE,
};

/// Canvas height in CSS pixels.
const HEIGHT: u32 = 260;

/// Buckets on the x axis: one more than the edges.
const BUCKETS: usize = LATENCY_EDGES_NS.len() + 1;

/// The decades labelled under the axis: (edge index + 1, i.e. the bucket boundary, label).
const DECADES: [(u32, &str); 7] = [
    (1, "1 µs"),
    (4, "10 µs"),
    (7, "100 µs"),
    (10, "1 ms"),
    (13, "10 ms"),
    (16, "100 ms"),
    (19, "1 s"),
];

/// One task's counts over every bucket (zeros where it had none).
pub fn full_counts(bins: &[LatencyBin]) -> [u32; BUCKETS] {
    let mut counts = [0u32; BUCKETS];
    for b in bins {
        if let Some(c) = counts.get_mut(b.bucket) {
            *c = b.count;
        }
    }
    counts
}

/// The y axis's top in percent: the smallest multiple of 10 at or above the tallest bar.
pub fn auto_top(counts: &[u32]) -> u32 {
    let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let tallest = counts.iter().copied().max().unwrap_or(0);
    if total == 0 {
        return 10;
    }
    let pct = (u64::from(tallest) * 100).div_ceil(total) as u32;
    pct.div_ceil(10).max(1) * 10
}

/// Draws one task's histogram (`bins`) in `colour` on `backend` with the y axis up to `top_pct`;
/// `scale` multiplies font sizes and line widths (the device pixel ratio). Empty `bins` draw an
/// empty frame with a message.
pub fn draw(
    backend: Backend<'_>,
    bins: &[LatencyBin],
    colour: RGBColor,
    top_pct: u32,
    scale: f64,
) -> Result<BarMap, DrawingAreaErrorKind<DrawError>> {
    let root = backend.into_drawing_area();
    root.fill(&palette::PAPER)?;
    let px = |v: f64| (v * scale).round() as u32;
    // A FontFamily, not the name "sans-serif", which plotters would parse with
    // str::to_lowercase and its Unicode tables (KBs of wasm).
    let font = |size: f64| (FontFamily::SansSerif, size * scale).into_font();
    let counts = full_counts(bins);
    let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let pct = |c: u32| share(c, total);
    let top = f64::from(top_pct.max(1));
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_top(px(22.0))
        .x_label_area_size(px(34.0))
        .y_label_area_size(px(64.0))
        .build_cartesian_2d(0f64..BUCKETS as f64, 0f64..top)?;
    // The decades are drawn by hand below: plotters would pick round bucket indices.
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .light_line_style(palette::RULE.mix(0.6))
        .bold_line_style(palette::RULE)
        .axis_style(palette::MUTED)
        .y_label_formatter(&|v| format!("{v:.0} %"))
        .y_desc("share of wake-ups")
        .x_desc("latency, wake-up to running (log scale)")
        .label_style(font(13.0).color(&palette::INK))
        .axis_desc_style(font(13.0).color(&palette::MUTED))
        .draw()?;
    // On a narrow chart every other decade is named (each still has its tick).
    let decade_px = chart.backend_coord(&(4.0, 0.0)).0 - chart.backend_coord(&(1.0, 0.0)).0;
    let crowded = f64::from(decade_px) < 48.0 * scale;
    for (k, (edge, label)) in DECADES.into_iter().enumerate() {
        let (x, y) = chart.backend_coord(&(f64::from(edge), 0.0));
        root.draw(&PathElement::new(
            vec![(x, y), (x, y + px(5.0) as i32)],
            palette::MUTED.stroke_width(px(1.0)),
        ))?;
        if crowded && k % 2 == 1 {
            continue;
        }
        let width = (label.chars().count() as f64 * 3.5 * scale) as i32;
        root.draw(&Text::new(
            label,
            (x - width, y + px(7.0) as i32),
            font(12.0).color(&palette::INK),
        ))?;
    }
    if bins.is_empty() {
        root.draw(&Text::new(
            "no wake-ups",
            (px(90.0) as i32, px(40.0) as i32),
            font(15.0).color(&palette::MUTED),
        ))?;
    }
    chart.draw_series(
        counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| {
                let x = i as f64;
                let mut bar =
                    Rectangle::new([(x, 0.0), (x + 1.0, pct(c).min(top))], colour.filled());
                bar.set_margin(0, 0, px(2.0), px(2.0));
                bar
            }),
    )?;
    // The tail: the slowest bucket anyone reached, named over its bar.
    if let Some(last) = bins.iter().rev().find(|b| b.count > 0) {
        // Above the plot, over the bucket's column, clear of every bar.
        let (bx, by) = chart.backend_coord(&(last.bucket as f64 + 0.5, top));
        let text = format!("slowest: {}", last.label);
        let width = (text.chars().count() as f64 * 6.5 * scale) as i32;
        let right = root.dim_in_pixel().0 as i32 - px(10.0) as i32;
        let left = (bx - width / 2).min(right - width).max(0);
        root.draw(&Text::new(
            text,
            (left, by - px(17.0) as i32),
            font(12.0).color(&palette::INK),
        ))?;
    }
    let bars = BarMap {
        bars: (0..BUCKETS)
            .map(|i| {
                let x = |v: f64| chart.backend_coord(&(v, 0.0)).0;
                (x(i as f64), x(i as f64 + 1.0))
            })
            .collect(),
    };
    root.present()?;
    Ok(bars)
}

/// The histogram of the task in focus (else the busiest waker) as an SVG document `size` CSS
/// pixels, its y axis fitted to the bars.
pub fn svg(
    data: &RunData,
    focus: Option<&str>,
    colours: &super::palette::TaskColours,
    size: (u32, u32),
) -> String {
    let task = shown_task(data, focus);
    let bins = task.map(|t| data.latency_histogram(t)).unwrap_or_default();
    let colour = task.map_or(palette::task(0), |t| colours.of(t).colour);
    let top = auto_top(&full_counts(&bins));
    super::plotters_svg(size, |b| draw(b, &bins, colour, top, 1.0).map(|_| ()))
}

/// The task to show: the one picked by name if this run has it, else the busiest waker.
fn shown_task(data: &RunData, picked: Option<&str>) -> Option<u32> {
    picked
        .and_then(|name| {
            data.tasks
                .iter()
                .find(|t| t.name == name && t.wakeups > 0)
                .map(|t| t.id)
        })
        .or_else(|| data.busiest_waker())
}

#[component]
pub fn LatencyHistogram(props: &ChartProps) -> Html {
    let data = props.data.clone();
    let key = run_key(&data);
    let frame = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(frame.clone());
    // A task picked by name stays picked through re-runs (and the next run's ids).
    let picked = use_state_eq(|| None::<String>);
    // The y axis's top, in percent, while pinned.
    let pinned = use_state_eq(|| None::<u32>);
    // The task in focus, when the page has one, else this chart's own pick.
    let focus = props.selected.as_deref().or(picked.as_deref());
    let task = shown_task(&data, focus);
    let map = use_mut_ref(BarMap::default);
    let hover = use_state_eq(|| None::<((f64, f64), Vec<String>)>);
    let dpr = device_pixel_ratio();
    let bins = task.map(|t| data.latency_histogram(t)).unwrap_or_default();
    let counts = full_counts(&bins);
    let top = pinned.unwrap_or_else(|| auto_top(&counts));
    let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    // The task shown in its chart colour: the focus's own when it is the task in focus (never
    // faded: it is the one task drawn).
    let colour = use_memo(
        (key, task, props.selected.clone(), props.compared.clone()),
        |(_, task, ..)| task.map_or(palette::task(0), |t| props.colours().of(t).colour),
    );
    let colour = *colour;

    {
        let canvas = canvas.clone();
        let data = data.clone();
        let map = map.clone();
        use_effect_with((key, task, width, top, dpr.to_bits(), colour), move |_| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                return;
            };
            if width == 0 {
                return;
            }
            size_canvas(&c, width, HEIGHT, dpr);
            let bins = task.map(|t| data.latency_histogram(t)).unwrap_or_default();
            if let Some(backend) = Backend::canvas(c) {
                // A drawing error leaves the previous frame; there is nothing better to show.
                if let Ok(m) = draw(backend, &bins, colour, top, dpr) {
                    *map.borrow_mut() = m;
                }
            }
        });
    }

    let onchange = {
        let picked = picked.clone();
        let data = data.clone();
        let onview = props.onview.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let name = select
                .value()
                .parse::<usize>()
                .ok()
                .and_then(|id| data.tasks.get(id))
                .map(|t| t.name.clone());
            match &onview {
                Some(onview) => onview.emit(crate::state::ViewChange::SelectTask(name)),
                None => picked.set(name),
            }
        })
    };
    let on_pin = {
        let pinned = pinned.clone();
        Callback::from(move |_| pinned.set(if pinned.is_some() { None } else { Some(top) }))
    };
    let onmousemove = {
        let hover = hover.clone();
        let map = map.clone();
        let bins = bins.clone();
        Callback::from(move |e: MouseEvent| {
            let (x, _) = offset(&e);
            let found = map
                .borrow()
                .bar_at((x * dpr) as i32)
                .and_then(|i| bins.iter().find(|b| b.bucket == i));
            match found {
                Some(b) => hover.set(Some((
                    (e.client_x() as f64, e.client_y() as f64),
                    vec![
                        b.label.clone(),
                        format!("{} wake-ups ({:.1} %)", b.count, share(b.count, total)),
                    ],
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
    let name = task
        .and_then(|t| data.tasks.get(t as usize))
        .map_or("no task", |t| t.name.as_str());
    let occupied: Vec<&LatencyBin> = bins.iter().filter(|b| b.count > 0).collect();
    let summary = match (occupied.iter().max_by_key(|b| b.count), occupied.last()) {
        (Some(most), Some(last)) => format!(
            "Wake-up latency of {name}: {total} wake-ups, most of them ({:.0} %) {}, the slowest {}.",
            share(most.count, total),
            most.label,
            last.label
        ),
        _ => "Wake-up latency: no task woke up in this run.".to_string(),
    };

    html! {
        <section class="chart chart-latency" style={FRAME_STYLE} aria-label="Wake-up latency histogram"
            data-task={name.to_owned()}
            data-focus={(props.selected.as_deref() == Some(name)).to_string()}>
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
                    <button type="button" class="pin-scale" data-testid="latency-pin"
                        aria-pressed={pinned.is_some().to_string()} onclick={on_pin}
                        title="Keep the y axis's top through re-runs, so a change in latency moves the bars, not the axis">
                        { format!("Pin scale ({top} %)") }
                    </button>
                }
            </div>
            <div ref={frame}>
                <canvas ref={canvas} data-testid="latency-histogram" role="img" aria-label={summary.clone()}
                    style={format!("display:block;width:100%;height:{HEIGHT}px")}
                    {onmousemove} {onmouseleave} />
            </div>
            <table class="visually-hidden" data-testid="latency-table">
                <caption>{ summary }</caption>
                <thead><tr><th scope="col">{ "latency" }</th><th scope="col">{ "wake-ups" }</th><th scope="col">{ "share" }</th></tr></thead>
                <tbody>
                    { for occupied.iter().map(|b| html! {
                        <tr>
                            <th scope="row">{ b.label.clone() }</th>
                            <td>{ b.count }</td>
                            <td>{ format!("{:.1} %", share(b.count, total)) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            { tooltip(hover.as_ref().map(|h| h.0), hover.as_ref().map_or(&[][..], |h| &h.1[..])) }
        </section>
    }
}

/// `count` as a percentage of `total`.
fn share(count: u32, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        f64::from(count) * 100.0 / total as f64
    }
}
