//! The page's one reducer: the scenario being edited, the last good scenario and its result,
//! errors, and the view (lanes, zoom, selected task, time cursor, the pinned run A: everything
//! a share link restores). Components change it only by dispatching an [`Action`], one of four
//! kinds: an [`Edit`] of the draft (clears the notice, runs again), a [`WorkerEvent`], a
//! [`ViewChange`] (runs nothing) or a [`SweepCommand`].
//!
//! ```text
//! edit ─► draft ─ validate ─┬─ problems ─► shown next to fields and in the banner; no run
//!                           └─ ok ─► generation += 1 ─► (App effect) worker ─► RunDone(id)
//!                                                        replies for older generations are dropped
//!
//! time cursor set, or a new run shown ─► inspector.id += 1 ─► (App effect) worker ─► Inspected(id)
//!
//! "Compare" ─► pinned = shown (A); later runs are B; again ─► pinned = None
//! a link with view.pinned ─► pin_pending (A's run, id just below B's generation) ─► Ran(id) ─► pinned
//!
//! "Run sweep" ─ checked ─┬─ problem ─► sweep_error (nothing runs)
//!                        └─ ok ─► sweep.id += 1 ─► (App effect) worker ─► SweepPoint(id) per value
//! ```

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use schedlab::engine::machine::knobs;
use schedlab::engine::program::Program;
use schedlab::engine::scenario::{PolicySpec, TaskSpec};
use schedlab::inspect::RunQueues;
use schedlab::link::{LinkState, PinnedView, PresetRef, TimeWindow, ViewState};
use schedlab::sweep::{Range, Sweep, Target};
use schedlab::view::{LaneMode, Window};
use schedlab::{Nanos, Problem, Scenario, TunableSpec};
use yew::prelude::*;

use crate::presets;
use crate::protocol::{ContestCells, Request, Response, RunOutcome, Source};
use crate::templates::{self, Template};

/// The scenario a first visit opens: seed 000's story. Scott Thomason's interactive probe
/// (touch memory, sleep 0.3 s, write) against a make -j4 loop under the O(1) scheduler of
/// 2.5.52-mm1, whose prio_bonus_ratio decides how much the sleeper is favoured.
pub const DEFAULT_PRESET: &str = "sleep-work";
/// Iterations of the probe in the default scenario: about 11 simulated seconds, enough to
/// see the pattern and quick enough to re-run while a slider moves.
pub const DEFAULT_ITERATIONS: i64 = 30;
/// The generation of a page's first draft: a new state starts at 0 and validating its draft
/// counts one. The worker's prepared first run (`sim::prepare_first_run`) carries it.
pub const FIRST_GENERATION: u64 = 1;
/// The tunable the default scenario puts up front.
pub const FEATURED_TUNABLE: &str = "prio_bonus_ratio";

/// Large type's text size over the normal one: style.css's `html.large-type` font-size.
pub const LARGE_TYPE_SCALE: f64 = 1.3;
/// Presenter mode's text size over the page's (style.css's `.presenter` font-size).
pub const PRESENTER_SCALE: f64 = 1.25;

/// How much larger than normal the view's text is: what the charts' canvas text follows.
pub fn type_scale(view: &ViewState) -> f64 {
    let large = if view.large_type {
        LARGE_TYPE_SCALE
    } else {
        1.0
    };
    let presenter = if view.presenter { PRESENTER_SCALE } else { 1.0 };
    large * presenter
}

/// Stats table columns, for sorting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsColumn {
    Name,
    Cpu,
    Share,
    Wait,
    P50,
    P99,
    Max,
    Switches,
    Turnaround,
    Response,
}

/// Where the current run stands.
#[derive(Clone, Debug, PartialEq)]
pub enum RunStatus {
    /// Waiting for the worker (queued or running).
    Running,
    Done {
        wall_ms: f64,
        hash: String,
    },
    /// The run could not complete (e.g. an engine limit); the last good result stays.
    Failed(String),
    /// The user cancelled the run, or it took longer than the page allows, and the worker was
    /// restarted; the last good result stays.
    Stopped(String),
    /// The draft has problems and was not run.
    Invalid,
}

/// What is on screen: a scenario and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub id: u64,
    pub scenario: Rc<Scenario>,
    pub preset: Option<PresetRef>,
    /// The result and report (its `data` moved out into [`Shown::data`]).
    pub outcome: Rc<RunOutcome>,
    /// What the charts draw; a new `Rc` per run, which is how the charts know to redraw.
    pub data: Rc<schedlab::view::RunData>,
    pub wall_ms: f64,
}

/// The inspector: the run queues at the time cursor (`view.cursor_ns`) of the run on screen.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inspector {
    /// Bumped whenever the queues must be asked for again (the cursor moved, a new run is
    /// shown); the worker's reply carries it back, and replies to older ids are dropped.
    pub id: u64,
    /// The newest inspection received. Kept while a newer one is computed, so the panel keeps
    /// its size.
    pub queues: Option<Rc<RunQueues>>,
    /// Why the newest inspection failed.
    pub error: Option<String>,
    /// A request for `id` is out.
    pub pending: bool,
}

/// The contest table as it fills in, one load at a time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContestProgress {
    pub id: u64,
    pub rows: Vec<ContestCells>,
}

/// What the draft of a generation is to the scenario its preset makes, worked out once per
/// generation ([`AppState::revalidate`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FromPreset {
    /// The draft is exactly what its preset makes (with `machine` set over it): the worker
    /// makes the scenario again from the preset (`protocol::Source::Generated`), so a slider's
    /// move does not write out and post the scenario, and on contest the run is the row of its
    /// own load, which comes with the run's reply (`contest_row`).
    pub exact: bool,
    /// The machine knobs set by hand (`AppState::machine_overrides`).
    pub machine: BTreeMap<String, i64>,
}

/// What the sweep panel's form holds, as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepForm {
    pub key: String,
    pub from: String,
    pub to: String,
    pub step: String,
    pub metric: String,
}

impl SweepForm {
    /// The form for `spec` over its default range (about ten steps) and `metric`.
    pub fn for_spec(spec: &TunableSpec, metric: &str) -> SweepForm {
        let r = Range::default_for(spec);
        SweepForm {
            key: spec.key.to_owned(),
            from: r.from.to_string(),
            to: r.to.to_string(),
            step: r.step.to_string(),
            metric: metric.to_owned(),
        }
    }
}

/// What a sweep's results depend on besides its key and range: when the draft no longer has
/// the same, the sweep on screen is stale.
#[derive(Clone, Debug, PartialEq)]
struct SweepBasis {
    target: Target,
    policy: String,
    /// The policy's other tunables (the swept one left out: its slider only moves the marker).
    fixed: BTreeMap<String, i64>,
    seed: u64,
}

/// A sweep: one metric at each value of one tunable, filled in as the worker answers.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRun {
    /// The sweep's request id: replies to older sweeps are dropped.
    pub id: u64,
    pub sweep: Rc<Sweep>,
    pub spec: TunableSpec,
    pub seed: u64,
    pub values: Vec<i64>,
    /// Parallel to `values`: the metric, or why that point failed; `None` until it arrives.
    pub results: Vec<Option<Result<f64, String>>>,
    /// Why the sweep stopped before its last point (cancelled, the simulator crashed).
    pub halted: Option<String>,
    basis: SweepBasis,
}

impl SweepRun {
    /// Points answered so far.
    pub fn done(&self) -> usize {
        self.results.iter().filter(|r| r.is_some()).count()
    }

    /// Still waiting for points.
    pub fn running(&self) -> bool {
        self.halted.is_none() && self.done() < self.values.len()
    }
}

/// A pinned run a link named, on its way: its request id comes from the generation counter
/// (one below the link's own run), so no reply for a generation is taken for it.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingPin {
    pub id: u64,
    pub scenario: Rc<Scenario>,
    pub preset: Option<PresetRef>,
}

/// Text typed into fields that did not parse, with the reason, in field path order: a list, as
/// a draft has a few such fields at most (a map of its own key and value types cost the page's
/// wasm a copy of the tree's code, 8.8 KB).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawTexts(Vec<RawText>);

#[derive(Clone, Debug, PartialEq)]
pub struct RawText {
    pub path: String,
    pub text: String,
    pub message: String,
}

impl RawTexts {
    /// The text typed into the field at `path`, if it did not parse.
    pub fn get(&self, path: &str) -> Option<&RawText> {
        self.0.iter().find(|r| r.path == path)
    }

    /// What a field shows: the text typed if it did not parse, else the value.
    pub fn field_text(&self, path: &str, value: impl FnOnce() -> String) -> String {
        match self.get(path) {
            Some(r) => r.text.clone(),
            None => value(),
        }
    }

    fn set(&mut self, path: &str, text: &str, message: String) {
        let raw = RawText {
            path: path.to_owned(),
            text: text.to_owned(),
            message,
        };
        let at = self.0.partition_point(|r| r.path.as_str() < path);
        match self.0.get_mut(at).filter(|r| r.path == path) {
            Some(r) => *r = raw,
            None => self.0.insert(at, raw),
        }
    }

    fn remove(&mut self, path: &str) {
        self.0.retain(|r| r.path != path);
    }

    /// Forgets the fields whose path starts with `prefix` (`tasks`, `policy`).
    fn remove_under(&mut self, prefix: &str) {
        self.0.retain(|r| !r.path.starts_with(prefix));
    }

    fn clear(&mut self) {
        self.0.clear();
    }

    /// Each field's problem: its text did not parse, and why.
    fn problems(&self) -> Vec<Problem> {
        self.0
            .iter()
            .map(|r| Problem {
                path: r.path.clone(),
                message: r.message.clone(),
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AppState {
    /// The scenario being edited. Invalid drafts are kept so the fields show what was typed.
    pub draft: Rc<Scenario>,
    /// The preset the draft came from, if any.
    pub preset: Option<PresetRef>,
    /// The task table was edited after the preset generated the scenario.
    pub edited: bool,
    /// Text a field could not parse, by field path, with the reason.
    pub raw: RawTexts,
    /// Every problem of the draft: unparsable fields and the engine's validation.
    pub problems: Vec<Problem>,
    /// Lanes, zoom, selected task and cursor of the run on screen, and its preset. Its
    /// `pinned` stays `None`: the pinned run is `pinned`, put into links by [`Self::link_state`].
    pub view: ViewState,
    /// Bumped for every valid draft; the worker's replies carry it back.
    pub generation: u64,
    pub status: RunStatus,
    /// The last good run.
    pub shown: Option<Rc<Shown>>,
    /// A/B mode: the run pinned as A (a run that was on screen); every later run is B. Kept
    /// through any edit; a share link carries it (`view.pinned`) and opening one runs it again.
    pub pinned: Option<Rc<Shown>>,
    /// A's run, asked for because a link named a pinned run; `pinned` once it arrives.
    pub pin_pending: Option<PendingPin>,
    pub from_preset: FromPreset,
    pub contest: ContestProgress,
    /// A's contest table when A was pinned while its rows were on screen (or still coming in):
    /// the contest table then compares B's rows with these, load by load.
    pub pinned_contest: ContestProgress,
    pub inspector: Inspector,
    /// The sweep on screen, if one was run.
    pub sweep: Option<Rc<SweepRun>>,
    /// Why the last "Run sweep" ran nothing (a range outside the tunable's, say).
    pub sweep_error: Option<String>,
    /// An error that is not a field problem: a bad link, a crashed worker, a failed run.
    pub notice: Option<String>,
    pub share_url: String,
    /// The tunable last moved (policy or machine): presenter mode's one slider.
    pub discussed: Option<String>,
    /// Presenter mode's scenes: share links the teacher pasted, stepped through in order.
    pub scenes: Vec<String>,
    /// The scene on screen, an index into `scenes`, once one was opened.
    pub scene: Option<usize>,
    pub sort: (StatsColumn, bool),
    /// The quiz of `view.quiz`: asked of the worker, then its questions' progress.
    pub quiz: crate::components::quiz::QuizSession,
    /// The scenario the draft's preset last made, and what it was made for (see
    /// [`Self::generated`]).
    generated_cache: RefCell<Option<(GeneratedFor, Rc<Scenario>)>>,
}

/// What a preset's scenario depends on: the preset and its parameters, CPUs, seed and policy
/// id. A generator reads the policy's id only (contest's kernel era), and the policy's
/// tunables only land in the scenario's `policy`, copied whole.
type GeneratedFor = (PresetRef, u32, u64, String);

/// Everything that changes the state, by kind: whether an action edits the draft is its kind.
pub enum Action {
    Edit(Edit),
    Worker(WorkerEvent),
    View(ViewChange),
    Sweep(SweepCommand),
}

/// An edit of the draft: clears the notice and, when the draft is valid, runs it (a new
/// generation).
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// The address bar's fragment changed (a link pasted into an open page).
    OpenLink(String),
    /// Opens the scene `delta` places from the one on screen (the first, when none is),
    /// staying within the list.
    StepScene(i64),
    SelectPreset(String),
    SetPresetParam(String, i64),
    /// Leave the preset: the scenario stays, the benchmark table and stop rule go.
    Detach,
    SetCpus(String),
    SetDuration(String),
    SetSeed(String),
    SelectPolicy(String),
    SetTunable(String, i64),
    ResetTunable(String),
    AddTask,
    RemoveTask(usize),
    RenameTask(usize, String),
    SetTemplate(usize, String),
    SetProgram(usize, String),
    SetNice(usize, String),
    SetShares(usize, String),
    SetArrival(usize, String),
}

/// What the simulation worker (through the runner) reports.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkerEvent {
    /// A reply.
    Reply(Response),
    /// The worker crashed and was replaced.
    Crashed(String),
    /// The worker was ended and replaced while busy: the user pressed Cancel after `elapsed_ms`,
    /// or (`timed_out`) a request reached `protocol::REQUEST_TIME_LIMIT_MS`.
    Stopped { elapsed_ms: f64, timed_out: bool },
}

/// How the page shows what it has: runs nothing (the inspector asks the worker on its own).
#[derive(Clone, Debug, PartialEq)]
pub enum ViewChange {
    /// The share link made for the run on screen.
    Shared(String),
    /// Sets the time cursor (ns) on the run on screen, or removes it.
    SetCursor(Option<u64>),
    /// One Gantt lane per CPU or per task.
    SetLanes(LaneMode),
    /// The Gantt charts' time window; `None` shows the whole run.
    SetZoom(Option<TimeWindow>),
    /// The task picked out in the charts and tables, by name; again, or `None`, to clear.
    SelectTask(Option<String>),
    /// Adds a task (by name) to those compared with the selected one, or takes it out again;
    /// past `charts::palette::PICKED_MAX` in all, the one compared longest goes.
    CompareTask(String),
    /// Pins the run on screen as A for comparison, or unpins it.
    TogglePin,
    /// Opens the quiz of a seed beside the run, or closes it. Opening asks the worker for it
    /// (a new generation); once it arrives its scenario is the draft.
    SetQuiz(Option<u64>),
    /// What the class did with the quiz's open question.
    QuizStep(crate::components::quiz::QuizStep),
    DismissNotice,
    /// Large type on or off (kept in `view`, so links and reloads keep it).
    ToggleLargeType,
    /// Presenter mode on or off.
    TogglePresenter,
    /// The scenes as pasted: share links, one a line, or a JSON list of them. Lines that are
    /// not links are left out; the count kept is what the page shows.
    SetScenes(String),
    Sort(StatsColumn),
}

/// The sweep panel's commands.
#[derive(Clone, Debug, PartialEq)]
pub enum SweepCommand {
    /// Runs a sweep of the draft as the form says, replacing any sweep on screen; a form that
    /// does not fit the tunable sets `sweep_error` instead.
    Run(SweepForm),
    /// Stops the sweep in progress; the points so far stay.
    Cancel,
}

impl From<Edit> for Action {
    fn from(e: Edit) -> Action {
        Action::Edit(e)
    }
}

impl From<WorkerEvent> for Action {
    fn from(e: WorkerEvent) -> Action {
        Action::Worker(e)
    }
}

impl From<ViewChange> for Action {
    fn from(v: ViewChange) -> Action {
        Action::View(v)
    }
}

impl From<SweepCommand> for Action {
    fn from(c: SweepCommand) -> Action {
        Action::Sweep(c)
    }
}

impl AppState {
    /// The state a page load starts from: the link in `fragment` if it holds one, else the
    /// default scenario. A link that cannot be opened is reported and the default shown.
    pub fn from_fragment(fragment: &str) -> AppState {
        let has_link = fragment
            .split('&')
            .any(|p| p.trim_start_matches('#').starts_with("s="));
        if !has_link {
            return AppState::default_scenario();
        }
        match schedlab::decode(fragment) {
            Ok(link) => AppState::from_link(link),
            Err(e) => {
                let mut s = AppState::default_scenario();
                s.notice = Some(format!(
                    "{} The default scenario is shown.",
                    crate::components::error_banner::explain_link(&e)
                ));
                s
            }
        }
    }

    pub fn from_link(link: LinkState) -> AppState {
        let mut s = AppState::new(link.scenario.clone(), None);
        s.open(link);
        s
    }

    /// Shows what a link holds, as a new generation; a compare view's pinned run is asked for
    /// just before it.
    fn open(&mut self, link: LinkState) {
        let a = link.pinned_scenario();
        let LinkState { scenario, mut view } = link;
        self.pinned = None;
        self.pinned_contest = ContestProgress::default();
        self.pin_pending = view.pinned.take().zip(a).map(|(pinned, a)| {
            self.generation += 1;
            PendingPin {
                id: self.generation,
                scenario: Rc::new(a),
                preset: pinned.preset,
            }
        });
        self.preset = view.preset.take();
        // Unedited if the preset, given the link's machine, seed and policy, makes exactly
        // this scenario: then its parameters and the CPU count regenerate it as usual.
        self.edited = self.preset.as_ref().is_none_or(|p| {
            let Ok(mut generated) =
                presets::generate(p, scenario.cpus, scenario.seed, &scenario.policy)
            else {
                return true;
            };
            // Machine knobs set by hand do not count as an edit: they go on top of the preset.
            for k in knobs::knobs() {
                if let Some(v) = knobs::get(&scenario, k.spec.key) {
                    let _ = knobs::set(&mut generated, k.spec.key, v);
                }
            }
            generated != scenario
        });
        self.draft = Rc::new(scenario);
        // Large type and presenter mode are the room's, not the link's: a link (a scene) can
        // turn them on, not off.
        let large_type = self.view.large_type || view.large_type;
        let presenter = self.view.presenter || view.presenter;
        self.view = view;
        self.view.large_type = large_type;
        self.view.presenter = presenter;
        self.raw.clear();
        self.revalidate();
        self.ask_quiz();
    }

    /// Asks the worker for the quiz of `view.quiz` with this generation (none: no quiz).
    fn ask_quiz(&mut self) {
        self.quiz = crate::components::quiz::QuizSession {
            pending: self.view.quiz.map(|_| self.generation),
            ..Default::default()
        };
    }

    /// A quiz question is open, or its quiz on its way: the explorer's results would give the
    /// answer away, so the page hides them.
    pub fn quiz_hides_results(&self) -> bool {
        self.view.quiz.is_some() && self.quiz.hides_results()
    }

    pub fn default_scenario() -> AppState {
        let (preset, made) = default_preset(DEFAULT_ITERATIONS);
        AppState::new(made.unwrap_or_else(fallback_scenario), Some(preset))
    }

    fn new(scenario: Scenario, preset: Option<PresetRef>) -> AppState {
        let mut s = AppState {
            draft: Rc::new(scenario),
            preset,
            edited: false,
            raw: RawTexts::default(),
            problems: Vec::new(),
            view: ViewState::default(),
            generation: 0,
            status: RunStatus::Running,
            shown: None,
            pinned: None,
            pin_pending: None,
            from_preset: FromPreset::default(),
            contest: ContestProgress::default(),
            pinned_contest: ContestProgress::default(),
            inspector: Inspector::default(),
            sweep: None,
            sweep_error: None,
            notice: None,
            share_url: String::new(),
            discussed: None,
            scenes: Vec::new(),
            scene: None,
            sort: (StatsColumn::Cpu, true),
            quiz: Default::default(),
            generated_cache: Default::default(),
        };
        s.revalidate();
        s
    }

    /// The preset behind the draft, when it is contest: the page then shows its table.
    pub fn is_contest(&self) -> bool {
        self.preset
            .as_ref()
            .is_some_and(|p| p.id == schedlab::workloads::contest::PRESET.id)
    }

    /// The scenario the draft's preset makes for its CPUs, seed and policy, if it has one.
    /// Made again only when what it depends on changes: every edit on contest asks for it,
    /// and a slider's move (a tunable) changes none of it, where making it took milliseconds.
    pub fn generated(&self) -> Option<Scenario> {
        let preset = self.preset.as_ref()?;
        let d = &self.draft;
        let key: GeneratedFor = (preset.clone(), d.cpus, d.seed, d.policy.id.clone());
        let mut cache = self.generated_cache.borrow_mut();
        if !matches!(&*cache, Some((k, _)) if *k == key) {
            let s = presets::generate(preset, d.cpus, d.seed, &d.policy).ok()?;
            *cache = Some((key, Rc::new(s)));
        }
        let mut s = Scenario::clone(&cache.as_ref()?.1);
        s.policy = d.policy.clone();
        Some(s)
    }

    /// The machine knobs set by hand: those whose value in the draft differs from what its
    /// preset makes (every knob of a machine without a preset is the draft's own). Regenerating
    /// the preset, its contest rows and its sweeps apply them on top, as `--set` does.
    pub fn machine_overrides(&self) -> BTreeMap<String, i64> {
        self.overrides_over(self.generated().as_ref())
    }

    /// The machine knobs whose value in the draft differs from `generated`'s, the scenario
    /// the draft's preset makes.
    fn overrides_over(&self, generated: Option<&Scenario>) -> BTreeMap<String, i64> {
        let Some(generated) = generated else {
            return BTreeMap::new();
        };
        // Built by insertion, not collected (see schedlab::engine::sort).
        let mut out = BTreeMap::new();
        out.extend(knobs::knobs().filter_map(|k| {
            let key = k.spec.key;
            let mine = knobs::get(&self.draft, key)?;
            (knobs::get(generated, key) != Some(mine)).then(|| (key.to_owned(), mine))
        }));
        out
    }

    /// The requests for the current generation: the run, a link's pinned run still to come,
    /// then (for contest) one per load.
    pub fn requests(&self) -> Vec<Request> {
        let pin = self.pin_pending.as_ref().map(|p| Request::Run {
            id: p.id,
            scenario: Source::Scenario(Box::new((*p.scenario).clone())),
            preset: p.preset.clone(),
        });
        let quiz = match (self.quiz.pending, self.view.quiz) {
            (Some(id), Some(seed)) => Some(Request::Quiz { id, seed }),
            _ => None,
        };
        if !self.problems.is_empty() {
            return pin.into_iter().chain(quiz).collect();
        }
        let id = self.generation;
        let contest = self.is_contest() && self.contest.id == id;
        let exact = self.from_preset.exact;
        let scenario = if exact {
            Source::Generated {
                cpus: self.draft.cpus,
                seed: self.draft.seed,
                policy: self.draft.policy.clone(),
                machine: self.from_preset.machine.clone(),
            }
        } else {
            Source::Scenario(Box::new((*self.draft).clone()))
        };
        // The run itself, unless it is on screen already (the worker's first run, which it
        // answered before the page asked: `hooks::use_runner::take_first_run`).
        let shown = self.shown.as_ref().is_some_and(|s| s.id == id);
        let mut out: Vec<Request> = (!shown)
            .then(|| Request::Run {
                id,
                scenario,
                preset: self.preset.clone(),
            })
            .into_iter()
            .collect();
        out.extend(pin);
        out.extend(quiz);
        if let Some(preset) = self.preset.as_ref().filter(|_| contest) {
            let mut params = preset.params.clone();
            let main_load = params.remove("load");
            let machine = &self.from_preset.machine;
            for (i, load) in schedlab::workloads::contest::LOADS.iter().enumerate() {
                // The run itself is this load's row.
                if exact && main_load.unwrap_or(0) == i as i64 {
                    continue;
                }
                out.push(Request::ContestRow {
                    id,
                    load: (*load).to_owned(),
                    params: params.clone(),
                    cpus: self.draft.cpus,
                    seed: self.draft.seed,
                    policy: self.draft.policy.clone(),
                    machine: machine.clone(),
                });
            }
        }
        out
    }

    /// The inspector's request: the run queues at the cursor of the run on screen.
    pub fn inspect_request(&self) -> Option<Request> {
        let shown = self.shown.as_ref()?;
        Some(Request::Inspect {
            id: self.inspector.id,
            scenario: Box::new((*shown.scenario).clone()),
            preset: shown.preset.clone(),
            at_ns: self.view.cursor_ns?,
        })
    }

    /// Asks for the run queues at the cursor again (a new id), or clears the inspector when
    /// there is no cursor.
    fn reinspect(&mut self) {
        self.inspector.id += 1;
        self.inspector.pending = self.view.cursor_ns.is_some() && self.shown.is_some();
        if self.view.cursor_ns.is_none() {
            self.inspector.queues = None;
            self.inspector.error = None;
        }
    }

    /// What a sweep of the draft runs at each point: its preset, regenerated at each value, while
    /// the task table is as the preset made it; else the scenario its.
    pub fn sweep_target(&self) -> Target {
        match &self.preset {
            Some(preset) if !self.edited => Target::Preset {
                preset: preset.clone(),
                cpus: self.draft.cpus,
            },
            _ => Target::Scenario {
                scenario: Box::new((*self.draft).clone()),
            },
        }
    }

    /// The metrics a sweep of the draft can report.
    pub fn sweep_metrics(&self) -> &'static [&'static str] {
        self.sweep_target().metrics().unwrap_or(&[])
    }

    fn sweep_basis(&self, key: &str) -> SweepBasis {
        let target = match self.sweep_target() {
            // Each point sets the policy and the seed its.
            Target::Scenario { mut scenario } => {
                scenario.policy.tunables.clear();
                scenario.seed = 0;
                Target::Scenario { scenario }
            }
            target => target,
        };
        let mut fixed = self.draft.policy.tunables.clone();
        if matches!(target, Target::Preset { .. }) {
            // The preset is regenerated at each point: the knobs set by hand go with it.
            fixed.extend(self.machine_overrides());
        }
        fixed.remove(key);
        SweepBasis {
            target,
            policy: self.draft.policy.id.clone(),
            fixed,
            seed: self.draft.seed,
        }
    }

    /// The scenario, policy, other tunables or seed changed since the sweep on screen ran.
    pub fn sweep_is_stale(&self) -> bool {
        self.sweep
            .as_ref()
            .is_some_and(|run| self.sweep_basis(&run.sweep.key) != run.basis)
    }

    /// The requests for the sweep's points still to come.
    pub fn sweep_requests(&self) -> Vec<Request> {
        let Some(run) = self.sweep.as_ref().filter(|r| r.running()) else {
            return Vec::new();
        };
        run.values
            .iter()
            .zip(&run.results)
            .filter(|(_, r)| r.is_none())
            .map(|(&v, _)| Request::SweepPoint {
                id: run.id,
                point: run.sweep.point(v, run.seed),
            })
            .collect()
    }

    fn start_sweep(&mut self, form: SweepForm) {
        match self.checked_sweep(&form) {
            Ok((sweep, spec, values)) => {
                let id = self.sweep.as_ref().map_or(0, |r| r.id) + 1;
                let basis = self.sweep_basis(&sweep.key);
                self.sweep = Some(Rc::new(SweepRun {
                    id,
                    sweep: Rc::new(sweep),
                    spec,
                    seed: self.draft.seed,
                    results: vec![None; values.len()],
                    values,
                    halted: None,
                    basis,
                }));
                self.sweep_error = None;
            }
            Err(message) => self.sweep_error = Some(message),
        }
    }

    fn checked_sweep(&self, form: &SweepForm) -> Result<(Sweep, TunableSpec, Vec<i64>), String> {
        if !self.problems.is_empty() {
            return Err("The scenario has problems (see above); fix them to run a sweep.".into());
        }
        let number = |name: &str, text: &str| {
            text.trim()
                .parse::<i64>()
                .map_err(|_| format!("{name}: {text:?} is not a whole number"))
        };
        let range = Range {
            from: number("from", &form.from)?,
            to: number("to", &form.to)?,
            step: number("step", &form.step)?,
        };
        let sweep = Sweep {
            target: self.sweep_target(),
            policy: self.draft.policy.clone(),
            key: form.key.clone(),
            range,
            metric: form.metric.clone(),
        };
        let spec = *sweep.spec().map_err(|e| e.to_string())?;
        let values = sweep.values().map_err(|e| e.to_string())?;
        Ok((sweep, spec, values))
    }

    /// The link state of what is on screen (the last good run), for the share link.
    pub fn link_state(&self) -> Option<LinkState> {
        let shown = self.shown.as_ref()?;
        let mut view = self.view.clone();
        view.preset = shown.preset.clone();
        view.pinned = match (&self.pinned, &self.pin_pending) {
            (Some(a), _) => Some(PinnedView::new(
                &a.scenario,
                a.preset.clone(),
                &shown.scenario,
            )),
            (None, Some(p)) => Some(PinnedView::new(
                &p.scenario,
                p.preset.clone(),
                &shown.scenario,
            )),
            (None, None) => None,
        };
        Some(LinkState {
            scenario: (*shown.scenario).clone(),
            view,
        })
    }

    /// Presenter mode's one slider: the tunable last moved, if the draft still has it, else
    /// the featured one if its policy has it, else the policy's first. Its spec and value.
    pub fn discussed_tunable(&self) -> Option<(&'static TunableSpec, i64)> {
        let policy = schedlab::find(&self.draft.policy.id)?;
        let of_policy = |key: &str| {
            let spec = policy.tunables.iter().find(|t| t.key == key)?;
            let value = self.draft.policy.tunables.get(key).copied();
            Some((spec, value.unwrap_or(spec.default)))
        };
        let of_machine = |key: &str| {
            let knob = knobs::find(key)?;
            Some((knob.spec, knobs::get(&self.draft, key)?))
        };
        self.discussed
            .as_deref()
            .and_then(|k| of_policy(k).or_else(|| of_machine(k)))
            .or_else(|| of_policy(FEATURED_TUNABLE))
            .or_else(|| policy.tunables.first().and_then(|t| of_policy(t.key)))
    }

    /// The problem reported for a field path (exactly, or for a sub-field of it).
    pub fn problem_at(&self, path: &str) -> Option<String> {
        problem_at(&self.problems, path)
    }

    /// The banner's text: the draft's problems, then any notice.
    pub fn banner(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.problems.is_empty() {
            let list: Vec<String> = self.problems.iter().map(|p| p.to_string()).collect();
            parts.push(format!(
                "The scenario was not run because of {}: {}. The charts and tables show the last good run.",
                if list.len() == 1 {
                    "a problem".to_string()
                } else {
                    format!("{} problems", list.len())
                },
                list.join("; ")
            ));
        }
        if let Some(n) = &self.notice {
            parts.push(n.clone());
        }
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    /// Re-checks the draft; a valid one gets a new generation (and so a run).
    fn revalidate(&mut self) {
        let mut problems = self.raw.problems();
        if let Err(p) = schedlab::validate(&self.draft) {
            for problem in p.0 {
                // A field whose text did not parse already has its problem listed.
                if self.raw.get(&problem.path).is_none() {
                    problems.push(problem);
                }
            }
        }
        self.problems = problems;
        self.generation += 1;
        self.status = if self.problems.is_empty() {
            RunStatus::Running
        } else {
            RunStatus::Invalid
        };
        // The preset made once per generation: the knobs set by hand over it, and whether the
        // draft is what it makes.
        let generated = self.generated();
        let machine = self.overrides_over(generated.as_ref());
        let exact = self.problems.is_empty()
            && generated
                .is_some_and(|mut g| knobs::set_all(&mut g, &machine).is_ok() && g == *self.draft);
        self.from_preset = FromPreset { exact, machine };
        if self.is_contest() {
            self.contest = ContestProgress {
                id: self.generation,
                rows: Vec::new(),
            };
        }
    }

    fn parsed<T>(
        &mut self,
        path: &str,
        text: &str,
        parse: impl FnOnce(&str) -> Result<T, String>,
    ) -> Option<T> {
        match parse(text.trim()) {
            Ok(v) => {
                self.raw.remove(path);
                Some(v)
            }
            Err(message) => {
                self.raw.set(path, text, message);
                None
            }
        }
    }

    /// Regenerates the draft from its preset (after a preset, parameter or CPU change).
    fn regenerate(&mut self, cpus: u32) {
        let overrides = self.machine_overrides();
        let Some(preset) = &self.preset else { return };
        match presets::generate(preset, cpus, self.draft.seed, &self.draft.policy) {
            Ok(mut s) => {
                // The machine knobs set by hand stay set.
                for (key, &value) in &overrides {
                    if let Err(p) = knobs::set(&mut s, key, value) {
                        self.notice = Some(p.to_string());
                    }
                }
                self.draft = Rc::new(s);
                self.edited = false;
                self.raw.remove_under("tasks");
            }
            Err(p) => self.notice = Some(format!("The preset could not be generated: {p}")),
        }
    }

    fn task_mut(&mut self, i: usize) -> Option<&mut TaskSpec> {
        Rc::make_mut(&mut self.draft).tasks.get_mut(i)
    }

    /// The task group whose `cpu.weight` task `i`'s shares field edits: its group, under the
    /// policies that schedule groups (`cfs`, `eevdf`); `None` where the field is the task's own
    /// entitlement shares.
    pub fn weight_group(&self, i: usize) -> Option<usize> {
        weight_group(&self.draft, i)
    }
}

/// The problems of `problems` at a field path (exactly, or at a sub-field of it), joined.
pub fn problem_at(problems: &[Problem], path: &str) -> Option<String> {
    let messages: Vec<&str> = problems
        .iter()
        .filter(|p| {
            p.path == path
                || p.path
                    .strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with(['.', '[']))
        })
        .map(|p| p.message.as_str())
        .collect();
    (!messages.is_empty()).then(|| messages.join("; "))
}

/// [`AppState::weight_group`] of `draft`.
pub fn weight_group(draft: &Scenario, i: usize) -> Option<usize> {
    if !matches!(draft.policy.id.as_str(), "cfs" | "eevdf") {
        return None;
    }
    let group = draft.tasks.get(i)?.group.as_deref()?;
    draft.group_index(group)
}

/// The custom scenario (no preset): an editor and a hog, the smallest interesting contrast.
/// Also the default should the default preset ever be missing from the registry.
/// The default preset with `iterations` of its probe, and the scenario it makes under the
/// default policy (that policy, should it fail to generate): the page's opening scenario
/// ([`AppState::default_scenario`]) and the worker's first and warm-up runs (`sim.rs`).
pub fn default_preset(iterations: i64) -> (PresetRef, Result<Scenario, PolicySpec>) {
    let mut preset = PresetRef {
        id: DEFAULT_PRESET.into(),
        params: BTreeMap::new(),
    };
    presets::set_param(&mut preset, "iterations", iterations);
    let policy = PolicySpec {
        id: schedlab::workloads::default_policy().into(),
        tunables: BTreeMap::new(),
    };
    let made = presets::generate(
        &preset,
        schedlab::workloads::DEFAULT_CPUS,
        schedlab::workloads::DEFAULT_SEED,
        &policy,
    )
    .map_err(|_| policy);
    (preset, made)
}

fn fallback_scenario(policy: PolicySpec) -> Scenario {
    Scenario {
        version: schedlab::engine::scenario::SCENARIO_VERSION,
        name: String::new(),
        description: String::new(),
        cpus: 1,
        duration: Nanos::from_secs(5),
        seed: 1,
        policy,
        tasks: vec![
            new_task("editor", Template::Interactive),
            new_task("hog", Template::CpuHog),
        ],
        programs: BTreeMap::new(),
        disks: Vec::new(),
        channels: Vec::new(),
        costs: Default::default(),
        machine: None,
        groups: Vec::new(),
    }
}

fn new_task(name: &str, template: Template) -> TaskSpec {
    TaskSpec {
        name: name.to_owned(),
        nice: 0,
        arrival: Nanos::ZERO,
        shares: None,
        cpu_rate_cap: None,
        slice: None,
        cpus: None,
        group: None,
        rt: None,
        count: None,
        program: template.program().unwrap_or(Program(Vec::new())),
    }
}

fn parse_int<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse::<T>()
        .map_err(|_| format!("{text:?} is not a whole number"))
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::Edit(edit) => {
                s.notice = None;
                s.edit(edit);
            }
            Action::Worker(event) => s.worker(event),
            Action::View(change) => s.change_view(change),
            Action::Sweep(SweepCommand::Run(form)) => s.start_sweep(form),
            Action::Sweep(SweepCommand::Cancel) => s.halt_sweep("cancelled"),
        }
        Rc::new(s)
    }
}

impl AppState {
    fn edit(&mut self, edit: Edit) {
        match edit {
            Edit::StepScene(delta) => {
                let last = self.scenes.len().saturating_sub(1) as i64;
                let next = match self.scene {
                    None => 0,
                    Some(i) => (i as i64).saturating_add(delta).clamp(0, last),
                };
                // Past either end the scene on screen stays (and does not run again).
                if self.scene == Some(next as usize) {
                    return;
                }
                let Some(fragment) = self.scenes.get(next as usize).cloned() else {
                    return;
                };
                match schedlab::decode(&fragment) {
                    Ok(link) => {
                        self.scene = Some(next as usize);
                        self.open(link);
                    }
                    Err(e) => {
                        self.notice = Some(format!(
                            "Scene {}: {}",
                            next + 1,
                            crate::components::error_banner::explain_link(&e)
                        ))
                    }
                }
            }
            Edit::OpenLink(fragment) => match schedlab::decode(&fragment) {
                Ok(link) => self.open(link),
                // What was on screen stays.
                Err(e) => self.notice = Some(crate::components::error_banner::explain_link(&e)),
            },
            Edit::SelectPreset(id) => {
                if id.is_empty() {
                    // A small scenario to build from; the preset's may run for an hour.
                    self.preset = None;
                    let mut blank = fallback_scenario(self.draft.policy.clone());
                    blank.cpus = self.draft.cpus;
                    blank.seed = self.draft.seed;
                    self.draft = Rc::new(blank);
                    self.raw.clear();
                    self.edited = false;
                } else {
                    self.preset = Some(PresetRef {
                        id,
                        params: BTreeMap::new(),
                    });
                    self.regenerate(self.draft.cpus);
                }
                self.revalidate();
            }
            Edit::SetPresetParam(key, value) => {
                if let Some(p) = self.preset.as_mut() {
                    presets::set_param(p, &key, value);
                }
                self.regenerate(self.draft.cpus);
                self.revalidate();
            }
            Edit::Detach => {
                self.preset = None;
                self.revalidate();
            }
            Edit::SetCpus(text) => {
                if let Some(cpus) = self.parsed("cpus", &text, parse_int::<u32>) {
                    if self.preset.is_some()
                        && !self.edited
                        && (1..=schedlab::MAX_CPUS).contains(&cpus)
                    {
                        self.regenerate(cpus);
                    } else {
                        Rc::make_mut(&mut self.draft).cpus = cpus;
                    }
                }
                self.revalidate();
            }
            Edit::SetDuration(text) => {
                if let Some(d) = self.parsed("duration", &text, Nanos::parse) {
                    Rc::make_mut(&mut self.draft).duration = d;
                }
                self.revalidate();
            }
            Edit::SetSeed(text) => {
                if let Some(seed) = self.parsed("seed", &text, parse_int::<u64>) {
                    Rc::make_mut(&mut self.draft).seed = seed;
                }
                self.revalidate();
            }
            Edit::SelectPolicy(id) => {
                Rc::make_mut(&mut self.draft).policy = PolicySpec {
                    id,
                    tunables: BTreeMap::new(),
                };
                self.raw.remove_under("policy");
                self.revalidate();
            }
            Edit::SetTunable(key, value) if knobs::find(&key).is_some() => {
                self.discussed = Some(key.clone());
                if let Err(p) = knobs::set(Rc::make_mut(&mut self.draft), &key, value) {
                    self.notice = Some(p.to_string());
                }
                self.revalidate();
            }
            Edit::ResetTunable(key) if knobs::find(&key).is_some() => {
                // Back to what the preset sets (the kernel era's), else the knob's default.
                let value = self
                    .generated()
                    .and_then(|g| knobs::get(&g, &key))
                    .or(knobs::find(&key).map(|k| k.spec.default));
                if let Some(v) = value {
                    if let Err(p) = knobs::set(Rc::make_mut(&mut self.draft), &key, v) {
                        self.notice = Some(p.to_string());
                    }
                }
                self.revalidate();
            }
            Edit::SetTunable(key, value) => {
                self.discussed = Some(key.clone());
                let default = schedlab::find(&self.draft.policy.id)
                    .and_then(|p| p.tunables.iter().find(|t| t.key == key))
                    .map(|t| t.default);
                let tunables = &mut Rc::make_mut(&mut self.draft).policy.tunables;
                // Defaults are left out, as links store them.
                if default == Some(value) {
                    tunables.remove(&key);
                } else {
                    tunables.insert(key, value);
                }
                self.revalidate();
            }
            Edit::ResetTunable(key) => {
                Rc::make_mut(&mut self.draft).policy.tunables.remove(&key);
                self.revalidate();
            }
            Edit::AddTask => {
                let draft = Rc::make_mut(&mut self.draft);
                let mut n = draft.tasks.len() + 1;
                while draft.tasks.iter().any(|t| t.name == format!("task{n}")) {
                    n += 1;
                }
                draft
                    .tasks
                    .push(new_task(&format!("task{n}"), Template::Interactive));
                self.edited = true;
                self.revalidate();
            }
            Edit::RemoveTask(i) => {
                let draft = Rc::make_mut(&mut self.draft);
                if i < draft.tasks.len() {
                    draft.tasks.remove(i);
                }
                // Field paths of later tasks shift: drop unparsed text of every task.
                self.raw.remove_under("tasks");
                self.edited = true;
                self.revalidate();
            }
            Edit::RenameTask(i, name) => {
                if let Some(t) = self.task_mut(i) {
                    t.name = name;
                }
                self.edited = true;
                self.revalidate();
            }
            Edit::SetTemplate(i, key) => {
                let template = Template::from_key(&key).unwrap_or(Template::Custom);
                if let Some(program) = template.program() {
                    if let Some(t) = self.task_mut(i) {
                        t.program = program;
                    }
                    if template.needs_disk() && self.draft.disks.is_empty() {
                        Rc::make_mut(&mut self.draft)
                            .disks
                            .push(templates::default_disk());
                    }
                    self.raw.remove(&format!("tasks[{i}].program"));
                }
                self.edited = true;
                self.revalidate();
            }
            Edit::SetProgram(i, text) => {
                let path = format!("tasks[{i}].program");
                if let Some(program) = self.parsed(&path, &text, |t| {
                    serde_json::from_str::<Program>(t).map_err(|e| e.to_string())
                }) {
                    if let Some(t) = self.task_mut(i) {
                        t.program = program;
                    }
                }
                self.edited = true;
                self.revalidate();
            }
            Edit::SetNice(i, text) => {
                if let Some(nice) =
                    self.parsed(&format!("tasks[{i}].nice"), &text, parse_int::<i32>)
                {
                    if let Some(t) = self.task_mut(i) {
                        t.nice = nice;
                    }
                }
                self.edited = true;
                self.revalidate();
            }
            Edit::SetShares(i, text) if self.weight_group(i).is_some() => {
                let g = self.weight_group(i).unwrap_or_default();
                let path = format!("groups[{g}].cpu.weight");
                let weight = self.parsed(&path, &text, |t| {
                    if t.is_empty() {
                        Ok(schedlab::engine::scenario::GROUP_WEIGHT_DEFAULT)
                    } else {
                        parse_int::<u32>(t)
                    }
                });
                if let Some(w) = weight {
                    if let Some(group) = Rc::make_mut(&mut self.draft).groups.get_mut(g) {
                        group.cpu_weight = w;
                    }
                }
                self.edited = true;
                self.revalidate();
            }
            Edit::SetShares(i, text) => {
                let path = format!("tasks[{i}].shares");
                let shares = self.parsed(&path, &text, |t| {
                    if t.is_empty() {
                        Ok(None)
                    } else {
                        parse_int::<u32>(t).map(Some)
                    }
                });
                if let Some(shares) = shares {
                    if let Some(t) = self.task_mut(i) {
                        t.shares = shares;
                    }
                }
                self.edited = true;
                self.revalidate();
            }
            Edit::SetArrival(i, text) => {
                if let Some(a) = self.parsed(&format!("tasks[{i}].arrival"), &text, Nanos::parse) {
                    if let Some(t) = self.task_mut(i) {
                        t.arrival = a;
                    }
                }
                self.edited = true;
                self.revalidate();
            }
        }
    }

    fn worker(&mut self, event: WorkerEvent) {
        match event {
            WorkerEvent::Reply(response) => self.apply_reply(response),
            WorkerEvent::Crashed(message) => {
                self.notice = Some(format!(
                "{} The simulator was restarted; your scenario and the last good run are kept. Change something to run again.",
                crate::protocol::explain_crash(&message)
            ));
                if self.status == RunStatus::Running {
                    self.status = RunStatus::Failed("the simulator crashed".into());
                }
                self.inspector.pending = false;
                self.halt_sweep("the simulator crashed");
            }
            WorkerEvent::Stopped {
                elapsed_ms,
                timed_out,
            } => {
                let seconds = elapsed_ms / 1000.0;
                if timed_out {
                    let limit = crate::protocol::REQUEST_TIME_LIMIT_MS / 1000.0;
                    self.notice = Some(format!(
                    "This scenario took longer than {limit:.0} s to simulate, the page's limit, so it was stopped. Shorten the duration or use fewer tasks, or run it with the command line (schedlab run). Your scenario and the last good run are kept."
                ));
                    if self.status == RunStatus::Running {
                        self.status = RunStatus::Stopped(format!(
                            "took longer than {limit:.0} s, the page's limit"
                        ));
                    }
                    self.halt_sweep("a point took longer than the page's time limit");
                } else {
                    self.notice = Some(format!(
                    "Run cancelled after {seconds:.1} s. Your scenario and the last good run are kept; change something to run again."
                ));
                    if self.status == RunStatus::Running {
                        self.status = RunStatus::Stopped(format!("cancelled after {seconds:.1} s"));
                    }
                }
                self.inspector.pending = false;
            }
        }
    }

    fn change_view(&mut self, change: ViewChange) {
        match change {
            ViewChange::Shared(url) => self.share_url = url,
            ViewChange::SetCursor(at) => {
                // Within the run on screen: a cursor past its end would show nothing.
                let end = self.shown.as_ref().map(|shown| shown.data.end_ns);
                self.view.cursor_ns = at.map(|t| end.map_or(t, |end| t.min(end)));
                self.reinspect();
            }
            ViewChange::DismissNotice => self.notice = None,
            ViewChange::ToggleLargeType => self.view.large_type = !self.view.large_type,
            ViewChange::TogglePresenter => self.view.presenter = !self.view.presenter,
            ViewChange::SetScenes(text) => {
                self.scenes = parse_scenes(&text);
                self.scene = None;
            }
            ViewChange::Sort(column) => {
                self.sort = if self.sort.0 == column {
                    (column, !self.sort.1)
                } else {
                    // Names read best A to Z; numbers largest first.
                    (column, column != StatsColumn::Name)
                };
            }
            ViewChange::SetLanes(lanes) => self.view.lanes = lanes,
            ViewChange::SetZoom(zoom) => {
                // Stored as a window (start before end); each chart holds it inside its run.
                self.view.zoom = zoom.map(|z| {
                    let w = Window::new(z.start_ns, z.end_ns.max(z.start_ns));
                    TimeWindow {
                        start_ns: w.start,
                        end_ns: w.end,
                    }
                });
            }
            ViewChange::SetQuiz(seed) => {
                self.view.quiz = seed;
                if seed.is_some() {
                    // A new generation carries the request.
                    self.revalidate();
                }
                self.ask_quiz();
            }
            ViewChange::QuizStep(step) => self.quiz.step(step),
            ViewChange::SelectTask(task) => {
                // Picking the selected task again clears the selection.
                self.view.selected_task =
                    task.filter(|t| self.view.selected_task.as_ref() != Some(t));
            }
            ViewChange::CompareTask(task) => {
                let compared = &mut self.view.compared_tasks;
                if let Some(i) = compared.iter().position(|t| *t == task) {
                    compared.remove(i);
                } else {
                    compared.push(task);
                    let room = crate::charts::palette::PICKED_MAX - 1;
                    let over = compared.len().saturating_sub(room);
                    compared.drain(..over);
                }
            }
            ViewChange::TogglePin => {
                if self.pinned.is_some() || self.pin_pending.is_some() {
                    self.pinned = None;
                    self.pin_pending = None;
                    self.pinned_contest = ContestProgress::default();
                } else {
                    self.pinned = self.shown.clone();
                    // The contest rows of the run pinned, and those of it still to come.
                    let same = self.shown.as_ref().is_some_and(|s| s.id == self.contest.id);
                    self.pinned_contest = if same && self.is_contest() {
                        self.contest.clone()
                    } else {
                        ContestProgress::default()
                    };
                }
            }
        }
    }
}

impl AppState {
    /// Stops a running sweep, saying why; a finished one stays as it is.
    fn halt_sweep(&mut self, why: &str) {
        if let Some(run) = self.sweep.as_mut().filter(|r| r.running()) {
            Rc::make_mut(run).halted = Some(why.to_owned());
        }
    }

    fn apply_reply(&mut self, response: Response) {
        let pin_id = self.pin_pending.as_ref().map(|p| p.id);
        match response {
            Response::Ran {
                id,
                wall_ms,
                mut outcome,
            } if Some(id) == pin_id => {
                if let Some(pin) = self.pin_pending.take() {
                    self.pinned = Some(Rc::new(Shown {
                        id,
                        data: Rc::new(std::mem::take(&mut outcome.data)),
                        scenario: pin.scenario,
                        preset: pin.preset,
                        outcome: Rc::new(*outcome),
                        wall_ms,
                    }));
                }
            }
            Response::Failed { id, message, .. } if Some(id) == pin_id => {
                self.pin_pending = None;
                self.notice = Some(format!(
                    "The link's pinned run (A) could not be run again, so there is nothing to compare with: {message}"
                ));
            }
            Response::Ran {
                id,
                wall_ms,
                mut outcome,
            } if id == self.generation => {
                let data = Rc::new(std::mem::take(&mut outcome.data));
                // The run's own row of the contest table, which was not asked for again.
                if let Some(row) = outcome.contest_row.take() {
                    if self.contest.id == id && self.from_preset.exact {
                        self.contest.rows.retain(|r| r.load != row.load);
                        self.contest.rows.push(row);
                    }
                }
                self.status = RunStatus::Done {
                    wall_ms,
                    hash: outcome.result.trace_hash.clone(),
                };
                self.shown = Some(Rc::new(Shown {
                    id,
                    scenario: self.draft.clone(),
                    preset: self.preset.clone(),
                    outcome: Rc::new(*outcome),
                    data,
                    wall_ms,
                }));
                // The cursor stays where it was; the queues there are the new run's.
                self.reinspect();
            }
            Response::Quiz { id, seed, quiz }
                if Some(id) == self.quiz.pending && Some(seed) == self.view.quiz =>
            {
                self.quiz.pending = None;
                match quiz {
                    Ok(quiz) => {
                        // The explorer shows the quiz's jobs (a link may have them already).
                        if *self.draft != quiz.scenario {
                            self.draft = Rc::new(quiz.scenario.clone());
                            self.preset = None;
                            self.edited = false;
                            self.raw.clear();
                            self.view.selected_task = None;
                            self.view.compared_tasks.clear();
                            self.view.cursor_ns = None;
                            self.view.zoom = None;
                            self.revalidate();
                        }
                        self.quiz.quiz = Some(Rc::new(*quiz));
                    }
                    Err(message) => self.quiz.error = Some(message),
                }
            }
            Response::Inspected { id, outcome } if id == self.inspector.id => {
                self.inspector.pending = false;
                match outcome {
                    Ok(queues) => {
                        self.inspector.queues = Some(Rc::new(queues));
                        self.inspector.error = None;
                    }
                    Err(message) => self.inspector.error = Some(message),
                }
            }
            Response::SweepPoint { id, value, metric } => {
                let Some(run) = self.sweep.as_mut().filter(|r| r.id == id && r.running()) else {
                    return;
                };
                let run = Rc::make_mut(run);
                if let Some(i) = run.values.iter().position(|&v| v == value) {
                    run.results[i] = Some(metric);
                }
            }
            Response::ContestRow { id, row }
                if id == self.contest.id || id == self.pinned_contest.id =>
            {
                if self.pinned.is_some() && id == self.pinned_contest.id {
                    self.pinned_contest.rows.retain(|r| r.load != row.load);
                    self.pinned_contest.rows.push(row.clone());
                }
                if id == self.contest.id {
                    self.contest.rows.retain(|r| r.load != row.load);
                    self.contest.rows.push(row);
                }
            }
            Response::Failed { id, message, .. } if id == self.generation => {
                // A contest row failing after the run itself finished keeps the run's status.
                if self.status == RunStatus::Running {
                    self.status = RunStatus::Failed(message.clone());
                }
                self.notice = Some(format!(
                    "The run failed, so the last good run is shown: {message}"
                ));
                // The new run dropped the inspection it was waiting for; the run on screen
                // is still the old one, so ask again for it.
                if self.inspector.pending {
                    self.reinspect();
                }
            }
            Response::Panicked { message } | Response::Crashed { message } => {
                self.notice = Some(format!("The simulator crashed: {message}"));
            }
            // A reply to an older generation: superseded, dropped.
            _ => {}
        }
    }
}

/// Scenes as a teacher pastes them: a JSON list of share links, or one link a line. Each is
/// kept as its fragment (`#s=...`, what `schedlab::decode` reads); text without `s=` is left
/// out.
pub fn parse_scenes(text: &str) -> Vec<String> {
    let items: Vec<String> = match serde_json::from_str::<Vec<String>>(text.trim()) {
        Ok(list) => list,
        Err(_) => text.lines().map(str::to_owned).collect(),
    };
    items
        .iter()
        .filter_map(|item| {
            let item = item.trim();
            let at = item
                .find("#s=")
                .or_else(|| item.starts_with("s=").then_some(0))?;
            let fragment = &item[at..];
            Some(if fragment.starts_with('#') {
                fragment.to_owned()
            } else {
                format!("#{fragment}")
            })
        })
        .collect()
}

/// The reducer's dispatcher as one callback per kind of action, for components' props. Made
/// once per page (`App`): a callback compares by identity, so props holding these stay equal
/// from render to render and Yew skips a component whose data did not change.
#[derive(Clone, PartialEq)]
pub struct Dispatch {
    pub action: Callback<Action>,
    pub edit: Callback<Edit>,
    pub view: Callback<ViewChange>,
    pub sweep: Callback<SweepCommand>,
}

impl Dispatch {
    pub fn new(action: Callback<Action>) -> Dispatch {
        Dispatch {
            edit: action.reform(Action::Edit),
            view: action.reform(Action::View),
            sweep: action.reform(Action::Sweep),
            action,
        }
    }
}
