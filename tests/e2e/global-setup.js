// Runs once before the browser tests: builds the schedlab CLI they compare the page with, so
// no test spends its time budget compiling it (see `cli` in fixtures.js). It is built as the
// native tests build it (`cargo test --workspace`, which puts target/debug/schedlab in place for
// its integration tests; `./x test` runs Playwright with the clippy step's environment, so this
// is a check that finds its build and nothing to do). `cargo build -p schedlab-cli` would
// resolve other features for shared dependencies (serde, memchr, syn...) and compile the CLI's
// whole dependency tree a second time.
import { execFileSync } from "node:child_process";
import { root } from "./fixtures.js";

export default function globalSetup() {
  execFileSync("cargo", ["test", "--workspace", "--no-run", "-q"], { cwd: root, stdio: "inherit" });
}
