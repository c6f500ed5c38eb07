//! Behaviour templates for the task table: a few programs people recognise, so a task can be
//! made interactive or CPU-bound with one pick. Anything else is "custom" and edited as JSON.

use schedlab::engine::program::{Count, Dur, IoOp, IoStep, Program, Step};
use schedlab::engine::scenario::DiskSpec;
use schedlab::Nanos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Template {
    CpuHog,
    Interactive,
    IoBound,
    Periodic,
    Custom,
}

impl Template {
    pub const ALL: [Template; 5] = [
        Template::CpuHog,
        Template::Interactive,
        Template::IoBound,
        Template::Periodic,
        Template::Custom,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Template::CpuHog => "hog",
            Template::Interactive => "interactive",
            Template::IoBound => "io",
            Template::Periodic => "periodic",
            Template::Custom => "custom",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Template::CpuHog => "CPU hog (runs forever)",
            Template::Interactive => "Interactive (2 ms work, 30 ms think)",
            Template::IoBound => "I/O-bound (1 ms work, 64 KB disk read)",
            Template::Periodic => "Periodic (4 ms every ~16 ms)",
            Template::Custom => "Custom program (JSON)",
        }
    }

    pub fn from_key(key: &str) -> Option<Template> {
        Template::ALL.into_iter().find(|t| t.key() == key)
    }

    /// The template's program; `None` for custom (the program stays as it is).
    pub fn program(self) -> Option<Program> {
        let forever = |body: Vec<Step>| {
            Program(vec![Step::Repeat {
                count: Count::Forever,
                body,
            }])
        };
        let run = |ms: u64| Step::Run(Dur::Fixed(Nanos::from_ms(ms)));
        let sleep = |ms: u64| Step::Sleep(Dur::Fixed(Nanos::from_ms(ms)));
        Some(match self {
            Template::CpuHog => forever(vec![run(100)]),
            Template::Interactive => forever(vec![run(2), sleep(30)]),
            Template::IoBound => forever(vec![
                run(1),
                Step::Io(IoStep {
                    op: IoOp::Read,
                    disk: None,
                    bytes: 64 * 1024,
                    stream: None,
                    hit_percent: 0,
                    file: None,
                    random: false,
                }),
            ]),
            Template::Periodic => forever(vec![run(4), sleep(12)]),
            Template::Custom => return None,
        })
    }

    /// The template a program matches, or custom.
    pub fn detect(program: &Program) -> Template {
        Template::ALL
            .into_iter()
            .find(|t| t.program().as_ref() == Some(program))
            .unwrap_or(Template::Custom)
    }

    /// Whether the program needs a disk in the scenario.
    pub fn needs_disk(self) -> bool {
        self == Template::IoBound
    }
}

/// The disk added when a task first needs one: the illustrative disk of the presets.
pub fn default_disk() -> DiskSpec {
    DiskSpec {
        name: "sda".into(),
        seek: Nanos::from_ms(10),
        bandwidth: 40_000_000,
        write_bandwidth: 0,
        elevator: Default::default(),
    }
}
