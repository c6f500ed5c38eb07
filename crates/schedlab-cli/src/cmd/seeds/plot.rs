//! One seed-000 plot as SVG: the published curve (left) and the simulated one with its 95 %
//! intervals (right), each on its own axis, drawn with plotters' SVG backend. Text is laid
//! out by plotters' built-in estimate (no system fonts), so the bytes are the same everywhere.

use plotters::prelude::*;
use schedlab::workloads::seeds::Plot;

const SIZE: (u32, u32) = (760, 320);

pub fn svg(p: &Plot) -> anyhow::Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(&p.title, ("sans-serif", 15)).map_err(err)?;
        let (left, right) = root.split_horizontally(SIZE.0 / 2);
        let x_range = p.x.first().copied().unwrap_or(0)..p.x.last().copied().unwrap_or(1);
        let published: Vec<(i64, f64)> = p.x.iter().copied().zip(p.published.iter().copied()).collect();
        panel(&left, "published", &p.x_label, &p.y_label, x_range.clone(), &published, &[], &BLUE)?;
        let means: Vec<(i64, f64)> = p.x.iter().copied().zip(p.simulated.iter().map(|s| s.0)).collect();
        let bars: Vec<(i64, f64, f64)> = p.x.iter().copied().zip(p.simulated.iter().map(|s| (s.1, s.2))).map(|(x, (lo, hi))| (x, lo, hi)).collect();
        panel(&right, "schedlab (10 seeds, 95 %)", &p.x_label, &p.y_label, x_range, &means, &bars, &RED)?;
        root.present().map_err(err)?;
    }
    Ok(out)
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing a plot: {e:?}")
}

/// The y range: the data (and its bars) padded by a tenth, so a flat curve is not a line at
/// the frame's edge.
fn y_range(points: &[(i64, f64)], bars: &[(i64, f64, f64)]) -> std::ops::Range<f64> {
    let ys = points.iter().map(|p| p.1).chain(bars.iter().flat_map(|b| [b.1, b.2]));
    let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| (a.min(y), b.max(y)));
    if !lo.is_finite() || !hi.is_finite() {
        return 0.0..1.0;
    }
    let pad = ((hi - lo) * 0.1).max(hi.abs() * 0.02).max(0.1);
    (lo - pad)..(hi + pad)
}

#[allow(clippy::too_many_arguments)]
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    caption: &str,
    x_label: &str,
    y_label: &str,
    x_range: std::ops::Range<i64>,
    points: &[(i64, f64)],
    bars: &[(i64, f64, f64)],
    color: &RGBColor,
) -> anyhow::Result<()> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 13))
        .margin(10)
        .x_label_area_size(32)
        .y_label_area_size(48)
        .build_cartesian_2d(x_range, y_range(points, bars))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_labels(6)
        .light_line_style(TRANSPARENT)
        .y_labels(6)
        .y_label_formatter(&|v| format!("{v:.1}"))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))
        .map_err(err)?;
    chart
        .draw_series(points.iter().map(|&(x, y)| Circle::new((x, y), 3, color.filled())))
        .map_err(err)?;
    for &(x, lo, hi) in bars {
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(x, lo), (x, hi)], color.stroke_width(1))))
            .map_err(err)?;
    }
    Ok(())
}
