//! The machine under the run (shown when the scenario has one): dirty data and data under
//! writeback against the background and throttle limits, memory (free, page cache, anonymous,
//! swap), each disk's outstanding reads and writes, and the kernel threads' CPU. One strip
//! each, on the Gantt chart's time axis: the same label column and right margin, the window
//! the timeline shows (the view's zoom) and the time cursor, which a click here sets too.
//! Drawn with plain 2D-canvas calls from `schedlab::machine::MachineSeries`, whose values hold
//! from one grid point to the next (steps).

use plotters::style::RGBColor;
use schedlab::machine::{byte_ceiling, nice_ceiling, MachineSeries};
use schedlab::text::bytes;

use schedlab::link::TimeWindow;
use schedlab::view::{format_ns, time_ticks, RunData, Window};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use super::palette::{self, css, css_alpha, TaskColours};
use super::{
    context_2d, device_pixel_ratio, offset, run_key, size_canvas, tooltip, use_element_width,
    BAR_STYLE, FRAME_STYLE,
};
use crate::components::Shared;
use crate::state::ViewChange;

// The Gantt chart's geometry, so both plots span the same pixels.
const AXIS_H: f64 = 24.0;
const LABEL_W: f64 = 120.0;
const PAD_R: f64 = 12.0;
const GAP: f64 = 8.0;

// Paul Tol's "bright" scheme, apart from the task colours.
const DIRTY: RGBColor = RGBColor(0xee, 0x77, 0x33);
const WRITEBACK: RGBColor = RGBColor(0xaa, 0x33, 0x77);
const BACKGROUND: RGBColor = RGBColor(0xcc, 0x99, 0x00);
const THROTTLE: RGBColor = RGBColor(0xcc, 0x33, 0x11);
const FREE: RGBColor = RGBColor(0x22, 0x88, 0x33);
const CACHE: RGBColor = RGBColor(0x99, 0x99, 0x99);
const ANON: RGBColor = RGBColor(0x44, 0x77, 0xaa);
const SWAP: RGBColor = RGBColor(0xcc, 0x33, 0x11);
const READS: RGBColor = RGBColor(0x44, 0x77, 0xaa);
const WRITES: RGBColor = RGBColor(0xee, 0x77, 0x33);

/// One horizontal strip of the chart.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Strip {
    Dirty,
    Memory,
    Disk(usize),
    Threads,
}

impl Strip {
    fn height(self) -> f64 {
        match self {
            Strip::Dirty => 96.0,
            Strip::Memory => 80.0,
            Strip::Disk(_) | Strip::Threads => 60.0,
        }
    }
}

fn strips(m: &MachineSeries) -> Vec<Strip> {
    let mut v = vec![Strip::Dirty, Strip::Memory];
    v.extend((0..m.disks.len()).map(Strip::Disk));
    if m.kernel_threads.iter().any(|t| !t.cpu_ns.is_empty()) {
        v.push(Strip::Threads);
    }
    v
}

fn chart_height(strips: &[Strip]) -> f64 {
    AXIS_H + strips.iter().map(|s| s.height() + GAP).sum::<f64>()
}

/// Where a text's anchor point is: horizontally (left edge or centre) and vertically.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Anchor {
    LeftTop,
    LeftBottom,
    CentreMiddle,
}

/// What the chart draws on: the canvas, or an SVG document (the export), so both come from
/// the same drawing code. Coordinates are CSS pixels; colours CSS colours.
trait Pen {
    fn fill_rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str);
    fn stroke_rect(&mut self, x: f64, y: f64, w: f64, h: f64, stroke: &str);
    /// A closed polygon, filled.
    fn fill_path(&mut self, points: &[(f64, f64)], fill: &str);
    /// An open line; `dash` draws it dashed (6 on, 4 off).
    fn stroke_path(&mut self, points: &[(f64, f64)], stroke: &str, width: f64, dash: bool);
    /// `font` as CSS (`bold 13px system-ui, sans-serif`); the text squeezed into `max_w`.
    #[allow(clippy::too_many_arguments)]
    fn text(&mut self, text: &str, x: f64, y: f64, at: Anchor, font: &str, fill: &str, max_w: f64);
}

impl Pen for CanvasRenderingContext2d {
    fn fill_rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        self.set_fill_style_str(fill);
        CanvasRenderingContext2d::fill_rect(self, x, y, w, h);
    }
    fn stroke_rect(&mut self, x: f64, y: f64, w: f64, h: f64, stroke: &str) {
        self.set_stroke_style_str(stroke);
        self.set_line_width(1.0);
        CanvasRenderingContext2d::stroke_rect(self, x, y, w, h);
    }
    fn fill_path(&mut self, points: &[(f64, f64)], fill: &str) {
        let Some(path) = path_2d(points, true) else {
            return;
        };
        self.set_fill_style_str(fill);
        self.fill_with_path_2d(&path);
    }
    fn stroke_path(&mut self, points: &[(f64, f64)], stroke: &str, width: f64, dash: bool) {
        if dash {
            let _ = self.set_line_dash(&js_sys::Array::of2(&6.0.into(), &4.0.into()));
        }
        if let Some(path) = path_2d(points, false) {
            self.set_stroke_style_str(stroke);
            self.set_line_width(width);
            self.stroke_with_path(&path);
        }
        if dash {
            let _ = self.set_line_dash(&js_sys::Array::new());
        }
    }
    fn text(&mut self, text: &str, x: f64, y: f64, at: Anchor, font: &str, fill: &str, max_w: f64) {
        let (align, baseline) = match at {
            Anchor::LeftTop => ("left", "top"),
            Anchor::LeftBottom => ("left", "bottom"),
            Anchor::CentreMiddle => ("center", "middle"),
        };
        self.set_font(font);
        self.set_text_align(align);
        self.set_text_baseline(baseline);
        self.set_fill_style_str(fill);
        let _ = self.fill_text_with_max_width(text, x, y, max_w);
    }
}

/// `points` as one canvas path, built from SVG path data in a single call: a strip of the
/// machine chart has up to two points per sample of a 4096-point series, and a `lineTo` call
/// per point across the wasm boundary cost more than the drawing itself. Coordinates are kept
/// to a tenth of a pixel, below what anti-aliasing shows.
fn path_2d(points: &[(f64, f64)], close: bool) -> Option<web_sys::Path2d> {
    use std::fmt::Write;
    if points.is_empty() {
        return None;
    }
    let tenths = |v: f64| (v * 10.0).round() as i64;
    let mut d = String::with_capacity(points.len() * 14 + 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        let (x, y) = (tenths(x), tenths(y));
        let _ = write!(
            d,
            "{}{}{}.{} {}{}.{}",
            if i == 0 { 'M' } else { 'L' },
            if x < 0 { "-" } else { "" },
            x.unsigned_abs() / 10,
            x.unsigned_abs() % 10,
            if y < 0 { "-" } else { "" },
            y.unsigned_abs() / 10,
            y.unsigned_abs() % 10,
        );
    }
    if close {
        d.push('Z');
    }
    web_sys::Path2d::new_with_path_string(&d).ok()
}

/// An SVG document being written: [`Pen`]'s calls as elements.
struct Svg(String);

fn points_attr(points: &[(f64, f64)]) -> String {
    let v: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    v.join(" ")
}

/// Text as SVG character data or an attribute value.
pub(crate) fn xml_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl Pen for Svg {
    fn fill_rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        self.0.push_str(&format!(
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}"/>"#
        ));
    }
    fn stroke_rect(&mut self, x: f64, y: f64, w: f64, h: f64, stroke: &str) {
        self.0.push_str(&format!(
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="none" stroke="{stroke}"/>"#
        ));
    }
    fn fill_path(&mut self, points: &[(f64, f64)], fill: &str) {
        self.0.push_str(&format!(
            r#"<polygon points="{}" fill="{fill}"/>"#,
            points_attr(points)
        ));
    }
    fn stroke_path(&mut self, points: &[(f64, f64)], stroke: &str, width: f64, dash: bool) {
        let dash = if dash {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        self.0.push_str(&format!(
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="{width}"{dash}/>"#,
            points_attr(points)
        ));
    }
    fn text(&mut self, text: &str, x: f64, y: f64, at: Anchor, font: &str, fill: &str, max_w: f64) {
        let (anchor, baseline) = match at {
            Anchor::LeftTop => ("start", "hanging"),
            Anchor::LeftBottom => ("start", "text-after-edge"),
            Anchor::CentreMiddle => ("middle", "middle"),
        };
        let bold = font.starts_with("bold ");
        let size = font
            .split_whitespace()
            .find_map(|w| w.strip_suffix("px"))
            .unwrap_or("13");
        let weight = if bold { r#" font-weight="bold""# } else { "" };
        // Squeezed like the canvas's max width, if the text might not fit.
        let fit = size
            .parse::<f64>()
            .ok()
            .filter(|s| text.chars().count() as f64 * s * 0.58 > max_w)
            .map(|_| format!(r#" textLength="{max_w:.0}" lengthAdjust="spacingAndGlyphs""#))
            .unwrap_or_default();
        self.0.push_str(&format!(
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" dominant-baseline="{baseline}" font-size="{size}"{weight} fill="{fill}"{fit}>{}</text>"#,
            xml_escape(text)
        ));
    }
}

/// The mapping from data to CSS pixels of one strip.
struct Plot<'a> {
    m: &'a MachineSeries,
    window: Window,
    plot_w: f64,
    top: f64,
    h: f64,
    /// The value at the strip's top.
    max: f64,
}

impl Plot<'_> {
    fn x(&self, t: u64) -> f64 {
        LABEL_W + self.window.x(t, self.plot_w).clamp(0.0, self.plot_w)
    }

    fn y(&self, v: f64) -> f64 {
        let f = if self.max > 0.0 { v / self.max } else { 0.0 };
        self.top + self.h - f.clamp(0.0, 1.0) * self.h
    }

    /// The step line of `value(i)` over the window's points. A sample at the height of the one
    /// before continues its step (only the step's end moves), so a series that rests for long
    /// stretches is a few points to write and draw, not two per sample.
    fn trace(&self, value: &dyn Fn(usize) -> f64) -> Vec<(f64, f64)> {
        let range = self.m.points_in(self.window.start, self.window.end);
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(range.len() * 2);
        for i in range {
            let a = self.x(self.m.time(i).max(self.window.start));
            let b = self.x(self.m.time(i + 1).min(self.window.end));
            let y = self.y(value(i));
            if let [.., (_, y0), (end, y1)] = &mut points[..] {
                if *y0 == y && *y1 == y {
                    *end = b;
                    continue;
                }
            }
            points.push((a, y));
            points.push((b, y));
        }
        points
    }

    /// A filled band between `low(i)` and `high(i)`.
    fn band(
        &self,
        pen: &mut dyn Pen,
        low: &dyn Fn(usize) -> f64,
        high: &dyn Fn(usize) -> f64,
        fill: &str,
    ) {
        let mut points = self.trace(high);
        if points.is_empty() {
            return;
        }
        let mut under = self.trace(low);
        under.reverse();
        points.extend(under);
        pen.fill_path(&points, fill);
    }

    fn line(&self, pen: &mut dyn Pen, value: &dyn Fn(usize) -> f64, colour: &str, width: f64) {
        let points = self.trace(value);
        if !points.is_empty() {
            pen.stroke_path(&points, colour, width, false);
        }
    }

    /// A dashed limit across the strip with its name above it at the plot's right edge.
    fn limit(&self, pen: &mut dyn Pen, v: f64, colour: RGBColor, label: &str) {
        let y = self.y(v).round() + 0.5;
        pen.stroke_path(
            &[(LABEL_W, y), (LABEL_W + self.plot_w, y)],
            &css(colour),
            1.5,
            true,
        );
        // On a paper-coloured box, so it reads over the areas.
        // 12 px sans-serif averages under 7 px a character; the box may be a little wide.
        let w = label.chars().count() as f64 * 6.8;
        let x = LABEL_W + self.plot_w - w - 6.0;
        pen.fill_rect(
            x - 3.0,
            y - 16.0,
            w + 6.0,
            15.0,
            &css_alpha(palette::PAPER, 0.85),
        );
        pen.text(
            label,
            x,
            y - 2.0,
            Anchor::LeftBottom,
            "12px system-ui, sans-serif",
            &css(colour),
            w + 6.0,
        );
    }
}

/// Draws the chart on the canvas.
#[allow(clippy::too_many_arguments)]
fn draw(
    canvas: &HtmlCanvasElement,
    colours: &TaskColours,
    m: &MachineSeries,
    window: Window,
    width: f64,
    dpr: f64,
    cursor: Option<u64>,
) {
    let height = chart_height(&strips(m));
    size_canvas(canvas, width as u32, height as u32, dpr);
    let Some(mut ctx) = context_2d(canvas, dpr) else {
        return;
    };
    draw_on(&mut ctx, colours, m, window, width, cursor);
}

/// The chart as a standalone SVG document `width` CSS pixels wide, drawn by the same code as
/// the canvas: the time axis, each strip's frame, labels, areas, lines and limits, the cursor.
pub fn svg(
    colours: &TaskColours,
    m: &MachineSeries,
    window: Window,
    width: u32,
    cursor: Option<u64>,
) -> String {
    let width = f64::from(width.max(200));
    let height = chart_height(&strips(m));
    let mut pen = Svg(format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif">"#
    ));
    draw_on(&mut pen, colours, m, window, width, cursor);
    pen.0.push_str("</svg>\n");
    pen.0
}

fn draw_on(
    pen: &mut dyn Pen,
    colours: &TaskColours,
    m: &MachineSeries,
    window: Window,
    width: f64,
    cursor: Option<u64>,
) {
    let strips = strips(m);
    let height = chart_height(&strips);
    pen.fill_rect(0.0, 0.0, width, height, &css(palette::PAPER));
    let plot_w = (width - LABEL_W - PAD_R).max(1.0);

    // Time axis and grid, as the Gantt chart draws them.
    let max_ticks = (plot_w / 90.0).max(2.0) as u32;
    for tick in time_ticks(window, max_ticks) {
        let x = LABEL_W + window.x(tick.time, plot_w);
        let xl = x.round() + 0.5;
        pen.stroke_path(
            &[(xl, AXIS_H - 4.0), (xl, height)],
            &css(palette::RULE),
            1.0,
            false,
        );
        pen.text(
            &tick.label,
            x,
            AXIS_H / 2.0,
            Anchor::CentreMiddle,
            "13px system-ui, sans-serif",
            &css(palette::MUTED),
            90.0,
        );
    }

    let mut top = AXIS_H;
    let label = |pen: &mut dyn Pen, text: &str, y: f64, font: &str, colour: RGBColor| {
        pen.text(
            text,
            8.0,
            y,
            Anchor::LeftTop,
            font,
            &css(colour),
            LABEL_W - 14.0,
        );
    };
    for strip in strips {
        let h = strip.height();
        let (title, max) = strip_scale(m, strip);
        let p = Plot {
            m,
            window,
            plot_w,
            top,
            h,
            max: max as f64,
        };
        // Frame and labels: the title, then the scale at the top of the strip.
        pen.stroke_rect(
            LABEL_W + 0.5,
            top + 0.5,
            plot_w - 1.0,
            h - 1.0,
            &css(palette::RULE),
        );
        label(
            pen,
            &title,
            top + 2.0,
            "bold 13px system-ui, sans-serif",
            palette::INK,
        );
        let scale = match strip {
            Strip::Dirty | Strip::Memory => format!("0 – {}", bytes(max)),
            Strip::Disk(_) => format!("0 – {max} requests"),
            Strip::Threads => format!("0 – {} % of a CPU", max / 10),
        };
        let small = "12px system-ui, sans-serif";
        label(pen, &scale, top + 20.0, small, palette::MUTED);
        if let Strip::Disk(d) = strip {
            if let Some(disk) = m.disks.get(d) {
                label(pen, &disk.elevator, top + 36.0, small, palette::MUTED);
            }
        }
        draw_strip(pen, &p, colours, strip);
        top += h + GAP;
    }

    if let Some(t) = cursor.filter(|&t| window.start <= t && t <= window.end) {
        let x = (LABEL_W + window.x(t, plot_w)).round();
        for (colour, width) in [(palette::PAPER, 4.0), (palette::INK, 2.0)] {
            pen.stroke_path(&[(x, 0.0), (x, height)], &css(colour), width, false);
        }
    }
}

/// A strip's title and the value at its top.
fn strip_scale(m: &MachineSeries, strip: Strip) -> (String, u64) {
    match strip {
        Strip::Dirty => (
            "dirty data".to_owned(),
            byte_ceiling(
                m.peak_dirty()
                    .max(m.dirty_limit_bytes + m.dirty_limit_bytes / 10),
            ),
        ),
        Strip::Memory => ("memory".to_owned(), m.ram_bytes.max(1)),
        Strip::Disk(d) => {
            let disk = &m.disks[d];
            let peak = disk
                .reads
                .iter()
                .zip(&disk.writes)
                .map(|(r, w)| u64::from(*r) + u64::from(*w))
                .max()
                .unwrap_or(0);
            (format!("{} queue", disk.name), nice_ceiling(peak, 1))
        }
        Strip::Threads => {
            // Per mille of a CPU: a round ceiling over the busiest interval, at least 1 %.
            let peak = (0..m.kernel_threads.len())
                .flat_map(|k| (0..m.len()).map(move |i| (k, i)))
                .map(|(k, i)| m.thread_permille(k, i))
                .max()
                .unwrap_or(0);
            (
                "kernel threads".to_owned(),
                nice_ceiling(peak.max(10), 10).min(1000),
            )
        }
    }
}

fn draw_strip(pen: &mut dyn Pen, p: &Plot<'_>, colours: &TaskColours, strip: Strip) {
    let m = p.m;
    let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0) as f64;
    match strip {
        Strip::Dirty => {
            let dirty = |i| at(&m.dirty_bytes, i);
            let total = |i| m.dirty_total(i) as f64;
            p.band(pen, &|_| 0.0, &dirty, &css_alpha(DIRTY, 0.75));
            p.band(pen, &dirty, &total, &css_alpha(WRITEBACK, 0.6));
            p.limit(
                pen,
                m.background_limit_bytes as f64,
                BACKGROUND,
                &format!("background {}", bytes(m.background_limit_bytes)),
            );
            p.limit(
                pen,
                m.dirty_limit_bytes as f64,
                THROTTLE,
                &format!("throttle {}", bytes(m.dirty_limit_bytes)),
            );
        }
        Strip::Memory => {
            p.band(
                pen,
                &|_| 0.0,
                &|i| at(&m.cached_bytes, i),
                &css_alpha(CACHE, 0.35),
            );
            p.band(
                pen,
                &|_| 0.0,
                &|i| at(&m.free_bytes, i),
                &css_alpha(FREE, 0.35),
            );
            p.line(pen, &|i| at(&m.anon_bytes, i), &css(ANON), 2.0);
            if m.swap_bytes.iter().any(|&s| s > 0) {
                p.line(pen, &|i| at(&m.swap_bytes, i), &css(SWAP), 2.0);
            }
            p.line(pen, &|i| at(&m.free_bytes, i), &css(FREE), 2.0);
            if m.low_free_bytes > 0 {
                p.limit(
                    pen,
                    m.low_free_bytes as f64,
                    palette::MUTED,
                    &format!("kswapd wakes below {}", bytes(m.low_free_bytes)),
                );
            }
        }
        Strip::Disk(d) => {
            let disk = &m.disks[d];
            let r = |i: usize| disk.reads.get(i).copied().unwrap_or(0) as f64;
            let w = |i: usize| disk.writes.get(i).copied().unwrap_or(0) as f64;
            p.band(pen, &|_| 0.0, &r, &css_alpha(READS, 0.8));
            p.band(pen, &r, &|i| r(i) + w(i), &css_alpha(WRITES, 0.7));
        }
        Strip::Threads => {
            // A picked thread is drawn last, over the faded others, and thicker.
            let mut order: Vec<usize> = (0..m.kernel_threads.len()).collect();
            schedlab::engine::sort::sort_by_key(&mut order, |&k| {
                colours.is_picked(m.kernel_threads[k].id)
            });
            for k in order {
                let th = &m.kernel_threads[k];
                let width = if colours.is_picked(th.id) { 3.0 } else { 2.0 };
                p.line(
                    pen,
                    &|i| m.thread_permille(k, i) as f64,
                    &colours.of(th.id).css(),
                    width,
                );
            }
        }
    }
}

fn swatch(colour: String, dashed: bool) -> Html {
    let style = if dashed {
        format!(
            "display:inline-block;width:1.4rem;height:0;border-top:2px dashed {colour};\
             vertical-align:middle;margin-right:0.3rem"
        )
    } else {
        format!(
            "display:inline-block;width:1.1rem;height:12px;background:{colour};\
             vertical-align:middle;margin-right:0.3rem"
        )
    };
    html! { <span aria-hidden="true" {style} /> }
}

fn legend(colours: &TaskColours, m: &MachineSeries) -> Html {
    let style = "display:flex;flex-wrap:wrap;gap:0.25rem 1rem;font-size:0.85rem;margin-top:0.4rem";
    let item = |colour: String, dashed: bool, text: String| {
        html! { <span>{ swatch(colour, dashed) }{ text }</span> }
    };
    html! {
        <div class="chart-legend" style={style}>
            { item(css_alpha(DIRTY, 0.75), false, "dirty".into()) }
            { item(css_alpha(WRITEBACK, 0.6), false, "under writeback".into()) }
            { item(css(BACKGROUND), true, "dirty_background_ratio: the flusher starts".into()) }
            { item(css(THROTTLE), true, "dirty_ratio: writers are throttled".into()) }
            { item(css(FREE), false, "free memory".into()) }
            { item(css_alpha(CACHE, 0.5), false, "page cache".into()) }
            { item(css(ANON), false, "anonymous memory".into()) }
            if m.swap_bytes.iter().any(|&s| s > 0) {
                { item(css(SWAP), false, "swap used".into()) }
            }
            { item(css_alpha(READS, 0.8), false, "reads queued or in service".into()) }
            { item(css_alpha(WRITES, 0.7), false, "writes queued or in service".into()) }
            { for m.kernel_threads.iter().map(|th| {
                item(colours.of(th.id).css(), false, format!("{} CPU", th.name))
            }) }
        </div>
    }
}

/// The run is compared by pointer (`Shared`): a comparison by value walked the whole run
/// (0.5 ms a contest slider move, profiled), even for the same one.
#[derive(Properties, PartialEq)]
pub struct MachineProps {
    pub data: Shared<RunData>,
    /// The Gantt chart's time window; `None` (or a window past this run) shows the whole run.
    pub zoom: Option<TimeWindow>,
    /// The inspector's time cursor (ns).
    pub cursor: Option<u64>,
    /// Where a click's new cursor goes.
    pub onview: Callback<ViewChange>,
    /// The task in focus, by name: a kernel thread's line stands out when it is.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    /// The tasks compared with it, by name.
    #[prop_or_default]
    pub compared: Vec<AttrValue>,
}

#[component]
pub fn MachineChart(props: &MachineProps) -> Html {
    let data = props.data.clone();
    let key = run_key(&data);
    let frame = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(frame.clone());
    let hover = use_state_eq(|| None::<((f64, f64), Vec<String>)>);
    let dpr = device_pixel_ratio();
    let cursor = props.cursor;
    let limit = data.shown_until_ns.max(1);
    let window = Window::shown(props.zoom, limit);

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
    {
        let canvas = canvas.clone();
        let data = data.clone();
        let colours = colours.clone();
        use_effect_with(
            (key, window, width, dpr.to_bits(), cursor, colours.clone()),
            move |_| {
                let (Some(c), Some(m)) =
                    (canvas.cast::<HtmlCanvasElement>(), data.machine.as_ref())
                else {
                    return;
                };
                if width > 0 {
                    draw(&c, &colours, m, window, width as f64, dpr, cursor);
                }
            },
        );
    }

    let Some(m) = data.machine.as_ref() else {
        return html! {};
    };
    let plot_w = (width as f64 - LABEL_W - PAD_R).max(1.0);
    let onmousemove = {
        let hover = hover.clone();
        let data = data.clone();
        Callback::from(move |e: MouseEvent| {
            let (x, _) = offset(&e);
            let Some(m) = data.machine.as_ref().filter(|_| x >= LABEL_W) else {
                hover.set(None);
                return;
            };
            let t = window.time_at(x - LABEL_W, plot_w);
            let mut lines = vec![format!("at {}", format_ns(t))];
            lines.extend(m.describe_at(t));
            hover.set(Some(((e.client_x() as f64, e.client_y() as f64), lines)));
        })
    };
    let onmouseleave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let onview = props.onview.clone();
    let onclick = Callback::from(move |e: MouseEvent| {
        let (x, _) = offset(&e);
        if x >= LABEL_W && e.button() == 0 {
            let t = window.time_at(x - LABEL_W, plot_w);
            // Whole microseconds, as the Gantt chart sets it.
            let t = (t + 500) / 1_000 * 1_000;
            onview.emit(ViewChange::SetCursor(Some(t.min(limit))));
        }
    });
    let height = chart_height(&strips(m)) as u32;
    let peak = m.peak_dirty();
    html! {
        <section class="chart chart-machine" style={FRAME_STYLE} aria-label="Machine: memory, dirty data, disk queues and kernel threads over time"
            data-testid="machine-chart-section" data-peak-dirty-bytes={peak.to_string()} data-points={m.len().to_string()}
            data-window={format!("{}-{}", window.start, window.end)}>
            <div class="chart-bar" style={BAR_STYLE}>
                <strong>{ "Machine" }</strong>
                <span data-testid="machine-summary" style="color:#5a6473">
                    { format!(
                        "peak dirty + writeback {} · throttle at {} · background at {} · RAM {}",
                        bytes(peak), bytes(m.dirty_limit_bytes), bytes(m.background_limit_bytes), bytes(m.ram_bytes)
                    ) }
                </span>
            </div>
            <div ref={frame}>
                <canvas ref={canvas} data-testid="machine-chart"
                    style={format!("display:block;width:100%;height:{height}px;cursor:crosshair")}
                    {onmousemove} {onmouseleave} {onclick} />
            </div>
            { legend(&colours, m) }
            { tooltip(hover.as_ref().map(|h| h.0), hover.as_ref().map_or(&[][..], |h| &h.1[..])) }
        </section>
    }
}
