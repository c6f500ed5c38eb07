// The WebAssembly memory of a page and of its workers (the simulation worker), read through
// the Chrome DevTools Protocol: the size of every WebAssembly.Memory in each one's heap
// (Runtime.queryObjects), so nothing in the page is made to report it. A wasm memory never
// shrinks, so its size after a run is the most that run needed. Used by page-speed.mjs
// (`wasm_memory_mb`) and bigrun.spec.js.

/** Sizes in bytes of the WebAssembly memories reachable through `send` (one CDP target). */
async function memories(send) {
  const { result: proto } = await send("Runtime.evaluate", { expression: "WebAssembly.Memory.prototype" });
  const { objects } = await send("Runtime.queryObjects", { prototypeObjectId: proto.objectId });
  const { result } = await send("Runtime.callFunctionOn", {
    objectId: objects.objectId,
    functionDeclaration: "function () { return this.map((m) => m.buffer.byteLength); }",
    returnByValue: true,
  });
  return result.value;
}

/**
 * `{ page, workers }`: the page's WebAssembly memory and each worker's, in bytes (the largest
 * memory of each when it has several; 0 when it has none).
 */
export async function wasmMemory(page) {
  const cdp = await page.context().newCDPSession(page);
  const waiting = new Map();
  let next = 1;
  const workers = [];
  cdp.on("Target.attachedToTarget", (e) => {
    if (e.targetInfo.type === "worker") workers.push(e.sessionId);
  });
  cdp.on("Target.receivedMessageFromTarget", (e) => {
    const message = JSON.parse(e.message);
    const reply = waiting.get(message.id);
    if (!reply) return;
    waiting.delete(message.id);
    if (message.error) reply.reject(new Error(`${message.error.message} (${e.sessionId})`));
    else reply.resolve(message.result);
  });
  // A worker is reached through the page's session (auto-attach, not flattened: Playwright's
  // CDP session speaks to one target, so a worker's messages travel inside the page's).
  const toWorker = (sessionId) => (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
    });
  try {
    await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    const largest = (sizes) => Math.max(0, ...sizes);
    const own = largest(await memories((method, params) => cdp.send(method, params)));
    const theirs = [];
    for (const session of workers) theirs.push(largest(await memories(toWorker(session))));
    return { page: own, workers: theirs };
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** The largest of the page's and its workers' WebAssembly memories, in MB (2^20 bytes). */
export async function wasmMemoryMb(page) {
  const m = await wasmMemory(page);
  return Math.max(m.page, ...m.workers) / (1 << 20);
}
