// The page's bootstrap: loads the app (app.js, built from web/src/main.rs). A file rather than
// an inline script, so the Content-Security-Policy in index.html allows only scripts from the
// site itself (script-src 'self').

// The simulation worker starts first, so its wasm (sim_bg.wasm) downloads and compiles while the
// page's does; the page's runner (web/src/hooks/use_runner.rs) adopts it with what it said
// before the page listened (a load failure), which `early` keeps. It is started before app.js
// is imported (a static import would run this file only once app.js had loaded).
//
// The app is imported once the worker has loaded the engine (worker.js says so on the
// BroadcastChannel WORKER_STARTED), once it failed, or after STARTED_WAIT_MS at most. Loading a
// worker takes the page's thread: Chromium runs the worker's script, and hands it the responses
// to its fetches (sim.js, sim_bg.wasm), only when that thread is free, and the app's
// instantiation, first render and layout hold it for a few hundred ms on a busy machine. Traced
// at load average 5-7, a worker started beside the app got its wasm only once the app's first
// render and layout were done (~300 ms after it asked), and its first run was the last thing the
// first chart waited for; with the page's thread left free it has its engine ~70 ms after its
// script starts, so its first run overlaps the app's first render. app.js and app_bg.wasm are
// preloaded (index.html) meanwhile.
const WORKER_STARTED = "schedlab-worker-started";
const STARTED_WAIT_MS = 800;
let workerStarted = Promise.resolve();
try {
  const worker = new Worker("./worker.js", { type: "module" });
  const early = [];
  let started = () => {};
  if (typeof BroadcastChannel === "function") {
    workerStarted = new Promise((resolve) => {
      const channel = new BroadcastChannel(WORKER_STARTED);
      const timer = setTimeout(() => started(), STARTED_WAIT_MS);
      channel.onmessage = (event) => {
        if (event.data === "loaded") started();
      };
      started = () => {
        clearTimeout(timer);
        channel.close();
        resolve();
      };
    });
  }
  worker.onmessage = (event) => {
    early.push(event);
    started();
  };
  worker.onerror = (event) => {
    event.preventDefault();
    early.push(event);
    started();
  };
  globalThis.schedlabWorker = { worker, early };
} catch {
  // The runner starts its own worker and reports a failure there.
}

// The app reports its own errors (see web/src/panic_banner.rs); this covers the case where it
// never starts, e.g. app.js or the wasm file is missing or the browser lacks WebAssembly.
workerStarted
  .then(() => import("./app.js"))
  .then((app) => app.default())
  .then(keepOffline, (error) => {
    console.error(error);
    const banner = document.createElement("div");
    banner.className = "error-banner";
    banner.setAttribute("role", "alert");
    banner.dataset.testid = "error-banner";
    banner.textContent = `schedlab could not start: ${error}`;
    document.body.prepend(banner);
  });

// Once the page runs, a service worker (sw.js) keeps this build's files for offline use. The
// build's hash (offline.json, written by `./x dist`) is in the worker's URL, so a new deploy
// installs a new worker. Offline is a convenience: failing to set it up is not an error.
function keepOffline() {
  if (!("serviceWorker" in navigator)) return;
  fetch("./offline.json", { cache: "no-store" })
    .then((response) => (response.ok ? response.json() : null))
    .then((manifest) => {
      if (manifest?.build) {
        return navigator.serviceWorker.register(`./sw.js?build=${encodeURIComponent(manifest.build)}`);
      }
      return null;
    })
    .catch(() => {});
}

// Escape closes an open help text (a tunable's "?") and returns focus to its toggle.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const open of document.querySelectorAll("details.tunable-help[open], details[data-popover][open]")) {
    const hadFocus = open.contains(document.activeElement);
    open.open = false;
    if (hadFocus) open.querySelector("summary")?.focus();
  }
});
