//! Task colours and chart inks. Paul Tol's "muted" scheme: nine colours told apart with every
//! common colour-vision deficiency, dark enough to read as thin bars on a washed-out projector.

use plotters::style::RGBColor;
use schedlab::view::PALETTE_LEN;

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
