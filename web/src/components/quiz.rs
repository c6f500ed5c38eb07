//! Predict, then reveal: the quiz of a seed (`schedlab::quiz`), one question at a time. The
//! answer and the run's numbers stay hidden until the class commits an answer; then it is
//! marked right or wrong and the reveal steps are shown one at a time. The seed lives in the
//! view, so a link reopens the same quiz.

use std::rc::Rc;

use schedlab::quiz::{Answer, Quiz};
use yew::prelude::*;

use crate::state::{Action, AppContext, ViewChange};

/// The seed a new quiz starts from when the field is left empty.
const FIRST_SEED: u64 = 1;

#[component]
pub fn QuizPanel() -> Html {
    let Some(state) = use_context::<AppContext>() else {
        return html! {};
    };
    let seed = state.view.quiz;
    let open = {
        let state = state.clone();
        Callback::from(move |seed: Option<u64>| {
            state.dispatch(Action::from(ViewChange::SetQuiz(seed)));
        })
    };
    html! {
        <section class="panel quiz" data-testid="quiz" aria-labelledby="quiz-heading">
            <h2 id="quiz-heading">{ "Predict, then reveal" }</h2>
            { match seed {
                None => html! { <QuizStart onopen={open} /> },
                Some(seed) => html! { <QuizRound key={seed.to_string()} {seed} onopen={open} /> },
            } }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct StartProps {
    onopen: Callback<Option<u64>>,
}

#[component]
fn QuizStart(props: &StartProps) -> Html {
    let text = use_state(String::new);
    let problem = use_state_eq(|| None::<String>);
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            text.set(input.value());
        })
    };
    let start = {
        let text = text.clone();
        let problem = problem.clone();
        let onopen = props.onopen.clone();
        Callback::from(move |_: MouseEvent| {
            let t = text.trim();
            if t.is_empty() {
                onopen.emit(Some(FIRST_SEED));
                return;
            }
            match t.parse::<u64>() {
                Ok(seed) => {
                    problem.set(None);
                    onopen.emit(Some(seed));
                }
                Err(_) => problem.set(Some(format!(
                    "quiz seed: \"{t}\" is not a whole number from 0 to {}",
                    u64::MAX
                ))),
            }
        })
    };
    html! {
        <div class="quiz-start">
            <p>{ "A seeded OSTEP-style quiz: a few jobs on one CPU under a textbook policy. The class predicts, commits an answer, then the run reveals it step by step." }</p>
            <label for="quiz-seed">{ "quiz seed" }</label>
            <input id="quiz-seed" data-testid="quiz-seed" inputmode="numeric" value={(*text).clone()} {oninput}
                aria-invalid={if problem.is_some() { "true" } else { "false" }} />
            <button type="button" data-testid="quiz-start" onclick={start}>{ "Start quiz" }</button>
            if let Some(p) = &*problem {
                <p class="field-problem" role="alert">{ p.clone() }</p>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct RoundProps {
    seed: u64,
    onopen: Callback<Option<u64>>,
}

/// Where a question stands: not yet answered, or answered (right or wrong) with this many
/// reveal steps shown.
#[derive(Clone, PartialEq)]
enum Stage {
    Asking,
    Answered { correct: bool, shown: usize },
}

#[component]
fn QuizRound(props: &RoundProps) -> Html {
    let seed = props.seed;
    let quiz = use_memo(seed, |&seed| {
        Quiz::new(seed).map(Rc::new).map_err(|e| e.to_string())
    });
    let index = use_state_eq(|| 0usize);
    let stage = use_state_eq(|| Stage::Asking);
    let text = use_state(String::new);
    let problem = use_state_eq(|| None::<String>);
    let close = {
        let onopen = props.onopen.clone();
        Callback::from(move |_: MouseEvent| onopen.emit(None))
    };
    let quiz = match &*quiz {
        Ok(q) => q.clone(),
        Err(e) => {
            return html! {
                <>
                    <p class="field-problem" role="alert">{ format!("The quiz of seed {seed} could not be made: {e}") }</p>
                    <button type="button" onclick={close}>{ "Close quiz" }</button>
                </>
            }
        }
    };
    let i = (*index).min(quiz.questions.len().saturating_sub(1));
    let Some(question) = quiz.questions.get(i).cloned() else {
        return html! { <button type="button" onclick={close}>{ "Close quiz" }</button> };
    };

    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            text.set(input.value());
        })
    };
    let commit = {
        let quiz = quiz.clone();
        let question = question.clone();
        let text = text.clone();
        let stage = stage.clone();
        let problem = problem.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            match question.check(&quiz, &text) {
                Ok(correct) => {
                    problem.set(None);
                    stage.set(Stage::Answered { correct, shown: 1 });
                }
                Err(err) => problem.set(Some(err.to_string())),
            }
        })
    };
    let reveal_more = {
        let stage = stage.clone();
        Callback::from(move |_: MouseEvent| {
            if let Stage::Answered { correct, shown } = *stage {
                stage.set(Stage::Answered {
                    correct,
                    shown: shown + 1,
                });
            }
        })
    };
    let next = {
        let index = index.clone();
        let stage = stage.clone();
        let text = text.clone();
        Callback::from(move |_: MouseEvent| {
            index.set(*index + 1);
            stage.set(Stage::Asking);
            text.set(String::new());
        })
    };
    let last = i + 1 == quiz.questions.len();
    let hint = match question.answer {
        Answer::Job(_) => "a job's name",
        Answer::Time(_) => "a time in ms",
    };

    html! {
        <div class="quiz-round" data-testid="quiz-round" data-seed={seed.to_string()}>
            <p class="quiz-progress">{ format!("Quiz {seed} · question {} of {}", i + 1, quiz.questions.len()) }</p>
            <p class="quiz-question" data-testid="quiz-question">{ question.prompt.clone() }</p>
            <form onsubmit={commit}>
                <label for="quiz-answer">{ format!("Your answer ({hint})") }</label>
                <input id="quiz-answer" data-testid="quiz-answer" value={(*text).clone()} {oninput}
                    disabled={*stage != Stage::Asking} autocomplete="off" />
                <button type="submit" data-testid="quiz-commit" disabled={*stage != Stage::Asking}>{ "Commit" }</button>
            </form>
            if let Some(p) = &*problem {
                <p class="field-problem" role="alert" data-testid="quiz-problem">{ p.clone() }</p>
            }
            { match &*stage {
                Stage::Asking => html! {
                    <p class="quiz-hidden" data-testid="quiz-hidden">{ "The answer and the run's numbers stay hidden until an answer is committed." }</p>
                },
                Stage::Answered { correct, shown } => {
                    let shown = (*shown).min(question.reveal.len());
                    html! {
                        <>
                            <p class={classes!("quiz-verdict", if *correct { "right" } else { "wrong" })}
                                data-testid="quiz-verdict" data-correct={correct.to_string()} role="status">
                                { if *correct { "Right." } else { "Not quite: watch the run." } }
                            </p>
                            <ol class="quiz-reveal" data-testid="quiz-reveal">
                                { for question.reveal.iter().take(shown).map(|s| html! { <li>{ s.clone() }</li> }) }
                            </ol>
                            if shown < question.reveal.len() {
                                <button type="button" data-testid="quiz-reveal-next" onclick={reveal_more}>{ "Reveal next step" }</button>
                            } else if !last {
                                <button type="button" data-testid="quiz-next" onclick={next}>{ "Next question" }</button>
                            }
                        </>
                    }
                }
            } }
            <button type="button" data-testid="quiz-close" onclick={close}>{ "Close quiz" }</button>
        </div>
    }
}
