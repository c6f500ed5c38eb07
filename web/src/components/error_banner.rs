use schedlab::LinkError;
use yew::prelude::*;

use crate::panic_banner::BANNER_ID;

/// A link that cannot be opened, said as a sentence for the person holding it: what is wrong
/// and what to do, with the decoder's own words only where they help.
pub fn explain_link(e: &LinkError) -> String {
    match e {
        LinkError::Missing => "This link holds no scenario: the part after “#s=” is missing; it may have been cut off when copied.".into(),
        LinkError::TooLong { len, limit } => format!("This link is too long to open: {len} characters, and the page reads at most {limit}."),
        LinkError::NoVersion => "This link is damaged: its “s=” part has no version number (a schedlab link starts “#s=1.”).".into(),
        LinkError::UnknownVersion { found, supported } => format!("This link comes from another version of schedlab (link version {found}); this page reads version {supported}."),
        LinkError::BadBase64(_) => "This link is damaged: it contains characters a schedlab link never has (it is not base64url), so it was probably changed or cut off when copied. Copy the whole link again.".into(),
        LinkError::Truncated => "This link is damaged: it was cut short (truncated), probably when it was copied. Copy the whole link again.".into(),
        LinkError::Corrupt(_) => "This link is damaged: its compressed scenario is corrupt and cannot be unpacked. Copy the whole link again.".into(),
        LinkError::TooLarge { limit } => format!("This link holds a scenario larger than the page accepts ({limit} bytes)."),
        LinkError::InvalidJson(detail) => format!("This link's scenario is not valid JSON ({detail}); it may have been edited by hand or made by a newer schedlab."),
        LinkError::InvalidScenario(problems) => format!("This link's scenario has problems: {problems}"),
    }
}

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

#[cfg(test)]
mod tests {
    use super::explain_link;

    fn sentence(fragment: &str) -> String {
        match schedlab::decode(fragment) {
            Ok(_) => panic!("{fragment} decoded"),
            Err(e) => explain_link(&e),
        }
    }

    #[test]
    fn damaged_links_are_told_as_sentences_not_decoder_internals() {
        let bad_symbol = sentence("#s=1.AAAe");
        assert!(
            bad_symbol.starts_with("This link is damaged: "),
            "{bad_symbol}"
        );
        assert!(!bad_symbol.contains("symbol"), "{bad_symbol}");
        let not_deflate = sentence("#s=1.bm90IGRlZmxhdGU");
        assert!(
            not_deflate.starts_with("This link is damaged: "),
            "{not_deflate}"
        );
        assert!(sentence("#s=9.AAAA").contains("another version of schedlab"));
        // The page's own banner says it too, and what it shows instead.
        let state = crate::state::AppState::from_fragment("#s=1.AAAe");
        let notice = state.notice.unwrap_or_default();
        assert!(notice.starts_with("This link is damaged: "), "{notice}");
        assert!(
            notice.ends_with("The default scenario is shown."),
            "{notice}"
        );
    }
}
