//! Last-resort error reporting: a panic shows the error banner.
//!
//! A panic in wasm aborts, so after it no Yew component will render again. The hook therefore
//! writes into the banner's DOM element directly (creating it if the app never rendered).

use std::panic::PanicHookInfo;

use web_sys::Document;

/// The banner's element id; [`crate::components::error_banner::ErrorBanner`] renders it.
pub const BANNER_ID: &str = "error-banner";

/// Installs the hook: log to the browser console as usual, then show the banner.
pub fn install() {
    yew::set_custom_panic_hook(Box::new(|info: &PanicHookInfo<'_>| {
        console_error_panic_hook::hook(info);
        show_fatal_error(&panic_message(info));
    }));
}

/// Shows `message` in the error banner, creating the banner at the top of `<body>` if the page
/// has none. Does nothing outside a browser.
pub fn show_fatal_error(message: &str) {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return;
    };
    let Some(banner) = find_or_create_banner(&document) else {
        return;
    };
    banner.set_text_content(Some(&format!(
        "schedlab stopped after an internal error: {message}. \
         Reload the page to start again; the browser console has the details."
    )));
    banner.remove_attribute("hidden").ok();
}

fn find_or_create_banner(document: &Document) -> Option<web_sys::Element> {
    if let Some(banner) = document.get_element_by_id(BANNER_ID) {
        return Some(banner);
    }
    let banner = document.create_element("div").ok()?;
    banner.set_id(BANNER_ID);
    banner.set_class_name("error-banner");
    banner.set_attribute("data-testid", "error-banner").ok()?;
    banner.set_attribute("role", "alert").ok()?;
    let body = document.body()?;
    body.prepend_with_node_1(&banner).ok()?;
    Some(banner)
}

pub fn panic_message(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("unknown panic");
    // The page's release build leaves locations out (line 0, see `./x`'s wasm_release_cargo).
    match info.location().filter(|l| l.line() > 0) {
        Some(location) => format!("{text} (at {}:{})", location.file(), location.line()),
        None => text.to_owned(),
    }
}
