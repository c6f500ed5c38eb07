// Runs once before the browser tests: builds the schedlab CLI they compare the page with, so
// no test spends its time budget compiling it (see `cli` in fixtures.js).
import { execFileSync } from "node:child_process";
import { root } from "./fixtures.js";

export default function globalSetup() {
  execFileSync("cargo", ["build", "-q", "-p", "schedlab-cli"], { cwd: root, stdio: "inherit" });
}
