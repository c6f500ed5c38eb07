//! The page's components, one small file each. Each takes what it shows as props and reports
//! what it changes through a callback; only `App` (in `lib.rs`) reads the reducer and hands
//! them their props. (The stats and task tables, presenter mode, the quiz and the export bar
//! still read the app context.)

pub mod chart_area;
pub mod compare_panel;
pub mod compare_toggle;
pub mod contest_table;
pub mod embed_view;
pub mod error_banner;
pub mod export_bar;
pub mod field;
pub mod inspector;
pub mod masthead;
pub mod playback;
pub mod policy_panel;
pub mod presenter;
pub mod quiz;
pub mod report_panel;
pub mod run_status;
pub mod scenario_panel;
pub mod share_box;
pub mod stats_table;
pub mod sweep_panel;
pub mod task_table;
pub mod tunable_slider;

use std::ops::Deref;
use std::rc::Rc;

/// Shared data in props, compared by identity: a run's data is made once per run and never
/// changed in place (an edit makes a new `Rc`), so the same pointer is the same data, and
/// comparing props costs O(1) instead of a walk over a whole trace on every render of the page.
#[derive(Debug)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Rc::new(value))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Shared<T>) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> From<Rc<T>> for Shared<T> {
    fn from(rc: Rc<T>) -> Shared<T> {
        Shared(rc)
    }
}

/// `'static` data in props, compared by address: a registry's entry (a tunable's spec, its help
/// text and all) never changes, so the same address is the same entry, and comparing props
/// does not walk its text on every render of the page. (A constant may sit at another address
/// where another crate names it: then two equal entries compare unequal, which only renders
/// again.)
#[derive(Debug)]
pub struct Static<T: 'static>(pub &'static T);

impl<T> Clone for Static<T> {
    fn clone(&self) -> Static<T> {
        *self
    }
}

impl<T> Copy for Static<T> {}

impl<T> PartialEq for Static<T> {
    fn eq(&self, other: &Static<T>) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl<T> Deref for Static<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
    }
}

/// Lets props of `Shared` data take the `Rc` a caller holds, as `data={run.clone()}`.
impl<T> yew::html::IntoPropValue<Shared<T>> for Rc<T> {
    fn into_prop_value(self) -> Shared<T> {
        Shared(self)
    }
}
