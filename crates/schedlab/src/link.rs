//! Share links: the whole scenario plus the page's view state in a URL fragment.
//!
//! ```text
//! https://host/schedlab/#s=1.<base64url(deflate(json))>
//!                         │ │ └ URL-safe alphabet, no padding; raw deflate (no zlib header)
//!                         │ └ link format version (LINK_VERSION)
//!                         └ the fragment never reaches a server
//! ```
//!
//! This is the one codec: the CLI (`schedlab share`, `schedlab run --link`) and the page both call
//! [`encode`] and [`decode`], so a link made by one opens in the other with the same trace hash.
//!
//! Version 1's JSON is `{"scenario": <scenario format v1>, "view": <ViewState>}`. A compare view
//! carries its pinned run A in `view.pinned` ([`PinnedView`]) as what differs from the scenario
//! on screen (B): A's policy and tunables when only they differ, else A's whole scenario; the
//! page runs A again on open. Older pages ignore the field (a view's unknown fields are
//! ignored), so it needed no new version. Defaults are
//! left out to keep links short: tunables equal to their spec's default, an empty tunable map,
//! a zero seed, and every view field at its default (`view` itself when all are). Decoding puts
//! them back, so `decode(encode(s)) == s.canonical()`. Links once written keep loading: a new
//! format gets a new version number and this module keeps reading the old ones.
//!
//! Decoding distrusts its input: the link length and the decompressed size are capped
//! ([`MAX_LINK_CHARS`], [`MAX_DECOMPRESSED_BYTES`], a guard against zip bombs), and the scenario
//! is validated with [`schedlab_policies::validate`], which reports every problem at once.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use schedlab_engine::scenario::PolicySpec;
use schedlab_engine::{Problem, Problems, Scenario};

pub use crate::view::LaneMode;

/// The link format version [`encode`] writes.
pub const LINK_VERSION: u32 = 1;
/// Every link format version [`decode`] reads.
pub const SUPPORTED_VERSIONS: &[u32] = &[1];
/// Largest JSON a link may decompress to: 4 MiB. A scenario at the engine's limits (5 000 tasks)
/// fits easily; anything bigger is a zip bomb or a mistake.
pub const MAX_DECOMPRESSED_BYTES: usize = 4 * 1024 * 1024;
/// Longest link text accepted before any decoding: 4 MiB of characters.
pub const MAX_LINK_CHARS: usize = 4 * 1024 * 1024;

/// Deflate level: the best ratio. The output depends only on the input and miniz_oxide's
/// version, so the CLI and the page make identical links.
const DEFLATE_LEVEL: u8 = 9;

/// URL-safe base64 without padding; padding is tolerated on input (some tools add it).
const B64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Everything a link holds: the scenario (workload, policy, tunables, seed) and the view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkState {
    pub scenario: Scenario,
    #[serde(default, skip_serializing_if = "ViewState::is_default")]
    pub view: ViewState,
}

/// How the page shows a run. Every field has a default, and an absent field means the default.
/// Unknown fields are ignored here (unlike in scenarios): a view from a newer page still opens.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ViewState {
    /// Gantt lanes: one per CPU (default) or one per task.
    #[serde(skip_serializing_if = "LaneMode::is_default")]
    pub lanes: LaneMode,
    /// Visible time window; `None` shows the whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zoom: Option<TimeWindow>,
    /// The task whose details are shown, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected_task: Option<String>,
    /// Tasks compared with the selected one, by name, in the order picked: the charts and
    /// tables give them colours of their own, as the selected task's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compared_tasks: Vec<String>,
    /// The inspector's time cursor, in ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor_ns: Option<u64>,
    /// The preset the scenario was generated from, if any: the page shows the benchmark's own
    /// table (contest's columns) and ends the run where the benchmark ends (the preset's
    /// [`Stop`](schedlab_workloads::Stop)). The scenario itself stays the source of truth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<PresetRef>,
    /// A/B compare: the run pinned as A, which the page runs again and compares with the
    /// scenario on screen (B). `None`: no compare view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned: Option<PinnedView>,
    /// Presenter mode: the editing column hidden, one large Gantt chart, the slider under
    /// discussion and the preset's headline numbers.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub presenter: bool,
    /// Large type (for a projector): the page's text, the charts' text included, scaled up.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub large_type: bool,
    /// The predict-then-reveal quiz open beside the run: its seed ([`crate::quiz::Quiz::new`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quiz: Option<u64>,
    /// A compact view for an iframe in slides: the page shows only this chart (and a link to
    /// open the whole page), no editing column. `None`: the whole page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed: Option<Embed>,
}

/// What an embedded page shows (`view.embed`, or `?embed=` in the page's address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Embed {
    /// The Gantt chart in the link's view (lanes, zoom, cursor, selected task).
    Gantt,
    /// The sweep panel: its chart and the form that runs it.
    Sweep,
    /// A card: the policy and its settings, the run's summary figures and the benchmark's
    /// report.
    Card,
}

impl Embed {
    pub const ALL: [Embed; 3] = [Embed::Gantt, Embed::Sweep, Embed::Card];

    /// The name a link or an address uses (`gantt`, `sweep`, `card`).
    pub fn name(self) -> &'static str {
        match self {
            Embed::Gantt => "gantt",
            Embed::Sweep => "sweep",
            Embed::Card => "card",
        }
    }

    /// The mode called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Embed> {
        Embed::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// The pinned run of a compare view, kept short by describing it against B's scenario.
/// Unknown fields are ignored, as in [`ViewState`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PinnedView {
    /// A's policy and tunables, when they are all that differs from B (absent: A's policy is
    /// B's, or `scenario` holds it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicySpec>,
    /// A's whole scenario, when it differs from B's in more than the policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Scenario>,
    /// The preset A came from (its stop rule ends A's run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<PresetRef>,
}

impl PinnedView {
    /// A (scenario `a`, made from `preset`) described against B's scenario `b`.
    pub fn new(a: &Scenario, preset: Option<PresetRef>, b: &Scenario) -> PinnedView {
        let mut a_with_bs_policy = a.clone();
        a_with_bs_policy.policy = b.policy.clone();
        let (policy, scenario) = if a_with_bs_policy == *b {
            ((a.policy != b.policy).then(|| a.policy.clone()), None)
        } else {
            (None, Some(a.clone()))
        };
        PinnedView {
            policy,
            scenario,
            preset,
        }
    }

    /// A's scenario, given B's.
    pub fn scenario(&self, b: &Scenario) -> Scenario {
        match (&self.scenario, &self.policy) {
            (Some(a), _) => a.clone(),
            (None, Some(policy)) => Scenario {
                policy: policy.clone(),
                ..b.clone()
            },
            (None, None) => b.clone(),
        }
    }
}

/// Which preset, with which parameters, a scenario came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PresetRef {
    pub id: String,
    /// Parameters that differ from the preset's defaults.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub params: std::collections::BTreeMap<String, i64>,
}

impl ViewState {
    pub fn is_default(&self) -> bool {
        *self == ViewState::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeWindow {
    pub start_ns: u64,
    pub end_ns: u64,
}

impl LinkState {
    /// A link state with the default view.
    pub fn new(scenario: Scenario) -> LinkState {
        LinkState {
            scenario,
            view: ViewState::default(),
        }
    }

    /// The state as a link restores it: tunables equal to their spec's default removed (for a
    /// registered policy). Two states with the same canonical form run identically.
    pub fn canonical(&self) -> LinkState {
        let mut s = self.clone();
        canonical_policy(&mut s.scenario.policy);
        if let Some(pinned) = &mut s.view.pinned {
            if let Some(policy) = &mut pinned.policy {
                canonical_policy(policy);
            }
            if let Some(scenario) = &mut pinned.scenario {
                canonical_policy(&mut scenario.policy);
            }
        }
        s
    }

    /// The pinned run's scenario, if the view is a compare view.
    pub fn pinned_scenario(&self) -> Option<Scenario> {
        Some(self.view.pinned.as_ref()?.scenario(&self.scenario))
    }
}

/// Removes tunables equal to their spec's default (for a registered policy).
fn canonical_policy(policy: &mut PolicySpec) {
    if let Some(info) = schedlab_policies::find(&policy.id) {
        policy.tunables.retain(|key, value| {
            info.tunables
                .iter()
                .find(|spec| spec.key == key)
                .is_none_or(|spec| spec.default != *value)
        });
    }
}

/// Why a link could not be opened. Each variant names the problem in words a user can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("the link holds no scenario: expected a fragment like `#s=1.<data>` (the part after `#` may have been cut off)")]
    Missing,
    #[error("the link is {len} characters long, more than the limit of {limit}")]
    TooLong { len: usize, limit: usize },
    #[error(
        "the link's `s=` value has no version: expected `s=<version>.<data>`, e.g. `s=1.<data>`"
    )]
    NoVersion,
    #[error("link version {found:?} is not supported: this build reads version {supported}")]
    UnknownVersion { found: String, supported: String },
    #[error("the link's data is not valid base64url: {0}")]
    BadBase64(String),
    #[error("the link's data is truncated: the compressed scenario ends early (was the link cut off when copied?)")]
    Truncated,
    #[error("the link's data is corrupt: the compressed scenario cannot be decompressed ({0})")]
    Corrupt(String),
    #[error("the link's data decompresses to more than {limit} bytes, the limit for a scenario")]
    TooLarge { limit: usize },
    #[error("the link's data is not valid scenario JSON: {0}")]
    InvalidJson(String),
    #[error("the link holds an invalid scenario:\n{0}")]
    InvalidScenario(Problems),
}

/// The link fragment for `state`, relative form: `#s=1.<data>`. Prefix a page URL to get a
/// full link.
pub fn encode(state: &LinkState) -> String {
    let json = payload_json(&state.canonical());
    let deflated = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), DEFLATE_LEVEL);
    format!("#s={LINK_VERSION}.{}", B64.encode(deflated))
}

/// A full link: `base` (a page URL; any fragment it has is replaced) plus the fragment.
pub fn encode_url(base: &str, state: &LinkState) -> String {
    let base = base.split('#').next().unwrap_or(base);
    format!("{base}{}", encode(state))
}

/// Opens a link: a whole URL, a fragment (`#s=...`) or just `s=...`. Surrounding whitespace is
/// ignored; other `&`-separated fragment parameters are skipped.
pub fn decode(link: &str) -> Result<LinkState, LinkError> {
    let link = link.trim();
    if link.len() > MAX_LINK_CHARS {
        return Err(LinkError::TooLong {
            len: link.len(),
            limit: MAX_LINK_CHARS,
        });
    }
    let fragment = match link.split_once('#') {
        Some((_, f)) => f,
        None => link,
    };
    let value = fragment
        .split('&')
        .find_map(|part| part.strip_prefix("s="))
        .ok_or(LinkError::Missing)?;
    let (version, data) = value.split_once('.').ok_or(LinkError::NoVersion)?;
    match version.parse::<u32>() {
        Ok(1) => decode_v1(data),
        _ => Err(LinkError::UnknownVersion {
            found: version.to_string(),
            supported: SUPPORTED_VERSIONS
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

fn decode_v1(data: &str) -> Result<LinkState, LinkError> {
    let deflated = B64
        .decode(data)
        .map_err(|e| LinkError::BadBase64(e.to_string()))?;
    let json = inflate(&deflated)?;
    // Read as text, as every other JSON the page reads: serde_json's slice reader would be a
    // second copy of every scenario type's deserializer in the page's wasm.
    let json = std::str::from_utf8(&json).map_err(|e| LinkError::InvalidJson(e.to_string()))?;
    let state: LinkState =
        serde_json::from_str(json).map_err(|e| LinkError::InvalidJson(e.to_string()))?;
    schedlab_policies::validate(&state.scenario).map_err(LinkError::InvalidScenario)?;
    if let Some(a) = state.pinned_scenario() {
        // Problems of A are named by where A's fields sit in the link.
        let at = match &state.view.pinned {
            Some(PinnedView {
                scenario: Some(_), ..
            }) => "view.pinned.scenario",
            _ => "view.pinned",
        };
        schedlab_policies::validate(&a).map_err(|Problems(problems)| {
            LinkError::InvalidScenario(Problems(
                problems
                    .into_iter()
                    .map(|p| Problem {
                        path: format!("{at}.{}", p.path),
                        message: p.message,
                    })
                    .collect(),
            ))
        })?;
    }
    Ok(state)
}

fn inflate(deflated: &[u8]) -> Result<Vec<u8>, LinkError> {
    use miniz_oxide::inflate::TINFLStatus;
    miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_DECOMPRESSED_BYTES).map_err(
        |e| match e.status {
            TINFLStatus::HasMoreOutput => LinkError::TooLarge {
                limit: MAX_DECOMPRESSED_BYTES,
            },
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                LinkError::Truncated
            }
            other => LinkError::Corrupt(format!("{other:?}")),
        },
    )
}

/// Compact JSON of a (canonical) state with the always-present but defaultable scenario fields
/// removed: an empty `policy.tunables` and a zero `seed`.
fn payload_json(state: &LinkState) -> String {
    let mut v = match serde_json::to_value(state) {
        Ok(v) => v,
        // Plain data with string map keys: serialization cannot fail.
        Err(_) => return String::new(),
    };
    if let Some(s) = v.get_mut("scenario").and_then(Value::as_object_mut) {
        without(s, |k, v| k == "seed" && *v == 0u64);
        if let Some(p) = s.get_mut("policy").and_then(Value::as_object_mut) {
            without(p, |k, v| {
                k == "tunables" && v.as_object().is_some_and(|t| t.is_empty())
            });
        }
    }
    // As `v.to_string()` writes it, through the writer the page's task table also uses for a
    // program's JSON (Display would be a second copy of it, on a formatter).
    serde_json::to_string(&v).unwrap_or_default()
}

/// Leaves out of `map` the fields `drop` picks. The map is built again by insertion rather
/// than removed from: a map's removal is code of its own (balancing the tree) that nothing
/// else in the page's wasm uses.
fn without(map: &mut Map<String, Value>, drop: impl Fn(&str, &Value) -> bool) {
    for (k, v) in std::mem::take(map) {
        if !drop(&k, &v) {
            map.insert(k, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> LinkState {
        LinkState::new(
            Scenario::from_json(
                r#"{"version":1,"cpus":1,"duration":"1s","policy":{"id":"rr"},
                    "tasks":[{"name":"a","program":[{"run":"10ms"}]}]}"#,
            )
            .unwrap(),
        )
    }

    #[test]
    fn defaults_are_left_out_of_the_payload() {
        let mut s = state();
        s.scenario.policy.tunables.insert("quantum".into(), 10); // rr's default
        let json = payload_json(&s.canonical());
        assert!(!json.contains("tunables"), "{json}");
        assert!(!json.contains("seed"), "{json}");
        assert!(!json.contains("view"), "{json}");
        s.view.lanes = LaneMode::Tasks;
        s.scenario.seed = 7;
        let json = payload_json(&s.canonical());
        assert!(json.contains(r#""view":{"lanes":"task"}"#), "{json}");
        assert!(json.contains(r#""seed":7"#), "{json}");
    }

    #[test]
    fn a_preset_reference_round_trips_and_is_absent_by_default() {
        let mut s = state();
        assert!(!payload_json(&s.canonical()).contains("preset"));
        s.view.preset = Some(PresetRef {
            id: "contest".into(),
            params: [("load".to_string(), 5)].into(),
        });
        let json = payload_json(&s.canonical());
        assert!(
            json.contains(r#""view":{"preset":{"id":"contest","params":{"load":5}}}"#),
            "{json}"
        );
        assert_eq!(decode(&encode(&s)), Ok(s));
    }

    #[test]
    fn a_pinned_run_that_differs_only_in_policy_is_stored_as_its_policy() {
        let b = state().scenario;
        let mut a = b.clone();
        a.policy = PolicySpec {
            id: "fifo".into(),
            tunables: Default::default(),
        };
        let mut s = state();
        s.view.pinned = Some(PinnedView::new(&a, None, &b));
        let json = payload_json(&s.canonical());
        assert!(
            json.contains(r#""view":{"pinned":{"policy":{"id":"fifo""#),
            "{json}"
        );
        // B's tasks are not repeated for A.
        assert_eq!(json.matches(r#""name":"a""#).count(), 1, "{json}");
        let opened = decode(&encode(&s)).unwrap();
        assert_eq!(opened.pinned_scenario(), Some(a));
        assert_eq!(opened.scenario, b);

        // Pinned just now: A is B, and the link says only that a run is pinned.
        s.view.pinned = Some(PinnedView::new(&b, None, &b));
        assert!(payload_json(&s.canonical()).contains(r#""view":{"pinned":{}}"#));
        assert_eq!(decode(&encode(&s)).unwrap().pinned_scenario(), Some(b));
    }

    #[test]
    fn a_pinned_run_of_another_workload_is_stored_whole_with_its_preset() {
        let b = state().scenario;
        let mut a = b.clone();
        a.cpus = 2;
        a.policy.tunables.insert("quantum".into(), 3);
        let preset = Some(PresetRef {
            id: "irman".into(),
            params: Default::default(),
        });
        let pinned = PinnedView::new(&a, preset.clone(), &b);
        assert_eq!(pinned.policy, None);
        assert_eq!(pinned.scenario.as_ref(), Some(&a));
        let mut s = state();
        s.view.pinned = Some(pinned);
        let opened = decode(&encode(&s)).unwrap();
        assert_eq!(opened.pinned_scenario(), Some(a));
        assert_eq!(opened.view.pinned.unwrap().preset, preset);
    }

    #[test]
    fn a_pinned_run_with_a_bad_tunable_is_refused_naming_its_field() {
        let mut s = state();
        let mut policy = s.scenario.policy.clone();
        policy.tunables.insert("quantum".into(), -5);
        s.view.pinned = Some(PinnedView {
            policy: Some(policy),
            ..PinnedView::default()
        });
        match decode(&encode(&s)) {
            Err(LinkError::InvalidScenario(Problems(problems))) => {
                assert!(
                    problems
                        .iter()
                        .all(|p| p.path.starts_with("view.pinned.policy.tunables.quantum")),
                    "{problems:?}"
                );
                assert!(!problems.is_empty());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn accepts_url_fragment_and_bare_forms() {
        let frag = encode(&state());
        assert!(frag.starts_with("#s=1."), "{frag}");
        let bare = &frag[1..];
        for link in [
            frag.clone(),
            bare.to_string(),
            format!("https://example.org/schedlab/index.html{frag}"),
            format!("  https://example.org/{frag}\n"),
            format!("#tab=stats&{bare}"),
        ] {
            assert_eq!(decode(&link), Ok(state()), "{link}");
        }
    }

    #[test]
    fn encode_url_replaces_an_existing_fragment() {
        let url = encode_url("https://example.org/p/#s=old", &state());
        assert!(url.starts_with("https://example.org/p/#s=1."), "{url}");
    }
}
