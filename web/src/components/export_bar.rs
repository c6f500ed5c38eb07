//! Downloads of the run on screen: its per-task metrics as CSV (what `schedlab run --csv`
//! writes), its trace for Perfetto (what `schedlab run --perfetto` writes), both built by
//! the library from the same data the charts show, its scenario as a JSON file (what
//! `schedlab run` reads), and each chart as a PNG (the canvas as drawn) and as SVG (drawn by
//! the same code from the same data, in the same view: the Gantt chart's level of detail, the
//! plotters charts on plotters' SVG backend, the machine chart through its pen), at the size
//! it has on screen.

use schedlab::view::Window;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, HtmlCanvasElement, Url};
use yew::prelude::*;

use std::rc::Rc;

use schedlab::link::ViewState;

use crate::components::Shared;
use crate::state::{Shown, SweepRun};

fn document() -> Result<web_sys::Document, JsValue> {
    web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))
}

/// Clicks a link to `href` that downloads as `name`.
fn save(href: &str, name: &str) -> Result<(), JsValue> {
    let link: HtmlAnchorElement = document()?.create_element("a")?.dyn_into()?;
    link.set_href(href);
    link.set_download(name);
    link.click();
    Ok(())
}

/// Offers the chart canvas with `data-testid` `testid` as a PNG called `name`.
fn download_png(testid: &str, name: &str) -> Result<(), JsValue> {
    let canvas: HtmlCanvasElement = document()?
        .query_selector(&format!("canvas[data-testid=\"{testid}\"]"))?
        .ok_or_else(|| JsValue::from_str("no such chart"))?
        .dyn_into()?;
    save(&canvas.to_data_url_with_type("image/png")?, name)
}

/// Offers `text` to the browser as a file called `name`.
fn download(name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    save(&url, name)?;
    // The download has taken its copy once the click is handled; free the blob a moment later.
    yew::platform::spawn_local(async move {
        yew::platform::time::sleep(std::time::Duration::from_secs(10)).await;
        Url::revoke_object_url(&url).ok();
    });
    Ok(())
}

/// The sweep on screen, as its SVG draws it.
#[derive(Clone, PartialEq)]
pub struct SweepShown {
    pub run: Rc<SweepRun>,
    /// The draft's value of the swept tunable (the plot's marker).
    pub marker: Option<i64>,
    /// The draft moved on since the sweep ran.
    pub stale: bool,
}

#[derive(Properties, PartialEq)]
pub struct ExportBarProps {
    /// The run on screen, if one has finished.
    pub shown: Option<Shared<Shown>>,
    /// The view the chart drawings follow: lanes, zoom, cursor, focus and compared tasks.
    pub view: ViewState,
    #[prop_or_default]
    pub sweep: Option<SweepShown>,
}

#[component]
pub fn ExportBar(props: &ExportBarProps) -> Html {
    let Some(shown) = props.shown.clone() else {
        return html! {};
    };
    let stem = format!(
        "schedlab-{}-{}",
        shown.scenario.policy.id, shown.outcome.result.trace_hash
    );
    // The page holds at most view::TASK_LIMIT tasks of a run; the CLI writes every one.
    let csv_title = match &shown.data.omitted {
        None => "Per-task metrics of this run as CSV (as schedlab run --csv writes them)".to_owned(),
        Some(_) => format!(
            "Per-task metrics of the first {} tasks of this run as CSV; schedlab run --csv writes all {} of them",
            shown.data.tasks.len(),
            shown.data.task_count()
        ),
    };
    let on_csv = {
        let shown = shown.clone();
        let name = format!("{stem}.csv");
        Callback::from(move |_| {
            download(&name, "text/csv", &shown.outcome.result.tasks_csv()).ok();
        })
    };
    let on_perfetto = {
        let shown = shown.clone();
        let name = format!("{stem}.perfetto.json");
        Callback::from(move |_| {
            download(&name, "application/json", &shown.data.chrome_trace()).ok();
        })
    };
    let on_scenario = {
        let shown = shown.clone();
        let name = format!("{stem}.scenario.json");
        Callback::from(move |_| {
            if let Ok(json) = serde_json::to_string_pretty(&*shown.scenario) {
                download(&name, "application/json", &json).ok();
            }
        })
    };
    let mut charts = vec![
        ("gantt", "Gantt chart", "Gantt"),
        ("latency-histogram", "latency histogram", "Latency"),
        ("share-chart", "CPU share chart", "CPU share"),
    ];
    if shown.data.machine.is_some() {
        charts.push(("machine-chart", "machine chart", "Machine"));
    }
    if shown.data.observed.is_some() {
        charts.push(("observed-chart", "policy's value over time", "Observed"));
    }
    if props.sweep.is_some() {
        charts.push(("sweep-plot", "sweep plot", "Sweep"));
    }
    let pngs = charts.iter().map(|&(id, what, short)| {
        let name = format!("{stem}.{id}.png");
        let onclick = Callback::from(move |_| {
            download_png(id, &name).ok();
        });
        html! {
            <button type="button" data-testid={format!("export-png-{id}")} {onclick}
                title={format!("The {what} as a PNG image, as drawn")}>
                { format!("{short} PNG") }
            </button>
        }
    });
    let svgs = charts.iter().map(|&(id, what, short)| {
        let name = format!("{stem}.{id}.svg");
        let view = props.view.clone();
        let sweep = props.sweep.clone();
        let shown = shown.clone();
        let onclick = Callback::from(move |_| {
            if let Some(svg) = chart_svg(&view, sweep.as_ref(), &shown, id) {
                download(&name, "image/svg+xml", &svg).ok();
            }
        });
        html! {
            <button type="button" data-testid={format!("export-svg-{id}")} {onclick}
                title={format!("The {what} in this view as an SVG drawing")}>
                { format!("{short} SVG") }
            </button>
        }
    });
    html! {
        <div class="export-bar" role="group" aria-label="Export the run on screen">
            <span class="muted">{ "Export" }</span>
            <button type="button" data-testid="export-csv" onclick={on_csv} title={csv_title}>
                { "CSV" }
            </button>
            <button type="button" data-testid="export-perfetto" onclick={on_perfetto}
                title="This run's CPU lanes, task states and policy notes as a trace for ui.perfetto.dev">
                { "Perfetto trace" }
            </button>
            <button type="button" data-testid="export-scenario" onclick={on_scenario}
                title="This run's scenario as a JSON file: schedlab run reads it, the page's JSON editor takes it">
                { "Scenario" }
            </button>
            <details class="export-images" data-testid="export-images">
                <summary>{ "Chart images" }</summary>
                <div class="export-images-list">
                    { for svgs }
                    { for pngs }
                </div>
            </details>
        </div>
    }
}

/// The CSS size the canvas with `data-testid` `testid` has on screen (or `fallback`).
fn canvas_size(testid: &str, fallback: (u32, u32)) -> (u32, u32) {
    document()
        .ok()
        .and_then(|d| {
            d.query_selector(&format!("canvas[data-testid=\"{testid}\"]"))
                .ok()
                .flatten()
        })
        .map(|c| {
            (
                c.client_width().max(0) as u32,
                c.client_height().max(0) as u32,
            )
        })
        .filter(|&(w, h)| w > 0 && h > 0)
        .unwrap_or(fallback)
}

/// Chart `id` of the run on screen as SVG, in the page's view (lanes, zoom, cursor, the task
/// in focus and the compared ones), at its size on screen. `None`: no such chart now.
fn chart_svg(
    view: &ViewState,
    sweep: Option<&SweepShown>,
    shown: &Shown,
    id: &str,
) -> Option<String> {
    use crate::charts;
    let data = &shown.data;
    let colours = charts::palette::TaskColours::new(
        data,
        view.selected_task.as_deref(),
        view.compared_tasks.iter().map(String::as_str),
    );
    let size = canvas_size(id, (960, 260));
    let window = Window::shown(view.zoom, data.shown_until_ns);
    Some(match id {
        "gantt" => charts::gantt::svg(data, &colours, view.lanes, window, size.0),
        "latency-histogram" => {
            charts::latency::svg(data, view.selected_task.as_deref(), &colours, size)
        }
        "share-chart" => charts::share::svg(data, &colours, size),
        "observed-chart" => charts::observed::svg(data, &colours, size),
        "machine-chart" => charts::machine::svg(
            &colours,
            data.machine.as_ref()?,
            window,
            size.0,
            view.cursor_ns,
        ),
        "sweep-plot" => {
            let s = sweep?;
            charts::sweep::svg(&s.run, s.marker, s.stale, size)
        }
        _ => return None,
    })
}
