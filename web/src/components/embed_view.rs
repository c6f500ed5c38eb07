//! The compact view for an iframe in slides (`view.embed`, or `?embed=gantt|sweep|card` in the
//! page's address): one chart of the run and a small link that opens the whole page on the same
//! run, without the editing column. The app around it runs as on the full page.

use schedlab::link::{Embed, LinkState, ViewState};
use yew::prelude::*;

use crate::charts::GanttChart;
use crate::components::sweep_panel::{SweepPanel, SweepPanelProps};
use crate::components::Shared;
use crate::state::{Shown, ViewChange};

/// The embed mode the page's address asks for with `?embed=NAME`, if it names one.
pub fn query_embed() -> Option<Embed> {
    let search = web_sys::window()?.location().search().ok()?;
    search
        .trim_start_matches('?')
        .split('&')
        .find_map(|p| p.strip_prefix("embed="))
        .and_then(Embed::from_name)
}

/// The link that opens this run on the whole page: the same scenario and view, no embed.
fn open_href(link: Option<&LinkState>) -> Option<String> {
    let mut link = link?.clone();
    link.view.embed = None;
    let location = web_sys::window()?.location();
    let base = format!("{}{}", location.origin().ok()?, location.pathname().ok()?);
    Some(schedlab::encode_url(&base, &link))
}

/// The run's card: the policy and its settings, the summary figures and the benchmark's report.
fn card(shown: Option<&Shown>) -> Html {
    let Some(shown) = shown else {
        return html! { <div class="chart-slot small-slot">{ "The run's card appears when the run finishes." }</div> };
    };
    let r = &shown.outcome.result;
    let mut title = shown.scenario.policy.id.clone();
    for (k, v) in &shown.scenario.policy.tunables {
        title.push_str(&format!(" · {k} {v}"));
    }
    // The summary's rows, read for one run (A and B the same).
    let summary = schedlab::compare::summary(r, r);
    html! {
        <section class="panel embed-card" data-testid="embed-card" aria-label="Run card">
            <h2>{ title }</h2>
            <p class="muted">{ format!("{} CPU{}, seed {}, trace hash {}", shown.scenario.cpus,
                if shown.scenario.cpus == 1 { "" } else { "s" }, shown.scenario.seed, r.trace_hash) }</p>
            <dl class="embed-figures">
                { for summary.rows.iter().map(|row| html! {
                    <div data-metric={row.key}><dt>{ row.label }</dt><dd>{ row.unit.format(row.a) }</dd></div>
                }) }
                <div data-metric="jain_fairness"><dt>{ "Jain's fairness" }</dt><dd>{ format!("{:.3}", summary.fairness.0) }</dd></div>
            </dl>
            if let Some(report) = &shown.outcome.report {
                <pre class="report-text" tabindex="0" aria-label="Benchmark report (scrollable text)">{ report.text.trim_end() }</pre>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct EmbedViewProps {
    pub embed: Embed,
    /// The run on screen, if one has finished.
    #[prop_or_default]
    pub shown: Option<Shared<Shown>>,
    /// Lanes, zoom, cursor and selected task of the Gantt chart.
    #[prop_or_default]
    pub view: ViewState,
    /// The link to what is on screen (`AppState::link_state`), for "open in schedlab".
    #[prop_or_default]
    pub link: Option<LinkState>,
    /// The sweep panel's props, for `Embed::Sweep`.
    #[prop_or_default]
    pub sweep: Option<SweepPanelProps>,
    pub onview: Callback<ViewChange>,
}

#[component]
pub fn EmbedView(props: &EmbedViewProps) -> Html {
    let view = &props.view;
    let body = match props.embed {
        Embed::Gantt => match &props.shown {
            Some(shown) => html! {
                <GanttChart data={shown.data.clone()} lanes={view.lanes} zoom={view.zoom}
                    cursor={view.cursor_ns} selected={view.selected_task.clone().map(AttrValue::from)}
                    onview={props.onview.clone()} />
            },
            None => {
                html! { <div class="chart-slot gantt-slot">{ "The Gantt chart appears when the run finishes." }</div> }
            }
        },
        Embed::Sweep => match &props.sweep {
            Some(sweep) => html! { <SweepPanel ..sweep.clone() /> },
            None => html! {},
        },
        Embed::Card => card(props.shown.as_deref()),
    };
    html! {
        <main class="embed" data-testid="embed" data-embed={props.embed.name()}>
            { body }
            if let Some(href) = open_href(props.link.as_ref()) {
                <a class="embed-open" data-testid="embed-open" {href} target="_blank" rel="noopener">
                    { "open in schedlab" }
                </a>
            }
        </main>
    }
}
