//! `docs/policies.md` is generated from the registry; this fails when the committed file is stale.

use std::path::PathBuf;

#[test]
fn docs_are_fresh() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/policies.md");
    let want = schedlab::docs::policies_markdown(schedlab::POLICIES);
    if std::env::var_os("SCHEDLAB_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/policies.md is stale (the policy registry changed). Regenerate it with\n  \
         cargo run -p schedlab-cli -- docs > docs/policies.md\nor\n  \
         SCHEDLAB_BLESS=1 cargo test -p schedlab --test it docs"
    );
}
