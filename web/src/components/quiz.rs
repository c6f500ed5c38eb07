//! Predict, then reveal: the quiz of a seed (`schedlab::quiz`), one question at a time. The
//! worker makes the quiz (`Request::Quiz`: its run is a simulation, which the page's own wasm
//! does not carry) and the page then shows the quiz's scenario in the explorer; while a
//! question is open the explorer's results that would give the answer away (charts, tables,
//! report, headline cards) stay hidden (`AppState::quiz_hides_results`) until the class
//! commits an answer. It is then marked right or wrong and the reveal steps are shown one at a
//! time. The seed lives in the view, so a link reopens the same quiz.

use std::rc::Rc;

use schedlab::quiz::{Answer, Quiz};
use yew::prelude::*;

use crate::state::ViewChange;

/// The seed a new quiz starts from when the field is left empty.
const FIRST_SEED: u64 = 1;

/// Where the quiz of the view's seed stands: on its way from the worker, made (or not), and
/// which question is open at which stage. The reducer keeps it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuizSession {
    /// The request id of the quiz asked for, until the worker's reply.
    pub pending: Option<u64>,
    pub quiz: Option<Rc<Quiz>>,
    /// Why the quiz could not be made.
    pub error: Option<String>,
    /// The open question, an index into `quiz.questions`.
    pub question: usize,
    pub stage: Stage,
    /// Why the last answer could not be checked (not a job, not a time).
    pub problem: Option<String>,
}

/// Where a question stands: not yet answered, or answered (right or wrong) with this many
/// reveal steps shown.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Stage {
    #[default]
    Asking,
    Answered {
        correct: bool,
        shown: usize,
    },
}

/// What the class does with the open question.
#[derive(Clone, Debug, PartialEq)]
pub enum QuizStep {
    /// Commits an answer: marked, or explained if it is no answer at all.
    Answer(String),
    /// Shows the next reveal step.
    RevealMore,
    /// Opens the next question.
    Next,
}

impl QuizSession {
    /// The explorer's results would give the open question's answer away: the quiz is on its
    /// way, or its question is not answered yet.
    pub fn hides_results(&self) -> bool {
        self.pending.is_some() || (self.quiz.is_some() && self.stage == Stage::Asking)
    }

    /// Applies what the class did.
    pub fn step(&mut self, step: QuizStep) {
        let Some(quiz) = self.quiz.clone() else {
            return;
        };
        match step {
            QuizStep::Answer(text) => {
                let Some(question) = quiz.questions.get(self.question) else {
                    return;
                };
                if self.stage != Stage::Asking {
                    return;
                }
                match question.check(&quiz, &text) {
                    Ok(correct) => {
                        self.problem = None;
                        self.stage = Stage::Answered { correct, shown: 1 };
                    }
                    Err(e) => self.problem = Some(e.to_string()),
                }
            }
            QuizStep::RevealMore => {
                if let Stage::Answered { shown, .. } = &mut self.stage {
                    *shown += 1;
                }
            }
            QuizStep::Next => {
                if self.question + 1 < quiz.questions.len() {
                    self.question += 1;
                    self.stage = Stage::Asking;
                    self.problem = None;
                }
            }
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct QuizPanelProps {
    /// The view's quiz seed: a quiz is open.
    pub seed: Option<u64>,
    pub session: QuizSession,
    /// Where opening, closing and answering go.
    pub onview: Callback<ViewChange>,
}

#[component]
pub fn QuizPanel(props: &QuizPanelProps) -> Html {
    let open = props.onview.reform(ViewChange::SetQuiz);
    html! {
        <section class="panel quiz" data-testid="quiz" aria-labelledby="quiz-heading">
            <h2 id="quiz-heading">{ "Predict, then reveal" }</h2>
            { match props.seed {
                None => html! { <QuizStart onopen={open} /> },
                Some(seed) => quiz_round(seed, &props.session, &props.onview),
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
            <p>{ "A seeded OSTEP-style quiz: a few jobs on one CPU under a textbook policy. The explorer shows its jobs; the class predicts and commits an answer while the run's results stay hidden, then the run reveals it step by step." }</p>
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

/// The open question of the quiz of `seed`.
fn quiz_round(seed: u64, session: &QuizSession, onview: &Callback<ViewChange>) -> Html {
    let close = onview.reform(|_: MouseEvent| ViewChange::SetQuiz(None));
    let quiz = match (&session.quiz, &session.error) {
        (Some(q), _) if q.seed == seed => q.clone(),
        (_, Some(e)) => {
            return html! {
                <>
                    <p class="field-problem" role="alert">{ format!("The quiz of seed {seed} could not be made: {e}") }</p>
                    <button type="button" onclick={close}>{ "Close quiz" }</button>
                </>
            }
        }
        _ => {
            return html! {
                <div class="quiz-round" data-testid="quiz-loading">
                    <p class="quiz-progress" role="status">{ format!("Making quiz {seed}…") }</p>
                    <button type="button" data-testid="quiz-close" onclick={close}>{ "Close quiz" }</button>
                </div>
            }
        }
    };
    let i = session.question.min(quiz.questions.len().saturating_sub(1));
    let Some(question) = quiz.questions.get(i).cloned() else {
        return html! { <button type="button" onclick={close}>{ "Close quiz" }</button> };
    };
    let asking = session.stage == Stage::Asking;
    let commit = onview.reform(|e: SubmitEvent| {
        e.prevent_default();
        let answer = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("quiz-answer"))
            .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(el).ok())
            .map(|input| input.value())
            .unwrap_or_default();
        ViewChange::QuizStep(QuizStep::Answer(answer))
    });
    let reveal_more = onview.reform(|_: MouseEvent| ViewChange::QuizStep(QuizStep::RevealMore));
    let next = onview.reform(|_: MouseEvent| ViewChange::QuizStep(QuizStep::Next));
    let last = i + 1 == quiz.questions.len();
    let hint = match question.answer {
        Answer::Job(_) => "a job's name",
        Answer::Time(_) => "a time in ms",
    };

    html! {
        <div class="quiz-round" data-testid="quiz-round" data-seed={seed.to_string()}>
            <p class="quiz-progress">{ format!("Quiz {seed} · question {} of {}", i + 1, quiz.questions.len()) }</p>
            <p class="quiz-question" data-testid="quiz-question">{ question.prompt.clone() }</p>
            <form onsubmit={commit} key={format!("{seed}-{i}")}>
                <label for="quiz-answer">{ format!("Your answer ({hint})") }</label>
                <input id="quiz-answer" name="answer" data-testid="quiz-answer"
                    disabled={!asking} autocomplete="off" />
                <button type="submit" data-testid="quiz-commit" disabled={!asking}>{ "Commit" }</button>
            </form>
            if let Some(p) = &session.problem {
                <p class="field-problem" role="alert" data-testid="quiz-problem">{ p.clone() }</p>
            }
            { match &session.stage {
                Stage::Asking => html! {
                    <p class="quiz-hidden" data-testid="quiz-hidden">{ "The answer and the run's charts, tables and numbers stay hidden until an answer is committed." }</p>
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
