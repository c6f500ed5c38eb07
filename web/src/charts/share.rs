//! CPU share vs entitlement per task: a bar for the share of all CPU time a task got and a dark
//! line across it at the share it was entitled to (shares, or nice weights).

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use schedlab::view::{RunData, ShareChart as ShareModel};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use super::backend::{Backend, DrawError};
use super::palette::{self, TaskColours};
use super::{
    device_pixel_ratio, offset, run_key, size_canvas, tooltip, use_element_width, BarMap,
    ChartProps, BAR_STYLE, FRAME_STYLE,
};

const HEIGHT: u32 = 260;
/// Tasks named under the axis; with more, names are only in the tooltip.
const MAX_LABELS: usize = 24;

/// Draws the share chart of `model` on `backend` in `colours` (picked tasks in their own
/// colours, the others faded); `scale` multiplies font sizes and widths.
pub fn draw(
    backend: Backend<'_>,
    model: &ShareModel,
    colours: &TaskColours,
    scale: f64,
) -> Result<BarMap, DrawingAreaErrorKind<DrawError>> {
    let root = backend.into_drawing_area();
    root.fill(&palette::PAPER)?;
    let px = |v: f64| (v * scale).round() as u32;
    // A FontFamily, not the name "sans-serif", which plotters would parse with
    // str::to_lowercase and its Unicode tables (KBs of wasm).
    let font = |size: f64| (FontFamily::SansSerif, size * scale).into_font();
    let n = model.bars.len().max(1) as u32;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .x_label_area_size(px(30.0))
        .y_label_area_size(px(52.0))
        .build_cartesian_2d((0..n).into_segmented(), 0u64..model.y_max_ppm)?;
    let names: Vec<String> = model
        .bars
        .iter()
        .map(|b| b.name.chars().take(10).collect())
        .collect();
    let labels = if model.bars.len() <= MAX_LABELS {
        model.bars.len()
    } else {
        0
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(palette::RULE.mix(0.6))
        .bold_line_style(palette::RULE)
        .axis_style(palette::MUTED)
        // Never 0: plotters loops forever computing key points for a zero-label axis.
        .x_labels(labels.max(1))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if labels > 0 => {
                names.get(*i as usize).cloned().unwrap_or_default()
            }
            _ => String::new(),
        })
        .y_labels(6)
        .y_label_formatter(&|v| format!("{}%", v / 10_000))
        .y_desc("share of CPU time")
        .label_style(font(13.0).color(&palette::INK))
        .axis_desc_style(font(13.0).color(&palette::MUTED))
        .draw()?;
    chart.draw_series(model.bars.iter().enumerate().map(|(i, b)| {
        let i = i as u32;
        let mut bar = Rectangle::new(
            [
                (SegmentValue::Exact(i), 0),
                (SegmentValue::Exact(i + 1), b.share_ppm),
            ],
            colours.of(b.task).rgba().filled(),
        );
        bar.set_margin(0, 0, px(6.0), px(6.0));
        bar
    }))?;
    // Entitlement marks: a thick dark line across each task's slot (faded with its bar).
    chart.draw_series(model.bars.iter().enumerate().map(|(i, b)| {
        let i = i as u32;
        let alpha = if colours.of(b.task).faded { 0.35 } else { 1.0 };
        PathElement::new(
            vec![
                (SegmentValue::Exact(i), b.entitlement_ppm),
                (SegmentValue::Exact(i + 1), b.entitlement_ppm),
            ],
            palette::INK.mix(alpha).stroke_width(px(3.0).max(1)),
        )
    }))?;
    let bars = BarMap::of_segments(&chart, model.bars.len() as u32);
    root.present()?;
    Ok(bars)
}

/// The chart as an SVG document `size` CSS pixels.
pub fn svg(data: &RunData, colours: &TaskColours, size: (u32, u32)) -> String {
    let model = data.share_chart();
    super::plotters_svg(size, |b| draw(b, &model, colours, 1.0).map(|_| ()))
}

fn percent(ppm: u64) -> String {
    format!("{}.{}%", ppm / 10_000, (ppm / 1_000) % 10)
}

#[component]
pub fn ShareChart(props: &ChartProps) -> Html {
    let data = props.data.clone();
    let key = run_key(&data);
    let frame = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(frame.clone());
    let map = use_mut_ref(BarMap::default);
    let hover = use_state_eq(|| None::<((f64, f64), Vec<String>)>);
    let dpr = device_pixel_ratio();
    let model = use_memo(key, {
        let data = data.clone();
        move |_| data.share_chart()
    });
    let colours = use_memo(
        (key, props.selected.clone(), props.compared.clone()),
        |_| props.colours(),
    );

    {
        let canvas = canvas.clone();
        let map = map.clone();
        let model = model.clone();
        let colours = colours.clone();
        use_effect_with((key, width, dpr.to_bits(), colours.clone()), move |_| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                return;
            };
            if width == 0 {
                return;
            }
            size_canvas(&c, width, HEIGHT, dpr);
            if let Some(backend) = Backend::canvas(c) {
                if let Ok(m) = draw(backend, &model, &colours, dpr) {
                    *map.borrow_mut() = m;
                }
            }
        });
    }

    let onmousemove = {
        let hover = hover.clone();
        let map = map.clone();
        let model = model.clone();
        Callback::from(move |e: MouseEvent| {
            let (x, _) = offset(&e);
            let found = map
                .borrow()
                .bar_at((x * dpr) as i32)
                .and_then(|i| model.bars.get(i));
            match found {
                Some(b) => hover.set(Some((
                    (e.client_x() as f64, e.client_y() as f64),
                    vec![
                        b.name.clone(),
                        format!("CPU share {}", percent(b.share_ppm)),
                        format!("entitled to {}", percent(b.entitlement_ppm)),
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

    html! {
        <section class="chart chart-share" style={FRAME_STYLE} aria-label="CPU share vs entitlement"
            data-selected-task={props.selected.clone()}>
            <div class="chart-bar" style={BAR_STYLE}>
                <strong>{ "CPU share vs entitlement" }</strong>
                <span style="color:#5a6473">{ "bar: share of CPU time · dark line: entitled share" }</span>
            </div>
            <div ref={frame}>
                <canvas ref={canvas} data-testid="share-chart" role="img"
                    aria-label="CPU share against entitled share per task; the numbers are in the table that follows"
                    style={format!("display:block;width:100%;height:{HEIGHT}px")}
                    {onmousemove} {onmouseleave} />
            </div>
            <table class="visually-hidden">
                <caption>{ "CPU share against entitled share" }</caption>
                <thead><tr><th scope="col">{ "task" }</th><th scope="col">{ "share" }</th><th scope="col">{ "entitled" }</th></tr></thead>
                <tbody>
                    { for model.bars.iter().map(|b| html! {
                        <tr data-task={b.name.clone()} data-picked={colours.is_picked(b.task).to_string()}>
                            <th scope="row">{ b.name.clone() }</th>
                            <td>{ percent(b.share_ppm) }</td>
                            <td>{ percent(b.entitlement_ppm) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            { tooltip(hover.as_ref().map(|h| h.0), hover.as_ref().map_or(&[][..], |h| &h.1[..])) }
        </section>
    }
}
