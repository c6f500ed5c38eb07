//! Downloads of the run on screen: its per-task metrics as CSV (what `schedlab run --csv`
//! writes) and its trace for Perfetto (what `schedlab run --perfetto` writes), both built by
//! the library from the same data the charts show.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};
use yew::prelude::*;

use crate::state::AppContext;

/// Offers `text` to the browser as a file called `name`.
fn download(name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let link: HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
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
        let name = format!("{stem}.perfetto.json");
        Callback::from(move |_| {
            download(&name, "application/json", &shown.data.chrome_trace()).ok();
        })
    };
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
        </div>
    }
}
