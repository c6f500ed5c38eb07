use yew::prelude::*;

use crate::hooks::use_deferred::use_deferred;
use crate::protocol::ReportView;

#[derive(Properties, PartialEq)]
pub struct ReportPanelProps {
    /// The report of the run on screen, when it ran a preset.
    pub report: Option<ReportView>,
    /// The draft is contest: its table has the Ratio column a note would send people to the
    /// CLI for.
    #[prop_or_default]
    pub contest: bool,
}

/// The preset's own report (the benchmark's text output) and its caveats, such as the disk
/// and page-cache models being illustrative.
#[component]
pub fn ReportPanel(props: &ReportPanelProps) -> Html {
    // A new run's report follows its charts by a painted frame, as the tables under them do:
    // while a slider moves, the Gantt chart is redrawn and painted before the report's text is
    // replaced and laid out. The text is a component of its own, so until then this one
    // renders nothing new.
    let report = use_deferred(props.report.clone());
    html! { <ReportText {report} contest={props.contest} /> }
}

/// The report of [`ReportPanel`] as it is given now.
#[component]
fn ReportText(props: &ReportPanelProps) -> Html {
    let Some(report) = &props.report else {
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
                .filter(|n| !(props.contest && n.starts_with("Ratio needs")))
                .map(|n| html! { <p class="model-note">{ n }</p> }) }
        </section>
    }
}
