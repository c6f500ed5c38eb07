use yew::prelude::*;

use crate::state::AppContext;

/// The preset's own report (the benchmark's text output) and its caveats, such as the disk
/// and page-cache models being illustrative.
#[component]
pub fn ReportPanel() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let Some(shown) = state.shown.clone() else {
        return html! {};
    };
    let Some(report) = shown.outcome.report.clone() else {
        return html! {};
    };
    let name = schedlab::workloads::find(&report.preset)
        .map(|p| p.name)
        .unwrap_or("Benchmark");
    html! {
        <section class="panel report-panel" aria-labelledby="report-heading">
            <h2 id="report-heading">{ name }</h2>
            <pre class="report-text" tabindex="0" aria-label={format!("{name} report (scrollable text)")}>{ report.text.trim_end() }</pre>
            { for report.notes.iter()
                // The page's contest table has the Ratio column this note sends people to the CLI for.
                .filter(|n| !(state.is_contest() && n.starts_with("Ratio needs")))
                .map(|n| html! { <p class="model-note">{ n }</p> }) }
        </section>
    }
}
