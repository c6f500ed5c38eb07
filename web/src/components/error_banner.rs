use yew::prelude::*;

use crate::panic_banner::BANNER_ID;

#[derive(Properties, PartialEq, Default)]
pub struct ErrorBannerProps {
    /// The message to show; `None` hides the banner.
    #[prop_or_default]
    pub message: Option<AttrValue>,
    /// Hides the message (the draft's own problems stay until they are fixed).
    #[prop_or_default]
    pub ondismiss: Option<Callback<MouseEvent>>,
}

/// A banner across the top of the page for errors the user must see. Hidden when there is none.
///
/// The panic hook (`panic_banner`) also writes into this element, by its id.
#[component]
pub fn ErrorBanner(props: &ErrorBannerProps) -> Html {
    html! {
        <div
            id={BANNER_ID}
            class="error-banner"
            role="alert"
            data-testid="error-banner"
            hidden={props.message.is_none()}
        >
            <span class="error-text">{ props.message.clone().unwrap_or_default() }</span>
            if let Some(ondismiss) = props.ondismiss.clone() {
                <button type="button" class="error-dismiss" aria-label="Dismiss" onclick={ondismiss}>{ "×" }</button>
            }
        </div>
    }
}
