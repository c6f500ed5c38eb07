// The page's bootstrap: loads the app (app.js, built from web/src/main.rs). A file rather than
// an inline script, so the Content-Security-Policy in index.html allows only scripts from the
// site itself (script-src 'self').

// The page and its simulation workers run one wasm module (app_bg.wasm, see web/src/main.rs),
// fetched and compiled once, here (`wasmModule`), from the start: each worker is posted the
// compiled module (`sendModule`) and instantiates it, the page instantiates it when it imports
// app.js. The simulation worker starts first, so it loads its script (worker.js, app.js) while
// the module compiles, and runs as soon as it has it; the page's runner
// (web/src/hooks/use_runner.rs) adopts it with what it said before the page listened (a load
// failure), which `early` keeps. It is started before app.js is imported (a static import would
// run this file only once app.js had loaded).
//
// The app is imported and its module instantiated once the worker has loaded the engine
// (worker.js says so on the BroadcastChannel WORKER_STARTED), once it failed, or after
// STARTED_WAIT_MS at most (`engineLoaded`). Loading a worker takes the page's thread: Chromium
// runs the worker's script, and hands it the responses to its fetches (worker.js, app.js), only
// when that thread is free, and the app's instantiation, first render and layout hold it for a
// few hundred ms on a busy machine. Traced at load average 5-7, a worker started beside the app
// got its wasm only once the app's first render and layout were done (~300 ms after it asked),
// and its first run was the last thing the first chart waited for; with the page's thread left
// free it has its engine ~70 ms after its script starts. app.js and app_bg.wasm are preloaded
// (index.html) meanwhile.
//
// The app starts (app.js start_page: its first render) at once on a page opened with a link;
// without one, once the worker has posted the page's first run, which it simulates before it is
// asked (`firstRun`, handed to the app, which draws it in its first render), or said anything
// else, or after STARTED_WAIT_MS (`firstRunReady`): the app's module is instantiated while the
// worker simulates.
const WORKER_STARTED = "schedlab-worker-started";
const STARTED_WAIT_MS = 800;
let engineLoaded = Promise.resolve();
let firstRunReady = Promise.resolve();

// The one module, compiled from the preloaded app_bg.wasm as its bytes arrive; rejected when it
// cannot be fetched or compiled (the page then shows why, below).
const wasmModule = compileModule();
wasmModule.catch(() => {});
async function compileModule() {
  const response = await fetch(new URL("./app_bg.wasm", import.meta.url));
  if (!response.ok) throw new Error(`app_bg.wasm: HTTP ${response.status}`);
  // Streaming needs the wasm MIME type; a server that sends another gets the whole file compiled.
  if (
    typeof WebAssembly.compileStreaming === "function" &&
    response.headers.get("Content-Type")?.split(";")[0].trim() === "application/wasm"
  ) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}
// How a worker started here gets the module: posted as its first message once compiled (see
// worker.js receiveModule), or why there is none. The runner's later workers are posted the
// page's own module the same way (use_runner.rs start_worker).
function sendModule(worker) {
  wasmModule.then(
    (module) => worker.postMessage(module),
    (error) => worker.postMessage({ moduleError: String(error) }),
  );
}

try {
  // Opened without a share link, the page's first request is the default scenario's run,
  // which this worker then simulates before it is asked (web/src/sim.rs prepare_first_run);
  // the test is AppState::from_fragment's.
  const link = location.hash.split("&").some((part) => part.replace(/^#+/, "").startsWith("s="));
  const worker = new Worker("./worker.js", { type: "module", name: link ? "schedlab" : "schedlab-first-run" });
  sendModule(worker);
  const early = [];
  const handOver = { worker, early, firstRun: null };
  let loaded = () => {};
  if (typeof BroadcastChannel === "function") {
    engineLoaded = new Promise((resolve) => {
      const channel = new BroadcastChannel(WORKER_STARTED);
      channel.onmessage = (event) => {
        if (event.data === "loaded") loaded();
      };
      loaded = () => {
        channel.close();
        resolve();
      };
    });
  }
  let ready = () => {};
  firstRunReady = link ? engineLoaded : new Promise((resolve) => (ready = resolve));
  // Whatever the worker says (or an error) settles both; so does the wait's end.
  const settle = () => {
    loaded();
    ready();
  };
  setTimeout(settle, STARTED_WAIT_MS);
  worker.onmessage = (event) => {
    if (event.data?.firstRun instanceof ArrayBuffer) {
      // The first run, answered before the app asked (worker.js postFirstRun): the app takes
      // it before its first render (web/src/hooks/use_runner.rs take_first_run).
      handOver.firstRun = event.data;
    } else {
      early.push(event);
    }
    settle();
  };
  worker.onerror = (event) => {
    event.preventDefault();
    early.push(event);
    settle();
  };
  globalThis.schedlabWorker = handOver;
} catch {
  // The runner starts its own worker and reports a failure there.
}

// The app reports its own errors (see web/src/panic_banner.rs); this covers the case where it
// never starts, e.g. app.js or the wasm file is missing or the browser lacks WebAssembly.
const appLoaded = engineLoaded
  .then(() => Promise.all([import("./app.js"), wasmModule]))
  .then(async ([app, module]) => {
    await app.default({ module_or_path: module });
    return app;
  });
Promise.all([appLoaded, firstRunReady])
  .then(([app]) => app.start_page())
  .then(() => whenIdle(keepOffline), (error) => {
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
// installs a new worker. Offline is a convenience: failing to set it up is not an error. It is
// registered once the page is idle (`whenIdle`), after the first chart's frame: a first visit's
// install fetches every file again into the cache, work of the browser's other processes that
// took the cores the first chart's layout and draw waited for (traced, from the first reply
// to the first chart drawn: 29-155 ms of their CPU when registered at the app's first render,
// 19-112 ms, median 24, registered when idle).
function whenIdle(f) {
  if (typeof requestIdleCallback === "function") {
    requestIdleCallback(f, { timeout: 2000 });
  } else {
    setTimeout(f, 1000);
  }
}

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
