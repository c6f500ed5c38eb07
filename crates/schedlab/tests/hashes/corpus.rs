//! The scenario corpus compiled in, so the same files are hashed natively and in wasm.

/// `(file name, contents)` of every scenario in `tests/scenarios/`.
pub const CORPUS: &[(&str, &str)] = &[
    (
        "disk-reader.json",
        include_str!("../../../../tests/scenarios/disk-reader.json"),
    ),
    (
        "fork-wait-tree.json",
        include_str!("../../../../tests/scenarios/fork-wait-tree.json"),
    ),
    (
        "hog-and-editor.json",
        include_str!("../../../../tests/scenarios/hog-and-editor.json"),
    ),
    (
        "nice-extremes.json",
        include_str!("../../../../tests/scenarios/nice-extremes.json"),
    ),
    (
        "pipe-ping-pong.json",
        include_str!("../../../../tests/scenarios/pipe-ping-pong.json"),
    ),
    (
        "task-groups.json",
        include_str!("../../../../tests/scenarios/task-groups.json"),
    ),
    (
        "three-hogs.json",
        include_str!("../../../../tests/scenarios/three-hogs.json"),
    ),
    (
        "writeback.json",
        include_str!("../../../../tests/scenarios/writeback.json"),
    ),
];

/// The expected hashes, one `<file> <policy> <hash>` line per pair, written by the native test.
pub const EXPECTED: &str = include_str!("../../../../tests/scenarios/hashes.txt");

/// `<file> <policy> <hash>` for every corpus scenario under every registered policy.
pub fn compute() -> String {
    let mut out = String::new();
    for (file, text) in CORPUS {
        let base = schedlab::Scenario::from_json(text).expect("corpus scenarios are valid");
        for p in schedlab::POLICIES {
            let mut s = base.clone();
            s.policy = schedlab::engine::scenario::PolicySpec {
                id: p.id.into(),
                tunables: Default::default(),
            };
            let run = schedlab::run(&s, schedlab::RunOptions::default()).expect("corpus runs");
            out.push_str(&format!(
                "{file} {} {}\n",
                p.id,
                schedlab::engine::hash_hex(run.hash)
            ));
        }
    }
    out
}
