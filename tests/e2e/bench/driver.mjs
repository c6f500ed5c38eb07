// What the page benchmarks share: their command-line options, the browser they launch, and
// the slider moves page-work.mjs and page-profile.mjs make (prio_bonus_ratio, as page-speed.mjs
// moves it) with how they wait for a run: through plain DOM calls rather than locators, whose
// selector engine runs tasks of its own on the page's main thread.
import { chromium } from "playwright-core";

// The value given after option `name` on the command line, or null.
export function argument(name) {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : null;
}

// Headless Chromium ($CHROMIUM, else Debian's) without the background work that would blur
// the page's timings.
export const launch = () =>
  chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  });

export const MOVES = [10, 20, 30, 40, 50, 5, 15, 35, 45, 25];

// The page's trace hash, from the run status ("Done ... · trace hash 0123456789abcdef").
const DONE = /^Done.*[0-9a-f]{16}$/;

// The run status's text.
export const status = (page) =>
  page.evaluate(() => document.querySelector('[data-testid="run-status"]')?.textContent.trim() ?? "");

// Waits until a run is done whose hash does not end the status `not` (null: any run).
export const done = (page, not) =>
  page.waitForFunction(
    ([done, not]) => {
      const text = document.querySelector('[data-testid="run-status"]')?.textContent.trim() ?? "";
      return new RegExp(done).test(text) && !(not && text.endsWith(not));
    },
    [DONE.source, not],
    { polling: 10, timeout: 60_000 },
  );

// Makes the MOVES, each after the run of the one before is done, and waits for the last run.
export async function moveSlider(page) {
  for (const value of MOVES) {
    const hash = (await status(page)).slice(-16);
    await page.evaluate((v) => {
      const input = document.querySelector('[data-testid="tunable-prio_bonus_ratio"]');
      input.value = String(v);
      input.dispatchEvent(new Event("input", { bubbles: true }));
    }, value);
    await done(page, hash);
  }
}
