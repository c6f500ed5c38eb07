// The page's bootstrap: loads the app (app.js, built from web/src/main.rs). A file rather than
// an inline script, so the Content-Security-Policy in index.html allows only scripts from the
// site itself (script-src 'self').

// The simulation worker starts first, so its wasm (sim_bg.wasm) downloads and compiles while the
// page's does; the page's runner (web/src/hooks/use_runner.rs) adopts it with what it said
// before the page listened (a load failure), which `early` keeps. It is started before app.js
// is imported (a static import would run this file only once app.js had loaded), while the
// page's thread is idle: in a trace of the load, a worker started after the import only began
// once the app had been instantiated and first rendered, about 190 ms later.
try {
  const worker = new Worker("./worker.js", { type: "module" });
  const early = [];
  worker.onmessage = (event) => early.push(event);
  worker.onerror = (event) => {
    event.preventDefault();
    early.push(event);
  };
  globalThis.schedlabWorker = { worker, early };
} catch {
  // The runner starts its own worker and reports a failure there.
}

// The app reports its own errors (see web/src/panic_banner.rs); this covers the case where it
// never starts, e.g. app.js or the wasm file is missing or the browser lacks WebAssembly.
import("./app.js").then((app) => app.default()).then(keepOffline, (error) => {
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
