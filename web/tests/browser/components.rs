//! Components rendered from their props alone, in headless Chromium: no app, no reducer, no
//! context. Each test hands a component what it shows, reads the DOM, and checks that what it
//! changes comes out of its callback.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use schedlab::engine::scenario::PolicySpec;
use schedlab::view::RunData;
use schedlab::{Job, Nanos, Scenario};
use schedlab_web::components::contest_table::{ContestTable, ContestTableProps};
use schedlab_web::components::inspector::{Inspector, InspectorProps};
use schedlab_web::components::tunable_slider::{TunableSlider, TunableSliderProps};
use schedlab_web::components::{Shared, Static};
use schedlab_web::protocol::ContestCells;
use schedlab_web::state::{Edit, Inspector as Inspection, ViewChange};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement};
use yew::prelude::*;

use crate::{find, mount_point};

fn text(element: &Element) -> String {
    element.text_content().unwrap_or_default().trim().to_owned()
}

/// The text of every element matching `selector` inside `root`, in document order.
fn texts(root: &Element, selector: &str) -> Vec<String> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .map(|e| text(&e))
        .collect()
}

/// A callback that records what it is given.
fn recorder<T: 'static>() -> (Callback<T>, Rc<RefCell<Vec<T>>>) {
    let log = Rc::new(RefCell::new(Vec::new()));
    let sink = log.clone();
    (Callback::from(move |v| sink.borrow_mut().push(v)), log)
}

fn click(element: &Element) {
    element.dyn_ref::<HtmlElement>().unwrap().click();
}

#[wasm_bindgen_test]
async fn a_tunable_slider_shows_its_value_and_range_and_reports_moves() {
    let policy = schedlab::find(schedlab::workloads::DEFAULT_POLICY).unwrap();
    let spec = policy
        .tunables
        .iter()
        .find(|t| t.key == "prio_bonus_ratio")
        .unwrap();
    let (onedit, edits) = recorder::<Edit>();
    let root = mount_point();
    yew::Renderer::<TunableSlider>::with_root_and_props(
        root.clone(),
        TunableSliderProps {
            spec: Static(spec),
            value: 10,
            problem: Some("prio_bonus_ratio: pick 10 for this test".into()),
            baseline: None,
            onedit,
        },
    )
    .render();

    let input: HtmlInputElement = find(&root, "[data-testid=tunable-prio_bonus_ratio]")
        .await
        .dyn_into()
        .unwrap();
    assert_eq!(
        (input.min(), input.max(), input.step(), input.value()),
        ("0".into(), "100".into(), "1".into(), "10".into())
    );
    let shown = find(&root, "[data-testid=tunable-prio_bonus_ratio-value]").await;
    assert_eq!(text(&shown), "10 %");
    assert_eq!(text(&find(&root, ".tunable-range").await), "0 % … 100 %");
    assert_eq!(
        text(&find(&root, ".field-problem").await),
        "prio_bonus_ratio: pick 10 for this test"
    );
    // 10 is not the default (25): marked changed, and Reset is live.
    assert!(root.query_selector(".tunable-changed").unwrap().is_some());
    let reset = find(&root, ".tunable-reset").await;
    assert!(!reset.has_attribute("disabled"));

    input.set_value("40");
    let init = EventInit::new();
    init.set_bubbles(true);
    input
        .dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    click(&reset);
    assert_eq!(
        *edits.borrow(),
        vec![
            Edit::SetTunable("prio_bonus_ratio".into(), 40),
            Edit::ResetTunable("prio_bonus_ratio".into()),
        ]
    );
    // The value shown is the props' until the owner passes a new one.
    yew::platform::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(text(&shown), "10 %");
}

/// One load's cells as the worker reports them, with the figures the table shows.
fn cells(load: &str, time_ns: u64, cpu_pct_x10: u64, loads_x100: u64) -> ContestCells {
    ContestCells {
        load: load.into(),
        time_ns,
        finished: true,
        compile_cpu_ns: 0,
        load_cpu_ns: 0,
        load_life_ns: 0,
        loads_x100,
        cpu_pct_x10,
        lcpu_pct_x10: 330,
        trace_hash: format!("{load}-hash"),
    }
}

#[wasm_bindgen_test]
async fn the_contest_table_shows_the_rows_done_and_compares_them_with_a() {
    let policy = PolicySpec {
        id: schedlab::workloads::DEFAULT_POLICY.into(),
        tunables: Default::default(),
    };
    let loads = schedlab::workloads::contest::LOADS;
    let root = mount_point();
    yew::Renderer::<ContestTable>::with_root_and_props(
        root.clone(),
        ContestTableProps {
            policy: policy.clone(),
            cpus: 2,
            seed: 7,
            selected: "process_load",
            rows: vec![
                cells("process_load", 75_000_000_000, 650, 1234),
                cells("noload", 50_000_000_000, 980, 0),
            ],
            pinned: Some((policy, vec![cells("noload", 40_000_000_000, 990, 0)])),
        },
    )
    .render();

    let table = find(&root, "[data-testid=contest-table]").await;
    let row = |load: &str| {
        table
            .query_selector(&format!("tr[data-load={load}]"))
            .unwrap()
            .unwrap_or_else(|| panic!("no row for {load}"))
    };
    let cols = |load: &str| -> Vec<String> { texts(&row(load), "td") };
    // Time in seconds, CPU%, Loads, LCPU%, and Ratio against this table's own noload.
    assert_eq!(cols("noload"), ["50.0", "98", "0", "33", "1.00"]);
    assert_eq!(cols("process_load"), ["75.0", "65", "12", "33", "1.50"]);
    assert_eq!(
        row("process_load").get_attribute("title").unwrap(),
        "trace hash process_load-hash"
    );
    // Every other load is still to come.
    assert_eq!(texts(&table, "tbody tr").len(), loads.len());
    assert_eq!(cols(loads[1]), ["…"; 5]);
    let selected: Vec<String> = (0..loads.len())
        .filter_map(|i| {
            let r = row(loads[i]);
            r.class_list()
                .contains("selected")
                .then(|| loads[i].to_owned())
        })
        .collect();
    assert_eq!(selected, ["process_load"]);
    assert_eq!(
        text(&find(&root, ".contest-progress").await),
        format!("Running load 3 of {}…", loads.len())
    );
    let heading = text(&find(&root, "#contest-heading").await);
    assert!(heading.ends_with(", seed 7, 2 CPUs"), "{heading}");

    // A's noload took 40 s, B's 50 s: B − A is +10.0 s.
    let compare = find(&root, "[data-testid=contest-compare]").await;
    let noload = compare
        .query_selector("tr[data-load=noload]")
        .unwrap()
        .unwrap();
    assert_eq!(
        texts(&noload, "td"),
        ["40.0", "50.0", "+10.0", "1.00", "1.00", "±0.00"]
    );
}

/// Three CPU hogs on one CPU under FIFO, arriving 1 ms apart.
fn fifo_scenario() -> Scenario {
    serde_json::from_str(
        r#"{"version":1,"cpus":1,"duration":"100ms","seed":1,"policy":{"id":"fifo"},
            "tasks":[{"name":"first","program":[{"run":"10ms"}]},
                     {"name":"second","arrival":"1ms","program":[{"run":"10ms"}]},
                     {"name":"third","arrival":"2ms","program":[{"run":"10ms"}]}]}"#,
    )
    .unwrap()
}

#[wasm_bindgen_test]
async fn the_inspector_lists_the_queue_it_is_given_and_moves_the_cursor_through_its_callback() {
    let scenario = fifo_scenario();
    let job = Job::new(scenario.clone(), None);
    let at = Nanos::parse("5ms").unwrap();
    let queues = job.inspect(at).unwrap();
    let out = schedlab::run(&scenario, Default::default()).unwrap();
    let data = Shared::new(RunData::from_run(&scenario, &out));
    let (onview, changes) = recorder::<ViewChange>();
    let root = mount_point();
    yew::Renderer::<Inspector>::with_root_and_props(
        root.clone(),
        InspectorProps {
            data: Some(data),
            cursor: Some(at.0),
            inspection: Inspection {
                id: 1,
                queues: Some(Rc::new(queues)),
                error: None,
                pending: false,
            },
            onview,
        },
    )
    .render();

    let cpu = find(&root, ".inspector-cpu").await;
    assert_eq!(texts(&cpu, "h3"), ["cpu0"]);
    let pick = text(&find(&cpu, ".inspector-pick").await);
    // FIFO never preempts: the running task is its own pick.
    assert_eq!(pick, "running first · pick_next would choose first");
    // FIFO's one queue, in arrival order.
    assert_eq!(texts(&cpu, "table caption"), ["waiting (arrival order)"]);
    assert_eq!(texts(&cpu, "td.inspector-task"), ["second", "third"]);
    let time: HtmlInputElement = find(&root, "[data-testid=inspector-time]")
        .await
        .dyn_into()
        .unwrap();
    assert_eq!(time.value(), "5.000");

    // The next decision after 5 ms is first's exit at 10 ms; Clear removes the cursor.
    click(&find(&root, "[data-testid=playback-forward]").await);
    click(&find(&root, ".inspector-head button").await);
    assert_eq!(
        *changes.borrow(),
        vec![
            ViewChange::SetCursor(Some(Nanos::parse("10ms").unwrap().0)),
            ViewChange::SetCursor(None),
        ]
    );
}
