//! A value rendered one task later than it changes: what a panel far from the charts (the
//! stats table) shows of a new run, so the run's charts are drawn, and can be painted, before
//! the panel's thousands of cells are diffed and laid out. A value that changes again before
//! its turn comes is skipped: only the newest is rendered.

use std::time::Duration;

use yew::prelude::*;

/// `value` as the component should render it now. The first value (and a change to or from
/// `None`) comes through at once; a change from one value to another after the tasks already
/// waiting (a zero timeout), unless a newer value replaced it meanwhile.
#[hook]
pub fn use_deferred<T: Clone + PartialEq + 'static>(value: Option<T>) -> Option<T> {
    let rendered = use_mut_ref(|| value.clone());
    if value.is_none() || rendered.borrow().is_none() {
        *rendered.borrow_mut() = value.clone();
    }
    // Counts changes, so a deferred update that a newer one overtook does nothing.
    let turns = use_mut_ref(|| 0u64);
    let redraw = use_force_update();
    {
        let rendered = rendered.clone();
        use_effect_with(value, move |value| {
            let turn = {
                let mut turns = turns.borrow_mut();
                *turns += 1;
                *turns
            };
            if *rendered.borrow() == *value {
                return;
            }
            let value = value.clone();
            yew::platform::spawn_local(async move {
                yew::platform::time::sleep(Duration::ZERO).await;
                if *turns.borrow() == turn {
                    *rendered.borrow_mut() = value;
                    redraw.force_update();
                }
            });
        });
    }
    let now = rendered.borrow().clone();
    now
}
