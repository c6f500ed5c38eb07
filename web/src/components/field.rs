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
#[component]
pub fn Field(props: &FieldProps) -> Html {
    let onchange = {
        let cb = props.onchange.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            cb.emit(input.value());
        })
    };
    let problem_id = format!("{}-problem", props.id);
    html! {
        <div class={classes!("field", props.problem.is_some().then_some("field-invalid"))}>
            <label for={props.id.clone()}>{ props.label.clone() }</label>
            <input
                id={props.id.clone()}
                type={props.kind.clone()}
                data-testid={props.testid.clone()}
                value={props.value.clone()}
                aria-invalid={props.problem.is_some().to_string()}
                aria-describedby={props.problem.is_some().then(|| problem_id.clone())}
                {onchange}
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
