//! The app itself in headless Chromium: it starts, shows its version and error banner, and a
//! listed-values tunable slides over its values only.

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{Element, Event, EventInit, HtmlInputElement, HtmlSelectElement};

use crate::{find, mount_point};

#[wasm_bindgen_test]
async fn app_shows_title_and_engine_version() {
    let root = mount_point();
    yew::Renderer::<schedlab_web::App>::with_root(root.clone()).render();

    let version = find(&root, "[data-testid=engine-version]").await;
    assert_eq!(version.text_content().unwrap(), schedlab::VERSION);
    let title = find(&root, "h1").await;
    assert_eq!(title.text_content().unwrap(), "schedlab");
    let description = find(&root, "[data-testid=engine-description]").await;
    assert_eq!(
        description.text_content().unwrap().trim(),
        schedlab::DESCRIPTION
    );
}

#[wasm_bindgen_test]
async fn error_banner_is_hidden_until_an_error_is_shown() {
    let root = mount_point();
    yew::Renderer::<schedlab_web::App>::with_root(root.clone()).render();

    let banner = find(&root, "[data-testid=error-banner]").await;
    assert!(banner.has_attribute("hidden"));

    schedlab_web::panic_banner::show_fatal_error("test failure");
    assert!(!banner.has_attribute("hidden"));
    assert!(banner.text_content().unwrap().contains("test failure"));
}

/// Fires `kind` on `target` bubbling, as the browser does for a user's edit (Yew listens at the
/// root).
fn fire(target: &Element, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    let event = Event::new_with_event_init_dict(kind, &init).unwrap();
    target.dispatch_event(&event).unwrap();
}

/// Waits (bounded) until `element`'s text is `want`.
async fn text_becomes(element: &Element, want: &str) {
    for _ in 0..100 {
        if element.text_content().unwrap().trim() == want {
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(element.text_content().unwrap().trim(), want);
}

#[wasm_bindgen_test]
async fn a_tunable_with_listed_values_slides_over_them_only() {
    let root = mount_point();
    yew::Renderer::<schedlab_web::App>::with_root(root.clone()).render();

    let select: HtmlSelectElement = find(&root, "[data-testid=policy-select]")
        .await
        .dyn_into()
        .unwrap();
    select.set_value("cfs");
    fire(&select, "change");
    // The cfs panel is up when its tunable-scaling knob is (the default policy has none).
    find(&root, "[data-testid=tunable-sched_tunable_scaling]").await;
    let hz: HtmlInputElement = find(&root, "[data-testid=tunable-hz]")
        .await
        .dyn_into()
        .unwrap();
    // CONFIG_HZ for cfs is one of 100, 250, 300, 1000: four positions, the default 250 second.
    assert_eq!(
        (hz.min(), hz.max(), hz.step()),
        ("0".into(), "3".into(), "1".into())
    );
    assert_eq!(hz.value(), "1");
    let shown = find(&root, "[data-testid=tunable-hz-value]").await;
    text_becomes(&shown, "250 Hz").await;

    for (position, want) in [("2", "300 Hz"), ("3", "1000 Hz"), ("0", "100 Hz")] {
        hz.set_value(position);
        fire(&hz, "input");
        text_becomes(&shown, want).await;
        assert_eq!(hz.value(), position);
        let tunable = hz.parent_element().unwrap();
        assert!(
            tunable.query_selector(".field-problem").unwrap().is_none(),
            "{want} is an allowed value: no validation error"
        );
    }
}
