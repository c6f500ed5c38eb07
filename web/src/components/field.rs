use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FieldProps {
    /// The input's id (its label points at it).
    pub id: AttrValue,
    pub label: AttrValue,
    /// The `data-testid` of the input, for the fields DESIGN §6 names.
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    pub value: AttrValue,
    /// Called with the text when the user commits it (change, not every keystroke).
    pub onchange: Callback<String>,
    /// The problem with this field, shown under it.
    #[prop_or_default]
    pub problem: Option<String>,
    #[prop_or(AttrValue::Static("text"))]
    pub kind: AttrValue,
    /// A hint shown under the input (units, range).
    #[prop_or_default]
    pub hint: Option<AttrValue>,
}

/// A labelled input with its problem, if any, right under it.
///
/// Text typed but not yet committed is the field's own until the change (or leaving the
/// field): a re-render in between, such as a run finishing, would otherwise put the old value
/// back into the input (Yew sets an input's value whenever it differs from the DOM's), and the
/// edit would be lost.
#[component]
pub fn Field(props: &FieldProps) -> Html {
    let typing = use_mut_ref(|| None::<String>);
    let oninput = {
        let typing = typing.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            *typing.borrow_mut() = Some(input.value());
        })
    };
    let onchange = {
        let cb = props.onchange.clone();
        let typing = typing.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            typing.borrow_mut().take();
            cb.emit(input.value());
        })
    };
    let onblur = {
        let typing = typing.clone();
        Callback::from(move |_: FocusEvent| {
            typing.borrow_mut().take();
        })
    };
    let value = typing
        .borrow()
        .clone()
        .map_or_else(|| props.value.clone(), AttrValue::from);
    let problem_id = format!("{}-problem", props.id);
    html! {
        <div class={classes!("field", props.problem.is_some().then_some("field-invalid"))}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <input
                id={props.id.clone()}
                type={props.kind.clone()}
                data-testid={props.testid.clone()}
                {value}
                aria-invalid={props.problem.is_some().to_string()}
                aria-describedby={props.problem.is_some().then(|| problem_id.clone())}
                {oninput}
                {onchange}
                {onblur}
            />
            if let Some(hint) = &props.hint {
                <span class="field-hint">{ hint.clone() }</span>
            }
            if let Some(problem) = &props.problem {
                <span class="field-problem" id={problem_id}>{ problem.clone() }</span>
            }
        </div>
    }
}
