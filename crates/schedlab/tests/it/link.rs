//! The share-link codec: round trips, a link saved when version 1 was written (old links keep
//! loading), and every kind of damage a link can suffer on its way through chat and mail.

use schedlab::link::{
    LaneMode, TimeWindow, MAX_DECOMPRESSED_BYTES, MAX_LINK_CHARS, SUPPORTED_VERSIONS,
};
use schedlab::{decode, encode, LinkError, LinkState, RunOptions, Scenario, ViewState};

use crate::DESIGN_EXAMPLE;

fn design_state() -> LinkState {
    LinkState {
        scenario: Scenario::from_json(DESIGN_EXAMPLE).unwrap(),
        view: ViewState {
            lanes: LaneMode::Tasks,
            zoom: Some(TimeWindow {
                start_ns: 0,
                end_ns: 100_000_000,
            }),
            selected_task: Some("editor".into()),
            cursor_ns: None,
            ..ViewState::default()
        },
    }
}

fn hash(s: &Scenario) -> u64 {
    schedlab::run(s, RunOptions::default()).unwrap().hash
}

/// Made with `encode(&design_state())` when link version 1 was introduced. Never regenerate it:
/// if decoding it fails, links people already shared broke.
const SAVED_V1: &str = "#s=1.VY_NbgMhDITfxec9sElz2VepooiAlaLyVxtSpSvevTbpoeGEh5nh8w7sMFsKBbYdXO0M27qA72RbKBk2WA3DArXE4B7qCV5EItFaz_YakVX96ja3nmA7jrEAI4rr7SAey59ieN8h24SSRB9a0XSlciOb5tu1-Me8UNcvD4lhLDtwRKwyH40K5wUIK9omhMaMszr-Sj_KTRpzcDKcXqufjSfNa8Mdiedeq2DeA34rfLRZt5iwoPQRXUN_mfM_5J9Skvox-0vmifE8kmmW2hTNGOMX";
#[test]
fn a_saved_version_1_link_still_opens() {
    let state = decode(SAVED_V1).unwrap();
    assert_eq!(state, design_state());
    // The same run as the scenario file gives (the hash itself changes with the engine).
    let file = Scenario::from_json(DESIGN_EXAMPLE).unwrap();
    assert_eq!(hash(&state.scenario), hash(&file));
}

#[test]
fn encoding_is_stable() {
    // Same state, same link: the CLI and the page produce identical links.
    assert_eq!(encode(&design_state()), SAVED_V1);
    assert_eq!(encode(&decode(SAVED_V1).unwrap()), SAVED_V1);
}

#[test]
fn round_trips_the_corpus_and_view_states() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios");
    let mut states = vec![design_state(), LinkState::new(design_state().scenario)];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        states.push(LinkState::new(Scenario::from_json(&text).unwrap()));
    }
    let mut cursor = design_state();
    cursor.view = ViewState {
        cursor_ns: Some(12_345),
        ..ViewState::default()
    };
    states.push(cursor);
    let mut presenter = design_state();
    presenter.view = ViewState {
        presenter: true,
        large_type: true,
        selected_task: Some("probe".into()),
        ..ViewState::default()
    };
    states.push(presenter);
    let mut quiz = design_state();
    quiz.view = ViewState {
        quiz: Some(u64::MAX),
        ..ViewState::default()
    };
    states.push(quiz);
    for embed in schedlab::link::Embed::ALL {
        let mut embedded = design_state();
        embedded.view.embed = Some(embed);
        states.push(embedded);
    }
    assert!(states.len() >= 8);
    for s in states {
        let link = encode(&s);
        let back = decode(&link).unwrap_or_else(|e| panic!("{link}: {e}"));
        assert_eq!(back, s.canonical());
        assert_eq!(hash(&back.scenario), hash(&s.scenario));
    }
}

#[test]
fn default_tunables_are_omitted_but_restore_the_same_run() {
    let mut s = design_state();
    s.scenario.policy.tunables.insert("quantum".into(), 10); // rr's default
    let link = encode(&s);
    let back = decode(&link).unwrap();
    assert!(back.scenario.policy.tunables.is_empty());
    assert_eq!(hash(&back.scenario), hash(&s.scenario));
    assert!(link.len() < encode(&design_state()).len() + 8, "{link}");
}

/// The deflate bytes of a link, for tampering.
fn deflated(link: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(link.split_once("1.").unwrap().1)
        .unwrap()
}

/// A version 1 link holding `bytes` as its deflate stream.
fn link_of_deflate(bytes: &[u8]) -> String {
    use base64::Engine as _;
    format!(
        "#s=1.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}

/// A version 1 link whose payload is `json`, valid or not.
fn link_of_json(json: &str) -> String {
    link_of_deflate(&miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
}

#[test]
fn every_truncation_is_a_typed_error() {
    let data_start = "#s=1.".len();
    let (mut truncated, mut bad_b64) = (0, 0);
    for cut in data_start..SAVED_V1.len() {
        match decode(&SAVED_V1[..cut]) {
            Err(LinkError::Truncated) => truncated += 1,
            Err(LinkError::BadBase64(_)) => bad_b64 += 1,
            other => panic!("cut at {cut}: expected Truncated or BadBase64, got {other:?}"),
        }
    }
    // A cut on a 4-character boundary leaves valid base64 and a short deflate stream.
    assert!(truncated > 0 && bad_b64 > 0, "{truncated} {bad_b64}");
    let msg = decode(&SAVED_V1[..SAVED_V1.len() - 8])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("truncated"), "{msg}");
}

#[test]
fn corrupt_data_is_a_typed_error_never_a_panic() {
    // Reserved block type 11 in the first block header: corrupt by definition.
    let mut bytes = deflated(SAVED_V1);
    bytes[0] = 0b111;
    let err = decode(&link_of_deflate(&bytes)).unwrap_err();
    assert!(matches!(err, LinkError::Corrupt(_)), "{err:?}");
    assert!(err.to_string().contains("corrupt"), "{err}");

    // Any single flipped character: an error of some kind, or (deflate has no checksum) a
    // different but valid state. Never a panic.
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for i in "#s=1.".len()..SAVED_V1.len() {
        let mut b = SAVED_V1.as_bytes().to_vec();
        b[i] = alphabet[(alphabet.iter().position(|&c| c == b[i]).unwrap() + 17) % 64];
        let _ = decode(std::str::from_utf8(&b).unwrap());
    }
}

#[test]
fn a_zip_bomb_is_refused_by_size() {
    let big = format!("\"{}\"", " ".repeat(MAX_DECOMPRESSED_BYTES + 1));
    let link = link_of_json(&big);
    assert!(link.len() < 20_000, "deflate squeezes it: {}", link.len());
    let err = decode(&link).unwrap_err();
    assert_eq!(
        err,
        LinkError::TooLarge {
            limit: MAX_DECOMPRESSED_BYTES
        }
    );
    assert!(err.to_string().contains("4194304 bytes"), "{err}");
}

#[test]
fn an_overlong_link_is_refused_before_decoding() {
    let link = format!("#s=1.{}", "A".repeat(MAX_LINK_CHARS));
    assert!(matches!(decode(&link), Err(LinkError::TooLong { .. })));
}

#[test]
fn missing_state_version_and_base64_problems_are_named() {
    for link in [
        "https://example.org/schedlab/",
        "#tab=stats",
        "",
        "https://x/?s=1.abc",
    ] {
        assert_eq!(decode(link), Err(LinkError::Missing), "{link:?}");
    }
    assert_eq!(decode("#s=abc"), Err(LinkError::NoVersion));
    let err = decode("#s=2.AAAA").unwrap_err();
    assert_eq!(
        err,
        LinkError::UnknownVersion {
            found: "2".into(),
            supported: "1".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "link version \"2\" is not supported: this build reads version 1"
    );
    assert_eq!(SUPPORTED_VERSIONS, &[1]);
    let err = decode("#s=1.abc$def").unwrap_err();
    assert!(matches!(err, LinkError::BadBase64(_)), "{err:?}");
    assert!(err.to_string().contains("base64url"), "{err}");
}

#[test]
fn invalid_json_carries_serdes_message() {
    let err = decode(&link_of_json(r#"{"scenario": {"version": 1,"#)).unwrap_err();
    let LinkError::InvalidJson(msg) = &err else {
        panic!("{err:?}")
    };
    assert!(msg.contains("EOF"), "{msg}");
    let json = format!(r#"{{"scenario": {DESIGN_EXAMPLE}, "extra": 1}}"#);
    let err = decode(&link_of_json(&json)).unwrap_err();
    assert!(err.to_string().contains("unknown field `extra`"), "{err}");
}

#[test]
fn an_invalid_scenario_reports_every_problem() {
    let json = DESIGN_EXAMPLE
        .replace(r#""cpus": 1"#, r#""cpus": 99"#)
        .replace(r#""quantum": 3"#, r#""quantum": 0"#);
    let json = format!(r#"{{"scenario": {json}}}"#);
    let err = decode(&link_of_json(&json)).unwrap_err();
    let LinkError::InvalidScenario(problems) = &err else {
        panic!("{err:?}")
    };
    let paths: Vec<&str> = problems.0.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["cpus", "policy.tunables.quantum"]);
    let text = err.to_string();
    assert!(
        text.contains("99 is outside the allowed range 1..=16"),
        "{text}"
    );
    assert!(
        text.contains("0 is outside the allowed range 1..=1000 ms"),
        "{text}"
    );
}

#[test]
fn view_fields_unknown_to_this_build_are_ignored() {
    let json = r#"{"scenario": SCEN, "view": {"lanes": "task", "theme": "dark"}}"#
        .replace("SCEN", DESIGN_EXAMPLE);
    let state = decode(&link_of_json(&json)).unwrap();
    assert_eq!(state.view.lanes, LaneMode::Tasks);
}

#[test]
fn presenter_and_large_type_travel_and_old_links_open_without_them() {
    let mut s = design_state();
    s.view.presenter = true;
    s.view.large_type = true;
    let back = decode(&encode(&s)).unwrap();
    assert!(back.view.presenter && back.view.large_type);
    // A view written before these fields existed opens with both off.
    let json = r#"{"scenario": SCEN, "view": {"lanes": "task"}}"#.replace("SCEN", DESIGN_EXAMPLE);
    let old = decode(&link_of_json(&json)).unwrap();
    assert!(!old.view.presenter && !old.view.large_type);
    // Off is the default and is not written.
    let plain = design_state();
    assert_eq!(encode(&plain), {
        let mut off = plain.clone();
        off.view.presenter = false;
        encode(&off)
    });
}

#[test]
fn embed_modes_are_written_by_name_and_unknown_ones_are_refused() {
    use schedlab::link::Embed;
    for e in Embed::ALL {
        assert_eq!(Embed::from_name(e.name()), Some(e));
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(json, format!("\"{}\"", e.name()));
    }
    assert_eq!(Embed::from_name("slides"), None);
    // A view without the field (every link written before it) is the whole page.
    let view: ViewState = serde_json::from_str(r#"{"lanes":"task"}"#).unwrap();
    assert_eq!(view.embed, None);
    let view: ViewState = serde_json::from_str(r#"{"embed":"sweep"}"#).unwrap();
    assert_eq!(view.embed, Some(Embed::Sweep));
    let err = serde_json::from_str::<ViewState>(r#"{"embed":"slides"}"#).unwrap_err();
    assert!(err.to_string().contains("gantt"), "{err}");
}
