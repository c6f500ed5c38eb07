//! The fuzzer with a small budget inside the normal test suite, and the regression cases.
//! `./x fuzz` runs the long session.

use std::path::Path;

use schedlab_fuzz::{check, corpus, read_dir, Budget, Fuzzer, Input};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn a_few_hundred_mutated_inputs_neither_panic_nor_escape_their_budget() {
    let mut f = Fuzzer::new(15, corpus(root()), Budget::SMALL);
    let r = f.run(300, None);
    assert_eq!(r.executions, 300);
    assert!(r.failures.is_empty(), "{:#?}", r.failures);
    // The mutator reaches every stage: some inputs validate and run, some runs hit a budget.
    assert!(r.valid > 20, "only {} valid inputs", r.valid);
    assert!(r.runs > r.valid, "{} runs", r.runs);
}

#[test]
fn the_fuzzer_is_deterministic() {
    let mut a = Fuzzer::new(7, corpus(root()), Budget::SMALL);
    let mut b = Fuzzer::new(7, corpus(root()), Budget::SMALL);
    for _ in 0..200 {
        assert_eq!(a.next_input(), b.next_input());
    }
}

#[test]
fn regression_cases_pass() {
    let cases = read_dir(&root().join("tests/fuzz/regressions"));
    assert!(!cases.is_empty(), "tests/fuzz/regressions is empty");
    for case in cases {
        if let Err(e) = check(&case, &Budget::SMALL) {
            panic!("{e}\n{}", &case.text()[..case.text().len().min(400)]);
        }
    }
}

#[test]
fn links_around_any_json_decode_to_a_typed_result() {
    for text in ["", "{", "null", "[]", r#"{"scenario":{}}"#] {
        let input = Input::Link(schedlab_fuzz::raw_link(text));
        assert_eq!(check(&input, &Budget::SMALL), Ok((0, 0, false)), "{text:?}");
    }
}
