//! The policy's observed per-task value over time (dynamic priority, counter, queue level, pass:
//! whatever `PolicyInfo::metric` names) as step lines, one per task. Shown only when the policy
//! reports a value.

use plotters::prelude::*;
use schedlab::view::{format_ns, time_ticks, RunData, Window};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use super::backend::{Backend, DrawError};
use super::palette;
use super::{
    device_pixel_ratio, offset, run_key, size_canvas, tooltip, use_element_width, ChartProps,
    BAR_STYLE, FRAME_STYLE,
};

const HEIGHT: u32 = 260;
/// Lines drawn at once when showing every task; more would be unreadable.
pub const MAX_LINES: usize = 12;

/// The plot area in backend pixels and the window it shows, to map a pointer back to a time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObservedMap {
    pub x0: i32,
    pub x1: i32,
    pub window: Window,
}

impl ObservedMap {
    /// The time under backend pixel `x`, if inside the plot.
    pub fn time_at(&self, x: i32) -> Option<u64> {
        (self.x0..=self.x1).contains(&x).then(|| {
            self.window
                .time_at((x - self.x0) as f64, (self.x1 - self.x0).max(1) as f64)
        })
    }
}

/// Draws `tasks`' series over `window` on `backend`; `scale` multiplies font sizes and widths.
pub fn draw(
    backend: Backend<'_>,
    data: &RunData,
    colours: &super::palette::TaskColours,
    tasks: &[u32],
    window: Window,
    scale: f64,
) -> Result<ObservedMap, DrawingAreaErrorKind<DrawError>> {
    let root = backend.into_drawing_area();
    root.fill(&palette::PAPER)?;
    let px = |v: f64| (v * scale).round() as u32;
    // A FontFamily, not the name "sans-serif", which plotters would parse with
    // str::to_lowercase and its Unicode tables (KBs of wasm).
    let font = |size: f64| (FontFamily::SansSerif, size * scale).into_font();
    let (lo, hi) = data.observed_range().unwrap_or((0, 1));
    let pad = ((hi - lo) / 10).max(1);
    let label = data.observed.as_ref().map_or("", |o| o.label.as_str());
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(30.0))
        .y_label_area_size(px(52.0))
        .build_cartesian_2d(window.start..window.end, (lo - pad)..(hi + pad))?;
    let ticks = time_ticks(window, 6);
    let step = match ticks.as_slice() {
        [a, b, ..] => b.time - a.time,
        _ => window.span(),
    };
    chart
        .configure_mesh()
        .light_line_style(palette::RULE.mix(0.6))
        .bold_line_style(palette::RULE)
        .axis_style(palette::MUTED)
        .x_labels(ticks.len().max(2))
        .x_label_formatter(&|t| {
            // Label plotters' ticks like the Gantt axis where they coincide.
            ticks
                .iter()
                .find(|k| k.time.abs_diff(*t) < step / 2)
                .map_or_else(|| format_ns(*t), |k| k.label.clone())
        })
        .y_label_formatter(&|v| schedlab::view::compact(*v))
        .y_desc(label.split(" (").next().unwrap_or(label))
        .label_style(font(13.0).color(&palette::INK))
        .axis_desc_style(font(13.0).color(&palette::MUTED))
        .draw()?;
    let width = chart.plotting_area().dim_in_pixel().0.max(1);
    for &task in tasks {
        let points = data.observed_series(task, window, width);
        if points.is_empty() {
            continue;
        }
        let end = data
            .tasks
            .get(task as usize)
            .and_then(|t| t.exit_ns)
            .unwrap_or(window.end)
            .clamp(window.start, window.end);
        // Steps: each value holds until the next change (or the task's exit).
        let mut steps = Vec::with_capacity(points.len() * 2 + 1);
        for (i, &(t, v)) in points.iter().enumerate() {
            if i > 0 {
                steps.push((t, points[i - 1].1));
            }
            steps.push((t, v));
        }
        if let Some(&(_, v)) = points.last() {
            steps.push((end.max(points[points.len() - 1].0), v));
        }
        chart.draw_series(LineSeries::new(
            steps,
            colours.of(task).rgba().stroke_width(px(2.0).max(1)),
        ))?;
    }
    let (xr, _) = chart.plotting_area().get_pixel_range();
    root.present()?;
    Ok(ObservedMap {
        x0: xr.start,
        x1: xr.end,
        window,
    })
}

/// The chart of every observed task (the first lines, and the picked tasks') over the run as
/// an SVG document `size` CSS pixels.
pub fn svg(data: &RunData, colours: &super::palette::TaskColours, size: (u32, u32)) -> String {
    let all = data.observed_tasks();
    let mut tasks: Vec<u32> = all.iter().copied().take(MAX_LINES).collect();
    tasks.extend(
        all.iter()
            .skip(MAX_LINES)
            .filter(|&&t| colours.is_picked(t)),
    );
    let window = Window::new(0, data.shown_until_ns.max(1));
    super::plotters_svg(size, |b| {
        draw(b, data, colours, &tasks, window, 1.0).map(|_| ())
    })
}

#[component]
pub fn ObservedChart(props: &ChartProps) -> Html {
    let data = props.data.clone();
    let key = run_key(&data);
    let frame = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(frame.clone());
    // None: every task (the first MAX_LINES); Some(t): one task.
    let chosen = use_state_eq(|| (key, None::<u32>));
    let focus = if chosen.0 == key { chosen.1 } else { None };
    let map = use_mut_ref(|| None::<ObservedMap>);
    let hover = use_state_eq(|| None::<((f64, f64), Vec<String>)>);
    let dpr = device_pixel_ratio();
    let observed_tasks = use_memo(key, {
        let data = data.clone();
        move |_| data.observed_tasks()
    });
    let colours = use_memo(
        (key, props.selected.clone(), props.compared.clone()),
        |_| props.colours(),
    );
    let shown: Vec<u32> = match focus {
        Some(t) => vec![t],
        None => {
            // The first lines, and the picked tasks' wherever they are in the list.
            let mut v: Vec<u32> = observed_tasks.iter().copied().take(MAX_LINES).collect();
            v.extend(
                observed_tasks
                    .iter()
                    .skip(MAX_LINES)
                    .filter(|&&t| colours.is_picked(t)),
            );
            v
        }
    };

    {
        let canvas = canvas.clone();
        let data = data.clone();
        let map = map.clone();
        let shown = shown.clone();
        let colours = colours.clone();
        use_effect_with(
            (key, focus, width, dpr.to_bits(), colours.clone()),
            move |_| {
                let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                    return;
                };
                if width == 0 {
                    return;
                }
                size_canvas(&c, width, HEIGHT, dpr);
                let window = Window::new(0, data.shown_until_ns.max(1));
                if let Some(backend) = Backend::canvas(c) {
                    if let Ok(m) = draw(backend, &data, &colours, &shown, window, dpr) {
                        *map.borrow_mut() = Some(m);
                    }
                }
            },
        );
    }

    // After every hook: hooks run in the same order on every render.
    let Some(observed) = data.observed.as_ref() else {
        return html! {};
    };

    let onchange = super::on_task_select(&chosen, key);
    let onmousemove = {
        let hover = hover.clone();
        let map = map.clone();
        let data = data.clone();
        let shown = shown.clone();
        Callback::from(move |e: MouseEvent| {
            let (x, _) = offset(&e);
            let Some(t) = (*map.borrow()).and_then(|m| m.time_at((x * dpr) as i32)) else {
                hover.set(None);
                return;
            };
            let mut lines = vec![format!("at {}", format_ns(t))];
            for &task in shown.iter() {
                let v = data.observed_series(task, Window::new(t, t + 1), 1);
                if let Some(&(_, v)) = v.first() {
                    lines.push(format!("{}: {v}", data.task_name(task)));
                }
            }
            hover.set(Some(((e.client_x() as f64, e.client_y() as f64), lines)));
        })
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let more = observed_tasks.len().saturating_sub(MAX_LINES);

    html! {
        <section class="chart chart-observed" style={FRAME_STYLE} aria-label="Policy value over time">
            <div class="chart-bar" style={BAR_STYLE}>
                <strong>{ observed.label.clone() }</strong>
                <select {onchange} aria-label="Task">
                    <option value="all" selected={focus.is_none()}>
                        { if more > 0 { format!("first {MAX_LINES} tasks") } else { "all tasks".to_string() } }
                    </option>
                    { for observed_tasks.iter().map(|&t| html! {
                        <option value={t.to_string()} selected={focus == Some(t)}>{ data.task_name(t) }</option>
                    }) }
                </select>
                if observed.truncated > 0 {
                    <span style="color:#5a6473">{ format!("{} later values not recorded (limit {})", observed.truncated, schedlab::view::OBSERVED_LIMIT) }</span>
                }
            </div>
            <div ref={frame}>
                <canvas ref={canvas} data-testid="observed-chart" role="img"
                    aria-label={format!("{} over time, one line per task; hover for the values at an instant", observed.label)}
                    style={format!("display:block;width:100%;height:{HEIGHT}px")}
                    {onmousemove} {onmouseleave} />
            </div>
            { tooltip(hover.as_ref().map(|h| h.0), hover.as_ref().map_or(&[][..], |h| &h.1[..])) }
        </section>
    }
}
