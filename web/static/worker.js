// The simulation worker: a module worker that runs the engine of the page's one wasm module
// (app.js, whose worker exports are in web/src/worker_main.rs) and answers each message from the
// page with one reply. Requests are a Uint8Array (web/src/wire.rs); replies are a Uint8Array
// whose buffer is transferred to the page rather than copied, or a JSON string made here when
// the wasm could not load or a call into it threw. See web/src/protocol.rs.

// How this worker gets its wasm: the page fetched and compiled the module once, and posts the
// compiled WebAssembly.Module as this worker's first message (boot.js sendModule for the worker
// it starts with the page, web/src/hooks/use_runner.rs start_worker for any later one), or
// `{ moduleError }` when it could not compile it. Nothing is fetched or compiled here again.
let moduleReceived;
const wasmModule = new Promise((resolve, reject) => {
  moduleReceived = { resolve, reject };
});
// Takes the module from a message and says whether the message was that (a request never is:
// it is a Uint8Array).
function receiveModule(data) {
  if (data instanceof WebAssembly.Module) moduleReceived.resolve(data);
  else if (typeof data?.moduleError === "string") moduleReceived.reject(new Error(data.moduleError));
  else return false;
  return true;
}

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

// The name boot.js gives the worker it starts for a page opened without a link.
const FIRST_RUN = "schedlab-first-run";

// Runs the page's first request before the page sends it (web/src/sim.rs prepare_first_run)
// and posts the reply with the request it answers, `{ firstRun, request }`: boot.js hands it
// to the app before its first render, and the app then sends no request for it. The reply is
// also kept for that request, should the app start before it arrives and ask after all. Not
// a reply to any request: the app's runner ignores a message of this form.
function postFirstRun(sim) {
  sim.prepare_first_run();
  const first = sim.first_run();
  if (first) {
    const [request, reply] = first;
    self.postMessage({ firstRun: reply.buffer, request }, [reply.buffer]);
  }
}

// A load failure is the reply to every request: the page may not yet be listening when it
// happens (the worker starts before the page's app, see boot.js).
let failed = null;
let handle = null;
let warmUp = null;
const ready = Promise.all([import("./app.js"), wasmModule])
  .then(async ([sim, module]) => {
    await sim.default({ module_or_path: module });
    handle = sim.handle;
    // The worker boot.js starts for a page opened without a link answers that page's first
    // request ahead of time; any other only warms up.
    warmUp = self.name === FIRST_RUN ? () => postFirstRun(sim) : sim.warm_up;
    return true;
  })
  .catch((error) => {
    failed = JSON.stringify({ crashed: { message: `the simulator could not load: ${error}` } });
    self.postMessage(failed);
    return false;
  })
  .finally(() => tellPage("loaded"));
// Once the page has been told: the warm-up (web/src/sim.rs `warm_up`, or `prepare_first_run`,
// which runs the page's first request before it comes) overlaps the page's own start, and a
// request that comes meanwhile waits for it in this thread's queue. A panic in it
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
  if (receiveModule(event.data)) return;
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
