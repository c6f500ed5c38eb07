//! The task colours of charts/palette.rs: picked tasks (the task in focus, then the compared
//! ones) take colours no other task has, and the rest fade. Native.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::view::{RunData, TaskView, PALETTE_LEN};
use schedlab_web::charts::palette::{task, Ink, TaskColours, PICKED, TASK};

/// Eighteen tasks over nine colours: task i has colour i % 9, as `RunData` numbers them.
fn run() -> RunData {
    RunData {
        tasks: (0..18)
            .map(|i| TaskView {
                id: i,
                name: format!("t{i}"),
                colour: i % PALETTE_LEN,
                ..TaskView::default()
            })
            .collect(),
        ..RunData::default()
    }
}

#[test]
fn nothing_picked_is_the_palette_unfaded() {
    let c = TaskColours::new(&run(), None, []);
    assert!(!c.any_picked());
    for i in 0..18 {
        assert_eq!(
            c.of(i),
            Ink {
                colour: task(i),
                faded: false
            }
        );
    }
    // Colours repeat: t0 and t9 look alike, which is why picked tasks get their own.
    assert_eq!(c.of(0).colour, c.of(9).colour);
}

#[test]
fn picked_tasks_take_colours_no_other_task_has_and_the_rest_fade() {
    let data = run();
    let c = TaskColours::new(&data, Some("t9"), ["t0", "t9", "nobody", "t4", "t5", "t6"]);
    // Focus first; a repeat and an unknown name are skipped; at most PICKED_MAX in all.
    assert_eq!(c.of(9).colour, PICKED[0]);
    assert_eq!(c.of(0).colour, PICKED[1]);
    assert_eq!(c.of(4).colour, PICKED[2]);
    assert_eq!(c.of(5).colour, PICKED[3]);
    assert!(!c.is_picked(6));
    let picked = [9, 0, 4, 5];
    for i in 0..18u32 {
        let ink = c.of(i);
        if picked.contains(&i) {
            assert!(!ink.faded && ink.alpha() == 1.0);
            for j in (0..18u32).filter(|j| *j != i) {
                assert_ne!(c.of(j).colour, ink.colour, "t{j} shares t{i}'s colour");
            }
        } else {
            assert!(ink.faded && ink.alpha() < 1.0, "t{i}");
        }
    }
    for p in PICKED {
        assert!(!TASK.contains(&p));
    }
}
