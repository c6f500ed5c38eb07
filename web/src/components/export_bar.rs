//! Downloads of the run on screen: its per-task metrics as CSV (what `schedlab run --csv`
//! writes), its trace for Perfetto (what `schedlab run --perfetto` writes), both built by
//! the library from the same data the charts show, its scenario as a JSON file (what
//! `schedlab run` reads), each chart as a PNG (the canvas as drawn) and the Gantt chart as SVG
//! (drawn from the same data in the same view).

use schedlab::view::Window;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, HtmlCanvasElement, Url};
use yew::prelude::*;

use crate::state::AppContext;

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

#[component]
pub fn ExportBar() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let Some(shown) = state.shown.clone() else {
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
    // The Gantt chart in the view on screen (lanes, zoom), at the canvas's width.
    let on_gantt_svg = {
        let shown = shown.clone();
        let view = state.view.clone();
        let name = format!("{stem}.gantt.svg");
        Callback::from(move |_| {
            let width = document()
                .ok()
                .and_then(|d| {
                    d.query_selector("canvas[data-testid=\"gantt\"]")
                        .ok()
                        .flatten()
                })
                .map_or(960, |c| c.client_width().max(0) as u32);
            let window = Window::shown(view.zoom, shown.data.shown_until_ns);
            let colours = crate::charts::palette::TaskColours::new(
                &shown.data,
                view.selected_task.as_deref(),
                view.compared_tasks.iter().map(String::as_str),
            );
            let svg = crate::charts::gantt::svg(&shown.data, &colours, view.lanes, window, width);
            download(&name, "image/svg+xml", &svg).ok();
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
    let pngs = charts.into_iter().map(|(id, what, short)| {
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
                    <button type="button" data-testid="export-svg-gantt" onclick={on_gantt_svg}
                        title="The Gantt chart in this view as an SVG drawing">
                        { "Gantt SVG" }
                    </button>
                    { for pngs }
                </div>
            </details>
        </div>
    }
}
