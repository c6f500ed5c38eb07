//! Predict, then reveal: OSTEP-style quizzes generated from a seed (in the manner of OSTEP's
//! `scheduler.py -s SEED`), with every answer taken from the run itself.
//!
//! A seed picks a textbook policy (`fifo`, `sjf`, `stcf`, `rr`) and three or four jobs, each a
//! CPU burst of 10–100 ms arriving at 0–30 ms, on one CPU. The questions ask which job finishes
//! first, when a job finishes, the average turnaround, and who runs next at a decision instant;
//! the answers are read off the run (exit times, turnarounds, the Gantt lanes) and each comes
//! with the steps that reveal it, the last one being the answer. Same seed, same quiz: the
//! generator draws from the engine's seeded generator and the run is deterministic.
//!
//! ```text
//! Quiz::new(seed) ─► scenario ─► Job::run ─► questions (prompt, answer, reveal steps)
//!                                              └─► Question::check(given) ─► right or wrong
//! ```

use serde::{Deserialize, Serialize};

use schedlab_engine::program::{Dur, Program, Step};
use schedlab_engine::rng::Rng;
use schedlab_engine::scenario::{PolicySpec, TaskSpec, SCENARIO_VERSION};
use schedlab_engine::sort;
use schedlab_engine::{Detail, Nanos, Scenario};
use schedlab_policies::SimError;

use crate::job::Job;
use crate::result::RunResult;
use crate::view::RunData;

/// The policies a quiz draws from, OSTEP ch. 7's.
pub const POLICIES: [&str; 4] = ["fifo", "sjf", "stcf", "rr"];

/// The generator's stream of a seed (apart from the engine's own streams of the same seed).
const STREAM: u64 = 0x5155_495a; // "QUIZ"

/// A quiz: the scenario it is about and its questions, answers included.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quiz {
    pub seed: u64,
    pub scenario: Scenario,
    pub questions: Vec<Question>,
}

/// One question.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub prompt: String,
    pub answer: Answer,
    /// Steps that reveal the answer one at a time; the last states it.
    pub reveal: Vec<String>,
}

/// What a question asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// A job's name.
    Job(String),
    /// A time in nanoseconds, answered in milliseconds.
    Time(u64),
}

/// An answer that cannot be checked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuizError {
    #[error("answer: \"{given}\" is not one of the jobs ({known})")]
    UnknownJob { given: String, known: String },
    #[error(
        "answer: \"{given}\" is not a time in ms (a number from 0 to 1000000, e.g. 42 or 42.5)"
    )]
    NotATime { given: String },
}

/// A given time is right within half a millisecond: the class answers in whole ms.
pub const TIME_TOLERANCE_NS: u64 = 500_000;

impl Quiz {
    /// The quiz of `seed`: its scenario, run, and questions with their answers.
    pub fn new(seed: u64) -> Result<Quiz, SimError> {
        let scenario = scenario(seed);
        let job = Job::new(scenario.clone(), None);
        let out = job.run(Detail::Full)?.output;
        let result = RunResult::new(&scenario, &out);
        let data = RunData::from_run(&scenario, &out);
        let mut rng = Rng::new(seed, STREAM.wrapping_add(1));
        let questions = questions(&scenario, &result, &data, &job, &mut rng)?;
        Ok(Quiz {
            seed,
            scenario,
            questions,
        })
    }
}

/// The scenario of `seed`: one of [`POLICIES`] and 3 or 4 jobs named A, B, C, D.
pub fn scenario(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed, STREAM);
    let policy = POLICIES[rng.below(POLICIES.len() as u64) as usize];
    let n = 3 + rng.below(2);
    let tasks = (0..n)
        .map(|i| {
            let burst = Nanos::from_ms(10 * (1 + rng.below(10)));
            let arrival = Nanos::from_ms(10 * rng.below(4));
            TaskSpec {
                name: char::from(b'A' + i as u8).to_string(),
                nice: 0,
                arrival,
                shares: None,
                cpu_rate_cap: None,
                slice: None,
                cpus: None,
                group: None,
                rt: None,
                count: None,
                program: Program(vec![Step::Run(Dur::Fixed(burst))]),
            }
        })
        .collect();
    Scenario {
        version: SCENARIO_VERSION,
        name: format!("quiz {seed}"),
        description: format!("Quiz {seed}: {n} jobs on one CPU under {policy}"),
        cpus: 1,
        duration: Nanos::from_secs(10),
        seed,
        policy: PolicySpec {
            id: policy.to_owned(),
            tunables: Default::default(),
        },
        tasks,
        programs: Default::default(),
        disks: Vec::new(),
        channels: Vec::new(),
        costs: Default::default(),
        machine: None,
        groups: Vec::new(),
    }
}

/// A time in ms as the class writes it: "30 ms", "36.667 ms" (at most six decimals, no
/// trailing zeros).
fn ms(ns: u64) -> String {
    let (whole, frac) = (ns / 1_000_000, ns % 1_000_000);
    if frac == 0 {
        return format!("{whole} ms");
    }
    let digits = format!("{frac:06}");
    format!("{whole}.{} ms", digits.trim_end_matches('0'))
}

fn questions(
    s: &Scenario,
    result: &RunResult,
    data: &RunData,
    job: &Job,
    rng: &mut Rng,
) -> Result<Vec<Question>, SimError> {
    let policy = &s.policy.id;
    let jobs: Vec<String> = s
        .tasks
        .iter()
        .map(|t| {
            let burst = match t.program.0.first() {
                Some(Step::Run(Dur::Fixed(d))) => ms(d.0),
                _ => String::from("?"),
            };
            format!("{} arrives at {} needing {burst}", t.name, ms(t.arrival.0))
        })
        .collect();
    let setup = format!("On one CPU under {policy}: {}.", jobs.join("; "));
    // Every job exits: the bursts add up to far less than the duration.
    let mut finished: Vec<(u64, &str, u64)> = result
        .tasks
        .iter()
        .filter_map(|t| {
            t.turnaround_ns
                .map(|ta| (t.arrival_ns + ta, t.name.as_str(), ta))
        })
        .collect();
    sort::sort_by(&mut finished, Ord::cmp);
    let mut out = Vec::new();
    let order: Vec<String> = finished
        .iter()
        .map(|(exit, name, _)| format!("{name} finishes at {}", ms(*exit)))
        .collect();

    if let Some((_, first, _)) = finished.first() {
        let mut reveal = order.clone();
        reveal.push(format!("{first} finishes first"));
        out.push(Question {
            prompt: format!("{setup} Which job finishes first?"),
            answer: Answer::Job((*first).to_owned()),
            reveal,
        });
    }

    if !finished.is_empty() {
        let (exit, name, _) = finished[rng.below(finished.len() as u64) as usize];
        let id = result.tasks.iter().find(|t| t.name == name).map(|t| t.id);
        let mut reveal: Vec<String> = id
            .map(|id| runs_of(data, id))
            .unwrap_or_default()
            .into_iter()
            .map(|(a, b)| format!("{name} runs {}–{}", ms(a), ms(b)))
            .collect();
        reveal.push(format!("{name} finishes at {}", ms(exit)));
        out.push(Question {
            prompt: format!("{setup} When does {name} finish (ms)?"),
            answer: Answer::Time(exit),
            reveal,
        });
    }

    if !finished.is_empty() {
        let total: u64 = finished.iter().map(|f| f.2).sum();
        let n = finished.len() as u64;
        // Rounded to the nearest nanosecond.
        let mean = (total + n / 2) / n;
        let mut by_name = finished.clone();
        sort::sort_by_key(&mut by_name, |f| f.1);
        let mut reveal: Vec<String> = by_name
            .iter()
            .map(|(exit, name, ta)| {
                let arrival = exit - ta;
                format!(
                    "{name}: turnaround {} − {} = {}",
                    ms(*exit),
                    ms(arrival),
                    ms(*ta)
                )
            })
            .collect();
        reveal.push(format!(
            "average turnaround: {} / {n} = {}",
            ms(total),
            ms(mean)
        ));
        out.push(Question {
            prompt: format!("{setup} What is the average turnaround time (ms)?"),
            answer: Answer::Time(mean),
            reveal,
        });
    }

    // Who runs next at a decision where a job starts running.
    let lane = data.cpu_lanes.first();
    let starts: Vec<(u64, u32)> = lane
        .map(|l| l.start.iter().copied().zip(l.key.iter().copied()).collect())
        .unwrap_or_default();
    if !starts.is_empty() {
        let (at, id) = starts[rng.below(starts.len() as u64) as usize];
        let name = data.task_name(id);
        let queues = job.inspect(Nanos(at))?;
        let mut reveal: Vec<String> = crate::explain::sentences(&queues);
        reveal.push(format!("{name} runs next at {}", ms(at)));
        out.push(Question {
            prompt: format!(
                "{setup} At {} the scheduler picks a job: which one runs next?",
                ms(at)
            ),
            answer: Answer::Job(name),
            reveal,
        });
    }
    Ok(out)
}

/// `task`'s runs on any CPU, in time order.
fn runs_of(data: &RunData, task: u32) -> Vec<(u64, u64)> {
    let mut runs: Vec<(u64, u64)> = data
        .cpu_lanes
        .iter()
        .flat_map(|l| {
            (0..l.len())
                .filter(move |&i| l.key[i] == task)
                .map(move |i| (l.start[i], l.end[i]))
        })
        .collect();
    sort::sort_by(&mut runs, Ord::cmp);
    runs
}

impl Question {
    /// Whether `given` is the answer: a job's name (any case, spaces around ignored) or a time
    /// in ms within [`TIME_TOLERANCE_NS`]. Something that is neither a job of `quiz` nor a time
    /// is an error, not a wrong answer.
    pub fn check(&self, quiz: &Quiz, given: &str) -> Result<bool, QuizError> {
        let given = given.trim();
        match &self.answer {
            Answer::Job(name) => {
                let known: Vec<&str> = quiz
                    .scenario
                    .tasks
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect();
                let Some(pick) = known.iter().find(|k| k.eq_ignore_ascii_case(given)) else {
                    return Err(QuizError::UnknownJob {
                        given: given.to_owned(),
                        known: known.join(", "),
                    });
                };
                Ok(pick == name)
            }
            Answer::Time(ns) => {
                let at = parse_ms(given).ok_or_else(|| QuizError::NotATime {
                    given: given.to_owned(),
                })?;
                Ok(at.abs_diff(*ns) <= TIME_TOLERANCE_NS)
            }
        }
    }
}

/// A number of milliseconds with up to six decimals, as nanoseconds, in integer arithmetic;
/// a trailing "ms" is allowed. None for anything else or past 1,000,000 ms.
fn parse_ms(text: &str) -> Option<u64> {
    let text = text.strip_suffix("ms").unwrap_or(text).trim();
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && frac.is_empty()
        || frac.len() > 6
        || !whole
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    if whole > 1_000_000 {
        return None;
    }
    let mut f: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..6 {
        f *= 10;
    }
    Some(whole * 1_000_000 + f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_quiz_and_seeds_differ() {
        let a = Quiz::new(7).unwrap();
        assert_eq!(a, Quiz::new(7).unwrap());
        assert_eq!(a.questions.len(), 4);
        let distinct: std::collections::BTreeSet<String> = (0..20)
            .map(|s| serde_json::to_string(&Quiz::new(s).unwrap().scenario).unwrap())
            .collect();
        assert!(distinct.len() >= 15, "{}", distinct.len());
        let policies: std::collections::BTreeSet<String> =
            (0..40).map(|s| scenario(s).policy.id).collect();
        assert_eq!(policies.len(), POLICIES.len());
    }

    /// The answers against the run worked out independently: FIFO serves jobs in arrival order
    /// (ties by position, as the policy documents), each running its whole burst, so each exit
    /// is max(previous exit, arrival) + burst; SJF with every job arriving at once runs them
    /// shortest first.
    #[test]
    fn fifo_and_sjf_answers_match_the_hand_computation() {
        let mut checked = 0;
        for seed in 0..200 {
            let quiz = Quiz::new(seed).unwrap();
            let s = &quiz.scenario;
            let jobs: Vec<(u64, u64, &str)> = s
                .tasks
                .iter()
                .map(|t| match t.program.0[0] {
                    Step::Run(Dur::Fixed(d)) => (t.arrival.0, d.0, t.name.as_str()),
                    _ => unreachable!(),
                })
                .collect();
            let order: Vec<(u64, u64, &str)> = match s.policy.id.as_str() {
                "fifo" => {
                    let mut o = jobs.clone();
                    sort::sort_by_key(&mut o, |j| j.0);
                    o
                }
                "sjf" if jobs.iter().all(|j| j.0 == 0) => {
                    let mut o = jobs.clone();
                    sort::sort_by_key(&mut o, |j| j.1);
                    // Equal bursts: the tie-break decides; skip rather than guess.
                    if o.windows(2).any(|w| w[0].1 == w[1].1) {
                        continue;
                    }
                    o
                }
                _ => continue,
            };
            let mut t = 0;
            let mut exits = Vec::new();
            for (arrival, burst, name) in &order {
                t = t.max(*arrival) + burst;
                exits.push((t, *name, t - arrival));
            }
            let q = &quiz.questions;
            assert_eq!(
                q[0].answer,
                Answer::Job(exits[0].1.to_owned()),
                "seed {seed}"
            );
            let Answer::Time(when) = q[1].answer else {
                panic!()
            };
            assert!(exits.iter().any(|e| e.0 == when), "seed {seed}");
            let n = exits.len() as u64;
            let mean = (exits.iter().map(|e| e.2).sum::<u64>() + n / 2) / n;
            assert_eq!(q[2].answer, Answer::Time(mean), "seed {seed}");
            checked += 1;
        }
        assert!(checked >= 40, "{checked}");
    }

    /// Who runs next: the job the inspector shows running at the asked instant.
    #[test]
    fn who_runs_next_is_who_the_inspector_shows_running() {
        for seed in 0..30 {
            let quiz = Quiz::new(seed).unwrap();
            let q = &quiz.questions[3];
            let Answer::Job(name) = &q.answer else {
                panic!()
            };
            let shown = q
                .prompt
                .split("At ")
                .nth(1)
                .unwrap()
                .split(" the")
                .next()
                .unwrap();
            let at = parse_ms(shown).unwrap();
            let queues = Job::new(quiz.scenario.clone(), None)
                .inspect(Nanos(at))
                .unwrap();
            assert_eq!(
                queues.cpus[0].running.as_ref().unwrap().name,
                *name,
                "seed {seed}"
            );
            assert_eq!(
                q.reveal.last().unwrap(),
                &format!("{name} runs next at {shown}")
            );
        }
    }

    #[test]
    fn checking_an_answer() {
        let quiz = Quiz::new(3).unwrap();
        let first = &quiz.questions[0];
        let Answer::Job(right) = &first.answer else {
            panic!()
        };
        assert_eq!(first.check(&quiz, &right.to_lowercase()), Ok(true));
        let wrong = quiz
            .scenario
            .tasks
            .iter()
            .find(|t| &t.name != right)
            .unwrap();
        assert_eq!(first.check(&quiz, &wrong.name), Ok(false));
        assert!(matches!(
            first.check(&quiz, "Z"),
            Err(QuizError::UnknownJob { .. })
        ));
        let mean = &quiz.questions[2];
        let Answer::Time(ns) = mean.answer else {
            panic!()
        };
        let whole_ms = (ns + 500_000) / 1_000_000;
        assert_eq!(mean.check(&quiz, &format!("{whole_ms}")), Ok(true));
        assert_eq!(
            mean.check(&quiz, &format!("{} ms", whole_ms + 5)),
            Ok(false)
        );
        assert!(matches!(
            mean.check(&quiz, "soon"),
            Err(QuizError::NotATime { .. })
        ));
        assert_eq!(parse_ms("42.5"), Some(42_500_000));
        assert_eq!(parse_ms(".25ms"), Some(250_000));
        assert_eq!(parse_ms("1.1234567"), None);
        assert_eq!(parse_ms("-3"), None);
        assert_eq!(ms(36_666_667), "36.666667 ms");
        assert_eq!(ms(30_500_000), "30.5 ms");
        assert_eq!(ms(0), "0 ms");
        assert_eq!(parse_ms("99999999999999999999"), None);
    }
}
