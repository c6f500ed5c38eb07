//! The one plotters backend type the charts draw on: a canvas on the page, or an SVG document
//! for the export. plotters' chart code (builders, axes, series, text layout) is generic over
//! its backend, so each chart's `draw` drew through two copies of it, one per backend; drawing
//! through this enum compiles that code once, and only the few drawing primitives below pick
//! the backend (two copies cost the page's wasm 9.5 KB more, gzipped).

use plotters::prelude::{DrawingBackend, SVGBackend};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle};
use plotters_canvas::CanvasBackend;

/// A backend's error with what it said dropped: a chart's caller has no better frame to show
/// on a canvas error and writes what the SVG backend drew.
#[derive(Debug)]
pub struct DrawError;

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("drawing failed")
    }
}

impl std::error::Error for DrawError {}

type DrawingErrorKind = plotters_backend::DrawingErrorKind<DrawError>;

/// A canvas of the page or an SVG document being written.
pub enum Backend<'a> {
    Canvas(CanvasBackend),
    Svg(SVGBackend<'a>),
}

impl Backend<'_> {
    /// A backend drawing on `canvas` (`None`: it has no 2D context).
    pub fn canvas(canvas: web_sys::HtmlCanvasElement) -> Option<Self> {
        CanvasBackend::with_canvas_object(canvas).map(Backend::Canvas)
    }
}

/// A backend's result with its error as [`DrawError`].
fn cast<E: std::error::Error + Send + Sync, T>(
    r: Result<T, plotters_backend::DrawingErrorKind<E>>,
) -> Result<T, DrawingErrorKind> {
    r.map_err(|e| match e {
        plotters_backend::DrawingErrorKind::DrawingError(_) => {
            plotters_backend::DrawingErrorKind::DrawingError(DrawError)
        }
        plotters_backend::DrawingErrorKind::FontError(f) => {
            plotters_backend::DrawingErrorKind::FontError(f)
        }
    })
}

/// Calls `$method` with `$args` on whichever backend `$self` is.
macro_rules! each {
    ($self:expr, $method:ident($($args:expr),*)) => {
        match $self {
            Backend::Canvas(b) => cast(b.$method($($args),*)),
            Backend::Svg(b) => cast(b.$method($($args),*)),
        }
    };
}

impl DrawingBackend for Backend<'_> {
    type ErrorType = DrawError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            Backend::Canvas(b) => b.get_size(),
            Backend::Svg(b) => b.get_size(),
        }
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind> {
        each!(self, ensure_prepared())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind> {
        each!(self, present())
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind> {
        each!(self, draw_pixel(point, color))
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind> {
        each!(self, draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind> {
        each!(self, draw_rect(upper_left, bottom_right, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind> {
        each!(self, draw_path(path, style))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind> {
        each!(self, draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind> {
        each!(self, fill_polygon(vert, style))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind> {
        each!(self, draw_text(text, style, pos))
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind> {
        each!(self, estimate_text_size(text, style))
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind> {
        each!(self, blit_bitmap(pos, size, src))
    }
}
