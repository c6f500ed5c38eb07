//! Chart component tests in headless Chromium: each chart renders a real small run and puts ink
//! on its canvas. (The Gantt level of detail's bound at 100,000 segments is a native unit test
//! in `schedlab::view`.)

use std::rc::Rc;
use std::time::Duration;

use schedlab::view::RunData;
use schedlab::Scenario;
use schedlab_web::charts::{
    ChartProps, GanttChart, GanttProps, LatencyHistogram, ObservedChart, ShareChart,
};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{CanvasRenderingContext2d, Element, HtmlCanvasElement};
use yew::prelude::*;

/// An editor against a hog on one CPU under the O(1) scheduler: segments, sleeps, wake-ups,
/// notes and a dynamic priority to draw.
fn run_data() -> Rc<RunData> {
    let scenario: Scenario = serde_json::from_str(
        r#"{"version":1,"cpus":1,"duration":"300ms","seed":1,"policy":{"id":"linux-2.6-o1"},
            "tasks":[{"name":"editor","program":[{"repeat":8,"body":[{"run":"2ms"},{"sleep":"30ms"}]}]},
                     {"name":"hog","arrival":"1ms","program":[{"run":"1s"}]}]}"#,
    )
    .unwrap();
    let out = schedlab::run(&scenario, Default::default()).unwrap();
    Rc::new(RunData::from_run(&scenario, &out))
}

/// A fresh, sized `<div>` in the document for one test to render into.
fn mount_point() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let div = document.create_element("div").unwrap();
    div.set_attribute("style", "width: 900px").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

/// Pixels of `canvas` that differ from its top-left corner (the background).
fn inked_pixels(canvas: &HtmlCanvasElement) -> usize {
    let (w, h) = (canvas.width(), canvas.height());
    if w == 0 || h == 0 {
        return 0;
    }
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    let pixels = ctx
        .get_image_data(0.0, 0.0, w as f64, h as f64)
        .unwrap()
        .data()
        .0;
    let background = &pixels[..4];
    pixels.chunks_exact(4).filter(|p| *p != background).count()
}

/// Renders `T` with the run and waits (bounded) until its canvas `testid` has ink; returns the
/// canvas and how many pixels are inked.
async fn render_and_wait<T: BaseComponent<Properties = ChartProps>>(
    testid: &str,
) -> (HtmlCanvasElement, usize) {
    render_props_and_wait::<T>(
        testid,
        ChartProps {
            data: run_data().into(),
            label: None,
            selected: None,
            compared: Vec::new(),
            onview: None,
        },
    )
    .await
}

/// Renders `T` with `props` and waits (bounded) until its canvas `testid` has ink.
async fn render_props_and_wait<T: BaseComponent>(
    testid: &str,
    props: T::Properties,
) -> (HtmlCanvasElement, usize) {
    let root = mount_point();
    yew::Renderer::<T>::with_root_and_props(root.clone(), props).render();
    let selector = format!("canvas[data-testid={testid}]");
    for _ in 0..200 {
        if let Some(el) = root.query_selector(&selector).unwrap() {
            let canvas: HtmlCanvasElement = el.dyn_into().unwrap();
            let inked = inked_pixels(&canvas);
            if inked > 0 {
                return (canvas, inked);
            }
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{selector} never drew anything");
}

#[wasm_bindgen_test]
async fn gantt_draws_lanes() {
    let (canvas, inked) =
        render_props_and_wait::<GanttChart>("gantt", GanttProps::of(run_data())).await;
    // Bars for two tasks on one CPU cover far more than the axis labels alone.
    assert!(inked > 2_000, "{inked} inked pixels");
    assert!(canvas.width() >= 800);
}

#[wasm_bindgen_test]
async fn latency_histogram_draws_bars() {
    let (_, inked) = render_and_wait::<LatencyHistogram>("latency-histogram").await;
    assert!(inked > 1_000, "{inked} inked pixels");
}

#[wasm_bindgen_test]
async fn share_chart_draws_bars() {
    let (_, inked) = render_and_wait::<ShareChart>("share-chart").await;
    assert!(inked > 1_000, "{inked} inked pixels");
}

#[wasm_bindgen_test]
async fn observed_chart_draws_lines() {
    let (_, inked) = render_and_wait::<ObservedChart>("observed-chart").await;
    assert!(inked > 500, "{inked} inked pixels");
}

#[wasm_bindgen_test]
async fn sweep_chart_draws_points_and_the_marker() {
    use schedlab_web::charts::{SweepChart, SweepChartProps};
    use schedlab_web::state::{Action, AppState, SweepCommand, SweepForm, WorkerEvent};
    use yew::Reducible;

    let scenario: Scenario = serde_json::from_str(
        r#"{"version":1,"cpus":1,"duration":"1s","seed":1,"policy":{"id":"rr"},
            "tasks":[{"name":"hog1","program":[{"run":"100ms"}]},
                     {"name":"hog2","program":[{"run":"100ms"}]}]}"#,
    )
    .unwrap();
    let mut state = Rc::new(AppState::from_link(schedlab::LinkState::new(scenario)));
    state = state.reduce(Action::from(SweepCommand::Run(SweepForm {
        key: "quantum".into(),
        from: "2".into(),
        to: "10".into(),
        step: "2".into(),
        metric: "mean_response_ms".into(),
    })));
    for request in state.sweep_requests() {
        let reply = schedlab_web::sim::respond(request, &|| 0.0);
        state = state.reduce(Action::from(WorkerEvent::Reply(reply)));
    }
    let run = state.sweep.clone().unwrap();
    assert_eq!(run.done(), 5);
    let root = mount_point();
    yew::Renderer::<SweepChart>::with_root_and_props(
        root.clone(),
        SweepChartProps {
            run: run.into(),
            marker: Some(4),
            stale: false,
        },
    )
    .render();
    for _ in 0..200 {
        if let Some(el) = root
            .query_selector("canvas[data-testid=sweep-plot]")
            .unwrap()
        {
            let canvas: HtmlCanvasElement = el.dyn_into().unwrap();
            let inked = inked_pixels(&canvas);
            if inked > 500 {
                return;
            }
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the sweep plot never drew its points");
}
