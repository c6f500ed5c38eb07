// schedlab's service worker: once the page has loaded, it keeps working offline (a classroom's
// Wi-Fi fails). Registered by boot.js as `sw.js?build=<hash>`, the hash of this build's files
// that `./x dist` writes into offline.json with the list of those files, so every deploy is a
// new worker with its own cache and the old caches are deleted.
//
// Network first: online, every request goes to the server and its answer refreshes the cache,
// so a new deploy is never hidden behind old files (no stale wasm); only when the network
// fails does the cache answer. The cache is this build's files, fetched together at install,
// each revalidated with the server (`no-cache`): the page has just downloaded them, so a host
// that gives a file's ETag or Last-Modified answers 304 and the browser's copy is cached, where
// `reload` downloaded the whole build (the 750 KB wasm too) a second time on a first visit.
// Never a stale file: the server is asked every time.

const BUILD = new URL(self.location.href).searchParams.get("build") ?? "unknown";
const CACHE = `schedlab-${BUILD}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const response = await fetch("./offline.json", { cache: "no-store" });
      const manifest = await response.json();
      const cache = await caches.open(CACHE);
      const files = ["./", "./offline.json", ...manifest.files.map((f) => `./${f}`)];
      await cache.addAll(files.map((f) => new Request(f, { cache: "no-cache" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("schedlab-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(request);
        if (response.ok) await cache.put(request, response.clone());
        return response;
      } catch (error) {
        // A navigation may carry a query; the page is the same file.
        const cached = await cache.match(request, { ignoreSearch: request.mode === "navigate" });
        if (cached) return cached;
        throw error;
      }
    })(),
  );
});
