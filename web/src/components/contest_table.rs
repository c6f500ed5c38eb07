use schedlab::engine::scenario::PolicySpec;
use schedlab::link::PresetRef;
use schedlab::workloads::contest::{label, ContestRun, Row, LOADS};
use schedlab::workloads::seeds::model_interval;
use schedlab::workloads::seeds::published::{contest_column, Figure};
use schedlab::workloads::stats::{div_round, fixed};
use yew::prelude::*;

use crate::hooks::use_deferred::use_deferred;
use crate::protocol::ContestCells;

/// One load's Time (ms) and Ratio (×100, against the same rows' noload) in `rows`, if done.
fn time_and_ratio(kernel: &str, rows: &[ContestCells], load: &str) -> Option<(u64, Option<u64>)> {
    let noload = rows
        .iter()
        .find(|r| r.load == "noload")
        .map(|r| Row::from_runs(kernel, &[ContestRun::from(r)]).time_ms);
    let cells = rows.iter().find(|r| r.load == load)?;
    let mut row = Row::from_runs(kernel, &[ContestRun::from(cells)]);
    if let Some(ms) = noload {
        row.set_ratio(ms);
    }
    Some((row.time_ms, row.ratio_x100))
}

/// A/B mode with both runs' contest rows: Time and Ratio of A, of B and the change, per load.
fn compare_table(kernel_a: &str, a: &[ContestCells], kernel_b: &str, b: &[ContestCells]) -> Html {
    let secs = |ms: u64| fixed(div_round(u128::from(ms), 100) as i64, 1);
    let delta = |x: Option<u64>, y: Option<u64>, f: &dyn Fn(i64) -> String| -> String {
        match (x, y) {
            (Some(x), Some(y)) => {
                let d = y as i64 - x as i64;
                format!(
                    "{}{}",
                    if d > 0 {
                        "+"
                    } else if d < 0 {
                        "−"
                    } else {
                        "±"
                    },
                    f(d.abs())
                )
            }
            _ => "…".into(),
        }
    };
    let time_d = |d: i64| fixed(div_round(d as u128, 100) as i64, 1);
    let ratio_d = |d: i64| fixed(d, 2);
    html! {
        <>
            <h3 class="seed-heading">{ "Compared: A (pinned) and B (on screen)" }</h3>
            <div class="table-scroll">
                <table class="contest-table" data-testid="contest-compare">
                    <thead>
                        <tr>
                            <th scope="col">{ "Load" }</th>
                            <th scope="col" class="num" title={format!("A: {kernel_a}")}><span class="run-label">{ "A" }</span>{ " Time" }</th>
                            <th scope="col" class="num" title={format!("B: {kernel_b}")}><span class="run-label">{ "B" }</span>{ " Time" }</th>
                            <th scope="col" class="num">{ "Δ Time" }</th>
                            <th scope="col" class="num"><span class="run-label">{ "A" }</span>{ " Ratio" }</th>
                            <th scope="col" class="num"><span class="run-label">{ "B" }</span>{ " Ratio" }</th>
                            <th scope="col" class="num">{ "Δ Ratio" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for LOADS.iter().map(|load| {
                            let x = time_and_ratio(kernel_a, a, load);
                            let y = time_and_ratio(kernel_b, b, load);
                            let (ta, tb) = (x.map(|v| v.0), y.map(|v| v.0));
                            let (ra, rb) = (x.and_then(|v| v.1), y.and_then(|v| v.1));
                            let ratio = |r: Option<u64>| r.map_or_else(|| "…".into(), |r| fixed(r as i64, 2));
                            html! {
                                <tr data-load={*load}>
                                    <th scope="row">{ *load }</th>
                                    <td class="num" data-col="a-time">{ ta.map_or_else(|| "…".into(), secs) }</td>
                                    <td class="num" data-col="b-time">{ tb.map_or_else(|| "…".into(), secs) }</td>
                                    <td class="num delta" data-col="delta-time">{ delta(ta, tb, &time_d) }</td>
                                    <td class="num" data-col="a-ratio">{ ratio(ra) }</td>
                                    <td class="num" data-col="b-ratio">{ ratio(rb) }</td>
                                    <td class="num delta" data-col="delta-ratio">{ delta(ra, rb, &ratio_d) }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            <p class="muted">{ format!("A: {kernel_a}. B: {kernel_b}. Δ is B − A; Time in seconds.") }</p>
        </>
    }
}

#[derive(Properties, PartialEq, Clone)]
pub struct ContestTableProps {
    /// The configuration the rows run: the draft's policy with its tunables, CPUs and seed.
    pub policy: PolicySpec,
    pub cpus: u32,
    pub seed: u64,
    /// The load the preset's parameters pick ([`selected_load`]): its row is marked.
    pub selected: &'static str,
    /// The loads done so far, in any order.
    pub rows: Vec<ContestCells>,
    /// A/B mode: the pinned run's policy and its rows, when it has some.
    #[prop_or_default]
    pub pinned: Option<(PolicySpec, Vec<ContestCells>)>,
}

/// The load a contest preset's `load` parameter picks; noload when it picks none.
pub fn selected_load(preset: Option<&PresetRef>) -> &'static str {
    preset
        .and_then(|p| p.params.get("load").copied())
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| LOADS.get(i).copied())
        .unwrap_or("noload")
}

/// Contest's table for the current policy and tunables, in the seeds' columns (Kernel [runs]
/// Time CPU% Loads LCPU% Ratio), filled in load by load as the worker finishes them. When the
/// policy, its tunables and the CPU count are a configuration a seed ran, the seed's published
/// Time and Ratio stand beside the live ones, with their run counts (and the lowest and highest
/// run where the seed gives every run), and schedlab's own 10-seed mean with its 95 % interval
/// from the committed seed comparison.
#[component]
pub fn ContestTable(props: &ContestTableProps) -> Html {
    // A change follows the Gantt chart's frame (`use_deferred`), so a slider's redraw does not
    // wait for this table; the table is a component of its own, so until then nothing of it
    // renders again. The configuration and its rows change together.
    let now = use_deferred(Some(props.clone())).unwrap_or_else(|| props.clone());
    html! { <ContestRows ..now /> }
}

/// The table of [`ContestTable`] with the rows it is given now.
#[component]
fn ContestRows(props: &ContestTableProps) -> Html {
    let rows = &props.rows;
    let (policy, cpus) = (&props.policy, props.cpus);
    let kernel = label(policy);
    let noload_ms = rows
        .iter()
        .find(|r| r.load == "noload")
        .map(|r| Row::from_runs(&kernel, &[ContestRun::from(r)]).time_ms);
    let done = rows.len();
    let kernel = AttrValue::from(kernel);
    html! {
        <section class="panel contest-panel" aria-labelledby="contest-heading">
            <h2 id="contest-heading">{ "contest" }
                <span class="muted">{ format!(" — {kernel}, seed {}, {cpus} CPU{}", props.seed, if cpus == 1 { "" } else { "s" }) }</span>
            </h2>
            <p class="muted contest-progress" aria-live="polite">
                { if done < LOADS.len() { format!("Running load {} of {}…", done + 1, LOADS.len()) } else { "All loads done.".to_string() } }
            </p>
            <div class="table-scroll">
                <table class="contest-table" data-testid="contest-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Load" }</th>
                            <th scope="col" class="num" title="Compile time, seconds">{ "Time" }</th>
                            <th scope="col" class="num" title="CPU of the compile over its time">{ "CPU%" }</th>
                            <th scope="col" class="num" title="Work the load did, in its own unit">{ "Loads" }</th>
                            <th scope="col" class="num" title="The load's CPU over its lifetime">{ "LCPU%" }</th>
                            <th scope="col" class="num" title="Time over this configuration's noload Time">{ "Ratio" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for LOADS.iter().map(|load| html! {
                            <LoadRow key={*load} {load} cells={rows.iter().find(|r| r.load == *load).cloned()}
                                {noload_ms} selected={*load == props.selected} kernel={kernel.clone()} />
                        }) }
                    </tbody>
                </table>
            </div>
            if let Some((a, a_rows)) = props.pinned.as_ref().filter(|(_, r)| !r.is_empty()) {
                { compare_table(&label(a), a_rows, &kernel, rows) }
            }
            <SeedTable policy={policy.clone()} {cpus} />
            <p class="model-note">
                { "One run per load (Con averaged 3 to 8). The rows run the preset as generated, with this policy, CPU count and seed; edits to the task table apply to the run above only. " }
                { "The loads run on the machine model: a page cache, dirty throttling, swap with kswapd, flusher and swap threads scheduled like any task, and the kernel era's elevator. The io_load ratios of 16× or 60× that some 2.5 kernels showed are reproduced only in part (docs/seed-comparison.md says which rows)." }
            </p>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct LoadRowProps {
    load: &'static str,
    /// Its run's columns, once done.
    cells: Option<ContestCells>,
    /// The noload row's Time (ms), once done: this row's Ratio is over it.
    noload_ms: Option<u64>,
    selected: bool,
    kernel: AttrValue,
}

/// One load's row of the contest table: a component of its own, so a row arriving re-renders
/// that row alone (and, for noload, the Ratio of the others); the rest keep their elements.
#[component]
fn LoadRow(props: &LoadRowProps) -> Html {
    let load = props.load;
    let selected = props.selected;
    match &props.cells {
        None => html! {
            <tr data-load={load} class={classes!("pending", selected.then_some("selected"))}>
                <th scope="row">{ load }</th>
                <td class="num" data-col="time">{ "…" }</td>
                <td class="num" data-col="cpu">{ "…" }</td>
                <td class="num" data-col="loads">{ "…" }</td>
                <td class="num" data-col="lcpu">{ "…" }</td>
                <td class="num" data-col="ratio">{ "…" }</td>
            </tr>
        },
        Some(cells) => {
            let mut row = Row::from_runs(&props.kernel, &[ContestRun::from(cells)]);
            if let Some(ms) = props.noload_ms {
                row.set_ratio(ms);
            }
            let ratio = row
                .ratio_x100
                .map(|r| fixed(r as i64, 2))
                .unwrap_or_else(|| "…".into());
            html! {
                <tr data-load={load} class={classes!(selected.then_some("selected"))}
                    title={format!("trace hash {}", cells.trace_hash)}>
                    <th scope="row">{ load }
                        if !cells.finished { <span class="muted">{ " (unfinished)" }</span> }
                    </th>
                    <td class="num" data-col="time">{ fixed(div_round(row.time_ms as u128, 100) as i64, 1) }</td>
                    <td class="num" data-col="cpu">{ div_round(row.cpu_pct_x10 as u128, 10) }</td>
                    <td class="num" data-col="loads">{ div_round(row.loads_x100 as u128, 100) }</td>
                    <td class="num" data-col="lcpu">{ div_round(row.lcpu_pct_x10 as u128, 10) }</td>
                    <td class="num" data-col="ratio">{ ratio }</td>
                </tr>
            }
        }
    }
}

#[derive(Properties, PartialEq)]
struct SeedTableProps {
    policy: PolicySpec,
    cpus: u32,
}

/// The seed's published figures and schedlab's 10-seed intervals beside the live table, when
/// the configuration is one a seed ran: a component of its own, as it changes only with the
/// configuration, not with each row that arrives.
#[component]
fn SeedTable(props: &SeedTableProps) -> Html {
    let (policy, cpus) = (&props.policy, props.cpus);
    let seed = contest_column(policy, cpus);
    let seed_cells = |load: &str| -> Html {
        let Some(col) = &seed else { return html! {} };
        let f = col.figure(load);
        let model = model_interval(INTERVALS, policy, cpus, load)
            .map(|((m, h), _)| format!("{} ± {}", fixed(m, 1), fixed(h, 1)))
            .unwrap_or_else(|| "-".into());
        html! {
            <>
                <td class="num seed" data-col="model-time">{ model }</td>
                <td class="num seed" data-col="seed-time">{ f.map(seed_time).unwrap_or_else(|| "-".into()) }</td>
                <td class="num seed" data-col="seed-ratio">{ f.and_then(|f| f.ratio).map(|r| fixed(r, 2)).unwrap_or_else(|| "-".into()) }</td>
            </>
        }
    };
    html! {
        <>
            if let Some(col) = &seed {
                <h3 class="seed-heading">{ "Beside the seed" }</h3>
                <div class="table-scroll">
                    <table class="contest-table contest-seed-table" data-testid="contest-seed-table">
                        <thead>
                            <tr>
                                <th scope="col">{ "Load" }</th>
                                <th scope="col" class="num seed" title="schedlab's mean Time over seeds 1-10 with the half-width of its 95 % t-interval (docs/seed-comparison.md)">{ "Model Time" }</th>
                                <th scope="col" class="num seed" title={format!("Published: {}. Mean Time [runs]; where every run is given, [runs: lowest–highest]", col.source)}>{ "Seed Time" }</th>
                                <th scope="col" class="num seed" title={format!("Published: {}", col.source)}>{ "Seed Ratio" }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for LOADS.iter().map(|load| html! {
                                <tr data-load={*load}>
                                    <th scope="row">{ *load }</th>
                                    { seed_cells(load) }
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
                <p class="muted seed-source" data-testid="contest-seed">
                    { format!("Seed columns: {}. The seed's runs are real machines; compare directions, not seconds. Model Time is schedlab's mean over seeds 1-10 with its 95 % interval, from docs/seed-comparison.md; the live table above is one run at this seed.", col.source) }
                </p>
            }
        </>
    }
}

/// schedlab's 10-seed contest intervals, written by `schedlab seeds` beside the comparison.
const INTERVALS: &str = include_str!("../../../docs/seed-comparison/contest-intervals.tsv");

/// "55.5 [7]", or "27.2 [3: 23.7–73.8]" where the seed gives every run.
fn seed_time(f: &Figure) -> String {
    let runs = if f.runs == 0 {
        "?".to_owned()
    } else {
        f.runs.to_string()
    };
    match f.time_range {
        Some((lo, hi)) => format!(
            "{} [{runs}: {}–{}]",
            fixed(f.time, 1),
            fixed(lo, 1),
            fixed(hi, 1)
        ),
        None if f.whole_seconds => format!("{} [{runs}]", f.time / 10),
        None => format!("{} [{runs}]", fixed(f.time, 1)),
    }
}
