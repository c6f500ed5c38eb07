//! Native half of the cross-platform determinism check: every corpus scenario under every policy
//! gives the trace hash recorded in `tests/scenarios/hashes.txt`. The wasm half
//! (`wasm_node.rs`, run in Node by `./x test`) checks the same file, so native and wasm agree.
//! After an intended change of behaviour, rewrite the file with `SCHEDLAB_BLESS=1 cargo test -p
//! schedlab --test hashes`.

mod corpus;

#[test]
fn corpus_hashes_match_the_recorded_ones() {
    let got = corpus::compute();
    if std::env::var_os("SCHEDLAB_BLESS").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/scenarios/hashes.txt"
        );
        std::fs::write(path, &got).expect("write hashes.txt");
        return;
    }
    assert_eq!(
        got,
        corpus::EXPECTED,
        "trace hashes changed; if intended, rerun with SCHEDLAB_BLESS=1 and commit tests/scenarios/hashes.txt"
    );
}

#[test]
fn the_compiled_in_corpus_lists_every_scenario_file() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/scenarios");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("tests/scenarios exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    let listed: Vec<&str> = corpus::CORPUS.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        files, listed,
        "add new scenario files to tests/hashes/corpus.rs"
    );
}
