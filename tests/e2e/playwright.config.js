// Playwright end-to-end tests against the built site in dist/ (`./x test` builds it first).
//
// The browser is the system Chromium's headless shell (Debian's `chromium-headless-shell`, which
// `./x setup` installs), else Chromium itself (`chromium`); Playwright's own browser downloads
// are never used. Set CHROMIUM to point at another binary. The headless shell is the browser
// without its desktop layers (Playwright's own default for headless runs): the suite took ~15 %
// less CPU time in it (explorer.spec.js alone, one worker: 63 CPU s, against 74 in Chromium).
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "@playwright/test";

const root = fileURLToPath(new URL("../..", import.meta.url));
// Results and screenshots go here; ./x points it into its cargo target dir.
const artifacts = process.env.E2E_ARTIFACTS ?? join(root, "target/e2e");

/** The first of `names` on PATH, or CHROMIUM when it is set. */
export function findChromium(names = ["chromium-headless-shell", "chromium", "chromium-browser"]) {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const name of names) {
    for (const dir of (process.env.PATH ?? "").split(delimiter)) {
      const candidate = join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new Error("no chromium on PATH: run ./x setup, or set CHROMIUM");
}

export const launchOptions = {
  executablePath: findChromium(),
  // Playwright gives each launch a fresh, temporary user-data dir. These flags keep Chromium off
  // the network (only loopback is reachable here) and quiet.
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

export default defineConfig({
  testDir: ".",
  testMatch: "**/*.spec.js",
  globalSetup: "./global-setup.js",
  outputDir: join(artifacts, "results"),
  fullyParallel: true,
  // The suite keeps two cores busy: ~115 CPU seconds over a 70-80 s run of it alone (it was
  // ~200 over ~110 s in Chromium with full traces, when three workers and five took the same
  // time); E2E_WORKERS sets another count.
  workers: Number(process.env.E2E_WORKERS) || 3,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [
    ["list"],
    ["json", { outputFile: join(artifacts, "results.json") }],
  ],
  use: {
    // One browser context and page per worker, reset between tests (Playwright closes other
    // pages, clears storage and cookies (not the HTTP cache), resets the viewport and opens about:blank;
    // a service worker an earlier test registered may still answer requests, so a test that
    // routes the page's requests asks for a context without them: see hardening.spec.js). Each test still loads the page afresh, but in the same renderer
    // process, whose start and compiled wasm it keeps: a load took ~1.5 CPU seconds in a fresh
    // context and ~0.8 here; explorer.spec.js started 63 renderer processes and now 9, and
    // Chromium's CPU time for it fell from 122 to 107 s. A test that asks for other context
    // options (hasTouch, bypassCSP) gets a fresh context.
    reuseContext: true,
    browserName: "chromium",
    headless: true,
    viewport: { width: 1280, height: 800 },
    // A failed test keeps its trace: every action with its timing and log, console, network and
    // sources, and (screenshot) the page as the test failed. Not the DOM snapshots around every
    // action nor the screencast: recorded for every test and thrown away when it passed, they
    // took ~40 % of the suite's CPU time (explorer.spec.js, one worker: 57-69 CPU s with them,
    // 32-38 without).
    trace: { mode: "retain-on-failure", snapshots: false, screenshots: false },
    screenshot: "only-on-failure",
    launchOptions,
  },
});
