//! Task colours and chart inks, decided here for every chart and table. Paul Tol's "muted"
//! scheme: nine colours told apart with every common colour-vision deficiency, dark enough to
//! read as thin bars on a washed-out projector. With 64 tasks nine colours repeat, so the task
//! in focus and the few compared with it take colours of their own ([`PICKED`], through
//! [`TaskColours`]) and every other task fades.

use plotters::style::{Color, RGBAColor, RGBColor};
use schedlab::view::{RunData, PALETTE_LEN};

/// Task colours, indexed by `TaskView::colour`.
pub const TASK: [RGBColor; PALETTE_LEN as usize] = [
    RGBColor(0x33, 0x22, 0x88), // indigo
    RGBColor(0x11, 0x77, 0x33), // green
    RGBColor(0xcc, 0x66, 0x77), // rose
    RGBColor(0x88, 0xcc, 0xee), // cyan
    RGBColor(0xdd, 0xcc, 0x77), // sand
    RGBColor(0x88, 0x22, 0x55), // wine
    RGBColor(0x44, 0xaa, 0x99), // teal
    RGBColor(0x99, 0x99, 0x33), // olive
    RGBColor(0xaa, 0x44, 0x99), // purple
];

/// Text and axes.
pub const INK: RGBColor = RGBColor(0x1d, 0x24, 0x30);
/// Secondary text, grid lines' labels.
pub const MUTED: RGBColor = RGBColor(0x5a, 0x64, 0x73);
/// Grid lines and lane separators.
pub const RULE: RGBColor = RGBColor(0xdc, 0xd8, 0xcf);
/// Chart background (the page's paper colour).
pub const PAPER: RGBColor = RGBColor(0xfb, 0xfa, 0xf7);
/// A sleeping task's line in task lanes.
pub const SLEEP: RGBColor = RGBColor(0x9a, 0xa0, 0xa6);
/// A blocked task's line in task lanes.
pub const BLOCKED: RGBColor = RGBColor(0x4a, 0x50, 0x58);

/// The colour of palette index `i` (wrapping, so any index is safe).
pub fn task(i: u32) -> RGBColor {
    TASK[(i % PALETTE_LEN) as usize]
}

/// `rgb(r,g,b)` / `rgba(r,g,b,a)` for canvas styles and CSS.
pub fn css(c: RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

pub fn css_alpha(c: RGBColor, alpha: f64) -> String {
    format!("rgba({},{},{},{alpha})", c.0, c.1, c.2)
}

/// Text colour that reads on a bar of colour `c`: ink on light colours, paper on dark ones.
pub fn on(c: RGBColor) -> RGBColor {
    let luma = 299 * u32::from(c.0) + 587 * u32::from(c.1) + 114 * u32::from(c.2);
    if luma > 150_000 {
        INK
    } else {
        PAPER
    }
}

/// Colours of the tasks picked out (the task in focus first, then the compared ones), in that
/// order. None is in [`TASK`] and the others are faded while any is picked, so a picked task's
/// colour is its own however many tasks share the nine: Okabe and Ito's vermillion, blue, bluish
/// green and orange, told apart with every common colour-vision deficiency.
pub const PICKED: [RGBColor; PICKED_MAX] = [
    RGBColor(0xd5, 0x5e, 0x00), // vermillion
    RGBColor(0x00, 0x72, 0xb2), // blue
    RGBColor(0x00, 0x9e, 0x73), // bluish green
    RGBColor(0xe6, 0x9f, 0x00), // orange
];
/// Tasks picked out at most: the task in focus and three compared with it.
pub const PICKED_MAX: usize = 4;
/// The opacity of a task that is not picked while others are.
pub const FADED: f64 = 0.25;

/// How a chart draws one task: its colour, faded (drawn at [`FADED`] opacity) when other tasks
/// are picked out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ink {
    pub colour: RGBColor,
    pub faded: bool,
}

impl Ink {
    /// The opacity to draw at.
    pub fn alpha(self) -> f64 {
        if self.faded {
            FADED
        } else {
            1.0
        }
    }

    /// As a canvas style or CSS colour.
    pub fn css(self) -> String {
        if self.faded {
            css_alpha(self.colour, FADED)
        } else {
            css(self.colour)
        }
    }

    /// `alpha` times the ink's own opacity (a task lane's waiting tint).
    pub fn css_alpha(self, alpha: f64) -> String {
        css_alpha(self.colour, alpha * self.alpha())
    }

    /// For plotters.
    pub fn rgba(self) -> RGBAColor {
        self.colour.mix(self.alpha())
    }
}

/// The colours of one run's tasks in one view, the one place every chart and table asks: each
/// task's palette colour (`TaskView::colour`), except that the picked tasks, the view's task in
/// focus and the compared ones, take the [`PICKED`] colours in order, and every other task is
/// faded while any is picked. Tasks are picked by name (every task of that name).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskColours {
    /// Each task's palette index, by task id.
    base: Vec<u32>,
    /// `(task id, index into PICKED)`, sorted by task id.
    picked: Vec<(u32, usize)>,
}

impl TaskColours {
    /// The colours of `data`'s tasks with `focus` and then `compared` picked out (names the run
    /// does not have, repeats and any past [`PICKED_MAX`] are ignored).
    pub fn new<'a>(
        data: &RunData,
        focus: Option<&'a str>,
        compared: impl IntoIterator<Item = &'a str>,
    ) -> TaskColours {
        let base = data.tasks.iter().map(|t| t.colour).collect();
        let mut names: Vec<&str> = Vec::new();
        for name in focus.into_iter().chain(compared) {
            if names.len() < PICKED_MAX
                && !names.contains(&name)
                && data.tasks.iter().any(|t| t.name == name)
            {
                names.push(name);
            }
        }
        let mut picked: Vec<(u32, usize)> = data
            .tasks
            .iter()
            .filter_map(|t| Some((t.id, names.iter().position(|n| *n == t.name)?)))
            .collect();
        schedlab::engine::sort::sort_by(&mut picked, Ord::cmp);
        TaskColours { base, picked }
    }

    /// Task `id`'s ink.
    pub fn of(&self, id: u32) -> Ink {
        if let Ok(i) = self.picked.binary_search_by_key(&id, |p| p.0) {
            return Ink {
                colour: PICKED[self.picked[i].1],
                faded: false,
            };
        }
        Ink {
            colour: task(self.base.get(id as usize).copied().unwrap_or(id)),
            faded: !self.picked.is_empty(),
        }
    }

    /// Task `id` is picked out (in focus or compared).
    pub fn is_picked(&self, id: u32) -> bool {
        self.picked.binary_search_by_key(&id, |p| p.0).is_ok()
    }

    /// Some task is picked out: the others are faded.
    pub fn any_picked(&self) -> bool {
        !self.picked.is_empty()
    }
}
