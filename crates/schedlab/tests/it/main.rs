//! The facade's black-box tests, one binary: the JSON result contract, share links, the generated
//! docs and the scenario corpus run under every registered policy.

mod bounds;
mod corpus;
mod docs;
mod limits;
mod link;
mod machine;
mod machine_view;
mod result_contract;
mod sweep;

/// DESIGN §7's example scenario, verbatim.
pub const DESIGN_EXAMPLE: &str = r#"{
  "version": 1,
  "cpus": 1,
  "duration": "10s",
  "seed": 42,
  "policy": { "id": "rr", "tunables": { "quantum": 3 } },
  "tasks": [
    { "name": "editor", "nice": 0, "arrival": "0ms",
      "program": [ { "repeat": 100, "body": [ { "run": "2ms" }, { "sleep": "30ms" } ] } ] },
    { "name": "hog", "nice": 5, "program": [ { "run": "5s" } ] }
  ]
}"#;
