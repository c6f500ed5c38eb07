use yew::prelude::*;

use crate::state::{Action, AppContext, ViewChange};

/// The share button: makes a link holding everything on screen (scenario, policy, tunables,
/// seed, view), shows it, copies it and puts it in the address bar.
#[component]
pub fn ShareBox() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let onclick = {
        let state = state.clone();
        Callback::from(move |_| {
            let Some(link) = state.link_state() else {
                return;
            };
            let fragment = schedlab::encode(&link);
            let base = web_sys::window()
                .and_then(|w| w.location().href().ok())
                .unwrap_or_default();
            let url = schedlab::encode_url(&base, &link);
            if let Some(window) = web_sys::window() {
                if let Ok(history) = window.history() {
                    history
                        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&fragment))
                        .ok();
                }
                // Copying may be refused (permissions, an insecure origin): the link is shown
                // in the field either way, so a refusal is ignored.
                let promise = window.navigator().clipboard().write_text(&url);
                let ignore =
                    wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(
                        |_: wasm_bindgen::JsValue| {},
                    );
                let _ = promise.catch(&ignore);
                // One small closure per click; JavaScript calls it after this function returns.
                ignore.forget();
            }
            state.dispatch(Action::from(ViewChange::Shared(url)));
        })
    };
    let onfocus = Callback::from(|e: FocusEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        input.select();
    });
    html! {
        <div class="share-box">
            <button type="button" class="share-button" data-testid="share-button" {onclick}
                disabled={state.shown.is_none()}
                title="Copy a link that reopens exactly this scenario, policy, tunables and seed">
                { "Share link" }
            </button>
            <label class="visually-hidden" for="share-url">{ "Share link" }</label>
            <input id="share-url" class="share-url" data-testid="share-url" type="text" readonly=true
                placeholder="Press Share to make a link" value={state.share_url.clone()} {onfocus} />
        </div>
    }
}
