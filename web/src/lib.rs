//! schedlab's page: a Yew app around the simulation engine.
//!
//! The app is plain Rust that compiles natively too (so `cargo clippy --workspace` checks it);
//! only [`start`] touches the real page.

pub mod charts;
pub mod components;
pub mod panic_banner;

use yew::prelude::*;

use components::error_banner::ErrorBanner;
use components::intro::Intro;
use components::masthead::Masthead;

/// The whole page.
#[component]
pub fn App() -> Html {
    html! {
        <>
            <ErrorBanner />
            <Masthead />
            <main class="content">
                <Intro />
            </main>
        </>
    }
}

/// Mounts the app on the page's `#app` element (or `<body>` if the template has none).
///
/// Installs the panic hook first, so a panic anywhere shows the error banner instead of a page
/// that silently stops responding.
pub fn start() {
    panic_banner::install();
    let root = web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.get_element_by_id("app"));
    match root {
        Some(root) => yew::Renderer::<App>::with_root(root).render(),
        None => yew::Renderer::<App>::new().render(),
    };
}
