// Shared fixtures for the end-to-end tests: import { test, expect } from "./fixtures.js".
//
// - `site`: dist/ served over HTTP on a free loopback port, one server per worker, closed with it.
// - `app`:  the page opened on that server and fully started (or not opened: `start`), with every
//           console error, uncaught exception and failed request collected. Tests then read
//           `app.consoleErrors` and `app.failedRequests`, and find elements by their data-testid
//           (DESIGN.md §6).
import { execFile, execFileSync } from "node:child_process";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { setPriority } from "node:os";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";
import { test as base, expect } from "@playwright/test";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const dist = join(root, "dist");

/** The host's target triple: `./x test` and global-setup.js build the CLI for it by name. */
export const hostTarget = execFileSync("rustc", ["-vV"], { encoding: "utf8" }).match(/^host: (\S+)$/m)[1];
/** The schedlab CLI, built by global-setup.js before the tests run. */
const cliBinary = join(resolve(root, process.env.CARGO_TARGET_DIR ?? "target"), hostTarget, "debug", "schedlab");

/** Runs the schedlab CLI and returns its standard output. */
export function cli(...args) {
  return execFileSync(cliBinary, args, { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
}
/**
 * Starts the schedlab CLI and returns a promise of its standard output, so a test can let a
 * long run go on beside what the page does. It runs at a lower priority (nice 10): it takes the
 * CPU time the page leaves, and does not slow a page's run towards the page's time limit on a
 * busy machine.
 */
export function cliInBackground(...args) {
  let child;
  const output = new Promise((resolve, reject) => {
    child = execFile(cliBinary, args, { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });
  try {
    setPriority(child.pid, 10);
  } catch {
    // Not allowed here, or the process is gone already: it runs at the normal priority.
  }
  // Awaited later; a test that fails before then should not also report an unhandled rejection.
  output.catch(() => {});
  return output;
}
export const artifacts = process.env.E2E_ARTIFACTS ?? join(root, "target/e2e");

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * A static file server for `dir`, like the one a host would be; resolves to { url, close }.
 * Nothing is cached (`no-store`), unless `revalidate`: then the browser may keep a file and asks
 * for it again at every use (`no-cache`, answered 304 while the file is unchanged), which lets
 * Chromium keep the wasm module's compiled code between the e2e tests' loads, as it does for a
 * returning visitor; the speed bench measures first loads and caches nothing.
 */
export async function serveStatic(dir, { revalidate = false } = {}) {
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://x").pathname);
    let file = normalize(join(dir, path));
    if (file !== dir && !file.startsWith(dir + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      await stat(file);
    } catch {
      response.writeHead(404).end("not found");
      return;
    }
    const headers = { "content-type": types[extname(file)] ?? "application/octet-stream" };
    if (revalidate) {
      const modified = (await stat(file)).mtime.toUTCString();
      if (request.headers["if-modified-since"] === modified) {
        response.writeHead(304).end();
        return;
      }
      Object.assign(headers, { "cache-control": "no-cache", "last-modified": modified });
    } else {
      headers["cache-control"] = "no-store";
    }
    response.writeHead(200, headers);
    createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

export const test = base.extend({
  site: [
    async ({}, use) => {
      const site = await serveStatic(dist, { revalidate: true });
      await use(site);
      await site.close();
    },
    { scope: "worker" },
  ],

  // The address the `app` fixture opens the page at, relative to the site: the page itself, or
  // none (`test.use({ start: null })`) for tests that open their own link first, which would
  // otherwise load the page and run its default scenario for nothing.
  start: ["", { option: true }],

  app: async ({ page, site, start }, use) => {
    const consoleErrors = [];
    const failedRequests = [];
    // The page outlives the test (reuseContext in playwright.config.js), so these listeners are
    // removed when it ends, before the next test's load.
    const listeners = {
      console: (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      },
      pageerror: (error) => consoleErrors.push(`uncaught: ${error.message}`),
      requestfailed: (request) => failedRequests.push(`${request.url()}: ${request.failure()?.errorText}`),
      response: (response) => {
        if (response.status() >= 400) failedRequests.push(`${response.url()}: HTTP ${response.status()}`);
      },
    };
    for (const [event, listener] of Object.entries(listeners)) page.on(event, listener);

    if (start !== null) {
      await page.goto(site.url + start);
      // The app has started once Yew has replaced the loading text with the page.
      await until(page, () => document.querySelector('[data-testid="engine-version"]')?.getClientRects().length > 0, null, {
        timeout: 10_000,
      });
      await expect(page.getByTestId("engine-version")).toBeVisible();
    }

    await use({ page, site, consoleErrors, failedRequests });
    for (const [event, listener] of Object.entries(listeners)) page.off(event, listener);
  },
});

export { expect };

/** The trace hash at the end of the run status ("Done ... · trace hash 0123456789abcdef"). */
export const HASH = /([0-9a-f]{16})$/;

/**
 * Waits until run-status says a run is done and returns its trace hash; with `not`, until the
 * hash is another than that one.
 */
export async function doneHash(page, { not } = {}) {
  const status = page.getByTestId("run-status");
  await until(
    page,
    (not) => {
      const text = document.querySelector('[data-testid="run-status"]')?.textContent.trim() ?? "";
      return /^Done/.test(text) && /[0-9a-f]{16}$/.test(text) && !(not && text.endsWith(not));
    },
    not ?? null,
  );
  await expect(status).toHaveText(HASH, { timeout: 30_000 });
  if (not) await expect(status).not.toHaveText(new RegExp(`${not}$`), { timeout: 30_000 });
  await expect(status).toHaveText(/^Done/);
  return (await status.textContent()).trim().match(HASH)[1];
}

/**
 * The link in the address bar decoded (`#s=1.` and deflated JSON, as the page's codec writes
 * it), or null before the page has written one. The page rewrites it a moment after the view
 * rests, so a test that reads it polls for the state it expects there instead of sleeping.
 */
export function addressBarLink(page) {
  const hash = new URL(page.url()).hash;
  if (!hash.startsWith("#s=1.")) return null;
  return JSON.parse(inflateRawSync(Buffer.from(hash.slice("#s=1.".length), "base64url")).toString());
}

/**
 * Waits until `predicate(arg)`, run in the page every 20 ms, is true (at most `timeout` ms), and
 * returns either way: the web-first assertions that follow it still decide and report. They poll
 * at widening intervals (up to 500 ms apart), so a wait they start before a run ends takes up to
 * half a second longer than the run; this wait sees the change within 20 ms.
 */
export async function until(page, predicate, arg = null, { timeout = 15_000 } = {}) {
  await page.waitForFunction(predicate, arg, { polling: 20, timeout }).catch(() => {});
}

/** Sets a tunable's range input the way dragging does: value, then an input event. */
export async function slide(page, key, value) {
  await page.getByTestId(`tunable-${key}`).evaluate((input, v) => {
    input.value = String(v);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }, value);
}
