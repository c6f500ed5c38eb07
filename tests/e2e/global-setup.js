// Runs once before the browser tests: builds the schedlab CLI they compare the page with, so
// no test spends its time budget compiling it (see `cli` in fixtures.js). It is built as the
// native tests build it (`cargo test --workspace --target <host>`, which puts
// target/<host>/debug/schedlab in place for its integration tests) and as `./x test` builds
// them, with clippy-driver as the workspace's compiler wrapper (x's `linted`): cargo keys the
// workspace's artifacts by the wrapper, so a build without it would compile the workspace a
// second time, beside the one `./x test` made.
// Under `./x test` (which runs Playwright through `linted`) this is a check that finds its
// build and nothing to do; run directly (`npx playwright test`), it finds that build too.
// `cargo build -p schedlab-cli` would resolve other features for shared dependencies (serde,
// memchr, syn...) and compile the CLI's whole dependency tree a second time.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { hostTarget, root } from "./fixtures.js";

/** The environment of x's `linted`: clippy-driver as the wrapper, unless one is set already. */
function lintedEnv() {
  if (process.env.RUSTC_WORKSPACE_WRAPPER !== undefined) return process.env;
  const sysroot = execFileSync("rustc", ["--print", "sysroot"], { cwd: root, encoding: "utf8" }).trim();
  const driver = join(sysroot, "bin", "clippy-driver");
  if (!existsSync(driver)) return process.env;
  return { ...process.env, RUSTC_WORKSPACE_WRAPPER: driver, CLIPPY_ARGS: "" };
}

export default function globalSetup() {
  execFileSync("cargo", ["test", "--workspace", "--no-run", "-q", "--target", hostTarget], { cwd: root, stdio: "inherit", env: lintedEnv() });
}
