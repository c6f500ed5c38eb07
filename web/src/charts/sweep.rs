//! The sweep plot: one metric (y) at each value of one tunable (x), the points received so far
//! joined by a line, and a vertical marker at the slider's current value. Drawn with plotters;
//! the axes come from `schedlab::sweep::plot_bounds`, so x stays put while points arrive.

use std::rc::Rc;

use plotters::prelude::*;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use super::backend::{Backend, DrawError};
use super::palette;
use super::{device_pixel_ratio, offset, size_canvas, tooltip, use_element_width, FRAME_STYLE};
use crate::components::Shared;
use crate::state::SweepRun;

/// Canvas height in CSS pixels.
const HEIGHT: u32 = 260;
/// How near (CSS pixels) the pointer must be to a point to show its values.
const HOVER_PX: f64 = 12.0;

/// Where `draw` put each point received: `(index, x, y)` in backend pixels, for hovering.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepMap {
    pub points: Vec<(usize, i32, i32)>,
}

impl SweepMap {
    /// The point nearest backend pixel `(x, y)` within `radius` pixels.
    pub fn point_at(&self, x: i32, y: i32, radius: f64) -> Option<usize> {
        self.points
            .iter()
            .map(|&(i, px, py)| {
                let (dx, dy) = (f64::from(px - x), f64::from(py - y));
                (i, (dx * dx + dy * dy).sqrt())
            })
            .filter(|&(_, d)| d <= radius)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

/// What the plot shows.
pub struct Plot<'a> {
    pub values: &'a [i64],
    /// Parallel to `values`: the metric where it arrived.
    pub metrics: &'a [Option<f64>],
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    /// The slider's current value, marked with a vertical line.
    pub marker: Option<i64>,
    /// Drawn in grey: the scenario changed since the sweep ran.
    pub stale: bool,
}

/// Draws `plot` on `backend`; `scale` multiplies font sizes and line widths (the device pixel
/// ratio).
pub fn draw(
    backend: Backend<'_>,
    plot: &Plot<'_>,
    scale: f64,
) -> Result<SweepMap, DrawingAreaErrorKind<DrawError>> {
    let root = backend.into_drawing_area();
    root.fill(&palette::PAPER)?;
    let px = |v: f64| (v * scale).round() as u32;
    // A FontFamily, not the name "sans-serif", which plotters would parse with
    // str::to_lowercase and its Unicode tables (KBs of wasm).
    let font = |size: f64| (FontFamily::SansSerif, size * scale).into_font();
    let got: Vec<(usize, f64, f64)> = plot
        .values
        .iter()
        .zip(plot.metrics)
        .enumerate()
        .filter_map(|(i, (&v, m))| m.filter(|m| m.is_finite()).map(|m| (i, v as f64, m)))
        .collect();
    let metrics: Vec<f64> = got.iter().map(|p| p.2).collect();
    let ((x0, x1), (y0, y1)) = schedlab::sweep::plot_bounds(plot.values, &metrics);
    let y_span = y1 - y0;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_right(px(24.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(60.0))
        .build_cartesian_2d(x0..x1, y0..y1)?;
    // As many x labels as fit side by side at the widest one's width.
    let widest = [x0, x1]
        .iter()
        .map(|v| format!("{}", v.round() as i64).len())
        .max()
        .unwrap_or(1) as f64;
    let plot_px = f64::from(chart.plotting_area().dim_in_pixel().0);
    let fit = (plot_px / ((widest * 8.0 + 16.0) * scale)).floor() as usize;
    chart
        .configure_mesh()
        .light_line_style(palette::RULE.mix(0.6))
        .bold_line_style(palette::RULE)
        .axis_style(palette::MUTED)
        .x_labels(plot.values.len().min(fit).clamp(2, 11))
        .x_label_formatter(&|v| {
            // Tunables are integers: label only whole values.
            if (v - v.round()).abs() < 1e-9 {
                format!("{}", v.round() as i64)
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| y_label(*v, y_span))
        .x_desc(plot.x_desc)
        .y_desc(plot.y_desc)
        .label_style(font(13.0).color(&palette::INK))
        .axis_desc_style(font(13.0).color(&palette::MUTED))
        .draw()?;
    let ink = if plot.stale {
        palette::SLEEP
    } else {
        palette::task(0)
    };
    if let Some(m) = plot.marker {
        let m = m as f64;
        if (x0..=x1).contains(&m) {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(m, y0), (m, y1)],
                palette::task(2).stroke_width(px(2.0).max(1)),
            )))?;
        }
    }
    chart.draw_series(LineSeries::new(
        got.iter().map(|&(_, x, y)| (x, y)),
        ink.stroke_width(px(2.0).max(1)),
    ))?;
    chart.draw_series(
        got.iter()
            .map(|&(_, x, y)| Circle::new((x, y), px(4.0) as i32, ink.filled())),
    )?;
    let points = got
        .iter()
        .map(|&(i, x, y)| {
            let (bx, by) = chart.backend_coord(&(x, y));
            (i, bx, by)
        })
        .collect();
    if got.is_empty() {
        root.draw(&Text::new(
            "the points appear here as they finish",
            (px(90.0) as i32, px(40.0) as i32),
            font(15.0).color(&palette::MUTED),
        ))?;
    }
    root.present()?;
    Ok(SweepMap { points })
}

/// A y label with as many decimals as the axis span needs.
fn y_label(v: f64, span: f64) -> String {
    let decimals = if span >= 50.0 {
        0
    } else if span >= 5.0 {
        1
    } else if span >= 0.5 {
        2
    } else {
        3
    };
    format!("{v:.decimals$}")
}

/// The run is compared by pointer (`Shared`): every point that arrives makes a new `SweepRun`.
#[derive(Properties, Clone, PartialEq)]
pub struct SweepChartProps {
    pub run: Shared<SweepRun>,
    pub marker: Option<i64>,
    pub stale: bool,
}

/// The swept tunable as the x axis names it: its label and unit.
fn x_desc(run: &SweepRun) -> String {
    let unit = run.spec.unit;
    if unit.is_empty() {
        run.spec.label.to_owned()
    } else {
        format!("{} ({unit})", run.spec.label)
    }
}

/// Each point's metric, where it arrived.
fn metrics(run: &SweepRun) -> Vec<Option<f64>> {
    run.results
        .iter()
        .map(|r| r.as_ref().and_then(|r| r.as_ref().ok().copied()))
        .collect()
}

/// The sweep's plot as an SVG document `size` CSS pixels, the slider's value marked.
pub fn svg(run: &SweepRun, marker: Option<i64>, stale: bool, size: (u32, u32)) -> String {
    let metrics = metrics(run);
    let x_desc = x_desc(run);
    let plot = Plot {
        values: &run.values,
        metrics: &metrics,
        x_desc: &x_desc,
        y_desc: &run.sweep.metric,
        marker,
        stale,
    };
    super::plotters_svg(size, |b| draw(b, &plot, 1.0).map(|_| ()))
}

#[component]
pub fn SweepChart(props: &SweepChartProps) -> Html {
    let run = props.run.clone();
    let (marker, stale) = (props.marker, props.stale);
    let frame = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(frame.clone());
    let map = use_mut_ref(SweepMap::default);
    let hover = use_state_eq(|| None::<((f64, f64), Vec<String>)>);
    let dpr = device_pixel_ratio();
    let x_desc = x_desc(&run);

    {
        let canvas = canvas.clone();
        let run = run.clone();
        let map = map.clone();
        let x_desc = x_desc.clone();
        let key = Rc::as_ptr(&run.0) as usize;
        use_effect_with((key, marker, stale, width, dpr.to_bits()), move |_| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                return;
            };
            if width == 0 {
                return;
            }
            size_canvas(&c, width, HEIGHT, dpr);
            let metrics = metrics(&run);
            let plot = Plot {
                values: &run.values,
                metrics: &metrics,
                x_desc: &x_desc,
                y_desc: &run.sweep.metric,
                marker,
                stale,
            };
            if let Some(backend) = Backend::canvas(c) {
                // A drawing error leaves the previous frame; there is nothing better to show.
                if let Ok(m) = draw(backend, &plot, dpr) {
                    *map.borrow_mut() = m;
                }
            }
        });
    }

    let onmousemove = {
        let hover = hover.clone();
        let map = map.clone();
        let run = run.clone();
        Callback::from(move |e: MouseEvent| {
            let (x, y) = offset(&e);
            let found = map
                .borrow()
                .point_at((x * dpr) as i32, (y * dpr) as i32, HOVER_PX * dpr);
            let lines = found.and_then(|i| {
                let metric = run.results.get(i)?.as_ref()?.as_ref().ok()?;
                Some(vec![
                    format!("{} {}", run.spec.key, run.spec.display(run.values[i])),
                    format!("{} {metric:.3}", run.sweep.metric),
                ])
            });
            match lines {
                Some(lines) => hover.set(Some(((e.client_x() as f64, e.client_y() as f64), lines))),
                None => hover.set(None),
            }
        })
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let label = format!(
        "{} over {}{}",
        run.sweep.metric,
        x_desc,
        if stale { " (stale)" } else { "" }
    );

    html! {
        <div class="chart chart-sweep" style={FRAME_STYLE}>
            <div ref={frame}>
                <canvas ref={canvas} data-testid="sweep-plot" role="img" aria-label={label}
                    style={format!("display:block;width:100%;height:{HEIGHT}px")}
                    {onmousemove} {onmouseleave} />
            </div>
            { tooltip(hover.as_ref().map(|h| h.0), hover.as_ref().map_or(&[][..], |h| &h.1[..])) }
        </div>
    }
}
