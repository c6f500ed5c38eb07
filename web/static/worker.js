// The simulation worker: a module worker that loads the engine (sim.js, built from
// web/src/worker_main.rs) and answers each message from the page with one reply. Requests are
// JSON strings, and so are replies but a run's: a Uint8Array (web/src/wire.rs) whose buffer is
// transferred to the page rather than copied. See web/src/protocol.rs.

// The engine's wasm is fetched at once, beside its JavaScript glue rather than after it: one
// round trip less before the first run.
const wasm = fetch(new URL("./sim_bg.wasm", import.meta.url));
// A failed fetch is reported once, by the load below.
wasm.catch(() => {});

// The page's bootstrap (boot.js) imports the app once this thread has loaded the engine (or
// failed to): until then the page's thread, which delivers this worker's script and fetches,
// stays free. "started" first, for a bootstrap that waits no longer.
function tellPage(what) {
  if (typeof BroadcastChannel === "function") {
    const channel = new BroadcastChannel("schedlab-worker-started");
    channel.postMessage(what);
    channel.close();
  }
}
tellPage("started");

// A load failure is the reply to every request: the page may not yet be listening when it
// happens (the worker starts before the page's app, see boot.js).
let failed = null;
let handle = null;
let warmUp = null;
const ready = import("./sim.js")
  .then(async (sim) => {
    await sim.default({ module_or_path: wasm });
    handle = sim.handle;
    warmUp = sim.warm_up;
    return true;
  })
  .catch((error) => {
    failed = JSON.stringify({ crashed: { message: `the simulator could not load: ${error}` } });
    self.postMessage(failed);
    return false;
  })
  .finally(() => tellPage("loaded"));
// Once the page has been told: the warm-up (web/src/sim.rs `warm_up`) overlaps the page's own
// start, and a request that comes meanwhile waits for it in this thread's queue. A panic in it
// is reported like a request's (the engine's hook posts it, and the page replaces the worker).
ready.then((ok) => {
  if (!ok) return;
  try {
    warmUp();
  } catch {
    // Reported already; the next request meets the trapped instance and says so.
  }
});

self.onmessage = async (event) => {
  if (!(await ready)) {
    self.postMessage(failed);
    return;
  }
  let reply;
  try {
    reply = handle(event.data);
  } catch (error) {
    // A panic traps the wasm instance (its hook has already posted the message); the page
    // replaces this worker.
    reply = JSON.stringify({ crashed: { message: String(error) } });
  }
  if (reply instanceof Uint8Array) {
    self.postMessage(reply.buffer, [reply.buffer]);
  } else {
    self.postMessage(reply);
  }
};
