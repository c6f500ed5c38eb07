use schedlab::link::LinkState;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ShareBoxProps {
    /// The last link made, shown in the field.
    pub url: AttrValue,
    /// There is a run on screen to share.
    pub enabled: bool,
    /// The button was pressed: the owner makes the link ([`publish`]) and keeps it.
    pub onshare: Callback<()>,
}

/// The share button: makes a link holding everything on screen (scenario, policy, tunables,
/// seed, view, the pinned run), shows it, copies it and puts it in the address bar.
#[component]
pub fn ShareBox(props: &ShareBoxProps) -> Html {
    let onclick = props.onshare.reform(|_: MouseEvent| ());
    let onfocus = Callback::from(|e: FocusEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        input.select();
    });
    html! {
        <div class="share-box">
            <button type="button" class="share-button" data-testid="share-button" {onclick}
                disabled={!props.enabled}
                title="Copy a link that reopens exactly this scenario, policy, tunables, seed and view">
                { "Share link" }
            </button>
            <label class="visually-hidden" for="share-url">{ "Share link" }</label>
            <input id="share-url" class="share-url" data-testid="share-url" type="text" readonly=true
                placeholder="Press Share to make a link" value={props.url.clone()} {onfocus} />
        </div>
    }
}

/// The full link for `link` on this page: put in the address bar and copied to the clipboard
/// (a refused copy, for permissions or an insecure origin, is ignored: the field shows it).
pub fn publish(link: &LinkState) -> String {
    let fragment = schedlab::encode(link);
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let url = schedlab::encode_url(&base, link);
    if let Some(window) = web_sys::window() {
        if let Ok(history) = window.history() {
            history
                .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&fragment))
                .ok();
        }
        let promise = window.navigator().clipboard().write_text(&url);
        let ignore = wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(
            |_: wasm_bindgen::JsValue| {},
        );
        let _ = promise.catch(&ignore);
        // One small closure per click; JavaScript calls it after this function returns.
        ignore.forget();
    }
    url
}
